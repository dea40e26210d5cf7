"""The original's SysID pose error (SIMPLER_SPEC.md §10.2), pure JAX.

err_t = |p_sim - p_real| + arcsin(min(1, |R_sim - R_real|_F / (2 sqrt 2)));
the rotation term is half the geodesic angle. An episode scores the mean over its
valid steps; the objective is the mean over episodes.
"""

from __future__ import annotations

import jax.numpy as jnp

_ROT_NORM = 2.0 * jnp.sqrt(2.0)


def pose_error(p_sim, r_sim, p_real, r_real):
    """Per-step error. p: (..., 3), r: (..., 3, 3). Returns (...,)."""
    dp = p_sim - p_real
    # sqrt(sum^2 + tiny) keeps the gradient finite where the poses coincide exactly.
    trans = jnp.sqrt(jnp.sum(dp * dp, axis=-1) + 1e-18)
    dr = r_sim - r_real
    fro = jnp.sqrt(jnp.sum(dr * dr, axis=(-2, -1)) + 1e-18)
    rot = jnp.arcsin(jnp.clip(fro / _ROT_NORM, 0.0, 1.0 - 1e-7))
    return trans + rot


def episode_losses(step_errors, mask):
    """Mean of `step_errors` (..., T) over the valid steps `mask` (..., T) -> (...,)."""
    mask = mask.astype(step_errors.dtype)
    return jnp.sum(step_errors * mask, axis=-1) / jnp.maximum(jnp.sum(mask, axis=-1), 1.0)
