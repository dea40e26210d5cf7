"""Open-loop replay of real commands through the SIMPLER controller in MJX.

The SysID setting of the original (SIMPLER_SPEC.md §10.2): the robot alone (no
objects, no contacts) with its base at (0, 0, 1); each episode starts with the arm
placed by IK at the real first EE pose, then the real commanded deltas drive the
robot's SIMPLER EE controller (gripper action 0) and the simulated TCP pose in the
base frame is recorded before each command, against the real pose at that step.
Google runs its physics at 252 Hz here as the original's SysID (not the 513 Hz of
evaluation) and holds the head joints with stiffness 2000 / damping 600.

Everything is a pure function of the gains; `losses` is batched over candidate gain
sets and episodes (one `jit(vmap(vmap))` call).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.controllers import kinematics
from simpler_jax.data.episodes import Episode
from simpler_jax.envs.robot_env import RobotEnv
from simpler_jax.scenes.scene import SceneSpec, build_scene
from simpler_jax.sysid import loss as loss_lib
from simpler_jax.sysid.batch import EpisodeBatch, pad_episodes

SYSID_SIM_FREQ = {"google_robot": 252, "widowx": 500}
"""Physics frequency of the original's SysID runs (Hz)."""

SYSID_OTHER_JOINT_GAINS = {"google_robot": (2000.0, 600.0)}
"""(stiffness, damping) of driven joints SysID does not fit (the Google head)."""

SYSID_SOLVER_ITERATIONS = 1
"""Constraint-solver iterations in the SysID scene. Its only constraints are joint
limits (the Google wrist reaches its limit in 8 of the first 40 fractal episodes);
MJX runs more than one iteration in a `while_loop`, which reverse-mode autodiff
cannot pass, and one Newton iteration solves these few limit rows (the losses
differ from 20 iterations by less than 1e-4, benchmarks/RESULTS.md)."""

PLACEMENT_IK_ITERATIONS = 1000
PLACEMENT_WARN_ERROR = 0.02  # the original warns above this initial error


@dataclasses.dataclass(frozen=True)
class Placement:
    """IK placement at the first poses: joints (E, A+F), pose error (E,), converged (E,)."""

    init_qpos: np.ndarray
    error: np.ndarray
    converged: np.ndarray


