"""Where a task's objects come to rest after the reset's settle: MJX on the table box,
MJX on the plane, against MuJoCo C on the box (the baseline, same run).

For each episode of the task's first scene, the reset (`TaskEnv.reset`: spawn 2 mm
above the surface, then `settle_seconds` of physics with the robot held) runs as one
`jit(vmap)` over all episodes, once per `--surfaces` entry; MuJoCo C runs the same
spawn state and settle on the box, one episode at a time. The table gives, per
surface, how far each object's origin ends above MuJoCo C's (median and largest over
the episodes, and how many episodes are over `--tol`), and how many worlds are
non-finite. Writes JSON (config, versions, per surface and episode: object heights).

    python benchmarks/settle.py [--task widowx_spoon_on_towel] [--surfaces box plane]
                                [--tol 0.002] [--out benchmarks/out/settle.json]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache


def mujoco_c_heights(env, params, ids) -> np.ndarray:
    """(E, O) object origin heights after MuJoCo C settles each episode on the box."""
    import jax

    from simpler_jax.envs.reference import MujocoCReference

    heights = []
    for w in range(len(ids)):
        p = jax.tree.map(lambda x: np.asarray(x[w]), params.robot)
        ref = MujocoCReference.at_base(env.env, p)
        ctrl = np.asarray(env.env.reset_ctrl(p))
        ref.set_state(np.asarray(env.env.reset_qpos(p)), np.zeros(ref.model.nv), ctrl)
        ref.control_step(np.broadcast_to(ctrl, (env.settle_substeps, ref.model.nu)))
        heights.append(ref.data.xpos[env.env.index.object_bodies, 2].copy())
    return np.asarray(heights)


def mjx_heights(env, params, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(E, O) object origin heights after the MJX reset, (E,) finite, seconds."""
    import jax

    worlds = params.source.shape[0]
    keys = jax.random.split(jax.random.PRNGKey(seed), worlds)
    t0 = time.perf_counter()
    state = jax.block_until_ready(jax.jit(jax.vmap(env.reset))(params, keys))
    seconds = time.perf_counter() - t0
    d = state.env.data
    finite = np.isfinite(np.asarray(d.qpos)).all(axis=1) & np.isfinite(np.asarray(d.qvel)).all(axis=1)
    return np.asarray(d.xpos[:, env.env.index.object_bodies, 2]), finite, seconds


def main(argv=None) -> int:
    from simpler_jax.tasks.spec import task_spec

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="widowx_spoon_on_towel")
    p.add_argument("--surfaces", nargs="+", choices=("box", "plane"), default=["box", "plane"])
    p.add_argument("--tol", type=float, default=0.002, help="m above MuJoCo C's rest height that counts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="benchmarks/out/settle.json")
    a = p.parse_args(argv)
    try:
        task_spec(a.task)
    except ValueError as err:
        p.error(str(err))
    enable_compilation_cache()
    import jax

    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.utils.records import package_versions, write_json_atomic

    box = TaskEnv(a.task, object_surface="box")
    ids = sorted(box.episodes)
    c = mujoco_c_heights(box, box.episode_params(ids), ids)
    result = {"config": vars(a), "versions": package_versions(), "device": str(jax.devices()[0]),
              "episodes": ids, "objects": list(box.model_ids), "mujoco_c_box_z": c.tolist(), "mjx": {}}
    print(f"{a.task}: {len(ids)} episodes, objects {list(box.model_ids)}; MuJoCo C on the box is the baseline")
    print(f"{'MJX surface':>11} {'object':>34} {'median dz mm':>12} {'max dz mm':>9} "
          f"{'over tol':>8} {'non-finite':>10} {'compile+run s':>13}")
    for surface in a.surfaces:
        env = box if surface == "box" else TaskEnv(a.task, object_surface=surface)
        z, finite, seconds = mjx_heights(env, env.episode_params(ids), a.seed)
        dz = z - c
        result["mjx"][surface] = {"z": z.tolist(), "finite": finite.tolist(), "seconds": seconds}
        for o, name in enumerate(env.model_ids):
            print(f"{surface:>11} {name:>34} {1e3 * np.median(dz[:, o]):12.1f} {1e3 * np.max(np.abs(dz[:, o])):9.1f} "
                  f"{int((np.abs(dz[:, o]) > a.tol).sum()):>5}/{len(ids):<2} {int((~finite).sum()):>10} {seconds:13.0f}",
                  flush=True)
        write_json_atomic(a.out, result)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
