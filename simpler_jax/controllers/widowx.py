"""WidowX controllers (SIMPLER_SPEC.md §4.2), one world, pure JAX.

Arm `arm_pd_ee_target_delta_pose_align2`: the delta is applied to the previous
*target* pose about the current EE position c:
R_target = R_delta R_prev, p_target = c + R_delta (p_prev - c) + delta_p. CLIK from the
measured joints gives the joint target (measured joints on failure, while the
unreachable target pose is still kept). The target is held for all substeps.
Gripper `gripper_pd_joint_pos`: absolute, target = 0.026 + 0.012*clip(a, -1, 1) for
both fingers; +1 opens.
"""

from __future__ import annotations

import jax.numpy as jnp

from simpler_jax.controllers import kinematics
from simpler_jax.controllers.state import ControllerState
from simpler_jax.robots import widowx as wx
from simpler_jax.utils.rotations import axis_angle_to_mat


def accumulate_target(p_prev, r_prev, c, delta_pos, delta_rotvec):
    """`ee_align2` target update; all in the robot base frame."""
    r_delta = axis_angle_to_mat(delta_rotvec)
    return c + r_delta @ (p_prev - c) + delta_pos, r_delta @ r_prev


def control_targets(chain, index, params, qpos, qvel, ctrl: ControllerState, action, dt, substeps):
    """Drive targets for every substep (held constant), same contract as the Google one."""
    arm_q = qpos[index.arm_qpos]
    c, _, _, _ = kinematics.forward_kinematics(chain, arm_q)
    p_target, r_target = accumulate_target(
        ctrl.ee_target_pos, ctrl.ee_target_rot, c, action[:3], action[3:6]
    )
    q_ik, ok = kinematics.solve_ik(chain, arm_q, p_target, r_target, wx.IK_MAX_ITERATIONS)
    joint_target = jnp.where(ok, q_ik, arm_q)
    gripper = wx.GRIPPER_MID + wx.GRIPPER_HALF_RANGE * jnp.clip(action[6], -1.0, 1.0)
    num_f = index.finger_qpos.shape[0]
    gripper_target = jnp.full((num_f,), gripper, arm_q.dtype)
    arm_pos = jnp.broadcast_to(joint_target, (substeps,) + joint_target.shape)
    finger_pos = jnp.broadcast_to(gripper_target, (substeps, num_f))
    new_ctrl = ctrl.replace(
        ee_target_pos=p_target, ee_target_rot=r_target, gripper_target=gripper_target,
        ik_success=ok,
    )
    return arm_pos, finger_pos, jnp.zeros_like(finger_pos), new_ctrl
