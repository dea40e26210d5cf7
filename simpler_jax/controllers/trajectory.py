"""Jerk-limited, time-synchronised joint trajectories in pure, fixed-shape JAX.

SIMPLER's Google Robot controller asks Ruckig, at every control step, for a
jerk-limited trajectory of all joints from the current state (position ``p0``,
velocity ``v0``, acceleration 0) to the new target (velocity 0, acceleration
0), with every joint finishing at the same time, and samples it at each physics
substep. This module reproduces that with closed-form profiles and
fixed-iteration bisections, so it runs under ``jax.jit`` / ``jax.vmap`` (over
worlds) in float32 or float64 without data-dependent control flow.

Profile family (one degree of freedom, DOF)
-------------------------------------------
With displacement ``h = target - p0``:

* Phase A: change the velocity from ``v0`` to a peak velocity ``vp`` with a
  symmetric jerk pulse (jerk ``+J``, 0, ``-J``; the acceleration rises to at
  most ``amax`` and returns to 0). For ``d = |vp - v0|``: if ``d >= amax**2/J``
  the pulse saturates, ``Tj = amax/J`` and it lasts ``Ta = Tj + d/amax``;
  otherwise ``Tj = sqrt(d/J)`` and ``Ta = 2*Tj``. Its distance is exactly
  ``(v0 + vp)/2 * Ta``.
* Phase B: cruise at ``vp`` for ``Tv >= 0``.
* Phase C: the same kind of pulse from ``vp`` down to 0 (distance ``vp/2*Td``).

That is at most 7 constant-jerk segments. The problem is first mirrored so the
remaining motion is positive: with ``D0`` the distance of braking straight to
rest, ``s = sign(h - D0)`` and ``(h, v0) <- s*(h, v0)``. After mirroring,
``v0 < 0`` is the overshoot case (too fast to stop before the target: the
phase-A pulse goes through zero velocity, i.e. past the target, stop, come
back). With ``f(vp) = dA + dC`` the minimum-time profile uses the largest
``vp`` in ``[max(v0, 0), vmax]`` with ``f(vp) <= h`` (``f`` is increasing
there), then ``Tv = (h - f)/vp``.

Time synchronisation
--------------------
As Ruckig does by default, all DOFs of a plan share the duration
``T = max_i Tmin_i``. Every other DOF is slowed down by lowering its peak
velocity: its duration ``T(vp)`` decreases strictly in ``vp`` wherever the
profile is feasible (``f(vp) <= h``), so a bisection finds ``T(vp) = T``. When
``v0 > 0`` (after mirroring) and the target lies only a little beyond the
braking distance, braking to a low ``vp`` and braking again covers more
distance than ``h`` for ``vp`` in a middle interval ``(x1, x2)``: the feasible
peak velocities are ``(0, x1]`` (durations ``[T(x1), inf)``) and
``[x2, vp_min_time]`` (durations ``[Tmin, T(x2)]``), found with a ternary search
for the maximum of ``f`` on ``[0, v0]`` and two bisections. The DOF uses the
branch that contains ``T``.

Differences from Ruckig
-----------------------
* Ruckig searches a richer set of profiles (including lowering the
  acceleration instead of the cruise velocity, and profiles whose acceleration
  does not return to zero between phases). Its minimum durations are therefore
  never longer than ours and, for rest-to-rest motions, equal them (both are the
  textbook double-S profile). With a nonzero start velocity our minimum time
  can be slightly longer.
* For a DOF whose requested duration ``T`` falls in the gap
  ``(T(x2), T(x1))`` above (no profile of this family lasts exactly ``T``), we
  do not lengthen the whole plan the way Ruckig's "blocked intervals" do; that
  DOF takes the longest profile not exceeding ``T`` (``vp = x2``), reaches its
  target early and holds it. Likewise a DOF that can only brake to rest exactly
  at its target (``h == D0``) brakes and holds. Check ``Plan.dof_duration``.
* The start acceleration is always taken as 0 (as in SIMPLER's controller
  call); the plan's sampled acceleration at the end of a control step is not
  carried into the next plan.

Numerics
--------
Every quantity is computed with guarded divisions: zero displacement at rest
gives duration 0, and no input produces NaN. A DOF whose remaining distance
after braking is below ~16 eps of its scale counts as degenerate (it brakes,
or stays, and the sampled state snaps to the target at its end). Rounding can
make a synchronised DOF's segment sum exceed ``T`` (in float32 up to ~1 % when
it creeps at a tiny ``vp``, where ``Tv = (h - f)/vp`` is ill-conditioned); its
cruise is then trimmed so that ``dof_duration <= duration`` up to the rounding
of a 7-term sum, at a position error of ``vp * excess`` (the size of the
rounding of ``h - f``), removed by the snap to the target at the end.
Branch decisions are pinned with ``lax.optimization_barrier`` so that XLA
cannot re-evaluate a knife-edge comparison differently in different fusions.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from jax import lax

NUM_SEGMENTS = 7
"""Constant-jerk segments per DOF: pulse A (3), cruise (1), pulse C (3)."""

BISECTION_ITERS = 48
"""Fixed iteration count of every bisection / ternary search (float64-accurate)."""


@struct.dataclass
class JerkLimits:
    """Kinematic limits per DOF; each field is a scalar or an array of shape (D,).

    Attributes:
      vmax: maximum |velocity|, rad/s (or m/s).
      amax: maximum |acceleration|.
      jmax: maximum |jerk|.
    """

    vmax: Any
    amax: Any
    jmax: Any

    def broadcast(self, num_dofs: int, dtype: Any = jnp.float32) -> "JerkLimits":
        """Returns the limits as arrays of shape (num_dofs,) and the given dtype."""
        cast = lambda x: jnp.broadcast_to(jnp.asarray(x, dtype), (num_dofs,))  # noqa: E731
        return JerkLimits(vmax=cast(self.vmax), amax=cast(self.amax), jmax=cast(self.jmax))


GOOGLE_ROBOT_ARM_LIMITS = JerkLimits(vmax=1.5, amax=2.0, jmax=50.0)
"""SIMPLER's Ruckig limits for the Google Robot arm joints."""

