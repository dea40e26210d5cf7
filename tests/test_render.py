"""The pure-JAX renderer against MuJoCo's OpenGL renderer (EGL, headless).

For both robot scenes with visual meshes, at the policy camera (scaled to 160 px
wide), at the robot's initial pose and a perturbed pose (for the Google Robot also
with the head panned and tilted, so the camera moves with its mount link):
per-body segmentation IoU >= 0.95 for bodies covering >= 50 reference pixels, and a
median depth error <= 5 mm on pixels both renderers mark as foreground. Our inputs
come from `mjx.Data` (kinematics + camlight); the reference from MuJoCo C at the
same qpos, with multisampling off so that both sample pixel centres.
"""

import copy
import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco's GL context is imported

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from mujoco import mjx  # noqa: E402

from simpler_jax.envs import make_robot_env  # noqa: E402
from simpler_jax.render import camera_from_data, render, render_full, render_geometry  # noqa: E402
from simpler_jax.render.lighting import make_lighting, simpler_default_lighting  # noqa: E402
from simpler_jax.render.decimate import decimate  # noqa: E402
from simpler_jax.render.primitives import box  # noqa: E402

SIZES = {"widowx": (160, 120), "google_robot": (160, 128)}  # policy aspect ratios
MIN_PIXELS, MIN_IOU, MAX_MEDIAN_DEPTH_ERR = 50, 0.95, 0.005


def _mujoco_renderer(m, width, height):
    try:
        return mujoco.Renderer(m, height, width)
    except Exception as err:  # no EGL device/driver, or GL chosen before this module
        pytest.skip(f"MuJoCo OpenGL renderer unavailable (MUJOCO_GL={os.environ.get('MUJOCO_GL')}): {err}")


class Scene:
    def __init__(self, robot):
        self.env = make_robot_env(robot, visuals=True)
        self.m = self.env.scene.mj_model
        self.cam = self.env.scene.index.camera
        self.geometry = render_geometry(self.m)
        self.width, self.height = SIZES[robot]

        def kinematics(qpos):
            d = mjx.make_data(self.env.mjx_model).replace(qpos=qpos)
            return mjx.camlight(self.env.mjx_model, mjx.kinematics(self.env.mjx_model, d))

        self.kinematics = jax.jit(kinematics)

        def one(geom_xpos, geom_xmat, cam_pos, cam_mat, lighting=simpler_default_lighting(), variant=0):
            return render_full(self.geometry, geom_xpos, geom_xmat, cam_pos, cam_mat,
                               self.m.cam_fovy[self.cam], self.width, self.height, lighting=lighting,
                               texture_variant=variant)

        self.render_one = jax.jit(one)  # one program: lighting and texture variant are arguments
        self.render_batch = jax.jit(jax.vmap(one, in_axes=(0, 0, 0, 0, None, 0)))

    def qpos(self, rng=None, scale=0.0, head=(0.0, 0.0)):
        """Initial robot pose, perturbed by `scale` rad (seeded) inside the joint limits."""
        idx, cfg, m = self.env.scene.index, self.env.scene.robot, self.m
        q = m.qpos0.copy()
        na = len(idx.arm_qpos)
        q[idx.arm_qpos] = cfg.init_qpos[:na]
        q[idx.finger_qpos] = cfg.init_qpos[na:]
        if rng is not None:
            q[idx.arm_qpos] += rng.normal(0.0, scale, na)
        for name, delta in zip(("joint_head_pan", "joint_head_tilt"), head):
            if delta and name in cfg.arm_joints:
                q[m.jnt_qposadr[m.joint(name).id]] += delta
        for j in range(m.njnt):
            if m.jnt_limited[j]:
                a = m.jnt_qposadr[j]
                q[a] = np.clip(q[a], *m.jnt_range[j])
        return q

    def reference(self, qpos):
        """MuJoCo's (segmentation as body ids, depth) at `qpos`, single-sampled."""
        m = copy.deepcopy(self.m)
        m.vis.quality.offsamples = 0
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        r = _mujoco_renderer(m, self.width, self.height)
        try:
            r.enable_segmentation_rendering()
            r.update_scene(d, camera=self.cam)
            geom = r.render()[..., 0]
            r.disable_segmentation_rendering()
            r.enable_depth_rendering()
            r.update_scene(d, camera=self.cam)
            depth = r.render()
        finally:
            r.close()
        body = np.where(geom >= 0, m.geom_bodyid[np.maximum(geom, 0)], -1)
        return body, depth


@pytest.fixture(scope="module", params=["widowx", "google_robot"])
def scene(request):
    return Scene(request.param)


