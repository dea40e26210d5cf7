"""Add a SIMPLER robot, read from its original URDF, to a `mujoco.MjSpec`.

Two collision modes:
- "simplified" (what runs in MJX): every collision mesh of a link becomes a single
  convex hull capped at `hull_budget` vertices (hand links: `finger_hull_budget`);
  the geoms have contype = conaffinity = 0, so they only collide through the
  explicit pairs a scene adds (hand links with objects and the table, arm links
  with objects). No robot self-collision.
- "original" (the MuJoCo C reference): every collision mesh at full hull
  resolution, colliding with everything (MuJoCo's default parent/child filter).
Visual meshes (group 2, no collision, no mass, with their UV textures:
`simpler_jax.assets.visual_geoms`) are added only when asked.
"""

from __future__ import annotations

import dataclasses
import pathlib

import mujoco
import numpy as np

from simpler_jax.assets.meshes import load_mesh
from simpler_jax.assets.textures import load_textured_parts
from simpler_jax.assets.visual_geoms import add_texture_variant, add_visual_parts
from simpler_jax.robots.config import RobotConfig
from simpler_jax.robots.urdf import Joint, Link, Shape, Urdf, read_urdf
from simpler_jax.utils.rotations_np import rpy_to_quat

COLLISION_MODES = ("simplified", "original")
VISUAL_GROUP = 2
COLLISION_GROUP = 3


# Joint limits as stiff as MuJoCo integrates stably. PhysX articulation limits are
# hard; with MuJoCo's default limit softness (20 ms, impedance 0.9-0.95) a 100 N*m
# drive pushes the light Google wrist 0.37 rad past its range (SysID replays of the
# fractal data do reach it). These keep the overshoot to milliradians.
LIMIT_SOLREF = (0.005, 1.0)
LIMIT_SOLIMP = (0.99, 0.9999, 0.001, 0.5, 2.0)


@dataclasses.dataclass(frozen=True)
class RobotGeoms:
    """Names of the collision geoms a robot added, by role."""

    hand: tuple[str, ...]
    arm: tuple[str, ...]  # on moving links
    static: tuple[str, ...]  # on links fixed to the world (the base): never paired
    by_link: dict[str, tuple[str, ...]]
    # finger link -> its flat pad box (simplified mode, `RobotConfig.finger_pads`): the
    # geom that touches objects in place of the link's hulls (also listed in by_link)
    pads: dict[str, str] = dataclasses.field(default_factory=dict)


def _full_inertia(inertial) -> list[float]:
    ixx, iyy, izz, ixy, ixz, iyz = inertial.inertia
    return [ixx, iyy, izz, ixy, ixz, iyz]


