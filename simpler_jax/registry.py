"""`simpler_jax.make(name, **overrides)` and `simpler_jax.list_tasks()`.

Every environment is registered under a name with a builder taking keyword
overrides:

* the SIMPLER tasks under SimplerEnv's names (`simpler_jax.tasks.spec`), built as
  `simpler_jax.tasks.env.TaskEnv` (overrides: `scene_key`, `assets`, `observation`,
  `collision`, `station`, `settle_seconds`, `strict_hold_steps`, `max_steps`);
* the robot-only scenes of the environment core, `google_robot` and `widowx` (robot
  at its SIMPLER placement on the table), built as `RobotEnv` (overrides:
  `max_steps`, `auto_reset`, `controller_params` (a SysID parameters file written by
  `python -m simpler_jax.sysid`), `observation`, options of
  `simpler_jax.scenes.scene.SceneSpec`).
"""

from __future__ import annotations

from typing import Callable, Dict

from simpler_jax.utils.names import unknown_name

_REGISTRY: Dict[str, Callable] = {}


def register(name: str, builder: Callable) -> None:
    if name in _REGISTRY:
        raise ValueError(f"environment {name!r} is already registered")
    _REGISTRY[name] = builder


def list_tasks() -> list[str]:
    """Names `make` accepts, sorted."""
    return sorted(_REGISTRY)


def make(name: str, **overrides):
    """Build the environment registered as `name`; unknown names list the known ones."""
    if name not in _REGISTRY:
        raise unknown_name("task", name, _REGISTRY)
    return _REGISTRY[name](**overrides)


def _robot_scene(robot: str) -> Callable:
    def build(**overrides):
        from simpler_jax.envs.robot_env import make_robot_env

        return make_robot_env(robot, **overrides)

    return build


def _task(name: str) -> Callable:
    def build(**overrides):
        from simpler_jax.tasks.env import TaskEnv

        return TaskEnv(name, **overrides)

    return build


register("google_robot", _robot_scene("google_robot"))
register("widowx", _robot_scene("widowx"))


def _register_tasks() -> None:
    from simpler_jax.tasks.spec import TASK_SPECS

    for name in TASK_SPECS:
        register(name, _task(name))


_register_tasks()
