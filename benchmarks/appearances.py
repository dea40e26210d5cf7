"""Appearances per world (`simpler_jax.scenes.appearance`): what they show and cost.

For each task scene, builds its `TaskEnv` twice at the same render size: without
appearances (the baseline) and with every appearance (the objects' un-baked, baked
and Zero123++ baked models, the two substitute table textures). Poses episode 0's
reset state kinematically (`RobotEnv.observe_qpos`, no physics) and renders

  * one image per appearance of the scene, written side by side as a PNG
    (`--out-dir/<task>_appearances.png`, own look first);
  * `jit(vmap)` batches of `--worlds` worlds: the baseline scene, and the scene
    with appearances where the worlds cycle through them; images per second of each
    (taking turns, best of `--repeats`) and their ratio (the cost of carrying the
    hidden geoms), measured in the same run.

Prints a table and writes `--out-dir/appearances.json` (config, versions, rows).

    python benchmarks/appearances.py [--tasks google_robot_move_near_v0 ...] [--worlds 8]
        [--width 160] [--repeats 3] [--out-dir benchmarks/out/appearances]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache

DEFAULT_TASKS = ("google_robot_pick_coke_can", "google_robot_move_near_v0", "widowx_stack_cube")


def _scene(task: str, appearances: tuple[str, ...], width: int, worlds: int):
    """(env, jitted batch render of `worlds` worlds: appearance indices (W,) -> rgb (W, H, W, 3))."""
    import jax
    import jax.numpy as jnp

    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.scenes.scene import SceneSpec
    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.spec import task_spec

    spec = task_spec(task)
    cam = SceneSpec(spec.robot, (0.0, 0.0), camera=spec.camera).camera_spec()
    height = max(int(round(width * cam.height / cam.width)), 1)
    env = TaskEnv(task, observation=ObservationSpec(width=width, height=height), appearances=appearances)
    robot = env.env
    first = jax.tree.map(lambda x: x[0], env.episode_params([min(env.episodes)]).robot)
    qpos = robot.reset_qpos(first)
    batch = jax.tree.map(lambda x: jnp.broadcast_to(x, (worlds,) + x.shape), first)

    @jax.jit
    def draw(appearance):
        params = batch.replace(appearance=appearance)
        return jax.vmap(lambda p: robot.observe_qpos(p, qpos).rgb)(params)

    return env, draw


def _images_per_s(draws, args, worlds: int, repeats: int) -> list[tuple[float, float]]:
    """Per (draw, arg): (compile + first call seconds, best images per second over
    `repeats` calls). The draws take turns in each repeat, so a busy machine slows
    them alike."""
    out, best = [], [float("inf")] * len(draws)
    for draw, arg in zip(draws, args):
        t0 = time.perf_counter()
        draw(arg).block_until_ready()
        out.append(time.perf_counter() - t0)
    for _ in range(repeats):
        for i, (draw, arg) in enumerate(zip(draws, args)):
            t0 = time.perf_counter()
            draw(arg).block_until_ready()
            best[i] = min(best[i], time.perf_counter() - t0)
    return [(first, worlds / b) for first, b in zip(out, best)]


def run_task(task: str, args, out_dir: pathlib.Path) -> dict:
    import jax.numpy as jnp
    import numpy as np
    from PIL import Image

    from simpler_jax.scenes.appearance import APPEARANCES

    base_env, base_draw = _scene(task, (), args.width, args.worlds)
    env, draw = _scene(task, APPEARANCES, args.width, args.worlds)
    geometry = env.env.observer.geometry
    names = geometry.appearances
    cycle = jnp.arange(args.worlds, dtype=jnp.int32) % len(names)
    strip = np.asarray(draw(cycle))[:len(names)]  # one world per appearance (--worlds checked)
    png = out_dir / f"{task}_appearances.png"
    Image.fromarray(np.concatenate(list(strip), axis=1)).save(png)
    (base_first, base_ips), (first, ips) = _images_per_s(
        [base_draw, draw], [jnp.zeros((args.worlds,), jnp.int32), cycle], args.worlds, args.repeats)
    row = {
        "task": task, "appearances": list(names), "png": str(png),
        "triangles_base": base_env.env.observer.geometry.num_triangles, "triangles": geometry.num_triangles,
        "images_per_s_base": base_ips, "images_per_s": ips, "cost_ratio": base_ips / ips,
        "compile_s_base": base_first, "compile_s": first,
        "distinct_images": len({s.tobytes() for s in strip}),
    }
    print(f"{task:<30} {len(names):>3} {row['triangles_base']:>9} {row['triangles']:>9} {base_ips:>9.2f} "
          f"{ips:>9.2f} {row['cost_ratio']:>6.2f} {row['distinct_images']:>8}", flush=True)
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), metavar="TASK")
    p.add_argument("--worlds", type=int, default=8)
    p.add_argument("--width", type=int, default=160)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out-dir", default="benchmarks/out/appearances")
    a = p.parse_args(argv)
    from simpler_jax.scenes.appearance import APPEARANCES

    if a.worlds < len(APPEARANCES) + 1 or a.width < 8 or a.repeats < 1:
        p.error(f"--worlds {a.worlds}, --width {a.width}, --repeats {a.repeats}: need >= {len(APPEARANCES) + 1} "
                "(one world per appearance and the own look), >= 8, >= 1")
    from simpler_jax.tasks.spec import task_spec

    for t in a.tasks:
        task_spec(t)  # unknown names fail here, with the closest match
    enable_compilation_cache()
    out_dir = pathlib.Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    from simpler_jax.utils.records import package_versions

    print(f"{'task':<30} {'A':>3} {'tri base':>9} {'tri':>9} {'img/s b':>9} {'img/s':>9} {'cost':>6} {'distinct':>8}")
    result = {"config": vars(a), "versions": package_versions(), "machine": platform.processor() or platform.machine(),
              "rows": []}
    for task in a.tasks:
        result["rows"].append(run_task(task, a, out_dir))
        (out_dir / "appearances.json").write_text(json.dumps(result, indent=2))
    bad = [r["task"] for r in result["rows"] if r["distinct_images"] != len(r["appearances"])]
    print(f"wrote {out_dir / 'appearances.json'}; scenes where two appearances look the same: {bad or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
