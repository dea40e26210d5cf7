"""Simplified collision (MJX) against the original meshes (MuJoCo C) on a grasp-and-lift.

Runs `simpler_jax.validation.grasp_lift` for each robot and prints, per engine, the
object's height gain, whether it was lifted, the phases reached, the wall time, and
the difference between the engines. Writes JSON.

    python benchmarks/grasp_lift.py [--robots google_robot widowx] [--out benchmarks/out/grasp_lift.json]
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
    p.add_argument("--robots", nargs="+", default=["google_robot", "widowx"])
    p.add_argument("--out", default="benchmarks/out/grasp_lift.json")
    a = p.parse_args(argv)
    enable_compilation_cache()
    rows = []
    print(f"{'robot':>12} {'object':>16} {'engine':>22} {'max dz cm':>9} {'final dz cm':>11} {'lifted':>6} {'time s':>7}")
    for robot in a.robots:
        env, original, case = gl.build_pair(robot)
        for engine, run in (("mjx_simplified", lambda: gl.run_mjx(env, case)),
                            ("mujoco_c_original", lambda: gl.run_mujoco_c(env, original, case))):
            t0 = time.perf_counter()
            res = run()
            wall = time.perf_counter() - t0
            row = {
                "robot": robot, "object": case.model_id, "engine": engine,
                "final_height_gain_m": res.lifted_by,
                "max_height_gain_m": float(res.object_z.max() - res.object_z[0]),
                "lifted": res.lifted, "phases": sorted(set(res.phases)),
                "object_z": res.object_z.tolist(), "wall_s": wall,
            }
            rows.append(row)
            print(f"{robot:>12} {case.model_id:>16} {engine:>22} {100 * row['max_height_gain_m']:>9.2f} "
                  f"{100 * res.lifted_by:>11.2f} {str(res.lifted):>6} {wall:>7.1f}", flush=True)
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"benchmark": "grasp_lift", "date": time.strftime("%Y-%m-%d"), "rows": rows}, f, indent=2)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
