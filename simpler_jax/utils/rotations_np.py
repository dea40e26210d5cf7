"""Rotation helpers in NumPy for model building (quaternions are wxyz, as MuJoCo)."""

from __future__ import annotations

import numpy as np

# Quaternion <-> matrix conversions live with the data loaders' rotation helpers.
from simpler_jax.data.rotations import matrix_to_quat_wxyz as mat_to_quat  # noqa: F401
from simpler_jax.data.rotations import quat_wxyz_to_matrix as quat_to_mat  # noqa: F401


def rpy_to_quat(rpy) -> np.ndarray:
    """URDF roll-pitch-yaw (R = Rz(y) Ry(p) Rx(r)) to a wxyz quaternion."""
    r, p, y = (float(v) for v in rpy)
    cr, sr = np.cos(r / 2), np.sin(r / 2)
    cp, sp = np.cos(p / 2), np.sin(p / 2)
    cy, sy = np.cos(y / 2), np.sin(y / 2)
    return np.array(
        [
            cr * cp * cy + sr * sp * sy,
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
        ]
    )


def yaw_quat(yaw: float) -> np.ndarray:
    return np.array([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])
