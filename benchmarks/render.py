"""Pure-JAX renderer (`simpler_jax.render`) against MuJoCo's OpenGL renderer.

For each robot scene (visual meshes on, robot at its SIMPLER initial pose, policy
camera) it
  * writes side-by-side PNGs, ours | MuJoCo's, for RGB, depth and segmentation at
    the camera's full resolution into `--out-dir` (<robot>_{rgb,depth,seg}.png);
  * measures per-body segmentation IoU (bodies >= 50 reference px) and the median
    depth error on pixels both mark as foreground, at each resolution;
  * measures images per second of `jit(vmap(render))` for each (worlds,
    resolution) and method ("tiled", the default, and "brute" at the smallest size),
    and MuJoCo C's OpenGL renderer (one image at a time, EGL) for scale.
Results go to `--out-dir/render.json` and a table on stdout.

    python benchmarks/render.py [--worlds 1 4] [--widths 160 320 640] [--budget 2000]
        [--repeats 3] [--no-brute] [--no-images] [--shadows [--shadow-resolution 256]]
        [--texture-cost] [--out-dir benchmarks/out/render]

With `--shadows` every tiled row is also timed with the main light's shadows
(`ShadowSpec()`, or with `resolution=--shadow-resolution`) in the same run, and the row gets
`shadow_images_per_s` and `shadow_cost_ratio` (seconds with / without). With
`--texture-cost` every tiled row is also timed with the textures off (each geom in
its colour), giving `untextured_cost_ratio` (seconds without / with textures).

Without an OpenGL context (no EGL/OSMesa) the accuracy columns are left empty and
the reason is recorded; the timings of ours are still measured.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import pathlib
import platform
import time

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402

from simpler_jax.render.geometry import DEFAULT_MAX_FACES_PER_MESH  # noqa: E402

ROBOTS = ("widowx", "google_robot")
MIN_PIXELS = 50


def gl_model(model):
    """A copy of `model` for MuJoCo's offscreen renderer: one sample at each pixel
    centre (as ours), a framebuffer as large as the largest camera."""
    m = copy.deepcopy(model)
    m.vis.quality.offsamples = 0
    m.vis.global_.offwidth = max(int(m.vis.global_.offwidth), int(m.cam_resolution[:, 0].max()))
    m.vis.global_.offheight = max(int(m.vis.global_.offheight), int(m.cam_resolution[:, 1].max()))
    return m


def _setup(robot: str):
    import mujoco

    from simpler_jax.envs import make_robot_env

    env = make_robot_env(robot, visuals=True)
    m = gl_model(env.scene.mj_model)
    idx, cfg = env.scene.index, env.scene.robot
    q = m.qpos0.copy()
    q[idx.arm_qpos] = cfg.init_qpos[: len(idx.arm_qpos)]
    q[idx.finger_qpos] = cfg.init_qpos[len(idx.arm_qpos):]
    d = mujoco.MjData(m)
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    return env, m, d, idx.camera


def _mujoco_images(m, d, cam, width, height, repeats):
    import mujoco

    r = mujoco.Renderer(m, height, width)
    try:
        r.update_scene(d, camera=cam)
        rgb = r.render().copy()
        t = time.perf_counter()
        for _ in range(repeats):
            r.update_scene(d, camera=cam)
            r.render()
        rgb_ips = repeats / (time.perf_counter() - t)
        r.enable_depth_rendering()
        r.update_scene(d, camera=cam)
        depth = r.render().copy()
        r.disable_depth_rendering()
        r.enable_segmentation_rendering()
        r.update_scene(d, camera=cam)
        geom = r.render()[..., 0].copy()
    finally:
        r.close()
    body = np.where(geom >= 0, m.geom_bodyid[np.maximum(geom, 0)], -1)
    return rgb, depth, body, rgb_ips


def _reference(m, d, cam, width, height, repeats):
    """MuJoCo's OpenGL images, or None with the reason when no GL context can be made."""
    try:
        return _mujoco_images(m, d, cam, width, height, repeats), None
    except Exception as err:  # noqa: BLE001  (no EGL/OSMesa on this machine)
        return None, f"{type(err).__name__}: {err}"


def _compare(m, seg, depth, ref_seg, ref_depth):
    ious = {}
    for b in np.unique(ref_seg[ref_seg >= 0]):
        a, o = ref_seg == b, seg == b
        if a.sum() >= MIN_PIXELS:
            ious[m.body(int(b)).name] = round(float((a & o).sum() / (a | o).sum()), 4)
    both = (ref_seg >= 0) & (seg >= 0)
    return ious, float(np.median(np.abs(depth[both] - ref_depth[both])))


def _colour_seg(seg):
    rng = np.random.default_rng(0)
    palette = rng.integers(40, 255, (int(max(seg.max(), 0)) + 2, 3)).astype(np.uint8)
    palette[0] = 0
    return palette[seg + 1]


