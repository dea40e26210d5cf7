"""Visual Matching compositing (`simpler_jax.render.overlay`, spec §6.1-§6.2, §12 item 8).

Overlay loading and cv2-compatible bilinear resizing (hand-computed pixels, a
clamped-coordinate reference and, when importable, cv2 itself), the task table,
exact uint8 truncation, compositing under jit/vmap, and the foreground body ids of a
small MjSpec scene (also rendered and composited end to end).
"""

import functools

import chex
import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from PIL import Image

from simpler_jax.assets import paths
from simpler_jax.render import overlay as ov
from simpler_jax.render import render, render_geometry

COKE = "data/real_inpainting/google_coke_can_real_eval_1.png"
BRIDGE = "data/real_inpainting/bridge_real_eval_1.png"


def _raw(rel) -> np.ndarray:
    with Image.open(paths.asset_root() / rel) as im:
        return np.asarray(im.convert("RGB"))


def _reference_resize(img, width, height):
    """Bilinear with half-pixel centres, source coordinates clamped to [0, n-1]."""
    img = np.asarray(img, np.float64)
    h, w = img.shape[:2]

    def axis(n_src, n_dst):
        s = np.clip((np.arange(n_dst) + 0.5) * n_src / n_dst - 0.5, 0, n_src - 1)
        i0 = np.floor(s).astype(int)
        return i0, np.minimum(i0 + 1, n_src - 1), s - i0

    x0, x1, fx = axis(w, width)
    y0, y1, fy = axis(h, height)
    rows = img[:, x0] * (1 - fx)[:, None] + img[:, x1] * fx[:, None]
    return rows[y0] * (1 - fy)[:, None, None] + rows[y1] * fy[:, None, None]


# ------------------------------------------------------------------------ loading


def test_load_google_overlay_upsampled():
    img = ov.load_overlay(None, COKE, 640, 512)
    chex.assert_shape(img, (512, 640, 3))
    chex.assert_type(img, np.float32)
    assert img.min() >= 0.0 and img.max() <= 1.0
    raw = _raw(COKE) / 255.0  # (256, 320, 3)
    assert raw.shape == (256, 320, 3)
    # Hand computation: dst x -> src (x + 0.5) / 2 - 0.5, clamped at the borders.
    expect = {
        (0, 0): raw[0, 0],  # src (-0.25, -0.25): clamped to the corner
        (511, 639): raw[255, 319],  # src (255.25, 319.25): clamped to the corner
        (0, 1): 0.75 * raw[0, 0] + 0.25 * raw[0, 1],  # src x 0.25
        (511, 638): 0.25 * raw[255, 318] + 0.75 * raw[255, 319],  # src x 318.75
        (101, 203): 0.75 * (0.75 * raw[50, 101] + 0.25 * raw[50, 102])
        + 0.25 * (0.75 * raw[51, 101] + 0.25 * raw[51, 102]),  # src (50.25, 101.25)
        (100, 200): 0.25 * (0.25 * raw[49, 99] + 0.75 * raw[49, 100])
        + 0.75 * (0.25 * raw[50, 99] + 0.75 * raw[50, 100]),  # src (49.75, 99.75)
    }
    for (y, x), value in expect.items():
        np.testing.assert_allclose(img[y, x], value, atol=1e-6, err_msg=f"pixel {(y, x)}")
    np.testing.assert_allclose(img, _reference_resize(raw, 640, 512), atol=1e-6)


def test_load_bridge_overlay_is_identity():
    img = ov.load_overlay(None, BRIDGE, 640, 480)
    chex.assert_shape(img, (480, 640, 3))
    chex.assert_type(img, np.float32)
    raw = _raw(BRIDGE)
    np.testing.assert_array_equal(img, (raw / 255.0).astype(np.float32))
    # The original's background bytes are the photo's bytes.
    np.testing.assert_array_equal(ov.load_overlay_uint8(None, BRIDGE, 640, 480), raw)