def compare(scene, qpos):
    """-> ({body name: IoU} for bodies >= MIN_PIXELS, median depth error, unsafe tiles)."""
    ref_seg, ref_depth = scene.reference(qpos)
    d = scene.kinematics(jnp.asarray(qpos, jnp.float32))
    cam = camera_from_data(scene.env.mjx_model, d, scene.cam)
    out = scene.render_one(d.geom_xpos, d.geom_xmat, cam.pos, cam.mat)
    seg, depth = np.asarray(out.segmentation), np.asarray(out.depth)
    ious = {}
    for b in np.unique(ref_seg[ref_seg >= 0]):
        a, o = ref_seg == b, seg == b
        if a.sum() >= MIN_PIXELS:
            ious[scene.m.body(int(b)).name] = float((a & o).sum() / (a | o).sum())
    both = (ref_seg >= 0) & (seg >= 0)
    return ious, float(np.median(np.abs(depth[both] - ref_depth[both]))), int(out.unsafe_tiles)


@pytest.mark.parametrize("pose", ["initial", "perturbed"])
def test_matches_mujoco_renderer(scene, pose):
    if pose == "initial":
        qpos = scene.qpos()
    else:
        qpos = scene.qpos(np.random.default_rng(0), 0.05, head=(-0.1, 0.05))
    ious, depth_err, unsafe = compare(scene, qpos)
    robot_bodies = [n for n in ious if n not in ("world",)]
    assert robot_bodies, f"no robot body covers {MIN_PIXELS} px: {ious}"
    print(f"\n{scene.env.scene.robot.name} {pose}: median depth err {depth_err * 1e3:.4f} mm, "
          f"unsafe tiles {unsafe}, IoU " + ", ".join(f"{k} {v:.3f}" for k, v in ious.items()))
    assert min(ious.values()) >= MIN_IOU, ious
    assert depth_err <= MAX_MEDIAN_DEPTH_ERR
    assert unsafe == 0


def test_camera_follows_head():
    """Panning/tilting the Google Robot's head moves the camera exactly as in MuJoCo C."""
    env = make_robot_env("google_robot", visuals=True)
    m, cam = env.scene.mj_model, env.scene.index.camera

    @jax.jit
    def camera(qpos):
        d = mjx.make_data(env.mjx_model).replace(qpos=qpos)
        d = mjx.camlight(env.mjx_model, mjx.kinematics(env.mjx_model, d))
        return camera_from_data(env.mjx_model, d, cam)

    mats = []
    for pan, tilt in ((0.0, 0.0), (0.3, -0.2)):
        q = m.qpos0.copy()
        q[m.jnt_qposadr[m.joint("joint_head_pan").id]] += pan
        q[m.jnt_qposadr[m.joint("joint_head_tilt").id]] += tilt
        dc = mujoco.MjData(m)
        dc.qpos[:] = q
        mujoco.mj_forward(m, dc)
        c = camera(jnp.asarray(q, jnp.float32))
        np.testing.assert_allclose(c.pos, dc.cam_xpos[cam], atol=1e-5)
        np.testing.assert_allclose(c.mat, dc.cam_xmat[cam].reshape(3, 3), atol=1e-5)
        np.testing.assert_allclose(c.fovy, m.cam_fovy[cam], rtol=1e-6)
        mats.append(np.asarray(c.mat))
    assert np.abs(mats[0] - mats[1]).max() > 0.1


VMAP_WORLDS, VMAP_SIZE = 16, (64, 48)  # small images: 16 worlds and 16 single renders


def test_vmap_equals_single(scene):
    """jit(vmap) over 16 worlds with different joint poses (and, for the Google Robot,
    texture variants) == each world rendered alone."""
    rng = np.random.default_rng(1)
    n = VMAP_WORLDS
    qpos = jnp.asarray(np.stack([scene.qpos(rng, 0.15) for _ in range(n)]), jnp.float32)
    d = jax.vmap(scene.kinematics)(qpos)
    cam_pos, cam_mat = d.cam_xpos[:, scene.cam], d.cam_xmat[:, scene.cam]
    variants = jnp.arange(n, dtype=jnp.int32) % len(scene.geometry.texture_variants)

    def one(xpos, xmat, cpos, cmat, variant):
        return render_full(scene.geometry, xpos, xmat, cpos, cmat, scene.m.cam_fovy[scene.cam], *VMAP_SIZE,
                           texture_variant=variant)

    batch = jax.jit(jax.vmap(one))(d.geom_xpos, d.geom_xmat, cam_pos, cam_mat, variants)
    single = jax.jit(one)
    segs = np.asarray(batch.segmentation)
    assert len({s.tobytes() for s in segs}) == n, "the poses should give different images"
    for i in range(n):
        one_world = single(d.geom_xpos[i], d.geom_xmat[i], cam_pos[i], cam_mat[i], variants[i])
        np.testing.assert_array_equal(np.asarray(one_world.segmentation), segs[i])
        np.testing.assert_allclose(np.asarray(one_world.depth), np.asarray(batch.depth[i]), rtol=1e-6)
        assert np.abs(np.asarray(one_world.rgb, int) - np.asarray(batch.rgb[i], int)).max() <= 1


