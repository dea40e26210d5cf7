"""Issue 3's reduced-grid check on the Google Robot: the scripted policy picks lying
coke cans through the 7-D action only; the zero action scores nothing.

Episodes 0 (horizontal: the can lies across the robot's view) and 37 (vertical: it
points at the robot) scripted, and episode 0 with the zero action, in one compiled
3-world rollout (CI time: the zero action runs one episode). The episodes are cut
to `STEPS` of the task's 80 control steps: in whole episodes both scripted cans are
lifted by step 36 and success is sticky from step 42 (5 significant-lift steps),
so the cut keeps 14 steps of margin and the verdict of the whole episode. The full
grids, whole episodes, are in benchmarks/RESULTS.md (`benchmarks/tasks.py`).
"""

import chex
import jax
import numpy as np

from simpler_jax.tasks.env import TaskEnv
from simpler_jax.tasks.rollout import make_rollout

EPISODES = [0, 37, 0]
SCRIPTED = np.array([True, True, False])  # the last world takes the zero action
STEPS = 56


def test_scripted_policy_lifts_lying_coke_cans():
    env = TaskEnv("google_robot_pick_coke_can", max_steps=STEPS)
    run = make_rollout(env)
    params = env.episode_params(EPISODES)
    keys = jax.random.split(jax.random.PRNGKey(0), len(EPISODES))
    final = run(params, keys, SCRIPTED)
    chex.assert_shape(final.stats.success, (3,))
    s = jax.tree_util.tree_map(np.asarray, final.stats)
    assert s.success[SCRIPTED].all() and s.grasped_ever[SCRIPTED].all()
    assert (s.n_lift_significant[SCRIPTED] > 0).all()
    assert not s.success[~SCRIPTED].any() and not s.grasped_ever[~SCRIPTED].any()
    assert not np.asarray(final.env.nonfinite).any()
