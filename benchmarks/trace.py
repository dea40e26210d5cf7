"""Step-by-step trace of chosen episodes of one task: what the scripted policy did.

Runs the episodes in one compiled rollout (`make_rollout(trace=True)`) and, per
world and control step, prints the plan phase acted in, the measured TCP, the source
object's centre of mass, the TCP minus the source ("held": constant while the
object is in the hand), the translation and gripper parts of the action, and
whether the source is grasped. Each episode opens with its success, the steps spent
in each phase and its final statistics (each rule's flag). Writes JSON with every
step (every object's origin too), the config, versions and seeds, and beside it the
joint positions of every step (`<out>.qpos.npy`, (W, T + 1, nq), from the reset on)
to replay in MuJoCo. This is how the failures in benchmarks/RESULTS.md were read.

    python benchmarks/trace.py widowx_spoon_on_towel --episodes 0 7 13 22 [--policy scripted]
                               [--seed 0] [--quiet] [--out benchmarks/out/trace.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache

POLICIES = ("scripted", "zero")


def run_trace(task: str, episode_ids: list[int], policy: str, seed: int):
    """(phase names, StepTrace as numpy with leading (W, T), final stats as numpy,
    qpos (W, T + 1, nq) from the reset on, the TaskEnv)."""
    import jax
    import numpy as np

    from simpler_jax.tasks import task_spec
    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.rollout import make_rollout
    from simpler_jax.tasks.scripted import ScriptedPolicy

    known = {e.episode_id: e for e in task_spec(task).episodes()}
    bad = [e for e in episode_ids if e not in known]
    if bad:
        raise SystemExit(f"{task}: unknown episode ids {bad}; allowed: 0..{len(known) - 1}")
    scenes = {known[e].scene_key for e in episode_ids}
    if len(scenes) > 1:
        raise SystemExit(f"{task}: episodes {episode_ids} span scenes {sorted(scenes)}; trace one scene at a time")
    env = TaskEnv(task, scene_key=scenes.pop())
    policy_fn = ScriptedPolicy(env)
    run = make_rollout(env, policy_fn, record=True, trace=True)
    params = env.episode_params(episode_ids)
    base = jax.random.PRNGKey(seed)
    keys = jax.numpy.stack([jax.random.fold_in(base, e) for e in episode_ids])  # as benchmarks/tasks.py
    scripted = np.full(len(episode_ids), policy == "scripted")
    final, qpos, trace = run(params, keys, scripted)
    as_np = lambda tree: jax.tree.map(np.asarray, jax.device_get(tree))  # noqa: E731
    return [p.name for p in policy_fn.plan], as_np(trace), as_np(final.stats), np.asarray(qpos), env


def phase_runs(phases, names) -> list[tuple[str, int]]:
    """Consecutive runs of one phase: [(name, steps), ...] in order."""
    runs: list[tuple[str, int]] = []
    for p in phases:
        if runs and runs[-1][0] == names[p]:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((names[p], 1))
    return runs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task")
    p.add_argument("--episodes", type=int, nargs="+", required=True, help="episode ids (one scene)")
    p.add_argument("--policy", choices=POLICIES, default="scripted",
                   help="scripted, or the zero action (its phases are the ones the plan would be in)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="print only each episode's summary")
    p.add_argument("--out", default="benchmarks/out/trace.json")
    a = p.parse_args(argv)
    from simpler_jax.tasks.spec import TASK_SPECS

    if a.task not in TASK_SPECS:
        p.error(f"unknown task {a.task!r}; known: {sorted(TASK_SPECS)}")
    enable_compilation_cache()
    import jax
    import numpy as np

    from simpler_jax.utils.records import package_versions, write_json_atomic

    t0 = time.perf_counter()
    names, tr, stats, qpos, env = run_trace(a.task, a.episodes, a.policy, a.seed)
    wall = time.perf_counter() - t0
    held = tr.tcp - tr.source
    # (W, T, O, 3) every object's origin after each step (qpos[:, 0] is the reset).
    origins = np.stack([qpos[:, 1:, adr:adr + 3] for adr in env.scene.index.object_qpos], axis=2)
    episodes = []
    for w, e in enumerate(a.episodes):
        runs = phase_runs(tr.phase[w], names)
        final = {f.name: getattr(stats, f.name)[w].item() for f in dataclasses.fields(stats)}
        print(f"episode {e}: success {bool(stats.success[w])}, grasped ever {bool(stats.grasped_ever[w])}, "
              f"phases {runs}\n  final stats {final}")
        for t in range(tr.phase.shape[1]):
            if a.quiet:
                break
            print(f"  t{t:3d} {names[tr.phase[w, t]]:9s} tcp {np.round(tr.tcp[w, t], 3)} "
                  f"src {np.round(tr.source[w, t], 3)} held {np.round(held[w, t], 3)} "
                  f"a {np.round(tr.action[w, t][[0, 1, 2, 6]], 3)} grasped {int(tr.grasped[w, t])} "
                  f"objects {np.round(origins[w, t], 3).tolist()}")
        episodes.append({
            "episode_id": e, "success": bool(stats.success[w]), "grasped_ever": bool(stats.grasped_ever[w]),
            "phase_runs": runs, "final_stats": final,
            "steps": [{"phase": names[tr.phase[w, t]], "action": tr.action[w, t].tolist(),
                       "tcp": tr.tcp[w, t].tolist(), "source": tr.source[w, t].tolist(),
                       "target": tr.target[w, t].tolist(), "objects": origins[w, t].tolist(),
                       "grasped": bool(tr.grasped[w, t]),
                       "success": bool(tr.success[w, t])} for t in range(tr.phase.shape[1])],
        })
    print(f"{len(a.episodes)} episodes, {tr.phase.shape[1]} control steps, {wall:.0f} s (compile included)")
    write_json_atomic(a.out, {"config": vars(a), "versions": package_versions(), "device": str(jax.devices()[0]),
                              "plan": names, "model_ids": list(env.model_ids), "wall_s": wall,
                              "episodes": episodes})
    qpos_out = str(pathlib.Path(a.out).with_suffix(".qpos.npy"))
    np.save(qpos_out, qpos)  # (W, T + 1, nq), worlds in --episodes order, for replays
    print(f"wrote {a.out} and {qpos_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