@pytest.mark.parametrize("src,dst", [((5, 7), (9, 13)), ((9, 13), (5, 7)), ((6, 4), (6, 11)),
                                     ((8, 8), (3, 3))])
def test_resize_matches_clamped_reference(src, dst):
    img = np.random.default_rng(0).random((*src, 3))
    out = ov.resize_bilinear(img, dst[1], dst[0])
    # Same coordinates; only the rounding (fused multiply-adds) differs.
    np.testing.assert_allclose(out, _reference_resize(img, dst[1], dst[0]), atol=1e-12)


def test_resize_matches_cv2_when_available():
    cv2 = pytest.importorskip("cv2")
    raw = cv2.cvtColor(cv2.imread(str(paths.asset_root() / COKE)), cv2.COLOR_BGR2RGB) / 255.0
    np.testing.assert_array_equal(raw, _raw(COKE) / 255.0)  # Pillow reads the same bytes
    for w, h in ((640, 512), (160, 128)):  # any cv2 build, IPP or not
        np.testing.assert_allclose(ov.resize_bilinear(raw, w, h), cv2.resize(raw, (w, h)), atol=1e-6)
    if cv2.ipp.useIPP():  # the x86 wheels (SIMPLER's cv2): same rounding
        for w, h in ((333, 257), (640, 480)):
            np.testing.assert_allclose(ov.resize_bilinear(raw, w, h), cv2.resize(raw, (w, h)), atol=1e-12)
        ref = cv2.resize(raw, (640, 512))  # bit-exact at the Google 2x upscale
        np.testing.assert_array_equal(ov.resize_bilinear(raw, 640, 512), ref)
        np.testing.assert_array_equal(ov.load_overlay_uint8(None, COKE, 640, 512),
                                      np.clip(ref * 255, 0, 255).astype(np.uint8))


def test_fma_is_correctly_rounded():
    from fractions import Fraction

    rng = np.random.default_rng(3)
    a, b, c = rng.random(4000) - 0.5, rng.random(4000), rng.random(4000)
    c[:2000] = -(a[:2000] * b[:2000]) * (1 + rng.integers(-3, 4, 2000) * 2.0**-52)  # cancellation
    got = ov.fma(a, b, c)
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(want))
    assert np.any(a * b + c != got)  # the unfused expression would not do


def test_overlay_table_files_exist():
    root = paths.asset_root()
    for task in ("google_robot_pick_coke_can", "google_robot_pick_object", "google_robot_move_near",
                 "google_robot_open_drawer", "google_robot_close_drawer",
                 "google_robot_place_apple_in_closed_top_drawer", "widowx_spoon_on_towel",
                 "widowx_carrot_on_plate", "widowx_stack_cube", "widowx_put_eggplant_in_basket"):
        assert task in ov.OVERLAYS, task
    assert len(ov.OVERLAYS["google_robot_open_drawer"]) == 9
    assert ov.OVERLAYS["google_robot_place_apple_in_closed_top_drawer"] == tuple(
        f"data/real_inpainting/open_drawer_{r}0.png" for r in "abc")
    assert ov.OVERLAYS["widowx_put_eggplant_in_basket"] == ("data/real_inpainting/bridge_sink.png",)
    for task, files in ov.OVERLAYS.items():
        for rel in files:
            assert (root / rel).is_file(), f"{task}: {rel}"


def test_missing_overlay_raises(tmp_path):
    rel = "data/real_inpainting/no_such_overlay.png"
    with pytest.raises(paths.MissingAssetError, match="no_such_overlay.png") as err:
        ov.load_overlay(None, rel, 640, 512)
    assert paths.ENV_ASSETS in str(err.value)
    with pytest.raises(paths.MissingAssetError, match=str(tmp_path)):
        ov.load_overlay(tmp_path, COKE, 640, 512)  # not an asset root


