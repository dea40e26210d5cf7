"""Build a SIMPLER scene (robot, table, camera, objects) and index it for JAX.

The table is a box whose top is at SIMPLER's table height (the original scene
stages are unavailable non-convex meshes; ASSETS.md). With `object_surface="plane"`
objects rest on an invisible plane at the box's top instead of the box: in MJX a
convex hull standing on a box creeps and tilts (the box-mesh contact is a
separating-axis clip; a 20 g can standing on the box drifted 2 mm and tipped in 8 s,
and toppled in some move-near worlds after 6 s), while on a plane it stays at rest,
as in MuJoCo C on either. The plane has no edge: an object pushed past the table's
edge stays at table height. Move near and spoon on towel use it (the spoon's thin
pieces were kicked off the box while settling); the other tasks' measured results
are on the box. Robot drives are MuJoCo
`general` actuators with an affine bias (tau = kp*(ctrl - q) - kv*qdot), so the
damping is integrated implicitly by `implicitfast`, as PhysX solves its drives
implicitly. Gains and force limits are per-world parameters: the drive law in
`simpler_jax.envs.drives` writes `actuator_gainprm` / `actuator_biasprm` every substep.
"""

from __future__ import annotations

import dataclasses
import pathlib

import mujoco
import numpy as np

from simpler_jax.assets.paths import asset_root as resolve_asset_root
from simpler_jax.objects.build import ObjectSpec, add_object, is_reference_marker
from simpler_jax.scenes.appearance import add_table_appearances, check_appearances
from simpler_jax.objects.cabinet import add_cabinet, cabinet_index
from simpler_jax.robots import google_robot, widowx
from simpler_jax.robots.builder import add_robot
from simpler_jax.robots.config import RobotConfig
from simpler_jax.scenes.cameras import GOOGLE_OVERHEAD, WIDOWX_CAMERAS, CameraSpec, add_camera
from simpler_jax.utils.rotations_np import yaw_quat

ROBOTS: dict[str, RobotConfig] = {"google_robot": google_robot.CONFIG, "widowx": widowx.CONFIG}
TABLE_FRICTION = 1.0  # scene default material
TABLE_TOP_Z = 0.87  # scene_table_height


@dataclasses.dataclass(frozen=True)
class SceneSpec:
    """Everything static about a scene (changing it means a new compiled model)."""

    robot: str
    base_xy: tuple[float, float]
    base_yaw: float = np.pi  # SIMPLER robots face world -x
    base_z: float | None = None  # default: the robot's standard base height
    table_center_xy: tuple[float, float] = (-0.45, 0.2)
    table_half_xy: tuple[float, float] = (0.45, 0.7)
    table_top_z: float = TABLE_TOP_Z
    camera: str = "default"
    objects: tuple[ObjectSpec, ...] = ()
    # Objects welded to the world (the eggplant task's sink), after the free ones.
    static_objects: tuple[ObjectSpec, ...] = ()
    table: bool = True  # the drawer scenes have no table (the arena has no collision)
    # What objects rest on: the table "box", or "plane", an invisible plane at its top
    # (see the module docstring; move near's light standing objects need it).
    object_surface: str = "box"
    cabinet: str | None = None  # mk_station* name: SIMPLER's drawer cabinet
    collision: str = "simplified"
    # How single-piece objects over the hull budget are capped in "simplified" mode
    # (`simpler_jax.objects.build.SINGLE_PIECE_HULLS`; "support" for move near's cans).
    single_piece_hull: str = "qhull"
    visuals: bool = False
    # Other looks of the objects and the table, selectable per world (with visuals;
    # `simpler_jax.scenes.appearance.APPEARANCES`).
    appearances: tuple[str, ...] = ()
    hand_table_contacts: bool = True  # hand links collide with the table
    solver_iterations: int = 20
    # Contact time constant and damping ratio. PhysX contacts are rigid; 5 ms (2.5
    # substeps) is as stiff as MuJoCo integrates stably at 500 Hz, and keeps light
    # objects from sinking into a closing gripper (default 20 ms let a carrot sink
    # 4 mm per finger and squirt out).
    contact_solref: tuple[float, float] = (0.005, 1.0)
    # Contact impedance. SIMPLER's grippers squeeze with up to 60 N (WidowX) or
    # 60 N*m (Google, ~600 N at the tips) on objects of 20-60 g; MuJoCo's default
    # impedance (dmax 0.95) lets such a grip sink centimetres into the object and
    # then eject it. dmax 0.9999 keeps the penetration below a millimetre.
    contact_solimp: tuple[float, ...] = (0.99, 0.9999, 0.001, 0.5, 2.0)
    ls_iterations: int = 10
    # Physics frequency override (Hz); None = the robot's evaluation frequency. SysID
    # runs the Google Robot at 252 Hz as the original (SIMPLER_SPEC.md §10.2).
    sim_freq: int | None = None
    # Joint-limit constraints (on everywhere; off only in SysID's gradient twin, whose
    # reverse pass would otherwise go NaN at rest, and to measure how far a replay
    # would leave the joint range: `simpler_jax.sysid.SysIDSim(joint_limits=False)`).
    joint_limits: bool = True

    @property
    def robot_config(self) -> RobotConfig:
        if self.robot not in ROBOTS:
            raise ValueError(f"unknown robot {self.robot!r}; allowed: {sorted(ROBOTS)}")
        cfg = ROBOTS[self.robot]
        if self.sim_freq is None or self.sim_freq == cfg.sim_freq:
            return cfg
        if self.sim_freq <= 0 or self.sim_freq % cfg.control_freq:
            raise ValueError(
                f"sim_freq {self.sim_freq} must be a positive multiple of the control "
                f"frequency {cfg.control_freq} Hz of {self.robot}")
        return dataclasses.replace(cfg, sim_freq=int(self.sim_freq))

    def camera_spec(self) -> CameraSpec:
        if self.robot == "google_robot":
            if self.camera not in ("default", "google_robot_static"):
                raise ValueError(f"unknown google_robot camera {self.camera!r}; allowed: ['default']")
            return GOOGLE_OVERHEAD
        key = "widowx" if self.camera == "default" else self.camera
        if key not in WIDOWX_CAMERAS:
            raise ValueError(f"unknown widowx camera {self.camera!r}; allowed: {sorted(WIDOWX_CAMERAS)}")
        return WIDOWX_CAMERAS[key]


