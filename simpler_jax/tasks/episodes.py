"""Episode grids of the SIMPLER tasks: episode id -> robot pose, objects, poses.

Facts: SIMPLER_SPEC.md §2.2-§2.6 and §3.1 (the paper's visual-matching grids).
An `Episode` is plain data; `simpler_jax.tasks.env` turns it into per-world
parameters. Episodes with the same `scene_key` share one compiled scene (the same
object models); everything else in an episode is a per-world parameter, so a whole
grid runs in one `jit(vmap)` call per scene key.

Positions are world xy in metres; quaternions are wxyz; robot yaw is radians about
world z (SIMPLER robots face world -x: yaw pi).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from simpler_jax.tasks import instructions

S = math.sqrt(0.5)
IDENTITY = (1.0, 0.0, 0.0, 0.0)
YAW_90 = (S, 0.0, 0.0, S)
YAW_180 = (0.0, 0.0, 0.0, 1.0)
YAW_MINUS_90 = (S, 0.0, 0.0, -S)
STANDING = (S, S, 0.0, 0.0)  # euler (pi/2, 0, 0): model y axis up


@dataclasses.dataclass(frozen=True)
class Episode:
    """One episode of a task.

    model_ids: the objects in the scene, in scene order; source/target index into
    them (-1: none). instruction: one string per subtask. drawer: 0 top, 1 middle,
    2 bottom, -1 no cabinet; drawer_qpos: initial opening of the three drawers (m).
    """

    task: str
    episode_id: int
    scene_key: str
    model_ids: tuple[str, ...]
    object_xy: tuple[tuple[float, float], ...]
    object_quat: tuple[tuple[float, float, float, float], ...]
    source: int
    target: int
    robot_xy: tuple[float, float]
    robot_yaw: float
    instruction: tuple[str, ...]
    overlay: str | None = None
    drawer: int = -1
    drawer_qpos: tuple[float, float, float] = (0.0, 0.0, 0.0)


# ---------------------------------------------------------------- pick coke can
COKE_CAN_X = tuple(float(x) for x in np.linspace(-0.35, -0.12, 5))
COKE_CAN_Y = tuple(float(y) for y in np.linspace(-0.02, 0.42, 5))
COKE_CAN_ORIENTATIONS = {"horizontal": YAW_180, "vertical": YAW_90, "standing": STANDING}
GOOGLE_COKE_CAN_ROBOT = ((0.35, 0.20), math.pi)
COKE_CAN_OVERLAY = "google_coke_can_real_eval_1.png"


def pick_coke_can(task: str, orientations: tuple[str, ...], model_id: str = "opened_coke_can"):
    """Orientation-major, then x, then y (25 positions per orientation)."""
    out = []
    for orient in orientations:
        for x, y in itertools.product(COKE_CAN_X, COKE_CAN_Y):
            out.append(Episode(
                task, len(out), model_id, (model_id,), ((x, y),), (COKE_CAN_ORIENTATIONS[orient],),
                0, -1, *GOOGLE_COKE_CAN_ROBOT, (instructions.pick(model_id),), COKE_CAN_OVERLAY,
            ))
    return tuple(out)


PICK_OBJECT_IDS = (
    "opened_pepsi_can", "opened_coke_can", "opened_sprite_can", "opened_fanta_can",
    "opened_redbull_can", "blue_plastic_bottle", "apple", "orange", "sponge",
    "bridge_spoon_generated_modified", "bridge_carrot_generated_modified",
    "green_cube_3cm", "yellow_cube_3cm", "eggplant",
)


def pick_object(task: str):
    """Each of the 14 objects on the 25-position coke-can grid, unrotated.

    The original draws the object uniformly at random per reset; this grid covers
    every object at every position instead (object-major), with the model's own
    orientation (identity quaternion).
    """
    out = []
    for model_id in PICK_OBJECT_IDS:
        for x, y in itertools.product(COKE_CAN_X, COKE_CAN_Y):
            out.append(Episode(
                task, len(out), model_id, (model_id,), ((x, y),), (IDENTITY,), 0, -1,
                *GOOGLE_COKE_CAN_ROBOT, (instructions.pick(model_id),), COKE_CAN_OVERLAY,
            ))
    return tuple(out)


# ------------------------------------------------------------------- move near
MOVE_NEAR_TRIPLETS_V0 = (
    ("blue_plastic_bottle", "baked_opened_pepsi_can", "orange"),
    ("baked_opened_7up_can", "baked_apple", "baked_sponge"),
    ("baked_opened_coke_can", "baked_opened_redbull_can", "baked_apple"),
    ("baked_sponge", "blue_plastic_bottle", "baked_opened_7up_can"),
    ("orange", "baked_opened_pepsi_can", "baked_opened_redbull_can"),
)
MOVE_NEAR_PAIRS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
MOVE_NEAR_XY = (
    ((-0.33, 0.04), (-0.33, 0.34), (-0.13, 0.19)),
    ((-0.13, 0.04), (-0.33, 0.19), (-0.13, 0.34)),
)
MOVE_NEAR_ROBOT = ((0.35, 0.21), math.pi - 0.09)
MOVE_NEAR_DENSITY = {"apple": 200.0, "orange": 200.0}  # "toy apple as in real eval"


def _baked_v1(model_id: str) -> str:
    return model_id if model_id in ("blue_plastic_bottle", "orange") else model_id + "_v2"


def _unbaked(model_id: str) -> str:
    return model_id.replace("baked_", "")


def move_near_quat(model_id: str) -> tuple[float, float, float, float]:
    """Initial orientation by object kind (§2.3)."""
    if "can" in model_id:
        return STANDING
    if "bottle" in model_id:
        return (0.5, 0.5, 0.5, 0.5)
    if "orange" in model_id or "sponge" in model_id:
        return YAW_90
    return IDENTITY


def move_near_density(model_id: str) -> float | None:
    """The move-near density override of `model_id` (apple, orange: 200), else None."""
    return next((d for k, d in MOVE_NEAR_DENSITY.items() if k in model_id), None)


def move_near(task: str, version: str = "v0"):
    """Ids 0-59: triplet = id // 12, pair = id % 6, xy config = (id % 12) // 6.

    version "v0": single-view baked textures (the paper scripts); "v1": the `_v2`
    models (SimplerEnv's prepackaged task); "unbaked": the variant-aggregation
    models.
    """
    rename = {"v0": lambda m: m, "v1": _baked_v1, "unbaked": _unbaked}[version]
    out = []
    for episode_id in range(60):
        triplet = tuple(rename(m) for m in MOVE_NEAR_TRIPLETS_V0[episode_id // 12])
        src, tgt = MOVE_NEAR_PAIRS[episode_id % 6]
        xy = MOVE_NEAR_XY[(episode_id % 12) // 6]
        out.append(Episode(
            task, episode_id, f"triplet{episode_id // 12}", triplet, xy,
            tuple(move_near_quat(m) for m in triplet), src, tgt, *MOVE_NEAR_ROBOT,
            (instructions.move_near(triplet[src], triplet[tgt]),), "google_move_near_real_eval_1.png",
        ))
    return tuple(out)


# --------------------------------------------------------------------- drawers
# Visual-matching robot poses: overlay id -> (x, y, yaw offset added to pi).
DRAWER_ROBOT_POSES = {
    "a0": (0.644, -0.179, -0.03), "a1": (0.765, -0.182, -0.02), "a2": (0.889, -0.203, -0.06),
    "b0": (0.652, 0.009, 0.0), "b1": (0.752, 0.009, 0.0), "b2": (0.851, 0.035, 0.0),
    "c0": (0.665, 0.224, 0.0), "c1": (0.765, 0.222, -0.025), "c2": (0.865, 0.222, -0.025),
}
CLOSE_DRAWER_INIT_QPOS = 0.2


def drawer(task: str, action: str, drawers: tuple[int, ...]):
    """Drawer-major, then the 9 robot poses a0..c2 (9 episodes per drawer)."""
    out = []
    for d in drawers:
        for pose_id, (x, y, dyaw) in DRAWER_ROBOT_POSES.items():
            qpos = [0.0, 0.0, 0.0]
            if action == "close":
                qpos[d] = CLOSE_DRAWER_INIT_QPOS
            out.append(Episode(
                task, len(out), "cabinet", (), (), (), -1, -1, (x, y), math.pi + dyaw,
                (instructions.drawer(action, d),), f"open_drawer_{pose_id}.png", d, tuple(qpos),
            ))
    return tuple(out)


APPLE_X = (-0.08, -0.05, -0.02)
APPLE_Y = (-0.02, 0.03, 0.08)
APPLE_ROBOT_POSES = ("a0", "b0", "c0")


def place_in_closed_drawer(task: str, model_id: str = "baked_apple_v2", drawer_index: int = 0):
    """Robot pose-major (a0, b0, c0), then apple x, then y (27 episodes)."""
    out = []
    for pose_id in APPLE_ROBOT_POSES:
        x, y, dyaw = DRAWER_ROBOT_POSES[pose_id]
        for ax, ay in itertools.product(APPLE_X, APPLE_Y):
            out.append(Episode(
                task, len(out), f"cabinet+{model_id}", (model_id,), ((ax, ay),), (IDENTITY,), 0, -1,
                (x, y), math.pi + dyaw, instructions.place_in_drawer(model_id, drawer_index),
                f"open_drawer_{pose_id}.png", drawer_index,
            ))
    return tuple(out)


# ---------------------------------------------------------------- Bridge put-on
BRIDGE_CENTER = (-0.16, 0.0)
BRIDGE_ROBOT = ((0.147, 0.028), math.pi)
SINK_ROBOT = ((0.127, 0.06), math.pi)


def _square_corners(center, half_edge):
    cx, cy = center
    return [(cx + dx, cy + dy) for dx in (-half_edge, half_edge) for dy in (-half_edge, half_edge)]


def _ordered_pairs(points):
    return [(points[i], points[j]) for i in range(len(points)) for j in range(len(points)) if i != j]


BRIDGE_PAIR_XY = tuple(_ordered_pairs(_square_corners(BRIDGE_CENTER, 0.075)))
STACK_CUBE_XY = tuple(_ordered_pairs(_square_corners(BRIDGE_CENTER, 0.05))
                      + _ordered_pairs(_square_corners(BRIDGE_CENTER, 0.10)))
EGGPLANT_XY = tuple((x, y) for x in (-0.115, -0.095) for y in (0.191, 0.201, 0.211, 0.221))
EGGPLANT_QUATS = (IDENTITY, (0.92388, 0.0, 0.0, 0.382683), (0.92388, 0.0, 0.0, -0.382683))
EGGPLANT_TARGET_XY = (-0.125, 0.025)
SINK_POS = (-0.16, 0.13, 0.88)

BRIDGE_OBJECTS = {
    "widowx_spoon_on_towel": ("bridge_spoon_generated_modified", "table_cloth_generated_shorter"),
    "widowx_carrot_on_plate": ("bridge_carrot_generated_modified", "bridge_plate_objaverse_larger"),
    "widowx_stack_cube": ("baked_green_cube_3cm", "baked_yellow_cube_3cm"),
    "widowx_put_eggplant_in_basket": ("eggplant", "dummy_sink_target_plane"),
}
BRIDGE_QUATS = {
    "widowx_spoon_on_towel": ((IDENTITY, IDENTITY), (YAW_90, IDENTITY)),
    "widowx_carrot_on_plate": ((YAW_180, IDENTITY), (YAW_MINUS_90, IDENTITY)),
    "widowx_stack_cube": ((IDENTITY, IDENTITY),),
}


def bridge(task: str):
    """Ids 0-23 (§2.6): source = object 0, target = object 1."""
    models = BRIDGE_OBJECTS[task]
    out = []
    for episode_id in range(24):
        if task == "widowx_put_eggplant_in_basket":
            xy = (EGGPLANT_XY[(episode_id % 24) // 3], EGGPLANT_TARGET_XY)
            quat = (EGGPLANT_QUATS[episode_id % 3], IDENTITY)
            robot, overlay = SINK_ROBOT, "bridge_sink.png"
        else:
            quats = BRIDGE_QUATS[task]
            n_q = len(quats)
            grid = STACK_CUBE_XY if task == "widowx_stack_cube" else BRIDGE_PAIR_XY
            xy = grid[(episode_id % (len(grid) * n_q)) // n_q]
            quat = quats[episode_id % n_q]
            robot, overlay = BRIDGE_ROBOT, "bridge_real_eval_1.png"
        out.append(Episode(
            task, episode_id, task, models, tuple(xy), tuple(quat), 0, 1, *robot,
            (instructions.BRIDGE[task],), overlay,
        ))
    return tuple(out)
