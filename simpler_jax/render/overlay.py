"""Visual Matching compositing ("green screen"): real photos behind the simulated robot.

SIMPLER's visual-matching evaluations paste the simulated robot and objects onto a
real photo of the evaluation scene (spec §6). This module holds the task -> photo
table (`OVERLAYS`, spec §6.1), loads a photo at the camera size (`load_overlay`,
`load_overlay_uint8`), picks the foreground bodies of a MuJoCo model
(`foreground_body_ids`) and composites one rendered world (`foreground_mask`,
`composite`; pure JAX, jit/vmap-able):

    ids = pad_ids(foreground_body_ids(mj_model, "link_base"), 64)    # once, NumPy
    bg = jnp.asarray(load_overlay_uint8(None, OVERLAYS[task][0], 640, 512))
    rgb, _, seg = render(geometry, ...)                                # per world
    out = composite(rgb, bg, foreground_mask(seg, ids))

Shapes: overlay (H, W, 3) float32 in [0, 1] or uint8; segmentation (H, W) int32 (the
renderer's body ids, -1 background: render geometry built with segmentation="body");
foreground ids (K,) int32, padded with -2; mask (H, W) bool; result (H, W, 3) uint8.

The original rule (`CustomSceneEnv.get_obs`, spec §6.2): the PNG is read with cv2
(BGR -> RGB) / 255.0 (float64) and resized with `cv2.resize` (bilinear) to the camera
W x H; the foreground is every robot link, every scene actor except `ground`,
`goal_site`, `''`, `arena` and `rgb_always_overlay_objects`, and every link of other
articulations unless listed there; then `Color = sim*(1-mask) + overlay*mask` in
float (sim: the renderer's float32 colour) and `clip(Color*255, 0, 255).astype(uint8)`
(truncation).

Ours, and where it differs:
- Resize: `cv2.resize` INTER_LINEAR of the float64 image re-done in NumPy with the
  rounding of the x86 opencv-python wheels (Intel IPP, fused multiply-adds), bit-exact
  for the Google 2x upscale (see `resize_bilinear`). Identity when the sizes match.
- Foreground: body ids, not actor ids. The static arena is MuJoCo's world body
  (table, floor: body 0), so it is background by construction; every other body with
  geoms is foreground unless it (or an ancestor) is named in `always_overlay_bodies`
  (the eggplant task's 'sink'), which also covers whole articulations.
- Truncation of the background: the original truncates overlay64 * 255 in float64.
  A float32 overlay truncated in float32 differs from that by 1 LSB in 0.4 % of the
  Google coke-can channel values at 640x512 (3856 of 983040), so `load_overlay_uint8`
  truncates in float64 in NumPy at load time and gives the original's background bytes
  exactly; `composite` takes that uint8 image as is. A float overlay is truncated in
  float32 (`to_uint8`), which for float32 values is exactly what float64 gives.
- Order: with a boolean mask, `sim*fg + overlay*(1-fg)` followed by truncation equals
  `where(fg, trunc(sim), trunc(overlay))`, which is what we do (no float round trip):
  foreground pixels are the sim's uint8 bytes, background pixels the overlay bytes.
  A float sim colour gives exactly the original's bytes. Our renderer returns uint8,
  already ROUNDED from float (`render.py`), where the original truncates: its
  foreground pixels can therefore be 1 LSB above the original's for the same float
  colour; that is the renderer's conversion, not the compositing's. (uint8 -> /255 in
  float32 -> x255 -> truncation also gives back every uint8 value, checked for all 256.)
- Modes: only the default 'background' mode. A float mask in [0, 1] (1 = sim) gives a
  blend (the original's 'debug' mode is 0.5).
"""

from __future__ import annotations

import os
import pathlib

import jax.numpy as jnp
import numpy as np

from simpler_jax.assets import paths

MissingAssetError = paths.MissingAssetError

_D = paths.OVERLAY_DIR

