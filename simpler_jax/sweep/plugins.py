"""What a sweep can run: tasks, policies and variants, by name.

Until the SIMPLER tasks land, a *task* is a robot-only scene (its success rule:
the final TCP error is below the sweep's threshold), the only *policy* is an
open-loop scripted end-effector pattern, and the only *variant* is SIMPLER's
default parameters. New entries plug in here:

* `TASKS[name] = TaskSpec(robot=...)`: which scene to build (one compiled step per task).
* `POLICIES[name] = ScriptedPolicy(actions=f)`: `f(config) -> (T, 7)` float32
  actions [dxyz, axis-angle, gripper] applied to every world at control steps 0..T-1.
* `VARIANTS[name] = Variant(apply=g)`: `g(params) -> params` on the batched
  per-world `Params` (leading axis = worlds of the chunk) after the sweep's gains.

This module imports no JAX, so names can be checked before anything compiles.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """robot: a key of `simpler_jax.scenes.scene.ROBOTS` (the scene is its default scene)."""

    robot: str


@dataclasses.dataclass(frozen=True)
class ScriptedPolicy:
    """actions(config) -> (T, 7) float32, the same open-loop actions for every world."""

    actions: Callable
    description: str = ""


@dataclasses.dataclass(frozen=True)
class Variant:
    """apply(params) -> params, on a chunk's batched `Params` (world axis first)."""

    apply: Callable
    description: str = ""


def square_pattern(config) -> np.ndarray:
    """A square in the base x-y plane and back, then `settle_steps` zero actions.

    Returns (4 * steps_per_side + settle_steps, 7) float32; every moving step
    commands 2 cm, so a side is 2 cm x steps_per_side (4 cm by default).
    """
    n = config.steps_per_side
    sides = ((0.02, 0.0, 0.0), (0.0, 0.02, 0.0), (-0.02, 0.0, 0.0), (0.0, -0.02, 0.0))
    rows = [np.array(d) for d in sides for _ in range(n)]
    rows += [np.zeros(3)] * config.settle_steps
    actions = np.zeros((len(rows), 7), np.float32)
    actions[:, :3] = np.array(rows, np.float32).reshape(len(rows), 3)
    return actions


TASKS: dict[str, TaskSpec] = {"google_robot": TaskSpec("google_robot"), "widowx": TaskSpec("widowx")}
POLICIES: dict[str, ScriptedPolicy] = {
    "scripted-pattern": ScriptedPolicy(square_pattern, "end-effector square in the base x-y plane, open loop"),
}
VARIANTS: dict[str, Variant] = {"default": Variant(lambda params: params, "SIMPLER's default parameters")}
