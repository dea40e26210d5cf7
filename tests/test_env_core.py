"""The environment core: MJX vs MuJoCo C, controller semantics, batching, determinism, NaN isolation."""

import chex
import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

from simpler_jax.controllers import kinematics, trajectory
from simpler_jax.controllers.widowx import accumulate_target
from simpler_jax.envs import make_robot_env
from simpler_jax.envs.reference import MujocoCReference
from simpler_jax.robots import google_robot as gr
from simpler_jax.robots import widowx as wx
from simpler_jax.utils.rotations import mat_to_axis_angle
from simpler_jax.utils.rotations_np import quat_to_mat

KEY = jax.random.PRNGKey(0)


def ee_pose(cr, state):
    """TCP pose in the robot base frame, from the measured joints."""
    idx = cr.env.index
    q = np.asarray(state.data.qpos)[..., idx.arm_qpos][..., idx.ik_in_arm]
    p, r, _, _ = kinematics.forward_kinematics(cr.env.chain, jnp.asarray(q))
    return np.asarray(p), np.asarray(r)


def run(cr, actions):
    state = cr.reset(cr.params, KEY)
    states = [state]
    for a in actions:
        state = cr.step(cr.params, state, jnp.asarray(a, jnp.float32))
        states.append(state)
    return states


def c_reference_step(cr, state, action):
    """One control step in MuJoCo C, driven by the same controller outputs and drive law."""
    ctrl_seq, _ = cr.control_targets(cr.params, state.data.qpos, state.data.qvel, state.controller, action)
    ref = MujocoCReference(cr.env, cr.params)
    ref.set_state(state.data.qpos, state.data.qvel, state.data.ctrl)
    ref.control_step(ctrl_seq)
    return ref.data


# MJX (float32) against MuJoCo C (float64) after one full control step
# (100 or 171 substeps) of the same drive targets, with drives saturating at their
# force limits: joints agree to 5e-5 rad (metres for the WidowX fingers).
MJX_VS_C_TOL = 5e-5


@pytest.mark.parametrize(
    "action",
    [[0.02, -0.01, 0.01, 0.0, 0.0, 0.1, 1.0], [-0.03, 0.02, -0.02, 0.1, -0.05, 0.0, -1.0]],
)
def test_mjx_matches_mujoco_c_over_a_control_step(compiled_robot, action):
    cr = compiled_robot
    a = jnp.asarray(action, jnp.float32)
    state = cr.reset(cr.params, KEY)
    for _ in range(2):  # second step starts from a moving arm and a continued plan
        ref = c_reference_step(cr, state, a)
        state = cr.step(cr.params, state, a)
        moved = np.abs(ref.qpos - np.asarray(state.data.qpos)).max()
        np.testing.assert_allclose(np.asarray(state.data.qpos), ref.qpos, atol=MJX_VS_C_TOL)
        assert moved < MJX_VS_C_TOL
    start = np.asarray(cr.reset(cr.params, KEY).data.qpos)
    assert np.abs(np.asarray(state.data.qpos) - start).max() > 0.02  # the arm really moved


def test_reset_holds_its_drive_targets_and_the_c_reference_moves_the_base(compiled_robot):
    cr = compiled_robot
    state = cr.reset(cr.params, KEY)
    np.testing.assert_array_equal(np.asarray(cr.env.reset_ctrl(cr.params)), np.asarray(state.data.ctrl))
    base = cr.env.index.base_body
    model_base = cr.env.scene.mj_model.body_pos[base].copy()
    moved = cr.params.replace(base_pos=cr.params.base_pos + jnp.array([0.1, -0.2, 0.05]))
    ref = MujocoCReference.at_base(cr.env, moved)
    ref.set_state(state.data.qpos, state.data.qvel, state.data.ctrl)
    np.testing.assert_allclose(ref.data.xpos[base], np.asarray(moved.base_pos), atol=1e-6)
    np.testing.assert_array_equal(cr.env.scene.mj_model.body_pos[base], model_base)  # the env's model untouched


