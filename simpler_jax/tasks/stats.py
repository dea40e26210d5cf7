"""Per-world episode statistics and the per-step measurements they are updated from.

`EpisodeStats` has one field per statistic any SIMPLER task reports, under the
original's `episode_stats` names where it has one, so failure modes can be counted
per world (grasped but not lifted, moved the wrong object, ...). Every field is a
scalar per world; with a leading world axis under `vmap`. `report(family, stats)`
picks the fields the original reports for that family.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class Measurement:
    """What the success rules read from the physics after a control step (one world).

    object_pos: (O, 3) object frame origins (SAPIEN actor origins); object_com: (O, 3)
    centres of mass; object_speed: (O,) linear COM speed (m/s). grasped: () the
    robot grasps the source (contact-force check). source_env_contact: () the source
    touches something that is not the robot. source_foreign_contact: () the source
    touches something that is neither the robot nor the target. drawer_qpos: (3,)
    drawer openings (m; zeros without a cabinet); drawer_speed: (3,).
    drawer_bottom_contact: () the source touches the task drawer's interior bottom.
    """

    object_pos: jax.Array
    object_com: jax.Array
    object_speed: jax.Array
    grasped: jax.Array
    source_env_contact: jax.Array
    source_foreign_contact: jax.Array
    drawer_qpos: jax.Array
    drawer_speed: jax.Array
    drawer_bottom_contact: jax.Array


@flax.struct.dataclass
class EpisodeReference:
    """Fixed per episode (one world): indices and what was recorded after settling.

    settle_pos: (O, 3) object origins after settling; bbox_world: (O, 3) the info
    JSON bbox size vector rotated by the object's orientation after settling (the
    original's `bbox_world`, signs kept). source, target, drawer: () int32 indices
    (-1 none).
    """

    settle_pos: jax.Array
    bbox_world: jax.Array
    source: jax.Array
    target: jax.Array
    drawer: jax.Array


@flax.struct.dataclass
class EpisodeStats:
    grasped: jax.Array  # () bool: the source is grasped now
    grasped_ever: jax.Array  # () bool (original: `grasped`, `is_src_obj_grasped`)
    consecutive_grasp: jax.Array  # () int32 steps grasped in a row
    consec_grasp_ever: jax.Array  # () bool: >= 5 steps in a row at some point
    lifted_object: jax.Array  # () bool (grasp family; sticky while grasped)
    n_lift_significant: jax.Array  # () int32, cumulative
    all_obj_keep_height: jax.Array  # () bool (move near)
    moved_correct_obj: jax.Array  # () bool
    moved_wrong_obj: jax.Array  # () bool
    near_tgt_obj: jax.Array  # () bool (move near)
    is_closest_to_tgt: jax.Array  # () bool (move near)
    src_on_target: jax.Array  # () bool (put on)
    drawer_qpos: jax.Array  # () float32: the task drawer's opening (m)
    is_drawer_open: jax.Array  # () bool, sticky (place in drawer)
    has_contact: jax.Array  # () int32 steps touching the drawer bottom (place in drawer)
    subtask_id: jax.Array  # () int32
    success: jax.Array  # () bool, SIMPLER's rule at this step
    success_streak: jax.Array  # () int32 steps in a row with success
    strict_success: jax.Array  # () bool, opt-in stricter rule (simpler_jax.tasks.rules)


def zeros_stats() -> EpisodeStats:
    f, i = jnp.array(False), jnp.array(0, jnp.int32)
    return EpisodeStats(
        grasped=f, grasped_ever=f, consecutive_grasp=i, consec_grasp_ever=f, lifted_object=f,
        n_lift_significant=i, all_obj_keep_height=f, moved_correct_obj=f, moved_wrong_obj=f,
        near_tgt_obj=f, is_closest_to_tgt=f, src_on_target=f, drawer_qpos=jnp.array(0.0, jnp.float32),
        is_drawer_open=f, has_contact=i, subtask_id=i, success=f, success_streak=i, strict_success=f,
    )


# The statistics the original reports per family (its `episode_stats` keys, mapped
# to our fields), plus the success flags.
REPORTED = {
    "grasp": {"n_lift_significant": "n_lift_significant", "consec_grasp": "consec_grasp_ever",
              "grasped": "grasped_ever"},
    "move_near": {"all_obj_keep_height": "all_obj_keep_height", "moved_correct_obj": "moved_correct_obj",
                  "moved_wrong_obj": "moved_wrong_obj", "near_tgt_obj": "near_tgt_obj",
                  "is_closest_to_tgt": "is_closest_to_tgt"},
    "drawer": {"qpos": "drawer_qpos"},
    "place_in_drawer": {"qpos": "drawer_qpos", "is_drawer_open": "is_drawer_open",
                        "has_contact": "has_contact", "subtask_id": "subtask_id"},
    "put_on": {"moved_correct_obj": "moved_correct_obj", "moved_wrong_obj": "moved_wrong_obj",
               "is_src_obj_grasped": "grasped_ever", "consecutive_grasp": "consec_grasp_ever",
               "src_on_target": "src_on_target"},
}


def report(family: str, stats: EpisodeStats, world: int | None = None) -> dict:
    """The family's episode stats as Python values (of world `world` if batched)."""
    if family not in REPORTED:
        raise ValueError(f"unknown task family {family!r}; allowed: {sorted(REPORTED)}")
    fields = dict(REPORTED[family], success="success", strict_success="strict_success")
    out = {}
    for key, field in fields.items():
        value = getattr(stats, field)
        value = value if world is None else value[world]
        value = value.item() if hasattr(value, "item") else value
        out[key] = round(value, 3) if isinstance(value, float) else value
    return out
