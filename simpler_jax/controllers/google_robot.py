"""Google Robot controllers (SIMPLER_SPEC.md §4.1), one world, pure JAX.

Arm `arm_pd_ee_delta_pose_align_interpolate_by_planner`: the target EE pose is the
measured pose with the translation added and the rotation pre-multiplied in the
base frame; CLIK gives the joint target (the head joints keep their measured
position; on IK failure all joints do); a jerk-limited plan (vmax 1.5, amax 2, jmax
50) from the previous plan's end state (first step: measured qpos and clipped qvel)
is sampled at every substep as the drive position target.
Gripper `gripper_pd_joint_target_delta_pos_interpolate_by_planner`: target = last
target + 1.31*clip(a, -1, 1) (kept if the change is below 1e-3), clipped to
[-0.0101, 1.31]; +1 closes. Planned (vmax 1, amax 7, jmax 50) from the measured
finger state; each substep sets position and velocity targets.
"""

from __future__ import annotations

import jax.numpy as jnp

from simpler_jax.controllers import kinematics, trajectory
from simpler_jax.controllers.state import ControllerState
from simpler_jax.robots import google_robot as gr


def control_targets(chain, index, params, qpos, qvel, ctrl: ControllerState, action, dt, substeps):
    """Drive targets for every substep of one control step.

    qpos, qvel: the robot's full model state vectors (nq,), (nv,). action: (7,).
    Returns (arm_pos (N, A), finger_pos (N, F), finger_vel (N, F), new ControllerState).
    """
    arm_q = qpos[index.arm_qpos]
    arm_v = qvel[index.arm_dof]
    ik_q = arm_q[index.ik_in_arm]
    p, r, _, _ = kinematics.forward_kinematics(chain, ik_q)
    p_target, r_target = kinematics.apply_delta_align(p, r, action[:3], action[3:6])
    q_ik, ok = kinematics.solve_ik(chain, ik_q, p_target, r_target, gr.IK_MAX_ITERATIONS)
    joint_target = arm_q.at[index.ik_in_arm].set(jnp.where(ok, q_ik, ik_q))

    limits = trajectory.JerkLimits(gr.ARM_VMAX, gr.ARM_AMAX, gr.ARM_JMAX)
    start_pos = jnp.where(ctrl.has_plan, ctrl.plan_pos, arm_q)
    start_vel = jnp.where(ctrl.has_plan, ctrl.plan_vel, jnp.clip(arm_v, -gr.ARM_VMAX, gr.ARM_VMAX))
    arm_pos, _, end_pos, end_vel = trajectory.plan_substep_targets(
        start_pos, start_vel, joint_target, limits, dt, substeps
    )

    finger_q = qpos[index.finger_qpos]
    finger_v = qvel[index.finger_dof]
    delta = gr.GRIPPER_DELTA_SCALE * jnp.clip(action[6], -1.0, 1.0)
    lo, hi = gr.GRIPPER_TARGET_RANGE
    new_target = jnp.clip(ctrl.gripper_target + delta, lo, hi)
    gripper_target = jnp.where(jnp.abs(delta) < 1e-3, ctrl.gripper_target, new_target)
    glimits = trajectory.JerkLimits(gr.GRIPPER_VMAX, gr.GRIPPER_AMAX, gr.GRIPPER_JMAX)
    finger_pos, finger_vel, _, _ = trajectory.plan_substep_targets(
        finger_q, jnp.clip(finger_v, -gr.GRIPPER_VMAX, gr.GRIPPER_VMAX), gripper_target,
        glimits, dt, substeps,
    )
    new_ctrl = ctrl.replace(
        plan_pos=end_pos, plan_vel=end_vel, has_plan=jnp.array(True),
        gripper_target=gripper_target, ik_success=ok,
    )
    return arm_pos, finger_pos, finger_vel, new_ctrl


def closedness(qpos, index) -> jnp.ndarray:
    """Gripper closedness in [0, 1]: mean finger angle / 1.3."""
    return jnp.mean(qpos[index.finger_qpos] / gr.FINGER_CLOSED_QPOS)
