"""Move near's flat source is pushed with the closed hand (`scripted.push_waypoints`);
where move near puts its source (`scripted.move_near_place`).

Pure checks of the push geometry, the place point and which move-near objects are pushed; the
pushes themselves, on real MJX physics over move near's grid, are in
benchmarks/RESULTS.md (`benchmarks/tasks.py`; a move-near rollout takes too long
to compile for CI).
"""

import chex
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.tasks import episodes
from simpler_jax.tasks import scripted
from simpler_jax.tasks.object_info import object_info
from simpler_jax.tasks.spec import task_spec
from simpler_jax.utils.rotations_np import quat_to_mat

SRC = np.array([-0.13, 0.19, 0.888])
HALF = np.array([0.05, 0.035, 0.018])  # the sponge turned 90 deg about z
PLACE = np.array([-0.33, 0.25, 0.888])
ANCHOR = np.array([0.02, 0.1, 0.9])
COMMITTED = np.array([-0.3, 0.24, 0.888])
OFFSET = np.array([0.07, -0.01, 0.004])


def _waypoints():
    wps = scripted.push_waypoints(*(jnp.asarray(a, jnp.float32) for a in (SRC, HALF, PLACE, COMMITTED, ANCHOR,
                                                                           OFFSET)))
    chex.assert_shape(wps, (8, 3))
    return np.asarray(wps)


def test_the_push_starts_behind_the_source_low_and_away_from_the_place_point():
    above, behind = _waypoints()[:2]
    toward = (PLACE - SRC)[:2] / np.linalg.norm((PLACE - SRC)[:2])
    back = (behind - SRC)[:2]
    # On the line through the place point and the source, on the far side, clear of
    # the source's xy bounding circle by PUSH_BEHIND.
    np.testing.assert_allclose(back / np.linalg.norm(back), -toward, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(back), np.linalg.norm(HALF[:2]) + scripted.PUSH_BEHIND, atol=1e-5)
    np.testing.assert_allclose(behind[2], SRC[2] - HALF[2] + scripted.PUSH_ABOVE_TABLE, atol=1e-6)
    np.testing.assert_allclose(above, behind + [0, 0, scripted.ABOVE], atol=1e-6)


def test_the_push_ends_with_the_source_at_the_committed_place_point_then_rises():
    wps = _waypoints()
    np.testing.assert_allclose(wps[2:4], [ANCHOR, ANCHOR], atol=1e-6)  # close, lift: stay
    # The anchor moved by the source's planned displacement (from where it was at
    # closing, ANCHOR - OFFSET), plus the hand's gap to the source's near side along it.
    planned = (COMMITTED - (ANCHOR - OFFSET))[:2]
    planned = np.append(planned / np.linalg.norm(planned), 0.0)
    gap = np.linalg.norm(HALF[:2]) + scripted.PUSH_BEHIND - np.abs(planned[:2]) @ HALF[:2]
    assert 0 < gap < np.linalg.norm(HALF[:2]) + scripted.PUSH_BEHIND
    pushed = COMMITTED + OFFSET + gap * planned
    pushed[2] = ANCHOR[2]  # along the table at the height the hand closed at
    np.testing.assert_allclose(wps[4:7], [pushed] * 3, atol=1e-6)  # carry, lower, release
    np.testing.assert_allclose(wps[7], pushed + [0, 0, scripted.PUSH_RISE], atol=1e-6)
    # The phases these waypoints stand in for: the Google carry plan.
    names = [p.name for p in scripted.ROBOT_PLANS["google_robot"]["carry"]]
    assert names == ["above", "descend", "close", "lift", "carry", "lower", "release", "retreat"]


def _world_height(model_id: str, info_file: str) -> float:
    size = np.array(object_info(info_file, model_id).bbox_size)
    rot = quat_to_mat(np.array(episodes.move_near_quat(model_id)))
    return float(np.abs(rot @ np.diag(size)).sum(axis=1)[2])


@pytest.mark.parametrize("task", ["google_robot_move_near_v0", "google_robot_move_near"])
def test_only_the_sponge_is_flat_enough_to_push(task):
    spec = task_spec(task)
    models = {m for e in spec.episodes() for m in e.model_ids}
    flat = {m for m in models if _world_height(m, spec.info_file) < scripted.FLAT_SOURCE}
    assert flat and all("sponge" in m for m in flat), flat
    # The thinnest object carried is well clear of the threshold.
    thick = min(_world_height(m, spec.info_file) for m in models - flat)
    assert thick > scripted.FLAT_SOURCE + 0.01, thick


def test_move_near_place_is_beside_the_target_on_the_source_side_at_its_standing_height():
    src_half = jnp.array([0.03, 0.03, 0.10])  # the standing bottle
    tgt_half = jnp.array([0.033, 0.033, 0.06])  # a standing can
    src = jnp.array([-0.33, 0.04, 1.00])  # carried 4 cm above where it stood
    tgt = jnp.array([-0.33, 0.34, 0.93])
    place = np.asarray(scripted.move_near_place(src, jnp.float32(0.04), tgt, src_half, tgt_half,
                                                jnp.float32(scripted.NEAR_GAP)))
    chex.assert_shape(place, (3,))
    radius = np.hypot(0.03, 0.03) + np.hypot(0.033, 0.033) + scripted.NEAR_GAP
    np.testing.assert_allclose(place[:2], [-0.33, 0.34 - radius], atol=1e-6)  # toward the source
    np.testing.assert_allclose(place[2], 1.00 - 0.04 + scripted.PLACE_GAP, atol=1e-6)
    # The rule's margin (half diagonals + 10 cm) holds with either gap.
    assert scripted.PUSH_GAP < scripted.NEAR_GAP < 0.10