def _colour_depth(depth, lo, hi):
    x = np.clip((depth - lo) / max(hi - lo, 1e-6), 0, 1)
    return (255 * (1 - x)).astype(np.uint8)[..., None].repeat(3, -1)


def _side_by_side(path, ours, ref):
    from PIL import Image

    gap = np.full((ours.shape[0], 8, 3), 255, np.uint8)
    Image.fromarray(np.concatenate([ours, gap, ref], 1)).save(path)


def _time(fn, args, repeats):
    import jax

    t = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    compile_s = time.perf_counter() - t
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        out = jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - t)
    return out, compile_s, best


def _time_against(label: str, fn, batch, best_without, repeats) -> dict:
    """Time `fn` (a jitted batch renderer) on `batch`; keys prefixed with `label`,
    its cost as the ratio of seconds to the row's own (`best_without`)."""
    out, compile_s, best = _time(fn, batch, repeats)
    worlds = batch[0].shape[0]
    return {f"{label}_images_per_s": worlds / best, f"{label}_seconds": best, f"{label}_compile_s": compile_s,
            f"{label}_cost_ratio": best / best_without,
            f"{label}_unsafe_tiles": int(np.asarray(out.unsafe_tiles).max())}


def _time_shadows(args, one, batch, best_without) -> dict:
    """Time `one` with the main light's shadows; {} without --shadows."""
    if not args.shadows:
        return {}
    import jax

    from simpler_jax.render.shadow import ShadowSpec

    spec = ShadowSpec() if args.shadow_resolution is None else ShadowSpec(resolution=args.shadow_resolution)
    fn = jax.jit(jax.vmap(lambda *a: one(*a, shadow=spec)))
    return dict(shadow_resolution=spec.resolution, **_time_against("shadow", fn, batch, best_without, args.repeats))


def _time_untextured(args, one, batch, best_with, geometry) -> dict:
    """Time `one` with every geom drawn in its colour (no texture lookups); {} without
    --texture-cost. `untextured_cost_ratio` < 1: the textures' share of the time."""
    if not args.texture_cost:
        return {}
    import jax
    import jax.numpy as jnp

    plain = geometry.replace(geom_texture=-jnp.ones_like(geometry.geom_texture))
    fn = jax.jit(jax.vmap(lambda *a: one(*a, geometry=plain)))
    return _time_against("untextured", fn, batch, best_with, args.repeats)


def _write(out_dir, budget, rows):
    import jax

    result = dict(
        machine=dict(platform=platform.platform(), processor=platform.processor(),
                     jax_backend=jax.default_backend(), devices=[str(x) for x in jax.devices()]),
        versions=dict(jax=jax.__version__, mujoco=__import__("mujoco").__version__),
        budget=budget, rows=rows,
    )
    (out_dir / "render.json").write_text(json.dumps(result, indent=1))
    return result


