"""Tests for simpler_jax.controllers.trajectory (jerk-limited synchronised plans)."""

import simpler_jax  # noqa: F401  (XLA flags before jax)

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.controllers import trajectory as tr

ARM = tr.GOOGLE_ROBOT_ARM_LIMITS
NDOF = 9
LIMITS9 = tr.concat_limits((ARM, 7), (tr.GOOGLE_ROBOT_GRIPPER_LIMITS, 2))
GRID = 2001  # samples over [0, 1.05 T]


def _plan_and_sample(p0, v0, target, limits):
    """Plan plus samples on a fine grid over [0, 1.05 * duration]."""
    pl = tr.plan(p0, v0, target, limits)
    ts = jnp.linspace(0.0, 1.05, GRID, dtype=pl.start_pos.dtype) * pl.duration
    pos, vel, acc = tr.sample(pl, ts)
    return pl, ts, pos, vel, acc


PLAN = jax.jit(tr.plan)
SAMPLE = jax.jit(tr.sample)
PLAN_SAMPLE = jax.jit(_plan_and_sample)
BATCH_PLAN_SAMPLE = jax.jit(jax.vmap(_plan_and_sample, in_axes=(0, 0, 0, None)))
BATCH_PLAN = jax.jit(jax.vmap(tr.plan, in_axes=(0, 0, 0, None)))
# One plan per DOF (D = 1), mapped over the DOFs: the unsynchronised durations.
SINGLE_DOF_DURATIONS = jax.jit(
    jax.vmap(lambda p, v, t, lim: tr.plan(p[None], v[None], t[None], lim).duration)
)
SUBSTEPS = jax.jit(tr.plan_substep_targets, static_argnums=(5,))


def _limits_np():
    lim = LIMITS9  # all values are exact in float32
    return (np.asarray(lim.vmax, np.float64), np.asarray(lim.amax, np.float64),
            np.asarray(lim.jmax, np.float64))


def _random_cases(seed, n, dtype=np.float32, move=1.0):
    rng = np.random.default_rng(seed)
    vmax = _limits_np()[0]
    p0 = rng.uniform(-1.0, 1.0, (n, NDOF))
    v0 = rng.uniform(-1.0, 1.0, (n, NDOF)) * vmax
    target = p0 + rng.uniform(-move, move, (n, NDOF))
    return p0.astype(dtype), v0.astype(dtype), target.astype(dtype)


def _integrated_end(pl):
    """End state from the plan's last segment, without sample()'s snap to target."""
    p, v, a, j, tau = (np.asarray(x, np.float64)[..., -1] for x in (
        pl.seg_start_pos, pl.seg_start_vel, pl.seg_start_acc, pl.jerks, pl.seg_durations))
    return p + v * tau + a * tau**2 / 2 + j * tau**3 / 6, v + a * tau + j * tau**2 / 2


def _check_limits(ts, pos, vel, acc, jerk_rtol=1e-2, jerk_atol=0.0):
    vmax, amax, jmax = _limits_np()
    ts, pos, vel, acc = (np.asarray(x, np.float64) for x in (ts, pos, vel, acc))
    assert np.all(np.isfinite(pos)) and np.all(np.isfinite(vel)) and np.all(np.isfinite(acc))
    assert np.all(np.abs(vel) <= vmax * (1 + 1e-4)), np.abs(vel).max(axis=-2)
    assert np.all(np.abs(acc) <= amax * (1 + 1e-4)), np.abs(acc).max(axis=-2)
    dt = np.diff(ts, axis=-1)[..., None]
    jerk_fd = np.diff(acc, axis=-2) / dt
    assert np.all(np.abs(jerk_fd) <= jmax * (1 + jerk_rtol) + jerk_atol), np.abs(jerk_fd).max()


# ----------------------------------------------------------------------------