# ------------------------------------------------------------------ truncation, compositing


def test_to_uint8_is_exact_truncation():
    k = np.arange(256, dtype=np.float64)
    x = (k / 255).astype(np.float32)
    near = [x]
    up, down = x.copy(), x.copy()
    for _ in range(4):  # a few ulps either side of every k/255
        up, down = np.nextafter(up, np.float32(2)), np.nextafter(down, np.float32(-1))
        near += [up, down]
    rand = np.random.default_rng(1).random(100_000).astype(np.float32)
    xs = np.concatenate(near + [rand, np.float32([-0.5, 0.0, 1.0, 1.5])])
    expect = np.clip(xs.astype(np.float64) * 255, 0, 255).astype(np.uint8)  # exact product
    np.testing.assert_array_equal(np.asarray(jax.jit(ov.to_uint8)(xs)), expect)
    # uint8 -> /255 (float32) -> truncation round-trips every value.
    v = np.arange(256, dtype=np.uint8)
    np.testing.assert_array_equal(np.asarray(ov.to_uint8(v.astype(np.float32) / 255)), v)


N_IDS, FG = 10, np.array([1, 3, 5, 7], np.int32)


def _worlds(n=3, h=32, w=40):
    rng = np.random.default_rng(2)
    sim = rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8)
    seg = rng.integers(-1, N_IDS, (n, h, w)).astype(np.int32)
    return sim, seg


def test_foreground_mask_coverage():
    # Equal-area stripes of ids 0..9: coverage is exactly |FG| / 10.
    seg = jnp.asarray(np.repeat(np.arange(N_IDS, dtype=np.int32), 8)[None, :].repeat(6, 0))
    mask = ov.foreground_mask(seg, ov.pad_ids(FG, 8))
    chex.assert_shape(mask, (6, 80))
    chex.assert_type(mask, jnp.bool_)
    assert int(mask.sum()) * N_IDS == len(FG) * mask.size
    background = jnp.full((4, 4), -1, jnp.int32)  # -1 never matches the -2 padding
    assert not bool(ov.foreground_mask(background, ov.pad_ids([], 3)).any())


@pytest.mark.parametrize("overlay_kind", ["float", "uint8"])
def test_composite_exact_and_batched(overlay_kind):
    sim, seg = _worlds()
    h, w = sim.shape[1:3]
    over_f = ov.load_overlay(None, COKE, w, h)
    over = over_f if overlay_kind == "float" else ov.load_overlay_uint8(None, COKE, w, h)
    truncated = np.clip(over_f.astype(np.float64) * 255, 0, 255).astype(np.uint8)
    if overlay_kind == "uint8":
        truncated = over
    ids = jnp.asarray(ov.pad_ids(FG, 8))

    def one(sim_rgb, seg_w, overlay):
        return ov.composite(sim_rgb, overlay, ov.foreground_mask(seg_w, ids))

    batched = jax.jit(jax.vmap(one, in_axes=(0, 0, None)))(sim, seg, over)
    chex.assert_shape(batched, (3, h, w, 3))
    chex.assert_type(batched, jnp.uint8)
    for i in range(3):
        single = np.asarray(one(sim[i], seg[i], over))
        np.testing.assert_array_equal(np.asarray(batched[i]), single)
        fg = np.isin(seg[i], FG)
        assert 0 < fg.sum() < fg.size
        np.testing.assert_array_equal(single[fg], sim[i][fg])  # the sim's bytes
        np.testing.assert_array_equal(single[~fg], truncated[~fg])  # the overlay's bytes
    # A float sim colour truncates like the original; a 0/1 float mask is the bool path.
    sim_f = sim[0].astype(np.float32) / 255
    fg0 = np.isin(seg[0], FG)
    np.testing.assert_array_equal(np.asarray(ov.composite(sim_f, over, fg0)), np.asarray(batched[0]))
    np.testing.assert_array_equal(np.asarray(ov.composite(sim[0], over, fg0.astype(np.float32))),
                                  np.asarray(batched[0]))