GOOGLE_ROBOT_GRIPPER_LIMITS = JerkLimits(vmax=1.0, amax=7.0, jmax=50.0)
"""SIMPLER's Ruckig limits for the Google Robot gripper joints."""


def concat_limits(*parts: tuple[JerkLimits, int], dtype: Any = jnp.float32) -> JerkLimits:
    """Stacks per-group limits, e.g. ``concat_limits((arm, 7), (gripper, 2))`` -> (9,)."""
    groups = [lim.broadcast(n, dtype) for lim, n in parts]
    return JerkLimits(
        vmax=jnp.concatenate([g.vmax for g in groups]),
        amax=jnp.concatenate([g.amax for g in groups]),
        jmax=jnp.concatenate([g.jmax for g in groups]),
    )


@struct.dataclass
class Plan:
    """A synchronised multi-DOF trajectory (D DOFs, 7 constant-jerk segments each).

    Attributes:
      start_pos: (D,) start positions ``p0``.
      start_vel: (D,) start velocities (``v0`` clipped to ``[-vmax, vmax]``).
      target: (D,) target positions (reached at rest).
      seg_durations: (D, 7) segment durations (>= 0).
      jerks: (D, 7) constant jerk of each segment.
      seg_start_time: (D, 7) time at which each segment starts.
      seg_start_pos, seg_start_vel, seg_start_acc: (D, 7) state at segment starts.
      dof_duration: (D,) time at which each DOF reaches its target (sum of its
        segment durations; equals ``duration`` except for DOFs that the profile
        family cannot stretch that far, see the module docstring).
      min_duration: (D,) minimum (unsynchronised) duration of each DOF.
      duration: () synchronised duration ``max(min_duration)``.
    """

    start_pos: jax.Array
    start_vel: jax.Array
    target: jax.Array
    seg_durations: jax.Array
    jerks: jax.Array
    seg_start_time: jax.Array
    seg_start_pos: jax.Array
    seg_start_vel: jax.Array
    seg_start_acc: jax.Array
    dof_duration: jax.Array
    min_duration: jax.Array
    duration: jax.Array


# ----------------------------------------------------------------------------
# Closed-form pieces (elementwise on arrays of shape (D,))
# ----------------------------------------------------------------------------