def test_random_plans_reach_target_within_limits_float32():
    p0, v0, target = _random_cases(0, 16)
    pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
    pos_end, vel_end = _integrated_end(pl)
    # Integration of the 7 segments lands on the target at rest (float32 rounding).
    np.testing.assert_allclose(pos_end, target, atol=2e-5)
    np.testing.assert_allclose(vel_end, 0.0, atol=2e-5)
    # After the end the sampled state is the target at rest.
    np.testing.assert_array_equal(np.asarray(pos[:, -1]), target)
    np.testing.assert_array_equal(np.asarray(vel[:, -1]), 0.0)
    np.testing.assert_array_equal(np.asarray(acc[:, -1]), 0.0)
    _check_limits(ts, pos, vel, acc)
    # Starts at the start state (acceleration 0).
    np.testing.assert_allclose(pos[:, 0], p0, atol=1e-6)
    np.testing.assert_allclose(vel[:, 0], v0, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(acc[:, 0]), 0.0)
    # No jumps anywhere on the grid (includes the snap to target at the end).
    vmax = _limits_np()[0]
    dpos = np.abs(np.diff(np.asarray(pos, np.float64), axis=1))
    dt = np.asarray(ts[:, 1] - ts[:, 0], np.float64)[:, None, None]
    assert np.all(dpos <= vmax * dt * (1 + 1e-3) + 2e-5)


def test_float64_consistency_and_precision():
    with jax.enable_x64(True):
        p0, v0, target = _random_cases(1, 16, dtype=np.float64)
        pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
        assert pos.dtype == jnp.float64 and pl.duration.dtype == jnp.float64
    pos_end, vel_end = _integrated_end(pl)
    np.testing.assert_allclose(pos_end, target, atol=1e-10)
    np.testing.assert_allclose(vel_end, 0.0, atol=1e-10)
    _check_limits(ts, pos, vel, acc, jerk_rtol=1e-6, jerk_atol=1e-6)
    ts, pos, vel, acc = (np.asarray(x) for x in (ts, pos, vel, acc))
    dt = (ts[:, 1] - ts[:, 0])[:, None, None]
    # Position/velocity/acceleration are mutually consistent (trapezoid rule:
    # error <= dt^2 * max|jerk| / 12 for C1 velocity; acceleration has kinks,
    # error <= dt * max|jerk| / 4 on intervals containing a kink).
    jmax = _limits_np()[2].max()
    err_pos = np.abs(np.diff(pos, axis=1) / dt - (vel[:, 1:] + vel[:, :-1]) / 2)
    err_vel = np.abs(np.diff(vel, axis=1) / dt - (acc[:, 1:] + acc[:, :-1]) / 2)
    assert np.all(err_pos <= dt**2 * jmax / 12 * (1 + 1e-3) + 1e-9), err_pos.max()
    assert np.all(err_vel <= dt * jmax / 4 * (1 + 1e-3) + 1e-9), err_vel.max()


