"""The summary of a sweep, from its result rows (pure functions; the report reuses them).

`summary_table`: one row per (task, policy, variant) cell with at least one
finished episode: episodes done / expected, SIMPLER's success rate with its 95%
Wilson interval (`simpler_jax.metrics.wilson_interval`), the strict success rate,
non-finite worlds, and warm throughput in world control steps per second (chunks
that did not compile, from `timing.jsonl`).

`sim_vs_real`: for each task and variant of the paper's tables
(`simpler_jax.metrics.paper_tables`) where the sweep ran at least two policies
with real-robot numbers, the sweep's success rates against the real ones: MMRV and
Pearson (argument order (real, sim)).
"""

from __future__ import annotations

from simpler_jax.metrics import mmrv, paper_tables, pearson, wilson_interval


def _cells(rows: list[dict], config):
    for task in config.tasks:
        for policy in config.policies:
            for variant in config.variants:
                cell = [x for x in rows if (x["task"], x["policy"], x["variant"]) == (task, policy, variant)]
                if cell:
                    yield task, policy, variant, cell


def summary_table(rows: list[dict], config, timing: list[dict] = ()) -> list[dict]:
    """rows: result lines (dicts); config: SweepConfig; timing: `timing.jsonl` records."""
    table = []
    for task, policy, variant, r in _cells(rows, config):
        n = len(r)
        k = int(sum(bool(x["success"]) for x in r))
        lo, hi = wilson_interval(k, n)
        warm = [x for x in timing if (x["task"], x["policy"], x["variant"]) == (task, policy, variant)
                and not x["compiled"]]
        secs = sum(x["seconds"] for x in warm)
        steps = sum(x["worlds"] * x["control_steps"] for x in warm)
        table.append({
            "task": task, "policy": policy, "variant": variant,
            "episodes": n, "expected_episodes": len(config.seeds) * len(config.episode_ids(task)),
            "successes": k, "success_rate": k / n, "success_wilson95": [lo, hi],
            "strict_success_rate": sum(bool(x["strict_success"]) for x in r) / n,
            "nonfinite_worlds": int(sum(bool(x["nonfinite"]) for x in r)),
            "control_steps_per_s": steps / secs if secs > 0 else None,
        })
    return table


def sim_vs_real(table: list[dict], real_table=paper_tables.REAL_PERF) -> list[dict]:
    """Per (task, variant) with >= 2 policies that have real numbers: MMRV, Pearson and the rates.

    Policies are matched by name with the paper's (`rt-1-x`, `octo-base`, ...).
    """
    out = []
    keys = dict.fromkeys((t["task"], t["variant"]) for t in table)
    for task, variant in keys:
        real_row = real_table.get(task, {})
        pairs = [(t["policy"], real_row[t["policy"]], t["success_rate"]) for t in table
                 if (t["task"], t["variant"]) == (task, variant) and t["policy"] in real_row]
        if len(pairs) < 2:
            continue
        policies, real, sim = (list(x) for x in zip(*pairs))
        out.append({"task": task, "variant": variant, "policies": policies, "real": real, "sim": sim,
                    "mmrv": mmrv(real, sim), "pearson": pearson(real, sim)})
    return out


def format_table(table: list[dict], comparisons: list[dict] = ()) -> str:
    """The table as fixed-width text (+ the sim-vs-real lines), with what success means."""
    width = max([len(t["task"]) for t in table] + [4])
    head = (f"{'task':<{width}} {'policy':>10} {'variant':>16} {'episodes':>9} "
            f"{'success [95% Wilson]':>21} {'strict':>7} {'NaN':>4} {'ctrl steps/s':>13}")
    lines = [head]
    for t in table:
        lo, hi = t["success_wilson95"]
        succ = f"{t['success_rate']:.2f} [{lo:.2f}, {hi:.2f}]"
        eps = str(t["episodes"])
        if t["episodes"] != t["expected_episodes"]:
            eps += f"/{t['expected_episodes']}"
        sps = "-" if t["control_steps_per_s"] is None else f"{t['control_steps_per_s']:.1f}"
        lines.append(f"{t['task']:<{width}} {t['policy']:>10} {t['variant']:>16} {eps:>9} {succ:>21} "
                     f"{t['strict_success_rate']:>7.2f} {t['nonfinite_worlds']:>4} {sps:>13}")
    lines.append("success: SIMPLER's rule at the final control step; strict: also at rest, released, "
                 "held; ctrl steps/s: warm world control steps per second")
    for c in comparisons:
        lines.append(f"sim vs real {c['task']} ({c['variant']}, {len(c['policies'])} policies): "
                     f"MMRV {c['mmrv']:.3f}, Pearson {c['pearson']:.3f}")
    return "\n".join(lines)
