"""The summary table of a sweep, from its result rows (pure functions; the report reuses them).

One row per (task, policy, variant) cell with at least one finished episode:
TCP error mean ± 1.96 standard errors (normal 95% interval; None with one
episode), max, success rate with its 95% Wilson interval
(`simpler_jax.metrics.wilson_interval`), mean IK success, non-finite worlds, and
warm throughput in world control steps per second from `timing.jsonl`.
"""

from __future__ import annotations

import math

import numpy as np

from simpler_jax.metrics import wilson_interval


def summary_table(rows: list[dict], config, timing: list[dict] = ()) -> list[dict]:
    """rows: result lines (dicts); config: SweepConfig; timing: `timing.jsonl` records."""
    table = []
    expected = len(config.seeds) * config.worlds
    for task in config.tasks:
        for policy in config.policies:
            for variant in config.variants:
                cell = (task, policy, variant)
                r = [x for x in rows if (x["task"], x["policy"], x["variant"]) == cell]
                if not r:
                    continue
                n = len(r)
                err = 1000 * np.array([x["tcp_error_m"] for x in r], np.float64)
                ci = 1.96 * float(err.std(ddof=1)) / math.sqrt(n) if n > 1 else None
                k = int(sum(bool(x["success"]) for x in r))
                lo, hi = wilson_interval(k, n)
                t = [x for x in timing if (x["task"], x["policy"], x["variant"]) == cell]
                secs = sum(x["warm_seconds"] for x in t)
                steps = sum(x["warm_world_steps"] for x in t)
                table.append({
                    "task": task, "policy": policy, "variant": variant,
                    "episodes": n, "expected_episodes": expected,
                    "tcp_error_mean_mm": float(err.mean()), "tcp_error_ci95_mm": ci,
                    "tcp_error_max_mm": float(err.max()),
                    "successes": k, "success_rate": k / n, "success_wilson95": [lo, hi],
                    "ik_success_rate": float(np.mean([x["ik_success_rate"] for x in r])),
                    "nonfinite_worlds": int(sum(bool(x["nonfinite"]) for x in r)),
                    "control_steps_per_s": steps / secs if secs > 0 else None,
                })
    return table


def format_table(table: list[dict], config) -> str:
    """The table as fixed-width text, with a line saying what success means."""
    head = (f"{'task':>14} {'policy':>18} {'variant':>9} {'episodes':>9} {'TCP err mean ± 95%':>20} "
            f"{'max':>8} {'success [95% Wilson]':>21} {'IK ok':>6} {'NaN':>4} {'ctrl steps/s':>13}")
    lines = [head]
    for t in table:
        ci = "" if t["tcp_error_ci95_mm"] is None else f" ± {t['tcp_error_ci95_mm']:.2f}"
        err = f"{t['tcp_error_mean_mm']:.2f}{ci} mm"
        lo, hi = t["success_wilson95"]
        succ = f"{t['success_rate']:.2f} [{lo:.2f}, {hi:.2f}]"
        eps = str(t["episodes"])
        if t["episodes"] != t["expected_episodes"]:
            eps += f"/{t['expected_episodes']}"
        sps = "-" if t["control_steps_per_s"] is None else f"{t['control_steps_per_s']:.1f}"
        lines.append(f"{t['task']:>14} {t['policy']:>18} {t['variant']:>9} {eps:>9} {err:>20} "
                     f"{t['tcp_error_max_mm']:>5.2f} mm {succ:>21} {t['ik_success_rate']:>6.2f} "
                     f"{t['nonfinite_worlds']:>4} {sps:>13}")
    lines.append(f"success: finite physics and final TCP error < {config.success_threshold_mm:g} mm; "
                 "TCP err: mean ± 1.96 standard errors")
    return "\n".join(lines)
