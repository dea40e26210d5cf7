"""The scripted policy's geometry, as pure functions (no physics, no compile).

Move near sets its source down beside the target, at the height it stood at."""

import chex
import jax.numpy as jnp
import numpy as np

from simpler_jax.tasks.scripted import PLACE_GAP, move_near_place


def test_move_near_place_is_beside_the_target_on_the_source_side():
    src_half = jnp.array([0.03, 0.04, 0.10])
    tgt_half = jnp.array([0.03, 0.03, 0.06])
    src = jnp.array([-0.33, 0.04, 1.00])  # carried 6 cm above where it stood
    tgt = jnp.array([-0.33, 0.34, 0.93])
    place = move_near_place(src, jnp.float32(0.06), tgt, src_half, tgt_half)
    chex.assert_shape(place, (3,))
    gap = 0.05 + np.hypot(0.03, 0.03) + 0.02  # xy half diagonals plus 2 cm
    np.testing.assert_allclose(place[:2], [-0.33, 0.34 - gap], atol=1e-6)  # toward the source (-y)
    # Its centre of mass where it stood (1.00 - 0.06), PLACE_GAP up: set down, not dropped.
    np.testing.assert_allclose(place[2], 0.94 + PLACE_GAP, atol=1e-6)


def test_move_near_place_height_does_not_follow_the_carry():
    src_half = tgt_half = jnp.array([0.03, 0.03, 0.06])
    tgt = jnp.array([0.2, 0.0, 0.9])
    heights = [move_near_place(jnp.array([0.0, 0.0, 0.9 + lift]), jnp.float32(lift), tgt, src_half, tgt_half)[2]
               for lift in (0.0, 0.02, 0.07)]
    np.testing.assert_allclose(heights, 0.9 + PLACE_GAP, atol=1e-6)
    # The source at the target's xy has no side: the target's xy, finite (no NaN).
    same = move_near_place(tgt, jnp.float32(0.0), tgt, src_half, tgt_half)
    np.testing.assert_allclose(same[:2], tgt[:2], atol=1e-6)
