"""Surface colour of each pixel: texture lookup or geom colour (pure JAX, one world).

A pixel that sees triangle t at normalised image point (x, y) has edge-form values
e_k = A_k x + B_k y + C_k (`simpler_jax.render.raster`); they are the perspective-
correct barycentric weights of the corners up to their sum (which is 1 / depth), so
the texture coordinate is uv = sum_k (e_k / sum e) uv_k. Textures are sampled
bilinearly between texel centres, repeating outside [0, 1] (MuJoCo's default wrap),
from the fixed-size stack `RenderGeometry.textures`; no mip-mapping (the textures
are box-filtered to their stack size once, at load time).

Shapes: forms (T, 3, 3); tri (H, W) int32 visible triangle (-1: none); xy (H, W, 2);
result albedo (H, W, 3) float32 in [0, 1].
"""

from __future__ import annotations

import jax.numpy as jnp

from simpler_jax.render.geometry import RenderGeometry


def corner_weights(forms: jnp.ndarray, tri: jnp.ndarray, xy: jnp.ndarray) -> jnp.ndarray:
    """(H, W, 3) perspective-correct barycentric weights of the visible triangle's
    corners (summing to 1; undefined where tri < 0)."""
    f = forms[jnp.maximum(tri, 0)]  # (H, W, 3, 3)
    e = f[..., 0] * xy[..., None, 0] + f[..., 1] * xy[..., None, 1] + f[..., 2]
    total = jnp.sum(e, -1, keepdims=True)
    return e / jnp.where(total > 0, total, 1.0)


def sample_bilinear(textures: jnp.ndarray, slot: jnp.ndarray, uv: jnp.ndarray) -> jnp.ndarray:
    """textures (K, S, S, 3) uint8, slot (...) int32, uv (..., 2) -> rgb (..., 3) in [0, 1]."""
    size = textures.shape[1]
    col = jnp.mod(uv[..., 0], 1.0) * size - 0.5
    row = jnp.mod(uv[..., 1], 1.0) * size - 0.5
    c0, r0 = jnp.floor(col), jnp.floor(row)
    fc, fr = (col - c0)[..., None], (row - r0)[..., None]
    c0, r0 = c0.astype(jnp.int32), r0.astype(jnp.int32)

    def texel(r, c):
        return textures[slot, jnp.mod(r, size), jnp.mod(c, size)].astype(jnp.float32)

    top = texel(r0, c0) * (1 - fc) + texel(r0, c0 + 1) * fc
    bottom = texel(r0 + 1, c0) * (1 - fc) + texel(r0 + 1, c0 + 1) * fc
    return (top * (1 - fr) + bottom * fr) / 255.0


def surface_albedo(geometry: RenderGeometry, forms: jnp.ndarray, tri: jnp.ndarray, xy: jnp.ndarray,
                   texture_variant=0) -> jnp.ndarray:
    """(H, W, 3) albedo of the visible surfaces: texture x rgb where the geom has a
    texture in row `texture_variant` (traced int) of `geometry.geom_texture`, else rgb."""
    safe = jnp.maximum(tri, 0)
    geom = geometry.tri_geom[safe]
    rgb = geometry.geom_rgba[geom, :3]
    slot = jnp.take(geometry.geom_texture, texture_variant, axis=0, mode="clip")[geom]  # (H, W)
    uv = jnp.sum(corner_weights(forms, tri, xy)[..., None] * geometry.tri_uv[safe], -2)  # no TF32 dot
    texel = sample_bilinear(geometry.textures, jnp.maximum(slot, 0), uv)
    return jnp.where((slot >= 0)[..., None], texel * rgb, rgb)
