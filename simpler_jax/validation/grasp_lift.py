"""Grasp-and-lift of one object: MJX on simplified collision vs MuJoCo C on the original.

Both engines run the same scene (robot, table, object), the same SIMPLER
controller (our JAX controller, called on each engine's own measured state) and
the same closed-loop scripted grasp, acting only through the 7-D action:
move above the object, descend, close, lift, hold. The object's height gain and
whether it is lifted are compared.

The Google Robot lifts a standing `opened_coke_can` (SIMPLER's pick-coke-can
object, standing orientation). The WidowX's open fingers leave a 5.2 cm gap, less
than the can's 6.6 cm diameter (no SIMPLER WidowX task uses a can), so it lifts
the 3 cm `green_cube_3cm` of the stack-cube task instead.

Status (see benchmarks/RESULTS.md, grasp section): both robots pass. Both modes
touch the object through the same contact pairs (friction, torsion, softness); the
simplified WidowX touches it through flat box pads on its finger pads
(`RobotConfig.finger_pads`), because the finger hull's 3-degree pad tilt (a hull
artifact) made MJX lose the cube; its finger-object contacts are overdamped
(`RobotConfig.finger_object_dampratio`: critically damped, the squeezed cube and the
fingers fell into a limit cycle that let go of it every ~0.1 s). The Google fingers carry rotor inertia
(`RobotConfig.finger_armature`; without it the 60 N*m drive on 50 g fingers threw the
can in both engines) and the hand approaches tilted by 0.4 rad from straight down
(straight down the wrist reaches its limit during the lift): MJX lifts the can
8.5 cm where MuJoCo C on the original meshes lifts it 8.4 cm.

One WidowX grasp decides nothing: at a given grasp height the cube may slide out of
the pads in one engine and not the other, and in MJX which one depends on the CPU
the program was compiled for (at +6 mm MJX lifted 8.2 cm on one machine, dropped the
cube after 4 cm on an AVX-512 one, and after 8 cm there with XLA limited to AVX2).
`compare_over_heights` therefore runs the grasp at several heights
(`GRASP_HEIGHTS`) in both engines and compares lift counts and final heights. (That
was before the finger-object contacts were overdamped; since then all five heights
lifted the cube in both engines, median final gap 3.6 mm, on one machine on
2026-12-06; other CPUs not measured.)

The case "widowx_spoon" (not in the test) grasps the spoon-on-towel spoon on its
handle, as the task's scripted policy does.
"""

from __future__ import annotations

import dataclasses
import time

import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.controllers import kinematics
from simpler_jax.envs.reference import MujocoCReference
from simpler_jax.envs.robot_env import RobotEnv
from simpler_jax.objects.build import ObjectSpec
from simpler_jax.scenes.scene import TABLE_TOP_Z, build_scene, default_scene
# The task policy's approach: axis, tilt (straight down the Google wrist, limit 1.79
# rad, sits at 1.69 rad when grasping and reaches its limit during the lift; tilted
# by 0.4 rad it stays at 1.4-1.56 rad) and turn rate.
from simpler_jax.tasks.scripted import APPROACH_AXIS, APPROACH_TILT, GRASP_POINT, ROT_STEP
from simpler_jax.utils.rotations_np import quat_to_mat


@dataclasses.dataclass(frozen=True)
class GraspCase:
    robot: str
    model_id: str
    density: float
    xy: tuple[float, float]  # object position on the table (world)
    quat: tuple[float, float, float, float]  # wxyz
    rest_z: float  # object origin height above the table top when resting
    grasp_dz: float  # TCP height above the object origin at the grasp
    close: float  # gripper action that closes
    open: float  # gripper action that opens (or holds open)
    grasp_x: float = 0.0  # grasp point along the object's model x axis from its origin (m)


