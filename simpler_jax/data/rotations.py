"""Pure-numpy rotation helpers used by the data loaders (batched over leading axes).

Conventions:

* quaternions are scalar-first ``[w, x, y, z]`` unless a name says ``xyzw``;
* ``euler_sxyz`` is transforms3d's default static-axes ``'sxyz'`` order:
  ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` for angles ``(roll, pitch, yaw)``;
* axis-angle ("rotvec") is ``axis * angle`` with ``angle`` in ``[0, pi]``.

All functions return float64 arrays.
"""

from __future__ import annotations

import numpy as np

BRIDGE_DEFAULT_ROTATION = np.array([[0.0, 0.0, 1.0],
                                    [0.0, 1.0, 0.0],
                                    [-1.0, 0.0, 0.0]])
"""WidowX ``DEFAULT_ROTATION`` (= Ry(+90 deg)): a Bridge EE orientation is
``euler_sxyz(roll, pitch, yaw) @ BRIDGE_DEFAULT_ROTATION``; rpy = 0 points the gripper down."""


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def euler_sxyz_to_matrix(rpy) -> np.ndarray:
    """(..., 3) static-axes xyz Euler angles (roll, pitch, yaw) -> (..., 3, 3) matrices."""
    rpy = _f64(rpy)
    r, p, y = rpy[..., 0], rpy[..., 1], rpy[..., 2]
    cr, sr = np.cos(r), np.sin(r)
    cp, sp = np.cos(p), np.sin(p)
    cy, sy = np.cos(y), np.sin(y)
    m = np.empty(rpy.shape[:-1] + (3, 3))
    m[..., 0, 0] = cy * cp
    m[..., 0, 1] = cy * sp * sr - sy * cr
    m[..., 0, 2] = cy * sp * cr + sy * sr
    m[..., 1, 0] = sy * cp
    m[..., 1, 1] = sy * sp * sr + cy * cr
    m[..., 1, 2] = sy * sp * cr - cy * sr
    m[..., 2, 0] = -sp
    m[..., 2, 1] = cp * sr
    m[..., 2, 2] = cp * cr
    return m


def matrix_to_euler_sxyz(m) -> np.ndarray:
    """(..., 3, 3) rotation matrices -> (..., 3) (roll, pitch, yaw), pitch in [-pi/2, pi/2].

    At gimbal lock (|pitch| = pi/2) yaw is set to 0 and roll absorbs the rest.
    """
    m = _f64(m)
    cy = np.hypot(m[..., 0, 0], m[..., 1, 0])
    regular = cy > 1e-12
    roll = np.where(regular, np.arctan2(m[..., 2, 1], m[..., 2, 2]),
                    np.arctan2(-m[..., 1, 2], m[..., 1, 1]))
    pitch = np.arctan2(-m[..., 2, 0], cy)
    yaw = np.where(regular, np.arctan2(m[..., 1, 0], m[..., 0, 0]), 0.0)
    return np.stack([roll, pitch, yaw], axis=-1)


def quat_wxyz_to_matrix(q) -> np.ndarray:
    """(..., 4) quaternions [w, x, y, z] (normalised here) -> (..., 3, 3) matrices."""
    q = _f64(q)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - w * z)
    m[..., 0, 2] = 2 * (x * z + w * y)
    m[..., 1, 0] = 2 * (x * y + w * z)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - w * x)
    m[..., 2, 0] = 2 * (x * z - w * y)
    m[..., 2, 1] = 2 * (y * z + w * x)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def matrix_to_quat_wxyz(m) -> np.ndarray:
    """(..., 3, 3) rotation matrices -> (..., 4) unit quaternions [w, x, y, z] with w >= 0."""
    m = _f64(m)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    tr = m00 + m11 + m22
    # Shepperd: build the quaternion from the largest of 4w^2, 4x^2, 4y^2, 4z^2.
    cands = np.stack([
        np.stack([1 + tr, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                  m[..., 1, 0] - m[..., 0, 1]], -1),
        np.stack([m[..., 2, 1] - m[..., 1, 2], 1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0],
                  m[..., 0, 2] + m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], 1 - m00 + m11 - m22,
                  m[..., 1, 2] + m[..., 2, 1]], -1),
        np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0],
                  m[..., 1, 2] + m[..., 2, 1], 1 - m00 - m11 + m22], -1),
    ], axis=-2)  # (..., 4 candidates, 4)
    pick = np.argmax(np.stack([tr, m00, m11, m22], -1), axis=-1)
    q = np.take_along_axis(cands, pick[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., :1] < 0, -q, q)


def quat_xyzw_to_wxyz(q) -> np.ndarray:
    q = _f64(q)
    return np.concatenate([q[..., 3:4], q[..., :3]], axis=-1)


def quat_wxyz_to_xyzw(q) -> np.ndarray:
    q = _f64(q)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def axis_angle_to_quat_wxyz(v) -> np.ndarray:
    """(..., 3) rotation vectors (axis * angle) -> (..., 4) unit quaternions [w, x, y, z]."""
    v = _f64(v)
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * angle
    small = angle < 1e-8
    # sin(a/2)/a, with its Taylor series near 0
    k = np.where(small, 0.5 - angle**2 / 48.0, np.sin(half) / np.where(small, 1.0, angle))
    return np.concatenate([np.cos(half), v * k], axis=-1)


def quat_wxyz_to_axis_angle(q) -> np.ndarray:
    """(..., 4) quaternions [w, x, y, z] -> (..., 3) rotation vectors with angle in [0, pi]."""
    q = _f64(q)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(q[..., :1] < 0, -q, q)
    w, xyz = q[..., :1], q[..., 1:]
    s = np.linalg.norm(xyz, axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(s, w)
    small = s < 1e-8
    # angle / sin(angle/2) -> 2/w near 0
    k = np.where(small, 2.0 / np.where(w > 0, w, 1.0), angle / np.where(small, 1.0, s))
    return xyz * k


def axis_angle_to_matrix(v) -> np.ndarray:
    """(..., 3) rotation vectors -> (..., 3, 3) matrices."""
    return quat_wxyz_to_matrix(axis_angle_to_quat_wxyz(v))


def matrix_to_axis_angle(m) -> np.ndarray:
    """(..., 3, 3) rotation matrices -> (..., 3) rotation vectors with angle in [0, pi]."""
    return quat_wxyz_to_axis_angle(matrix_to_quat_wxyz(m))


def euler_sxyz_to_axis_angle(rpy) -> np.ndarray:
    """(..., 3) (roll, pitch, yaw) -> (..., 3) rotation vector of Rz(yaw) Ry(pitch) Rx(roll).

    Same rotation as transforms3d ``euler2axangle(roll, pitch, yaw)`` (axis * angle).
    """
    return matrix_to_axis_angle(euler_sxyz_to_matrix(rpy))


def bridge_rpy_to_matrix(rpy) -> np.ndarray:
    """Bridge/WidowX EE orientation: ``euler_sxyz(roll, pitch, yaw) @ BRIDGE_DEFAULT_ROTATION``."""
    return euler_sxyz_to_matrix(rpy) @ BRIDGE_DEFAULT_ROTATION