_DRAWER_9 = tuple(f"{_D}/open_drawer_{r}{c}.png" for r in "abc" for c in "012")
_DRAWER_3 = tuple(f"{_D}/open_drawer_{r}0.png" for r in "abc")
_COKE = (f"{_D}/google_coke_can_real_eval_1.png",)
_MOVE_NEAR = (f"{_D}/google_move_near_real_eval_1.png",)
_BRIDGE = (f"{_D}/bridge_real_eval_1.png",)
_SINK = (f"{_D}/bridge_sink.png",)

# SimplerEnv task -> overlay photo(s), relative to the asset root (spec §6.1, §3.1).
# Drawer photos a0..c2 each go with their own robot base pose (spec §2.4 / §3.1).
OVERLAYS: dict[str, tuple[str, ...]] = {
    "google_robot_pick_coke_can": _COKE,
    "google_robot_pick_horizontal_coke_can": _COKE,
    "google_robot_pick_vertical_coke_can": _COKE,
    "google_robot_pick_standing_coke_can": _COKE,
    "google_robot_pick_object": _COKE,
    "google_robot_move_near": _MOVE_NEAR,
    "google_robot_move_near_v0": _MOVE_NEAR,
    "google_robot_move_near_v1": _MOVE_NEAR,
    **{f"google_robot_{verb}{pos}_drawer": _DRAWER_9
       for verb in ("open", "close") for pos in ("", "top_", "middle_", "bottom_")},
    "google_robot_place_apple_in_closed_top_drawer": _DRAWER_3,
    "widowx_spoon_on_towel": _BRIDGE,
    "widowx_carrot_on_plate": _BRIDGE,
    "widowx_stack_cube": _BRIDGE,
    "widowx_put_eggplant_in_basket": _SINK,
}

# Bodies shown from the photo, not the simulation, per task (`rgb_always_overlay_objects`;
# the original also lists 'dummy_sink_target_plane', its invisible target marker: add it
# here if a scene gives it a rendered body).
ALWAYS_OVERLAY: dict[str, tuple[str, ...]] = {"widowx_put_eggplant_in_basket": ("sink",)}

PAD_ID = -2  # padding of foreground id arrays; never a segmentation value


# ---------------------------------------------------------------------------- loading


def _source(explicit) -> str:
    if explicit is not None:
        return "the asset_root argument / --assets flag"
    if os.environ.get(paths.ENV_ASSETS):
        return f"${paths.ENV_ASSETS}"
    return f"the asset cache (set ${paths.ENV_CACHE} to move it)"


def _overlay_file(asset_root, relpath: str) -> pathlib.Path:
    root = paths.asset_root(asset_root)  # raises MissingAssetError naming the setting
    path = root / relpath
    if not path.is_file():
        raise MissingAssetError(
            f"overlay image {relpath!r} not found: {str(path)!r} does not exist "
            f"(asset folder from {_source(asset_root)}). Point {paths.ENV_ASSETS}/--assets "
            "at a complete copy of the ManiSkill2_real2sim data or run "
            "`python -m simpler_jax.assets download`.")
    return path