def test_synchronisation_duration_is_max_of_individual_minimum_durations():
    p0, v0, target = _random_cases(2, 16)
    pl = BATCH_PLAN(p0, v0, target, LIMITS9)
    lim = LIMITS9
    single = np.stack([
        np.asarray(SINGLE_DOF_DURATIONS(p0[i], v0[i], target[i], lim)) for i in range(len(p0))
    ])
    np.testing.assert_allclose(pl.min_duration, single, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(pl.duration, single.max(axis=1), rtol=1e-6)
    # No DOF outlasts the plan; nearly all finish exactly with it (the rest hit
    # the documented gap of the profile family and finish early, at rest).
    dur = np.asarray(pl.duration)[:, None]
    assert np.all(np.asarray(pl.dof_duration) <= dur * (1 + 1e-5))
    synced = np.abs(np.asarray(pl.dof_duration) - dur) <= 1e-5 * dur
    assert synced.mean() > 0.9, synced.mean()


def test_rest_to_rest_all_dofs_finish_together():
    p0, _, target = _random_cases(3, 16)
    v0 = np.zeros_like(p0)
    pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
    dur = np.asarray(pl.duration)[:, None]
    np.testing.assert_allclose(pl.dof_duration, np.broadcast_to(dur, p0.shape), rtol=1e-5)
    # Seen through sampling: every DOF still moves just before T and rests after.
    ts = np.asarray(ts)
    moving_late = np.abs(np.asarray(vel)) > 0
    last_moving = np.where(moving_late, ts[:, :, None], 0.0).max(axis=1)
    np.testing.assert_allclose(last_moving, np.broadcast_to(dur, p0.shape), rtol=2e-3)
    _check_limits(ts, pos, vel, acc)


@pytest.mark.parametrize("h", [3.0, -3.0, 0.5, 0.004])
def test_rest_to_rest_double_s_closed_form(h):
    vmax, amax, jmax = 1.5, 2.0, 50.0
    if abs(h) == 3.0:
        # Reaches vmax and amax: T = h/vmax + vmax/amax + amax/jmax.
        assert abs(h) >= vmax * (vmax / amax + amax / jmax)
        expected = 3.0 / 1.5 + 1.5 / 2.0 + 2.0 / 50.0  # = 2.79
    elif h == 0.5:
        # Reaches amax but not vmax: each ramp lasts amax/jmax + vp/amax with
        # vp^2/amax + vp*amax/jmax = h.
        b = amax / jmax
        vp = amax * (-b + np.sqrt(b * b + 4.0 * h / amax)) / 2.0
        assert vp < vmax and vp > amax**2 / jmax
        expected = 2.0 * (amax / jmax + vp / amax)
    else:
        # Reaches neither: h = 2 * jmax * Tj^3, T = 4 * Tj.
        assert h < 2.0 * amax**3 / jmax**2
        expected = 4.0 * (h / (2.0 * jmax)) ** (1.0 / 3.0)  # = 0.1368...
    pl = PLAN(jnp.zeros(1), jnp.zeros(1), jnp.full((1,), h), ARM)
    np.testing.assert_allclose(float(pl.duration), expected, rtol=2e-6)
    np.testing.assert_allclose(float(pl.dof_duration[0]), expected, rtol=2e-6)


def test_minimum_time_is_optimal_within_profile_family():
    """Brute force over the peak velocity (numpy, float64) agrees with the bisection."""
    p0, v0, target = _random_cases(4, 1)
    with jax.enable_x64(True):
        pl = PLAN(p0[0].astype(np.float64), v0[0].astype(np.float64),
                  target[0].astype(np.float64), LIMITS9)
    vmax, amax, jmax = _limits_np()

    def pulse(d, j, a):
        return np.where(d >= a * a / j, a / j + d / a, 2 * np.sqrt(d / j))

    for i in range(NDOF):
        v, h = float(v0[0, i]), float(target[0, i] - p0[0, i])
        d0 = v / 2 * pulse(abs(v), jmax[i], amax[i])
        s = 1.0 if h >= d0 else -1.0
        v, h = s * v, s * h
        vp = np.linspace(0.0, vmax[i], 200001)[1:]
        ta, tc = pulse(np.abs(vp - v), jmax[i], amax[i]), pulse(vp, jmax[i], amax[i])
        dist = (v + vp) / 2 * ta + vp / 2 * tc
        ok = dist <= h
        best = (ta + tc + (h - dist) / vp)[ok].min()
        assert float(pl.min_duration[i]) <= best + 1e-9
        assert float(pl.min_duration[i]) >= best - 1e-4


def test_consecutive_control_steps_are_continuous():
    """SIMPLER-like: 3 Hz control, 513 Hz physics, each plan starts at the last end state."""
    dt, n_sub = 1.0 / 513.0, 171
    rng = np.random.default_rng(5)
    pos = np.zeros(NDOF, np.float32)
    vel = np.zeros(NDOF, np.float32)
    seq_p, seq_v = [pos], [vel]
    for _ in range(12):
        target = (pos + rng.uniform(-0.4, 0.4, NDOF)).astype(np.float32)
        ps, vs, pos, vel = SUBSTEPS(pos, vel, target, LIMITS9, dt, n_sub)
        chex.assert_shape([ps, vs], (n_sub, NDOF))
        chex.assert_shape([pos, vel], (NDOF,))
        np.testing.assert_array_equal(np.asarray(ps[-1]), np.asarray(pos))
        seq_p.append(np.asarray(ps))
        seq_v.append(np.asarray(vs))
    p = np.vstack([np.atleast_2d(x) for x in seq_p]).astype(np.float64)
    v = np.vstack([np.atleast_2d(x) for x in seq_v]).astype(np.float64)
    vmax, amax, _ = _limits_np()
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(v))
    assert np.all(np.abs(np.diff(p, axis=0)) <= vmax * dt * (1 + 1e-3) + 1e-5)
    assert np.all(np.abs(np.diff(v, axis=0)) <= amax * dt * (1 + 1e-3) + 1e-5)
    assert np.all(np.abs(v) <= vmax * (1 + 1e-4))
    # The plans were cut mid-motion (nonzero end velocities carried over).
    assert np.abs(v[n_sub::n_sub]).max() > 0.1


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_overshoot_comes_back_to_target(sign):
    # Full speed towards a target 0.1 rad away: braking needs ~0.59 rad.
    p0 = jnp.zeros(NDOF)
    v0 = jnp.full((NDOF,), 1.0 * sign)
    target = jnp.full((NDOF,), 0.1 * sign)
    pl, ts, pos, vel, acc = PLAN_SAMPLE(p0, v0, target, LIMITS9)
    pos_end, vel_end = _integrated_end(pl)
    np.testing.assert_allclose(pos_end, target, atol=2e-5)
    np.testing.assert_allclose(vel_end, 0.0, atol=2e-5)
    _check_limits(ts, pos, vel, acc)
    overshoot = sign * (np.asarray(pos) - np.asarray(target))
    assert np.all(overshoot.max(axis=0)[:7] > 0.15)  # arm went past the target ...
    assert np.all(overshoot.max(axis=0)[7:] > 0.03)  # (gripper: amax 7 brakes sooner)
    np.testing.assert_allclose(pos[-1], target)  # ... and came back