def test_fk_matches_mujoco_and_spec_sanity_values(compiled_robot):
    cr = compiled_robot
    state = cr.reset(cr.params, KEY)
    p, r = ee_pose(cr, state)
    m = cr.env.scene.mj_model
    d = mujoco.MjData(m)
    d.qpos[:] = np.asarray(state.data.qpos)
    mujoco.mj_kinematics(m, d)
    b, e = cr.env.index.base_body, cr.env.index.ee_body
    rb = d.xmat[b].reshape(3, 3)
    np.testing.assert_allclose(p, rb.T @ (d.xpos[e] - d.xpos[b]), atol=1e-5)
    np.testing.assert_allclose(r, rb.T @ d.xmat[e].reshape(3, 3), atol=1e-5)
    # Derived sanity values of SIMPLER_SPEC.md §4 (TCP at the init qpos, base frame).
    expected = {
        "google_robot": ((0.4394, -0.2184, 0.9619), (0.1601, -0.6039, 0.7802, -0.0325)),
        "widowx": ((0.2921, -0.0061, 0.1353), (0.6867, 0.0053, 0.7269, -0.0081)),
    }[cr.env.scene.robot.name]
    np.testing.assert_allclose(p, expected[0], atol=2e-4)
    np.testing.assert_allclose(r, quat_to_mat(expected[1]), atol=2e-3)


def test_translation_command_moves_tcp_along_base_x(compiled_robot):
    """+2 cm along base x. WidowX holds its accumulated target, so the TCP arrives
    within 2 mm. The Google controller re-targets from the measured pose each step
    and its sysid'd gains are heavily overdamped (D/K ~ 0.6 s), so SIMPLER moves the
    TCP only part of the way in one 1/3 s step: we require the plan to end at the
    commanded pose (1 mm) and the TCP to move 3-21 mm along +x with < 2 mm off-axis."""
    cr = compiled_robot
    robot = cr.env.scene.robot.name
    zero = np.zeros(7)
    cmd = np.array([0.02, 0, 0, 0, 0, 0, 0])
    states = run(cr, [cmd, zero, zero, zero])
    p0, r0 = ee_pose(cr, states[0])
    p1, _ = ee_pose(cr, states[1])
    p_end, r_end = ee_pose(cr, states[-1])
    if robot == "widowx":
        np.testing.assert_allclose(p_end - p0, [0.02, 0, 0], atol=2e-3)
        np.testing.assert_allclose(r_end, r0, atol=5e-3)
    else:
        idx = cr.env.index
        plan_q = np.asarray(states[1].controller.plan_pos)[idx.ik_in_arm]
        p_plan, r_plan, _, _ = kinematics.forward_kinematics(cr.env.chain, jnp.asarray(plan_q))
        np.testing.assert_allclose(np.asarray(p_plan) - p0, [0.02, 0, 0], atol=1e-3)
        np.testing.assert_allclose(np.asarray(r_plan), r0, atol=2e-3)
        dx = p1 - p0
        assert 0.003 < dx[0] < 0.021, dx
        assert np.abs(dx[1:]).max() < 0.002, dx


def test_rotation_command_rotates_tcp_about_base_z(compiled_robot):
    cr = compiled_robot
    robot = cr.env.scene.robot.name
    cmd = np.array([0, 0, 0, 0, 0, 0.1, 0])
    zero = np.zeros(7)
    states = run(cr, [cmd, zero, zero])
    _, r0 = ee_pose(cr, states[0])
    _, r_end = ee_pose(cr, states[-1])
    rotvec = np.asarray(mat_to_axis_angle(jnp.asarray(r_end @ r0.T)))
    # Rotation about the base z axis (pre-multiplied): the axis is +z.
    axis = rotvec / np.linalg.norm(rotvec)
    assert axis[2] > 0.98, rotvec
    if robot == "widowx":
        assert abs(np.linalg.norm(rotvec) - 0.1) < 0.01, rotvec
    else:
        assert 0.02 < np.linalg.norm(rotvec) < 0.105, rotvec


