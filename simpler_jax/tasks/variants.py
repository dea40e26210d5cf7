"""Variant Aggregation: the visual variants of each Google task (SIMPLER_SPEC.md §3.2).

A variant changes how a task looks, not what it asks. Two kinds of change:

* per-world parameters (`apply_variant(params, variant)`): the lighting mode and the
  head tilt of the camera-angle variants; they batch with any other variant in one
  compiled call;
* per-world looks (`Variant.appearance`): the table-texture variants draw the table
  with a substitute texture (`simpler_jax.scenes.appearance`) in scenes built with
  that appearance; the physics is the base scene's;
* scene changes (`Variant.station`, `.background`, `.distractors`): a different
  cabinet URDF, scene stage or distractor set is a different compiled scene.
  `TaskEnv(task, station=v.station, distractors=v.distractors)` builds the cabinet
  and coke-can distractor variants (`simpler_jax.tasks.distractors`); move near's
  `no_distractor` is per world (the third object parked out of the scene); the
  stage backgrounds are not built into task scenes.

The original's background and cabinet-room stages (`google_pick_coke_can_1_v4_alt_
background*`, `Baked_sc1_staging_objaverse_cabinet{1,2}_h870`, `modern_bedroom_no_roof`,
`modern_office_no_roof`) are not available (ASSETS.md); `Variant.substitute` says
what stands in for each, and results must carry it (`variant_metadata`).
Camera-angle variants are run by the original but excluded from its metric
(`in_metric=False`).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from simpler_jax.render.lighting import lighting_mode

HEAD_TILT_INDEX = 8  # joint_head_tilt among the Google arm joints
NO_DISTRACTOR = ("none",)  # move near's `no_distractor=True`: only the source and target
# Where `no_distractor` parks the third object: +x of the base, i.e. behind the Google
# Robot (it faces -x), 1 m apart (m).
PARK_X, PARK_SPACING = 3.0, 1.0
STANDARD_HEAD_TILT = 0.7851361


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    kind: str  # base | background | lighting | distractor | table | camera
    lighting: str | None = None  # None: the task's own mode
    head_tilt: float | None = None
    station: str | None = None  # cabinet URDF (drawer tasks)
    background: str | None = None  # original scene stage name
    distractors: tuple[str, ...] = ()
    in_metric: bool = True
    substitute: str | None = None  # what stands in for an unavailable original asset
    appearance: str | None = None  # per-world look (`simpler_jax.scenes.appearance`)


_BG_SUB = "the table box of the base scene (original stage GLB not available)"
_TABLE_SUB = ("the table box drawn with the stone texture of SIMPLER's stone_tabletop.glb ({tint}; appearance "
              "{name!r}: simpler_jax.scenes.appearance); the original cabinet-room stage GLB is not available")
_ROOM_SUB = "no room geometry (original stage GLB not available; drawer scenes have no arena collision)"


def _tabletop(less, more):
    out = [
        Variant("base", "base"),
        Variant("alt_background", "background", background="google_pick_coke_can_1_v4_alt_background",
                substitute=_BG_SUB),
        Variant("alt_background_2", "background", background="google_pick_coke_can_1_v4_alt_background_2",
                substitute=_BG_SUB),
        Variant("slightly_darker_lighting", "lighting", lighting="slightly_darker"),
        Variant("slightly_brighter_lighting", "lighting", lighting="slightly_brighter"),
    ]
    out += [v for v in (less, more) if v is not None]
    out += [
        Variant("cabinet1_table", "table", background="Baked_sc1_staging_objaverse_cabinet1_h870",
                appearance="cabinet1_table", substitute=_TABLE_SUB.format(tint="as is", name="cabinet1_table")),
        Variant("cabinet2_table", "table", background="Baked_sc1_staging_objaverse_cabinet2_h870",
                appearance="cabinet2_table", substitute=_TABLE_SUB.format(tint="tinted warmer",
                                                                          name="cabinet2_table")),
    ]
    out += [Variant("alt_camera", "camera", head_tilt=0.9351361, in_metric=False),
            Variant("alt_camera_2", "camera", head_tilt=0.6651361, in_metric=False)]
    return tuple(out)


def _drawers():
    return (
        Variant("base", "base", lighting="drawer", station="mk_station", background="frl_apartment_stage_simple",
                substitute="no room geometry (the drawer arena has no collision; stage visuals not rendered yet)"),
        Variant("modern_bedroom", "background", lighting="drawer", station="mk_station",
                background="modern_bedroom_no_roof", substitute=_ROOM_SUB),
        Variant("modern_office", "background", lighting="drawer", station="mk_station",
                background="modern_office_no_roof", substitute=_ROOM_SUB),
        Variant("brighter", "lighting", lighting="drawer_brighter", station="mk_station"),
        Variant("darker", "lighting", lighting="drawer_darker", station="mk_station"),
        Variant("mk_station2", "table", lighting="drawer", station="mk_station2"),
        Variant("mk_station3", "table", lighting="drawer", station="mk_station3"),
    )


COKE_CAN_DISTRACTORS = {
    "less": ("opened_pepsi_can", "apple", "sponge", "orange"),
    "more": ("opened_7up_can", "opened_sprite_can", "sponge", "orange", "opened_fanta_can",
             "bridge_spoon_generated_modified"),
}

VARIANT_AGGREGATION: dict[str, tuple[Variant, ...]] = {
    "google_robot_pick_coke_can": _tabletop(
        Variant("distractors", "distractor", distractors=COKE_CAN_DISTRACTORS["less"]),
        Variant("more_distractors", "distractor", distractors=COKE_CAN_DISTRACTORS["more"])),
    "google_robot_move_near": _tabletop(Variant("no_distractor", "distractor", distractors=NO_DISTRACTOR), None),
    "google_robot_open_drawer": _drawers(),
    "google_robot_close_drawer": _drawers(),
    "google_robot_place_apple_in_closed_top_drawer": _drawers(),
}


def variants(task: str) -> tuple[Variant, ...]:
    """The Variant Aggregation variants of `task` (coke-can orientations and single
    drawers share their family's list)."""
    from simpler_jax.tasks.spec import task_spec

    spec = task_spec(task)
    key = {
        "grasp": "google_robot_pick_coke_can" if "coke_can" in task else None,
        "move_near": "google_robot_move_near",
        "drawer": f"google_robot_{spec.drawer_action}_drawer",
        "place_in_drawer": "google_robot_place_apple_in_closed_top_drawer",
    }.get(spec.family)
    if key is None:
        raise ValueError(f"task {task!r} has no Variant Aggregation variants; tasks that do: "
                         f"{sorted(VARIANT_AGGREGATION)} (and their orientation/drawer sub-tasks)")
    return VARIANT_AGGREGATION[key]


def variant(task: str, name: str) -> Variant:
    table = {v.name: v for v in variants(task)}
    if name not in table:
        raise ValueError(f"unknown variant {name!r} for task {task!r}; allowed: {sorted(table)}")
    return table[name]


def apply_variant(params, v: Variant):
    """The per-world part of `v` applied to `TaskParams` (one world or batched):
    lighting, head tilt, and move near's `no_distractor`, which parks every object
    but the source and target `PARK_X` m behind the robot base on the table plane
    (move near's objects rest on an infinite plane), out of view and reach."""
    robot = params.robot
    if v.lighting is not None:
        robot = robot.with_lighting(lighting_mode(v.lighting))
    if v.head_tilt is not None:
        robot = robot.replace(init_qpos=robot.init_qpos.at[..., HEAD_TILT_INDEX].set(jnp.float32(v.head_tilt)))
    if v.distractors == NO_DISTRACTOR:
        pose = robot.object_pose  # (..., O, 7)
        idx = jnp.arange(pose.shape[-2])
        parked = (idx != params.source[..., None]) & (idx != params.target[..., None])  # (..., O)
        spot = jnp.stack([robot.base_pos[..., None, 0] + PARK_X + PARK_SPACING * idx,
                          jnp.broadcast_to(robot.base_pos[..., None, 1], parked.shape)], -1)
        robot = robot.replace(object_pose=pose.at[..., :2].set(jnp.where(parked[..., None], spot, pose[..., :2])))
    return params.replace(robot=robot)


def not_modelled(v: Variant) -> list[str]:
    """What `v` asks for that the task scenes do not build yet (results must say so)."""
    out = []
    if v.distractors == NO_DISTRACTOR:
        out.append(f"no_distractor: the third object is parked {PARK_X} m behind the robot on the table plane "
                   "(out of view and reach) instead of removed")
    elif v.distractors:
        out.append("distractors settle together with the target (the original drops them one by one): "
                   "overlapping draws start stacked (simpler_jax.tasks.distractors)")
    if v.background and v.appearance:
        out.append(f"scene stage {v.background!r}: not built; its table is a substitute texture in the images "
                   "(see substitute), the room around it is not rendered")
    elif v.background:
        out.append(f"scene stage {v.background!r}: not built or rendered (see substitute)")
    return out


def variant_metadata(v: Variant) -> dict:
    """What a results file records about the variant, substitutes and gaps included."""
    meta = {k: getattr(v, k) for k in ("name", "kind", "lighting", "head_tilt", "station", "background",
                                       "distractors", "in_metric", "substitute", "appearance")}
    return meta | {"not_modelled": not_modelled(v)}
