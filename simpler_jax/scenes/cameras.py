"""SIMPLER's policy cameras (SIMPLER_SPEC.md §5) as MuJoCo cameras.

SAPIEN camera frames are x forward, y left, z up; MuJoCo cameras look along -z with
y up and x right. A SAPIEN camera orientation R_s becomes R_s @ SAPIEN_TO_MUJOCO.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simpler_jax.utils.rotations_np import mat_to_quat, quat_to_mat

# Columns: MuJoCo camera x (right), y (up), z (backward) in SAPIEN camera axes.
SAPIEN_TO_MUJOCO = np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


@dataclasses.dataclass(frozen=True)
class CameraSpec:
    name: str
    parent_link: str
    pos: tuple[float, float, float]  # in the parent link frame
    quat_sapien: tuple[float, float, float, float]  # wxyz, SAPIEN camera convention
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    near: float = 0.1
    far: float = 10.0

    def mujoco_quat(self) -> np.ndarray:
        return mat_to_quat(quat_to_mat(self.quat_sapien) @ SAPIEN_TO_MUJOCO)


GOOGLE_OVERHEAD = CameraSpec(
    "overhead_camera", "link_camera", (0.0, 0.0, 0.0), (0.5, 0.5, -0.5, 0.5),
    640, 512, 425.0, 425.0, 320.0, 256.0,
)
_C920 = dict(width=640, height=480, fx=623.588, fy=623.588, cx=319.501, cy=239.545)
WIDOWX_CAMERAS = {
    "widowx": CameraSpec(
        "3rd_view_camera", "base_link", (0.0, -0.16, 0.36),
        (0.89929, -0.09263, 0.35892, 0.23209), **_C920,
    ),
    "widowx_bridge_dataset_camera_setup": CameraSpec(
        "3rd_view_camera", "base_link", (0.0, -0.16, 0.336),
        (0.909182, -0.0819809, 0.347277, 0.214629), **_C920,
    ),
    "widowx_sink_camera_setup": CameraSpec(
        "3rd_view_camera", "base_link", (-0.00300001, -0.21, 0.39),
        (-0.907313, 0.0782, -0.36434, -0.194741), near=0.01, **_C920,
    ),
}


def add_camera(spec, cam: CameraSpec) -> None:
    body = spec.body(cam.parent_link)
    if body is None:
        raise ValueError(f"camera {cam.name!r}: no link {cam.parent_link!r} in the scene")
    c = body.add_camera(name=cam.name)
    c.pos = list(cam.pos)
    c.quat = cam.mujoco_quat()
    c.resolution = [cam.width, cam.height]
    c.fovy = float(np.degrees(2 * np.arctan(cam.height / (2 * cam.fy))))
