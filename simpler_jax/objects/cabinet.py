"""SIMPLER's drawer cabinet (`data/custom/mk_station*.urdf`) for the drawer tasks.

SIMPLER_SPEC.md §2.4, §2.5, §7. The URDF is read with the robots' URDF reader
(`simpler_jax.robots.urdf`; box geometry only, plus one mesh tabletop visual in
mk_station3/4) and written into a
`mujoco.MjSpec` as:

- a static root body `cabinet` (URDF link `body`: back, left and right walls and the
  tabletop), fixed in the world at `pos` (default (-0.295, 0, 0.017) m, identity
  orientation);
- three drawer bodies `cabinet/{top,middle,bottom}_drawer`, each on a slide joint
  `{top,middle,bottom}_drawer_joint` along +x, range [0, 0.5] m (qpos 0 = closed,
  positive = pulled out towards +x), frictionloss 0.05 N (SAPIEN
  `joint.set_friction(0.05)`), damping 1 N*s/m and stiffness 0 (SAPIEN drive K=0,
  D=1 with zero targets). The joints keep their URDF names (no prefix).

Facts, in world metres with the default `pos`:
- drawer joint (body origin) heights: top 0.017+0.668 = 0.685, middle 0.440,
  bottom 0.195 (URDF joint z 0.668 / 0.423 / 0.178 plus the root z 0.017);
- tabletop box 0.63 x 0.615 x 0.02 centred at URDF z 0.855, so its top surface is at
  world z 0.017 + 0.855 + 0.01 = 0.882;
- each drawer has six collision boxes, in URDF order: [0] front 0.015x0.615x0.14 at
  x 0.305, [1] back, [2] **interior bottom** 0.55x0.515x0.02 at z -0.06 (its top
  face is 0.05 m below the joint: world z 0.635 for the top drawer), [3] interior
  front, [4] left, [5] right. SIMPLER's apple-in-drawer success counts contacts
  with shape [2]; `CabinetGeoms.interior_bottoms` names it per drawer.
- Handles (`handle0..2`) are visual-only in the URDF and get no collision geom.

Collision geoms are boxes exactly as in the URDF (URDF sizes are full extents,
MuJoCo's are half extents), friction 1.0 (SAPIEN's scene default material; the
URDF sets none), contype = conaffinity = 0: they collide only through explicit
pairs a scene adds (`scenes.scene._add_pair`), e.g. robot hand/arm geoms and object
geoms with `CabinetGeoms.collision`. No cabinet-internal contacts are needed: the
drawers do not touch the body or each other anywhere in their travel.

Mass: the URDF has **no `<inertial>`** elements (they would be used if
present). SAPIEN then derives mass and inertia from the collision shapes at its
default density, 1000 kg/m^3; we do the same (`DENSITY`), computing each body's
mass, centre of mass and full inertia from its boxes here (so the cabinet has mass
even with `collision=False`). Each drawer weighs 11.38 kg (the interior bottom
alone 5.67 kg); the static body's mass is irrelevant.

Visuals (`visuals=True`): one geom per URDF `<visual>` in group 2 (the robot
builder's visual group), contype = conaffinity = 0, no mass, rgba from the URDF
`<material>` colours (these are what the station variants differ in). The
mk_station3/4 tabletop visual is the mesh `models/stone_tabletop.glb` (a plain
0.63 x 0.615 x 0.02 box with a stone texture); it is loaded through
`assets.meshes.load_mesh` (trimesh reads glb) without its texture, coloured with the
texture's mean colour `STONE_TABLETOP_RGBA`.

Caveat (not from the source code): PhysX articulation joint friction is a
coefficient on the joint's constraint force, not a fixed force as MuJoCo's
frictionloss is; SIMPLER's number is used here as a force (0.05 N), an unverified approximation.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib

import mujoco
import numpy as np

from simpler_jax.assets.meshes import load_mesh
from simpler_jax.assets.paths import MissingAssetError
from simpler_jax.robots.builder import COLLISION_GROUP, LIMIT_SOLIMP, LIMIT_SOLREF, VISUAL_GROUP
from simpler_jax.robots.urdf import Link, Shape, read_urdf
from simpler_jax.utils.rotations_np import rpy_to_quat

CABINET_DIR = "data/custom"
STATION_NAMES = ("mk_station", "mk_station2", "mk_station3", "mk_station4", "mk_station_recolor")
DEFAULT_POS = (-0.295, 0.0, 0.017)  # fixed root pose, identity orientation
ROOT_BODY = "cabinet"
DRAWER_LINKS = ("top_drawer", "middle_drawer", "bottom_drawer")
DRAWER_JOINTS = ("top_drawer_joint", "middle_drawer_joint", "bottom_drawer_joint")
INTERIOR_BOTTOM_INDEX = 2  # collision shape [2] of each drawer link
JOINT_FRICTION = 0.05  # N, SAPIEN cabinet_joint_friction -> MuJoCo frictionloss
JOINT_DAMPING = 1.0  # N*s/m, drive D (K = 0)
JOINT_STIFFNESS = 0.0
CABINET_FRICTION = 1.0  # SAPIEN scene default material (static = dynamic)
DENSITY = 1000.0  # kg/m^3, SAPIEN's default for links without <inertial>
# Mean colour of models/stone_tabletop.glb's base-colour texture (1024x1024 PNG).
STONE_TABLETOP_RGBA = (0.726, 0.700, 0.675, 1.0)


@dataclasses.dataclass(frozen=True)
class CabinetGeoms:
    """Names of what `add_cabinet` added (drawer tuples in top, middle, bottom order)."""

    root_body: str
    drawer_bodies: tuple[str, str, str]
    drawer_joints: tuple[str, str, str]
    static: tuple[str, ...]  # collision geoms of the fixed body (walls, tabletop)
    drawers: tuple[tuple[str, ...], ...]  # per drawer, its collision geoms in URDF order
    interior_bottoms: tuple[str, ...]  # per drawer, collision shape [2]; () without collision
    tabletop: str | None  # the tabletop collision box (None without collision)
    visuals: tuple[str, ...] = ()

    @property
    def collision(self) -> tuple[str, ...]:
        """Every cabinet collision geom (static body first, then the drawers)."""
        return self.static + tuple(g for d in self.drawers for g in d)


@dataclasses.dataclass(frozen=True)
class CabinetIndex:
    """Addresses in a compiled model (numpy int32, static under jit), top/middle/bottom."""

    drawer_qpos: np.ndarray  # (3,) index into qpos (mjx.Data.qpos[..., drawer_qpos])
    drawer_dof: np.ndarray  # (3,) index into qvel / qfrc
    drawer_bodies: np.ndarray  # (3,) body ids
    interior_bottom_geoms: np.ndarray  # (3,) geom ids, or (0,) for a visual-only cabinet


def _check(path, urdf) -> str:
    """The root link, after checking the station's layout (drawer joints, box collisions)."""
    links, root = urdf.links, urdf.root  # ValueError unless exactly one root link
    by_name = {j.name: j for j in urdf.joints}
    for jname, lname in zip(DRAWER_JOINTS, DRAWER_LINKS):
        j = by_name.get(jname)
        if j is None or j.type != "prismatic" or j.child != lname or j.parent != root:
            raise ValueError(f"{path}: expected prismatic joint {jname!r} from {root!r} to {lname!r}")
        if len(links[lname].collisions) <= INTERIOR_BOTTOM_INDEX:
            raise ValueError(f"{path}: drawer {lname!r} has too few collision shapes")
    for lk in links.values():
        for c in lk.collisions:
            if c.kind != "box":
                raise ValueError(f"{path}: link {lk.name!r} has a non-box collision {c.name!r}")
    return root