class _RobotWriter:
    def __init__(self, spec, config, asset_root, collision, visuals):
        if collision not in COLLISION_MODES:
            raise ValueError(f"unknown collision mode {collision!r}; allowed: {COLLISION_MODES}")
        self.spec, self.config, self.collision, self.visuals = spec, config, collision, visuals
        self.asset_root = pathlib.Path(asset_root)
        self.mesh_names: dict[tuple, str] = {}
        self.hand: list[str] = []
        self.arm: list[str] = []
        self.static: list[str] = []
        self.urdf: Urdf | None = None
        self.by_link: dict[str, list[str]] = {}

    def mesh(self, shape: Shape, budget: int | None) -> str:
        key = (str(shape.filename), tuple(shape.scale), budget)
        if key not in self.mesh_names:
            arrays = load_mesh(shape.filename)
            name = f"{self.config.name}/mesh{len(self.mesh_names)}"
            m = self.spec.add_mesh(name=name)
            m.uservert = (arrays.vertices * shape.scale).astype(np.float32).ravel()
            m.userface = arrays.faces.ravel()
            if budget is not None:
                m.maxhullvert = budget
            self.mesh_names[key] = name
        return self.mesh_names[key]

    def mesh_geom(self, body, name: str, shape: Shape, budget: int | None, group: int):
        """A massless mesh geom for `shape` at its URDF origin."""
        g = body.add_geom(name=name)
        g.type = mujoco.mjtGeom.mjGEOM_MESH
        g.meshname = self.mesh(shape, budget)
        g.pos = shape.origin.xyz
        g.quat = rpy_to_quat(shape.origin.rpy)
        g.group = group
        g.density = 0.0
        return g

    def keep(self, urdf: Urdf, link: str) -> bool:
        """Whether a link becomes a body: it has geometry, mass on a moving chain, or kept children."""
        if link in self.config.drop_links:
            return False
        if link in self.config.keep_links:
            return True
        lk = urdf.links[link]
        if lk.collisions or (self.visuals and lk.visuals):
            return True
        if lk.inertial is not None and lk.inertial.mass > 0 and self._moves(urdf, link):
            return True
        return any(self.keep(urdf, j.child) for j in urdf.child_joints(link))

    def _moves(self, urdf: Urdf, link: str) -> bool:
        parents = {j.child: j for j in urdf.joints}
        while link in parents:
            if parents[link].type != "fixed":
                return True
            link = parents[link].parent
        return False

    def link_geoms(self, body, link: Link) -> None:
        cfg = self.config
        is_hand = link.name in cfg.hand_links
        friction = dict(cfg.extra_friction).get(link.name)
        if link.name in cfg.finger_links:
            friction = cfg.finger_friction
        names = []
        for i, shape in enumerate(link.collisions):
            if shape.kind != "mesh":
                raise ValueError(f"{cfg.name}: link {link.name} has non-mesh collision {shape.kind}")
            if self.collision == "simplified":
                budget = cfg.finger_hull_budget if is_hand else cfg.hull_budget
            else:
                budget = None
            g = self.mesh_geom(body, f"{link.name}/collision{i}", shape, budget, COLLISION_GROUP)
            g.rgba = [0.5, 0.5, 0.5, 1.0]
            if friction is not None:
                g.friction = [friction, 0.005, 0.0001]
            if self.collision == "simplified":
                g.contype, g.conaffinity = 0, 0
            names.append(g.name)
        if is_hand:
            self.hand.extend(names)
        elif self._moves(self.urdf, link.name):
            self.arm.extend(names)
        else:
            self.static.extend(names)
        self.by_link[link.name] = tuple(names)
        if self.visuals:
            for i, shape in enumerate(link.visuals):
                if shape.kind == "mesh":
                    self.visual_geoms(body, f"{link.name}/visual{i}", shape)

    def visual_geoms(self, body, name: str, shape: Shape) -> None:
        """The textured visual mesh of `shape` (grey where the file has no colour)."""
        parts = load_textured_parts(shape.filename)
        if parts:
            add_visual_parts(self.spec, body, name, parts, VISUAL_GROUP, scale=shape.scale,
                             pos=shape.origin.xyz, quat=rpy_to_quat(shape.origin.rpy))
        else:
            g = self.mesh_geom(body, name, shape, None, VISUAL_GROUP)
            g.contype, g.conaffinity = 0, 0

    def texture_variant(self, variant: str, variant_urdf: Urdf) -> None:
        """`variant_urdf`'s textures as texture variant `variant` of the visual geoms
        (`simpler_jax.assets.visual_geoms.add_texture_variant`): each visual whose
        file differs from this URDF's shows that file's images, part by part."""
        for name, link in self.urdf.links.items():
            other = variant_urdf.links.get(name)
            if other is None or self.spec.body(name) is None:
                continue
            for i, (shape, alt) in enumerate(zip(link.visuals, other.visuals)):
                if shape.kind != "mesh" or alt.kind != "mesh" or str(shape.filename) == str(alt.filename):
                    continue
                parts = zip(load_textured_parts(shape.filename), load_textured_parts(alt.filename))
                for k, (part, alt_part) in enumerate(parts):
                    if part.texture is not None and alt_part.texture is not None:
                        geom = f"{link.name}/visual{i}" + (f"/{k}" if k else "")
                        add_texture_variant(self.spec, geom, variant, alt_part.texture)

    def body(self, parent, urdf: Urdf, link_name: str, joint: Joint | None):
        link = urdf.links[link_name]
        body = parent.add_body(name=link_name)
        if joint is not None:
            body.pos = joint.origin.xyz
            body.quat = rpy_to_quat(joint.origin.rpy)
            if joint.type in ("revolute", "continuous", "prismatic"):
                j = body.add_joint(name=joint.name)
                j.type = (
                    mujoco.mjtJoint.mjJNT_SLIDE
                    if joint.type == "prismatic"
                    else mujoco.mjtJoint.mjJNT_HINGE
                )
                j.axis = joint.axis
                if joint.type != "continuous" and np.isfinite([joint.lower, joint.upper]).all():
                    j.range = [joint.lower, joint.upper]
                    j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
                    j.solref_limit = list(LIMIT_SOLREF)
                    j.solimp_limit = list(LIMIT_SOLIMP)
        body.explicitinertial = True  # URDF inertia only; geoms carry no mass
        if link.inertial is not None and link.inertial.mass > 0:
            body.mass = link.inertial.mass
            body.ipos = link.inertial.origin.xyz
            body.iquat = rpy_to_quat(link.inertial.origin.rpy)
            body.fullinertia = _full_inertia(link.inertial)
        else:
            body.mass = 0.0
            body.inertia = [0.0, 0.0, 0.0]
        self.link_geoms(body, link)
        for child in urdf.child_joints(link_name):
            if self.keep(urdf, child.child):
                self.body(body, urdf, child.child, child)
        return body


