"""Render one world: RGB, depth and segmentation from geom poses and a camera.

    geometry = render_geometry(mj_model)                       # once, NumPy
    rgb, depth, seg = render(geometry, d.geom_xpos, d.geom_xmat,
                             d.cam_xpos[c], d.cam_xmat[c], m.cam_fovy[c], 160, 128)
    batched = jax.jit(jax.vmap(render, in_axes=(None, 0, 0, 0, 0, None, None, None)),
                      static_argnums=(6, 7))

Outputs: rgb (H, W, 3) uint8; depth (H, W) float32, metres along the camera axis
(MuJoCo's depth; background = geometry.far); segmentation (H, W) int32 =
geometry.geom_seg of the visible geom (body id by default), -1 for background.

Algorithm (see `simpler_jax.render.raster`): triangles -> camera frame -> edge forms
(exact perspective depth, no near-plane clipping); back faces culled (closed,
outward-wound meshes; no change in any measured IoU); visibility tile-binned (16x16
tiles, nearest-first lists of up to 1024 triangles, front-to-back chunks of 64 with
occlusion early-out) or brute force; then the surface colour (UV texture, bilinear,
or geom colour: `simpler_jax.render.texture`) and flat Lambert shading
(`simpler_jax.render.lighting`). With `shadow=ShadowSpec(...)` one directional light
(the main one by default) casts shadows by shadow mapping (`simpler_jax.render.shadow`,
a second pass of the same rasteriser from the light); without it, no shadows. No
specular term, mip-mapping or anti-aliasing.

Why tiled (measured on CPU, one core of a shared 2-core EPYC, no GPU was available;
`benchmarks/render.py`, robot at its initial pose, 1000-triangle mesh budget,
7.7k (WidowX) / 10.5k (Google) triangles):

    scene   size      brute (P x T)   tiled     MuJoCo OpenGL (EGL, C)
    WidowX  160x120   0.52 img/s      6.8       960
    Google  160x128   0.53            6.3       580
    WidowX  640x480   (~0.03, est.)   0.95      285
    Google  640x512   (~0.03, est.)   0.74      215

Brute force costs P x T tests (T ~ 10k), while a tile tests only the triangles
overlapping it, nearest first, until they are occluded: per-tile overlap counts were
at most 1.4k (Google, 160x128, 16 px tiles, back faces culled) and 475 at 640x512,
p99 820 / 143, so tiles do 10-100x fewer tests. Images per second did not grow with
`vmap` over 4 worlds on this CPU (one core). Both methods give identical pixels when
`unsafe_tiles` is 0 (tested). On one H200 (benchmarks/RESULTS.md) the tiled
method made 1-2k images/s for one world and 3-31k for batches of 64-1024 worlds
at 128-256 px.

Accuracy against MuJoCo's renderer (single-sampled, same camera): depth error ~1e-7 m
(float32); per-body IoU 0.99-1.0 at 160 px. The default mesh budget is 2000
triangles (robots 13.5k Google, 10.2k WidowX): at 1000 the Google robot's small
finger nail fell to IoU 0.90 at 640x512 and the Bridge spoon to 0.86; at
2000 every task scene keeps every body >= 0.95 (`benchmarks/render_tasks.py`). With
these meshes a 16-px tile at 128 px can overlap more than 1024 triangles, so a
tile's list holds up to 2048.
"""

from __future__ import annotations

import flax.struct
import jax.numpy as jnp

from simpler_jax.render import raster
from simpler_jax.render.camera import camera_from_data, focal_length, pixel_coords
from simpler_jax.render.geometry import RenderGeometry
from simpler_jax.render.lighting import Lighting, in_camera_frame, shade, simpler_default_lighting
from simpler_jax.render.shadow import ShadowSpec, light_visibility
from simpler_jax.render.texture import surface_albedo

METHODS = ("tiled", "brute")


@flax.struct.dataclass
class RenderOutput:
    rgb: jnp.ndarray  # (H, W, 3) uint8
    depth: jnp.ndarray  # (H, W) float32 metres along the camera axis; background = far
    segmentation: jnp.ndarray  # (H, W) int32 geometry.geom_seg, -1 background
    unsafe_tiles: jnp.ndarray  # () int32 tiles (camera and shadow map) that may differ from brute force (0: exact)


