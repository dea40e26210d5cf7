"""The functional environment core: pure `reset` and `step` for one world.

Write one world, batch with `jax.vmap` (see `simpler_jax.envs.batched`):

    env = RobotEnv(build_scene(default_scene("widowx")))
    params = default_params(env.scene)
    state = env.reset(params, key)
    state = env.step(params, state, action)   # action: (7,) float

Each control step runs the robot's SIMPLER controller once, then `substeps` MJX
physics steps in a `lax.scan`; every substep sets the drive targets and adds the
passive-force compensation (gravity + Coriolis, `qfrc_bias`, on the robot dofs, as
SAPIEN's `balance_passive_force`; MJX exposes the bias of the previous substep, so
the compensation lags one substep of 2 ms). A world whose physics goes non-finite
is flagged, marked done and frozen at its last finite state; other worlds are not
affected. Worlds that are done stay frozen (or restart, with `auto_reset=True`).
With an `ObservationSpec`, `reset` and `step` also render the policy camera image
of the new state into `State.obs` (`simpler_jax.envs.observation`). Both trace
their matrix products at float32 precision on every backend
(`simpler_jax.envs.precision`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from mujoco import mjx

from simpler_jax.controllers import google_robot as google_ctrl
from simpler_jax.controllers import kinematics
from simpler_jax.controllers import widowx as widowx_ctrl
from simpler_jax.envs import drives
from simpler_jax.envs.controller_params import read_controller_params
from simpler_jax.envs.observation import Observer, ObservationSpec
from simpler_jax.envs.precision import full_precision
from simpler_jax.envs.params import Params, default_params
from simpler_jax.envs.state import State, zeros_controller
from simpler_jax.scenes.scene import Scene

ACTION_SIZE = 7
_CONTROLLERS = {"google_robot": google_ctrl.control_targets, "widowx": widowx_ctrl.control_targets}


class RobotEnv:
    """A SIMPLER robot scene as pure functions (static model, per-world `Params`)."""

    def __init__(self, scene: Scene, max_steps: int = 80, auto_reset: bool = False,
                 controller_params=None, observation: ObservationSpec | None = None):
        """`controller_params`: a SysID parameters file (see
        `simpler_jax.envs.controller_params`) whose arm gains replace SIMPLER's in
        `default_params()`. `observation`: what `reset` and `step` render into
        `State.obs` (see `simpler_jax.envs.observation`); None renders nothing."""
        self.scene = scene
        self.observer = None if observation is None else Observer(scene, observation)
        self._gain_overrides = {}
        if controller_params is not None:
            self._gain_overrides = read_controller_params(
                controller_params, scene.robot.name, scene.robot.arm_joints)
        self.index = scene.index
        self.chain = kinematics.make_chain(scene.index)
        self.max_steps = int(max_steps)
        self.auto_reset = bool(auto_reset)
        self.substeps = scene.robot.substeps
        self.sim_dt = scene.robot.sim_dt
        self._control = _CONTROLLERS[scene.robot.name]
        self.mjx_model = mjx.put_model(scene.mj_model)
        m = scene.mj_model
        finger_geoms = set(int(g) for gs in scene.index.finger_geoms for g in gs)
        pairs = [
            (p, int(m.pair_geom2[p]) if int(m.pair_geom1[p]) in finger_geoms else int(m.pair_geom1[p]))
            for p in range(m.npair)
            if int(m.pair_geom1[p]) in finger_geoms or int(m.pair_geom2[p]) in finger_geoms
        ]
        self._finger_pairs = np.array([p for p, _ in pairs], np.int32)
        self._finger_pair_other_mu = np.array([m.geom_friction[g, 0] for _, g in pairs], np.float32)
        self._finger_pair_torsion_ratio = np.array(
            [m.pair_friction[p, 2] / max(m.pair_friction[p, 0], 1e-9) for p, _ in pairs], np.float32
        )
        self._robot_dof = scene.index.robot_dof
        self._act_qpos = np.array([m.jnt_qposadr[j] for j in m.actuator_trnid[:, 0]], np.int32)
        self._act_dof = np.array([m.jnt_dofadr[j] for j in m.actuator_trnid[:, 0]], np.int32)

    # ------------------------------------------------------------------ model
    def default_params(self) -> Params:
        params = default_params(self.scene)
        if self.observer is not None and self.observer.spec.overlay:  # a black photo until one is set
            params = params.replace(overlay_rgb=jnp.zeros((self.observer.height, self.observer.width, 3), jnp.uint8))
        return params.replace(**{k: jnp.asarray(v) for k, v in self._gain_overrides.items()})

    def model(self, params: Params) -> mjx.Model:
        """The MJX model of one world with the per-world parameters written in."""
        idx, m = self.index, self.mjx_model
        body_pos = m.body_pos.at[idx.base_body].set(params.base_pos)
        body_quat = m.body_quat.at[idx.base_body].set(params.base_quat)
        scale = params.object_mass_scale
        body_mass = m.body_mass.at[idx.object_bodies].multiply(scale)
        body_inertia = m.body_inertia.at[idx.object_bodies].multiply(scale[:, None])
        cam_pos = m.cam_pos.at[idx.camera].set(params.camera_pos)
        cam_quat = m.cam_quat.at[idx.camera].set(params.camera_quat)
        replace = dict(
            body_pos=body_pos, body_quat=body_quat, body_mass=body_mass,
            body_inertia=body_inertia, cam_pos=cam_pos, cam_quat=cam_quat,
        )
        if len(self._finger_pairs):
            mu = 0.5 * (params.finger_friction + self._finger_pair_other_mu)
            fr = m.pair_friction.at[self._finger_pairs, 0].set(mu).at[self._finger_pairs, 1].set(mu)
            fr = fr.at[self._finger_pairs, 2].set(mu * self._finger_pair_torsion_ratio)
            replace["pair_friction"] = fr
        return m.replace(**replace)

    # ------------------------------------------------------------------ reset
    @full_precision
    def reset(self, params: Params, key: jax.Array) -> State:
        """A new episode: robot at `params.init_qpos`, objects at `params.object_pose`."""
        model = self.model(params)
        return self._observe(model, params, self._reset_physics(model, params, key))

    def _observe(self, model: mjx.Model, params: Params, state: State) -> State:
        """`state` with `obs` rendered from its data (unchanged without an observer)."""
        if self.observer is None:
            return state
        return state.replace(obs=self.observer(model, state.data, params.lighting(), params.overlay_rgb,
                             params.texture_variant, params.appearance))

    def reset_qpos(self, params: Params) -> jax.Array:
        """(nq,) joint positions a reset starts from: robot, objects, scene joints."""
        idx = self.index
        num_arm = idx.arm_qpos.shape[0]
        qpos = jnp.asarray(self.scene.mj_model.qpos0)
        qpos = qpos.at[idx.arm_qpos].set(params.init_qpos[:num_arm])
        qpos = qpos.at[idx.finger_qpos].set(params.init_qpos[num_arm:])
        for i, adr in enumerate(idx.object_qpos):
            qpos = qpos.at[adr : adr + 7].set(params.object_pose[i])
        return qpos.at[idx.scene_joint_qpos].set(params.scene_joint_qpos)

    def reset_ctrl(self, params: Params) -> jax.Array:
        """(nu,) drive targets a reset holds: the robot's `params.init_qpos`."""
        idx = self.index
        num_arm = idx.arm_qpos.shape[0]
        ctrl = jnp.zeros(self.scene.mj_model.nu).at[idx.arm_actuators].set(params.init_qpos[:num_arm])
        return ctrl.at[idx.finger_actuators].set(params.init_qpos[num_arm:])

    @full_precision
    def observe_qpos(self, params: Params, qpos: jax.Array):
        """The observation of joint positions `qpos` (nq,) posed kinematically (no physics):
        for videos of recorded episodes and still images."""
        if self.observer is None:
            raise ValueError("this environment renders nothing: build it with an ObservationSpec")
        model = self.model(params)
        data = mjx.camlight(model, mjx.kinematics(model, mjx.make_data(model).replace(qpos=qpos)))
        return self.observer(model, data, params.lighting(), params.overlay_rgb,
                             params.texture_variant, params.appearance)

    @full_precision
    def _reset_physics(self, model: mjx.Model, params: Params, key: jax.Array,
                       full_forward: bool = True) -> State:
        """The reset state before any observation. `full_forward=False` computes only
        what the next `physics` call reads before its first MJX step (the bias forces
        `qfrc_bias`; every other derived quantity is recomputed by that step), for a
        caller that runs physics next (`TaskEnv.reset`'s settle): the same states up to
        rounding (XLA fuses the bias computation differently; benchmarks/RESULTS.md),
        and one full forward pass (collisions, constraints, solver) less to compile."""
        idx = self.index
        num_arm = idx.arm_qpos.shape[0]
        qpos = self.reset_qpos(params)
        data = mjx.make_data(model).replace(qpos=qpos, ctrl=self.reset_ctrl(params))
        if full_forward:
            data = mjx.forward(model, data)
        else:
            data = mjx.rne(model, mjx.com_vel(model, mjx.com_pos(model, mjx.kinematics(model, data))))
        controller = zeros_controller(num_arm, idx.finger_qpos.shape[0])
        ee_p, ee_r, _, _ = kinematics.forward_kinematics(
            self.chain, params.init_qpos[:num_arm][idx.ik_in_arm]
        )
        controller = controller.replace(
            gripper_target=params.init_qpos[num_arm:], ee_target_pos=ee_p, ee_target_rot=ee_r,
        )
        return State(
            data=data, controller=controller, step=jnp.array(0, jnp.int32), key=key,
            nonfinite=jnp.array(False), done=jnp.array(False),
            action=jnp.zeros(ACTION_SIZE, jnp.float32),
        )

    # ------------------------------------------------------------------- step
    @full_precision
    def control_targets(self, params: Params, qpos, qvel, controller, action):
        """The controller alone: per-substep actuator controls (N, nu) and its new state.

        Exposed so a MuJoCo C reference can be driven by exactly the same controller.
        """
        idx = self.index
        arm_pos, finger_pos, finger_vel, controller = self._control(
            self.chain, idx, params, qpos, qvel, controller, action, self.sim_dt, self.substeps
        )
        # A position+velocity drive target folds into one affine actuator input.
        ratio = params.gripper_damping / jnp.maximum(params.gripper_stiffness, 1e-9)
        finger_ctrl = finger_pos + ratio * finger_vel
        nu = self.mjx_model.nu
        ctrl = jnp.zeros((self.substeps, nu), arm_pos.dtype)
        ctrl = ctrl.at[:, idx.arm_actuators].set(arm_pos).at[:, idx.finger_actuators].set(finger_ctrl)
        return ctrl, controller

    @full_precision
    def physics(self, model: mjx.Model, data: mjx.Data, ctrl_seq: jax.Array, params: Params) -> mjx.Data:
        """`substeps` MJX steps with drive targets (N, nu) and passive compensation.

        Drive force limits follow `simpler_jax.envs.drives`.
        """
        robot_dof = self._robot_dof
        act_qpos, act_dof = self._act_qpos, self._act_dof
        kp, kv, fmax = self.drive_gains(params)
        model = model.replace(
            actuator_gainprm=model.actuator_gainprm.at[:, 0].set(kp),
            actuator_biasprm=model.actuator_biasprm.at[:, 1].set(-kp).at[:, 2].set(-kv),
        )

        def substep(d, target):
            ctrl = drives.limited_targets(kp, kv, fmax, target, d.qpos[act_qpos], d.qvel[act_dof], jnp)
            comp = jnp.zeros_like(d.qfrc_applied).at[robot_dof].set(d.qfrc_bias[robot_dof])
            d = d.replace(ctrl=ctrl, qfrc_applied=comp)
            return mjx.step(model, d), None

        data, _ = jax.lax.scan(substep, data, ctrl_seq)
        return data

    def drive_gains(self, params: Params):
        """Per-actuator (kp, kv, force limit), each (nu,), from the per-world params."""
        idx, nu = self.index, self.mjx_model.nu
        arm, fing = idx.arm_actuators, idx.finger_actuators
        kp = jnp.zeros(nu).at[arm].set(params.arm_stiffness).at[fing].set(params.gripper_stiffness)
        kv = jnp.zeros(nu).at[arm].set(params.arm_damping).at[fing].set(params.gripper_damping)
        fmax = jnp.zeros(nu).at[arm].set(params.arm_force_limit).at[fing].set(params.gripper_force_limit)
        return kp, kv, fmax

    @full_precision
    def step(self, params: Params, state: State, action: jax.Array) -> State:
        """One control step of one world. action: (7,) = [dxyz, axis-angle, gripper]."""
        action = jnp.asarray(action, jnp.float32)
        model = self.model(params)
        d = state.data
        ctrl_seq, controller = self.control_targets(params, d.qpos, d.qvel, state.controller, action)
        data = self.physics(model, d, ctrl_seq, params)
        finite = jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))
        # The freeze and auto-reset below mix old and new states leaf by leaf; the
        # observation is rendered once, from the resulting state, at the end.
        state = state.replace(obs=None)
        stepped = state.replace(
            data=data, controller=controller, step=state.step + 1, action=action,
        )
        nonfinite = state.nonfinite | ~finite
        frozen = state.done | nonfinite
        new = jax.tree.map(lambda old, cur: jnp.where(frozen, old, cur), state, stepped)
        done = state.done | nonfinite | (new.step >= self.max_steps)
        new = new.replace(nonfinite=nonfinite, done=done)
        if self.auto_reset:
            key, sub = jax.random.split(new.key)
            fresh = self._reset_physics(model, params, sub)
            new = jax.tree.map(lambda r, cur: jnp.where(done, r, cur), fresh, new.replace(key=key))
        return self._observe(model, params, new)


def make_robot_env(robot: str, objects=(), max_steps: int = 80, auto_reset: bool = False,
                   controller_params=None, observation: ObservationSpec | None = None,
                   **scene_kw) -> RobotEnv:
    """A robot scene environment by robot name (`google_robot` or `widowx`).

    `controller_params`: path of a SysID parameters file to use instead of SIMPLER's gains.
    `observation`: what to render into `State.obs` (needs `visuals=True`).
    """
    from simpler_jax.scenes.scene import ROBOTS, build_scene, default_scene

    if robot not in ROBOTS:
        raise ValueError(f"unknown robot {robot!r}; allowed: {sorted(ROBOTS)}")
    return RobotEnv(build_scene(default_scene(robot, tuple(objects), **scene_kw)), max_steps, auto_reset,
                    controller_params=controller_params, observation=observation)
