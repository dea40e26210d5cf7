"""Simplified collision (MJX) against the original meshes (MuJoCo C) on a grasp-and-lift.

Runs `simpler_jax.validation.grasp_lift.compare_over_heights` for each robot (the
grasp at each of `GRASP_HEIGHTS`, or `--heights`) and prints, per grasp height and
engine, the object's height gain, whether it was lifted and the wall time (the
first MJX run includes compiling), then per robot the lift counts and the median
final-height gap the test checks. Writes JSON. `--robots widowx_spoon` runs the
WidowX on the spoon-on-towel spoon, grasped on its handle where the task's
scripted policy grasps it (a diagnostic: the test runs the two default cases).

    python benchmarks/grasp_lift.py [--robots google_robot widowx widowx_spoon] [--heights 0.006 0.0 ...]
                                    [--out benchmarks/out/grasp_lift.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache
from simpler_jax.validation import grasp_lift as gl


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["google_robot", "widowx"], choices=sorted(gl.CASES))
    p.add_argument("--heights", nargs="+", type=float, default=None,
                   help="TCP heights above the object origin at the grasp, m (default: GRASP_HEIGHTS per robot)")
    p.add_argument("--out", default="benchmarks/out/grasp_lift.json")
    a = p.parse_args(argv)
    enable_compilation_cache()
    rows, summaries = [], []
    print(f"{'robot':>12} {'object':>16} {'grasp dz mm':>11} {'engine':>18} {'max dz cm':>9} "
          f"{'final dz cm':>11} {'lifted':>6} {'time s':>7}")
    for robot in a.robots:
        timings = {}
        sweep = gl.compare_over_heights(robot, a.heights, timings)
        model_id = gl.CASES[robot].model_id
        for dz, m, c in zip(sweep.grasp_dz, sweep.mjx, sweep.mujoco_c):
            for engine, res in (("mjx_simplified", m), ("mujoco_c_original", c)):
                row = {
                    "robot": robot, "object": model_id, "grasp_dz_m": dz, "engine": engine,
                    "final_height_gain_m": res.lifted_by,
                    "max_height_gain_m": float(res.object_z.max() - res.object_z[0]),
                    "lifted": res.lifted, "phases": sorted(set(res.phases)),
                    "object_z": res.object_z.tolist(), "wall_s": timings[(engine, dz)],
                }
                rows.append(row)
                print(f"{robot:>12} {model_id:>16} {1000 * dz:>11.1f} {engine:>18.18} "
                      f"{100 * row['max_height_gain_m']:>9.2f} {100 * res.lifted_by:>11.2f} "
                      f"{str(res.lifted):>6} {row['wall_s']:>7.1f}", flush=True)
        lifted_mjx, lifted_c = sweep.lift_counts()
        gap = sweep.median_final_gap()
        summaries.append({"robot": robot, "heights": len(sweep.grasp_dz), "lifted_mjx": lifted_mjx,
                          "lifted_mujoco_c": lifted_c, "median_final_gap_m": gap})
        print(f"{robot}: lifted at {lifted_mjx} (MJX) and {lifted_c} (MuJoCo C) of {len(sweep.grasp_dz)} "
              f"heights; median final-height gap where both lifted {100 * gap:.2f} cm")
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"benchmark": "grasp_lift", "date": time.strftime("%Y-%m-%d"), "argv": sys.argv[1:],
                   "rows": rows, "summary": summaries}, f, indent=2)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