def render_full(geometry: RenderGeometry, geom_xpos, geom_xmat, cam_pos, cam_mat, fovy,
                width: int, height: int, lighting: Lighting | None = None, method: str = "tiled",
                tile: int = 16, max_per_tile: int = 2048, chunk: int = 256,
                cull_backfaces: bool = True, texture_variant=0, appearance=0,
                shadow: ShadowSpec | None = None) -> RenderOutput:
    """`render` plus the tiled method's exactness check (see `render`)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {METHODS}")
    lighting = simpler_default_lighting() if lighting is None else lighting
    cam_mat = jnp.asarray(cam_mat, jnp.float32).reshape(3, 3)
    gid = geometry.geom_id
    geom_pos = jnp.asarray(geom_xpos, jnp.float32)[gid]
    # Geoms of other appearances collapse to a point: degenerate, never hit.
    geom_mat = jnp.asarray(geom_xmat, jnp.float32).reshape(-1, 3, 3)[gid] * geometry.drawn(appearance)[:, None, None]
    tri_cam = raster.triangles_in_camera(
        geometry.tri_vertices, geometry.tri_geom, geom_pos, geom_mat, jnp.asarray(cam_pos, jnp.float32), cam_mat)
    forms, usable = raster.edge_forms(tri_cam, cull_backfaces)
    xy = pixel_coords(fovy, width, height)  # (H, W, 2)
    if method == "brute":
        w, tri = raster.nearest_brute(forms, xy.reshape(-1, 2), geometry.near, geometry.far, chunk)
        w, tri = w.reshape(height, width), tri.reshape(height, width)
        unsafe = jnp.zeros((), jnp.int32)
    else:
        w, tri, unsafe = raster.nearest_tiled(forms, usable, tri_cam, focal_length(fovy, height), width, height,
                                              geometry.near, geometry.far, tile, max_per_tile)
        unsafe = jnp.sum(unsafe).astype(jnp.int32)
    hit = tri >= 0
    safe_tri = jnp.maximum(tri, 0)
    depth = jnp.where(hit, 1.0 / jnp.where(hit, w, 1.0), geometry.far).astype(jnp.float32)
    geom = geometry.tri_geom[safe_tri]
    seg = jnp.where(hit, geometry.geom_seg[geom], -1).astype(jnp.int32)
    # Flat shading in the camera frame.
    a, b, c = tri_cam[:, 0], tri_cam[:, 1], tri_cam[:, 2]
    normal = jnp.cross(b - a, c - a)
    normal = normal / jnp.maximum(jnp.linalg.norm(normal, axis=-1, keepdims=True), 1e-12)
    view = jnp.concatenate([xy, -jnp.ones_like(xy[..., :1])], -1)
    vis = None
    if shadow is not None:
        vis, shadow_unsafe = light_visibility(shadow, geometry.tri_vertices, geometry.tri_geom, geom_pos, geom_mat,
                                              lighting.directions, jnp.asarray(cam_pos, jnp.float32), cam_mat,
                                              view * depth[..., None], normal[safe_tri])
        unsafe = unsafe + shadow_unsafe
    albedo = surface_albedo(geometry, forms, tri, xy, texture_variant)
    rgb = shade(albedo, normal[safe_tri], view, in_camera_frame(lighting, cam_mat), vis)
    rgb = jnp.where(hit[..., None], rgb, 0.0)
    return RenderOutput(jnp.round(rgb * 255.0).astype(jnp.uint8), depth, seg, unsafe)


def render(geometry: RenderGeometry, geom_xpos, geom_xmat, cam_pos, cam_mat, fovy,
           width: int, height: int, **kw):
    """RGB (H, W, 3) uint8, depth (H, W) float32 and segmentation (H, W) int32 of one world.

    geom_xpos (ngeom, 3) and geom_xmat (ngeom, 3, 3) or (ngeom, 9): all geoms of the
    model (`mjx.Data` fields); cam_pos (3,), cam_mat (3, 3) or (9,); fovy () degrees.
    Keywords (static): lighting (default `simpler_default_lighting()`), method
    ("tiled" or "brute"), tile (pixels), max_per_tile, chunk (brute force triangle
    chunk), cull_backfaces (default True: the meshes are closed and wound outward),
    shadow (a `simpler_jax.render.shadow.ShadowSpec`, default None: no shadows).
    texture_variant: () int, traced: the row of `geometry.geom_texture` to draw
    (`geometry.texture_variant(name)`; 0, the default, is the model's own textures).
    appearance: () int, traced: the appearance to draw (`geometry.appearance(name)`;
    0, the default, is the model's own look: `simpler_jax.scenes.appearance`).
    """
    out = render_full(geometry, geom_xpos, geom_xmat, cam_pos, cam_mat, fovy, width, height, **kw)
    return out.rgb, out.depth, out.segmentation


def render_camera(geometry: RenderGeometry, model, data, camera: int, width: int, height: int, **kw):
    """`render` from an `mjx.Data` after forward kinematics, at model camera `camera`
    (its pose follows its mount body; fovy from `model.cam_fovy`)."""
    cam = camera_from_data(model, data, camera)
    return render(geometry, data.geom_xpos, data.geom_xmat, cam.pos, cam.mat, cam.fovy, width, height, **kw)