def _braking_distance(v0, amax, jmax):
    d = np.abs(v0)
    t = np.where(d * jmax >= amax**2, amax / jmax + d / amax, 2 * np.sqrt(d / jmax))
    return v0 / 2 * t


def test_target_at_braking_distance_is_consistent_when_fused_with_sampling():
    """h == D0 up to rounding: the mirroring decision sits on a knife edge.

    A development version without optimization barriers let XLA duplicate
    that comparison into fusions with different rounding, so sampled jerk
    signs disagreed with segment start states (|v| reached 1.5 vmax). Whether
    that shows depends on how XLA fuses the graph, so this is a guard, not a
    reliable reproducer; see also test_edge_case_fuzz.
    """
    rng = np.random.default_rng(8)
    _, amax, jmax = _limits_np()
    vmax = _limits_np()[0]
    p0 = rng.uniform(-1.0, 1.0, (16, NDOF))
    v0 = rng.uniform(-1.0, 1.0, (16, NDOF)) * vmax
    target = p0 + _braking_distance(v0, amax, jmax)
    p0, v0, target = (x.astype(np.float32) for x in (p0, v0, target))
    pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
    _check_limits(ts, pos, vel, acc)
    pos_end, vel_end = _integrated_end(pl)
    np.testing.assert_allclose(pos_end, target, atol=2e-5)
    np.testing.assert_allclose(vel_end, 0.0, atol=2e-5)
    dpos = np.abs(np.diff(np.asarray(pos, np.float64), axis=1))
    dt = np.asarray(ts[:, 1] - ts[:, 0], np.float64)[:, None, None]
    assert np.all(dpos <= vmax * dt * (1 + 1e-3) + 2e-5)


