"""What defines a SIMPLER robot: joints, frames, drives, friction and collision budget."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class RobotConfig:
    """Static description of one robot (numbers from SIMPLER_SPEC.md §4).

    Joint tuples are in the order of the original's active joints. `arm_joints` are
    the joints the arm controller drives, `ik_joints` the subset IK moves (the TCP
    depends only on these), `finger_joints` the joints the gripper command drives.
    """

    name: str
    urdf: str  # path relative to the asset root
    arm_joints: tuple[str, ...]
    ik_joints: tuple[str, ...]
    finger_joints: tuple[str, ...]
    init_qpos: tuple[float, ...]  # arm joints then finger joints
    ee_link: str
    finger_links: tuple[str, ...]  # links checked for grasps (left first)
    hand_links: tuple[str, ...]  # links that collide with objects and the table
    arm_stiffness: tuple[float, ...]
    arm_damping: tuple[float, ...]
    arm_force_limit: tuple[float, ...]
    gripper_stiffness: float
    gripper_damping: float
    gripper_force_limit: float
    finger_friction: float  # on finger_links (and the links in extra_friction)
    finger_patch_radius: float  # PhysX torsional patch radius of the fingers (m)
    extra_friction: tuple[tuple[str, float], ...]  # (link, mu) for other links
    base_height: float  # z of the robot base in the world
    sim_freq: int
    control_freq: int
    keep_links: tuple[str, ...] = ()  # frame-only links that must stay bodies
    drop_links: tuple[str, ...] = ()  # links not modelled at all
    hull_budget: int = 12  # max hull vertices of a simplified arm link
    finger_hull_budget: int = 32  # max hull vertices of a simplified hand link
    # Simplified mode: flat box pads, (link, centre (3,), half sizes (3,)) in the link
    # frame, that touch objects instead of the finger hulls (see `simpler_jax.robots.widowx`).
    finger_pads: tuple[tuple[str, tuple[float, float, float], tuple[float, float, float]], ...] = ()
    # Rotor inertia added to each finger joint (kg m^2 or kg), both collision modes.
    # A numerical stabiliser, not a SIMPLER parameter (see `simpler_jax.robots.google_robot`).
    finger_armature: float = 0.0
    # Damping ratio of the finger-object contacts (None: the scene's `contact_solref`
    # ratio). A numerical stabiliser, not a SIMPLER parameter (see `simpler_jax.robots.widowx`).
    finger_object_dampratio: float | None = None
    # Texture variants of the visual meshes: (variant name, URDF path relative to the
    # asset root) whose visuals differ from `urdf`'s in their textures alone.
    texture_variant_urdfs: tuple[tuple[str, str], ...] = ()

    @property
    def substeps(self) -> int:
        return self.sim_freq // self.control_freq

    @property
    def sim_dt(self) -> float:
        return 1.0 / self.sim_freq

    @property
    def controlled_joints(self) -> tuple[str, ...]:
        return self.arm_joints + self.finger_joints
