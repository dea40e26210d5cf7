"""Forward kinematics, Jacobian and damped-least-squares IK of a robot's arm chain.

The chain (from `SceneIndex`) runs from the robot base body to the EE body; poses
are in the robot base frame, which is the frame of SIMPLER's EE controllers. IK is
SAPIEN/Pinocchio's CLIK: at most `max_iterations` steps of q += dt * J^T (J J^T +
damp I)^-1 e with dt = 0.1, damp = 1e-6, stopping (here: freezing) once |e| < eps =
1e-4; when it never converges the original keeps the current joints, and so do we.
Every loop has a fixed trip count, so the function is jit/vmap friendly.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.data.rotations import quat_wxyz_to_matrix
from simpler_jax.utils.rotations import axis_angle_to_mat, mat_to_axis_angle


@flax.struct.dataclass
class Chain:
    """Static kinematic chain; arrays are numpy (compile-time constants)."""

    pos: np.ndarray = flax.struct.field(pytree_node=False)  # (C, 3)
    rot: np.ndarray = flax.struct.field(pytree_node=False)  # (C, 3, 3)
    axis: np.ndarray = flax.struct.field(pytree_node=False)  # (C, 3)
    joint: tuple = flax.struct.field(pytree_node=False)  # (C,) IK joint index or -1


def make_chain(index) -> Chain:
    rot = quat_wxyz_to_matrix(np.asarray(index.chain_quat))
    return Chain(
        np.asarray(index.chain_pos), rot, np.asarray(index.chain_axis),
        tuple(int(j) for j in index.chain_joint),
    )


def forward_kinematics(chain: Chain, q: jnp.ndarray):
    """EE pose in the base frame and the joint frames.

    q: (K,) IK joint angles. Returns (p (3,), R (3,3), joint_pos (K,3), joint_axis (K,3)).
    """
    p = jnp.zeros(3, q.dtype)
    r = jnp.eye(3, dtype=q.dtype)
    k = q.shape[0]
    jpos = [None] * k
    jaxis = [None] * k
    for i in range(len(chain.joint)):
        p = p + r @ jnp.asarray(chain.pos[i], q.dtype)
        r = r @ jnp.asarray(chain.rot[i], q.dtype)
        j = chain.joint[i]
        if j >= 0:
            axis = jnp.asarray(chain.axis[i], q.dtype)
            jpos[j] = p
            jaxis[j] = r @ axis
            r = r @ axis_angle_to_mat(axis * q[j])
    return p, r, jnp.stack(jpos), jnp.stack(jaxis)


def jacobian(chain: Chain, q: jnp.ndarray):
    """Geometric Jacobian (6, K) [linear; angular] of the EE in the base frame, and the pose."""
    p, r, jpos, jaxis = forward_kinematics(chain, q)
    lin = jnp.cross(jaxis, p[None, :] - jpos)
    return jnp.concatenate([lin.T, jaxis.T], axis=0), p, r


def pose_error(p, r, p_target, r_target):
    """(6,) error [p_target - p; log(R_target R^T)] in the base frame."""
    return jnp.concatenate([p_target - p, mat_to_axis_angle(r_target @ r.T)])


def solve_ik(
    chain: Chain,
    q0: jnp.ndarray,
    p_target: jnp.ndarray,
    r_target: jnp.ndarray,
    max_iterations: int = 100,
    eps: float = 1e-4,
    dt: float = 0.1,
    damp: float = 1e-6,
):
    """CLIK from q0 (K,) to the target pose; returns (q (K,), success bool)."""
    p_target = jnp.asarray(p_target, q0.dtype)
    r_target = jnp.asarray(r_target, q0.dtype)

    def body(_, carry):
        q, done = carry
        jac, p, r = jacobian(chain, q)
        err = pose_error(p, r, p_target, r_target)
        converged = jnp.linalg.norm(err) < eps
        jjt = jac @ jac.T + damp * jnp.eye(6, dtype=q.dtype)
        dq = jac.T @ jnp.linalg.solve(jjt, err)
        stop = done | converged
        return jnp.where(stop, q, q + (dt * dq).astype(q.dtype)), stop

    q, done = jax.lax.fori_loop(0, max_iterations, body, (q0, jnp.array(False)))
    # The original checks convergence before each update; check the final iterate too.
    _, p, r = jacobian(chain, q)
    done = done | (jnp.linalg.norm(pose_error(p, r, p_target, r_target)) < eps)
    return q, done


def apply_delta_align(p, r, delta_pos, delta_rotvec):
    """`ee_align`: rotation pre-multiplied about base axes, translation added in the base frame."""
    return p + delta_pos, axis_angle_to_mat(delta_rotvec) @ r