class SysIDSim:
    """One robot's SysID simulator; `losses(gains, batch)` is the compiled objective."""

    def __init__(self, robot: str, sim_freq: int | None = None, assets=None, joint_limits: bool = True,
                 solver_iterations: int = SYSID_SOLVER_ITERATIONS):
        freq = SYSID_SIM_FREQ.get(robot) if sim_freq is None else sim_freq
        spec = SceneSpec(robot, (0.0, 0.0), base_yaw=0.0, base_z=1.0, hand_table_contacts=False,
                         sim_freq=freq, joint_limits=joint_limits, solver_iterations=solver_iterations)
        self.robot = robot
        self.env = RobotEnv(build_scene(spec, assets), max_steps=1 << 30)
        self.scene = self.env.scene
        m = self.scene.mj_model
        if m.npair != 0 or np.any((m.geom_contype | m.geom_conaffinity) != 0):
            raise RuntimeError("the SysID scene must be contact-free")
        self.index = self.scene.index
        self.base_params = self.env.default_params()
        self.fitted_in_arm = np.asarray(self.index.ik_in_arm)  # joints whose gains are fitted
        self.num_fitted = int(self.fitted_in_arm.shape[0])
        num_arm = self.index.arm_qpos.shape[0]
        other = np.setdiff1d(np.arange(num_arm), self.fitted_in_arm)
        k_other, d_other = SYSID_OTHER_JOINT_GAINS.get(robot, (0.0, 0.0))
        self._arm_k = np.asarray(self.base_params.arm_stiffness).copy()
        self._arm_d = np.asarray(self.base_params.arm_damping).copy()
        self._arm_k[other], self._arm_d[other] = k_other, d_other
        self._losses = jax.jit(jax.vmap(jax.vmap(self.episode_loss, (None, 0)), (0, None)))
        self.rollouts = jax.jit(jax.vmap(self.rollout, (None, 0, 0, 0)))
        """Compiled `rollout` of one gain set over a batch of episodes (E worlds)."""
        jnt = m.actuator_trnid[self.index.arm_actuators, 0]
        self._arm_range = np.asarray(m.jnt_range[jnt], np.float32)  # (A, 2)
        self._place = jax.jit(jax.vmap(self._place_one))

    # ----------------------------------------------------------- parameters
    def published_gains(self) -> np.ndarray:
        """(2n,) SIMPLER's chosen [K, D] of the fitted joints (SIMPLER_SPEC.md §10.4)."""
        k = np.asarray(self.base_params.arm_stiffness)[self.fitted_in_arm]
        d = np.asarray(self.base_params.arm_damping)[self.fitted_in_arm]
        return np.concatenate([k, d]).astype(np.float64)

    def arm_gains(self, gains):
        """(2n,) fitted [K, D] -> full arm (stiffness (A,), damping (A,))."""
        n = self.num_fitted
        k = jnp.asarray(self._arm_k, gains.dtype).at[self.fitted_in_arm].set(gains[:n])
        d = jnp.asarray(self._arm_d, gains.dtype).at[self.fitted_in_arm].set(gains[n:])
        return k, d

    # ------------------------------------------------------------ placement
    def _place_one(self, p, r):
        idx = self.index
        home = jnp.asarray(self.base_params.init_qpos)
        num_arm = idx.arm_qpos.shape[0]
        q0 = home[:num_arm][idx.ik_in_arm]
        q, ok = kinematics.solve_ik(self.env.chain, q0, p, r, PLACEMENT_IK_ITERATIONS)
        p_sim, r_sim, _, _ = kinematics.forward_kinematics(self.env.chain, q)
        err = loss_lib.pose_error(p_sim, r_sim, p, r)
        arm = home[:num_arm].at[idx.ik_in_arm].set(q)
        return home.at[:num_arm].set(arm), err, ok

    def prepare(self, episodes: Sequence[Episode], max_steps: int | None = None) -> tuple[EpisodeBatch, Placement]:
        """Pack `episodes` and place the arm by IK at each first pose."""
        position, rotation, action, mask = pad_episodes(episodes, max_steps)
        qpos, err, ok = self._place(jnp.asarray(position[:, 0]), jnp.asarray(rotation[:, 0]))
        batch = EpisodeBatch(position, rotation, action, mask, np.asarray(qpos))
        return batch, Placement(np.asarray(qpos), np.asarray(err), np.asarray(ok))

    # -------------------------------------------------------------- rollout
    def simulate(self, gains, action, init_qpos, mask=None):
        """One episode. gains (2n,); action (T, 6); mask (T,) valid steps or None (all);
        returns sim TCP (p (T,3), R (T,3,3)).

        Pose t is recorded before action t; the last action is not simulated (its
        outcome is never scored), nor is any action whose next step is padding.
        """
        p, r, _ = self.rollout(gains, action, init_qpos, mask)
        return p, r

    def limit_excess(self, arm_q, mask) -> np.ndarray:
        """(...,) largest excursion (rad) of any arm joint beyond its limit in each replay.

        arm_q: (..., T, A) from `rollout`; mask: (..., T). With the limits on (the
        default) this is the constraint's soft penetration, a few milliradians at
        most; with `joint_limits=False` it says how far the replay left the range.
        """
        q = np.asarray(arm_q)
        lo, hi = self._arm_range[:, 0], self._arm_range[:, 1]
        excess = np.maximum(np.maximum(lo - q, q - hi), 0.0).max(axis=-1)
        return np.where(np.asarray(mask), excess, 0.0).max(axis=-1)

    def rollout(self, gains, action, init_qpos, mask=None):
        """Like `simulate`, also returning the arm joints (T, A).

        Padded steps (mask False) hold the state under a `lax.cond` instead of
        stepping with the zero padding command: an arm coming to rest under a zero
        command makes MJX's constraint solve (run whenever the scene has joint-limit
        rows) return a NaN gradient (its line search divides by the zero Newton
        direction), and in the gradient objective (episodes mapped, not vmapped) the
        cond's idle branch is never differentiated.
        """
        k, d = self.arm_gains(jnp.asarray(gains, jnp.float32))
        params = self.base_params.replace(arm_stiffness=k, arm_damping=d,
                                          init_qpos=jnp.asarray(init_qpos, jnp.float32))
        env, idx = self.env, self.index
        state = env.reset(params, jax.random.PRNGKey(0))

        def tcp(s):
            arm = s.data.qpos[idx.arm_qpos]
            p, r, _, _ = kinematics.forward_kinematics(env.chain, arm[idx.ik_in_arm])
            return p, r, arm

        @jax.checkpoint
        def control_step(s, a_valid):
            a, valid = a_valid
            s = jax.lax.cond(valid, lambda s: env.step(params, s, jnp.concatenate([a, jnp.zeros(1, a.dtype)])),
                             lambda s: s, s)
            return s, tcp(s)

        valid = jnp.ones(action.shape[0], bool) if mask is None else jnp.asarray(mask, bool)
        first = tcp(state)
        _, rest = jax.lax.scan(control_step, state, (action[:-1], valid[1:]))
        return tuple(jnp.concatenate([f[None], r]) for f, r in zip(first, rest))

    def step_errors(self, gains, batch_one: EpisodeBatch):
        """(T,) per-step pose error of one episode."""
        p, r = self.simulate(gains, batch_one.action, batch_one.init_qpos, batch_one.mask)
        return loss_lib.pose_error(p, r, batch_one.position, batch_one.rotation)

    def episode_loss(self, gains, batch_one: EpisodeBatch):
        """() mean step error of one episode under `gains` (2n,)."""
        return loss_lib.episode_losses(self.step_errors(gains, batch_one), batch_one.mask)

    def losses(self, gains, batch: EpisodeBatch):
        """(C, E) episode losses for candidate gains (C, 2n) -- one compiled call."""
        return self._losses(jnp.asarray(gains, jnp.float32), batch)

    def objective(self, gains, batch: EpisodeBatch):
        """() mean over episodes for one gain set (2n,); differentiable in `gains`.

        Episodes are mapped one after another, not vmapped: under `vmap` the padded
        steps' `lax.cond` (see `rollout`) becomes a `select` that steps them anyway,
        and their NaN gradient would reach the sum.
        """
        return jnp.mean(jax.lax.map(lambda one: self.episode_loss(gains, one), batch))
