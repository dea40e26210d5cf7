"""Shadows of one directional light by shadow mapping (pure JAX, one world).

    spec = ShadowSpec()                                   # static: a change recompiles
    out = render_full(geometry, ..., lighting=lighting, shadow=spec)

Light frame. The light travels along l (unit, world frame). Its frame has the axes
(lx, ly, lz = -l) as columns and its origin at the map centre c; a world point p
has light coordinates (u, v, h) = (p - c) @ axes: (u, v) across the light, h its
height towards the light. The map covers |u|, |v| <= half_extent in `resolution`
x `resolution` texels; what lies outside the map is lit.

Orthographic depth with the perspective rasteriser. A directional light is an
orthographic projection: the map pixel of p is (u, v), its depth h. With
s = h + depth_below > 0, the projective map

    (u, v, h) -> F = (u, v, -1) / s

sends straight lines to straight lines, and a camera at the origin looking down -z
sees F at the image point F_xy / -F_z = (u, v) with 1 / depth = s. So the existing
rasteriser (`raster.edge_forms`, `raster.nearest_tiled`: tiles, nearest-first lists,
occlusion early-out, overflow check) run on the F triangles with focal length
resolution / (2 half_extent) gives, per texel, s of the nearest triangle towards the
light, interpolated linearly in (u, v): exactly an orthographic depth map, with no
second rasteriser. Triangles with a corner at s <= 0 (more than `depth_below` below
the centre, away from the light; e.g. the far corners of an infinite ground plane
under a tilted light) would wrap through infinity and are left out of the map;
they can only occlude points even further down.

Why not a far-away perspective camera with a narrow field of view: its depth error
grows with the distance R and the projection still bends by u * dh / R (a point dh
above the centre plane, u across the light, lands that far off). Measured on a box
0.2-0.4 m over a plane (map +-0.6 m, 256 texels of 4.7 mm, exact depths from the
geometry): this projective map stores the plane with max error
4.8e-7 m (vertical light) and 1.5e-6 m (30 deg); a perspective camera with the
current rasteriser at R = 100 m (fovy 0.69 deg) with 1.5e-5 m and a bend of up to
2.4 mm at the border, at R = 10 m 1e-6 m but 24 mm.

Back faces (turned away from the light) are culled by default, as in the camera
pass: for closed, outward-wound meshes the faces turned to the light cover every
ray that enters the mesh, so the shadow is the same, at about half the cost (on
the Google drawer scene the map pass took 0.68 s instead of 1.13 s, and 9 of 65k
texels changed: open parts of decimated meshes). Planes and one-sided boards cast
only when their front faces the light (`cull_backfaces=False` keeps both sides).
A lit receiver meets its own surface in the map, so the comparison has a bias:
receiver lit unless

    s_map > s_receiver + bias + slope_bias * texel * tan(theta) * (pcf // 2 + 1)

theta = angle between the receiver's normal and the light, tan clipped at
`MAX_SLOPE`. Nearest lookup puts a receiver up to texel / sqrt(2) from its texel
centre, where its own surface is up to that times tan(theta) nearer the light (the
acne the slope term removes; each PCF ring adds a texel). The constant covers the
float32 error (~1e-6 m with depth_below of a few metres) and camera-depth rounding;
the price is peter-panning: a contact shadow starts bias / tan(elevation) late.
Faces turned away from the light get no directional light anyway (`lighting.shade`).

Default region and size: SIMPLER's table scenes sit within about a metre of where
the policy camera looks, so the map centre defaults to the point `view_distance` =
1 m along the camera's axis and covers +-1 m in 256 texels of 7.8 mm (SAPIEN's
shadow light: scale 5, a 2048 map, 4.9 mm); a fixed `centre` (world frame) can be
given instead. Measured cost of the map pass on the Google drawer scene (13.8k
triangles, light (-0.2, 0, -1)), one core of the shared 2-core CPU, where the camera
pass at 160x128 takes 0.2-0.25 s: 256 texels 0.68 s (8-px tiles; 16-px tiles were no
faster and one overflowed), 512 texels 2.1 s. Seen from the light every texel hits
the floor, the last entry of every tile's nearest-first list, so the occlusion
early-out rarely fires and the worst tile's list sets the number of chunk steps.

Shapes: T triangles; map (R, R) float32 s of the nearest triangle (0: none);
receivers (..., 3) world points and unit normals -> visibility (...,) in [0, 1].
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp

from simpler_jax.render import raster

MAX_SLOPE = 10.0  # tan(theta) clip of the slope bias (theta ~ 84 deg)
_MAP_NEAR, _MAP_FAR = 1e-4, 1e4  # 1 / s limits of the map pass: s in [1e-4, 1e4] m


@dataclasses.dataclass(frozen=True)
class ShadowSpec:
    """Shadow map of one directional light (static: a change recompiles).

    resolution: map texels per side. half_extent: metres covered either side of the
    centre, across the light. centre: world (x, y, z) of the map centre, or None for
    the point `view_distance` metres along the camera axis. depth_below: metres below
    the centre (away from the light) that triangles may reach and stay in the map.
    bias (m), slope_bias (texels per unit tan(theta)): see the module docstring.
    pcf: odd size of the percentage-closer filter (1: hard shadows). light: index of
    the casting light in `Lighting.directions` (0: SIMPLER's main light). tile,
    max_per_tile, chunk: the map pass's `raster.nearest_tiled` settings;
    cull_backfaces: leave out faces turned away from the light (closed meshes).
    """

    resolution: int = 256
    half_extent: float = 1.0
    centre: tuple[float, float, float] | None = None
    view_distance: float = 1.0
    depth_below: float = 5.0
    bias: float = 0.002
    slope_bias: float = 1.0
    pcf: int = 1
    light: int = 0
    tile: int = 8
    max_per_tile: int = 2048
    chunk: int = 64
    cull_backfaces: bool = True

    def __post_init__(self):
        for name in ("resolution", "tile", "max_per_tile", "chunk"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ShadowSpec.{name} must be a positive int, got {value!r}")
        if not isinstance(self.pcf, int) or self.pcf < 1 or self.pcf % 2 == 0:
            raise ValueError(f"ShadowSpec.pcf must be a positive odd int (1, 3, 5, ...), got {self.pcf!r}")
        if not isinstance(self.light, int) or self.light < 0:
            raise ValueError(f"ShadowSpec.light must be a non-negative int (a light index), got {self.light!r}")
        for name in ("half_extent", "depth_below", "view_distance"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"ShadowSpec.{name} must be a positive number of metres, got {value!r}")
        for name in ("bias", "slope_bias"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"ShadowSpec.{name} must be a number >= 0, got {value!r}")
        if self.centre is not None:
            centre = tuple(self.centre)
            if len(centre) != 3 or not all(isinstance(v, (int, float)) for v in centre):
                raise ValueError(f"ShadowSpec.centre must be (x, y, z) in metres or None, got {self.centre!r}")
            object.__setattr__(self, "centre", tuple(float(v) for v in centre))

    @property
    def focal(self) -> float:
        """Map texels per metre."""
        return self.resolution / (2.0 * self.half_extent)


@flax.struct.dataclass
class LightFrame:
    origin: jnp.ndarray  # (3,) world position of the map centre
    axes: jnp.ndarray  # (3, 3) columns lx, ly, lz = -light direction, world frame


def light_frame(direction, centre) -> LightFrame:
    """Orthonormal frame of a light travelling along `direction` (3,) (any length),
    centred at `centre` (3,); lx is world x (or y, for lights near the x axis)
    made perpendicular to the light."""
    lz = -direction / jnp.linalg.norm(direction)
    helper = jnp.where(jnp.abs(lz[0]) < 0.9, jnp.array([1.0, 0, 0]), jnp.array([0, 1.0, 0]))
    lx = helper - jnp.dot(helper, lz) * lz
    lx = lx / jnp.linalg.norm(lx)
    return LightFrame(jnp.asarray(centre, jnp.float32), jnp.stack([lx, jnp.cross(lz, lx), lz], 1))


def shadow_map(spec: ShadowSpec, tri_vertices, tri_geom, geom_pos, geom_mat, frame: LightFrame):
    """Depth map of the triangles seen from the light.

    tri_vertices (T, 3, 3), tri_geom (T,), geom_pos (G, 3), geom_mat (G, 3, 3) as for
    `raster.triangles_in_camera` -> map (R, R) float32 s = h + depth_below of the
    nearest triangle (0: none), unsafe (TY, TX) bool tiles of the map that may have
    dropped a visible triangle (see `raster.nearest_tiled`).
    """
    tri = raster.triangles_in_camera(tri_vertices, tri_geom, geom_pos, geom_mat, frame.origin, frame.axes)
    s = tri[..., 2] + spec.depth_below  # (T, 3)
    positive = jnp.all(s > 0, -1)
    uv1 = jnp.concatenate([tri[..., :2], -jnp.ones_like(s[..., None])], -1)
    fake = uv1 / jnp.where(s > 0, s, 1.0)[..., None]  # (T, 3, 3) see the module docstring
    forms, usable = raster.edge_forms(fake, spec.cull_backfaces)
    depth_map, _, unsafe = raster.nearest_tiled(
        forms, usable & positive, fake, spec.focal, spec.resolution, spec.resolution,
        _MAP_NEAR, _MAP_FAR, spec.tile, spec.max_per_tile, spec.chunk)
    return depth_map, unsafe


def visibility(spec: ShadowSpec, depth_map, frame: LightFrame, points, normals):
    """Fraction of the light reaching each receiver.

    depth_map (R, R) from `shadow_map`; points (..., 3) world; normals (..., 3) unit,
    world (either side) -> (...,) float32 in [0, 1] (1: lit, or outside the map).
    """
    res = spec.resolution
    local = jnp.matmul(points - frame.origin, frame.axes, precision=jax.lax.Precision.HIGHEST)
    s = local[..., 2] + spec.depth_below
    col = jnp.floor(local[..., 0] * spec.focal + 0.5 * res).astype(jnp.int32)
    row = jnp.floor(0.5 * res - local[..., 1] * spec.focal).astype(jnp.int32)
    cos = jnp.abs(jnp.sum(normals * frame.axes[:, 2], -1))
    tan = jnp.minimum(jnp.sqrt(jnp.maximum(1.0 - cos * cos, 0.0)) / jnp.maximum(cos, 1e-6), MAX_SLOPE)
    radius = spec.pcf // 2
    limit = s + spec.bias + spec.slope_bias * tan * (radius + 1) / spec.focal
    lit = jnp.zeros_like(s)
    for dr in range(-radius, radius + 1):
        for dc in range(-radius, radius + 1):
            r, c = row + dr, col + dc
            inside = (r >= 0) & (r < res) & (c >= 0) & (c < res)
            occluder = depth_map[jnp.clip(r, 0, res - 1), jnp.clip(c, 0, res - 1)]
            lit = lit + jnp.where(inside & (occluder > 0) & (occluder > limit), 0.0, 1.0)
    return lit / spec.pcf ** 2


def light_visibility(spec: ShadowSpec, tri_vertices, tri_geom, geom_pos, geom_mat, directions,
                     cam_pos, cam_mat, points_cam, normals_cam):
    """Per-pixel, per-light visibility for `lighting.shade`, the casting light shadowed.

    directions (L, 3) world light directions; cam_pos (3,), cam_mat (3, 3) camera axes
    as columns; points_cam (..., 3), normals_cam (..., 3) receivers in the camera frame
    -> visibility (..., L) (1 for every light but `spec.light`), unsafe () int32 map tiles.
    """
    num_lights = directions.shape[0]
    if spec.light >= num_lights:
        raise ValueError(f"ShadowSpec.light = {spec.light} but the lighting has {num_lights} lights "
                         f"(allowed: 0..{num_lights - 1})")
    hi = jax.lax.Precision.HIGHEST
    centre = (cam_pos - spec.view_distance * cam_mat[:, 2]) if spec.centre is None else jnp.asarray(spec.centre)
    frame = light_frame(directions[spec.light], centre)
    depth_map, unsafe = shadow_map(spec, tri_vertices, tri_geom, geom_pos, geom_mat, frame)
    points = cam_pos + jnp.matmul(points_cam, cam_mat.T, precision=hi)
    vis = visibility(spec, depth_map, frame, points, jnp.matmul(normals_cam, cam_mat.T, precision=hi))
    ones = jnp.ones(vis.shape + (num_lights,), jnp.float32)
    return ones.at[..., spec.light].set(vis), jnp.sum(unsafe).astype(jnp.int32)