# ------------------------------------------------------------------ foreground bodies


def _scene() -> mujoco.MjModel:
    spec = mujoco.MjSpec()
    wb = spec.worldbody
    wb.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[2, 2, 0.1], rgba=[0.5, 0.5, 0.5, 1])
    wb.add_geom(name="table", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.6, 0.6, 0.05], pos=[0, 0, 0.4],
                rgba=[0.6, 0.4, 0.2, 1])
    base = wb.add_body(name="robot_base", pos=[-0.4, 0, 0.45])
    base.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.05, 0.05, 0.05], rgba=[0.9, 0.9, 0.9, 1])
    link1 = base.add_body(name="link1", pos=[0, 0, 0.1], mass=0.1, inertia=[1e-3] * 3)  # no geom
    link1.add_joint(name="j1", axis=[0, 0, 1])
    link2 = link1.add_body(name="link2", pos=[0.1, 0, 0])
    link2.add_joint(name="j2", axis=[0, 1, 0])
    link2.add_geom(type=mujoco.mjtGeom.mjGEOM_CAPSULE, size=[0.02, 0.08], rgba=[0.2, 0.2, 0.9, 1])
    can = wb.add_body(name="can", pos=[0.1, 0.1, 0.5])
    can.add_freejoint()
    can.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[0.03, 0.05], rgba=[0.9, 0.1, 0.1, 1])
    sink = wb.add_body(name="sink", pos=[0.1, -0.25, 0.47])
    sink.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.1, 0.1, 0.02], rgba=[0.7, 0.7, 0.7, 1])
    basin = sink.add_body(name="sink_basin")
    basin.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.08, 0.08, 0.03], pos=[0, 0, 0.03],
                   rgba=[0.3, 0.3, 0.3, 1])
    wb.add_body(name="marker", pos=[0, 0, 1])  # no geom: not foreground
    wb.add_camera(name="cam", pos=[1.2, 0, 1.2], xyaxes=[0, 1, 0, -0.7, 0, 0.7], fovy=60)
    return spec.compile()


def test_foreground_body_ids():
    m = _scene()
    bid = lambda *names: np.array(sorted(m.body(n).id for n in names), np.int32)  # noqa: E731
    ids = ov.foreground_body_ids(m, "robot_base", always_overlay_bodies=("sink",))
    chex.assert_type(ids, np.int32)
    np.testing.assert_array_equal(ids, bid("robot_base", "link1", "link2", "can"))
    all_ids = ov.foreground_body_ids(m, m.body("robot_base").id)
    np.testing.assert_array_equal(all_ids, bid("robot_base", "link1", "link2", "can", "sink", "sink_basin"))
    with pytest.raises(ValueError, match="no_such_body"):
        ov.foreground_body_ids(m, "robot_base", always_overlay_bodies=("no_such_body",))


def test_render_and_composite_end_to_end():
    m = _scene()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    w, h = 40, 32
    rgb, _, seg = render(render_geometry(m), d.geom_xpos, d.geom_xmat, d.cam_xpos[0], d.cam_xmat[0],
                         float(m.cam_fovy[0]), w, h, method="brute")
    ids = ov.pad_ids(ov.foreground_body_ids(m, "robot_base", ("sink",)), 16)
    bg = ov.load_overlay_uint8(None, COKE, w, h)
    out = np.asarray(ov.composite(rgb, bg, ov.foreground_mask(seg, ids)))
    seg = np.asarray(seg)
    fg = np.isin(seg, ids)
    table_or_sink = np.isin(seg, [0, m.body("sink").id, m.body("sink_basin").id])
    assert fg.any() and table_or_sink.any()
    np.testing.assert_array_equal(out[fg], np.asarray(rgb)[fg])
    np.testing.assert_array_equal(out[~fg], bg[~fg])


