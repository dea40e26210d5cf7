"""Per-world environment state."""

from __future__ import annotations

from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
from mujoco import mjx

from simpler_jax.controllers.state import ControllerState, zeros_controller  # noqa: F401


@flax.struct.dataclass
class State:
    """One world's state.

    data: MJX physics state. controller: ControllerState. step: () int32 control
    steps since reset. key: PRNG key. nonfinite: () True once the physics went
    non-finite (the world is frozen from then on). done: () episode over (time
    limit or non-finite). action: (7,) last applied action. obs: the policy camera
    `Observation` of the current state (`simpler_jax.envs.observation`), or None when
    the environment renders nothing.
    """

    data: mjx.Data
    controller: ControllerState
    step: jax.Array
    key: jax.Array
    nonfinite: jax.Array
    done: jax.Array
    action: jax.Array
    obs: Any = None

    @property
    def qpos(self) -> jax.Array:
        return self.data.qpos
