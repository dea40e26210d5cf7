"""Many worlds in one compiled call: `jit(vmap(reset))` / `jit(vmap(step))` with input checks."""

from __future__ import annotations

import jax

from simpler_jax.envs.checks import check_action, check_keys, check_params
from simpler_jax.envs.params import Params, batch_params
from simpler_jax.envs.robot_env import RobotEnv
from simpler_jax.envs.state import State


class BatchedEnv:
    """`num_worlds` copies of `env`; every world has its own `Params` and state.

    `reset(params, keys)` and `step(params, state, actions)` check their inputs
    (shapes, dtypes, finiteness) before calling the compiled functions; the
    unchecked compiled functions are `reset_fn` / `step_fn`.
    """

    def __init__(self, env: RobotEnv, num_worlds: int):
        if int(num_worlds) < 1:
            raise ValueError(f"num_worlds must be >= 1, got {num_worlds}")
        self.env = env
        self.num_worlds = int(num_worlds)
        self._reference = env.default_params()
        self.reset_fn = jax.jit(jax.vmap(env.reset))
        self.step_fn = jax.jit(jax.vmap(env.step))

    def default_params(self) -> Params:
        return batch_params(self._reference, self.num_worlds)

    def reset(self, params: Params, keys: jax.Array) -> State:
        check_params(params, self._reference, self.num_worlds)
        check_keys(keys, self.num_worlds)
        return self.reset_fn(params, keys)

    def step(self, params: Params, state: State, actions) -> State:
        check_params(params, self._reference, self.num_worlds)
        actions = check_action(actions, self.num_worlds)
        return self.step_fn(params, state, actions)
