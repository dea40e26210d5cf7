"""Static render geometry, extracted once from a compiled `mujoco.MjModel`.

Every visible geom becomes a set of triangles in its own geom frame: mesh geoms
use the model's mesh (the visual mesh, not the collision hull) simplified to at
most `max_faces_per_mesh` triangles (`simpler_jax.render.decimate`); primitives
are triangulated (`simpler_jax.render.primitives`). A geom is visible when its
group is in `geom_groups` (MuJoCo's default: groups 0, 1, 2; the robots'
collision hulls are group 3) and its alpha is positive, as in MuJoCo's renderer.

Shapes (T triangles, G visible geoms, B bodies of the model):
    tri_vertices (T, 3, 3) float32  corner positions in the geom frame
    tri_geom     (T,)      int32    index into the visible geoms (0..G-1)
    geom_id      (G,)      int32    MuJoCo geom id of each visible geom
    geom_rgba    (G, 4)    float32  material rgba when the geom has a material, else geom rgba
    geom_body    (G,)      int32    MuJoCo body id
    geom_seg     (G,)      int32    id written to the segmentation image
    body_seg     (B,)      int32    segmentation id per body (body id by default)
"""

from __future__ import annotations

import flax.struct
import jax.numpy as jnp
import mujoco
import numpy as np

from simpler_jax.render.decimate import decimate
from simpler_jax.render.primitives import primitive_mesh

G = mujoco.mjtGeom
DEFAULT_GEOM_GROUPS = (0, 1, 2)  # mjvOption's default visible groups
# Triangles kept per visual mesh. 2000 keeps every task scene at per-body IoU >= 0.95
# against MuJoCo's renderer (benchmarks/render_tasks.py); at 1000 the Google finger
# nail fell to 0.90 and the Bridge spoon to 0.86 (vertex clustering thins small and
# thin meshes).
DEFAULT_MAX_FACES_PER_MESH = 2000
_PRIMITIVES = (G.mjGEOM_BOX, G.mjGEOM_PLANE, G.mjGEOM_SPHERE, G.mjGEOM_ELLIPSOID,
               G.mjGEOM_CAPSULE, G.mjGEOM_CYLINDER)


@flax.struct.dataclass
class RenderGeometry:
    tri_vertices: jnp.ndarray
    tri_geom: jnp.ndarray
    geom_id: jnp.ndarray
    geom_rgba: jnp.ndarray
    geom_body: jnp.ndarray
    geom_seg: jnp.ndarray
    body_seg: jnp.ndarray
    far: float = flax.struct.field(pytree_node=False, default=50.0)  # background depth (m)
    near: float = flax.struct.field(pytree_node=False, default=0.01)  # nearest visible depth (m)

    @property
    def num_triangles(self) -> int:
        return int(self.tri_geom.shape[0])


def geom_triangles(m: mujoco.MjModel, g: int, max_faces_per_mesh: int | None,
                   segments: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (V, 3), faces (F, 3)) of geom `g` in its geom frame."""
    t = int(m.geom_type[g])
    if t == G.mjGEOM_MESH:
        mid = int(m.geom_dataid[g])
        v0, nv = int(m.mesh_vertadr[mid]), int(m.mesh_vertnum[mid])
        f0, nf = int(m.mesh_faceadr[mid]), int(m.mesh_facenum[mid])
        verts = np.asarray(m.mesh_vert[v0:v0 + nv], np.float64)
        faces = np.asarray(m.mesh_face[f0:f0 + nf], np.int64)
        return decimate(verts, faces, max_faces_per_mesh)
    if t in _PRIMITIVES:
        return primitive_mesh(t, m.geom_size[g], segments)
    raise ValueError(f"geom {m.geom(g).name!r}: type {t} is not supported by the renderer")


def visible_geoms(m: mujoco.MjModel, geom_groups=DEFAULT_GEOM_GROUPS) -> list[int]:
    out = []
    for g in range(m.ngeom):
        rgba = m.mat_rgba[m.geom_matid[g]] if m.geom_matid[g] >= 0 else m.geom_rgba[g]
        if int(m.geom_group[g]) in geom_groups and rgba[3] > 0:
            out.append(g)
    return out


def render_geometry(m: mujoco.MjModel, max_faces_per_mesh: int | None = DEFAULT_MAX_FACES_PER_MESH,
                    geom_groups=DEFAULT_GEOM_GROUPS, segmentation: str = "body",
                    segments: int = 16) -> RenderGeometry:
    """Extract the render geometry of `m` (see module docstring).

    segmentation: "body" (segmentation ids are MuJoCo body ids) or "geom" (geom ids).
    max_faces_per_mesh: triangle budget of each mesh geom (None: keep every triangle).
    """
    if segmentation not in ("body", "geom"):
        raise ValueError(f"segmentation must be 'body' or 'geom', got {segmentation!r}")
    geoms = visible_geoms(m, geom_groups)
    if not geoms:
        raise ValueError("the model has no visible geom in groups %s" % (tuple(geom_groups),))
    tris, tri_geom = [], []
    for k, g in enumerate(geoms):
        v, f = geom_triangles(m, g, max_faces_per_mesh, segments)
        tris.append(v[f])
        tri_geom.append(np.full(len(f), k, np.int32))
    rgba = np.array([m.mat_rgba[m.geom_matid[g]] if m.geom_matid[g] >= 0 else m.geom_rgba[g]
                     for g in geoms], np.float32)
    body = np.array([m.geom_bodyid[g] for g in geoms], np.int32)
    seg = body if segmentation == "body" else np.array(geoms, np.int32)
    return RenderGeometry(
        tri_vertices=jnp.asarray(np.concatenate(tris).astype(np.float32)),
        tri_geom=jnp.asarray(np.concatenate(tri_geom)),
        geom_id=jnp.asarray(np.array(geoms, np.int32)),
        geom_rgba=jnp.asarray(rgba),
        geom_body=jnp.asarray(body),
        geom_seg=jnp.asarray(seg),
        body_seg=jnp.asarray(np.arange(m.nbody, dtype=np.int32)),
        far=float(m.vis.map.zfar * m.stat.extent),
        near=float(m.vis.map.znear * m.stat.extent),
    )