def test_widowx_targets_accumulate(compiled_widowx):
    cr = compiled_widowx
    a1 = np.array([0.01, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], np.float32)
    a2 = np.array([0.0, 0.01, 0.0, 0.0, 0.0, 0.2, 1.0], np.float32)
    states = run(cr, [a1, a2])
    c0 = states[0].controller
    np.testing.assert_allclose(states[1].controller.ee_target_pos, np.asarray(c0.ee_target_pos) + [0.01, 0, 0], atol=1e-6)
    # Second step: the delta acts about the *measured* EE position c, on the previous target.
    c, _ = ee_pose(cr, states[1])
    p_exp, r_exp = accumulate_target(
        states[1].controller.ee_target_pos, states[1].controller.ee_target_rot, jnp.asarray(c), a2[:3], a2[3:6]
    )
    np.testing.assert_allclose(states[2].controller.ee_target_pos, p_exp, atol=1e-6)
    np.testing.assert_allclose(states[2].controller.ee_target_rot, r_exp, atol=1e-6)
    # The target is not the measured pose: it kept accumulating.
    assert np.linalg.norm(np.asarray(states[2].controller.ee_target_pos) - ee_pose(cr, states[2])[0]) > 1e-3


def test_widowx_gripper_is_absolute_and_plus_one_opens(compiled_widowx):
    cr = compiled_widowx
    idx = cr.env.index
    close = np.array([0, 0, 0, 0, 0, 0, -1.0])
    states = run(cr, [close, close, np.array([0, 0, 0, 0, 0, 0, 1.0]), np.array([0, 0, 0, 0, 0, 0, 0.0])])
    targets = [np.asarray(s.controller.gripper_target) for s in states[1:]]
    np.testing.assert_allclose(targets[0], [0.014, 0.014], atol=1e-7)
    np.testing.assert_allclose(targets[2], [0.038, 0.038], atol=1e-7)
    np.testing.assert_allclose(targets[3], [0.026, 0.026], atol=1e-7)
    fingers = [np.asarray(s.data.qpos)[idx.finger_qpos] for s in states]
    # Finger drive K=1000, D=200: a first-order lag of D/K = 0.2 s (one control step).
    assert np.all(fingers[1] < 0.026) and np.all(fingers[2] < 0.018)  # closing towards 0.015
    assert np.all(fingers[3] > fingers[2] + 0.01)  # +1 opens
    assert np.all(np.abs(fingers[4] - 0.026) < 0.004)  # 0 goes to mid-range


def test_google_gripper_is_relative_and_plus_one_closes(compiled_google):
    cr = compiled_google
    idx = cr.env.index
    g = lambda v: np.array([0, 0, 0, 0, 0, 0, v])  # noqa: E731
    states = run(cr, [g(0.5), g(0.0), g(0.5), g(1.0), g(-1.0), g(0.0)])
    targets = [float(np.asarray(s.controller.gripper_target)[0]) for s in states[1:]]
    np.testing.assert_allclose(targets, [0.655, 0.655, 1.31, 1.31, 0.0, 0.0], atol=1e-6)
    fingers = [np.asarray(s.data.qpos)[idx.finger_qpos] for s in states]
    # The finger planner (vmax 1 rad/s) needs > 1/3 s for 0.655 rad: it keeps going
    # towards the held target while the action is 0.
    assert np.all(fingers[1] > 0.1) and np.all(fingers[2] > fingers[1] + 0.2)
    assert np.all(fingers[4] > 1.1)  # closing towards the 1.3 limit (no object)
    assert np.all(fingers[6] < fingers[4] - 0.2)  # -1 opens (after braking the closing motion)
    # Both fingers, one target. The 1.31 target presses both against their 1.3 rad
    # limit (a stiff constraint, robots/builder.py); the mirrored fingers leave it
    # ~1e-4 rad apart.
    np.testing.assert_allclose(fingers[6][0], fingers[6][1], atol=1e-3)