def _two_sum(a, b):
    """s = fl(a + b) and the exact error e (a + b = s + e), Knuth's TwoSum."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(x):
    """Veltkamp split: x = hi + lo, each with at most 26 significant bits."""
    c = 134217729.0 * x  # 2**27 + 1
    hi = c - (c - x)
    return hi, x - hi


def fma(a, b, c):
    """Correctly rounded a*b + c for float64 arrays (NumPy has no fused multiply-add).

    Exact product by Dekker's TwoProduct, then the correctly rounded three-term sum of
    Boldo & Melquiond ("Emulation of FMA and correctly-rounded sums: proved algorithms
    using rounding to odd", IEEE TC 2008): RN(th + RO(tl + ul)). Finite inputs of
    moderate size (no overflow/underflow), as for pixel values.
    """
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    uh = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl  # a*b = uh + ul exactly
    th, tl = _two_sum(c, uh)
    v, err = _two_sum(tl, ul)
    even = (v.view(np.int64) & 1) == 0
    v = np.where((err != 0) & even, np.nextafter(v, np.copysign(np.inf, err)), v)  # round to odd
    return th + v


def _linear_taps(n_src: int, n_dst: int):
    """Bilinear taps along one axis: indices i0, i1 and the float64 fraction t.

    src = (dst + 0.5) * n_src / n_dst - 0.5 in double (half-pixel centres), clamped to
    [0, n_src - 1] (border pixels replicated), i0 = floor(src), i1 = min(i0 + 1, n - 1).
    """
    src = np.clip((np.arange(n_dst) + 0.5) * (n_src / n_dst) - 0.5, 0.0, n_src - 1.0)
    i0 = np.floor(src).astype(np.int64)
    return i0, np.minimum(i0 + 1, n_src - 1), src - i0


def resize_bilinear(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """cv2.resize(image, (width, height)) (INTER_LINEAR) of a float64 (H, W, C) image.

    Half-pixel centres, no antialiasing, border pixels replicated; float64 out. Rounded
    as the x86 opencv-python wheels (SIMPLER's cv2) do for 2-D float64 images, where
    cv2 hands the resize to Intel IPP: double coordinates, then per output pixel
    r = fma(p01 - p00, tx, p00) on the two source rows and fma(r1 - r0, ty, r0)
    (horizontal first). Bit-exact with cv2 4.10 / 5.0 for 2x up- and downscaling (the
    Google overlays); a few ulp at other ratios. OpenCV's own code (IPP off, or builds
    without it) uses float32 coordinates and weighted sums instead: last-ulp
    differences at 2x, up to ~2e-5 at other ratios. Identity when the sizes match.
    """
    image = np.asarray(image, np.float64)
    h, w = image.shape[:2]
    if (w, h) == (width, height):
        return image.copy()
    x0, x1, tx = _linear_taps(w, width)
    y0, y1, ty = _linear_taps(h, height)
    tx = tx.reshape((1, -1) + (1,) * (image.ndim - 2))
    ty = ty.reshape((-1, 1) + (1,) * (image.ndim - 2))
    left = image[:, x0]
    rows = fma(image[:, x1] - left, tx, left)  # (h, width, ...)
    top = rows[y0]
    return fma(rows[y1] - top, ty, top)


def _load_overlay64(asset_root, relpath: str, width: int, height: int) -> np.ndarray:
    from PIL import Image

    with Image.open(_overlay_file(asset_root, relpath)) as im:
        rgb = np.asarray(im.convert("RGB"))  # drops alpha, as cv2.imread(IMREAD_COLOR)
    return resize_bilinear(rgb / 255.0, int(width), int(height))


def load_overlay(asset_root, relpath: str, width: int, height: int) -> np.ndarray:
    """The overlay photo at the camera size: (height, width, 3) float32 in [0, 1].

    asset_root: folder or None (then `SIMPLER_JAX_ASSETS` / the cache, see
    `simpler_jax.assets.paths`); relpath: e.g. `OVERLAYS[task][0]`. Computed in
    float64 as the original does, then cast. Missing file: `MissingAssetError`.
    """
    return _load_overlay64(asset_root, relpath, width, height).astype(np.float32)


def load_overlay_uint8(asset_root, relpath: str, width: int, height: int) -> np.ndarray:
    """The original's background bytes: `clip(overlay64*255, 0, 255).astype(uint8)`.

    (height, width, 3) uint8, truncated in float64 as in SIMPLER (see module docstring
    for why this is not the same as truncating `load_overlay`'s float32 image).
    """
    o = _load_overlay64(asset_root, relpath, width, height)
    return np.clip(o * 255, 0, 255).astype(np.uint8)


# -------------------------------------------------------------------------- foreground


def foreground_body_ids(mj_model, robot_root_body, always_overlay_bodies=()) -> np.ndarray:
    """Sorted int32 body ids kept from the simulation (the rest shows the photo).

    The robot's bodies (`robot_root_body`, a name or id, and all its descendants) and
    every other non-world body with at least one geom; minus the subtree of each body
    named in `always_overlay_bodies`. World geoms (body 0: table, floor) are background.
    An unknown name raises ValueError.
    """
    m = mj_model
    root = m.body(robot_root_body).id if isinstance(robot_root_body, str) else int(robot_root_body)
    if not 0 < root < m.nbody:
        raise ValueError(f"robot_root_body must be a non-world body, got {robot_root_body!r}")
    excluded = []
    for name in always_overlay_bodies:
        try:
            excluded.append(m.body(name).id)
        except KeyError:
            raise ValueError(f"always_overlay_bodies: no body named {name!r} in the model") from None

    def under(b: int, ancestors) -> bool:
        while b > 0:
            if b in ancestors:
                return True
            b = int(m.body_parentid[b])
        return False

    ids = [b for b in range(1, m.nbody)
           if (under(b, {root}) or m.body_geomnum[b] > 0) and not under(b, set(excluded))]
    return np.array(ids, np.int32)


def pad_ids(ids, size: int) -> np.ndarray:
    """`ids` padded with PAD_ID (-2) to `size` entries (a fixed shape for jit)."""
    ids = np.asarray(ids, np.int32).reshape(-1)
    if len(ids) > size:
        raise ValueError(f"{len(ids)} ids do not fit in size {size}")
    return np.concatenate([ids, np.full(size - len(ids), PAD_ID, np.int32)])


def foreground_mask(segmentation, foreground_ids):
    """(H, W) bool: True where the segmentation id is in `foreground_ids` ((K,) int32,
    padding -2 never matches; background -1 matches nothing)."""
    seg = jnp.asarray(segmentation, jnp.int32)
    ids = jnp.asarray(foreground_ids, jnp.int32)
    return jnp.any(seg[..., None] == ids, axis=-1)


# -------------------------------------------------------------------------- compositing


def to_uint8(x):
    """`clip(x*255, 0, 255).astype(uint8)` (truncation) of a float image, in float32.

    For float32 x this equals the original's float64 computation on float32 colours
    (the floor of the exact product): checked exhaustively for every float32 in [0, 1]
    (the rounded float32 product never reaches an integer the exact one is below).
    """
    x = jnp.asarray(x, jnp.float32)
    return jnp.clip(x * 255.0, 0.0, 255.0).astype(jnp.uint8)


def _as_uint8(img):
    img = jnp.asarray(img)
    return img if img.dtype == jnp.uint8 else to_uint8(img)


def _as_float(img):
    img = jnp.asarray(img)
    return img.astype(jnp.float32) / 255.0 if img.dtype == jnp.uint8 else img.astype(jnp.float32)


def composite(sim_rgb, overlay, foreground):
    """One world's visual-matching image: (H, W, 3) uint8.

    sim_rgb: (H, W, 3) uint8 (our renderer) or float in [0, 1]; overlay: (H, W, 3)
    uint8 (`load_overlay_uint8`, the original's exact bytes) or float in [0, 1];
    foreground: (H, W) bool (`foreground_mask`, True = keep the sim) or float weight.
    Bool: `where(fg, trunc(sim), trunc(overlay))`, identical to SIMPLER's float blend
    `sim*fg + overlay*(1-fg)` then truncation; uint8 inputs pass through unchanged.
    Float weight: that blend in float32, then `to_uint8`.
    """
    fg = jnp.asarray(foreground)
    if fg.dtype == jnp.bool_:
        return jnp.where(fg[..., None], _as_uint8(sim_rgb), _as_uint8(overlay))
    w = fg.astype(jnp.float32)[..., None]
    return to_uint8(_as_float(sim_rgb) * w + _as_float(overlay) * (1.0 - w))