@pytest.mark.parametrize("seed", [10, 11, 12, 13])
def test_edge_case_fuzz(seed):
    """Mixed edge cases: rest, |v0| = vmax, h = 0, h == D0, h ~ D0, tiny v0, h over 1e-8..10."""
    rng = np.random.default_rng(seed)
    vmax, amax, jmax = _limits_np()
    shape = (16, NDOF)
    kind = rng.integers(0, 6, shape)
    v0 = rng.uniform(-1.0, 1.0, shape) * vmax
    v0 = np.where(kind == 0, 0.0, v0)
    v0 = np.where(kind == 1, np.sign(rng.normal(size=shape)) * vmax, v0)
    v0 = np.where(kind == 5, rng.uniform(-1e-6, 1e-6, shape), v0)
    h = rng.normal(size=shape) * 10.0 ** rng.uniform(-8, 1, shape)
    d0 = _braking_distance(v0, amax, jmax)
    h = np.where(kind == 2, 0.0, h)
    h = np.where(kind == 3, d0 * (1 + rng.normal(size=shape) * 10.0 ** rng.uniform(-7, -1, shape)), h)
    h = np.where(kind == 4, d0, h)
    p0 = rng.uniform(-1.0, 1.0, shape)
    p0, v0, target = (x.astype(np.float32) for x in (p0, v0, p0 + h))
    pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
    chex.assert_tree_all_finite(pl)
    _check_limits(ts, pos, vel, acc)
    pos_end, vel_end = _integrated_end(pl)
    np.testing.assert_allclose(pos_end, target, atol=2e-5, rtol=1e-6)
    np.testing.assert_allclose(vel_end, 0.0, atol=2e-5)
    np.testing.assert_array_equal(np.asarray(pos[:, -1]), target)
    dur = np.asarray(pl.duration, np.float64)[:, None]
    assert np.all(np.asarray(pl.dof_duration) <= dur * (1 + 1e-6) + 1e-7)
    dpos = np.abs(np.diff(np.asarray(pos, np.float64), axis=1))
    dt = np.asarray(ts[:, 1] - ts[:, 0], np.float64)[:, None, None]
    assert np.all(dpos <= vmax * dt * (1 + 1e-3) + 2e-5)


def test_zero_displacement_is_zero_duration_and_finite():
    z = jnp.zeros(NDOF)
    p0 = jnp.linspace(-1.0, 1.0, NDOF)
    pl = PLAN(p0, z, p0, LIMITS9)
    assert float(pl.duration) == 0.0
    np.testing.assert_array_equal(np.asarray(pl.dof_duration), 0.0)
    for leaf in jax.tree_util.tree_leaves(pl):
        assert np.all(np.isfinite(np.asarray(leaf)))
    pos, vel, acc = SAMPLE(pl, jnp.linspace(0.0, 1.0, 7))
    np.testing.assert_array_equal(np.asarray(pos), np.broadcast_to(p0, (7, NDOF)))
    np.testing.assert_array_equal(np.asarray(vel), 0.0)
    ps, vs, pe, ve = SUBSTEPS(p0, z, p0, LIMITS9, 0.01, 5)
    np.testing.assert_array_equal(np.asarray(ps), np.broadcast_to(p0, (5, NDOF)))
    np.testing.assert_array_equal(np.asarray(ve), 0.0)


def test_resting_dofs_stay_put_while_others_move():
    p0 = jnp.zeros(NDOF)
    target = jnp.zeros(NDOF).at[0].set(1.0).at[8].set(-0.02)
    pl, ts, pos, vel, acc = PLAN_SAMPLE(p0, jnp.zeros(NDOF), target, LIMITS9)
    assert float(pl.duration) > 0.0
    np.testing.assert_array_equal(np.asarray(pos[:, 1:8]), 0.0)
    np.testing.assert_array_equal(np.asarray(vel[:, 1:8]), 0.0)
    np.testing.assert_allclose(np.asarray(pl.dof_duration)[[0, 8]], pl.duration, rtol=1e-5)
    _check_limits(ts, pos, vel, acc)


def _rest_to_rest_displacement(duration, vmax=1.5, amax=2.0, jmax=50.0):
    """Displacement whose rest-to-rest double-S profile lasts `duration` (amax reached)."""
    vp = (duration / 2 - amax / jmax) * amax
    if vp <= vmax:
        return vp**2 / amax + vp * amax / jmax
    return (duration - vmax / amax - amax / jmax) * vmax


