"""Free objects from `data/custom/models/<id>/collision.obj` (SIMPLER_SPEC.md §2.1, §7).

The collision file holds one or more convex parts; each connected piece becomes one
mesh geom. In "simplified" mode an object whose pieces together are nearly convex
(the hull of all of them at most `MERGE_CONVEXITY` times their summed volume: the
apple's 14 pieces, the orange's 5, the Red Bull can's 3, ...) becomes the one hull
of all its pieces, given the pieces' mass, centre of mass and inertia (density x
their volume); otherwise at most `max_pieces` pieces are kept: the largest by hull
volume (`MAX_PIECES`), or, for a fixed object, the ones that form its top surface
(`FIXED_MAX_PIECES`, `simpler_jax.assets.meshes.top_cover`: the sink's 8 largest of
58 left a fifth of its footprint without any collision, the basin floor under the
eggplant among it). The merged hull's vertices are the pieces' support points around each model
axis (`simpler_jax.assets.meshes.support_vertices`: a flat face around every axis, so
an object rests on a face in its task orientation); every hull is capped at
`hull_budget` vertices. A single-piece object over the budget keeps qhull's own cap
(its extreme points) unless `single_piece_hull="support"`, which gives it the
support-point hull too (`SINGLE_PIECE_HULLS`; move near's opened coke and 7up cans,
`baked_opened_*_can_v2`, one piece of 75 and 1058 vertices: with qhull's cap both slid
2.8-8.6 cm in the closed Google hand in every carry and three fell out, while the
multi-piece Pepsi and Red Bull cans, merged, held; benchmarks/RESULTS.md). The other
tasks keep qhull's cap: their grids were measured with it. In "original" mode every
piece is kept at full resolution.
Mass comes from the density. SIMPLER's invisible success references (the eggplant
task's target plane, `REFERENCE_MARKERS`) are held where the reset puts them.

Why merge: in MJX (not in MuJoCo C) the apple's capped pieces, resting on the
cabinet top box, kicked it into rolling within 0.5 s and off the cabinet in 3 s;
as one 24-vertex hull it rests where MuJoCo C puts it (a reproduction of the apple
alone on a box, 2026-12-01). It also cuts the object's contact pairs (the apple in
the drawer scene: 8 pieces x 50 partner geoms). Why support points: with qhull's own
24-vertex cap the orange stood on one vertex and rolled 18 cm while settling, and the
standing bottle, on a base 3 mm out of plane, toppled, in MJX only.

With `visuals=True` the object also gets its visual mesh (`textured.obj`, else
`.dae`, else `.glb`, as the original) as a massless, non-colliding geom in the
renderer's visual group, one geom per material, decimated to `VISUAL_FACE_BUDGET`
triangles in all, with its UV texture (`simpler_jax.assets.visual_geoms`; baked
models: their baked texture); the collision pieces then move to the hidden
collision group. Models without a visual mesh (five in the assets) or without a
colour keep their collision pieces visible in `FALLBACK_RGBA`. With `appearances`
the body also carries the visual geoms of the object's other textured models, drawn
per world (`simpler_jax.scenes.appearance`).
"""

from __future__ import annotations

import dataclasses
import pathlib

import mujoco
import numpy as np

from simpler_jax.assets.meshes import convex_pieces, hull_volume, solid_mass_properties, support_vertices, top_cover
from simpler_jax.assets.paths import OBJECT_MODELS_DIR, MissingAssetError

