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
    tri_uv       (T, 3, 2) float32  texture coordinates of each corner (MuJoCo's
                                    convention: v from the image's top row)
    geom_texture (V, G)    int32    slot in `textures` per texture variant, -1: none
    textures     (K, S, S, 3) uint8 every texture the geoms use, resampled to S x S
    geom_appearance_mask (G,) int32 bit k set: the geom is drawn in appearance k

Textures: a mesh geom whose material has an RGB texture and whose mesh has texture
coordinates is drawn with that texture times its rgba (`simpler_jax.render.texture`);
other geoms, primitives included, with their rgba alone. Texture variants: a model
material `M` with extra textures `M@<variant>` (`simpler_jax.assets.visual_geoms`)
gets one row of `geom_texture` per variant name (`texture_variants`; row 0 is the
model's own textures; a geom without a variant keeps its texture), and a world
picks its row at render time.

Appearances (`simpler_jax.scenes.appearance`): the visual geoms of an object's other
textured models and the table's substitute textures, tagged
`<owner>/appearance:<name>` in a hidden group, are kept too. `appearances` names
them (index 0, "", is the model's own look); a world draws the geoms whose mask has
its appearance's bit (`drawn`): the tagged geoms of that appearance, and every
untagged geom except the owner's own geoms (named `<owner>` or `<owner>/...`, on
the same body) where the owner has that appearance. Hidden geoms are collapsed to
a point at render time, so they are never hit, in the camera or the shadow pass.
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
# Texels per side of each texture in the render geometry. The Google Robot's 2048 px
# atlas covers the whole robot; at 512 a link's part of it has about as many texels
# as the link has pixels in a 640x512 policy image (no mip-mapping: smaller renders
# sample it sparsely).
DEFAULT_TEXTURE_SIZE = 512
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
    tri_uv: jnp.ndarray
    geom_texture: jnp.ndarray
    textures: jnp.ndarray
    geom_appearance_mask: jnp.ndarray
    texture_variants: tuple[str, ...] = flax.struct.field(pytree_node=False, default=("",))
    appearances: tuple[str, ...] = flax.struct.field(pytree_node=False, default=("",))
    far: float = flax.struct.field(pytree_node=False, default=50.0)  # background depth (m)
    near: float = flax.struct.field(pytree_node=False, default=0.01)  # nearest visible depth (m)

    @property
    def num_triangles(self) -> int:
        return int(self.tri_geom.shape[0])

    def texture_variant(self, name: str) -> int:
        """Row of `geom_texture` for texture variant `name` ("" = the model's own)."""
        if name not in self.texture_variants:
            raise ValueError(f"unknown texture variant {name!r}; allowed: {self.texture_variants}")
        return self.texture_variants.index(name)

    def appearance(self, name: str) -> int:
        """Index of appearance `name` ("" = the model's own look)."""
        if name not in self.appearances:
            raise ValueError(f"unknown appearance {name!r}; this scene has {self.appearances} "
                             "(build it with SceneSpec(appearances=...))")
        return self.appearances.index(name)

    def drawn(self, appearance=0) -> jnp.ndarray:
        """(G,) bool: the geoms drawn in appearance `appearance` (traced int)."""
        return (jnp.right_shift(self.geom_appearance_mask, appearance) & 1) == 1


def geom_triangles(m: mujoco.MjModel, g: int, max_faces_per_mesh: int | None,
                   segments: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices (V, 3), faces (F, 3), corner uv (F, 3, 2)) of geom `g` in its geom
    frame (uv zero where the geom has no texture coordinates)."""
    t = int(m.geom_type[g])
    if t == G.mjGEOM_MESH:
        mid = int(m.geom_dataid[g])
        v0, nv = int(m.mesh_vertadr[mid]), int(m.mesh_vertnum[mid])
        f0, nf = int(m.mesh_faceadr[mid]), int(m.mesh_facenum[mid])
        verts = np.asarray(m.mesh_vert[v0:v0 + nv], np.float64)
        faces = np.asarray(m.mesh_face[f0:f0 + nf], np.int64)
        uv = np.zeros((nf, 3, 2), np.float32)
        if m.mesh_texcoordnum[mid] > 0:
            t0 = int(m.mesh_texcoordadr[mid])
            uv = np.asarray(m.mesh_texcoord, np.float32)[t0 + np.asarray(m.mesh_facetexcoord[f0:f0 + nf])]
        verts, faces, kept = decimate(verts, faces, max_faces_per_mesh, return_kept=True)
        return verts, faces, uv[kept]
    if t in _PRIMITIVES:
        verts, faces = primitive_mesh(t, m.geom_size[g], segments)
        return verts, faces, np.zeros((len(faces), 3, 2), np.float32)
    raise ValueError(f"geom {m.geom(g).name!r}: type {t} is not supported by the renderer")


def _rgb_texture(m: mujoco.MjModel, g: int) -> int:
    """Model texture id of geom `g`'s RGB texture, -1 if it is drawn untextured."""
    mat = int(m.geom_matid[g])
    if mat < 0 or int(m.geom_type[g]) != G.mjGEOM_MESH or m.mesh_texcoordnum[m.geom_dataid[g]] == 0:
        return -1
    tex = int(m.mat_texid[mat, mujoco.mjtTextureRole.mjTEXROLE_RGB])
    if tex < 0 or int(m.tex_type[tex]) != mujoco.mjtTexture.mjTEXTURE_2D:
        return -1
    return tex


def _texture_image(m: mujoco.MjModel, tex: int, size: int) -> np.ndarray:
    from simpler_jax.assets.textures import resample_texture

    h, w, c = int(m.tex_height[tex]), int(m.tex_width[tex]), int(m.tex_nchannel[tex])
    a = int(m.tex_adr[tex])
    image = np.asarray(m.tex_data[a:a + h * w * c], np.uint8).reshape(h, w, c)
    return resample_texture(np.repeat(image, 3, axis=-1) if c == 1 else image[..., :3], size)


def texture_tables(m: mujoco.MjModel, geoms: list[int], size: int):
    """(variant names (V,), geom_texture (V, G) int32, textures (K, S, S, 3) uint8)
    for the visible `geoms` (see module docstring)."""
    from simpler_jax.assets.visual_geoms import VARIANT_SEPARATOR

    base = [_rgb_texture(m, g) for g in geoms]
    names = {m.texture(t).name: t for t in range(m.ntex)}
    variants = sorted({n.split(VARIANT_SEPARATOR, 1)[1] for n in names if VARIANT_SEPARATOR in n})
    slots: dict[int, int] = {}
    rows = []
    for variant in [""] + variants:
        row = []
        for g, t in zip(geoms, base):
            if t >= 0 and variant:
                t = names.get(f"{m.material(m.geom_matid[g]).name}{VARIANT_SEPARATOR}{variant}", t)
            row.append(-1 if t < 0 else slots.setdefault(t, len(slots)))
        rows.append(row)
    images = [_texture_image(m, t, size) for t in slots]  # dicts keep insertion order
    textures = np.stack(images) if images else np.zeros((1, 1, 1, 3), np.uint8)
    return ("",) + tuple(variants), np.asarray(rows, np.int32).reshape(len(rows), len(geoms)), textures


def visible_geoms(m: mujoco.MjModel, geom_groups=DEFAULT_GEOM_GROUPS) -> list[int]:
    """Geoms with a positive alpha in `geom_groups`, and the appearance geoms."""
    from simpler_jax.scenes.appearance import geom_appearance

    out = []
    for g in range(m.ngeom):
        rgba = m.mat_rgba[m.geom_matid[g]] if m.geom_matid[g] >= 0 else m.geom_rgba[g]
        shown = int(m.geom_group[g]) in geom_groups or geom_appearance(m.geom(g).name) is not None
        if shown and rgba[3] > 0:
            out.append(g)
    return out


def appearance_masks(m: mujoco.MjModel, geoms: list[int]) -> tuple[tuple[str, ...], np.ndarray]:
    """(appearance names (A,), geom_appearance_mask (G,) int32) for the visible `geoms`
    (see module docstring)."""
    from simpler_jax.scenes.appearance import appearance_owner, geom_appearance, replaces

    names_g = [m.geom(g).name for g in geoms]
    tags = [geom_appearance(n) for n in names_g]
    names = ("",) + tuple(sorted({t for t in tags if t is not None}))
    bit = {n: 1 << i for i, n in enumerate(names)}
    owners: dict[tuple[int, str], int] = {}  # (body, owner) -> bits of the appearances replacing it
    for g, n, t in zip(geoms, names_g, tags):
        if t is not None:
            key = (int(m.geom_bodyid[g]), appearance_owner(n))
            owners[key] = owners.get(key, 0) | bit[t]
    masks = []
    for g, n, t in zip(geoms, names_g, tags):
        if t is not None:
            masks.append(bit[t])
            continue
        body = int(m.geom_bodyid[g])
        masks.append(~sum(b for (ob, owner), b in owners.items() if ob == body and replaces(owner, n)))
    return names, np.asarray(masks, np.int32)


def render_geometry(m: mujoco.MjModel, max_faces_per_mesh: int | None = DEFAULT_MAX_FACES_PER_MESH,
                    geom_groups=DEFAULT_GEOM_GROUPS, segmentation: str = "body",
                    segments: int = 16, texture_size: int = DEFAULT_TEXTURE_SIZE) -> RenderGeometry:
    """Extract the render geometry of `m` (see module docstring).

    segmentation: "body" (segmentation ids are MuJoCo body ids) or "geom" (geom ids).
    max_faces_per_mesh: triangle budget of each mesh geom (None: keep every triangle).
    texture_size: texels per side of every texture kept (S).
    """
    if not isinstance(texture_size, int) or texture_size < 1:
        raise ValueError(f"texture_size must be a positive int, got {texture_size!r}")
    if segmentation not in ("body", "geom"):
        raise ValueError(f"segmentation must be 'body' or 'geom', got {segmentation!r}")
    geoms = visible_geoms(m, geom_groups)
    if not geoms:
        raise ValueError("the model has no visible geom in groups %s" % (tuple(geom_groups),))
    tris, tri_geom, tri_uv = [], [], []
    for k, g in enumerate(geoms):
        v, f, uv = geom_triangles(m, g, max_faces_per_mesh, segments)
        tris.append(v[f])
        tri_uv.append(uv)
        tri_geom.append(np.full(len(f), k, np.int32))
    variants, geom_texture, textures = texture_tables(m, geoms, texture_size)
    appearances, appearance_mask = appearance_masks(m, geoms)
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
        tri_uv=jnp.asarray(np.concatenate(tri_uv).astype(np.float32)),
        geom_texture=jnp.asarray(geom_texture),
        textures=jnp.asarray(textures),
        geom_appearance_mask=jnp.asarray(appearance_mask),
        texture_variants=variants,
        appearances=appearances,
        far=float(m.vis.map.zfar * m.stat.extent),
        near=float(m.vis.map.znear * m.stat.extent),
    )
