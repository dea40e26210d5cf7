"""Appearances: an object's baked and un-baked models and the table's substitute
textures, drawn per world.

A Google scene with the un-baked coke can, its two baked models and the two table
textures as appearances renders, in the world that picks an object appearance, the
same pixels as a scene built with that model; a table appearance repaints the table
alone; a `jit(vmap)` batch with one appearance per world equals each world alone;
MuJoCo's own renderer still shows only the scene's own look.
"""

import dataclasses
import os

os.environ.setdefault("MUJOCO_GL", "egl")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from simpler_jax.scenes.appearance import (APPEARANCE_GROUP, APPEARANCES, appearance_geom_name,  # noqa: E402
                                            appearance_model_id, check_appearances, geom_appearance,
                                            textured_box_part)
from simpler_jax.objects.build import ObjectSpec  # noqa: E402
from simpler_jax.render import render_full, render_geometry  # noqa: E402
from simpler_jax.scenes.scene import TABLE_TOP_Z, build_scene, default_scene  # noqa: E402

WIDTH, HEIGHT = 96, 80
CAN = "opened_coke_can"


def test_appearance_model_ids():
    assert appearance_model_id("baked_apple_v2", "unbaked") == "apple"
    assert appearance_model_id("apple", "baked") == "baked_apple"
    assert appearance_model_id("baked_opened_coke_can", "baked_v2") == "baked_opened_coke_can_v2"
    assert appearance_model_id("baked_green_cube_3cm", "unbaked") == "green_cube_3cm"
    assert geom_appearance(appearance_geom_name("can", "baked_v2") + "/2") == "baked_v2"
    assert geom_appearance("can/visual/1") is None
    with pytest.raises(ValueError, match="'baked_v3'.*allowed"):
        check_appearances(["baked", "baked_v3"])
    with pytest.raises(ValueError, match="not an object appearance"):
        appearance_model_id("apple", "cabinet1_table")


def test_textured_box_tiles_each_face_along_its_axis():
    part = textured_box_part((0.5, 0.25, 0.1), np.zeros((4, 4, 3), np.uint8), 0.5)
    corners = part.vertices[part.faces]  # (12, 3, 3)
    top = np.all(np.isclose(corners[..., 2], 0.1), -1)
    assert top.sum() == 2
    np.testing.assert_allclose(part.corner_uv[top], corners[top][..., :2] / 0.5)
    side = np.all(np.isclose(corners[..., 0], 0.5), -1)
    np.testing.assert_allclose(part.corner_uv[side], corners[side][..., 1:] / 0.5)


def _scene(model_id, appearances=()):
    can = ObjectSpec(model_id, 50.0, (-0.35, 0.15, TABLE_TOP_Z + 0.07), (0.7071068, 0.7071068, 0.0, 0.0),
                     name=CAN)
    spec = dataclasses.replace(default_scene("google_robot", (can,)), visuals=True,
                               appearances=appearances)
    return build_scene(spec)


def _posed(scene):
    """MuJoCo C data at the robot's initial pose (forward kinematics)."""
    m, idx, cfg = scene.mj_model, scene.index, scene.robot
    d = mujoco.MjData(m)
    d.qpos[idx.arm_qpos] = cfg.init_qpos[:len(idx.arm_qpos)]
    d.qpos[idx.finger_qpos] = cfg.init_qpos[len(idx.arm_qpos):]
    mujoco.mj_forward(m, d)
    return d


def _draw(geometry, scene, d, appearance):
    cam = scene.index.camera
    return render_full(geometry, d.geom_xpos, d.geom_xmat, d.cam_xpos[cam], d.cam_xmat[cam],
                       scene.mj_model.cam_fovy[cam], WIDTH, HEIGHT, appearance=appearance)


@pytest.fixture(scope="module")
def multi():
    scene = _scene(CAN, APPEARANCES)
    geometry = render_geometry(scene.mj_model)
    d = _posed(scene)
    single = jax.jit(lambda a: _draw(geometry, scene, d, a))
    return scene, geometry, d, single