# ------------------------------------------------------------------------ inertia


def _rotmat(rpy: np.ndarray) -> np.ndarray:
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, rpy_to_quat(rpy))
    return m.reshape(3, 3)


def _box_inertial(boxes: tuple[Shape, ...], density: float):
    """Mass, centre of mass and full inertia (ixx iyy izz ixy ixz iyz) about the com."""
    masses = [density * float(np.prod(b.size)) for b in boxes]
    total = sum(masses)
    com = sum(m * b.origin.xyz for m, b in zip(masses, boxes)) / total
    inertia = np.zeros((3, 3))
    for m, b in zip(masses, boxes):
        x, y, z = b.size
        local = np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12.0
        r = _rotmat(b.origin.rpy)
        d = b.origin.xyz - com
        inertia += r @ local @ r.T + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    full = [inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2], inertia[1, 2]]
    return total, com, full


# -------------------------------------------------------------------------- build


def cabinet_urdf_path(assets_root: str | os.PathLike, station_name: str = "mk_station") -> pathlib.Path:
    """The URDF of `station_name`; ValueError for unknown names, MissingAssetError if absent."""
    if station_name not in STATION_NAMES:
        raise ValueError(f"unknown cabinet station {station_name!r}; allowed: {list(STATION_NAMES)}")
    path = pathlib.Path(assets_root) / CABINET_DIR / f"{station_name}.urdf"
    if not path.is_file():
        raise MissingAssetError(f"cabinet {station_name!r}: missing {str(path)!r}")
    return path


