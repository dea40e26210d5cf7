"""Move near's flat source is pushed with the closed hand (`scripted.push_waypoints`).

Pure checks of the push geometry and of which move-near objects are pushed; the
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
    pushed = COMMITTED + OFFSET  # the anchor moved by the source's planned displacement
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