def test_each_appearance_draws_that_model(multi):
    scene, geometry, d, single = multi
    # The can is un-baked already: "unbaked" adds nothing; the two baked models are added.
    assert geometry.appearances == ("", "baked", "baked_v2", "cabinet1_table", "cabinet2_table")
    with pytest.raises(ValueError, match="'unbaked'.*this scene has"):
        geometry.appearance("unbaked")
    m = scene.mj_model
    tagged = [g for g in range(m.ngeom) if geom_appearance(m.geom(g).name)]
    assert tagged and all(m.geom_group[g] == APPEARANCE_GROUP for g in tagged)
    can_body = m.body(CAN).id
    images = {}
    for appearance, model_id in [("", CAN), ("baked", "baked_" + CAN), ("baked_v2", f"baked_{CAN}_v2")]:
        ours = single(geometry.appearance(appearance))
        reference_scene = _scene(model_id)
        reference = _draw(render_geometry(reference_scene.mj_model), reference_scene, _posed(reference_scene), 0)
        seg = np.asarray(ours.segmentation)
        assert (seg == can_body).sum() >= 50, "the can is in view"
        np.testing.assert_array_equal(seg, np.asarray(reference.segmentation))
        diff = np.abs(np.asarray(ours.rgb, int) - np.asarray(reference.rgb, int)).max(-1)
        assert (diff == 0).mean() >= 0.999 and diff.max() <= 2, (appearance, diff.max())
        images[appearance] = np.asarray(ours.rgb)[seg == can_body].astype(int)
    for a, b in [("", "baked"), ("", "baked_v2"), ("baked", "baked_v2")]:
        assert np.abs(images[a] - images[b]).mean() > 5, f"{a!r} and {b!r} look the same"


def test_table_appearances_repaint_the_table_only(multi):
    scene, geometry, d, single = multi
    own = single(0)
    seg = np.asarray(own.segmentation)
    table = np.zeros_like(seg, bool)
    probe = render_full(geometry, d.geom_xpos, d.geom_xmat, d.cam_xpos[scene.index.camera],
                        d.cam_xmat[scene.index.camera], scene.mj_model.cam_fovy[scene.index.camera], WIDTH,
                        HEIGHT)
    assert np.array_equal(np.asarray(probe.rgb), np.asarray(own.rgb))
    # The table is the world body's geom under the objects: its pixels are world-body (0) pixels
    # that change with a table appearance; everything else stays.
    looks = {}
    for name in ("cabinet1_table", "cabinet2_table"):
        out = single(geometry.appearance(name))
        np.testing.assert_array_equal(np.asarray(out.segmentation), seg)
        np.testing.assert_allclose(np.asarray(out.depth), np.asarray(own.depth), atol=1e-5)
        changed = np.abs(np.asarray(out.rgb, int) - np.asarray(own.rgb, int)).max(-1) > 0
        assert not changed[seg != 0].any(), "robot and can pixels stay"
        table |= changed
        looks[name] = np.asarray(out.rgb)
    assert table.sum() > 0.2 * table.size, "the table fills a good part of the view"
    stone = looks["cabinet1_table"][table]
    assert len(np.unique(stone, axis=0)) >= 100, "a texture, not one colour"
    assert np.abs(stone.astype(int) - looks["cabinet2_table"][table].astype(int)).mean() > 5


def test_vmap_over_appearances_equals_each_world(multi):
    scene, geometry, d, single = multi
    cam = scene.index.camera
    n = len(geometry.appearances)
    tile = lambda x: jnp.broadcast_to(jnp.asarray(x, jnp.float32), (n,) + np.shape(x))  # noqa: E731
    fovy = scene.mj_model.cam_fovy[cam]
    batch = jax.jit(jax.vmap(lambda xp, xm, cp, cm, a: render_full(geometry, xp, xm, cp, cm, fovy, WIDTH, HEIGHT,
                                                                   appearance=a)))(
        tile(d.geom_xpos), tile(d.geom_xmat), tile(d.cam_xpos[cam]), tile(d.cam_xmat[cam]),
        jnp.arange(n, dtype=jnp.int32))
    rgb = np.asarray(batch.rgb)
    assert len({r.tobytes() for r in rgb}) == n
    # The batched and the single-world programs are compiled separately, so XLA may
    # round a shading sum differently: a colour may differ by one level, at a few pixels.
    for i in range(n):
        diff = np.abs(np.asarray(single(i).rgb, int) - rgb[i].astype(int))
        assert diff.max() <= 1, f"world {i}: off by {diff.max()} levels"
        assert (diff > 0).mean() < 1e-3, f"world {i}: {(diff > 0).sum()} values differ"


