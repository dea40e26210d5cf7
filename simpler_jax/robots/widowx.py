"""WidowX 250s (`widowx`, Bridge setups): SIMPLER_SPEC.md §4.2."""

from simpler_jax.robots.config import RobotConfig

ARM_JOINTS = ("waist", "shoulder", "elbow", "forearm_roll", "wrist_angle", "wrist_rotate")
FINGER_JOINTS = ("left_finger", "right_finger")

# Absolute gripper: target = GRIPPER_MID + GRIPPER_HALF_RANGE * clip(a, -1, 1); +1 opens.
GRIPPER_MID = 0.026
GRIPPER_HALF_RANGE = 0.012
IK_MAX_ITERATIONS = 100

INIT_QPOS_SINK = (
    -0.2600599,
    -0.12875618,
    0.04461369,
    -0.00652761,
    1.7033415,
    -0.26983038,
    0.037,
    0.037,
)

CONFIG = RobotConfig(
    name="widowx",
    urdf="mani_skill2_real2sim/assets/descriptions/widowx_description/wx250s.urdf",
    arm_joints=ARM_JOINTS,
    ik_joints=ARM_JOINTS,
    finger_joints=FINGER_JOINTS,
    init_qpos=(
        -0.01840777,
        0.0398835,
        0.22242722,
        -0.00460194,
        1.36524296,
        0.00153398,
        0.037,
        0.037,
    ),
    ee_link="ee_gripper_link",
    finger_links=("left_finger_link", "right_finger_link"),
    hand_links=(
        "gripper_link",
        "gripper_prop_link",
        "gripper_bar_link",
        "left_finger_link",
        "right_finger_link",
    ),
    arm_stiffness=(
        1169.7891719504198,
        730.0,
        808.4601346394447,
        1229.1299089624076,
        1272.2760456418862,
        1056.3326605132252,
    ),
    arm_damping=(
        330.0,
        180.0,
        152.12036565582588,
        309.6215302722146,
        201.04998711007383,
        269.51458932695414,
    ),
    arm_force_limit=(200.0, 200.0, 100.0, 100.0, 100.0, 100.0),
    gripper_stiffness=1000.0,
    gripper_damping=200.0,
    gripper_force_limit=60.0,
    finger_friction=2.0,
    finger_patch_radius=0.01,
    # With the scene's critically damped 5 ms contacts, a squeezed cube and the heavily
    # damped fingers (200 N s/m on 16 g) fell into a limit cycle in MuJoCo C: the pads
    # crept open at 2.6 cm/s under 15 N until the contacts vanished (every ~0.12 s),
    # then closed again with the grip force rebuilt from 1 N over ~60 ms. The cube slid
    # in those moments (up to 4 cm over a 20 cm carry; in MJX the held cube slipped the
    # same way and its grasp check flickered). Overdamped
    # finger contacts (ratio 4) hold a steady 9.5 N (the drive's 1000 N/m times the
    # 9.5 mm the cube keeps the fingers from closing). benchmarks/RESULTS.md, "Stack cube".
    finger_object_dampratio=4.0,
    # 32 hull vertices round the finger pads off enough that a 3 cm cube slips out
    # of the grip in MuJoCo C; 64 is the full hull (benchmarks/RESULTS.md, grasp).
    finger_hull_budget=64,
    # The finger STL's pad is flat (y = -8.95 mm in the link frame, 16-43 mm along the
    # finger, +-14.5 mm wide) with a 2 mm bump near the knuckle; the convex hull bridges
    # the tip to the bump and tilts the pad face by 3 degrees. MJX takes that tilted face
    # as the contact normal and loses a gripped cube (MuJoCo C takes the cube's face);
    # a flat box on the pad plane touches objects instead (benchmarks/RESULTS.md, grasp).
    finger_pads=(
        ("left_finger_link", (0.0295, -0.00695, 0.0), (0.0135, 0.002, 0.014)),
        ("right_finger_link", (0.0295, 0.00695, 0.0), (0.0135, 0.002, 0.014)),
    ),
    extra_friction=(),
    base_height=0.870,
    sim_freq=500,
    control_freq=5,
    keep_links=("ee_gripper_link",),
)
