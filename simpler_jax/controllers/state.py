"""What SIMPLER's controllers remember between control steps (one world)."""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class ControllerState:
    """What SIMPLER's controllers remember between control steps (one world).

    plan_pos, plan_vel: (A,) Google arm planner state at the end of the last
        control period (where the next plan starts).
    has_plan: () False until the first control step after reset (then the plan
        starts from the measured state, as the original).
    gripper_target: (F,) last finger drive target (Google: relative target base;
        WidowX: the absolute target).
    ee_target_pos: (3,) and ee_target_rot: (3, 3) WidowX accumulated EE target
        in the robot base frame (`ee_target_delta_pose_align2`).
    ik_success: () whether the last IK converged.
    """

    plan_pos: jax.Array
    plan_vel: jax.Array
    has_plan: jax.Array
    gripper_target: jax.Array
    ee_target_pos: jax.Array
    ee_target_rot: jax.Array
    ik_success: jax.Array


def zeros_controller(num_arm: int, num_fingers: int, dtype=jnp.float32) -> ControllerState:
    return ControllerState(
        plan_pos=jnp.zeros(num_arm, dtype),
        plan_vel=jnp.zeros(num_arm, dtype),
        has_plan=jnp.array(False),
        gripper_target=jnp.zeros(num_fingers, dtype),
        ee_target_pos=jnp.zeros(3, dtype),
        ee_target_rot=jnp.eye(3, dtype=dtype),
        ik_success=jnp.array(True),
    )
