"""The functional environment core: `Params`, `State`, pure `reset`/`step`, batching."""

from simpler_jax.envs.batched import BatchedEnv
from simpler_jax.envs.observation import Observation, ObservationSpec
from simpler_jax.envs.params import Params, batch_params, default_params
from simpler_jax.envs.robot_env import ACTION_SIZE, RobotEnv, make_robot_env
from simpler_jax.envs.state import ControllerState, State

__all__ = [
    "ACTION_SIZE",
    "BatchedEnv",
    "ControllerState",
    "Observation",
    "ObservationSpec",
    "Params",
    "RobotEnv",
    "State",
    "batch_params",
    "default_params",
    "make_robot_env",
]