def default_scene(robot: str, objects: tuple[ObjectSpec, ...] = (), **kw) -> SceneSpec:
    """The standard evaluation placement of each robot (SIMPLER_SPEC.md §2.2, §2.6)."""
    if robot == "google_robot":
        return SceneSpec("google_robot", (0.35, 0.20), objects=objects, **kw)
    if robot == "widowx":
        kw.setdefault("table_center_xy", (-0.2, 0.0))
        kw.setdefault("table_half_xy", (0.45, 0.5))
        return SceneSpec("widowx", (0.147, 0.028), objects=objects, **kw)
    raise ValueError(f"unknown robot {robot!r}; allowed: {sorted(ROBOTS)}")


@dataclasses.dataclass(frozen=True)
class SceneIndex:
    """Addresses into the compiled model, as numpy int arrays (static under jit)."""

    arm_qpos: np.ndarray  # (A,)
    arm_dof: np.ndarray  # (A,)
    finger_qpos: np.ndarray  # (F,)
    finger_dof: np.ndarray  # (F,)
    ik_in_arm: np.ndarray  # (K,) positions of the IK joints inside the arm joints
    arm_actuators: np.ndarray  # (A,)
    finger_actuators: np.ndarray  # (F,)
    robot_dof: np.ndarray  # (R,) every robot dof (passive-force compensation)
    robot_bodies: np.ndarray  # (B,) the robot base and every body below it
    ee_body: int
    base_body: int
    camera: int
    object_bodies: np.ndarray  # (O,)
    object_qpos: np.ndarray  # (O,) start of each free joint's 7 qpos
    object_dof: np.ndarray  # (O,) start of each free joint's 6 dofs
    scene_joint_qpos: np.ndarray  # (J,) qpos of the scene's own joints (cabinet drawers)
    scene_joint_dof: np.ndarray  # (J,)
    drawer_bottom_geoms: np.ndarray  # (J,) each drawer's interior-bottom geom, or (0,)
    finger_geoms: tuple[np.ndarray, ...]  # per finger link, its geom ids
    # Kinematic chain from the robot base to the EE body, for our own FK/IK.
    chain_pos: np.ndarray  # (C, 3) body offsets in the parent frame
    chain_quat: np.ndarray  # (C, 4) wxyz
    chain_axis: np.ndarray  # (C, 3) hinge axis (zeros for welded bodies)
    chain_joint: np.ndarray  # (C,) index into the IK joints, -1 for welded bodies


@dataclasses.dataclass(frozen=True)
class Scene:
    spec: SceneSpec
    mj_model: mujoco.MjModel
    index: SceneIndex
    object_geoms: tuple[tuple[str, ...], ...]

    @property
    def robot(self) -> RobotConfig:
        return self.spec.robot_config