def _box_geom(body, name: str, shape: Shape):
    g = body.add_geom(name=name)
    g.type = mujoco.mjtGeom.mjGEOM_BOX
    g.size = 0.5 * shape.size  # URDF full extents -> MuJoCo half extents
    g.pos = shape.origin.xyz
    g.quat = rpy_to_quat(shape.origin.rpy)
    return g


def add_cabinet(
    spec: mujoco.MjSpec,
    assets_root: str | os.PathLike,
    station_name: str = "mk_station",
    pos=DEFAULT_POS,
    collision: bool = True,
    visuals: bool = False,
) -> CabinetGeoms:
    """Add SIMPLER's drawer cabinet `station_name` to `spec`'s world (module docstring).

    `pos` (m) places the fixed root (identity orientation). `collision=False` adds no
    collision geoms (bodies keep their box-derived mass); `visuals=True` adds the
    coloured visual geoms. Geoms are named `cabinet/<link>/<urdf shape name>`
    (URDF shape names repeat across drawers); the root body is `cabinet`, the URDF
    link `body`.
    """
    path = cabinet_urdf_path(assets_root, station_name)
    urdf = read_urdf(path)
    links, joints, materials = urdf.links, urdf.joints, urdf.materials
    root_link = _check(path, urdf)
    joint_of = {j.child: j for j in joints}
    static: list[str] = []
    drawers: list[tuple[str, ...]] = []
    visual_names: list[str] = []

    def fill(body, link: Link) -> list[str]:
        body.explicitinertial = True
        if link.inertial is not None:
            mass, com, full = link.inertial.mass, link.inertial.origin.xyz, list(link.inertial.inertia)
            body.iquat = rpy_to_quat(link.inertial.origin.rpy)
        else:
            mass, com, full = _box_inertial(link.collisions, DENSITY)
        body.mass = mass
        body.ipos = com
        body.fullinertia = full
        prefix = f"{ROOT_BODY}/{link.name}"
        names = []
        if collision:
            for i, shape in enumerate(link.collisions):
                g = _box_geom(body, f"{prefix}/{shape.name or f'collision{i}'}", shape)
                g.friction = [CABINET_FRICTION, 0.005, 0.0001]
                g.contype, g.conaffinity = 0, 0
                g.density = 0.0
                g.rgba = [0.5, 0.5, 0.5, 1.0]
                g.group = COLLISION_GROUP
                names.append(g.name)
        if visuals:
            for i, shape in enumerate(link.visuals):
                vname = f"{prefix}/{shape.name or f'visual{i}'}"
                if shape.kind == "box":
                    g = _box_geom(body, vname, shape)
                else:
                    arrays = load_mesh(shape.filename)
                    mesh = spec.add_mesh(name=f"{vname}/mesh")
                    mesh.uservert = arrays.vertices.astype(np.float32).ravel()
                    mesh.userface = arrays.faces.ravel()
                    g = body.add_geom(name=vname)
                    g.type = mujoco.mjtGeom.mjGEOM_MESH
                    g.meshname = mesh.name
                    g.pos = shape.origin.xyz
                    g.quat = rpy_to_quat(shape.origin.rpy)
                if shape.material in materials:
                    rgba = materials[shape.material]
                elif shape.kind == "mesh":
                    rgba = STONE_TABLETOP_RGBA
                else:
                    rgba = (0.8, 0.8, 0.8, 1.0)
                g.rgba = list(rgba)
                g.contype, g.conaffinity = 0, 0
                g.group = VISUAL_GROUP
                g.density = 0.0
                visual_names.append(g.name)
        return names

    root = spec.worldbody.add_body(name=ROOT_BODY, pos=list(map(float, pos)), quat=[1.0, 0.0, 0.0, 0.0])
    static = fill(root, links[root_link])
    drawer_bodies = []
    for jname, lname in zip(DRAWER_JOINTS, DRAWER_LINKS):
        uj = joint_of[lname]
        body = root.add_body(name=f"{ROOT_BODY}/{lname}", pos=list(uj.origin.xyz),
                              quat=list(rpy_to_quat(uj.origin.rpy)))
        j = body.add_joint(name=jname)
        j.type = mujoco.mjtJoint.mjJNT_SLIDE
        j.axis = uj.axis
        j.range = [uj.lower, uj.upper]
        j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        j.solref_limit = list(LIMIT_SOLREF)
        j.solimp_limit = list(LIMIT_SOLIMP)
        j.frictionloss = JOINT_FRICTION
        j.damping = [JOINT_DAMPING, 0.0, 0.0]  # MuJoCo 4: linear term + polynomial terms
        j.stiffness = [JOINT_STIFFNESS, 0.0, 0.0]
        drawers.append(tuple(fill(body, links[lname])))
        drawer_bodies.append(body.name)
    tabletop = next((n for n in static if n.endswith("/tabletop_collision")), None)
    return CabinetGeoms(
        root_body=ROOT_BODY,
        drawer_bodies=tuple(drawer_bodies),
        drawer_joints=DRAWER_JOINTS,
        static=tuple(static),
        drawers=tuple(drawers),
        interior_bottoms=tuple(d[INTERIOR_BOTTOM_INDEX] for d in drawers) if collision else (),
        tabletop=tabletop,
        visuals=tuple(visual_names),
    )


