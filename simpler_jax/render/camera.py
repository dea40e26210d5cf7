"""Pinhole cameras in MuJoCo's convention, read from MJX (or MuJoCo C) data.

A camera looks along its -z axis with +y up and +x right; `mat` (3, 3) holds those
axes as columns in world coordinates (MuJoCo's `cam_xmat`). `fovy` is the vertical
field of view in degrees, and the principal point is the image centre, so the focal
length in pixels is f = (height / 2) / tan(fovy / 2).
"""

from __future__ import annotations

import flax.struct
import jax.numpy as jnp


@flax.struct.dataclass
class Camera:
    pos: jnp.ndarray  # (3,) world position
    mat: jnp.ndarray  # (3, 3) columns: camera x, y, z axes in the world
    fovy: jnp.ndarray  # () degrees


def camera_from_data(model, data, camera: int) -> Camera:
    """The pose of camera `camera` after forward kinematics, following its mount body.

    model: `mjx.Model` or `mujoco.MjModel`; data: `mjx.Data` (cam_xmat (ncam, 3, 3))
    or `mujoco.MjData` (cam_xmat (ncam, 9)).
    """
    return Camera(
        pos=jnp.asarray(data.cam_xpos[camera], jnp.float32),
        mat=jnp.asarray(data.cam_xmat[camera], jnp.float32).reshape(3, 3),
        fovy=jnp.asarray(model.cam_fovy[camera], jnp.float32),
    )


def focal_length(fovy, height: int):
    """Focal length in pixels for a vertical field of view `fovy` (degrees)."""
    return 0.5 * height / jnp.tan(0.5 * jnp.deg2rad(fovy))


def pixel_coords(fovy, width: int, height: int) -> jnp.ndarray:
    """(H, W, 2) normalised image coordinates (x, y) of the pixel centres: the ray
    through pixel (row i, column j) is (x, y, -1) in the camera frame; row 0 is the top."""
    f = focal_length(fovy, height)
    x = (jnp.arange(width, dtype=jnp.float32) + 0.5 - 0.5 * width) / f
    y = (0.5 * height - (jnp.arange(height, dtype=jnp.float32) + 0.5)) / f
    xx, yy = jnp.meshgrid(x, y)
    return jnp.stack([xx, yy], -1)
