"""A small URDF reader: links (inertia, visual and collision meshes) and joints.

Only what the SIMPLER robot descriptions use: revolute/continuous/prismatic/fixed
joints, mesh and box geometry, origins in xyz + rpy. Mimic tags, effort limits and
transmissions are read but not applied (SIMPLER's controllers define the drives).
"""

from __future__ import annotations

import dataclasses
import pathlib
import xml.etree.ElementTree as ET

import numpy as np


@dataclasses.dataclass(frozen=True)
class Origin:
    xyz: np.ndarray  # (3,)
    rpy: np.ndarray  # (3,)


@dataclasses.dataclass(frozen=True)
class Shape:
    kind: str  # "mesh" | "box" | "cylinder" | "sphere"
    origin: Origin
    filename: pathlib.Path | None = None
    scale: np.ndarray | None = None  # (3,)
    size: np.ndarray | None = None
    name: str = ""  # the <visual>/<collision> name attribute
    material: str | None = None  # the <material name=...> it refers to


@dataclasses.dataclass(frozen=True)
class Inertial:
    mass: float
    origin: Origin
    inertia: np.ndarray  # (6,): ixx iyy izz ixy ixz iyz


@dataclasses.dataclass(frozen=True)
class Link:
    name: str
    inertial: Inertial | None
    visuals: tuple[Shape, ...]
    collisions: tuple[Shape, ...]


@dataclasses.dataclass(frozen=True)
class Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: Origin
    axis: np.ndarray  # (3,)
    lower: float
    upper: float


@dataclasses.dataclass(frozen=True)
class Urdf:
    name: str
    links: dict[str, Link]
    joints: tuple[Joint, ...]
    materials: dict[str, tuple[float, ...]] = dataclasses.field(default_factory=dict)  # name -> rgba

    @property
    def root(self) -> str:
        children = {j.child for j in self.joints}
        roots = [n for n in self.links if n not in children]
        if len(roots) != 1:
            raise ValueError(f"URDF {self.name!r} has roots {roots}; expected exactly one")
        return roots[0]

    def child_joints(self, link: str) -> list[Joint]:
        return [j for j in self.joints if j.parent == link]


def _floats(text: str | None, default: tuple[float, ...]) -> np.ndarray:
    if text is None:
        return np.array(default, dtype=float)
    return np.array([float(v) for v in text.split()], dtype=float)


def _origin(elem: ET.Element | None) -> Origin:
    if elem is None:
        return Origin(np.zeros(3), np.zeros(3))
    return Origin(_floats(elem.get("xyz"), (0, 0, 0)), _floats(elem.get("rpy"), (0, 0, 0)))


def _shape(elem: ET.Element, base_dir: pathlib.Path, urdf_path: pathlib.Path) -> Shape | None:
    geom = elem.find("geometry")
    if geom is None or len(geom) == 0:
        raise ValueError(f"{urdf_path}: <{elem.tag}> without <geometry>")
    g = geom[0]
    origin = _origin(elem.find("origin"))
    mat = elem.find("material")
    named = dict(name=elem.get("name", ""), material=mat.get("name") if mat is not None else None)
    if g.tag == "mesh":
        return Shape(
            "mesh",
            origin,
            filename=base_dir / g.get("filename").replace("package://", ""),
            scale=_floats(g.get("scale"), (1, 1, 1)),
            **named,
        )
    if g.tag == "box":
        return Shape("box", origin, size=_floats(g.get("size"), (0, 0, 0)), **named)
    if g.tag == "cylinder":
        return Shape("cylinder", origin, size=np.array([float(g.get("radius")), float(g.get("length"))]), **named)
    if g.tag == "sphere":
        return Shape("sphere", origin, size=np.array([float(g.get("radius"))]), **named)
    raise ValueError(f"{urdf_path}: unsupported geometry <{g.tag}>")


def read_urdf(path: str | pathlib.Path) -> Urdf:
    """Parse a URDF file; mesh paths are resolved relative to the file."""
    path = pathlib.Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ValueError(f"{path}: malformed URDF ({err})") from err
    base_dir = path.parent
    links: dict[str, Link] = {}
    for le in root.findall("link"):
        inertial = None
        ie = le.find("inertial")
        if ie is not None:
            mass = float(ie.find("mass").get("value"))
            i = ie.find("inertia")
            inertia = np.array(
                [float(i.get(k, 0.0)) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")]
            )
            inertial = Inertial(mass, _origin(ie.find("origin")), inertia)
        links[le.get("name")] = Link(
            le.get("name"),
            inertial,
            tuple(_shape(v, base_dir, path) for v in le.findall("visual")),
            tuple(_shape(c, base_dir, path) for c in le.findall("collision")),
        )
    joints = []
    for je in root.findall("joint"):
        lim = je.find("limit")
        lower = float(lim.get("lower", "-inf")) if lim is not None else -np.inf
        upper = float(lim.get("upper", "inf")) if lim is not None else np.inf
        joints.append(
            Joint(
                je.get("name"),
                je.get("type"),
                je.find("parent").get("link"),
                je.find("child").get("link"),
                _origin(je.find("origin")),
                _floats(je.find("axis").get("xyz") if je.find("axis") is not None else None, (1, 0, 0)),
                lower,
                upper,
            )
        )
    materials = {}
    for me in root.findall("material"):  # top-level named colours
        c = me.find("color")
        if c is not None:
            materials[me.get("name")] = tuple(float(v) for v in c.get("rgba").split())
    return Urdf(root.get("name", path.stem), links, tuple(joints), materials)
