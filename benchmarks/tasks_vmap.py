"""Every task steps under one `jit(vmap)` over 64 worlds (issue 3's acceptance).

For each task (default: all of `simpler_jax.tasks.spec.TASK_SPECS`), its first scene
compiled as one `jit(vmap)` program over `--worlds` worlds (`simpler_jax.tasks.rollout`:
reset with the settle, then `--steps` control steps; half the worlds act with the
scripted policy, half with the zero action), on the scene's episode ids repeated to
fill the worlds. Checks each world's state is finite and every batched leaf has the
world axis first; prints a table and writes JSON (config, versions, per task:
compile and run seconds, checks).

Baseline, measured in the same run: MuJoCo C stepping the same scene (world 0's robot
pose and final state, drive targets held, `simpler_jax.envs.reference`), one world,
the same number of physics steps (reset settle + control steps); the table's ratio
is MJX world-physics-steps per second (second call) over MuJoCo C's.

    python benchmarks/tasks_vmap.py [--tasks widowx_stack_cube ...] [--worlds 64] [--steps 2]
                                    [--out benchmarks/out/tasks_vmap.json]

Tasks sharing a scene model (the drawer variants, the coke-can orientations) reuse
the compiled program through the persistent compilation cache.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache


def mujoco_c_seconds(env, params, final, physics_steps: int) -> float:
    """Seconds MuJoCo C takes for `physics_steps` substeps of world 0 (its robot base
    pose, from its state at the end of the MJX run, drive targets held)."""
    import jax
    import numpy as np

    from simpler_jax.envs.reference import MujocoCReference

    p0 = jax.tree.map(lambda x: np.asarray(x[0]), params.robot)
    d0 = jax.tree.map(lambda x: np.asarray(x[0]), final.env.data)
    ref = MujocoCReference.at_base(env.env, p0)
    ref.set_state(d0.qpos, d0.qvel, d0.ctrl)
    ctrl = np.broadcast_to(d0.ctrl, (physics_steps,) + d0.ctrl.shape)
    t0 = time.perf_counter()
    ref.control_step(ctrl)
    return time.perf_counter() - t0


def check_task(task: str, worlds: int, steps: int, seed: int) -> dict:
    import jax
    import numpy as np

    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.rollout import make_rollout

    env = TaskEnv(task)
    ids = list(itertools.islice(itertools.cycle(sorted(env.episodes)), worlds))
    params = env.episode_params(ids)
    base = jax.random.PRNGKey(seed)
    keys = jax.numpy.stack([jax.random.fold_in(base, w) for w in range(worlds)])
    scripted = np.arange(worlds) < worlds // 2
    rollout = make_rollout(env, num_steps=steps)
    t0 = time.perf_counter()
    final = jax.block_until_ready(rollout(params, keys, scripted))
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    final = jax.block_until_ready(rollout(params, keys, scripted))
    run_s = time.perf_counter() - t0

    leaves = jax.tree_util.tree_leaves(final)
    world_axis = all(np.shape(x)[:1] == (worlds,) for x in leaves)
    finite = np.ones(worlds, bool)
    for x in leaves:
        x = np.asarray(x)
        if np.issubdtype(x.dtype, np.floating):
            finite &= np.isfinite(x.reshape(worlds, -1)).all(axis=1)
    nonfinite_flag = np.asarray(final.env.nonfinite)
    step_count = np.asarray(final.env.step)

    physics_steps = env.settle_substeps + steps * env.env.substeps
    c_s = mujoco_c_seconds(env, params, final, physics_steps)
    mjx_rate = worlds * physics_steps / run_s
    c_rate = physics_steps / c_s
    return {
        "task": task, "scene": env.scene_key, "worlds": worlds, "control_steps": steps,
        "physics_steps_per_world": physics_steps,
        "compile_and_first_call_s": first_s, "second_call_s": run_s,
        "mjx_world_physics_steps_per_s": mjx_rate, "mujoco_c_physics_steps_per_s": c_rate,
        "ratio_mjx_over_c": mjx_rate / c_rate,
        "world_axis_first": bool(world_axis), "finite_worlds": int(finite.sum()),
        "flagged_nonfinite": int(nonfinite_flag.sum()),
        "steps_taken": sorted(set(step_count.tolist())),
        "ok": bool(world_axis and finite.all() and not nonfinite_flag.any() and (step_count == steps).all()),
    }


def main(argv=None) -> int:
    from simpler_jax.tasks.spec import TASK_SPECS, task_spec

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=sorted(TASK_SPECS))
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--steps", type=int, default=2, help="control steps after the reset")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="benchmarks/out/tasks_vmap.json")
    a = p.parse_args(argv)
    try:
        for t in a.tasks:
            task_spec(t)  # an unknown name lists the known ones and the closest
    except ValueError as err:
        p.error(str(err))
    if a.worlds < 2 or a.steps < 1:
        p.error(f"--worlds must be >= 2 and --steps >= 1 (got {a.worlds}, {a.steps})")
    enable_compilation_cache()
    import jax

    from simpler_jax.utils.records import package_versions, write_json_atomic

    results = []
    print(f"{'task':>46} {'scene':>22} {'ok':>3} {'compile+1st s':>13} {'2nd call s':>10} {'MJX/C':>6}")
    for task in a.tasks:
        r = check_task(task, a.worlds, a.steps, a.seed)
        results.append(r)
        print(f"{task:>46} {r['scene']:>22} {'yes' if r['ok'] else 'NO':>3} "
              f"{r['compile_and_first_call_s']:13.0f} {r['second_call_s']:10.1f} {r['ratio_mjx_over_c']:6.2f}",
              flush=True)
        write_json_atomic(a.out, {"config": vars(a), "versions": package_versions(),
                                  "device": str(jax.devices()[0]), "tasks": results})
    print(f"wrote {a.out}; {sum(r['ok'] for r in results)} of {len(results)} tasks ok")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
