"""The SIMPLER tasks: specs and episode grids, success rules, episode statistics.

    from simpler_jax.tasks import task_spec
    spec = task_spec("widowx_stack_cube")
    spec.episodes()[0]        # Episode: objects, poses, robot pose, instruction

Modules: `spec` (the task table), `episodes` (grids), `instructions`,
`object_info` (bbox/density JSONs), `stats` (EpisodeStats, Measurement),
`rules` (success rules, pure JAX), `contacts` (contact forces, grasp check).
"""

from simpler_jax.tasks.spec import TASK_SPECS, TaskSpec, task_spec  # noqa: F401
