"""Issue 3's reduced-grid check on the Google Robot: the scripted policy picks lying
coke cans through the 7-D action only; the zero action scores nothing.

Episodes 0 (horizontal: the can lies across the robot's view) and 37 (vertical: it
points at the robot) scripted, and episode 0 with the zero action, in one compiled
3-world rollout (CI time: the zero action runs one episode). The episodes are cut
to `STEPS` of the task's 80 control steps: success (5 significant-lift steps, then
sticky) is set at control step 36 in episode 0 and 32 in episode 37 (measured
2026-12-06, CPU), so the cut keeps 10 steps of margin and the verdict of the whole
episode. The full grids, whole episodes, are in benchmarks/RESULTS.md
(`benchmarks/tasks.py`).

The rollout also returns its step-by-step trace (`make_rollout(trace=True)`, what
`benchmarks/trace.py` prints); the trace is checked against the final state.
"""

import chex
import jax
import numpy as np

from simpler_jax.tasks.env import TaskEnv
from simpler_jax.tasks.rollout import make_rollout
from simpler_jax.tasks.scripted import ScriptedPolicy

EPISODES = [0, 37, 0]
SCRIPTED = np.array([True, True, False])  # the last world takes the zero action
STEPS = 46


def test_scripted_policy_lifts_lying_coke_cans():
    env = TaskEnv("google_robot_pick_coke_can", max_steps=STEPS)
    policy = ScriptedPolicy(env)
    run = make_rollout(env, policy, trace=True)
    params = env.episode_params(EPISODES)
    keys = jax.random.split(jax.random.PRNGKey(0), len(EPISODES))
    final, trace = run(params, keys, SCRIPTED)
    chex.assert_shape(final.stats.success, (3,))
    s = jax.tree_util.tree_map(np.asarray, final.stats)
    assert s.success[SCRIPTED].all() and s.grasped_ever[SCRIPTED].all()
    assert (s.n_lift_significant[SCRIPTED] > 0).all()
    assert not s.success[~SCRIPTED].any() and not s.grasped_ever[~SCRIPTED].any()
    assert not np.asarray(final.env.nonfinite).any()

    # The trace: one row per world and control step, consistent with the final state.
    tr = jax.tree_util.tree_map(np.asarray, trace)
    chex.assert_shape([tr.phase, tr.grasped, tr.success], (3, STEPS))
    chex.assert_shape(tr.action, (3, STEPS, 7))
    chex.assert_shape([tr.tcp, tr.source, tr.target], (3, STEPS, 3))
    np.testing.assert_array_equal(tr.success[:, -1], s.success)
    com = np.asarray(final.env.data.xipos)[:, env.env.index.object_bodies]  # (W, O, 3)
    np.testing.assert_allclose(tr.source[:, -1], com[np.arange(3), np.asarray(params.source)], atol=1e-6)
    assert not tr.action[~SCRIPTED].any()  # the zero-action world
    assert np.abs(tr.tcp[~SCRIPTED] - tr.tcp[~SCRIPTED][:, :1]).max() < 0.01  # its arm holds still
    names = [p.name for p in policy.plan]
    for w in np.flatnonzero(SCRIPTED):
        seen = [names[p] for p in dict.fromkeys(tr.phase[w])]
        assert seen[:4] == ["above", "descend", "close", "lift"], seen
        lift = tr.phase[w] == names.index("lift")
        assert tr.grasped[w][lift].any()
        assert tr.source[w, -1, 2] - tr.source[w, 0, 2] > 0.02  # the can went up with the hand