def test_tiled_equals_brute_force(scene):
    """The tiled visibility (default) gives the same pixels as testing every triangle."""
    d = scene.kinematics(jnp.asarray(scene.qpos(), jnp.float32))
    cam = camera_from_data(scene.env.mjx_model, d, scene.cam)
    args = (scene.geometry, d.geom_xpos, d.geom_xmat, cam.pos, cam.mat, cam.fovy, 64, 48)
    tiled = render_full(*args, method="tiled", tile=8)  # 16 px tiles overflow at 64x48
    brute = render_full(*args, method="brute")
    assert int(tiled.unsafe_tiles) == 0
    np.testing.assert_array_equal(np.asarray(tiled.segmentation), np.asarray(brute.segmentation))
    np.testing.assert_allclose(np.asarray(tiled.depth), np.asarray(brute.depth), rtol=1e-6)


def test_render_shapes_and_visual_meshes(scene):
    """`visuals=True` puts the robot's visual meshes (group 2) into the render geometry."""
    m, g = scene.m, scene.geometry
    visual = [i for i in range(m.ngeom) if m.geom_group[i] == 2 and m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH]
    assert visual and set(visual) <= set(np.asarray(g.geom_id).tolist())
    assert not set(np.asarray(g.geom_id).tolist()) & {i for i in range(m.ngeom) if m.geom_group[i] == 3}
    d = scene.kinematics(jnp.asarray(scene.qpos(), jnp.float32))
    cam = camera_from_data(scene.env.mjx_model, d, scene.cam)
    rgb, depth, seg = render(g, d.geom_xpos, d.geom_xmat, cam.pos, cam.mat, cam.fovy, 32, 24)
    assert rgb.shape == (24, 32, 3) and rgb.dtype == jnp.uint8
    assert depth.shape == (24, 32) and depth.dtype == jnp.float32
    assert seg.shape == (24, 32) and seg.dtype == jnp.int32


def test_decimate_respects_budget_and_shape():
    v, f = box(np.array([0.1, 0.2, 0.3]))
    # Subdivide the box faces into a dense mesh, then simplify it back.
    import trimesh

    dense = trimesh.Trimesh(v, f).subdivide().subdivide().subdivide()
    v2, f2 = decimate(dense.vertices, dense.faces, 200)
    assert 0 < len(f2) <= 200 < len(dense.faces)
    np.testing.assert_allclose(v2.min(0), v.min(0), atol=0.05)
    np.testing.assert_allclose(v2.max(0), v.max(0), atol=0.05)


# Camera offsets (camera frame: right, up, back; metres) that bring the arm into view.
ARM_VIEW = {"widowx": (0.0, 0.0, 0.0), "google_robot": (0.3, 0.1, 0.1)}
AMBIENT_ONLY = make_lighting(1.0, [((0, 0, -1), 0.0)])  # colour = albedo


def _ambient_only_reference(scene, qpos, shift):
    """MuJoCo's RGB and body segmentation with lights off and a white ambient headlight
    (colour = texture x rgba), the camera moved by `shift`; and that camera's pose."""
    m = copy.deepcopy(scene.m)
    m.vis.quality.offsamples = 0
    m.light_active[:] = 0
    m.vis.headlight.ambient[:], m.vis.headlight.diffuse[:], m.vis.headlight.specular[:] = 1.0, 0.0, 0.0
    m.mat_specular[:], m.mat_reflectance[:], m.mat_emission[:] = 0.0, 0.0, 0.0
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    cam, body = scene.cam, m.cam_bodyid[scene.cam]
    world = d.cam_xpos[cam] + d.cam_xmat[cam].reshape(3, 3) @ np.asarray(shift)
    m.cam_pos[cam] = d.xmat[body].reshape(3, 3).T @ (world - d.xpos[body])
    mujoco.mj_forward(m, d)
    r = _mujoco_renderer(m, scene.width, scene.height)
    try:
        r.update_scene(d, camera=cam)
        rgb = r.render()
        r.enable_segmentation_rendering()
        r.update_scene(d, camera=cam)
        geom = r.render()[..., 0]
    finally:
        r.close()
    return rgb, np.where(geom >= 0, m.geom_bodyid[np.maximum(geom, 0)], -1), d.cam_xpos[cam], d.cam_xmat[cam]