def run(args) -> dict:
    import jax
    import jax.numpy as jnp

    from simpler_jax.render import render_full, render_geometry

    out_dir = pathlib.Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for robot in args.robots:
        env, m, d, cam = _setup(robot)
        t = time.perf_counter()
        geometry = render_geometry(m, max_faces_per_mesh=args.budget)
        extract_s = time.perf_counter() - t
        full_w, full_h = (int(x) for x in m.cam_resolution[cam])
        fovy = float(m.cam_fovy[cam])
        single = (d.geom_xpos, d.geom_xmat.reshape(-1, 3, 3), d.cam_xpos[cam], d.cam_xmat[cam].reshape(3, 3))
        for width in args.widths:
            height = int(round(width * full_h / full_w))
            ref, gl_error = _reference(m, d, cam, width, height, args.repeats)
            ref_rgb, ref_depth, ref_seg, gl_ips = ref if ref else (None, None, None, None)
            methods = ["tiled"] + (["brute"] if width == min(args.widths) and not args.no_brute else [])
            for method in methods:
                for worlds in args.worlds if method == "tiled" else [1]:
                    def one(xpos, xmat, cpos, cmat, method=method, width=width, height=height, shadow=None,
                            geometry=geometry):
                        return render_full(geometry, xpos, xmat, cpos, cmat, fovy, width, height, method=method,
                                           shadow=shadow)

                    fn = jax.jit(jax.vmap(one))
                    batch = tuple(jnp.broadcast_to(jnp.asarray(a, jnp.float32), (worlds,) + a.shape) for a in single)
                    out, compile_s, best = _time(fn, batch, args.repeats)
                    shadow = _time_shadows(args, one, batch, best) if method == "tiled" else {}
                    untextured = _time_untextured(args, one, batch, best, geometry) if method == "tiled" else {}
                    seg, depth = np.asarray(out.segmentation[0]), np.asarray(out.depth[0])
                    # Every world renders the same pose: the last must equal the first.
                    same = bool(np.array_equal(np.asarray(out.segmentation[-1]), seg))
                    ious, depth_err = _compare(m, seg, depth, ref_seg, ref_depth) if ref else ({}, None)
                    rows.append(dict(
                        robot=robot, method=method, worlds=worlds, width=width, height=height,
                        triangles=geometry.num_triangles, images_per_s=worlds / best, seconds=best,
                        compile_s=compile_s, min_iou=min(ious.values()) if ious else None, ious=ious,
                        median_depth_err_m=depth_err, unsafe_tiles=int(np.asarray(out.unsafe_tiles).max()),
                        worlds_agree=same, mujoco_gl_rgb_images_per_s=gl_ips, mujoco_gl_error=gl_error,
                        extract_s=extract_s, textures=int(geometry.textures.shape[0]), **shadow, **untextured,
                    ))
                    _write(out_dir, args.budget, rows)
                    r = rows[-1]
                    acc = (f"min IoU {r['min_iou']:.3f}  depth err {depth_err * 1e3:.4f} mm" if ref
                           else "no MuJoCo GL reference")
                    gl = f"MuJoCo GL {gl_ips:.0f} img/s" if ref else gl_error
                    print(f"{robot:13s} {method:6s} {worlds:4d} {width:4d}x{height:<4d} "
                          f"{r['images_per_s']:9.2f} img/s  compile {compile_s:5.1f}s  {acc}  "
                          f"unsafe {r['unsafe_tiles']}  ({gl})", flush=True)
                    if untextured:
                        print(f"    untextured: {untextured['untextured_images_per_s']:.2f} img/s, "
                              f"x{untextured['untextured_cost_ratio']:.2f} the time", flush=True)
                    if shadow:
                        print(f"    with shadows: {shadow['shadow_images_per_s']:.2f} img/s, "
                              f"x{shadow['shadow_cost_ratio']:.1f} the time, compile "
                              f"{shadow['shadow_compile_s']:.1f}s, unsafe {shadow['shadow_unsafe_tiles']}", flush=True)
                    if method == "tiled" and worlds == args.worlds[0] and ious:
                        print("    IoU per body:", ious, flush=True)
        # Full-resolution side-by-side images.
        fn = jax.jit(lambda *a: render_full(geometry, *a, fovy, full_w, full_h))
        out = fn(*single)
        ref, gl_error = _reference(m, d, cam, full_w, full_h, 1)
        if ref is None:
            print(f"{robot:13s} full {full_w}x{full_h}: no MuJoCo GL reference ({gl_error})", flush=True)
            continue
        ref_rgb, ref_depth, ref_seg, _ = ref
        rgb, depth, seg = (np.asarray(x) for x in (out.rgb, out.depth, out.segmentation))
        fg = ref_seg >= 0
        lo, hi = float(ref_depth[fg].min()), float(np.percentile(ref_depth[fg], 99))
        if not args.no_images:
            _side_by_side(out_dir / f"{robot}_rgb.png", rgb, ref_rgb)
            _side_by_side(out_dir / f"{robot}_depth.png", _colour_depth(depth, lo, hi),
                          _colour_depth(ref_depth, lo, hi))
            _side_by_side(out_dir / f"{robot}_seg.png", _colour_seg(seg), _colour_seg(ref_seg))
        ious, depth_err = _compare(m, seg, depth, ref_seg, ref_depth)
        rows.append(dict(robot=robot, method="tiled", worlds=1, width=full_w, height=full_h,
                         triangles=geometry.num_triangles, images_per_s=None, min_iou=min(ious.values()),
                         ious=ious, median_depth_err_m=depth_err, unsafe_tiles=int(out.unsafe_tiles),
                         note="full-resolution comparison image (not timed)"))
        _write(out_dir, args.budget, rows)
        print(f"{robot:13s} full {full_w}x{full_h}: min IoU {min(ious.values()):.3f} {ious}  "
              f"depth err {depth_err * 1e3:.4f} mm  unsafe {int(out.unsafe_tiles)}", flush=True)
    return _write(out_dir, args.budget, rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=list(ROBOTS))
    p.add_argument("--worlds", nargs="+", type=int, default=[1, 4])
    p.add_argument("--widths", nargs="+", type=int, default=[160, 320, 640])
    p.add_argument("--budget", type=int, default=DEFAULT_MAX_FACES_PER_MESH, help="triangles per mesh (0: no simplification)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-brute", action="store_true", help="skip the brute-force method")
    p.add_argument("--no-images", action="store_true", help="measure only, write no PNGs")
    p.add_argument("--shadows", action="store_true", help="also time the tiled rows with the main light's shadows")
    p.add_argument("--texture-cost", action="store_true",
                   help="also time the tiled rows with textures off (every geom in its colour)")
    p.add_argument("--shadow-resolution", type=int, default=None,
                   help="shadow map texels per side (default: ShadowSpec's)")
    p.add_argument("--out-dir", default="benchmarks/out/render")
    args = p.parse_args()
    args.budget = None if args.budget == 0 else args.budget
    import simpler_jax  # noqa: F401  (XLA flags)

    run(args)


if __name__ == "__main__":
    main()