def _pulse(delta, jmax, amax):
    """Jerk pulse changing the velocity by ``delta >= 0``: (Tj, Tc), total 2*Tj + Tc."""
    delta = jnp.maximum(delta, 0.0)
    saturated = delta * jmax >= amax * amax
    # Double `where` keeps the value exact at 0 and the gradient finite (sqrt'(0) = inf).
    positive = delta > 0
    root = jnp.where(positive, jnp.sqrt(jnp.where(positive, delta, 1.0) / jmax), 0.0)
    tj = jnp.where(saturated, amax / jmax, root)
    tc = jnp.where(saturated, jnp.maximum(delta / amax - amax / jmax, 0.0), 0.0)
    return tj, tc


def _pulse_time(delta, jmax, amax):
    tj, tc = _pulse(delta, jmax, amax)
    return 2.0 * tj + tc


def _ramp_times(vp, v0, lim):
    """Durations of phase A (v0 -> vp) and phase C (vp -> 0)."""
    ta = _pulse_time(jnp.abs(vp - v0), lim.jmax, lim.amax)
    tc = _pulse_time(jnp.abs(vp), lim.jmax, lim.amax)
    return ta, tc


def _ramp_distance(vp, v0, lim):
    """Distance of phases A and C together (no cruise): f(vp)."""
    ta, tc = _ramp_times(vp, v0, lim)
    return 0.5 * (v0 + vp) * ta + 0.5 * vp * tc


def _cruise_time(vp, h, dist, tol):
    """Tv = (h - f)/vp, clamped at 0; +inf where vp == 0 but distance remains."""
    rest = jnp.maximum(h - dist, 0.0)
    pos = vp > 0.0
    tv = rest / jnp.where(pos, vp, 1.0)
    return jnp.where(pos, tv, jnp.where(rest > tol, jnp.inf, 0.0))


def _total_time(vp, v0, h, lim, tol):
    ta, tc = _ramp_times(vp, v0, lim)
    dist = 0.5 * (v0 + vp) * ta + 0.5 * vp * tc
    return ta + tc + _cruise_time(vp, h, dist, tol)


def _bisect(pred, lo, hi):
    """Fixed-count bisection; ``pred(mid)`` True moves ``lo`` up. Returns (lo, hi)."""

    def body(_, carry):
        lo, hi = carry
        mid = 0.5 * (lo + hi)
        ok = pred(mid)
        return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)

    return lax.fori_loop(0, BISECTION_ITERS, body, (lo, hi))


def _argmax_unimodal(fn, lo, hi):
    """Fixed-count ternary search for the maximiser of a unimodal ``fn`` on [lo, hi]."""

    def body(_, carry):
        lo, hi = carry
        third = (hi - lo) / 3.0
        m1, m2 = lo + third, hi - third
        up = fn(m1) < fn(m2)
        return jnp.where(up, m1, lo), jnp.where(up, hi, m2)

    lo, hi = lax.fori_loop(0, BISECTION_ITERS, body, (lo, hi))
    return 0.5 * (lo + hi)


def _segments(vp, v0, h, lim, tol):
    """(durations, jerks) of shape (D, 7) in the mirrored frame."""
    dist = _ramp_distance(vp, v0, lim)
    tv = _cruise_time(vp, h, dist, tol)
    tv = jnp.where(jnp.isfinite(tv), tv, 0.0)
    tja, tca = _pulse(jnp.abs(vp - v0), lim.jmax, lim.amax)
    tjc, tcc = _pulse(jnp.abs(vp), lim.jmax, lim.amax)
    ja = jnp.where(vp >= v0, lim.jmax, -lim.jmax)
    zero = jnp.zeros_like(vp)
    durations = jnp.stack([tja, tca, tja, tv, tjc, tcc, tjc], axis=-1)
    jerks = jnp.stack([ja, zero, -ja, zero, -lim.jmax, zero, lim.jmax], axis=-1)
    return durations, jerks


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