def _add_table(spec: mujoco.MjSpec, s: SceneSpec, env_contype: int, env_conaff: int) -> str:
    """The table box (drawn; the robot touches it, and objects with `object_surface="box"`)."""
    half_z = s.table_top_z / 2
    g = spec.worldbody.add_geom(name="table")
    g.type = mujoco.mjtGeom.mjGEOM_BOX
    g.size = [s.table_half_xy[0], s.table_half_xy[1], half_z]
    g.pos = [s.table_center_xy[0], s.table_center_xy[1], half_z]
    g.friction = [TABLE_FRICTION, 0.005, 0.0001]
    g.rgba = [0.66, 0.47, 0.31, 1.0]
    g.contype, g.conaffinity = env_contype, env_conaff
    return g.name


def _add_table_surface(spec: mujoco.MjSpec, s: SceneSpec) -> str:
    """An invisible plane at the table's top, which objects rest on with `object_surface="plane"`."""
    top = spec.worldbody.add_geom(name="table_surface")
    top.type = mujoco.mjtGeom.mjGEOM_PLANE
    top.size = [s.table_half_xy[0], s.table_half_xy[1], 0.1]
    top.pos = [s.table_center_xy[0], s.table_center_xy[1], s.table_top_z]
    top.friction = [TABLE_FRICTION, 0.005, 0.0001]
    top.rgba = [0.0, 0.0, 0.0, 0.0]  # not drawn
    top.contype, top.conaffinity = 0, 0  # explicit object pairs only
    return top.name


def _add_floor(spec: mujoco.MjSpec, env_contype: int, env_conaff: int) -> str:
    g = spec.worldbody.add_geom(name="floor")
    g.type = mujoco.mjtGeom.mjGEOM_PLANE
    g.size = [5.0, 5.0, 0.1]
    g.friction = [TABLE_FRICTION, 0.005, 0.0001]
    g.rgba = [0.3, 0.3, 0.3, 1.0]
    g.contype, g.conaffinity = env_contype, env_conaff
    return g.name


def _add_pair(spec, g1: str, g2: str, mu1: float, mu2: float, torsion: float | None, s: "SceneSpec",
              dampratio: float | None = None) -> None:
    """One explicit contact pair; `dampratio` replaces the scene's contact damping ratio."""
    p = spec.add_pair(geomname1=g1, geomname2=g2)
    p.solref = [s.contact_solref[0], s.contact_solref[1] if dampratio is None else dampratio]
    p.solimp = list(s.contact_solimp)
    mu = 0.5 * (mu1 + mu2)  # PhysX "average" friction combine
    if torsion is None:
        p.condim = 3
        p.friction = [mu, mu, 0.0, 0.0, 0.0]
    else:
        p.condim = 4
        p.friction = [mu, mu, torsion * mu, 0.0, 0.0]


def _add_actuators(spec: mujoco.MjSpec, cfg: RobotConfig) -> None:
    gains = list(zip(cfg.arm_joints, cfg.arm_stiffness, cfg.arm_damping, cfg.arm_force_limit))
    gains += [
        (j, cfg.gripper_stiffness, cfg.gripper_damping, cfg.gripper_force_limit)
        for j in cfg.finger_joints
    ]
    for joint, kp, kv, fmax in gains:
        a = spec.add_actuator(name=f"drive/{joint}", target=joint)
        a.trntype = mujoco.mjtTrn.mjTRN_JOINT
        a.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        a.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        a.gainprm[0] = kp
        a.biasprm[1] = -kp
        a.biasprm[2] = -kv
        # Force limits are applied by the drive law (simpler_jax.envs.drives), which
        # rewrites gain/bias every substep; MuJoCo's own clamp would change the
        # integration of saturated drives.
        a.forcelimited = mujoco.mjtLimited.mjLIMITED_FALSE
        a.forcerange = [-fmax, fmax]
        a.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE


