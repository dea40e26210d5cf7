"""A privileged-state scripted policy per task family, acting only through the 7-D action.

It reads the simulator state (object centres of mass, the measured TCP, the
controller's target) but commands the robot exactly as a trained policy would:
`[dx, dy, dz, rx, ry, rz, gripper]` in the robot's SIMPLER controller convention.
It is a pure JAX function of one world, so a whole episode grid runs in one
`jit(vmap)` rollout with the physics:

    policy = ScriptedPolicy(env)                      # env: TaskEnv
    pstate = jax.vmap(policy.init)(params, state)
    action, pstate = jax.vmap(policy)(params, state, pstate)

A plan is a fixed table of phases (waypoint, gripper, step size, tolerance, step
budget); a phase ends when the TCP is within its tolerance of its waypoint or its
budget is spent. Waypoints are recomputed every step from the current state, and the
TCP position and the source-to-TCP offset at the moment the gripper starts closing
are remembered (`anchor`, `grasp_offset`), so lifting and placing are relative to
the actual grasp; while carrying, the offset follows the object in the hand (it may
slip), so it is placed where it is. An object that moves more than `LOST_DISTANCE`
in the hand since closing counts as dropped, and the plan starts again from above
it (the Google move-near carry measures the grasp again when the close ends,
`REMEASURE_AFTER_CLOSE`). The gripper's approach axis is turned down (for a grasp the Google hand is
tilted by 0.4 rad) and its closing direction across the source's longest (info-JSON bbox)
axis before the grasp (the Google move-near hand closes across its tilt on standing cans
and bottles, `SQUARE_STANDING`); the Google hand then holds its orientation.

Families: grasp (reach, close, lift, hold), put_on and move_near (reach, close,
lift, carry, lower, release, retreat; move near sets the source down beside the
target at the height it stood at, `move_near_place`; over a scene's fixed objects, such as the
eggplant task's sink and basket, the lift first raises the object clear of them;
move near's flat sponge is pushed instead, with the closed hand behind it,
`push_waypoints`),
drawer "close" (push the drawer front back
with the closed gripper), drawer "open" (SIMPLER's handles have no collision: hook
the closed fingers over the front's top edge, from in front and above, and pull).
The place-in-drawer task ("pull_place") opens the top drawer that way, then picks
the apple off the cabinet top and lowers it into the drawer.
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.controllers import kinematics
from simpler_jax.utils.rotations import quat_to_mat

APPROACH_AXIS = {"google_robot": 2, "widowx": 0}  # TCP axis pointing out of the gripper
CLOSING_AXIS = 1  # TCP axis the fingers close along (both robots)
# Max turn of the gripper per control step (rad). The Google arm's jerk-limited plan
# turns the hand ~0.07 rad per step on 0.15 rad commands, too slow to square the
# hand to a lying can in time; the WidowX keeps its value (its grids are tuned to it).
ROT_STEP = {"google_robot": 0.3, "widowx": 0.15}
# Grasps turn the approach axis down, tilted by this angle toward base +x. Straight down
# the Google wrist (limit 1.79 rad) reaches its limit while lifting and the IK drifts
# sideways; tilted by 0.4 rad it keeps clear (simpler_jax.validation.grasp_lift).
APPROACH_TILT = {"google_robot": 0.4, "widowx": 0.0}
# Whether the hand keeps turning toward the approach direction with the object in
# it. The Google controller re-targets from the measured pose, so turning a closed
# hand twists the grip; the WidowX turns its accumulated target, already aligned.
TURN_IN_HAND = {"google_robot": False, "widowx": True}
# Gripper actions: WidowX is absolute (+1 open, -1 closed); the Google gripper is
# relative (+1 closes fully, -1 opens fully, 0 holds).
GRIPPER = {"google_robot": {"open": -1.0, "close": 1.0}, "widowx": {"open": 1.0, "close": -1.0}}
# The hand points down and forward, this far from straight down (rad), while it opens
# a drawer: horizontal (pi/2), the IK could not hold the TCP at the middle and bottom
# drawers' heights and the arm ran out of reach pulling the top one.
PULL_TILT = 0.9
CABINET_X = -0.295  # cabinet root x (world)
DRAWER_FRONT_X = 0.305 + 0.0075  # front face of a drawer in the cabinet frame
DRAWER_Z = (0.685, 0.440, 0.195)  # world z of the drawer joints


@dataclasses.dataclass(frozen=True)
class Phase:
    name: str
    gripper: str  # "open" | "close"
    step: float  # max TCP travel per control step (m)
    tol: float  # done when the TCP is this close (m); < 0: run the whole budget
    budget: int  # max control steps
    align: bool = False  # turn the gripper to the source before grasping
    # The approach axis points down, tilted this far toward base +x (rad); None: the
    # plan's grasp approach to the source (`ScriptedPolicy._approach`).
    tilt: float | None = None


# Opening a drawer: SIMPLER's handles have no collision, so the closed fingers,
# pointing down and forward at the cabinet (`PULL_TILT`), go in over the drawer
# front's top edge, drop behind it and pull the front out. From the far poses (a2,
# b2, c2) the arm needs the larger steps to get behind the bottom drawer's front in
# time; at the limit of its reach "insert" stalls ~1 cm short and spends its budget.
PULL_PHASES = (
    Phase("level", "close", 0.15, 0.015, 40, tilt=PULL_TILT),
    Phase("insert", "close", 0.04, 0.008, 30, tilt=PULL_TILT),
    Phase("hook", "close", 0.02, 0.008, 10, tilt=PULL_TILT),
    Phase("pull", "close", 0.03, 0.01, 40, tilt=PULL_TILT),
)
PLANS = {
    # The grasp family is Google-only. Its arm re-plans from the measured pose every
    # step and covers ~1 cm per step on 4 cm commands; 8 cm commands reach the pre-grasp
    # point about twice as fast (the lying cans need the time to turn the hand).
    "pick": (
        Phase("above", "open", 0.08, 0.015, 25, True), Phase("descend", "open", 0.02, 0.006, 15, True),
        Phase("close", "close", 0.0, -1.0, 5), Phase("lift", "close", 0.02, 0.01, 15),
        Phase("hold", "close", 0.01, -1.0, 1000),
    ),
    # With the object in hand the TCP lifts and lowers at most 6 mm per control step
    # and carries at 1 cm: the WidowX controller jumps its joint target once per step,
    # and lifting 1 cm per step let a 3 cm cube slide 2 cm down the pads in MJX and
    # fall out; carrying 28 cm at 1.2 cm per step slid it off the pads sideways.
    "carry": (
        Phase("above", "open", 0.04, 0.01, 10, True), Phase("descend", "open", 0.02, 0.006, 8, True),
        Phase("close", "close", 0.0, -1.0, 2), Phase("lift", "close", 0.006, 0.006, 6),
        Phase("carry", "close", 0.01, 0.008, 30), Phase("lower", "close", 0.006, 0.005, 4),
        Phase("release", "open", 0.0, -1.0, 2), Phase("retreat", "open", 0.02, -1.0, 1000),
    ),
    "push": (
        Phase("level", "close", 0.04, 0.015, 60, tilt=0.0), Phase("push", "close", 0.03, 0.01, 40, tilt=0.0),
        Phase("back", "close", 0.03, -1.0, 1000, tilt=0.0),
    ),
    "pull": (*PULL_PHASES, Phase("hold", "close", 0.0, -1.0, 1000, tilt=PULL_TILT)),
    # The apple into the top drawer: open it as "pull" does, rise out of it opening
    # the hand (still tilted: turning it behind the front pushed the drawer back in),
    # pick the apple off the cabinet top, carry it over the gap between the tabletop's
    # front edge and the drawer's front wall, lower it in and let go.
    "pull_place": (
        *PULL_PHASES, Phase("rise", "open", 0.08, 0.02, 20, tilt=PULL_TILT),
        Phase("above", "open", 0.08, 0.015, 25, True), Phase("descend", "open", 0.02, 0.006, 15, True),
        Phase("close", "close", 0.0, -1.0, 5), Phase("lift", "close", 0.02, 0.01, 10),
        Phase("carry", "close", 0.04, 0.01, 25), Phase("lower", "close", 0.02, 0.008, 15),
        Phase("release", "open", 0.0, -1.0, 3), Phase("retreat", "open", 0.02, -1.0, 1000),
    ),
    "hold": (Phase("hold", "close", 0.0, -1.0, 100000, tilt=0.0),),
}
# Per-robot replacements of a plan. The Google arm moves a fraction of each command
# (see "pick"), so its carry (move near, 80 steps) takes larger steps than the WidowX's.
ROBOT_PLANS = {
    "google_robot": {
        "carry": (
            Phase("above", "open", 0.08, 0.015, 25, True), Phase("descend", "open", 0.02, 0.006, 12, True),
            Phase("close", "close", 0.0, -1.0, 4), Phase("lift", "close", 0.02, 0.006, 6),
            Phase("carry", "close", 0.04, 0.01, 25), Phase("lower", "close", 0.02, 0.006, 8),
            Phase("release", "open", 0.0, -1.0, 2), Phase("retreat", "open", 0.02, -1.0, 1000),
        ),
    },
}
# Per-task replacements of a plan: the WidowX "carry" with phases replaced by name. The
# eggplant is lifted out of the sink and carried over the basket's rim
# (`OBSTACLE_CLEARANCE`): 10-15 cm of lift and as much lowering into the basket, which
# the 120-step episode has time for. It lifts at 6 mm per step as the other carries: at
# 1 cm an eggplant slid 2.7 cm along its long axis in four steps and shot out of the hand.
TASK_PLANS = {
    "widowx_put_eggplant_in_basket": tuple(
        {"lift": Phase("lift", "close", 0.006, 0.006, 30),
         "lower": Phase("lower", "close", 0.006, 0.005, 20)}.get(p.name, p) for p in PLANS["carry"]),
}
# Phases in which a dropped object is grasped again (default: lift, carry, hold).
# Over the open drawer a drop is a placement: chasing the apple inside the drawer
# pushed the drawer shut.
REGRASP_AFTER_DROP = {"pull_place": ("lift",)}
# (robot, plan) whose grasp (anchor and offsets) is measured again when the close
# phase ends: the Google fingers closing on move near's standing bottle push the hand
# up 3 cm, which counted as a drop at the first lift step, and the restart opened the
# hand and let the bottle fall (benchmarks/RESULTS.md, "how the standing bottle is lost").
REMEASURE_AFTER_CLOSE = {("google_robot", "carry")}
# (robot, plan) whose hand turns, before grasping a standing elongated source (a can,
# the bottle: longest bbox axis >= `ELONGATED` x shortest), to close across its tilt
# direction, so the tilt turns the fingers about their closing axis and their pads
# stay vertical. Tilted across the pads, the closing fingers squared move near's
# standing cans and bottle to the hand's 23 deg and they fell over when let go
# (benchmarks/RESULTS.md, "Move near: the cans tilted in the hand").
SQUARE_STANDING = {("google_robot", "carry")}
ELONGATED = 1.5
ABOVE = 0.05  # pre-grasp height of the TCP above the grasp point (m)
LIFT = 0.06  # m (pick)
LIFT_MIN = 0.025  # m: carry plans lift the object straight up this much first
CARRY_CLEARANCE = 0.01  # m above the place point at the end of the carry
NEAR_CARRY_CLEARANCE = 0.04  # the same for move near, whose place point is on the table
# m between the bottom of a carried object and the top of the scene's fixed objects
# (the sink and its basket), where it has any: it is lifted to there, then carried.
OBSTACLE_CLEARANCE = 0.015
LOST_DISTANCE = 0.03  # m the object may move in the hand (since closing) before it counts as dropped
PLACE_GAP = 0.005  # m between the bottom of the source and the top of the target when released
GRASP_DZ = {"google_robot": -0.01, "widowx": 0.0}  # TCP height relative to the source COM
# The same for a source lying on its side (long axis horizontal, e.g. a lying can).
# The Google TCP is where the fingernails meet when fully closed; open, they are 3.3 cm
# above it and sweep down as they close, and the fingertip pads sit 3-6 cm above it.
# At the standing can's -1 cm the pads closed on a lying can's top curve and
# squeezed it out; 2.5 cm below the centre they close across its widest part.
LYING_GRASP_DZ = {"google_robot": -0.025, "widowx": 0.0}
# Grasp points off the centre of mass, in the object's model frame (m). The Bridge
# spoon's centre of mass is where its handle tapers (8 mm wide at the neck, 21 mm 1 cm
# past the centre of mass): the squeezing fingers pushed it 2 cm along, toward its wide
# end, and it fell out during the carry (0 of 4 traced episodes). 3.2 cm further along,
# the handle's end is flat-sided (24 mm wide): 10 of 24 on the full grid, most of them
# dragged rather than carried (benchmarks/RESULTS.md, "Spoon and eggplant"); 22 of 24
# since the WidowX finger contacts are overdamped (one failure went non-finite). The
# eggplant tapers from its widest section (3.7 cm, 0-2 cm along its model x axis) to the
# stem: it is taken there, 7.5 mm past its centre of mass (with the slower lift: 24 of 24
# on the full grid, 2026-12-06).
GRASP_POINT = {"bridge_spoon_generated_modified": (0.032, 0.0, 0.0), "eggplant": (0.0075, 0.0, 0.0)}
TALL_SOURCE = 0.15  # m: sources taller than this (standing) are grasped near their top
TOP_GRASP_DEPTH = 0.07  # m: there, the grasp TCP is at most this far below the top
PUSH_STANDOFF = 0.10  # m in front of the drawer face
PUSH_END = 0.03  # m: TCP x in front of the closed drawer face at the end of the push
PUSH_HEIGHT = -0.04  # m: push the lower half of the drawer front (keeps the hand off the top)
DRAWER_FRONT_INNER_X = 0.305 - 0.0075  # back face of a drawer front in the cabinet frame
DRAWER_FRONT_TOP = 0.07  # m: top edge of a drawer front above its joint
HOOK_CLEAR = 0.045  # m: TCP above the front's top edge while going in
HOOK_DEPTH = 0.015  # m: TCP below the top edge (the interior front wall is 4 cm below it)
HOOK_BEHIND = 0.025  # m: TCP behind the front's back face
PULL_OPEN = 0.19  # m the front is pulled out (success: >= 0.15)
TABLETOP_FRONT_X = 0.315  # front edge of the cabinet top in the cabinet frame
DRAWER_FLOOR = -0.05  # m: top of a drawer's interior bottom above its joint
DRAWER_WALL_INNER = -0.0225  # m: back of a drawer's interior front wall, from the opening
DROP_GAP = 0.03  # m between the bottom of the apple and the drawer floor when released
RISE_CLEAR = 0.05  # m above the pre-grasp point when the hand leaves the open drawer
# Move near's flat sources (the 3.6 cm sponge) are pushed, not carried: the closing
# Google fingers ride 1.3-1.9 cm up on them, the pads stay above the sponge and it
# slid out of the hand at the lift (benchmarks/RESULTS.md, "Move near: the flat sponge
# slips out at the lift"). The closed hand goes down behind the source (from its
# xy bounding circle) and pushes it to the place point.
FLAT_SOURCE = 0.045  # m: move-near sources thinner than this are pushed
PUSH_BEHIND = 0.02  # m between the source's xy bounding circle and the TCP before the push
PUSH_ABOVE_TABLE = 0.012  # m: TCP above the source's bottom while pushing
PUSH_RISE = 0.10  # m the hand rises after the push
# Move near's place point: the source's and target's xy bounding circles this far apart
# (the rule allows their half diagonals plus 10 cm). A carried source is set down
# `NEAR_GAP` off: at 2 cm the hand lowering it knocked the 20 cm bottle over, and the
# Google fingers, opening fully at the release, swing 17-20 mm past where they closed
# (toward a target along the closing axis) and pushed standing cans over. A pushed
# source (the hand stays behind it) goes `PUSH_GAP` off.
NEAR_GAP = 0.05
PUSH_GAP = 0.02
# (robot, plan) whose hand, on its way to the pre-grasp point, keeps its height over
# the bystanders near its path until it is near (`clear_of_bystanders`): coming down
# diagonally from its start, the Google hand swept move near's standing 17 cm Red Bull
# can over on its way to the orange.
CLEAR_BYSTANDERS = {("google_robot", "carry")}
APPROACH_RADIUS = 0.08  # m (xy) from the pre-grasp point: the hand goes down to it
BYSTANDER_CLEARANCE = 0.02  # m of TCP over a bystander's top
HAND_HALF_WIDTH = 0.08  # m (xy) around the TCP the open hand and wrist take


def _unit_xy(v):
    """(3,) `v` flattened onto the xy plane, unit length (zero stays zero)."""
    v = v.at[2].set(0.0)
    return v / jnp.maximum(jnp.linalg.norm(v), 1e-6)


def move_near_place(src, src_rise, tgt, src_half, tgt_half, gap):
    """(3,) where move near puts the source's centre of mass: beside the target on the
    side the source comes from, their xy half diagonals plus `gap` apart, at the height
    it stood at (its centre of mass now less `src_rise`, how far its origin has risen
    since settling) plus `PLACE_GAP`, so a carried source is set down, not dropped.
    src, tgt: (3,) world centres of mass; src_half, tgt_half: (3,) half extents;
    src_rise, gap: () m."""
    away = _unit_xy(src - tgt)
    radius = jnp.linalg.norm(src_half[:2]) + jnp.linalg.norm(tgt_half[:2]) + gap
    return (tgt + radius * away).at[2].set(src[2] - src_rise + PLACE_GAP)


def clear_of_bystanders(tcp, pre_grasp, com, top, radius, bystander):
    """(3,) the pre-grasp waypoint while the TCP is more than `APPROACH_RADIUS` (xy)
    from it: no lower than `BYSTANDER_CLEARANCE` over the top of any bystander whose xy
    bounding circle comes within `HAND_HALF_WIDTH` of the straight xy path from the TCP
    to it, but no higher than the TCP is now (the hand holds its height; it does not
    climb). Within the radius, the waypoint itself.
    tcp, pre_grasp: (3,) world; com: (O, 3) objects' centres of mass; top: (O,) their
    top heights; radius: (O,) their xy half diagonals; bystander: (O,) bool."""
    start, end = tcp[:2], pre_grasp[:2]
    path = end - start
    along = jnp.clip((com[:, :2] - start) @ path / jnp.maximum(path @ path, 1e-9), 0.0, 1.0)
    off_path = jnp.linalg.norm(com[:, :2] - (start + along[:, None] * path), axis=1)
    in_the_way = bystander & (off_path < radius + HAND_HALF_WIDTH)
    need = jnp.max(jnp.where(in_the_way, top + BYSTANDER_CLEARANCE, -jnp.inf))
    held = jnp.maximum(pre_grasp[2], jnp.minimum(need, tcp[2]))
    far = jnp.linalg.norm(path) > APPROACH_RADIUS
    return pre_grasp.at[2].set(jnp.where(far, held, pre_grasp[2]))


def yaw_to_close_across(closing, toward):
    """() rad about base z, in [-pi/2, pi/2), turning the closing axis `closing` (3,)
    (sign-free) across the horizontal direction `toward` (2,), any length: a hand then
    tilted toward `toward` turns about its closing axis."""
    want = jnp.arctan2(toward[1], toward[0]) + jnp.pi / 2
    have = jnp.arctan2(closing[1], closing[0])
    return jnp.mod(want - have + jnp.pi / 2, jnp.pi) - jnp.pi / 2


@flax.struct.dataclass
class PolicyState:
    phase: jax.Array  # () int32
    steps: jax.Array  # () int32 steps spent in the phase
    anchor: jax.Array  # (3,) world TCP position when closing started
    grasp_offset: jax.Array  # (3,) TCP minus source COM, remembered while carrying
    closed_offset: jax.Array  # (3,) TCP minus source COM when closing started
    place_com: jax.Array  # (3,) move near: the source's place point, fixed when closing started


def plan_name(spec) -> str:
    if spec.family == "grasp":
        return "pick"
    if spec.family in ("put_on", "move_near"):
        return "carry"
    if spec.family == "drawer" and spec.drawer_action == "close":
        return "push"
    if spec.family == "drawer" and spec.drawer_action == "open":
        return "pull"
    if spec.family == "place_in_drawer":
        return "pull_place"
    return "hold"


def push_waypoints(src, src_half, place_com, place_committed, anchor, offset):
    """(8, 3) world waypoints of the "carry" phases for move near's pushed flat source.

    Above and behind the source, down to behind it (where closing starts, `anchor`),
    then the push: in a straight line at the anchor's height to `place_committed`
    (the place point fixed when closing started) plus `offset` (the TCP minus the
    source when closing started), i.e. the source's displacement to the place point,
    plus the gap the hand crosses before it touches the source (its xy bounding
    circle plus `PUSH_BEHIND`, less the source's half extent along the push), so the
    source's near side ends where it would with the hand against it; then it rises.
    A fixed end, not one that follows the source: a hand that slid past the source,
    or a source pushed off the line, would otherwise send the hand on into the
    target. `src` (3,) the source's centre of mass, `src_half` (3,) its half extents
    (world axes), `place_com` (3,) the place point at this step (it sets the push
    direction before closing)."""
    up = jnp.array([0.0, 0.0, 1.0])
    push = _unit_xy(place_com - src)
    behind = src - (jnp.linalg.norm(src_half[:2]) + PUSH_BEHIND) * push
    behind = behind.at[2].set(src[2] - src_half[2] + PUSH_ABOVE_TABLE)
    planned = _unit_xy(place_committed - (anchor - offset))  # from where the source was at closing
    gap = jnp.linalg.norm(src_half[:2]) + PUSH_BEHIND - jnp.abs(planned[:2]) @ src_half[:2]
    pushed = (place_committed + offset + gap * planned).at[2].set(anchor[2])
    return jnp.stack([behind + ABOVE * up, behind, anchor, anchor, pushed, pushed, pushed, pushed + PUSH_RISE * up])


class ScriptedPolicy:
    """The scripted policy of one `TaskEnv` (static plan, per-world state)."""

    def __init__(self, env):
        self.env = env
        self.robot = env.spec.robot
        self.plan_name = plan_name(env.spec)
        self.plan = TASK_PLANS.get(env.spec.name) or ROBOT_PLANS.get(self.robot, {}).get(
            self.plan_name, PLANS[self.plan_name])
        self._obstacle_top = env.fixed_object_top()  # -inf: nothing to carry over
        # (O, 3) model-frame grasp point of each object; None where all are at the centre of mass.
        points = np.array([GRASP_POINT.get(m, (0.0, 0.0, 0.0)) for m in env.model_ids], np.float32).reshape(-1, 3)
        self._grasp_point = points if points.any() else None
        self._step = np.array([p.step for p in self.plan], np.float32)
        self._tol = np.array([p.tol for p in self.plan], np.float32)
        self._budget = np.array([p.budget for p in self.plan], np.int32)
        grip = GRIPPER[self.robot]
        self._gripper = np.array([grip[p.gripper] for p in self.plan], np.float32)
        self._align = np.array([p.align for p in self.plan], bool)
        self._is_close = np.array([p.name == "close" for p in self.plan], bool)
        self._is_carry = np.array([p.name in ("carry", "lower") for p in self.plan], bool)
        self._in_hand = np.array([p.name in REGRASP_AFTER_DROP.get(self.plan_name, ("lift", "carry", "hold"))
                                  for p in self.plan], bool)
        closed = np.cumsum([p.name == "close" for p in self.plan]) > 0  # from the close phase on
        self._after_close = np.roll(self._is_close, 1) & ((self.robot, self.plan_name) in REMEASURE_AFTER_CLOSE)
        self._turn = ~closed | TURN_IN_HAND[self.robot]
        if self.plan_name == "pull":  # the hand keeps its pose once the drawer is out
            self._turn &= np.array([p.name != "hold" for p in self.plan])
        # Phases with a `tilt` point the hand that way (drawer pushes straight down,
        # pulls tilted further); the others approach the source at `APPROACH_TILT`.
        self._fixed_tilt = np.array([p.tilt is not None for p in self.plan], bool)
        self._tilt = np.array([APPROACH_TILT[self.robot] if p.tilt is None else p.tilt for p in self.plan],
                              np.float32)
        self._square_standing = (self.robot, self.plan_name) in SQUARE_STANDING
        self._clear_bystanders = (self.robot, self.plan_name) in CLEAR_BYSTANDERS
        # A dropped object sends the plan back to its first "above" phase.
        self._restart = next((i for i, p in enumerate(self.plan) if p.name == "above"), 0)

    def init(self, params, state) -> PolicyState:
        z = jnp.zeros(3)
        return PolicyState(jnp.array(0, jnp.int32), jnp.array(0, jnp.int32), z, z, z, z)

    # ----------------------------------------------------------------- frames
    def _tcp(self, state):
        """Measured TCP in the robot base frame: position (3,), rotation (3, 3)."""
        idx = self.env.env.index
        q = state.env.data.qpos[idx.arm_qpos][idx.ik_in_arm]
        p, r, _, _ = kinematics.forward_kinematics(self.env.env.chain, q)
        return p, r

    def _origin(self, state, tcp_base, tcp_rot):
        """The base-frame pose the controller adds deltas to."""
        if self.robot == "widowx":
            c = state.env.controller
            return c.ee_target_pos, c.ee_target_rot
        return tcp_base, tcp_rot

    def tcp_world(self, params, state):
        """(3,) measured world TCP position."""
        return params.robot.base_pos + quat_to_mat(params.robot.base_quat) @ self._tcp(state)[0]

    def object_com(self, state, index):
        """(3,) world centre of mass of object `index` (clamped to 0 when -1; zeros in a
        scene without objects)."""
        bodies = self.env.env.index.object_bodies
        if not len(bodies):
            return jnp.zeros(3)
        return state.env.data.xipos[bodies][jnp.maximum(index, 0)]

    # -------------------------------------------------------------- waypoints
    def _waypoints(self, params, state, ps: PolicyState, tcp_world):
        """(P, 3) world waypoints of every phase at this step."""
        up = jnp.array([0.0, 0.0, 1.0])
        name = self.plan_name
        if name == "hold":
            return jnp.broadcast_to(tcp_world, (1, 3))
        if name == "push":
            # In front of the drawer face at its fully open position, then to where
            # the face is when closed (plus the finger's half thickness).
            drawer = jnp.maximum(params.drawer, 0)
            closed_x = CABINET_X + DRAWER_FRONT_X
            z = jnp.asarray(DRAWER_Z)[drawer] + PUSH_HEIGHT
            start = jnp.stack([closed_x + 0.2 + PUSH_STANDOFF, params.robot.base_pos[1], z])
            pushed = start.at[0].set(closed_x + PUSH_END)
            return jnp.stack([start, pushed, start + 0.15 * up])
        if name == "pull":
            pull = self._pull_waypoints(params)
            return jnp.concatenate([pull, pull[-1:]])
        src = self.object_com(state, params.source)
        half = jnp.abs(state.ref.bbox_world) / 2  # (O, 3) half extents after settling
        src_half = half[jnp.maximum(params.source, 0)]
        dz = jnp.where(self._lying(params, state), LYING_GRASP_DZ[self.robot], GRASP_DZ[self.robot])
        grasp = src + dz * up
        if self._grasp_point is not None:
            source = jnp.maximum(params.source, 0)
            rot = state.env.data.xmat[self.env.env.index.object_bodies][source]
            grasp = grasp + rot @ jnp.asarray(self._grasp_point)[source]
        # Tall sources (move near's standing bottle, 20 cm) are taken near their top:
        # the open fingers cannot come down over them to their middle.
        near_top = jnp.maximum(grasp[2], src[2] + src_half[2] - TOP_GRASP_DEPTH)
        grasp = grasp.at[2].set(jnp.where(2 * src_half[2] > TALL_SOURCE, near_top, grasp[2]))
        pre_grasp = grasp + ABOVE * up
        if self._clear_bystanders:
            bodies = self.env.env.index.object_bodies
            com = state.env.data.xipos[bodies]  # (O, 3)
            others = jnp.arange(len(bodies)) != jnp.maximum(params.source, 0)
            pre_grasp = clear_of_bystanders(tcp_world, pre_grasp, com, com[:, 2] + half[:, 2],
                                            jnp.linalg.norm(half[:, :2], axis=1), others)
        lift = ps.anchor + LIFT * up
        if name == "pick":
            return jnp.stack([pre_grasp, grasp, ps.anchor, lift, lift])
        if name == "pull_place":
            return self._pull_place_waypoints(params, state, ps, src, src_half, grasp, lift)
        tgt = self.object_com(state, params.target)
        tgt_half = half[jnp.maximum(params.target, 0)]
        near = self.env.spec.family == "move_near"
        if near:
            place_com = self._near_place(params, state)
        else:
            place_com = tgt + (tgt_half[2] + src_half[2] + PLACE_GAP) * up
        place = place_com + ps.grasp_offset
        high = place + (NEAR_CARRY_CLEARANCE if near else CARRY_CLEARANCE) * up
        # Lift LIFT_MIN straight up, then carry in a straight line, still rising, to
        # above the place point (the Bridge grids put targets >= 10 cm from the source,
        # so a 3 cm target is cleared), then lower onto it.
        lift = ps.anchor + LIFT_MIN * up
        if np.isfinite(self._obstacle_top):  # lift the object's bottom over the fixed objects first
            over = self._obstacle_top + OBSTACLE_CLEARANCE + src_half[2] + ps.grasp_offset[2]
            lift = lift.at[2].set(jnp.maximum(lift[2], over))
        high = high.at[2].set(jnp.maximum(high[2], lift[2]))
        carried = jnp.stack([pre_grasp, grasp, ps.anchor, lift, high, place, place, high])
        if not near:
            return carried
        pushed = push_waypoints(src, src_half, place_com, ps.place_com, ps.anchor, ps.closed_offset)
        return jnp.where(self._flat(params, state), pushed, carried)

    def _near_place(self, params, state):
        """(3,) move near: where the source's centre of mass goes (`move_near_place`),
        `PUSH_GAP` from the target if the source is pushed, else `NEAR_GAP`."""
        half = jnp.abs(state.ref.bbox_world) / 2  # (O, 3)
        source, target = jnp.maximum(params.source, 0), jnp.maximum(params.target, 0)
        rise = state.env.data.xpos[self.env.env.index.object_bodies][source, 2] - state.ref.settle_pos[source, 2]
        return move_near_place(self.object_com(state, source), rise, self.object_com(state, target),
                               half[source], half[target], jnp.where(self._flat(params, state), PUSH_GAP, NEAR_GAP))

    def _flat(self, params, state):
        """() bool: move near's source is thinner than `FLAT_SOURCE` (pushed, not carried)."""
        if self.env.spec.family != "move_near" or not len(self.env.env.index.object_bodies):
            return jnp.array(False)
        half_z = jnp.abs(state.ref.bbox_world[jnp.maximum(params.source, 0), 2]) / 2
        return 2 * half_z < FLAT_SOURCE

    def _pull_waypoints(self, params):
        """(4, 3) world waypoints of `PULL_PHASES`: level, inside, hooked, pulled."""
        drawer = jnp.maximum(params.drawer, 0)
        inner_x = CABINET_X + DRAWER_FRONT_INNER_X
        top = jnp.asarray(DRAWER_Z)[drawer] + DRAWER_FRONT_TOP
        y = params.robot.base_pos[1]
        level = jnp.stack([inner_x + 0.12, y, top + HOOK_CLEAR])
        inside = level.at[0].set(inner_x - HOOK_BEHIND)
        hooked = inside.at[2].set(top - HOOK_DEPTH)
        pulled = hooked.at[0].add(PULL_OPEN)
        return jnp.stack([level, inside, hooked, pulled])

    def _pull_place_waypoints(self, params, state, ps: PolicyState, src, src_half, grasp, lift):
        """(13, 3) world waypoints of "pull_place"; `src` (3,) the source's centre of mass,
        `src_half` (3,) its half extents, `grasp`, `lift`: (3,) as for "pick"."""
        up = jnp.array([0.0, 0.0, 1.0])
        pull = self._pull_waypoints(params)
        rise = pull[-1].at[2].set(grasp[2] + ABOVE + RISE_CLEAR)
        # The apple's centre goes down the middle of the gap between the tabletop's
        # front edge and the open drawer's interior front wall, at its own y.
        drawer = jnp.maximum(params.drawer, 0)
        opening = state.stats.drawer_qpos
        edge_x = CABINET_X + TABLETOP_FRONT_X
        wall_x = CABINET_X + DRAWER_FRONT_INNER_X + opening + DRAWER_WALL_INNER
        floor = jnp.asarray(DRAWER_Z)[drawer] + DRAWER_FLOOR
        drop_com = jnp.stack([(edge_x + wall_x) / 2, src[1], floor + src_half[2] + DROP_GAP])
        place = drop_com + ps.grasp_offset
        high = place.at[2].set(jnp.maximum(lift[2], place[2]))
        return jnp.concatenate([pull, jnp.stack([rise, grasp + ABOVE * up, grasp, ps.anchor, lift, high,
                                                 place, place, high])])

    # ---------------------------------------------------------------- the policy
    def __call__(self, params, state, ps: PolicyState):
        """(action (7,) float32, new PolicyState) for one world."""
        base_r = quat_to_mat(params.robot.base_quat)
        base_p = params.robot.base_pos
        tcp_base, tcp_rot = self._tcp(state)
        tcp_world = base_p + base_r @ tcp_base
        flat = self._flat(params, state)
        wps = self._waypoints(params, state, ps, tcp_world)
        phase = ps.phase
        dist = jnp.linalg.norm(wps[phase] - tcp_world)
        tol = jnp.asarray(self._tol)[phase]
        done = ((tol >= 0) & (dist < tol)) | (ps.steps >= jnp.asarray(self._budget)[phase])
        last = len(self.plan) - 1
        phase = jnp.where(done, jnp.minimum(phase + 1, last), phase).astype(jnp.int32)
        steps = jnp.where(done, 0, ps.steps + 1).astype(jnp.int32)
        # Remember the grasp when the close phase begins (and, for `REMEASURE_AFTER_CLOSE`,
        # again when it ends); while carrying and lowering, follow the object in the hand.
        closing = done & (jnp.asarray(self._is_close)[phase] | jnp.asarray(self._after_close)[phase])
        carrying = jnp.asarray(self._is_carry)[phase]
        bodies = self.env.env.index.object_bodies
        if len(bodies):
            held = tcp_world - self.object_com(state, params.source)
            anchor = jnp.where(closing, tcp_world, ps.anchor)
            offset = jnp.where(closing | carrying, held, ps.grasp_offset)
            closed = jnp.where(closing, held, ps.closed_offset)
            place_com = ps.place_com
            if self.env.spec.family == "move_near":
                place_com = jnp.where(closing, self._near_place(params, state), place_com)
            # Dropped (the object left the fingers): start again from above it. A
            # pushed source is never in the hand.
            lost = (jnp.asarray(self._in_hand)[phase] & ~flat
                    & (jnp.linalg.norm(held - closed) > LOST_DISTANCE))
            phase = jnp.where(lost, self._restart, phase).astype(jnp.int32)
            steps = jnp.where(lost, 0, steps).astype(jnp.int32)
        else:
            anchor, offset, closed, place_com = ps.anchor, ps.grasp_offset, ps.closed_offset, ps.place_com
        ps = PolicyState(phase, steps, anchor, offset, closed, place_com)
        wps = self._waypoints(params, state, ps, tcp_world)
        origin_p, origin_r = self._origin(state, tcp_base, tcp_rot)
        target_base = base_r.T @ (wps[phase] - base_p)
        # Deltas are taken from the controller's origin; cap the TCP travel per step.
        max_step = jnp.asarray(self._step)[phase]
        delta = target_base - origin_p
        norm = jnp.linalg.norm(delta)
        delta = delta * jnp.minimum(1.0, max_step / jnp.maximum(norm, 1e-9))
        tilt = jnp.asarray(self._tilt)[phase]
        approach = self._tilted(jnp.array([1.0, 0.0]), tilt)
        if len(bodies):
            approach = jnp.where(jnp.asarray(self._fixed_tilt)[phase], approach,
                                 self._approach(params, state, base_r, base_p, tilt))
        rot = jnp.where(jnp.asarray(self._turn)[phase], self._align_approach(origin_r, approach), 0.0)
        if len(bodies):
            rot = rot + jnp.where(jnp.asarray(self._align)[phase], 1.0, 0.0) * self._align_yaw(
                params, state, origin_r, base_r)
        # A pushed source: the hand stays closed throughout.
        gripper = jnp.where(flat, GRIPPER[self.robot]["close"], jnp.asarray(self._gripper)[phase])
        action = jnp.concatenate([delta, rot, gripper[None]]).astype(jnp.float32)
        return action, ps

    @staticmethod
    def _tilted(toward, tilt):
        """(3,) base-frame unit vector: straight down, tilted by `tilt` toward the
        horizontal unit vector `toward` (2,)."""
        tilt = jnp.asarray(tilt, jnp.float32)
        return jnp.concatenate([jnp.sin(tilt) * toward, -jnp.cos(tilt)[None]])

    def _approach(self, params, state, base_r, base_p, tilt):
        """(3,) base-frame direction the approach axis is turned to for this source.

        Tilted by `tilt` (`APPROACH_TILT`): standing sources toward base +x, lying sources along
        their long axis (so the hand tilts about its closing axis and both fingertips
        stay at one height; tilted across it, one finger closed on the can's upper
        half, the other lower, and the can slipped out while lifting), away from the
        robot's base."""
        long_xy = (base_r.T @ self._long_axis(params, state))[:2]
        long_xy = long_xy / jnp.maximum(jnp.linalg.norm(long_xy), 1e-6)
        src_xy = (base_r.T @ (self.object_com(state, params.source) - base_p))[:2]
        along = jnp.where(long_xy @ src_xy < 0, -long_xy, long_xy)
        lying = self._lying(params, state)
        toward = jnp.where(lying, along, jnp.array([1.0, 0.0]))
        return self._tilted(toward, tilt)

    def _align_approach(self, rot, approach):
        """Rotation vector (base frame) turning the gripper's approach axis toward the
        unit vector `approach`, capped at `ROT_STEP`."""
        have = rot[:, APPROACH_AXIS[self.robot]]
        axis = jnp.cross(have, approach)
        sin = jnp.linalg.norm(axis)
        cos = have @ approach
        angle = jnp.minimum(jnp.arctan2(sin, cos), ROT_STEP[self.robot])
        return jnp.where(sin > 1e-6, axis / jnp.maximum(sin, 1e-9) * angle, jnp.zeros(3))

    def _long_axis(self, params, state):
        """(3,) world direction of the source's longest model axis (by its info-JSON
        bbox: a can's model y axis, a carrot's or spoon's x axis; x for a cube)."""
        bodies = self.env.env.index.object_bodies
        source = jnp.maximum(params.source, 0)
        longest = jax.nn.one_hot(jnp.argmax(params.bbox_size[source]), 3)
        return state.env.data.xmat[bodies][source] @ longest

    def _lying(self, params, state):
        """() bool: the source's long axis is within ~70 deg of horizontal."""
        return jnp.linalg.norm(self._long_axis(params, state)[:2]) > 0.3

    def _align_yaw(self, params, state, rot, base_r):
        """Rotation about base z putting the closing axis across the direction the hand
        tilts toward (`_approach`): across a lying source's long axis; across base +x
        for a standing elongated source under `SQUARE_STANDING`. Other sources standing
        on end get no yaw."""
        long_axis = base_r.T @ self._long_axis(params, state)
        lying = self._lying(params, state)
        toward = jnp.where(lying, long_axis[:2], jnp.array([1.0, 0.0]))
        err = yaw_to_close_across(rot[:, CLOSING_AXIS], toward)
        turn = lying
        if self._square_standing:
            size = params.bbox_size[jnp.maximum(params.source, 0)]
            turn = turn | (jnp.max(size) >= ELONGATED * jnp.min(size))
        return jnp.array([0.0, 0.0, 1.0]) * jnp.clip(err, -ROT_STEP[self.robot], ROT_STEP[self.robot]) * turn