def test_google_plan_continues_from_previous_plan_end(compiled_google):
    cr = compiled_google
    idx = cr.env.index
    cmd = jnp.asarray([0.03, 0.02, -0.02, 0.0, 0.0, 0.0, 0.0], jnp.float32)
    s0 = cr.reset(cr.params, KEY)
    seq0, c1 = cr.control_targets(cr.params, s0.data.qpos, s0.data.qvel, s0.controller, cmd)
    s1 = cr.step(cr.params, s0, cmd)
    chex.assert_trees_all_close(s1.controller, c1)
    seq1, _ = cr.control_targets(cr.params, s1.data.qpos, s1.data.qvel, s1.controller, cmd)
    arm0 = np.asarray(seq0)[:, idx.arm_actuators]
    arm1 = np.asarray(seq1)[:, idx.arm_actuators]
    dt = cr.env.sim_dt
    # The plan is still moving at the end of the first control period...
    assert np.abs(np.asarray(c1.plan_vel)).max() > 0.01
    # ...and the next plan starts from its end state, not from the measured joints.
    np.testing.assert_allclose(np.asarray(c1.plan_pos), arm0[-1], atol=1e-6)
    assert np.abs(arm1[0] - arm0[-1]).max() <= gr.ARM_VMAX * dt + 1e-6
    measured = np.asarray(s1.data.qpos)[idx.arm_qpos]
    assert np.abs(measured - arm0[-1]).max() > 10 * gr.ARM_VMAX * dt
    # The same continuation computed directly with the planner.
    lim = trajectory.JerkLimits(gr.ARM_VMAX, gr.ARM_AMAX, gr.ARM_JMAX)
    pos, _, _, _ = trajectory.plan_substep_targets(
        c1.plan_pos, c1.plan_vel, jnp.asarray(arm1[-1]), lim, dt, cr.env.substeps
    )
    np.testing.assert_allclose(np.asarray(pos)[0], arm1[0], atol=1e-5)


def test_64_worlds_with_64_gains_match_single_worlds(compiled_robot):
    cr = compiled_robot
    n = cr.batched.num_worlds
    params = cr.batched.default_params()
    k_scale = jnp.linspace(0.4, 1.6, n)[:, None]
    d_scale = jnp.linspace(1.6, 0.4, n)[:, None]  # vary D/K too: it sets the lag
    params = params.replace(arm_stiffness=params.arm_stiffness * k_scale, arm_damping=params.arm_damping * d_scale)
    keys = jax.random.split(KEY, n)
    action = np.tile(np.array([0.02, -0.01, 0.015, 0.0, 0.0, 0.1, 1.0], np.float32), (n, 1))
    # One control step (100 or 171 substeps) per world; 8 of the worlds, spread over the
    # whole range of gains (first and last included), are also stepped alone below (CI
    # time: each single-world call is a whole control step).
    state = cr.batched.step(params, cr.batched.reset(params, keys), action)
    qpos = np.asarray(state.data.qpos)
    chex.assert_shape(qpos, (n, cr.env.scene.mj_model.nq))
    arm = qpos[:, cr.env.index.arm_qpos]
    gaps = np.abs(arm[1:] - arm[:-1]).max(axis=1)
    assert np.all(gaps > 1e-4), "every world's gains must change its trajectory"
    assert np.all(np.isfinite(qpos)) and not np.asarray(state.nonfinite).any()
    for i in np.linspace(0, n - 1, 8).round().astype(int):
        p_i = jax.tree.map(lambda x: x[i], params)
        s = cr.step(p_i, cr.reset(p_i, keys[i]), jnp.asarray(action[i]))
        np.testing.assert_allclose(qpos[i], np.asarray(s.data.qpos), atol=2e-5, err_msg=f"world {i}")


