"""Our renderer against MuJoCo's OpenGL renderer on every task scene, at the policy camera.

For each task scene (the robot at its initial pose, the objects at their spawn poses,
drawers at their initial openings, posed kinematically as `RobotEnv.observe_qpos`
does, with the episode's per-world parameters: robot base pose, camera pose) it
renders our RGB, depth and segmentation through the environment's own observer at
the camera's native size, and MuJoCo's images of the same model and pose
(`mujoco.Renderer`, EGL or OSMesa). It reports, per body covering at least 50
reference pixels, the segmentation IoU, and the median depth error over pixels both
renderers mark as foreground; acceptance is IoU >= 0.95 for every such body and a
median depth error <= 5 mm. Side-by-side PNGs (ours | MuJoCo's) of RGB and
segmentation go to `--out-dir` (default benchmarks/out/render_tasks; not committed:
the meshes are asset files) with `render_tasks.json`.

    python benchmarks/render_tasks.py [--tasks ...] [--budget 2000] [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

os.environ.setdefault("MUJOCO_GL", "egl")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import _colour_seg, _compare, _mujoco_images, _side_by_side, gl_model  # noqa: E402
from visual_matching import TASKS  # noqa: E402

import simpler_jax  # noqa: E402,F401  (XLA flags)
from simpler_jax.render.geometry import DEFAULT_MAX_FACES_PER_MESH  # noqa: E402

MIN_IOU, MAX_DEPTH_ERR_M = 0.95, 0.005


def _mujoco_model(robot_env, params):
    """The C model of the scene with this world's parameters (base, camera, ...) applied."""
    m = gl_model(robot_env.scene.mj_model)
    mx = robot_env.model(params)
    for name in ("body_pos", "body_quat", "cam_pos", "cam_quat"):
        getattr(m, name)[:] = getattr(mx, name)
    w, h = (int(x) for x in m.cam_resolution[robot_env.index.camera])
    return m, w, h


def compare_task(task: str, episode: int, budget, out_dir: pathlib.Path) -> dict:
    import jax
    import mujoco
    import numpy as np

    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.tasks.env import TaskEnv
    from simpler_jax.tasks.spec import task_spec

    key = next(e.scene_key for e in task_spec(task).episodes() if e.episode_id == episode)
    t0 = time.perf_counter()
    env = TaskEnv(task, scene_key=key, observation=ObservationSpec(
        depth=True, segmentation=True, max_faces_per_mesh=budget))
    robot = env.env
    p = jax.tree.map(lambda x: x[0], env.episode_params([episode]).robot)
    qpos = robot.reset_qpos(p)
    obs = jax.jit(robot.observe_qpos)(p, qpos)
    rgb, depth, seg = (np.asarray(x) for x in (obs.rgb, obs.depth, obs.segmentation))
    m, w, h = _mujoco_model(robot, p)
    d = mujoco.MjData(m)
    d.qpos[:] = np.asarray(qpos)
    mujoco.mj_forward(m, d)
    ref_rgb, ref_depth, ref_seg, _ = _mujoco_images(m, d, robot.index.camera, w, h, 0)
    ious, depth_err = _compare(m, seg, depth, ref_seg, ref_depth)
    stem = out_dir / f"{task}_ep{episode}"
    _side_by_side(f"{stem}_rgb.png", rgb, ref_rgb)
    _side_by_side(f"{stem}_seg.png", _colour_seg(seg), _colour_seg(ref_seg))
    worst = min(ious, key=ious.get)
    return dict(task=task, episode_id=episode, size=[h, w], ious=ious, min_iou=ious[worst],
                worst_body=worst, median_depth_err_m=depth_err,
                passed=bool(ious[worst] >= MIN_IOU and depth_err <= MAX_DEPTH_ERR_M),
                png=[f"{stem}_rgb.png", f"{stem}_seg.png"], seconds=time.perf_counter() - t0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS), metavar="TASK")
    p.add_argument("--budget", type=int, default=DEFAULT_MAX_FACES_PER_MESH, help="triangles per mesh (0: no simplification)")
    p.add_argument("--out-dir", default="benchmarks/out/render_tasks")
    a = p.parse_args(argv)
    out_dir = pathlib.Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for task in a.tasks:
        for episode in TASKS[task]:
            r = compare_task(task, episode, a.budget or None, out_dir)
            rows.append(r)
            print(f"{task:<46} ep {episode:>3}  min IoU {r['min_iou']:.3f} ({r['worst_body']})  "
                  f"depth err {r['median_depth_err_m'] * 1e3:.3f} mm  {'ok' if r['passed'] else 'FAIL'}",
                  flush=True)
            (out_dir / "render_tasks.json").write_text(json.dumps(
                {"budget": a.budget, "min_iou": MIN_IOU, "max_depth_err_m": MAX_DEPTH_ERR_M, "rows": rows},
                indent=1))
    failed = [r for r in rows if not r["passed"]]
    print(f"{len(rows)} scenes; {len(failed)} below IoU {MIN_IOU} or above {MAX_DEPTH_ERR_M * 1e3:.0f} mm")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
