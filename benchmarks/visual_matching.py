"""Visual Matching images of the SIMPLER tasks: the real photo | our composite | the mask.

For each task, builds its `TaskEnv` with `ObservationSpec(overlay=True)` at the
policy camera's native size, poses the chosen episodes' reset state kinematically
(`RobotEnv.observe_qpos`: robot at its initial pose, objects at their spawn poses
2 mm above the surface, drawers at their initial openings; no settling), renders
and composites it over the episode's real photo as SIMPLER does. Writes one PNG per
(task, episode): the original's photo, our composite, and the foreground mask
side by side (`--out-dir`, default benchmarks/out/visual_matching; the photos are
asset files, so the PNGs are not committed). Prints and writes to JSON, per image:
the foreground fraction and whether every background pixel equals the photo's
bytes (it must).

    python benchmarks/visual_matching.py [--tasks ...] [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time

import simpler_jax  # noqa: F401  (XLA flags)
from simpler_jax._xla_setup import enable_compilation_cache

# task -> episodes shown (the drawers: one per robot pose row and drawer).
TASKS = {
    "google_robot_pick_coke_can": (0, 50),
    "google_robot_move_near_v0": (0,),
    "google_robot_open_drawer": (0, 13, 26),
    "google_robot_close_drawer": (0, 13, 26),
    "google_robot_place_apple_in_closed_top_drawer": (0, 13),
    "widowx_spoon_on_towel": (0,),
    "widowx_carrot_on_plate": (0,),
    "widowx_stack_cube": (0,),
    "widowx_put_eggplant_in_basket": (0,),
}


def images(task: str, episode_ids, out_dir: pathlib.Path) -> list[dict]:
    import jax
    import numpy as np
    from PIL import Image

    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.render.overlay import foreground_mask
    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.spec import task_spec

    spec = task_spec(task)
    keys = {e.episode_id: e.scene_key for e in spec.episodes()}
    rows = []
    for key in dict.fromkeys(keys[e] for e in episode_ids):
        ids = [e for e in episode_ids if keys[e] == key]
        t0 = time.perf_counter()
        env = TaskEnv(task, scene_key=key, observation=ObservationSpec(overlay=True, segmentation=True))
        robot = env.env

        @jax.jit
        def shoot(p):
            obs = robot.observe_qpos(p, robot.reset_qpos(p))
            return obs.rgb, foreground_mask(obs.segmentation, robot.observer.foreground)

        params = env.episode_params(ids)
        for w, e in enumerate(ids):
            p = jax.tree.map(lambda x: x[w], params.robot)
            rgb, mask = (np.asarray(a) for a in shoot(p))
            photo = np.asarray(p.overlay_rgb)
            background_exact = bool((rgb[~mask] == photo[~mask]).all())
            strip = np.concatenate([photo, rgb, np.repeat(mask[..., None] * 255, 3, axis=2).astype(np.uint8)], axis=1)
            path = out_dir / f"{task}_ep{e}.png"
            Image.fromarray(strip).save(path)
            rows.append({"task": task, "episode_id": e, "photo": env.episodes[e].overlay, "png": str(path),
                         "size": list(rgb.shape[:2]), "foreground_fraction": float(mask.mean()),
                         "background_equals_photo": background_exact,
                         "seconds_scene": time.perf_counter() - t0})
            print(f"{task:<48} ep {e:>3}  {env.episodes[e].overlay:<34} foreground {mask.mean():6.1%}  "
                  f"background == photo: {background_exact}", flush=True)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS), metavar="TASK")
    p.add_argument("--out-dir", default="benchmarks/out/visual_matching")
    a = p.parse_args(argv)
    enable_compilation_cache()
    out_dir = pathlib.Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for task in a.tasks:
        rows += images(task, TASKS[task], out_dir)
        (out_dir / "visual_matching.json").write_text(json.dumps({"images": rows}, indent=2))
    bad = [r for r in rows if not r["background_equals_photo"]]
    print(f"{len(rows)} images in {out_dir}; background differs from the photo in {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