def add_robot(
    spec: mujoco.MjSpec,
    config: RobotConfig,
    asset_root: str | pathlib.Path,
    base_pos=(0.0, 0.0, 0.0),
    base_quat=(1.0, 0.0, 0.0, 0.0),
    collision: str = "simplified",
    visuals: bool = False,
    urdf_rel: str | None = None,
) -> RobotGeoms:
    """Add `config`'s robot, fixed at (base_pos, base_quat wxyz), to `spec`'s world.

    Returns the collision geom names by role (see module docstring). Actuators are
    added by the scene builder (`simpler_jax.scenes`), not here.
    """
    urdf = read_urdf(pathlib.Path(asset_root) / (urdf_rel or config.urdf))
    writer = _RobotWriter(spec, config, asset_root, collision, visuals)
    writer.urdf = urdf
    root = writer.body(spec.worldbody, urdf, urdf.root, None)
    root.pos = np.asarray(base_pos, float)
    root.quat = np.asarray(base_quat, float)
    if visuals:
        for variant, rel in config.texture_variant_urdfs:
            writer.texture_variant(variant, read_urdf(pathlib.Path(asset_root) / rel))
    for name in config.controlled_joints:
        if spec.joint(name) is None:
            raise ValueError(f"{config.name}: URDF has no joint {name!r}")
    for name in config.finger_joints:
        spec.joint(name).armature = config.finger_armature
    for link in config.finger_links + (config.ee_link,):
        if spec.body(link) is None:
            raise ValueError(f"{config.name}: URDF has no link {link!r}")
    pads = {}
    if collision == "simplified":
        for link, pos, half in config.finger_pads:
            g = spec.body(link).add_geom(name=f"{link}/pad")
            g.type = mujoco.mjtGeom.mjGEOM_BOX
            g.pos, g.size = list(pos), list(half)
            g.group, g.density = COLLISION_GROUP, 0.0
            g.contype, g.conaffinity = 0, 0
            g.friction = [config.finger_friction, 0.005, 0.0001]
            g.rgba = [0.5, 0.5, 0.5, 1.0]
            pads[link] = g.name
            writer.by_link[link] = writer.by_link.get(link, ()) + (g.name,)
    return RobotGeoms(tuple(writer.hand), tuple(writer.arm), tuple(writer.static), writer.by_link, pads)