def test_textures_match_mujoco_renderer(scene):
    """The robot's UV textures (Google: `meta_diffuse.png` and the finger maps; WidowX:
    its texture's mean colour, the meshes have no UVs) look as in MuJoCo's renderer
    of the same model: with ambient light only, colour = texture x rgba in both, and
    on pixels where both see the same body the colours agree to a few levels."""
    qpos = scene.qpos()
    ref, ref_seg, cam_pos, cam_mat = _ambient_only_reference(scene, qpos, ARM_VIEW[scene.env.scene.robot.name])
    d = scene.kinematics(jnp.asarray(qpos, jnp.float32))
    out = scene.render_one(d.geom_xpos, d.geom_xmat, jnp.asarray(cam_pos), jnp.asarray(cam_mat), AMBIENT_ONLY)
    ours, seg = np.asarray(out.rgb).astype(int), np.asarray(out.segmentation)
    robot = set(np.asarray(scene.env.scene.index.robot_bodies).tolist())
    same = (seg == ref_seg) & np.isin(seg, list(robot))
    assert same.sum() >= 500, "the robot should cover the image"
    err = np.abs(ours - ref.astype(int)).max(-1)[same]
    print(f"\n{scene.env.scene.robot.name}: {same.sum()} robot px, colour error median {np.median(err)} "
          f"p90 {np.percentile(err, 90)} mean {err.mean():.2f}")
    assert np.median(err) <= 2 and np.percentile(err, 90) <= 12
    if scene.env.scene.robot.name == "google_robot":  # textured: many colours, not one per link
        assert len(np.unique(ours[same], axis=0)) >= 50


def test_texture_variants_recolour_the_arm_only(scene):
    """The Google Robot's recolour variants (SIMPLER's urdf_version) repaint the links
    the variant URDFs switch (shoulder to gripper, fingers) and nothing else; a batch
    of worlds each drawing its own variant equals each world drawn alone."""
    g = scene.geometry
    if scene.env.scene.robot.name == "widowx":
        assert g.texture_variants == ("",)
        return
    from simpler_jax.robots.google_robot import URDF_VERSIONS

    assert set(g.texture_variants) == set(URDF_VERSIONS)
    with pytest.raises(ValueError, match="recolor_sim"):
        g.texture_variant("recolour_sim")
    names = ["", "recolor_tabletop_visual_matching_1", "recolor_cabinet_visual_matching_gripper_only"]
    variants = jnp.asarray([g.texture_variant(n) for n in names], jnp.int32)
    qpos = scene.qpos()
    _, _, cam_pos, cam_mat = _ambient_only_reference(scene, qpos, ARM_VIEW["google_robot"])
    d = scene.kinematics(jnp.asarray(qpos, jnp.float32))
    tile = lambda x: jnp.broadcast_to(x, (3,) + x.shape)  # noqa: E731
    batch = scene.render_batch(tile(d.geom_xpos), tile(d.geom_xmat), tile(jnp.asarray(cam_pos)),
                               tile(jnp.asarray(cam_mat)), AMBIENT_ONLY, variants)
    rgb, seg = np.asarray(batch.rgb).astype(int), np.asarray(batch.segmentation[0])
    m = scene.m
    link = np.where(seg >= 0, seg, 0)
    link_names = np.array([m.body(b).name for b in range(m.nbody)])[link]
    changed = np.abs(rgb[1] - rgb[0]).max(-1) > 0
    arm = np.isin(link_names, ["link_shoulder", "link_bicep", "link_elbow", "link_forearm", "link_wrist",
                               "link_gripper"]) & (seg >= 0)
    fingers = np.char.startswith(link_names, "link_finger") & (seg >= 0)
    assert changed[arm].mean() > 0.5, "the tabletop recolour repaints the arm"
    assert not changed[~(arm | fingers)].any(), "and nothing but the arm and fingers"
    gripper_only = np.abs(rgb[2] - rgb[0]).max(-1) > 0
    assert not gripper_only[~fingers].any(), "the gripper-only variant repaints the fingers alone"
    for i in range(3):
        one = scene.render_one(d.geom_xpos, d.geom_xmat, jnp.asarray(cam_pos), jnp.asarray(cam_mat),
                               AMBIENT_ONLY, variants[i])
        np.testing.assert_array_equal(np.asarray(one.rgb), np.asarray(batch.rgb[i]))


def test_decimate_keeps_each_kept_face_corner_order():
    """Per-corner data (UVs) carries over decimation: corner k of a kept face is the
    cluster of corner k of its original face."""
    import trimesh

    sphere = trimesh.creation.icosphere(subdivisions=4, radius=0.1)
    v, f, kept = decimate(sphere.vertices, sphere.faces, 300, return_kept=True)
    assert len(f) == len(kept) <= 300
    moved = np.linalg.norm(v[f] - sphere.vertices[sphere.faces[kept]], axis=-1)
    assert moved.max() < 0.05  # within a cluster cell of its original corner
    v0, f0, kept0 = decimate(sphere.vertices, sphere.faces, None, return_kept=True)
    np.testing.assert_array_equal(kept0, np.arange(len(sphere.faces)))
