"""Sim-vs-real scatter plots (PNG): one point per policy, MMRV and Pearson in the title.

    write_scatter(path, comparison)   # comparison: a `sim_vs_real` entry

Drawn with matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

import pathlib


def write_scatter(path: pathlib.Path, comparison: dict) -> pathlib.Path:
    """A PNG of `comparison` ({task, variant, policies, real, sim, mmrv, pearson}) at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = comparison
    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=100)
    ax.plot([0, 1], [0, 1], color="0.8", linewidth=1, zorder=0)
    ax.scatter(c["real"], c["sim"], zorder=1)
    for name, x, y in zip(c["policies"], c["real"], c["sim"]):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("real-robot success")
    ax.set_ylabel("simulated success")
    ax.set_title(f"{c['task']} ({c['variant']})\nMMRV {c['mmrv']:.3f}, Pearson {c['pearson']:.3f}", fontsize=9)
    fig.tight_layout()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