def test_mujoco_renderer_shows_the_own_look_only(multi):
    scene, _, d, _ = multi
    m = scene.mj_model
    try:
        renderer = mujoco.Renderer(m, HEIGHT, WIDTH)
    except Exception as err:  # no EGL device/driver
        pytest.skip(f"MuJoCo OpenGL renderer unavailable: {err}")
    try:
        renderer.enable_segmentation_rendering()
        renderer.update_scene(d, camera=scene.index.camera)
        geom = renderer.render()[..., 0]
    finally:
        renderer.close()
    shown = {m.geom(int(g)).name for g in np.unique(geom[geom >= 0])}
    assert f"{CAN}/visual" in shown
    assert not {n for n in shown if geom_appearance(n)}


def test_task_env_picks_the_appearance_per_world():
    """`TaskEnv(appearances=...)` + `episode_params(appearance=...)`: the
    stack-cube cubes are baked; "unbaked" draws the plain cubes, "baked" is their own
    look (index 0); names the TaskEnv was not built with are refused."""
    from simpler_jax.envs.observation import ObservationSpec
    from simpler_jax.tasks.env import TaskEnv

    with pytest.raises(ValueError, match="observation"):
        TaskEnv("widowx_stack_cube", appearances=("unbaked",))
    env = TaskEnv("widowx_stack_cube", observation=ObservationSpec(width=64, height=48, segmentation=True),
                  appearances=("unbaked", "baked"))
    assert env.env.observer.geometry.appearances == ("", "unbaked")
    unbaked = env.episode_params([0, 1], appearance="unbaked").robot.appearance
    np.testing.assert_array_equal(np.asarray(unbaked), [1, 1])
    own = env.episode_params([0], appearance="baked").robot.appearance
    np.testing.assert_array_equal(np.asarray(own), [0])
    with pytest.raises(ValueError, match="'baked_v2'.*allowed"):
        env.episode_params([0], appearance="baked_v2")
    # Through the environment's observation (jit(vmap) over two worlds, one each):
    # the cubes change colour, nothing else changes.
    params = env.episode_params([0, 0]).robot.replace(appearance=jnp.asarray([0, 1], jnp.int32))
    obs = jax.jit(jax.vmap(env.env.observe_qpos))(params, jax.vmap(env.env.reset_qpos)(params))
    seg, rgb = np.asarray(obs.segmentation), np.asarray(obs.rgb, int)
    np.testing.assert_array_equal(seg[0], seg[1])
    cubes = np.isin(seg[0], np.asarray(env.scene.index.object_bodies))
    changed = np.abs(rgb[0] - rgb[1]).max(-1) > 0
    assert cubes.sum() >= 20 and changed[cubes].mean() > 0.5
    assert not changed[~cubes].any()


def test_sweep_videos_draw_the_table_variant():
    """The sweep's videos of a table-texture variant draw its table (the rollout itself
    renders nothing and shares the base scene)."""
    from simpler_jax.sweep import rollouts, videos

    options = rollouts.scene_options("google_robot_pick_coke_can", "cabinet1_table")
    r = videos.EpisodeRenderer("google_robot_pick_coke_can", "opened_coke_can", options, None, width=64)
    params = jax.tree.map(lambda x: x[0], r.env.episode_params([0]))
    qpos = np.asarray(r.env.env.reset_qpos(params.robot))[None]
    stone = r.frames(params, qpos)[0]
    r.appearance = 0
    own = r.frames(params, qpos)[0]
    changed = np.abs(stone.astype(int) - own.astype(int)).max(-1) > 0
    assert changed.mean() > 0.2 and len(np.unique(stone[changed], axis=0)) > len(np.unique(own[changed], axis=0))
