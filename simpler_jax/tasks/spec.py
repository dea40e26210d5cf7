"""The SIMPLER tasks under SimplerEnv's names (SIMPLER_SPEC.md §1, §2).

A `TaskSpec` is static data: robot, family, episode length, the info JSON its
objects come from, the success-rule options and the episode grid. The families:

    grasp            pick coke can / pick object (lift, 80 steps)
    move_near        move the source object near the target (80 steps)
    drawer           open or close a cabinet drawer (113 steps)
    place_in_drawer  open the top drawer, then place the apple in it (200 steps)
    put_on           Bridge: put the source object on the target (60 / 120 steps)
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from simpler_jax.tasks import episodes as E
from simpler_jax.utils.names import unknown_name

FAMILIES = ("grasp", "move_near", "drawer", "place_in_drawer", "put_on")


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    name: str
    env_id: str  # the original ManiSkill2 env id
    family: str
    robot: str
    max_steps: int
    info_file: str
    grid: Callable[[str], tuple]  # name -> episodes (the paper's grid)
    camera: str = "default"
    base_z: float | None = None
    init_qpos: tuple[float, ...] | None = None  # None: the robot's standard pose
    drawer_action: str | None = None  # "open" / "close" for the drawer family
    z_offset: float = 0.02  # put-on: allowed gap above the target (m)
    require_source_alone: bool = False  # put-on: no contact but target and robot
    always_overlay: tuple[str, ...] = ()  # bodies the real photo shows through
    static_objects: tuple[tuple[str, tuple[float, float, float]], ...] = ()  # (model id, pos), locked
    forced_subtask_advance_step: int | None = None
    lighting: str = "default"  # a `simpler_jax.render.lighting.LIGHTING_MODES` name
    object_surface: str = "box"  # what objects rest on (`simpler_jax.scenes.scene.SceneSpec`)
    single_piece_hull: str = "qhull"  # `simpler_jax.objects.build.SINGLE_PIECE_HULLS`
    # Observations show the main light's shadows by default: the drawer and apple
    # tasks, which SIMPLER renders with its ray tracer (`--enable-raytracing`, §3.1, §6.2).
    shadows: bool = False

    def episodes(self) -> tuple:
        return self.grid(self.name)

    def object_density(self, model_id: str, json_density: float) -> float:
        """Density used for `model_id` in this task (move near overrides apple/orange)."""
        if self.family == "move_near":
            override = E.move_near_density(model_id)
            if override is not None:
                return override
        return json_density


def _google(name, env_id, family, max_steps, info_file, grid, **kw) -> TaskSpec:
    return TaskSpec(name, env_id, family, "google_robot", max_steps, info_file, grid, **kw)


def _specs() -> dict[str, TaskSpec]:
    specs = []
    coke = "GraspSingleOpenedCokeCanInScene-v0"
    orients = tuple(E.COKE_CAN_ORIENTATIONS)
    specs.append(_google("google_robot_pick_coke_can", coke, "grasp", 80, "info_pick_custom_v0.json",
                         lambda n: E.pick_coke_can(n, orients)))
    for o in orients:
        specs.append(_google(f"google_robot_pick_{o}_coke_can", coke, "grasp", 80, "info_pick_custom_v0.json",
                             lambda n, o=o: E.pick_coke_can(n, (o,))))
    specs.append(_google("google_robot_pick_object", "GraspSingleRandomObjectInScene-v0", "grasp", 80,
                         "info_pick_custom_v0.json", E.pick_object))
    specs.append(_google("google_robot_move_near", "MoveNearGoogleBakedTexInScene-v1", "move_near", 80,
                         "info_pick_custom_baked_tex_v1.json", lambda n: E.move_near(n, "v1"),
                         object_surface="plane", single_piece_hull="support"))
    specs.append(_google("google_robot_move_near_v0", "MoveNearGoogleBakedTexInScene-v0", "move_near", 80,
                         "info_pick_custom_baked_tex_v0.json", lambda n: E.move_near(n, "v0"),
                         object_surface="plane"))
    for action in ("open", "close"):
        cap = action.capitalize()
        specs.append(_google(f"google_robot_{action}_drawer", f"{cap}DrawerCustomInScene-v0", "drawer", 113,
                             "info_pick_custom_v0.json", lambda n, a=action: E.drawer(n, a, (0, 1, 2)),
                             drawer_action=action, lighting="simple", shadows=True))
        for d, which in enumerate(("top", "middle", "bottom")):
            specs.append(_google(
                f"google_robot_{action}_{which}_drawer", f"{cap}{which.capitalize()}DrawerCustomInScene-v0",
                "drawer", 113, "info_pick_custom_v0.json", lambda n, a=action, d=d: E.drawer(n, a, (d,)),
                drawer_action=action, lighting="simple", shadows=True))
    specs.append(_google("google_robot_place_apple_in_closed_top_drawer",
                         "PlaceIntoClosedTopDrawerCustomInScene-v0", "place_in_drawer", 200,
                         "info_pick_custom_baked_tex_v1.json", E.place_in_closed_drawer,
                         forced_subtask_advance_step=100, lighting="simple", shadows=True))
    from simpler_jax.robots.widowx import INIT_QPOS_SINK

    bridge = [
        # The spoon's four thin convex pieces were kicked up by the table box while
        # settling in MJX (after 0.5 s, 17 of the 24 episodes over 2 mm above their rest
        # height, up to 7.9 cm); on the plane all 24 rest where MuJoCo C puts them on the
        # box (benchmarks/RESULTS.md, "Spoon on towel: the table box").
        ("widowx_spoon_on_towel", "PutSpoonOnTableClothInScene-v0", 60, "info_bridge_custom_v0.json",
         dict(object_surface="plane")),
        ("widowx_carrot_on_plate", "PutCarrotOnPlateInScene-v0", 60, "info_bridge_custom_v0.json",
         dict(require_source_alone=True)),
        ("widowx_stack_cube", "StackGreenCubeOnYellowCubeBakedTexInScene-v0", 60,
         "info_bridge_custom_baked_tex_v0.json", dict(require_source_alone=True)),
        ("widowx_put_eggplant_in_basket", "PutEggplantInBasketScene-v0", 120, "info_bridge_custom_v0.json",
         dict(z_offset=0.06, camera="widowx_sink_camera_setup", base_z=0.85, init_qpos=INIT_QPOS_SINK,
              always_overlay=("sink", "dummy_sink_target_plane"), static_objects=(("sink", E.SINK_POS),),
              lighting="eggplant")),
    ]
    for name, env_id, steps, info, kw in bridge:
        specs.append(TaskSpec(name, env_id, "put_on", "widowx", steps, info, E.bridge, **kw))
    return {s.name: s for s in specs}


TASK_SPECS: dict[str, TaskSpec] = _specs()


def task_spec(name: str) -> TaskSpec:
    """The spec of task `name`; unknown names list the known ones and the closest."""
    if name not in TASK_SPECS:
        raise unknown_name("task", name, TASK_SPECS)
    return TASK_SPECS[name]
