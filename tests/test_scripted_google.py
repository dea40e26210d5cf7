"""Issue 3's reduced-grid check on the Google Robot: the scripted policy picks lying
coke cans through the 7-D action only; the zero action scores nothing.

Episodes 0 (horizontal: the can lies across the robot's view) and 37 (vertical: it
points at the robot), whole 80-step episodes of one compiled 2-world rollout, run
once scripted and once with the zero action. The full grids are in
benchmarks/RESULTS.md (`benchmarks/tasks.py`).
"""

import chex
import jax
import numpy as np

from simpler_jax.tasks.env import TaskEnv
from simpler_jax.tasks.rollout import make_rollout

EPISODES = [0, 37]


def test_scripted_policy_lifts_lying_coke_cans():
    env = TaskEnv("google_robot_pick_coke_can")
    run = make_rollout(env)
    params = env.episode_params(EPISODES)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    scripted, zero = (run(params, keys, np.full(2, flag)) for flag in (True, False))
    chex.assert_shape(scripted.stats.success, (2,))
    s = scripted.stats
    assert np.asarray(s.success).all() and np.asarray(s.grasped_ever).all()
    assert (np.asarray(s.n_lift_significant) > 0).all()
    assert not np.asarray(zero.stats.success).any() and not np.asarray(zero.stats.grasped_ever).any()
    assert not np.asarray(scripted.env.nonfinite).any() and not np.asarray(zero.env.nonfinite).any()
