"""Task environments on real MJX physics: settle, measure, grasp check, stats, registry."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from mujoco import mjx

import simpler_jax
from simpler_jax.tasks.env import TaskEnv

WORLDS = 2


class CompiledTask:
    def __init__(self, task, episode_ids, max_steps):
        self.env = TaskEnv(task, max_steps=max_steps)
        self.ids = episode_ids
        self.params = self.env.episode_params(episode_ids)
        self.reset = jax.jit(jax.vmap(self.env.reset))
        self.step = jax.jit(jax.vmap(self.env.step))


@pytest.fixture(scope="session")
def stack_cube():
    return CompiledTask("widowx_stack_cube", [0, 12], max_steps=3)


@pytest.fixture(scope="session")
def stack_cube_rollout(stack_cube):
    keys = jax.random.split(jax.random.PRNGKey(0), WORLDS)
    first = stack_cube.reset(stack_cube.params, keys)
    state = first
    hold_open = np.zeros((WORLDS, 7), np.float32)
    hold_open[:, 6] = 1.0  # WidowX: +1 opens
    for _ in range(4):  # one more than max_steps: the last step must be frozen
        state = stack_cube.step(stack_cube.params, state, hold_open)
    return first, state


def test_reset_settles_objects_where_the_episode_puts_them(stack_cube, stack_cube_rollout):
    first, _ = stack_cube_rollout
    settle = np.asarray(first.ref.settle_pos)  # (W, 2, 3)
    chex.assert_shape(first.ref.settle_pos, (WORLDS, 2, 3))
    for w, e in enumerate(stack_cube.ids):
        ep = stack_cube.env.episodes[e]
        np.testing.assert_allclose(settle[w, :, :2], np.array(ep.object_xy), atol=3e-3)
    np.testing.assert_allclose(settle[..., 2], 0.87 + 0.015, atol=2e-3)  # 3 cm cubes on the table
    np.testing.assert_allclose(np.abs(np.asarray(first.ref.bbox_world)), 0.03, atol=1e-3)
    assert not np.asarray(first.stats.success).any()


def test_open_gripper_scores_nothing_and_stats_freeze_at_the_limit(stack_cube, stack_cube_rollout):
    _, state = stack_cube_rollout
    s = state.stats
    chex.assert_shape([s.success, s.grasped, s.consecutive_grasp], (WORLDS,))
    chex.assert_type([s.success, s.grasped_ever], bool)
    assert not np.asarray(s.success).any() and not np.asarray(s.grasped_ever).any()
    assert not np.asarray(s.moved_correct_obj).any()
    assert np.asarray(state.env.done).all() and (np.asarray(state.env.step) == 3).all()
    assert not np.asarray(state.env.nonfinite).any()


def test_episode_params_reject_unknown_episodes(stack_cube):
    with pytest.raises(ValueError, match=r"episode ids \[99\].*allowed"):
        stack_cube.env.episode_params([0, 99])


def test_unknown_scene_key_is_refused():
    with pytest.raises(ValueError, match="scene key 'triplet9'.*allowed"):
        TaskEnv("google_robot_move_near", scene_key="triplet9")


def _squeeze_state(env: TaskEnv, left: float, right: float, cube_z_offset: float = 0.0):
    """MJX data with the source cube at the WidowX TCP and the fingers at `left`/`right`."""
    import mujoco

    m, idx = env.scene.mj_model, env.scene.index
    d = mujoco.MjData(m)
    d.qpos[idx.arm_qpos] = env.scene.robot.init_qpos[: len(idx.arm_qpos)]
    mujoco.mj_forward(m, d)
    tcp = d.xpos[idx.ee_body].copy()
    d.qpos[idx.finger_qpos] = (left, right)
    a, b = idx.object_qpos
    d.qpos[a : a + 7] = [*(tcp + [0, 0, cube_z_offset]), 1, 0, 0, 0]
    d.qpos[b : b + 7] = [-0.2, 0.3, 0.885, 1, 0, 0, 0]  # the target, on the table
    return mjx.put_data(m, d)


@pytest.fixture(scope="session")
def measure_forward(stack_cube):
    env = stack_cube.env
    params = jax.tree.map(lambda x: x[0], stack_cube.params)

    @jax.jit
    def run(d):
        return env.measure(params, mjx.forward(env.env.mjx_model, d))

    return run


def test_grasp_check_needs_both_fingers_pushing(stack_cube, measure_forward):
    env = stack_cube.env
    # Both pads sink 0.1-1.7 mm into the cube (the pads taper): a squeeze.
    both = measure_forward(_squeeze_state(env, 0.024, 0.024))
    assert bool(both.grasped)
    assert not bool(both.source_env_contact)  # held in the air: robot contacts only
    one = measure_forward(_squeeze_state(env, 0.024, 0.037))
    assert not bool(one.grasped)
    free = measure_forward(_squeeze_state(env, 0.037, 0.037))
    assert not bool(free.grasped)


def test_finger_axes_point_away_from_the_gripper_centre(stack_cube):
    """SIMPLER's check_grasp axes: left +y, right -y; both must point outward."""
    import mujoco

    env = stack_cube.env
    m, idx, g = env.scene.mj_model, env.scene.index, env.groups
    d = mujoco.MjData(m)
    d.qpos[np.concatenate([idx.arm_qpos, idx.finger_qpos])] = env.scene.robot.init_qpos  # gripper open
    mujoco.mj_forward(m, d)
    centre = d.xpos[g.finger_bodies].mean(axis=0)
    for body, sign in zip(g.finger_bodies, g.finger_sign):
        axis = d.xmat[body].reshape(3, 3)[:, 1] * sign
        assert np.dot(axis, d.xpos[body] - centre) > 0


def test_make_builds_tasks_and_lists_them():
    names = simpler_jax.list_tasks()
    for task in ("google_robot_pick_coke_can", "google_robot_open_drawer", "widowx_stack_cube",
                 "google_robot_place_apple_in_closed_top_drawer", "widowx_put_eggplant_in_basket"):
        assert task in names
    with pytest.raises(ValueError, match="did you mean 'widowx_carrot_on_plate'"):
        simpler_jax.make("widowx_carot_on_plate")