CASES = {
    "google_robot": GraspCase(
        "google_robot", "opened_coke_can", 50.0, (-0.2, 0.2),
        (0.7071068, 0.7071068, 0.0, 0.0), 0.0691, -0.015, 1.0, 0.0,
    ),
    "widowx": GraspCase(
        "widowx", "green_cube_3cm", 1000.0, (-0.19, 0.03),
        (1.0, 0.0, 0.0, 0.0), 0.0151, 0.006, -1.0, 1.0,
    ),
    # The spoon-on-towel spoon (SIMPLER density 1200: 44 g), lying with its long axis
    # across the closing fingers, grasped where the task's scripted policy grasps it
    # (`GRASP_POINT`, on the handle). A diagnostic case, not in the test: see RESULTS.
    "widowx_spoon": GraspCase(
        "widowx", "bridge_spoon_generated_modified", 1200.0, (-0.19, 0.03),
        (1.0, 0.0, 0.0, 0.0), 0.0125, 0.0, -1.0, 1.0, GRASP_POINT["bridge_spoon_generated_modified"][0],
    ),
}

# TCP heights above the object origin at the grasp (m) that `compare_over_heights`
# runs. The WidowX's cube is 3 cm: from 6 mm above its centre to 8 mm below (one
# grasp there is chaotic, see the module text); one run of the Google can is steady.
GRASP_HEIGHTS = {"google_robot": (CASES["google_robot"].grasp_dz,), "widowx": (0.006, 0.003, 0.0, -0.004, -0.008),
                 "widowx_spoon": (0.005, 0.0, -0.004)}

# The scripted grasp: (phase, max control steps, done-tolerance in m or None = run all steps).
PHASES = (("above", 30, 0.01), ("descend", 25, 0.006), ("close", 5, None), ("lift", 30, 0.01), ("hold", 2, None))
MAX_STEP = 0.04  # m per control step, empty hand
# m per control step with the object in hand. The WidowX controller jumps its joint
# target once per control step (no interpolation); a 4 cm jump jerks the hand at
# ~3 m/s for a few ms, faster than finger friction (60 N drive, mu 1.25-2) can carry
# a 30 g cube, and the cube is thrown out in either engine. 5 mm per step (Bridge
# policies command 1-2 cm at most) keeps it in hand in MuJoCo C on the original meshes.
# The Google controller interpolates each step's motion (jerk-limited plan), and its
# arm moves about a third of a small command per step, so it lifts 1.5 cm per step.
LIFT_STEP = {"google_robot": 0.015, "widowx": 0.005}
ABOVE_HEIGHT = 0.08  # pre-grasp height above the grasp point (m)
LIFT_HEIGHT = 0.10  # m above the grasp height


def scene_spec(case: GraspCase, collision: str):
    pos = (case.xy[0], case.xy[1], TABLE_TOP_Z + case.rest_z + 0.001)
    obj = ObjectSpec(case.model_id, case.density, pos, case.quat, name="object")
    return default_scene(case.robot, (obj,), collision=collision)


def _base_frame(params):
    r = quat_to_mat(np.asarray(params.base_quat))
    return np.asarray(params.base_pos), r