# ------------------------------------------------------------ task scenes, in the env


@functools.lru_cache(maxsize=None)
def _task_env(task: str):
    """(TaskEnv with Visual Matching at 160 px wide, its jitted `observe_qpos` at the
    reset pose), built and compiled once per task."""
    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.tasks.env import TaskEnv

    env = TaskEnv(task, observation=ObservationSpec(width=160, height=128 if "google" in task else 120,
                                                    overlay=True, segmentation=True))
    robot = env.env
    return env, jax.jit(lambda p: robot.observe_qpos(p, robot.reset_qpos(p)))


def _task_image(task: str, episode: int, urdf_version: str = ""):
    """(rgb, segmentation, foreground mask, photo, env) of `task`'s reset pose, Visual
    Matching on, at 160 px wide (the photo resized to it), rendered by the environment's
    own observer (`RobotEnv.observe_qpos`)."""
    env, observe = _task_env(task)
    params = jax.tree.map(lambda x: x[0], env.episode_params([episode], urdf_version=urdf_version).robot)
    obs = observe(params)
    rgb, seg = np.asarray(obs.rgb), np.asarray(obs.segmentation)
    mask = np.isin(seg, np.asarray(env.env.observer.foreground))
    return rgb, seg, mask, np.asarray(params.overlay_rgb), env


@pytest.mark.parametrize("task, episode", [("widowx_stack_cube", 0), ("google_robot_close_drawer", 13)])
def test_task_scene_composite_shows_the_photo_behind_robot_and_objects(task, episode):
    rgb, seg, mask, photo, env = _task_image(task, episode)
    ep = env.episodes[episode]
    chex.assert_shape([rgb, photo], (seg.shape[0], 160, 3))
    np.testing.assert_array_equal(photo, ov.load_overlay_uint8(None, f"{paths.OVERLAY_DIR}/{ep.overlay}",
                                                               160, seg.shape[0]))
    np.testing.assert_array_equal(rgb[~mask], photo[~mask])  # background: the photo's bytes exactly
    assert (rgb[mask] != photo[mask]).any(axis=-1).mean() > 0.5  # foreground: the simulation
    idx = env.scene.index
    shown = set(np.unique(seg[mask]).tolist())
    assert set(idx.object_bodies.tolist()) <= shown  # every task object is in view and foreground
    assert shown & set(idx.robot_bodies.tolist())  # so is the robot
    if env.spec.family == "drawer":  # the inpainted drawer photos leave the cabinet to the simulation
        cabinet = env.scene.mj_model.body("cabinet").id
        under = {b for b in range(env.scene.mj_model.nbody)
                 if b == cabinet or env.scene.mj_model.body_rootid[b] == env.scene.mj_model.body_rootid[cabinet]}
        assert shown & under and 0.2 < mask.mean() < 0.7
    else:
        assert 0.02 < mask.mean() < 0.2


def test_urdf_version_recolours_the_google_robot_in_the_task_images():
    """SIMPLER's `urdf_version` per world (`episode_params(urdf_version=...)`): the
    cabinet recolour repaints robot pixels only, through the same compiled program;
    an unknown version names the allowed ones."""
    rgb, seg, mask, photo, env = _task_image("google_robot_close_drawer", 13)
    recoloured, seg2, _, _, _ = _task_image("google_robot_close_drawer", 13, "recolor_cabinet_visual_matching_1")
    np.testing.assert_array_equal(seg2, seg)
    changed = (recoloured != rgb).any(axis=-1)
    robot = np.isin(seg, env.scene.index.robot_bodies)
    assert changed.any() and not changed[~robot].any()
    with pytest.raises(ValueError, match="recolor_sim"):
        env.episode_params([13], urdf_version="recolor")
    # The drawer tasks' images show the main light's shadows by default (SIMPLER ray-traces them).
    assert env.env.observer.spec.shadow_spec is not None
    assert _task_env("widowx_stack_cube")[0].env.observer.spec.shadow_spec is None


