"""What a sweep can run: SIMPLER tasks, policies and variants, by name.

* *tasks*: every SimplerEnv task name of `simpler_jax.tasks.spec.TASK_SPECS`, each
  with its paper episode grid (`episode_ids(task)`).
* *policies*: `POLICIES[name]` says how the compiled rollout acts. Today the
  privileged scripted policy (`simpler_jax.tasks.scripted`, the default) and the
  zero action (the baseline a task must not be solvable by); both run in the same
  compiled program. Learned policies (Octo, RT-1-X) plug in here.
* *variants*: `"visual_matching"`, every task's standard set-up, and, for the
  Google tasks, the Variant Aggregation variants of `simpler_jax.tasks.variants`
  (lighting, camera tilt, cabinet; their substitutes for unavailable stages are
  recorded in the summary).

Nothing here compiles or builds a scene: names, grids and episode ids are
checked from the task table (plain Python data) before anything is built.
"""

from __future__ import annotations

import dataclasses

from simpler_jax.tasks.spec import TASK_SPECS, task_spec

VISUAL_MATCHING = "visual_matching"
TASKS = tuple(TASK_SPECS)


@dataclasses.dataclass(frozen=True)
class PolicySpec:
    """scripted: the world acts with the scripted policy (else the zero action)."""

    scripted: bool
    description: str
    checkpoint: str | None = None


POLICIES: dict[str, PolicySpec] = {
    "scripted": PolicySpec(True, "privileged scripted policy (simpler_jax.tasks.scripted)"),
    "zero": PolicySpec(False, "the zero action every step (baseline: solves nothing)"),
}


def variant_names(task: str) -> tuple[str, ...]:
    """The variants `task` can run: visual matching, then its Variant Aggregation list."""
    from simpler_jax.tasks.variants import variants

    try:
        extra = tuple(v.name for v in variants(task))
    except ValueError:  # no Variant Aggregation list (Bridge tasks, pick object)
        extra = ()
    return (VISUAL_MATCHING,) + extra


def variant(task: str, name: str):
    """The `simpler_jax.tasks.variants.Variant` of `name`, or None for visual matching."""
    from simpler_jax.tasks.variants import variant as lookup

    return None if name == VISUAL_MATCHING else lookup(task, name)


def episode_ids(task: str) -> tuple[int, ...]:
    """Episode ids of `task`'s paper grid, in grid order."""
    return tuple(e.episode_id for e in task_spec(task).episodes())


def scene_keys(task: str) -> dict[int, str]:
    """episode id -> the scene key it compiles under (one compiled scene per key)."""
    return {e.episode_id: e.scene_key for e in task_spec(task).episodes()}
