"""What a SysID run leaves behind: parameters file, report (JSON and text), plot."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import numpy as np

from simpler_jax.envs.controller_params import write_controller_params
from simpler_jax.utils.records import package_versions

PLOT_EPISODES = 3


def config_dict(config) -> dict:
    d = dataclasses.asdict(config)
    return json.loads(json.dumps(d, default=lambda o: list(o) if isinstance(o, (tuple, np.ndarray)) else str(o)))


def summary_dict(result) -> dict:
    import jax

    n = len(result.fitted_joints)
    per_joint = {
        name: {"stiffness": [float(x) for x in g[:n]], "damping": [float(x) for x in g[n:]]}
        for name, g in result.gains.items()
    }
    out = {
        "robot": result.config.robot,
        "config": config_dict(result.config),
        "fitted_joints": list(result.fitted_joints),
        "train_episodes": [int(i) for i in result.train_episodes],
        "heldout_episodes": [int(i) for i in result.heldout_episodes],
        "gains": per_joint,
        "losses": result.losses,
        "placement_error_max": result.placement_error_max,
        "joint_limit_excess_max_rad": result.limit_excess_max,
        "timings": result.timings,
        "versions": package_versions(),
        "device": str(jax.devices()[0]),
    }
    if result.anneal is not None:
        gains, losses = result.anneal.top(10)
        out["anneal"] = {
            "initial_loss": result.anneal.initial_loss, "best_loss": result.anneal.best_loss,
            "round_best": [float(x) for x in result.anneal.round_best],
            "round_boxes": [{"lo": b.lo.tolist(), "hi": b.hi.tolist()} for b in result.anneal.round_boxes],
            "top10": [{"loss": float(l), "gains": g.tolist()} for g, l in zip(gains, losses)],
        }
    if result.shrink is not None:
        out["validation_shrink"] = result.shrink
    if result.grad is not None:
        out["grad"] = {
            "initial_loss": result.grad.initial_loss, "best_loss": result.grad.best_loss,
            "stopped": result.grad.stopped, "loss_trace": result.grad.loss_trace.tolist(),
            "grad_norm_trace": result.grad.grad_norm_trace.tolist(),
        }
    return out


def format_report(result) -> str:
    n = len(result.fitted_joints)
    lines = [f"SysID {result.config.robot} ({result.config.method}) on {result.config.data}",
             f"episodes: {len(result.train_episodes)} train, {len(result.heldout_episodes)} held-out", "",
             f"{'gains':<10} {'train loss':>11} {'held-out':>10}"]
    for name, l in result.losses.items():
        held = "-" if l["heldout"] is None else f"{l['heldout']:.5f}"
        lines.append(f"{name:<10} {l['train']:>11.5f} {held:>10}")
    lines += ["", f"{'joint':<26} {'K published':>11} {'K fitted':>9} {'D published':>11} {'D fitted':>9}"]
    pub, fit = result.gains["published"], result.gains["fitted"]
    for j, name in enumerate(result.fitted_joints):
        lines.append(f"{name:<26} {pub[j]:>11.1f} {fit[j]:>9.1f} {pub[n + j]:>11.1f} {fit[n + j]:>9.1f}")
    if result.shrink is not None:
        losses = ", ".join(f"{a:g}: {l:.5f}" for a, l in zip(result.shrink["steps"], result.shrink["validation_losses"]))
        lines += ["", f"validation on {len(result.shrink['episodes'])} train episodes kept out of the search, "
                  f"loss of init**(1-a) * searched**a by a: {losses}; chosen a = {result.shrink['chosen']:g}"]
    if result.grad is not None and result.grad.stopped != "completed":
        lines += ["", f"gradient refinement stopped: {result.grad.stopped}"]
    return "\n".join(lines)


def plot_trajectories(result, path: pathlib.Path, episodes: int = PLOT_EPISODES) -> pathlib.Path:
    """Real vs simulated EE x/y/z over time for the first few plotted episodes (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    batch = result.plot_batch
    num = min(episodes, batch.num_episodes)
    fig, axes = plt.subplots(num, 3, figsize=(12, 2.6 * num), squeeze=False)
    mask = np.asarray(batch.mask)
    for e in range(num):
        t = np.flatnonzero(mask[e])
        for k, axis in enumerate("xyz"):
            ax = axes[e, k]
            ax.plot(t, np.asarray(batch.position)[e, t, k], "k-", lw=2, label="real")
            for name, style in (("published", "C0--"), ("fitted", "C3-")):
                ax.plot(t, result.trajectories[name][e, t, k], style, label=f"sim, {name} gains")
            ax.set_title(f"episode {e}: EE {axis} (m)", fontsize=9)
            ax.set_xlabel("control step", fontsize=8)
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_outputs(result, out_dir) -> dict:
    """controller_params.json, sysid_report.json, sysid_report.txt, trajectories.png."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fitted = result.gains["fitted"]
    arm_k, arm_d = result.arm_gains(fitted)
    summary = summary_dict(result)
    params = write_controller_params(
        out / "controller_params.json", result.config.robot, result.arm_joints, arm_k, arm_d,
        fit={"method": result.config.method, "data": result.config.data,
             "fitted_joints": list(result.fitted_joints), "losses": result.losses["fitted"],
             "published_losses": result.losses["published"], "seed": result.config.anneal.seed,
             "versions": summary["versions"]},
    )
    (out / "sysid_report.json").write_text(json.dumps(summary, indent=2) + "\n")
    text = format_report(result)
    (out / "sysid_report.txt").write_text(text + "\n")
    plot = plot_trajectories(result, out / "trajectories.png")
    return {"params": params, "report": out / "sysid_report.json", "text": text, "plot": plot}