def test_eggplant_sink_shows_the_photo():
    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.tasks.env import TaskEnv

    env = TaskEnv("widowx_put_eggplant_in_basket", observation=ObservationSpec(width=64, height=48, overlay=True))
    m, fg = env.scene.mj_model, np.asarray(env.env.observer.foreground)
    assert env.env.observer.spec.always_overlay == ("sink", "dummy_sink_target_plane")
    for name in ("sink", "dummy_sink_target_plane"):
        assert m.body(name).id not in fg
    assert int(env.scene.index.base_body) in fg
    eggplant = int(env.scene.index.object_bodies[env.episodes[0].source])
    assert m.body(eggplant).name.startswith("eggplant") and eggplant in fg  # the eggplant stays in front


def _surface_rgb(m, name):
    """(3,) mean colour of geom `name`: its RGB texture's mean times rgba, else rgba."""
    g = m.geom(name)
    mat = int(g.matid[0]) if np.ndim(g.matid) else int(g.matid)
    rgba = m.mat_rgba[mat] if mat >= 0 else g.rgba
    tex = int(m.mat_texid[mat, mujoco.mjtTextureRole.mjTEXROLE_RGB]) if mat >= 0 else -1
    if tex < 0:
        return np.asarray(rgba[:3])
    a, n = int(m.tex_adr[tex]), int(m.tex_height[tex] * m.tex_width[tex] * m.tex_nchannel[tex])
    texels = np.asarray(m.tex_data[a:a + n]).reshape(-1, int(m.tex_nchannel[tex]))[:, :3]
    return texels.mean(0) / 255.0 * np.asarray(rgba[:3])


def test_object_visual_meshes_are_coloured_and_change_no_physics():
    """Scenes with visuals add each object's visual mesh (massless, non-colliding, with
    its UV texture or material colour) and hide the collision pieces from the renderer;
    masses, inertias, contact pairs and collision geoms are those of the scene without
    visuals."""
    from simpler_jax.scenes.scene import build_scene, default_scene
    from simpler_jax.objects.build import ObjectSpec

    objs = (ObjectSpec("baked_green_cube_3cm", 1000.0, (-0.2, 0.0, 0.9)),
            ObjectSpec("bridge_carrot_generated_modified", 300.0, (-0.1, 0.1, 0.9)),
            ObjectSpec("eggplant", 500.0, (-0.1, -0.1, 0.9)))  # no visual mesh in the assets
    plain, vis = (build_scene(default_scene("widowx", objs, visuals=v)).mj_model for v in (False, True))
    for name in ("baked_green_cube_3cm", "bridge_carrot_generated_modified", "eggplant"):
        a, b = plain.body(name).id, vis.body(name).id
        np.testing.assert_allclose(vis.body_mass[b], plain.body_mass[a], rtol=1e-6)
        np.testing.assert_allclose(vis.body_inertia[b], plain.body_inertia[a], rtol=1e-5)
    assert vis.npair == plain.npair
    cube = vis.geom("baked_green_cube_3cm/visual")
    assert cube.group == 2 and cube.contype == 0 and cube.conaffinity == 0
    green = _surface_rgb(vis, "baked_green_cube_3cm/visual")
    assert green[1] > green[0] and green[1] > green[2]  # green
    carrot = vis.geom("bridge_carrot_generated_modified/visual")
    assert carrot.matid >= 0 and vis.mesh_texcoordnum[carrot.dataid] > 0  # drawn with its UV texture
    orange = _surface_rgb(vis, "bridge_carrot_generated_modified/visual")
    assert orange[0] > orange[1] > orange[2]  # orange
    assert vis.geom("baked_green_cube_3cm/collision0").group == 3  # hidden behind the visual mesh
    assert vis.geom("eggplant/collision0").group == 0  # no visual mesh: the pieces are drawn