OBJECT_FRICTION = 0.5  # static = dynamic in the original
# The original's linear/angular damping of target objects (SAPIEN `set_damping`), kept
# for the record and NOT applied: PhysX scales it by the mass (force 0.1 * m * v), under
# 0.03 N s/m for these objects and about 1 % of gravity at 1 m/s; MuJoCo's joint
# damping is not mass-scaled, so the objects' free joints have none.
OBJECT_DAMPING = 0.1
VISUAL_FACE_BUDGET = 2000  # triangles of an object's visual mesh
FALLBACK_RGBA = (0.6, 0.6, 0.6, 1.0)  # objects without a visual mesh or colour
VISUAL_GROUP, COLLISION_GROUP = 2, 3  # as the robots' (simpler_jax.robots.builder)
MERGE_CONVEXITY = 1.05  # merge the pieces when hull(all) <= this x sum(piece hulls)
# How a single-piece object over `hull_budget` vertices is capped (module docstring).
SINGLE_PIECE_HULLS = ("qhull", "support")
MAX_PIECES = 8  # pieces kept of a free object that is not merged
FIXED_MAX_PIECES = 16  # of a fixed one: the sink's top surface over the eggplant's basin needs 16
# SIMPLER's invisible success references, held where the reset puts them: gravity-
# compensated (`gravcomp` 1), touching none of the scene's surfaces (table, floor, fixed
# objects), and damped so hard (`MARKER_DAMPING`, per free-joint DOF) that what still
# touches them (the source, the hand) moves them well under 1 mm in an episode. In the
# original the eggplant task's 2 kg target plane lies across the basket's rims under
# PhysX's rigid contacts and the eggplant lands on it; on MuJoCo's soft contacts it
# sinks and creeps along the rims (MuJoCo C: 9 mm down, then 5 mm sideways in 1.5 s;
# MJX: 4 cm down and 5-7 cm sideways, benchmarks/RESULTS.md), taking the success region
# (and the scripted placement) off the basket.
REFERENCE_MARKERS = frozenset({"dummy_sink_target_plane"})
MARKER_DAMPING = 1e4  # N s/m (and N m s/rad): 5 N on a marker moves it 0.5 mm/s


def is_reference_marker(model_id: str) -> bool:
    """Whether `model_id` is held in place and touches no surface (`REFERENCE_MARKERS`)."""
    return model_id in REFERENCE_MARKERS


@dataclasses.dataclass(frozen=True)
class ObjectSpec:
    model_id: str
    density: float
    pos: tuple[float, float, float]
    quat: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    name: str | None = None

    @property
    def body_name(self) -> str:
        return self.name or self.model_id


