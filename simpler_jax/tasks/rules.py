"""SIMPLER's success rules as pure JAX functions of one world (SIMPLER_SPEC.md §2).

Each family's `update_<family>(stats, m, ref, ...)` takes the previous
`EpisodeStats`, this step's `Measurement` and the episode's `EpisodeReference` and
returns the new stats; `stats.success` is SIMPLER's success at this step (the
evaluator reads it at the final step). All thresholds are the original's. The
original's quirks are kept on purpose (§12): move near mixes centres of mass with
frame origins, the grasp family's `lifted_object` also turns on for an object that
leaves every non-robot contact above 1 cm without being grasped, and only the coke
can keeps a sticky count.

Strict success (opt-in, `strict_success`): SIMPLER's success held for the last
`hold_steps` control steps, the source no longer grasped and at rest (COM speed
below `REST_SPEED`); drawers: held, drawer at rest. The grasp family's task is to
hold the object up, so there strict only adds the hold.
"""

from __future__ import annotations

import jax.numpy as jnp

from simpler_jax.tasks.stats import EpisodeReference, EpisodeStats, Measurement

LIFT_HEIGHT = 0.01  # m above the settled height: lifted
LIFT_SIGNIFICANT = 0.02  # m: counts towards n_lift_significant
LIFT_SIGNIFICANT_STEPS = 5
CONSECUTIVE_GRASP_STEPS = 5
MOVE_THRESHOLD = 0.03  # m of xy motion: an object was moved
OTHER_DROP = 0.02  # m: move near, other objects may sink at most this
PAIR_DROP = 0.15  # m: move near, source and target may sink at most this
NEAR_MARGIN = 0.10  # m added to the two half diagonals
CLOSEST_MARGIN = 0.01  # m
XY_MARGIN = 0.003  # m, put on
OPEN_THRESHOLD = 0.15  # m, drawer open
CLOSED_THRESHOLD = 0.05  # m, drawer closed
APPLE_DRAWER_MIN_OPEN = 0.05  # m, place in drawer
DEFAULT_HOLD_STEPS = 3
REST_SPEED = 0.01  # m/s


def _xy_norm(v):
    return jnp.linalg.norm(v[..., :2], axis=-1)


def _grasp_counters(stats: EpisodeStats, grasped) -> dict:
    consecutive = jnp.where(grasped, stats.consecutive_grasp + 1, 0).astype(jnp.int32)
    return dict(
        grasped=grasped, grasped_ever=stats.grasped_ever | grasped, consecutive_grasp=consecutive,
        consec_grasp_ever=stats.consec_grasp_ever | (consecutive >= CONSECUTIVE_GRASP_STEPS),
    )


def _finish(stats: EpisodeStats, success, strict_extra, hold_steps: int, **fields) -> EpisodeStats:
    streak = jnp.where(success, stats.success_streak + 1, 0).astype(jnp.int32)
    strict = success & (streak >= hold_steps) & strict_extra
    return stats.replace(success=success, success_streak=streak, strict_success=strict, **fields)


def _source_released_at_rest(m: Measurement, ref: EpisodeReference):
    return ~m.grasped & (m.object_speed[ref.source] < REST_SPEED)


def _moved(m: Measurement, ref: EpisodeReference):
    """(moved_correct_obj, moved_wrong_obj): xy motion of the source vs the others."""
    move = _xy_norm(ref.settle_pos - m.object_pos)  # (O,)
    src_move = move[ref.source]
    others = jnp.arange(move.shape[0]) != ref.source
    correct = (src_move > MOVE_THRESHOLD) & jnp.all(jnp.where(others, move < src_move, True))
    wrong = jnp.any(others & (move > MOVE_THRESHOLD)) & jnp.any(others & (move > src_move))
    return correct, wrong


def update_grasp(stats: EpisodeStats, m: Measurement, ref: EpisodeReference,
                 hold_steps: int = DEFAULT_HOLD_STEPS) -> EpisodeStats:
    """Pick coke can / pick object (§2.2): lift the grasped object."""
    grasp = _grasp_counters(stats, m.grasped)
    diff = m.object_pos[ref.source, 2] - ref.settle_pos[ref.source, 2]
    lifted = jnp.where(m.grasped, stats.lifted_object, False) | (~m.source_env_contact & (diff > LIFT_HEIGHT))
    significant = lifted & (diff > LIFT_SIGNIFICANT)
    n_sig = (stats.n_lift_significant + significant).astype(jnp.int32)
    success = lifted | (n_sig >= LIFT_SIGNIFICANT_STEPS)
    return _finish(stats, success, jnp.array(True), hold_steps, lifted_object=lifted,
                   n_lift_significant=n_sig, **grasp)


