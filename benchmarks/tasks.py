"""Every SIMPLER task on its paper grid: the scripted policy against the zero action.

For each task and scene, builds the `TaskEnv`, then runs each chunk of episodes
twice in one compiled rollout (`simpler_jax.tasks.rollout`): once with the
privileged scripted policy (`simpler_jax.tasks.scripted`) and once with the zero
action (the baseline measured in the same run). Prints per task: episodes, success
of each policy, how often the source was grasped, non-finite worlds, compile and
run time; writes JSON with every episode's stats, the config, versions and seeds,
rewritten after every chunk, so an interrupted run keeps its finished episodes.

    python benchmarks/tasks.py [--tasks widowx_stack_cube ...] [--max-episodes N | --episodes 0 9 18]
                               [--worlds 32] [--policies scripted zero] [--seed 0]
                               [--out benchmarks/out/tasks.json]
                               [--finger-object-dampratio google_robot=4.0 ...]

`--policies scripted` runs only the scripted policy (the drawer scenes cost ~1 s per
world-step on 2 CPU cores); the summary then has no zero-action figures.

`--finger-object-dampratio ROBOT=RATIO` is for experiments: it replaces the robot's
`RobotConfig.finger_object_dampratio` (the damping ratio of its finger-object
contacts) for this run; the JSON's config records it.

Issue 3's acceptance: scripted >= 90 % per task over the full grids, zero action 0 %.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache

PAPER_TASKS = (
    "google_robot_pick_coke_can", "google_robot_move_near_v0", "google_robot_open_drawer",
    "google_robot_close_drawer", "google_robot_place_apple_in_closed_top_drawer",
    "widowx_spoon_on_towel", "widowx_carrot_on_plate", "widowx_stack_cube", "widowx_put_eggplant_in_basket",
)
POLICIES = ("scripted", "zero")


def run_task(task: str, max_episodes: int | None, worlds: int, seed: int,
             episode_ids: list[int] | None = None,
             policies: tuple[str, ...] = POLICIES,
             on_chunk=lambda rows: None) -> tuple[list[dict], dict]:
    """Runs one task's episodes; `on_chunk(rows)` gets this task's rows after every chunk."""
    import jax
    import numpy as np

    from simpler_jax.tasks import task_spec
    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.rollout import make_rollout
    from simpler_jax.tasks.stats import report

    spec = task_spec(task)
    episodes = spec.episodes()[:max_episodes] if max_episodes else spec.episodes()
    if episode_ids is not None:
        known = {e.episode_id: e for e in spec.episodes()}
        bad = [e for e in episode_ids if e not in known]
        if bad:
            raise SystemExit(f"{task}: unknown episode ids {bad}; allowed: 0..{len(known) - 1}")
        episodes = [known[e] for e in episode_ids]
    rows, compile_s, run_s = [], 0.0, 0.0
    chunk = max(worlds // len(policies), 1)
    for key in dict.fromkeys(e.scene_key for e in episodes):
        ids = [e.episode_id for e in episodes if e.scene_key == key]
        env = TaskEnv(task, scene_key=key)
        rollout = make_rollout(env)
        for start in range(0, len(ids), chunk):
            part = ids[start : start + chunk]
            pad = part + [part[-1]] * (chunk - len(part))  # one compiled shape per scene
            # One block of `chunk` worlds per policy, scripted first.
            params = env.episode_params(pad * len(policies))
            base = jax.random.PRNGKey(seed)
            keys = jax.numpy.stack([jax.random.fold_in(base, e) for e in pad * len(policies)])
            scripted = np.repeat([p == "scripted" for p in policies], chunk)
            t0 = time.perf_counter()
            final = jax.block_until_ready(rollout(params, keys, scripted))
            dt = time.perf_counter() - t0
            if start == 0:
                compile_s += dt
            else:
                run_s += dt
            nonfinite = np.asarray(final.env.nonfinite)
            for w, e in enumerate(part):
                for block, policy in enumerate(policies):
                    world = block * chunk + w
                    rows.append({"task": task, "scene": key, "episode_id": e, "policy": policy, "seed": seed,
                                 "nonfinite": bool(nonfinite[world]), **report(spec.family, final.stats, world)})
            on_chunk(rows)
    timing = {"task": task, "compile_and_first_chunk_s": compile_s, "other_chunks_s": run_s}
    return rows, timing


def parse_dampratios(entries: list[str], robots) -> dict[str, float]:
    """{robot: ratio} from `ROBOT=RATIO` entries; ValueError naming a bad entry."""
    out = {}
    for entry in entries:
        robot, sep, value = entry.partition("=")
        if not sep or robot not in robots:
            raise ValueError(f"--finger-object-dampratio {entry!r}: expected ROBOT=RATIO, ROBOT one of {sorted(robots)}")
        try:
            ratio = float(value)
        except ValueError:
            ratio = math.nan
        if not (math.isfinite(ratio) and ratio > 0):
            raise ValueError(f"--finger-object-dampratio {entry!r}: RATIO must be a positive finite number")
        out[robot] = ratio
    return out


def summarize(rows: list[dict]) -> list[dict]:
    out = []
    for task in dict.fromkeys(r["task"] for r in rows):
        line = {"task": task}
        for policy in POLICIES:
            sel = [r for r in rows if r["task"] == task and r["policy"] == policy]
            if not sel:  # this policy was not run (--policies)
                line[f"{policy}_success"] = line[f"{policy}_grasped"] = line[f"{policy}_nonfinite"] = None
                continue
            line["episodes"] = len(sel)
            line[f"{policy}_success"] = sum(r["success"] for r in sel) / max(len(sel), 1)
            grasp_key = next((k for k in ("grasped", "is_src_obj_grasped") if sel and k in sel[0]), None)
            line[f"{policy}_grasped"] = (sum(r[grasp_key] for r in sel) / len(sel)) if grasp_key else None
            line[f"{policy}_nonfinite"] = sum(r["nonfinite"] for r in sel)
        out.append(line)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=list(PAPER_TASKS))
    p.add_argument("--max-episodes", type=int, default=None, help="first N episodes of each grid (default: all)")
    p.add_argument("--episodes", type=int, nargs="+", default=None,
                   help="these episode ids of every task (default: the grid, or its first --max-episodes)")
    p.add_argument("--worlds", type=int, default=32,
                   help="worlds per compiled call (split evenly between the policies run)")
    p.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES),
                   help="policies to run (default: both; the zero action is the baseline)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="benchmarks/out/tasks.json")
    p.add_argument("--finger-object-dampratio", nargs="+", default=[], metavar="ROBOT=RATIO",
                   help="experiments: this damping ratio for the robot's finger-object contacts "
                        "(default: each robot's RobotConfig)")
    a = p.parse_args(argv)
    from simpler_jax.scenes import scene
    from simpler_jax.tasks.spec import TASK_SPECS

    unknown = [t for t in a.tasks if t not in TASK_SPECS]
    if unknown:
        p.error(f"unknown tasks {unknown}; known: {sorted(TASK_SPECS)}")
    try:
        ratios = parse_dampratios(a.finger_object_dampratio, scene.ROBOTS)
    except ValueError as e:
        p.error(str(e))
    for robot, ratio in ratios.items():  # scenes look their robot up here when built
        scene.ROBOTS[robot] = dataclasses.replace(scene.ROBOTS[robot], finger_object_dampratio=ratio)
    enable_compilation_cache()
    import jax

    from simpler_jax.utils.records import package_versions, write_json_atomic

    rows, timings = [], []

    def save(task_rows: list[dict]) -> None:
        write_json_atomic(a.out, {
            "config": vars(a), "versions": package_versions(), "device": str(jax.devices()[0]),
            "summary": summarize(rows + task_rows), "timing": timings, "episodes": rows + task_rows,
        })

    for task in a.tasks:
        # Rewritten after every chunk, so an interrupted run keeps the finished episodes.
        r, t = run_task(task, a.max_episodes, a.worlds, a.seed, a.episodes, tuple(a.policies),
                        on_chunk=save)
        rows += r
        timings.append(t)
        s = summarize(r)[0]
        fmt = lambda v: "  -  " if v is None else f"{100 * v:5.1f}"  # noqa: E731
        print(f"{task:>46} eps {s['episodes']:3d}  scripted {fmt(s['scripted_success'])}%  zero "
              f"{fmt(s['zero_success'])}%  grasped {fmt(s['scripted_grasped'])}%  nonfinite "
              f"{sum(s[f'{p}_nonfinite'] for p in a.policies)}  compile+first {t['compile_and_first_chunk_s']:.0f}s",
              flush=True)
        save([])
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