def plan(p0, v0, target, limits: JerkLimits) -> Plan:
    """Plans a time-synchronised jerk-limited trajectory (start acceleration 0).

    Args:
      p0: (D,) start positions.
      v0: (D,) start velocities (clipped to ``[-vmax, vmax]``).
      target: (D,) target positions, reached with velocity and acceleration 0.
      limits: JerkLimits with scalar or (D,) fields.

    Returns:
      Plan (see its docstring). Works under jit/vmap; dtype follows the inputs.
    """
    p0 = jnp.asarray(p0)
    dtype = jnp.result_type(p0, jnp.asarray(v0), jnp.asarray(target), jnp.float32)
    p0 = p0.astype(dtype)
    target = jnp.asarray(target, dtype)
    num_dofs = p0.shape[-1]
    lim = limits.broadcast(num_dofs, dtype)
    v0 = jnp.clip(jnp.asarray(v0, dtype), -lim.vmax, lim.vmax)

    h = target - p0
    brake = _ramp_distance(jnp.zeros_like(v0), v0, lim)  # D0: brake straight to rest
    sgn = jnp.where(h - brake >= 0.0, 1.0, -1.0).astype(dtype)
    hm, v0m = sgn * h, sgn * v0  # mirrored: hm >= D0m
    # Branch decisions (here and below) are pinned with optimization barriers:
    # XLA may otherwise duplicate a comparison into several fusions whose
    # rounding differs (e.g. FMA contraction), so that consumers of the same
    # plan see different branches when h == D0 up to rounding.
    sgn, hm, v0m = lax.optimization_barrier((sgn, hm, v0m))
    eps = jnp.finfo(dtype).eps
    tol = 16.0 * eps * (jnp.abs(hm) + jnp.abs(brake) + 1e-3)

    f = lambda vp: _ramp_distance(vp, v0m, lim)  # noqa: E731
    total = lambda vp: _total_time(vp, v0m, hm, lim, tol)  # noqa: E731

    # Minimum time: largest vp in [max(v0, 0), vmax] with f(vp) <= h (f increasing there).
    vb = jnp.maximum(v0m, 0.0)
    lo, _ = _bisect(lambda vp: f(vp) <= hm, vb, lim.vmax)
    vp_fast = jnp.where(f(lim.vmax) <= hm, lim.vmax, lo)
    t_min = total(vp_fast)
    t_min = jnp.where(jnp.isfinite(t_min), t_min, 0.0)  # unreachable by construction
    vp_fast, t_min = lax.optimization_barrier((vp_fast, t_min))
    t_sync = jnp.max(t_min, axis=-1)

    # Infeasible middle interval (x1, x2) of peak velocities below v0 (v0 > 0 only).
    vm = _argmax_unimodal(f, jnp.zeros_like(v0m), jnp.maximum(v0m, 0.0))
    hump = (v0m > 0.0) & (f(vm) > hm)
    x1, _ = _bisect(lambda vp: f(vp) <= hm, jnp.zeros_like(vm), vm)
    _, x2 = _bisect(lambda vp: f(vp) > hm, vm, jnp.maximum(v0m, vm))
    upper_lo = jnp.where(hump, x2, 0.0)
    hump, x1, upper_lo = lax.optimization_barrier((hump, x1, upper_lo))

    # Synchronise: T(vp) decreases in vp on each feasible branch.
    _, vp_up = _bisect(lambda vp: total(vp) > t_sync, upper_lo, vp_fast)
    vp_up = jnp.where(total(upper_lo) <= t_sync, upper_lo, vp_up)
    _, vp_low = _bisect(lambda vp: total(vp) > t_sync, jnp.zeros_like(x1), x1)
    use_low = hump & (total(upper_lo) < t_sync) & (total(x1) <= t_sync)
    vp = lax.optimization_barrier(jnp.where(use_low, vp_low, vp_up))

    durations, jerks = _segments(vp, v0m, hm, lim, tol)
    # Rounding (float32: Tv = (h - f)/vp is ill-conditioned for a slow creep)
    # can push a DOF slightly past t_sync; trim its cruise so it is done by
    # then. The position error this causes is vp * excess ~ rounding of h - f.
    excess = jnp.maximum(jnp.sum(durations, axis=-1) - t_sync, 0.0)
    durations = durations.at[..., 3].set(jnp.maximum(durations[..., 3] - excess, 0.0))
    jerks = jerks * sgn[..., None]
    durations, jerks = lax.optimization_barrier((durations, jerks))

    # Segment start states (static loop over the 7 segments).
    times, poss, vels, accs = [], [], [], []
    t = jnp.zeros_like(p0)
    p, v, a = p0, v0, jnp.zeros_like(p0)
    for k in range(NUM_SEGMENTS):
        times.append(t)
        poss.append(p)
        vels.append(v)
        accs.append(a)
        tau, j = durations[..., k], jerks[..., k]
        p = p + tau * (v + tau * (a / 2.0 + tau * j / 6.0))
        v = v + tau * (a + tau * j / 2.0)
        a = a + tau * j
        t = t + tau

    return lax.optimization_barrier(Plan(
        start_pos=p0,
        start_vel=v0,
        target=target,
        seg_durations=durations,
        jerks=jerks,
        seg_start_time=jnp.stack(times, axis=-1),
        seg_start_pos=jnp.stack(poss, axis=-1),
        seg_start_vel=jnp.stack(vels, axis=-1),
        seg_start_acc=jnp.stack(accs, axis=-1),
        dof_duration=t,
        min_duration=t_min,
        duration=t_sync,
    ))