def build_mjspec(s: SceneSpec, assets: pathlib.Path) -> tuple[mujoco.MjSpec, tuple]:
    cfg = s.robot_config
    check_appearances(s.appearances)
    spec = mujoco.MjSpec()
    spec.modelname = f"simpler_{cfg.name}"
    spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_AUTO
    spec.compiler.degree = False  # joint ranges are radians, as in the URDF
    spec.option.timestep = cfg.sim_dt
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.solver = mujoco.mjtSolver.mjSOL_NEWTON
    spec.option.iterations = s.solver_iterations
    spec.option.ls_iterations = s.ls_iterations
    if not s.joint_limits:
        spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_LIMIT
    spec.add_material(name="default")  # mjx.ray needs at least one material
    base_z = cfg.base_height if s.base_z is None else s.base_z
    geoms = add_robot(
        spec, cfg, assets, (s.base_xy[0], s.base_xy[1], base_z), yaw_quat(s.base_yaw),
        collision=s.collision, visuals=s.visuals,
    )
    original = s.collision == "original"
    # Robot-environment contacts: in original mode through contype (robot type 2
    # touches the table and floor, type 1, not itself); in simplified mode only the
    # explicit hand-table pairs below. Objects always collide through explicit pairs
    # with the same friction, torsion and softness in both modes, so the two modes
    # differ in geometry only.
    env_type, env_aff = (1, 3) if original else (0, 0)
    if original:
        for name in geoms.hand + geoms.arm + geoms.static:
            spec.geom(name).contype, spec.geom(name).conaffinity = 2, 1
    if s.object_surface not in ("box", "plane"):
        raise ValueError(f"object_surface {s.object_surface!r}; allowed: ['box', 'plane']")
    table = _add_table(spec, s, env_type, env_aff) if s.table else None
    if table is not None and s.visuals:
        add_table_appearances(spec, s.appearances, spec.geom(table), assets)
    # Added only when used: one more geom reorders MJX's contacts, and a single grasp is
    # chaotic (benchmarks/RESULTS.md), so the box scenes keep their exact model.
    object_table = _add_table_surface(spec, s) if (s.table and s.object_surface == "plane") else table
    floor = _add_floor(spec, env_type, env_aff)
    if original:  # robot-table contacts take their softness from the geoms
        for g in spec.geoms:
            g.solref = list(s.contact_solref)
            g.solimp = list(s.contact_solimp)
    add_camera(spec, s.camera_spec())
    object_geoms, static_geoms = [], []  # static: surfaces objects and the hand touch
    for obj, fixed in [(o, False) for o in s.objects] + [(o, True) for o in s.static_objects]:
        names = add_object(spec, obj, assets, collision=s.collision, fixed=fixed, visuals=s.visuals,
                           appearances=s.appearances, single_piece_hull=s.single_piece_hull)
        for n in names:  # objects collide through explicit pairs only
            spec.geom(n).contype, spec.geom(n).conaffinity = 0, 0
        if fixed:
            static_geoms += names
        else:
            object_geoms.append(names)
    cabinet = None
    if s.cabinet is not None:
        cabinet = add_cabinet(spec, assets, s.cabinet, visuals=s.visuals)
        static_geoms += [g for d in cabinet.drawers for g in d] + [cabinet.tabletop]
    finger_geoms = {g for link in cfg.finger_links for g in geoms.by_link.get(link, ())}
    torsion = (2.0 / 3.0) * cfg.finger_patch_radius
    mu_of = lambda name: float(spec.geom(name).friction[0])  # noqa: E731
    hand_table = geoms.hand if (s.hand_table_contacts and not original) else ()
    surfaces = ([object_table] if table else []) + static_geoms
    for rg in (hand_table if table else ()):
        _add_pair(spec, rg, table, mu_of(rg), TABLE_FRICTION, torsion if rg in finger_geoms else None, s)
    for rg in geoms.hand:
        for sg in static_geoms:
            _add_pair(spec, rg, sg, mu_of(rg), mu_of(sg), torsion if rg in finger_geoms else None, s)
    # Objects touch a finger through its flat pad where it has one, else its hulls.
    pad_of = {h: pad for link, pad in geoms.pads.items() for h in geoms.by_link[link] if h != pad}
    object_touchers = tuple(dict.fromkeys(pad_of.get(g, g) for g in geoms.hand + geoms.arm))
    for obj, names in zip(s.objects, object_geoms):
        for og in names:
            if not is_reference_marker(obj.model_id):  # markers are held, not supported
                for sg in surfaces:
                    _add_pair(spec, og, sg, mu_of(og), mu_of(sg), None, s)
                _add_pair(spec, og, floor, mu_of(og), TABLE_FRICTION, None, s)
            for rg in object_touchers:
                finger = rg in finger_geoms
                _add_pair(spec, rg, og, mu_of(rg), mu_of(og), torsion if finger else None, s,
                          cfg.finger_object_dampratio if finger else None)
    for i, a in enumerate(object_geoms):
        for b in object_geoms[i + 1:]:
            for ga in a:
                for gb in b:
                    _add_pair(spec, ga, gb, mu_of(ga), mu_of(gb), None, s)
    _add_actuators(spec, cfg)
    return spec, (geoms, tuple(object_geoms), cabinet)


