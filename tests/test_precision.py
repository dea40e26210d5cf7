"""The physics traces its float32 matrix products at full precision on every backend."""

import jax
import jax.numpy as jnp
import pytest

from simpler_jax.envs import precision
from simpler_jax.envs.robot_env import RobotEnv
from simpler_jax.tasks.env import TaskEnv


def _dot_precisions(fn, *args) -> list:
    eqns = jax.make_jaxpr(fn)(*args).jaxpr.eqns
    return [str(e.params["precision"]) for e in eqns if e.primitive.name == "dot_general"]


def test_full_precision_sets_the_products_traced_inside_only():
    a = jnp.ones((3, 3), jnp.float32)
    inside = precision.full_precision(lambda x: x @ x)
    assert all("HIGHEST" in p for p in _dot_precisions(inside, a)) and _dot_precisions(inside, a)
    assert all("HIGHEST" not in p for p in _dot_precisions(lambda x: x @ x, a))
    # Gradients (SysID's refinement) keep it: the transposed products are traced from the same equations.
    grad = jax.grad(lambda x: jnp.sum(inside(x)))
    assert all("HIGHEST" in p for p in _dot_precisions(grad, a))


@pytest.mark.parametrize("method", ["reset", "step", "physics", "control_targets", "_reset_physics",
                                    "observe_qpos"])
def test_robot_env_physics_entry_points_run_at_full_precision(method):
    assert getattr(getattr(RobotEnv, method), "full_precision", False)


@pytest.mark.parametrize("method", ["reset", "step", "measure"])
def test_task_env_entry_points_run_at_full_precision(method):
    assert getattr(getattr(TaskEnv, method), "full_precision", False)
