"""Google Robot (`google_robot_static`): SIMPLER_SPEC.md §4.1."""

from simpler_jax.robots.config import RobotConfig

URDF_DIR = "mani_skill2_real2sim/assets/descriptions/googlerobot_description"

# Texture variants of the visual meshes (SIMPLER_SPEC.md §6.3); physics is identical.
URDF_VERSIONS = (
    "",
    "recolor_tabletop_visual_matching_1",
    "recolor_tabletop_visual_matching_2",
    "recolor_cabinet_visual_matching_1",
    "recolor_cabinet_visual_matching_gripper_only",
    "recolor_sim",
)

ARM_JOINTS = (
    "joint_torso",
    "joint_shoulder",
    "joint_bicep",
    "joint_elbow",
    "joint_forearm",
    "joint_wrist",
    "joint_gripper",
    "joint_head_pan",
    "joint_head_tilt",
)
FINGER_JOINTS = ("joint_finger_right", "joint_finger_left")

# Arm planner limits (Ruckig in the original) and gripper planner limits.
ARM_VMAX, ARM_AMAX, ARM_JMAX = 1.5, 2.0, 50.0
GRIPPER_VMAX, GRIPPER_AMAX, GRIPPER_JMAX = 1.0, 7.0, 50.0
GRIPPER_DELTA_SCALE = 1.31  # rad per unit action
GRIPPER_TARGET_RANGE = (-0.0101, 1.31)
FINGER_CLOSED_QPOS = 1.3
IK_MAX_ITERATIONS = 100

CONFIG = RobotConfig(
    name="google_robot",
    urdf=f"{URDF_DIR}/google_robot_meta_sim_fix_wheel_fix_fingertip.urdf",
    arm_joints=ARM_JOINTS,
    ik_joints=ARM_JOINTS[:7],
    finger_joints=FINGER_JOINTS,
    init_qpos=(
        -0.2639457174606611,
        0.0831913360274175,
        0.5017611504652179,
        1.156859026208673,
        0.028583671314766423,
        1.592598203487462,
        -1.080652960128774,
        -0.00285961,
        0.7851361,
        0.0,
        0.0,
    ),
    ee_link="link_gripper_tcp",
    finger_links=(
        "link_finger_left",
        "link_finger_tip_left",
        "link_finger_right",
        "link_finger_tip_right",
    ),
    hand_links=(
        "link_gripper",
        "link_finger_left",
        "link_finger_tip_left",
        "link_finger_nail_left",
        "link_finger_right",
        "link_finger_tip_right",
        "link_finger_nail_right",
    ),
    arm_stiffness=(
        1700.0,
        1737.0471680861954,
        979.975871856535,
        930.0,
        1212.154500274304,
        432.96500923932535,
        468.0013365498738,
        2000.0,
        2000.0,
    ),
    arm_damping=(
        1059.9791902443303,
        1010.4720585373592,
        767.2803161582076,
        680.0,
        674.9946964336588,
        274.613381336198,
        340.532560578637,
        900.0,
        900.0,
    ),
    arm_force_limit=(300.0, 300.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0),
    gripper_stiffness=200.0,
    gripper_damping=8.0,
    gripper_force_limit=60.0,
    # A finger is light (50 g, about 2e-4 kg m^2 about its joint), so the 60 N*m
    # drive accelerates it at ~3e5 rad/s^2: closed on an object, each 2 ms substep
    # the contacts must undo ~100 m/s of fingertip velocity, and MuJoCo's soft
    # contacts let the fingers sink 5-7 mm into a 17 g can and throw it at ~15 m/s
    # (MuJoCo C on the original meshes and MJX alike). PhysX solves the drive and
    # the contacts together and does not need this. 0.01 kg m^2 of rotor inertia
    # (50x the finger's own) leaves the closing motion unchanged (the drive is
    # overdamped, so it lags its plan by D/K = 40 ms with or without it; finger
    # angles after the first two control steps of a close agree to 1e-3 rad) and
    # lets the grip hold (benchmarks/RESULTS.md, grasp-and-lift).
    finger_armature=0.01,
    finger_friction=2.0,
    finger_patch_radius=0.1,
    extra_friction=(("link_finger_nail_left", 0.1), ("link_finger_nail_right", 0.1)),
    base_height=0.06205 + 0.017,
    sim_freq=513,
    control_freq=3,
    keep_links=("link_gripper_tcp", "link_camera"),
    drop_links=("link_base_inertial",),
    texture_variant_urdfs=tuple(
        (v, f"{URDF_DIR}/google_robot_meta_sim_fix_wheel_fix_fingertip_{v}.urdf") for v in URDF_VERSIONS if v),
)


def urdf_for_version(version: str = "") -> str:
    """The URDF path (relative to the asset root) of a texture variant."""
    if version not in URDF_VERSIONS:
        raise ValueError(f"unknown Google Robot urdf_version {version!r}; allowed: {URDF_VERSIONS}")
    return dict(CONFIG.texture_variant_urdfs).get(version, CONFIG.urdf)
