"""Gradient refinement of controller gains through the differentiable MJX rollout.

Gains are parameterised as g = g0 * exp(u) (positive, scale-free steps) and u is
descended with optax Adam on the SysID objective. Each control step of the rollout
is rematerialised (`jax.checkpoint`) so memory grows with steps, not substeps.
Unusable gradients stop the refinement with a reason instead of being stepped on:
a non-finite loss or gradient, or a scene with contacts (contact forces make the
gradient of a pose loss dominated by stiff, discontinuous terms; the SysID scene is
contact-free and this is checked).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax


@dataclasses.dataclass(frozen=True)
class GradConfig:
    steps: int = 20
    learning_rate: float = 0.02  # in log-gain units: ~2 % per step at first
    final_learning_rate: float = 0.002  # cosine decay to this (the loss is V-shaped
    # at its minimum -- a sum of norms -- so a constant step would circle it)
    max_log_change: float = 1.0  # |u| bound: gains stay within e^{+-1} of the start


@dataclasses.dataclass(frozen=True)
class GradResult:
    best_gains: np.ndarray  # (2n,)
    best_loss: float
    initial_loss: float
    loss_trace: np.ndarray  # (S,) loss at each evaluated iterate
    grad_norm_trace: np.ndarray  # (S,)
    stopped: str  # why it stopped: 'completed' or the unusable-gradient reason


_COMPILED: dict = {}


def value_and_grad_in_log_gains(objective: Callable) -> Callable:
    """Compiled `(u (2n,), g0 (2n,), *args) -> (loss, d loss / d u)` of
    `objective(g0 * exp(u), *args)`.

    The start gains and the data are arguments, not constants baked into the
    program, so one compiled program serves every refinement (and every check) of
    the same objective and shapes; memoised per objective.
    """
    if objective not in _COMPILED:
        def loss_of_u(u, g0, *args):
            return objective(g0 * jnp.exp(u), *args)

        _COMPILED[objective] = jax.jit(jax.value_and_grad(loss_of_u))
    return _COMPILED[objective]


def refine(objective: Callable, gains0: np.ndarray, config: GradConfig,
           progress: Callable[[int], None] | None = None, args: tuple = ()) -> GradResult:
    """Descend `objective(gains (2n,), *args) -> ()` from `gains0`; keep the best iterate."""
    g0 = jnp.asarray(gains0, jnp.float32)
    value_and_grad = value_and_grad_in_log_gains(objective)
    schedule = optax.cosine_decay_schedule(
        config.learning_rate, max(config.steps, 1), config.final_learning_rate / config.learning_rate)
    opt = optax.adam(schedule)
    u = jnp.zeros_like(g0)
    opt_state = opt.init(u)
    losses, norms = [], []
    best_u, best_l = u, np.inf
    stopped = "completed"
    for k in range(config.steps):
        value, grad = value_and_grad(u, g0, *args)
        value = float(value)
        gnorm = float(jnp.linalg.norm(grad))
        losses.append(value)
        norms.append(gnorm)
        if progress is not None:
            progress(1)
        if not np.isfinite(value):
            stopped = f"non-finite loss at gradient step {k}"
            break
        if not np.isfinite(gnorm):
            stopped = f"non-finite gradient at gradient step {k} (loss {value:.6g})"
            break
        if value < best_l:
            best_u, best_l = u, value
        updates, opt_state = opt.update(grad, opt_state, u)
        u = jnp.clip(optax.apply_updates(u, updates), -config.max_log_change, config.max_log_change)
    return GradResult(
        best_gains=np.asarray(g0 * jnp.exp(best_u), np.float64),
        best_loss=float(best_l), initial_loss=float(losses[0]) if losses else float("nan"),
        loss_trace=np.asarray(losses), grad_norm_trace=np.asarray(norms), stopped=stopped,
    )
