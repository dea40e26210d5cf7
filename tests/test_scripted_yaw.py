"""The scripted hand's yaw before a grasp (`scripted.yaw_to_close_across`): it closes
across the direction it tilts toward, so the tilt turns the fingers about their closing
axis and their pads stay vertical; which move-near sources the Google hand turns for
while they stand (`scripted.SQUARE_STANDING`, `scripted.ELONGATED`).

Pure checks; the grasps themselves, on real MJX physics over move near's grid, are in
benchmarks/RESULTS.md.
"""

import chex
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.tasks import scripted
from simpler_jax.tasks.object_info import object_info
from simpler_jax.tasks.spec import task_spec


def _yawed(closing, err):
    c, s = np.cos(err), np.sin(err)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ closing


@pytest.mark.parametrize("seed", range(4))
def test_the_turned_closing_axis_is_across_the_tilt_and_the_turn_is_at_most_a_quarter(seed):
    rng = np.random.default_rng(seed)
    closing = np.append(rng.normal(size=2), 0.0)
    closing /= np.linalg.norm(closing)
    toward = rng.normal(size=2) * rng.uniform(0.1, 3.0)  # any length
    err = scripted.yaw_to_close_across(jnp.asarray(closing, jnp.float32), jnp.asarray(toward, jnp.float32))
    chex.assert_shape(err, ())
    assert -np.pi / 2 - 1e-6 <= float(err) < np.pi / 2 + 1e-6
    turned = _yawed(closing, float(err))
    assert abs(turned[:2] @ toward / np.linalg.norm(toward)) < 1e-5
    # The closing axis has no sign: the opposite one needs the same turn.
    flipped = scripted.yaw_to_close_across(jnp.asarray(-closing, jnp.float32), jnp.asarray(toward, jnp.float32))
    np.testing.assert_allclose(float(flipped), float(err), atol=1e-5)


def test_the_google_tilt_then_turns_the_hand_about_its_closing_axis():
    # Standing sources: the Google hand tilts toward base +x (`APPROACH_TILT`).
    toward = np.array([1.0, 0.0])
    closing = np.array([1.0, 0.0, 0.0])  # closing along the tilt: the pads would lean 23 deg
    err = float(scripted.yaw_to_close_across(jnp.asarray(closing, jnp.float32), jnp.asarray(toward, jnp.float32)))
    turned = _yawed(closing, err)
    approach = np.asarray(scripted.ScriptedPolicy._tilted(jnp.asarray(toward), scripted.APPROACH_TILT["google_robot"]))
    # Straight down and the tilted approach both lie across the closing axis, so the
    # tilt is a turn about it and the pads (normal: the closing axis) stay vertical.
    assert abs(turned @ approach) < 1e-5 and abs(turned @ np.array([0.0, 0.0, -1.0])) < 1e-6
    assert abs(turned[2]) < 1e-6


def test_the_google_move_near_hand_turns_for_the_cans_and_bottle_not_the_round_fruit():
    assert ("google_robot", "carry") in scripted.SQUARE_STANDING
    spec = task_spec("google_robot_move_near")
    models = {m for e in spec.episodes() for m in e.model_ids}
    sizes = {m: object_info(spec.info_file, m).bbox_size for m in models}
    ratio = {m: max(size) / min(size) for m, size in sizes.items()}
    elongated = {m for m, r in ratio.items() if r >= scripted.ELONGATED}
    assert any("can" in m for m in elongated) and any("bottle" in m for m in elongated), elongated
    assert not any(f in m for m in elongated for f in ("apple", "orange")), elongated
    # Well clear of the threshold on both sides.
    assert min(ratio[m] for m in elongated) > scripted.ELONGATED + 0.3
    assert max(r for m, r in ratio.items() if m not in elongated) < scripted.ELONGATED - 0.3