def sample(plan: Plan, t):
    """Evaluates a plan at times ``t``.

    Args:
      plan: a Plan for D DOFs.
      t: (K,) times (or a scalar, treated as shape (1,)); clamped to
        ``[0, dof_duration]``, after which each DOF rests at its target.

    Returns:
      (pos, vel, acc), each of shape (K, D).
    """
    t = jnp.atleast_1d(jnp.asarray(t, plan.start_pos.dtype))
    t = jnp.clip(t[:, None], 0.0, plan.dof_duration[None, :])  # (K, D)
    idx = jnp.zeros(t.shape, jnp.int32)
    for k in range(1, NUM_SEGMENTS):
        idx = idx + (t >= plan.seg_start_time[None, :, k]).astype(jnp.int32)
    # One gather of the (start time, p, v, a, jerk) rows of the active segments.
    num_dofs = plan.seg_start_time.shape[-2]
    packed = jnp.stack([plan.seg_start_time, plan.seg_start_pos, plan.seg_start_vel,
                        plan.seg_start_acc, plan.jerks], axis=-1)  # (D, 7, 5)
    flat = idx + NUM_SEGMENTS * jnp.arange(num_dofs, dtype=jnp.int32)[None, :]
    rows = jnp.take(packed.reshape(num_dofs * NUM_SEGMENTS, 5), flat, axis=0,
                    mode="clip")  # (K, D, 5)
    tau = t - rows[..., 0]
    p0, v0, a0, j = rows[..., 1], rows[..., 2], rows[..., 3], rows[..., 4]
    pos = p0 + tau * (v0 + tau * (a0 / 2.0 + tau * j / 6.0))
    vel = v0 + tau * (a0 + tau * j / 2.0)
    acc = a0 + tau * j
    done = t >= plan.dof_duration[None, :]
    pos = jnp.where(done, plan.target[None, :], pos)
    vel = jnp.where(done, 0.0, vel)
    acc = jnp.where(done, 0.0, acc)
    return pos, vel, acc


def plan_substep_targets(p0, v0, target, limits: JerkLimits, dt, num_substeps: int):
    """Plans one control step and samples it at every physics substep.

    Args:
      p0, v0, target: (D,) start positions, start velocities, targets.
      limits: JerkLimits.
      dt: physics substep duration (scalar, may be traced).
      num_substeps: static number of substeps in the control step.

    Returns:
      positions: (num_substeps, D) plan positions at t = k*dt, k = 1..num_substeps.
      velocities: (num_substeps, D) plan velocities at the same times.
      end_position: (D,) plan position at t = num_substeps*dt (clamped to the
        plan's end), the start of the next control step's plan.
      end_velocity: (D,) plan velocity at that time.
    """
    pl = plan(p0, v0, target, limits)
    dtype = pl.start_pos.dtype
    times = jnp.arange(1, num_substeps + 1, dtype=dtype) * jnp.asarray(dt, dtype)
    pos, vel, _ = sample(pl, times)
    return pos, vel, pos[-1], vel[-1]