def add_object(
    spec: mujoco.MjSpec,
    obj: ObjectSpec,
    asset_root: pathlib.Path,
    collision: str = "simplified",
    hull_budget: int = 24,
    single_piece_hull: str = "qhull",
    max_pieces: int | None = None,
    fixed: bool = False,
    visuals: bool = False,
    appearances: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """Add a free body for `obj` (welded to the world if `fixed`); returns its collision geom names.

    appearances: with `visuals`, also the visual geoms of these other models of the
    object (`simpler_jax.scenes.appearance`), drawn only in worlds that pick them.
    single_piece_hull: one of `SINGLE_PIECE_HULLS` (module docstring)."""
    if single_piece_hull not in SINGLE_PIECE_HULLS:
        raise ValueError(f"single_piece_hull {single_piece_hull!r}; allowed: {list(SINGLE_PIECE_HULLS)}")
    path = pathlib.Path(asset_root) / OBJECT_MODELS_DIR / obj.model_id / "collision.obj"
    if not path.is_file():
        raise MissingAssetError(f"object {obj.model_id!r}: missing {str(path)!r}")
    solid = [(p, hull_volume(p.vertices)) for p in convex_pieces(path) if len(p.vertices) >= 4]
    pieces = [p for p, v in solid if v > 1e-9]
    vols = [v for _, v in solid if v > 1e-9]
    if not pieces:
        raise ValueError(f"object {obj.model_id!r}: {str(path)!r} has no solid convex piece")
    merged = False
    vertex_sets = [(p.vertices, p.faces) for p in pieces]
    over_budget = single_piece_hull == "support" and len(pieces[0].vertices) > hull_budget
    if collision == "simplified" and (len(pieces) > 1 or over_budget):
        all_vertices = np.concatenate([p.vertices for p in pieces])
        if hull_volume(all_vertices) <= MERGE_CONVEXITY * sum(vols):
            # One capped hull of all the pieces (faces=None: MuJoCo builds the hull);
            # the body keeps the pieces' mass, centre of mass and inertia (the capped
            # hull's own volume is up to 20 % less, its centre up to 1 cm off).
            vertex_sets = [(support_vertices(all_vertices), None)]
            merged = True
        elif len(pieces) > (limit := max_pieces or (FIXED_MAX_PIECES if fixed else MAX_PIECES)):
            if fixed:
                keep = _top_cover_of(path, pieces, limit)
            else:
                keep = sorted(np.argsort(vols)[::-1][:limit])
            vertex_sets = [vertex_sets[i] for i in keep]
    body = spec.worldbody.add_body(name=obj.body_name, pos=list(obj.pos), quat=list(obj.quat))
    if not fixed:
        joint = body.add_freejoint(name=f"{obj.body_name}/free")
        if is_reference_marker(obj.model_id):
            body.gravcomp = 1.0
            joint.damping = [MARKER_DAMPING, 0.0, 0.0]
    if merged:
        mass, com, inertia = solid_mass_properties([p.vertices for p in pieces], obj.density)
        body.explicitinertial = True
        body.mass, body.ipos, body.fullinertia = mass, com, inertia
    names = []
    for i, (vertices, faces) in enumerate(vertex_sets):
        mesh = spec.add_mesh(name=f"{obj.body_name}/mesh{i}")
        mesh.uservert = vertices.astype(np.float32).ravel()
        if faces is not None:
            mesh.userface = faces.ravel()
        if collision == "simplified":
            mesh.maxhullvert = hull_budget
        g = body.add_geom(name=f"{obj.body_name}/collision{i}")
        g.type = mujoco.mjtGeom.mjGEOM_MESH
        g.meshname = mesh.name
        g.density = obj.density  # ignored when the body's inertia is explicit
        g.friction = [OBJECT_FRICTION, 0.005, 0.0001]
        g.rgba = list(FALLBACK_RGBA)
        names.append(g.name)
    if visuals and _add_visual(spec, body, f"{obj.body_name}/visual", path.parent, VISUAL_GROUP):
        for name in names:
            spec.geom(name).group = COLLISION_GROUP
    if visuals and appearances:
        from simpler_jax.scenes.appearance import (APPEARANCE_GROUP, appearance_geom_name, appearance_model_id,
                                                   object_appearances)

        for appearance in object_appearances(appearances):
            other = appearance_model_id(obj.model_id, appearance)
            if other != obj.model_id:  # a model that is missing or has no visual mesh adds nothing
                _add_visual(spec, body, appearance_geom_name(obj.body_name, appearance),
                            path.parent.parent / other, APPEARANCE_GROUP)
    return tuple(names)


_TOP_COVERS: dict[tuple[pathlib.Path, int], tuple[int, ...]] = {}


def _top_cover_of(path: pathlib.Path, pieces: list, count: int) -> tuple[int, ...]:
    """`top_cover` of `pieces` (the solid pieces of the file at `path`), computed once
    per file and count in a process (it takes seconds for the sink)."""
    if (path, count) not in _TOP_COVERS:
        _TOP_COVERS[path, count] = tuple(top_cover([p.vertices for p in pieces], count))
    return _TOP_COVERS[path, count]


def _add_visual(spec: mujoco.MjSpec, body, name: str, model_dir: pathlib.Path, group: int) -> bool:
    """Add the textured visual mesh in `model_dir` to `body` as geoms `name`, `name/1`, ...
    in `group`; False if there is none (or it has no colour)."""
    from simpler_jax.assets.meshes import visual_mesh_file
    from simpler_jax.assets.textures import load_textured_parts
    from simpler_jax.assets.visual_geoms import add_visual_parts

    path = visual_mesh_file(model_dir)
    parts = [] if path is None else load_textured_parts(path)
    # An unreadable baked texture leaves a black material and no image: no colour.
    parts = [p for p in parts if p.texture is not None or float(np.max(p.rgba[:3])) >= 0.01]
    if not parts:
        return False
    add_visual_parts(spec, body, name, parts, group, max_faces=VISUAL_FACE_BUDGET)
    return True
