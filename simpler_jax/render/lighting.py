"""Lambert shading with an ambient term and L directional lights.

colour = albedo * (ambient + sum_l vis_l * colour_l * max(0, n . -dir_l) / pi), clipped to [0, 1].
The 1/pi is the Lambert BRDF, as in SAPIEN's physically based shaders, so SAPIEN's
light intensities can be used as they are. Normals are flat (per triangle) and
turned towards the camera (two-sided). vis_l in [0, 1] is light l's visibility at
the pixel (1 without shadows; `simpler_jax.render.shadow` shadows one light); the
ambient term is never shadowed. No specular term.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np


@flax.struct.dataclass
class Lighting:
    ambient: jnp.ndarray  # (3,) rgb
    directions: jnp.ndarray  # (L, 3) direction the light travels, world frame
    colors: jnp.ndarray  # (L, 3) rgb intensity


def make_lighting(ambient, lights) -> Lighting:
    """ambient: scalar or (3,); lights: [(direction (3,), intensity scalar or (3,)), ...]."""
    dirs = np.array([np.asarray(d, float) / np.linalg.norm(d) for d, _ in lights], np.float32).reshape(-1, 3)
    cols = np.array([np.broadcast_to(np.asarray(c, float), (3,)) for _, c in lights], np.float32).reshape(-1, 3)
    return Lighting(jnp.asarray(np.broadcast_to(np.asarray(ambient, np.float32), (3,))),
                    jnp.asarray(dirs), jnp.asarray(cols))


MAX_LIGHTS = 3  # per-world lighting has a fixed number of directional lights

# SIMPLER's lighting modes: (ambient, [(direction, intensity), ...]) (SIMPLER_SPEC.md
# §2.2-§2.6). Pick/move-near/Bridge: "default" and the variant-aggregation
# "slightly_brighter" / "slightly_darker"; move near also has "original" and
# "ambient_only"; drawers: "simple" (visual matching), the legacy ray-traced light
# "drawer" with its "drawer_brighter" / "drawer_darker" / "drawer_vertical"
# variants (their first light casts SIMPLER's shadows when rendering with a
# `simpler_jax.render.shadow.ShadowSpec`); the eggplant sink scene: "eggplant".
# The first light of each mode is its main (strongest or key) light.
_FULL = jax.lax.Precision.HIGHEST  # no TF32 on GPUs (see raster.triangles_in_camera)
_COS75, _SIN75 = 0.25881904510252074, 0.9659258262890683
_DRAWER_SIDE = [((-1, 1, -0.05), 0.5), ((-1, -1, -0.05), 0.5)]
LIGHTING_MODES = {
    "default": (0.3, [((0, 0, -1), 2.2), ((-1, -0.5, -1), 0.7), ((1, 1, -1), 0.7)]),
    "slightly_brighter": (0.3, [((0, 0, -1), 3.6), ((-1, -0.5, -1), 1.3), ((1, 1, -1), 1.3)]),
    "slightly_darker": (0.3, [((1, 1, -1), 0.8), ((0, 0, -1), 0.8)]),
    "darker": (0.3, [((1, 1, -1), 0.3), ((0, 0, -1), 0.3)]),
    "original": (0.3, [((1, 1, -1), 1.0), ((0, 0, -1), 1.0)]),
    "ambient_only": (1.0, []),
    "simple": (1.0, [((-_COS75, 0, -_SIN75), 1.0)]),
    "simple2": (1.0, [((0, 0, -1), 0.5)]),
    "drawer": (0.3, [((-0.2, 0, -1), 1.0)] + _DRAWER_SIDE),
    "drawer_vertical": (0.3, [((-0.1, 0, -1), 1.0)] + _DRAWER_SIDE),
    "drawer_brighter": (0.3, [((-0.2, 0, -1), 2.0)] + _DRAWER_SIDE),
    "drawer_darker": (0.3, [((-0.2, 0, -1), 0.5)] + _DRAWER_SIDE),
    "eggplant": (0.3, [((0, 0, -1), 0.3)]),
}


def lighting_mode(name: str) -> Lighting:
    """SIMPLER's lighting `name`, padded to MAX_LIGHTS lights (unused ones black)."""
    if name not in LIGHTING_MODES:
        raise ValueError(f"unknown lighting mode {name!r}; allowed: {sorted(LIGHTING_MODES)}")
    ambient, lights = LIGHTING_MODES[name]
    lights = list(lights) + [((0, 0, -1), 0.0)] * (MAX_LIGHTS - len(lights))
    return make_lighting(ambient, lights)


def simpler_default_lighting() -> Lighting:
    """SIMPLER's default scene lighting (SIMPLER_SPEC.md §2.2 "default"): ambient 0.3,
    directional [0,0,-1]: 2.2, [-1,-0.5,-1]: 0.7, [1,1,-1]: 0.7."""
    return lighting_mode("default")


def in_camera_frame(lighting: Lighting, cam_mat: jnp.ndarray) -> Lighting:
    """`lighting` with its directions (L, 3) turned from the world into the camera frame
    (cam_mat (3, 3): camera axes as columns, world frame)."""
    return lighting.replace(directions=jnp.matmul(lighting.directions, cam_mat, precision=_FULL))


def shade(albedo: jnp.ndarray, normal: jnp.ndarray, view_dir: jnp.ndarray, lighting: Lighting,
          visibility: jnp.ndarray | None = None) -> jnp.ndarray:
    """albedo (..., 3), normal (..., 3) unit, view_dir (..., 3) camera -> point -> rgb (..., 3) in [0, 1].

    visibility (..., L) in [0, 1] scales each light's directional term (None: all ones)."""
    facing = jnp.sum(normal * view_dir, -1, keepdims=True)
    n = jnp.where(facing > 0, -normal, normal)  # two-sided: face the camera
    cos = jnp.maximum(0.0, -jnp.einsum("...k,lk->...l", n, lighting.directions, precision=_FULL))  # (..., L)
    if visibility is not None:
        cos = cos * visibility
    irradiance = lighting.ambient + jnp.einsum("...l,lc->...c", cos, lighting.colors, precision=_FULL) / jnp.pi
    return jnp.clip(albedo * irradiance, 0.0, 1.0)
