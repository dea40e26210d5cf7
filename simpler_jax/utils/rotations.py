"""Rotation helpers in JAX (quaternions wxyz, matrices act on column vectors)."""

from __future__ import annotations

import jax.numpy as jnp


def quat_to_mat(q: jnp.ndarray) -> jnp.ndarray:
    """(..., 4) wxyz -> (..., 3, 3)."""
    q = q / jnp.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return jnp.stack(
        [
            jnp.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            jnp.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            jnp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def mat_to_quat(m: jnp.ndarray) -> jnp.ndarray:
    """(..., 3, 3) -> (..., 4) wxyz with w >= 0 (branch-free, via the largest component)."""
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    cands = jnp.stack(
        [
            jnp.stack([1 + m00 + m11 + m22, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1),
            jnp.stack([m[..., 2, 1] - m[..., 1, 2], 1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
            jnp.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], 1 - m00 + m11 - m22, m[..., 1, 2] + m[..., 2, 1]], -1),
            jnp.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1 - m00 - m11 + m22], -1),
        ],
        -2,
    )  # (..., 4 candidates, 4)
    diag = jnp.stack([1 + m00 + m11 + m22, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], -1)
    best = jnp.argmax(diag, axis=-1)
    q = jnp.take_along_axis(cands, best[..., None, None], axis=-2)[..., 0, :]
    q = q / jnp.linalg.norm(q, axis=-1, keepdims=True)
    return q * jnp.where(q[..., :1] < 0, -1.0, 1.0)


def axis_angle_to_mat(v: jnp.ndarray) -> jnp.ndarray:
    """Rodrigues: (..., 3) rotation vector -> (..., 3, 3); exact at 0."""
    theta2 = jnp.sum(v * v, axis=-1)[..., None, None]
    theta = jnp.sqrt(jnp.maximum(theta2, 1e-30))
    small = theta2 < 1e-12
    a = jnp.where(small, 1.0 - theta2 / 6.0, jnp.sin(theta) / theta)
    b = jnp.where(small, 0.5 - theta2 / 24.0, (1.0 - jnp.cos(theta)) / jnp.maximum(theta2, 1e-30))
    k = skew(v)
    eye = jnp.broadcast_to(jnp.eye(3, dtype=v.dtype), k.shape)
    return eye + a * k + b * (k @ k)


def mat_to_axis_angle(r: jnp.ndarray) -> jnp.ndarray:
    """Log map (..., 3, 3) -> (..., 3) rotation vector, via the quaternion (stable near 0 and pi)."""
    q = mat_to_quat(r)
    vec = q[..., 1:]
    s = jnp.sqrt(jnp.sum(vec * vec, axis=-1, keepdims=True) + 1e-30)  # finite gradient at 0
    angle = 2.0 * jnp.arctan2(s, q[..., :1])
    scale = jnp.where(s < 1e-12, 2.0, angle / jnp.maximum(s, 1e-12))
    return vec * scale


def skew(v: jnp.ndarray) -> jnp.ndarray:
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    zero = jnp.zeros_like(x)
    return jnp.stack(
        [jnp.stack([zero, -z, y], -1), jnp.stack([z, zero, -x], -1), jnp.stack([-y, x, zero], -1)], -2
    )