def cabinet_index(m: mujoco.MjModel, geoms: CabinetGeoms | None = None) -> CabinetIndex:
    """Drawer qpos/dof addresses, body ids and interior-bottom geom ids in `m`.

    Without `geoms` the default names are used; the interior bottoms are then looked
    up as shape [2] of each drawer body (an empty array if the cabinet has no
    collision geoms). Read drawer openings in JAX as `data.qpos[..., idx.drawer_qpos]`.
    """
    joints = geoms.drawer_joints if geoms is not None else DRAWER_JOINTS
    bodies = geoms.drawer_bodies if geoms is not None else tuple(f"{ROOT_BODY}/{n}" for n in DRAWER_LINKS)
    jid = [m.joint(n).id for n in joints]
    bid = [m.body(n).id for n in bodies]
    if geoms is not None:
        bottoms = [m.geom(n).id for n in geoms.interior_bottoms]
    else:
        bottoms = []
        for b in bid:
            coll = [g for g in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b])
                    if m.geom_group[g] == COLLISION_GROUP]
            if len(coll) > INTERIOR_BOTTOM_INDEX:
                bottoms.append(coll[INTERIOR_BOTTOM_INDEX])
        if bottoms and len(bottoms) != len(bid):
            raise ValueError("cabinet drawers have inconsistent collision geoms")
    return CabinetIndex(
        drawer_qpos=np.array([m.jnt_qposadr[j] for j in jid], np.int32),
        drawer_dof=np.array([m.jnt_dofadr[j] for j in jid], np.int32),
        drawer_bodies=np.array(bid, np.int32),
        interior_bottom_geoms=np.array(bottoms, np.int32),
    )