def update_move_near(stats: EpisodeStats, m: Measurement, ref: EpisodeReference,
                     hold_steps: int = DEFAULT_HOLD_STEPS) -> EpisodeStats:
    """Move the source near the target without disturbing the others (§2.3)."""
    grasp = _grasp_counters(stats, m.grasped)
    n = m.object_pos.shape[0]
    idx = jnp.arange(n)
    src, tgt = ref.source, ref.target
    others = (idx != src) & (idx != tgt)
    other_keep = jnp.all(jnp.where(others, m.object_pos[:, 2] - ref.settle_pos[:, 2] > -OTHER_DROP, True))
    keep = (other_keep
            & (m.object_com[src, 2] - ref.settle_pos[src, 2] > -PAIR_DROP)
            & (m.object_com[tgt, 2] - ref.settle_pos[tgt, 2] > -PAIR_DROP))
    correct, wrong = _moved(m, ref)
    half_diag = _xy_norm(ref.bbox_world) / 2  # (O,)
    d_tgt = _xy_norm(m.object_com[src] - m.object_com[tgt])
    near = d_tgt < half_diag[tgt] + half_diag[src] + NEAR_MARGIN
    d_origin = _xy_norm(m.object_com[src][None, :] - m.object_pos)  # (O,)
    closest = jnp.all(jnp.where(idx != src, d_tgt < d_origin + CLOSEST_MARGIN, True))
    success = keep & correct & near & closest
    return _finish(stats, success, _source_released_at_rest(m, ref), hold_steps,
                   all_obj_keep_height=keep, moved_correct_obj=correct, moved_wrong_obj=wrong,
                   near_tgt_obj=near, is_closest_to_tgt=closest, **grasp)


def update_drawer(stats: EpisodeStats, m: Measurement, ref: EpisodeReference, action: str,
                  hold_steps: int = DEFAULT_HOLD_STEPS) -> EpisodeStats:
    """Open (opening >= 0.15 m) or close (<= 0.05 m) the task drawer (§2.4)."""
    if action not in ("open", "close"):
        raise ValueError(f"drawer action {action!r}; allowed: ['open', 'close']")
    qpos = m.drawer_qpos[ref.drawer]
    success = qpos >= OPEN_THRESHOLD if action == "open" else qpos <= CLOSED_THRESHOLD
    at_rest = jnp.abs(m.drawer_speed[ref.drawer]) < REST_SPEED
    return _finish(stats, success, at_rest, hold_steps, drawer_qpos=qpos.astype(jnp.float32))


def update_place_in_drawer(stats: EpisodeStats, m: Measurement, ref: EpisodeReference, step,
                           forced_advance_step: int = 100,
                           hold_steps: int = DEFAULT_HOLD_STEPS) -> EpisodeStats:
    """Open the top drawer, then put the apple in it (§2.5).

    `step`: control steps done so far in the episode, this one included. The subtask
    advances from 0 to 1 once `step >= forced_advance_step` (the original's forced
    advance; a policy's terminate signal is not part of the 7-D action).
    """
    grasp = _grasp_counters(stats, m.grasped)
    subtask = jnp.where(step >= forced_advance_step, 1, stats.subtask_id).astype(jnp.int32)
    qpos = m.drawer_qpos[ref.drawer]
    has_contact = (stats.has_contact + m.drawer_bottom_contact).astype(jnp.int32)
    success = (subtask == 1) & (qpos >= APPLE_DRAWER_MIN_OPEN) & (has_contact >= 1)
    return _finish(stats, success, _source_released_at_rest(m, ref), hold_steps,
                   drawer_qpos=qpos.astype(jnp.float32), subtask_id=subtask, has_contact=has_contact,
                   is_drawer_open=stats.is_drawer_open | (qpos >= OPEN_THRESHOLD), **grasp)


def update_put_on(stats: EpisodeStats, m: Measurement, ref: EpisodeReference, z_offset: float,
                  require_source_alone: bool, hold_steps: int = DEFAULT_HOLD_STEPS) -> EpisodeStats:
    """Bridge: the source's COM over the target's bbox and just above it (§2.6)."""
    grasp = _grasp_counters(stats, m.grasped)
    src, tgt = ref.source, ref.target
    offset = m.object_com[src] - m.object_com[tgt]
    half_src, half_tgt = ref.bbox_world[src] / 2, ref.bbox_world[tgt] / 2
    xy_flag = _xy_norm(offset) <= _xy_norm(half_tgt) + XY_MARGIN
    z_flag = (offset[2] > 0) & (offset[2] - half_tgt[2] - half_src[2] <= z_offset)
    on = xy_flag & z_flag
    if require_source_alone:
        on = on & ~m.source_foreign_contact
    correct, wrong = _moved(m, ref)
    return _finish(stats, on, _source_released_at_rest(m, ref), hold_steps, src_on_target=on,
                   moved_correct_obj=correct, moved_wrong_obj=wrong, **grasp)


def bbox_world(bbox_size, quat):
    """The original's `bbox_world`: the bbox size vector (3,) rotated by quat (4,) wxyz."""
    from simpler_jax.utils.rotations import quat_to_mat

    return quat_to_mat(jnp.asarray(quat, jnp.float32)) @ jnp.asarray(bbox_size, jnp.float32)
