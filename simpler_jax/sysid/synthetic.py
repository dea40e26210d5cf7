"""Synthetic SysID data: real commands replayed in our simulator with known gains."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from simpler_jax.sysid.batch import EpisodeBatch


def synthetic_batch(sim, batch: EpisodeBatch, true_gains) -> EpisodeBatch:
    """`batch` with its poses replaced by the simulated TCP poses under `true_gains` (2n,).

    Keeps the real commands, masks and IK placements, so a fit can be checked for
    recovering `true_gains`.
    """
    g = jnp.asarray(true_gains, jnp.float32)
    p, r, _ = sim.rollouts(g, batch.action, batch.init_qpos, batch.mask)
    mask = np.asarray(batch.mask)
    p = np.where(mask[..., None], np.asarray(p), 0.0).astype(np.float32)
    r = np.where(mask[..., None, None], np.asarray(r), np.eye(3, dtype=np.float32)).astype(np.float32)
    return batch.replace(position=p, rotation=r)
