"""Visibility: which triangle each pixel sees, and at what depth (pure JAX, one world).

Triangles are taken into the camera frame and each becomes three linear "edge
forms" of the normalised pixel coordinates (x, y) (homogeneous rasterisation,
Olano & Greer 1997). For the ray d = (x, y, -1) and a triangle (a, b, c):

    e_a = d . (b x c) / D,  e_b = d . (c x a) / D,  e_c = d . (a x b) / D,  D = a . (b x c)

The ray hits the triangle in front of the camera iff e_a, e_b, e_c >= 0, and then
e_a + e_b + e_c = 1 / depth, where depth is the distance along the camera axis (what
MuJoCo's depth buffer reports). Each pixel-triangle test is 3 linear forms, a min and
a compare: no near-plane clipping is needed and triangles behind the camera fail the test.
The nearest hit is the largest 1/depth inside [1/far, 1/near].

Two ways to pair pixels with triangles (chosen by measurement, see `simpler_jax.render.render`):
- `nearest_brute`: every pixel against every triangle, scanning triangle chunks.
  Cost P x T; the reference the tiled method is tested against.
- `nearest_tiled`: the image is cut into square tiles; triangles are sorted once by
  their nearest depth, and each tile gets the list of triangles whose (near-plane
  clipped) screen bounding box overlaps it, nearest first, up to `max_per_tile`.
  Each tile then tests its list in chunks, front to back, and stops as soon as the
  next triangle starts behind the farthest pixel already hit in the tile
  (occlusion early-out), so hidden parts of the robot cost little. If a list
  overflows, the result is still exact unless a dropped triangle could be visible;
  such tiles are reported (`unsafe`), so callers and tests can check exactness.

Shapes: T triangles, P pixels; forms (T, 3, 3) = [edge k, (A, B, C)] with
e_k = A x + B y + C; results w (P,) = 1/depth (0: no hit) and tri (P,) int32 (-1: none).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

_NEVER = jnp.array([0.0, 0.0, -1.0], jnp.float32)  # an edge form that is always negative


def triangles_in_camera(tri_vertices, tri_geom, geom_pos, geom_mat, cam_pos, cam_mat):
    """Triangle corners in the camera frame.

    tri_vertices (T, 3, 3) geom frame; tri_geom (T,); geom_pos (G, 3), geom_mat (G, 3, 3)
    world poses of the visible geoms; cam_pos (3,), cam_mat (3, 3) -> (T, 3, 3).

    Full float32 products: on GPUs the default precision of a batched float32
    product is TF32 (10-bit mantissa), which moved depths by ~0.2 mm on an H200
    and made a batched image differ from the same world rendered alone.
    """
    hi = jax.lax.Precision.HIGHEST
    rot = jnp.einsum("ji,gjk->gik", cam_mat, geom_mat, precision=hi)  # cam_mat^T @ geom_mat
    pos = jnp.matmul(geom_pos - cam_pos, cam_mat, precision=hi)
    return (jnp.einsum("tij,tkj->tki", rot[tri_geom], tri_vertices, precision=hi)
            + pos[tri_geom][:, None, :])


def edge_forms(tri_cam, cull_backfaces: bool = False):
    """(T, 3, 3) camera-frame triangles -> forms (T, 3, 3) (see module docstring)
    and a (T,) mask of the triangles that can be hit.
    Degenerate triangles (area under 5e-11 m^2), triangles whose plane passes through
    the camera, and with `cull_backfaces` those
    seen from behind (clockwise on screen; MuJoCo meshes wind outward faces
    counter-clockwise), get forms that never pass."""
    a, b, c = tri_cam[:, 0], tri_cam[:, 1], tri_cam[:, 2]
    n = jnp.stack([jnp.cross(b, c), jnp.cross(c, a), jnp.cross(a, b)], 1)  # (T, 3, 3)
    det = jnp.sum(a * n[:, 0], -1)
    area2 = jnp.linalg.norm(jnp.cross(b - a, c - a), axis=-1)
    ok = jnp.abs(det) > 1e-7 * area2  # plane at least 0.1 um from the camera
    # Degenerate triangles (corners a few um apart, left by mesh decimation) have
    # garbage forms that float32 rounding can make "hit" pixels far away.
    ok = ok & (area2 > 1e-10)
    if cull_backfaces:
        ok = ok & (det < 0)  # det = n . a < 0: the outward normal faces the camera
    forms = jnp.stack([n[..., 0], n[..., 1], -n[..., 2]], -1) / jnp.where(ok, det, 1.0)[:, None, None]
    return jnp.where(ok[:, None, None], forms, _NEVER), ok


def _best(forms, x, y, inv_near, inv_far):
    """forms (..., K, 3, 3), x/y (..., Q, 1) -> (w, k) (..., Q) nearest among the K."""
    A, B, C = forms[..., None, :, :, 0], forms[..., None, :, :, 1], forms[..., None, :, :, 2]
    e = A * x[..., None] + B * y[..., None] + C  # (..., Q, K, 3)
    w = jnp.sum(e, -1)
    hit = (jnp.min(e, -1) >= 0) & (w <= inv_near) & (w >= inv_far)
    w = jnp.where(hit, w, 0.0)
    k = jnp.argmax(w, -1)
    return jnp.take_along_axis(w, k[..., None], -1)[..., 0], k


def nearest_brute(forms, xy, near: float, far: float, chunk: int = 256):
    """Every pixel against every triangle. forms (T, 3, 3), xy (P, 2) -> w (P,), tri (P,)."""
    num = forms.shape[0]
    pad = (-num) % chunk
    forms = jnp.concatenate([forms, jnp.broadcast_to(_NEVER, (pad, 3, 3))]).reshape(-1, chunk, 3, 3)
    x, y = xy[:, :1], xy[:, 1:]

    def body(carry, inp):
        best_w, best_t = carry
        f, start = inp
        w, k = _best(f, x, y, 1.0 / near, 1.0 / far)
        better = w > best_w
        return (jnp.where(better, w, best_w), jnp.where(better, start + k, best_t)), None

    starts = jnp.arange(forms.shape[0], dtype=jnp.int32) * chunk
    init = (jnp.zeros(xy.shape[0]), jnp.full(xy.shape[0], -1, jnp.int32))
    (w, tri), _ = jax.lax.scan(body, init, (forms, starts))
    return w, jnp.where(w > 0, tri, -1)


def screen_bounds(tri_cam, focal, width: int, height: int, near: float, far: float):
    """Pixel-space bounding boxes (T, 4) = (umin, umax, vmin, vmax) of the part of
    each triangle in front of the near plane, its nearest depth there (T,), and
    whether it can be visible at all (T,)."""
    depth = -tri_cam[..., 2]  # (T, 3)
    # Clip against the near plane: the corners in front plus the edge crossings.
    nxt = jnp.roll(tri_cam, -1, axis=1)
    dn = jnp.roll(depth, -1, axis=1)
    crossing = (depth - near) * (dn - near) < 0
    s = jnp.where(crossing, (depth - near) / jnp.where(crossing, depth - dn, 1.0), 0.0)
    cut = tri_cam + s[..., None] * (nxt - tri_cam)
    pts = jnp.concatenate([tri_cam, cut], 1)  # (T, 6, 3)
    use = jnp.concatenate([depth >= near, crossing], 1)
    pdepth = jnp.maximum(-pts[..., 2], near)
    u = focal * pts[..., 0] / pdepth + 0.5 * width
    v = 0.5 * height - focal * pts[..., 1] / pdepth
    inf = jnp.float32(jnp.inf)
    box = jnp.stack([jnp.min(jnp.where(use, u, inf), -1), jnp.max(jnp.where(use, u, -inf), -1),
                     jnp.min(jnp.where(use, v, inf), -1), jnp.max(jnp.where(use, v, -inf), -1)], -1)
    on_screen = (box[:, 1] >= 0) & (box[:, 0] <= width) & (box[:, 3] >= 0) & (box[:, 2] <= height)
    visible = on_screen & jnp.any(use, -1) & jnp.any(depth <= far, -1)
    zmin = jnp.min(jnp.where(use, pdepth, inf), -1)
    return box, zmin, visible


def tile_candidates(box, zmin, visible, width: int, height: int, tile: int, capacity: int):
    """For each tile, up to `capacity` (C) triangles overlapping it, nearest first.

    Triangles are sorted once by nearest depth; a tile's list is the overlapping
    ones in that order (a running count gives each its slot, no per-tile sort).
    -> idx (TY, TX, C) int32 (-1: empty slot), zfirst (TY, TX, C) nearest depth of
    each entry (inf: empty), count (TY, TX) overlapping triangles, dropped (TY, TX)
    nearest depth of the first triangle that did not fit (inf: none).
    """
    order = jnp.argsort(jnp.where(visible, zmin, jnp.inf))
    box, zmin, visible = box[order], zmin[order], visible[order]
    ty, tx = -(-height // tile), -(-width // tile)
    x0 = jnp.arange(tx, dtype=jnp.float32) * tile
    y0 = jnp.arange(ty, dtype=jnp.float32) * tile
    # Pixel centres of a tile span [x0 + 0.5, x0 + tile - 0.5].
    over_x = (box[None, :, 1] >= x0[:, None] + 0.5) & (box[None, :, 0] <= x0[:, None] + tile - 0.5)
    over_y = (box[None, :, 3] >= y0[:, None] + 0.5) & (box[None, :, 2] <= y0[:, None] + tile - 0.5)
    over = (over_y[:, None, :] & over_x[None, :, :] & visible).reshape(ty * tx, -1)  # (NT, T)
    rank = jnp.cumsum(over, -1, dtype=jnp.int32) - 1
    slot = jnp.where(over & (rank < capacity), rank, capacity)  # capacity: dropped
    rows = jnp.broadcast_to(jnp.arange(ty * tx)[:, None], slot.shape)
    idx = jnp.full((ty * tx, capacity), -1, jnp.int32).at[rows, slot].set(
        jnp.broadcast_to(order.astype(jnp.int32), slot.shape), mode="drop")
    zfirst = jnp.full((ty * tx, capacity), jnp.inf, zmin.dtype).at[rows, slot].set(
        jnp.broadcast_to(zmin, slot.shape), mode="drop")
    first_drop = jnp.where(over & (rank == capacity), zmin, jnp.inf).min(-1)
    count = rank[:, -1] + 1
    shape = (ty, tx)
    return (idx.reshape(shape + (capacity,)), zfirst.reshape(shape + (capacity,)),
            count.reshape(shape), first_drop.reshape(shape))


def nearest_tiled(forms, usable, tri_cam, focal, width: int, height: int, near: float, far: float,
                  tile: int = 16, max_per_tile: int = 2048, chunk: int = 64):
    """Tile-binned visibility with front-to-back chunks and occlusion early-out.

    Each tile walks its nearest-first list (`tile_candidates`, at most `max_per_tile`
    entries) `chunk` triangles at a time; a tile is finished when its list is used
    up or the next triangle starts behind the farthest pixel hit so far in the tile
    (so it cannot be visible). The loop runs until every tile is finished.

    forms (T, 3, 3), usable (T,) from `edge_forms`, tri_cam (T, 3, 3), focal: focal
    length in pixels -> w (H, W), tri (H, W), and `unsafe` (TY, TX) bool: tiles whose
    list overflowed with a dropped triangle that could be visible. Where no tile is
    unsafe, the result equals `nearest_brute`.
    """
    box, zmin, visible = screen_bounds(tri_cam, focal, width, height, near, far)
    visible = visible & usable
    capacity = -(-max_per_tile // chunk) * chunk
    idx, zfirst, count, dropped = tile_candidates(box, zmin, visible, width, height, tile, capacity)
    ty, tx = idx.shape[:2]
    nt, q = ty * tx, tile * tile
    idx, zfirst = idx.reshape(nt, capacity), zfirst.reshape(nt, capacity)
    # Normalised coordinates of the pixel centres, per tile: (NT, Q, 1).
    rr = jnp.arange(ty * tile, dtype=jnp.float32).reshape(ty, 1, tile, 1)
    cc = jnp.arange(tx * tile, dtype=jnp.float32).reshape(1, tx, 1, tile)
    x = jnp.broadcast_to((cc + 0.5 - 0.5 * width) / focal, (ty, tx, tile, tile)).reshape(nt, q, 1)
    y = jnp.broadcast_to((0.5 * height - (rr + 0.5)) / focal, (ty, tx, tile, tile)).reshape(nt, q, 1)
    inside = jnp.broadcast_to((rr < height) & (cc < width), (ty, tx, tile, tile)).reshape(nt, q)

    def farthest(w):  # (NT,) farthest hit depth of the pixels inside the image (inf: a miss)
        d = jnp.where(w > 0, 1.0 / jnp.where(w > 0, w, 1.0), jnp.inf)
        return jnp.max(jnp.where(inside, d, 0.0), -1)

    def pending(c, w):  # (NT,) tiles whose chunk c may still change the image
        start = jnp.minimum(c * chunk, capacity - 1)
        return (c * chunk < capacity) & (zfirst[:, start] < farthest(w))

    def cond(state):
        c, w, _ = state
        return jnp.any(pending(c, w))

    def body(state):
        c, w, t = state
        sl = jax.lax.dynamic_slice_in_dim(idx, c * chunk, chunk, axis=1)  # (NT, chunk)
        f = jnp.where((sl >= 0)[..., None, None], forms[jnp.maximum(sl, 0)], _NEVER)
        wc, k = _best(f, x, y, 1.0 / near, 1.0 / far)  # (NT, Q)
        better = wc > w
        return c + 1, jnp.where(better, wc, w), jnp.where(better, jnp.take_along_axis(sl, k, -1), t)

    init = (jnp.int32(0), jnp.zeros((nt, q), jnp.float32), jnp.full((nt, q), -1, jnp.int32))
    _, w, tri = jax.lax.while_loop(cond, body, init)
    unsafe = (dropped.reshape(nt) < farthest(w)).reshape(ty, tx)

    def to_image(a):
        return a.reshape(ty, tx, tile, tile).transpose(0, 2, 1, 3).reshape(ty * tile, tx * tile)[:height, :width]
    return to_image(w), to_image(jnp.where(w > 0, tri, -1)), unsafe