class ScriptedGrasp:
    """Closed-loop grasp-and-lift through the 7-D action; phases end on reaching
    their target (or after their step budget), judged on the measured TCP."""

    def __init__(self, case: GraspCase, params, grasp_world: np.ndarray):
        self.case = case
        self.base_p, self.base_r = _base_frame(params)
        up = np.array([0.0, 0.0, 1.0])
        self.targets = {
            "above": grasp_world + ABOVE_HEIGHT * up,
            "descend": grasp_world,
            "close": grasp_world,
            "lift": grasp_world + LIFT_HEIGHT * up,
            "hold": grasp_world + LIFT_HEIGHT * up,
        }
        self.phase = 0
        self.steps_in_phase = 0
        self.log: list[str] = []

    def _to_base(self, world):
        return self.base_r.T @ (np.asarray(world) - self.base_p)

    @property
    def finished(self) -> bool:
        return self.phase >= len(PHASES)

    def action(self, tcp_base: np.ndarray, origin: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """tcp_base: measured TCP position (base frame). origin: the (position,
        rotation) the controller applies deltas to (measured TCP pose for Google,
        accumulated target pose for WidowX). Until the grasp the rotation part turns
        the gripper's approach axis down (`APPROACH_TILT`; at most `ROT_STEP[robot]` rad per
        step), so the fingers pinch horizontally."""
        delta_origin_base, rot = origin
        name, budget, tol = PHASES[self.phase]
        target = self._to_base(self.targets[name])
        reached = tol is not None and np.linalg.norm(target - tcp_base) < tol
        if reached or self.steps_in_phase >= budget:
            self.phase += 1
            self.steps_in_phase = 0
            if self.finished:
                return None
            name, budget, tol = PHASES[self.phase]
            target = self._to_base(self.targets[name])
        self.log.append(name)
        self.steps_in_phase += 1
        step = LIFT_STEP[self.case.robot] if name in ("lift", "hold") else MAX_STEP
        delta = np.clip(target - delta_origin_base, -step, step)
        gripper = self.case.close if name in ("close", "lift", "hold") else self.case.open
        # Orientation is set on the way down and then held: turning a closed hand
        # only twists the grip.
        turn = self.align_down(rot) if name in ("above", "descend") else np.zeros(3)
        return np.concatenate([delta, turn, [gripper]]).astype(np.float32)

    def align_down(self, rot: np.ndarray) -> np.ndarray:
        approach = rot[:, APPROACH_AXIS[self.case.robot]]
        tilt = APPROACH_TILT[self.case.robot]
        down = np.array([np.sin(tilt), 0.0, -np.cos(tilt)])  # base frames are z-up
        axis = np.cross(approach, down)
        sin, cos = np.linalg.norm(axis), float(approach @ down)
        if sin < 1e-9:
            return np.zeros(3)
        angle = min(np.arctan2(sin, cos), ROT_STEP[self.case.robot])
        return axis / sin * angle


MAX_STEPS = int(sum(n for _, n, _ in PHASES))


@dataclasses.dataclass
class GraspResult:
    object_z: np.ndarray  # (T+1,) object height per control step
    lifted_by: float  # final height gain of the object (m)
    lifted: bool  # gain > 5 cm
    phases: tuple[str, ...]  # phase of each control step

    @classmethod
    def from_heights(cls, z, phases):
        z = np.asarray(z)
        gain = float(z[-1] - z[0])
        return cls(z, gain, gain > 0.05, tuple(phases))


def _delta_origin(env: RobotEnv, qpos, controller) -> tuple[np.ndarray, np.ndarray]:
    """The pose the robot's controller applies deltas to (base frame)."""
    if env.scene.robot.name == "widowx":
        return np.asarray(controller.ee_target_pos), np.asarray(controller.ee_target_rot)
    return _tcp_pose(env, qpos)


def _tcp_pose(env: RobotEnv, qpos) -> tuple[np.ndarray, np.ndarray]:
    idx = env.index
    q = jnp.asarray(np.asarray(qpos)[idx.arm_qpos][idx.ik_in_arm], jnp.float32)
    p, r, _, _ = kinematics.forward_kinematics(env.chain, q)
    return np.asarray(p), np.asarray(r)


def _tcp_base(env: RobotEnv, qpos) -> np.ndarray:
    return _tcp_pose(env, qpos)[0]


def grasp_point(case: GraspCase, obj_pos_world: np.ndarray) -> np.ndarray:
    along = quat_to_mat(np.asarray(case.quat)) @ np.array([case.grasp_x, 0.0, 0.0])
    return obj_pos_world + along + np.array([0.0, 0.0, case.grasp_dz])


def run_mjx(env: RobotEnv, case: GraspCase, reset=None, step=None) -> GraspResult:
    params = env.default_params()
    reset = reset or jax.jit(env.reset)
    step = step or jax.jit(env.step)
    state = reset(params, jax.random.PRNGKey(0))
    adr = int(env.index.object_qpos[0])
    obj0 = np.asarray(state.data.qpos)[adr : adr + 3]
    grasp = grasp_point(case, obj0)
    heights = [float(obj0[2])]
    policy = ScriptedGrasp(case, params, grasp)
    for _ in range(MAX_STEPS):
        qpos = np.asarray(state.data.qpos)
        a = policy.action(_tcp_base(env, qpos), _delta_origin(env, qpos, state.controller))
        if a is None:
            break
        state = step(params, state, jnp.asarray(a))
        heights.append(float(np.asarray(state.data.qpos)[adr + 2]))
    return GraspResult.from_heights(heights, policy.log)


def run_mujoco_c(env: RobotEnv, original_model, case: GraspCase, control_targets=None, reset=None) -> GraspResult:
    """The same rollout in MuJoCo C on `original_model` (same layout, original geometry)."""
    params = env.default_params()
    control_targets = control_targets or jax.jit(env.control_targets)
    reset = reset or jax.jit(env.reset)
    state = reset(params, jax.random.PRNGKey(0))
    ref = MujocoCReference(env, params, original_model)
    ref.set_state(state.data.qpos, state.data.qvel, state.data.ctrl)
    controller = state.controller
    adr = int(env.index.object_qpos[0])
    obj0 = ref.data.qpos[adr : adr + 3].copy()
    grasp = grasp_point(case, obj0)
    heights = [float(obj0[2])]
    policy = ScriptedGrasp(case, params, grasp)
    for _ in range(MAX_STEPS):
        qpos = ref.data.qpos.copy()
        a = policy.action(_tcp_base(env, qpos), _delta_origin(env, qpos, controller))
        if a is None:
            break
        ctrl_seq, controller = control_targets(
            params, jnp.asarray(qpos, jnp.float32), jnp.asarray(ref.data.qvel, jnp.float32),
            controller, jnp.asarray(a),
        )
        ref.control_step(ctrl_seq)
        heights.append(float(ref.data.qpos[adr + 2]))
    return GraspResult.from_heights(heights, policy.log)


@dataclasses.dataclass
class HeightSweep:
    """The grasp of one robot at several grasp heights in both engines."""

    robot: str
    grasp_dz: tuple[float, ...]  # (n,) TCP height above the object origin (m)
    mjx: tuple[GraspResult, ...]  # (n,) simplified collision in MJX
    mujoco_c: tuple[GraspResult, ...]  # (n,) original meshes in MuJoCo C

    def lift_counts(self) -> tuple[int, int]:
        """(MJX, MuJoCo C): how many of the heights end with the object lifted."""
        return sum(r.lifted for r in self.mjx), sum(r.lifted for r in self.mujoco_c)

    def median_final_gap(self) -> float:
        """Median |MJX - MuJoCo C| final height gain (m) over the heights where both
        engines lifted the object (inf where there is none)."""
        gaps = [abs(m.lifted_by - c.lifted_by) for m, c in zip(self.mjx, self.mujoco_c) if m.lifted and c.lifted]
        return float(np.median(gaps)) if gaps else float("inf")


def compare_over_heights(robot: str, grasp_dz: tuple[float, ...] | None = None, timings: dict | None = None) -> HeightSweep:
    """The scripted grasp of `robot`'s case at each grasp height (default
    `GRASP_HEIGHTS[robot]`) in MJX and MuJoCo C, one compiled program for all.
    `timings`, if given, receives wall seconds per (engine, grasp_dz)."""
    env, original, case = build_pair(robot)
    reset, step, control_targets = jax.jit(env.reset), jax.jit(env.step), jax.jit(env.control_targets)
    heights = tuple(GRASP_HEIGHTS[robot] if grasp_dz is None else grasp_dz)
    mjx_runs, c_runs = [], []
    for dz in heights:
        at = dataclasses.replace(case, grasp_dz=float(dz))
        for engine, runs, run in (
            ("mujoco_c_original", c_runs, lambda: run_mujoco_c(env, original, at, control_targets, reset)),
            ("mjx_simplified", mjx_runs, lambda: run_mjx(env, at, reset, step)),
        ):
            t0 = time.perf_counter()
            runs.append(run())
            if timings is not None:
                timings[(engine, float(dz))] = time.perf_counter() - t0
    return HeightSweep(robot, heights, tuple(mjx_runs), tuple(c_runs))


def build_pair(robot: str):
    """(simplified env, original-geometry MuJoCo model, case) for one robot."""
    case = CASES[robot]
    env = RobotEnv(build_scene(scene_spec(case, "simplified")))
    original = build_scene(scene_spec(case, "original")).mj_model
    return env, original, case
