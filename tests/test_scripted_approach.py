"""The scripted hand's way to its pre-grasp point: the Google move-near hand keeps its
height over bystanders near its path until it is near the source
(`scripted.clear_of_bystanders`).

Pure checks; the grasps themselves, on real MJX physics over move near's grid, are in
benchmarks/RESULTS.md.
"""

import chex
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.tasks import scripted


# Move near's triplet 4 (orange, Pepsi can, Red Bull can), episode 48: the hand starts
# 42 cm from the orange and its straight path passes the 17 cm Red Bull can.
TCP = np.array([-0.07, 0.46, 1.038])
PRE = np.array([-0.33, 0.04, 0.94])  # over the orange
COM = np.array([[-0.33, 0.04, 0.901], [-0.13, 0.04, 0.934], [-0.23, 0.19, 0.935]])  # orange, Pepsi, Red Bull
HALF = np.array([[0.036, 0.036, 0.036], [0.033, 0.033, 0.0615], [0.029, 0.029, 0.086]])
BYSTANDER = np.array([False, True, True])


def _clear(tcp, pre=PRE, com=COM, half=HALF, bystander=BYSTANDER):
    out = scripted.clear_of_bystanders(*(jnp.asarray(a, jnp.float32) for a in (
        tcp, pre, com, com[:, 2] + half[:, 2], np.linalg.norm(half[:, :2], axis=1))), jnp.asarray(bystander))
    chex.assert_shape(out, (3,))
    return np.asarray(out)


def test_far_from_the_source_the_hand_holds_its_height_over_a_tall_can_in_its_way():
    out = _clear(TCP)
    np.testing.assert_allclose(out[:2], PRE[:2], atol=1e-6)  # it still heads for the source
    red_bull_top = COM[2, 2] + HALF[2, 2]
    # The Red Bull's top plus the clearance is above where the hand is: it holds its
    # height, it does not climb.
    assert red_bull_top + scripted.BYSTANDER_CLEARANCE > TCP[2]
    np.testing.assert_allclose(out[2], TCP[2], atol=1e-6)
    # Higher up, it keeps the clearance over the can and no more.
    out = _clear(TCP + [0.0, 0.0, 0.1])
    np.testing.assert_allclose(out[2], red_bull_top + scripted.BYSTANDER_CLEARANCE, atol=1e-6)


def test_bystanders_off_the_path_the_source_and_the_last_stretch_leave_the_point_alone():
    far_away = COM.copy()
    far_away[1:, 0] += 0.5  # both cans well off the straight path
    np.testing.assert_allclose(_clear(TCP, com=far_away), PRE, atol=1e-6)
    # The source itself is never in its own way.
    np.testing.assert_allclose(_clear(TCP, bystander=np.zeros(3, bool)), PRE, atol=1e-6)
    # Within APPROACH_RADIUS (xy) of the point the hand goes down to it.
    near = PRE + [0.0, scripted.APPROACH_RADIUS * 0.9, 0.1]
    np.testing.assert_allclose(_clear(near), PRE, atol=1e-6)
    # Short bystanders: the point is already high enough.
    short = HALF.copy()
    short[1:, 2] = 0.01
    com = COM.copy()
    com[1:, 2] = 0.875
    np.testing.assert_allclose(_clear(TCP, com=com, half=short), PRE, atol=1e-6)