def _chain(m: mujoco.MjModel, cfg: RobotConfig, root: int, ee: int, ik_qpos: np.ndarray):
    bodies = []
    b = ee
    while b != root:
        bodies.append(b)
        b = m.body_parentid[b]
    bodies.reverse()
    pos, quat, axis, joint = [], [], [], []
    for b in bodies:
        pos.append(m.body_pos[b])
        quat.append(m.body_quat[b])
        if m.body_jntnum[b] == 1:
            j = m.body_jntadr[b]
            if m.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE or np.any(m.jnt_pos[j] != 0):
                raise ValueError(f"{cfg.name}: IK chain supports hinges at body origins only")
            axis.append(m.jnt_axis[j])
            joint.append(int(np.where(ik_qpos == m.jnt_qposadr[j])[0][0]))
        elif m.body_jntnum[b] == 0:
            axis.append(np.zeros(3))
            joint.append(-1)
        else:
            raise ValueError(f"{cfg.name}: body {m.body(b).name} has several joints")
    return (np.array(pos), np.array(quat), np.array(axis), np.array(joint, np.int32))


def build_scene(s: SceneSpec, assets: str | pathlib.Path | None = None) -> Scene:
    """Compile `s` into a MuJoCo model and index it."""
    root_dir = resolve_asset_root(assets)
    spec, (geoms, object_geoms, cabinet) = build_mjspec(s, root_dir)
    m = spec.compile()
    cfg = s.robot_config

    def jid(name):
        return m.joint(name).id

    arm_qpos = np.array([m.jnt_qposadr[jid(j)] for j in cfg.arm_joints])
    ik_qpos = np.array([m.jnt_qposadr[jid(j)] for j in cfg.ik_joints])
    base_body = m.body(spec.worldbody.first_body().name).id  # the robot is added first
    ee = m.body(cfg.ee_link).id
    robot_bodies = [b for b in range(m.nbody) if _is_descendant(m, b, base_body)]
    robot_dof = np.array(
        [d for d in range(m.nv) if m.dof_bodyid[d] in robot_bodies], dtype=np.int32
    )
    obj_bodies = np.array([m.body(o.body_name).id for o in s.objects], dtype=np.int32)
    obj_jnt = [m.body_jntadr[b] for b in obj_bodies]
    pos, quat, axis, joint = _chain(m, cfg, base_body, ee, ik_qpos)
    if cabinet is not None:
        cab = cabinet_index(m, cabinet)
        scene_qpos, scene_dof, bottoms = cab.drawer_qpos, cab.drawer_dof, cab.interior_bottom_geoms
    else:
        scene_qpos = scene_dof = bottoms = np.zeros(0, np.int32)
    index = SceneIndex(
        arm_qpos=arm_qpos.astype(np.int32),
        arm_dof=np.array([m.jnt_dofadr[jid(j)] for j in cfg.arm_joints], np.int32),
        finger_qpos=np.array([m.jnt_qposadr[jid(j)] for j in cfg.finger_joints], np.int32),
        finger_dof=np.array([m.jnt_dofadr[jid(j)] for j in cfg.finger_joints], np.int32),
        ik_in_arm=np.array([cfg.arm_joints.index(j) for j in cfg.ik_joints], np.int32),
        arm_actuators=np.array([m.actuator(f"drive/{j}").id for j in cfg.arm_joints], np.int32),
        finger_actuators=np.array(
            [m.actuator(f"drive/{j}").id for j in cfg.finger_joints], np.int32
        ),
        robot_dof=robot_dof,
        robot_bodies=np.array(robot_bodies, np.int32),
        ee_body=int(ee),
        base_body=int(base_body),
        camera=int(m.camera(s.camera_spec().name).id),
        object_bodies=obj_bodies,
        object_qpos=np.array([m.jnt_qposadr[j] for j in obj_jnt], np.int32),
        object_dof=np.array([m.jnt_dofadr[j] for j in obj_jnt], np.int32),
        scene_joint_qpos=np.asarray(scene_qpos, np.int32),
        scene_joint_dof=np.asarray(scene_dof, np.int32),
        drawer_bottom_geoms=np.asarray(bottoms, np.int32),
        finger_geoms=tuple(
            np.array([m.geom(g).id for g in geoms.by_link.get(link, ())], np.int32)
            for link in cfg.finger_links
        ),
        chain_pos=pos,
        chain_quat=quat,
        chain_axis=axis,
        chain_joint=joint,
    )
    return Scene(s, m, index, object_geoms)


def _is_descendant(m: mujoco.MjModel, body: int, ancestor: int) -> bool:
    while body > 0:
        if body == ancestor:
            return True
        body = m.body_parentid[body]
    return ancestor == 0
