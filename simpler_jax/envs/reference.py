"""MuJoCo C stepping of the same scene, drives and controller outputs (the reference).

Used by the MJX-vs-C tests and by the physics benchmark's baseline.
"""

from __future__ import annotations

import copy

import mujoco
import numpy as np

from simpler_jax.envs import drives


class MujocoCReference:
    """Steps `env.scene.mj_model` in MuJoCo C with the env's drive law."""

    def __init__(self, env, params, mj_model: mujoco.MjModel | None = None, float32_limits: bool = True):
        """`float32_limits` rounds joint ranges to float32 as MJX stores them, so a
        joint resting exactly on its limit (the WidowX fingers at reset) is on the
        same side of it in both engines."""
        self.env = env
        self.model = copy.copy(mj_model if mj_model is not None else env.scene.mj_model)
        if float32_limits:
            self.model.jnt_range[:] = self.model.jnt_range.astype(np.float32)
        self.data = mujoco.MjData(self.model)
        kp, kv, fmax = (np.asarray(x, np.float64) for x in env.drive_gains(params))
        self.kp, self.kv, self.fmax = kp, kv, fmax
        self.model.actuator_gainprm[:, 0] = kp
        self.model.actuator_biasprm[:, 1] = -kp
        self.model.actuator_biasprm[:, 2] = -kv
        self.act_qpos, self.act_dof = env._act_qpos, env._act_dof
        self.robot_dof = env.index.robot_dof

    @classmethod
    def at_base(cls, env, params, **kwargs) -> "MujocoCReference":
        """The reference for one world whose robot base is at `params.base_pos` /
        `params.base_quat` (a task world's pose; `params`: one world's robot `Params`)."""
        m = copy.copy(env.scene.mj_model)
        base = env.index.base_body
        m.body_pos[base], m.body_quat[base] = np.asarray(params.base_pos), np.asarray(params.base_quat)
        return cls(env, params, m, **kwargs)

    def set_state(self, qpos, qvel, ctrl) -> None:
        d = self.data
        mujoco.mj_resetData(self.model, d)
        d.qpos[:] = np.asarray(qpos)
        d.qvel[:] = np.asarray(qvel)
        d.ctrl[:] = np.asarray(ctrl)
        mujoco.mj_forward(self.model, d)

    def substep(self, ctrl: np.ndarray) -> None:
        m, d = self.model, self.data
        d.ctrl[:] = drives.limited_targets(
            self.kp, self.kv, self.fmax, ctrl, d.qpos[self.act_qpos], d.qvel[self.act_dof], np
        )
        d.qfrc_applied[:] = 0.0
        d.qfrc_applied[self.robot_dof] = d.qfrc_bias[self.robot_dof]
        mujoco.mj_step(m, d)

    def control_step(self, ctrl_seq) -> None:
        for ctrl in np.asarray(ctrl_seq, np.float64):
            self.substep(ctrl)
