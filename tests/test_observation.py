"""Policy camera images rendered inside `reset` / `step` (`simpler_jax.envs.observation`).

One small WidowX scene with visual meshes (render 48x36, returned at 32x24 with
depth and segmentation), compiled once for the module.
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.envs import ObservationSpec, make_robot_env
from simpler_jax.envs.observation import Observer
from simpler_jax.render.lighting import LIGHTING_MODES, MAX_LIGHTS, lighting_mode

RENDER_W, RENDER_H = 48, 36
OUT_H, OUT_W = 24, 32
SPEC = ObservationSpec(width=RENDER_W, height=RENDER_H, output_size=(OUT_H, OUT_W), depth=True,
                       segmentation=True, max_faces_per_mesh=200)
MOVE_X = jnp.array([0.02, 0, 0, 0, 0, 0, 1.0], jnp.float32)  # +2 cm along base x, gripper open


@pytest.fixture(scope="module")
def observed():
    env = make_robot_env("widowx", max_steps=4, visuals=True, observation=SPEC)
    params = env.default_params()
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    state0 = reset(params, jax.random.PRNGKey(0))
    state1 = step(params, state0, MOVE_X)
    return env, params, reset, step, state0, state1


def test_reset_and_step_return_images_of_the_requested_size(observed):
    env, _, _, _, state0, state1 = observed
    for state in (state0, state1):
        obs = state.obs
        chex.assert_shape(obs.rgb, (OUT_H, OUT_W, 3))
        chex.assert_type(obs.rgb, jnp.uint8)
        chex.assert_shape([obs.depth, obs.segmentation], (OUT_H, OUT_W))
        chex.assert_type(obs.depth, jnp.float32)
        chex.assert_type(obs.segmentation, jnp.int32)


def test_the_image_shows_the_robot_and_moves_with_it(observed):
    env, _, _, _, state0, state1 = observed
    m = env.scene.mj_model
    robot = {b for b in range(m.nbody) if b != 0 and m.body_rootid[b] == env.index.base_body}
    seg0 = np.asarray(state0.obs.segmentation)
    robot_px = np.isin(seg0, list(robot))
    assert robot_px.sum() >= 10, "the third-view camera sees the arm"
    depth = np.asarray(state0.obs.depth)[robot_px]
    assert np.all((depth > 0.1) & (depth < 2.0)), "the arm is within 2 m of the camera"
    # The arm moved 2 cm: its pixels (and their colours) changed.
    assert np.any(np.asarray(state1.obs.segmentation) != seg0)
    assert np.any(np.asarray(state1.obs.rgb) != np.asarray(state0.obs.rgb))


def test_output_size_is_the_render_resized(observed):
    """Bilinear for RGB (rounded to uint8), nearest for depth and segmentation."""
    env, params, _, _, state0, _ = observed
    full = Observer(env.scene, ObservationSpec(width=RENDER_W, height=RENDER_H, depth=True,
                                               segmentation=True, max_faces_per_mesh=200))
    native = jax.jit(full)(env.model(params), state0.data)
    chex.assert_shape(native.rgb, (RENDER_H, RENDER_W, 3))
    rgb = jax.image.resize(native.rgb.astype(jnp.float32), (OUT_H, OUT_W, 3), "bilinear")
    np.testing.assert_array_equal(state0.obs.rgb, np.clip(np.round(rgb), 0, 255).astype(np.uint8))
    # Depth compiled inside `step` and alone differs in the last float32 bits.
    np.testing.assert_allclose(state0.obs.depth, jax.image.resize(native.depth, (OUT_H, OUT_W), "nearest"),
                               rtol=1e-5)
    np.testing.assert_array_equal(
        state0.obs.segmentation, jax.image.resize(native.segmentation, (OUT_H, OUT_W), "nearest"))


def test_batched_worlds_render_their_own_camera_and_lighting_and_equal_single_worlds(observed):
    env, params, _, step, state0, _ = observed
    batch = jax.tree.map(lambda x: jnp.stack([x, x, x]), params)
    batch = batch.replace(camera_pos=batch.camera_pos.at[1, 2].add(0.05))  # world 1: camera 5 cm higher
    darker = lighting_mode("slightly_darker")  # world 2: SIMPLER's darker variant
    batch = batch.replace(light_ambient=batch.light_ambient.at[2].set(darker.ambient),
                          light_directions=batch.light_directions.at[2].set(darker.directions),
                          light_colors=batch.light_colors.at[2].set(darker.colors))
    keys = jnp.stack([jax.random.PRNGKey(0)] * 3)
    states = jax.jit(jax.vmap(env.reset))(batch, keys)
    states = jax.jit(jax.vmap(env.step))(batch, states, jnp.stack([MOVE_X] * 3))
    rgb = np.asarray(states.obs.rgb, np.float64)
    assert np.any(rgb[0] != rgb[1])
    np.testing.assert_array_equal(states.obs.segmentation[2], states.obs.segmentation[0])
    robot = np.asarray(states.obs.segmentation[0]) >= 0
    assert rgb[2][robot].mean() < rgb[0][robot].mean() - 5  # same view, dimmer light
    for i in range(3):
        p_i = jax.tree.map(lambda x: x[i], batch)
        single = step(p_i, jax.jit(env.reset)(p_i, keys[i]), MOVE_X)
        np.testing.assert_array_equal(states.obs.rgb[i], single.obs.rgb)
        np.testing.assert_array_equal(states.obs.segmentation[i], single.obs.segmentation)


def test_without_an_observation_spec_nothing_is_rendered(compiled_widowx):
    r = compiled_widowx
    assert r.env.observer is None
    state = jax.eval_shape(r.env.step, r.params, jax.eval_shape(r.env.reset, r.params, jax.random.PRNGKey(0)),
                           jnp.zeros(7, jnp.float32))
    assert state.obs is None


@pytest.mark.parametrize("kwargs, bad", [
    (dict(width=0), "width"),
    (dict(height=-3), "height"),
    (dict(output_size=(256,)), "output_size"),
    (dict(output_size=(0, 256)), "output_size"),
])
def test_bad_specs_name_the_field(kwargs, bad):
    with pytest.raises(ValueError, match=bad):
        ObservationSpec(**kwargs)


def test_observations_need_visual_meshes():
    with pytest.raises(ValueError, match="visuals=True"):
        make_robot_env("widowx", observation=ObservationSpec(width=8, height=6))


def test_lighting_modes_are_padded_and_checked():
    for name, (ambient, lights) in LIGHTING_MODES.items():
        light = lighting_mode(name)
        chex.assert_shape([light.directions, light.colors], (MAX_LIGHTS, 3))
        np.testing.assert_allclose(light.ambient, ambient)
        np.testing.assert_allclose(light.colors[:, 0], [c for _, c in lights] + [0.0] * (MAX_LIGHTS - len(lights)))
    np.testing.assert_allclose(lighting_mode("simple").directions[0], [-0.258819, 0, -0.965926], atol=1e-6)
    with pytest.raises(ValueError, match="'dim'.*allowed"):
        lighting_mode("dim")