def test_same_params_and_key_give_bitwise_equal_states(compiled_robot):
    cr = compiled_robot
    n = cr.batched.num_worlds
    params = cr.batched.default_params()
    keys = jax.random.split(KEY, n)
    action = np.random.default_rng(0).uniform(-0.02, 0.02, (n, 7)).astype(np.float32)

    def rollout():
        s = cr.batched.reset(params, keys)
        return cr.batched.step(params, s, action)

    a, b = rollout(), rollout()
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_nonfinite_world_is_flagged_and_frozen_alone(compiled_robot):
    cr = compiled_robot
    n = cr.batched.num_worlds
    params = cr.batched.default_params()
    keys = jax.random.split(KEY, n)
    action = np.tile(np.array([0.01, 0, 0, 0, 0, 0, 0], np.float32), (n, 1))
    clean = cr.batched.reset(params, keys)
    bad_world = 3
    poisoned = clean.replace(data=clean.data.replace(qvel=clean.data.qvel.at[bad_world, 0].set(jnp.nan)))
    out = cr.batched.step_fn(params, poisoned, jnp.asarray(action))
    ref = cr.batched.step_fn(params, clean, jnp.asarray(action))
    flags = np.asarray(out.nonfinite)
    assert flags[bad_world] and flags.sum() == 1
    assert np.asarray(out.done)[bad_world] and not np.asarray(out.done)[np.arange(n) != bad_world].any()
    others = np.arange(n) != bad_world
    np.testing.assert_array_equal(np.asarray(out.data.qpos)[others], np.asarray(ref.data.qpos)[others])
    # Frozen at its last state, and it stays frozen.
    np.testing.assert_array_equal(np.asarray(out.data.qpos)[bad_world], np.asarray(poisoned.data.qpos)[bad_world])
    assert int(np.asarray(out.step)[bad_world]) == 0
    out2 = cr.batched.step_fn(params, out, jnp.asarray(action))
    assert np.asarray(out2.nonfinite)[bad_world] and int(np.asarray(out2.step)[bad_world]) == 0
    assert np.all(np.asarray(out2.step)[others] == 2)


def test_bad_inputs_give_clear_errors(compiled_widowx):
    cr = compiled_widowx
    b = cr.batched
    n = b.num_worlds
    params = b.default_params()
    keys = jax.random.split(KEY, n)
    state = b.reset(params, keys)
    with pytest.raises(ValueError, match=r"action shape \(64, 6\) is wrong; expected \(64, 7\)"):
        b.step(params, state, np.zeros((n, 6), np.float32))
    with pytest.raises(TypeError, match="action dtype int64 is not allowed"):
        b.step(params, state, np.zeros((n, 7), np.int64))
    nan_action = np.zeros((n, 7), np.float32)
    nan_action[5, 2] = np.nan
    with pytest.raises(ValueError, match=r"non-finite values .* at indices \[\[5, 2\]\]"):
        b.step(params, state, nan_action)
    with pytest.raises(ValueError, match=r"params.arm_stiffness has shape \(64, 5\); expected \(64, 6\)"):
        b.step(params.replace(arm_stiffness=params.arm_stiffness[:, :5]), state, np.zeros((n, 7), np.float32))
    with pytest.raises(ValueError, match="keys shape"):
        b.reset(params, keys[:3])
    with pytest.raises(ValueError, match=r"unknown robot 'franka'; allowed: \['google_robot', 'widowx'\]"):
        make_robot_env("franka")


def test_missing_assets_name_the_setting_and_file(tmp_path, monkeypatch):
    from simpler_jax.assets import MissingAssetError, asset_root

    monkeypatch.setenv("SIMPLER_JAX_ASSETS", str(tmp_path / "nowhere"))
    with pytest.raises(MissingAssetError, match=r"\$SIMPLER_JAX_ASSETS"):
        asset_root()
    (tmp_path / "partial").mkdir()
    with pytest.raises(MissingAssetError, match="missing 'mani_skill2_real2sim/.*google_robot_meta_sim_fix_wheel_fix_fingertip.urdf'"):
        asset_root(tmp_path / "partial")


def test_auto_reset_restarts_done_worlds(compiled_widowx):
    env = make_robot_env("widowx", max_steps=2, auto_reset=True)
    # Same scene, new episode length: reuse the scene to avoid rebuilding assets.
    step = jax.jit(env.step)
    params = env.default_params()
    s0 = jax.jit(env.reset)(params, KEY)
    a = jnp.asarray([0.02, 0, 0, 0, 0, 0, 0], jnp.float32)
    s1 = step(params, s0, a)
    s2 = step(params, s1, a)  # hits max_steps -> restarted
    assert int(s1.step) == 1 and int(s2.step) == 0 and not bool(s2.done)
    np.testing.assert_allclose(np.asarray(s2.data.qpos), np.asarray(s0.data.qpos), atol=1e-6)
    assert not np.array_equal(np.asarray(s2.key), np.asarray(s0.key))