def test_moving_dof_slowed_below_its_start_velocity():
    """DOF 0 moves at v0 = 1 rad/s towards a target 0.02 rad beyond its braking distance.

    Its minimum time is 0.5599 s. DOF 1 (rest to rest) sets the synchronised
    duration T. Peak velocities between x1 ~ 0.5 and x2 ~ 0.993 rad/s overshoot
    the target (brake, cruise, brake covers too much), so this family lasts
    either <= T(x2) = 0.5602 s (upper branch) or >= T(x1) = 0.58 s (low branch:
    brake to a creep). For T in the gap DOF 0 arrives early (at T(x2)) and holds.
    """
    t_dof1 = np.array([0.50, 0.5600, 0.5601, 0.563, 0.565, 0.57, 0.575, 0.578,
                       0.582, 0.59, 0.6, 0.7, 1.0, 1.5, 2.0, 3.0])
    n = len(t_dof1)
    v0 = np.zeros((n, NDOF), np.float32)
    v0[:, 0] = 1.0
    d0 = 1.0 / 2 * (2.0 / 50.0 + 1.0 / 2.0)  # braking distance from 1 rad/s
    target = np.zeros((n, NDOF), np.float32)
    target[:, 0] = d0 + 0.02
    target[:, 1] = [_rest_to_rest_displacement(t) for t in t_dof1]
    p0 = np.zeros((n, NDOF), np.float32)
    pl, ts, pos, vel, acc = BATCH_PLAN_SAMPLE(p0, v0, target, LIMITS9)
    np.testing.assert_allclose(pl.min_duration[:, 1], t_dof1, rtol=1e-5)
    np.testing.assert_allclose(pl.min_duration[:, 0], 0.559881, rtol=1e-5)
    pos_end, vel_end = _integrated_end(pl)
    np.testing.assert_allclose(pos_end[:, :2], target[:, :2], atol=2e-5)
    np.testing.assert_allclose(vel_end[:, :2], 0.0, atol=2e-5)
    _check_limits(ts, pos, vel, acc)
    dur, dof0 = np.asarray(pl.duration), np.asarray(pl.dof_duration[:, 0])
    np.testing.assert_allclose(dur, np.maximum(t_dof1, 0.559881), rtol=1e-5)
    in_gap = (t_dof1 > 0.5603) & (t_dof1 < 0.5799)
    np.testing.assert_allclose(dof0[~in_gap], dur[~in_gap], rtol=1e-5)
    np.testing.assert_allclose(dof0[in_gap], 0.560212, rtol=1e-5)  # early, at T(x2)
    # Long T: DOF 0 brakes to a creep and never reverses.
    vel0 = np.asarray(vel[-1, :, 0])
    assert vel0.min() >= -1e-6 and np.median(vel0) < 0.1


def test_vmap_over_worlds_matches_single_calls():
    p0, v0, target = _random_cases(6, 8)
    batched = BATCH_PLAN(p0, v0, target, LIMITS9)
    for w in range(8):
        single = PLAN(p0[w], v0[w], target[w], LIMITS9)
        for a, b in zip(jax.tree_util.tree_leaves(single), jax.tree_util.tree_leaves(batched)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b)[w], rtol=1e-6, atol=1e-6)


def test_substep_helper_shapes_and_values_under_vmap():
    p0, v0, target = _random_cases(7, 8)
    dt, n_sub = 0.01, 25
    fn = jax.jit(jax.vmap(tr.plan_substep_targets, in_axes=(0, 0, 0, None, None, None)),
                 static_argnums=(5,))
    ps, vs, pe, ve = fn(p0, v0, target, LIMITS9, dt, n_sub)
    chex.assert_shape([ps, vs], (8, n_sub, NDOF))
    chex.assert_shape([pe, ve], (8, NDOF))
    chex.assert_tree_all_finite((ps, vs, pe, ve))
    pl = PLAN(p0[3], v0[3], target[3], LIMITS9)
    times = jnp.minimum(jnp.arange(1, n_sub + 1) * dt, pl.duration)
    pos, vel, _ = SAMPLE(pl, times)
    np.testing.assert_allclose(ps[3], pos, atol=1e-6)
    np.testing.assert_allclose(vs[3], vel, atol=1e-6)
    np.testing.assert_allclose(pe[3], pos[-1], atol=1e-6)
    np.testing.assert_allclose(ve[3], vel[-1], atol=1e-6)
