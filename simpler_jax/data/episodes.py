"""The episode record every loader in :mod:`simpler_jax.data` yields."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional

import numpy as np

from simpler_jax.data import rotations
from simpler_jax.data.errors import DataFormatError

QUAT_NORM_TOLERANCE = 1e-2
"""Stored quaternions whose norm is further than this from 1 are rejected as corrupt."""


@dataclasses.dataclass(frozen=True, eq=False)
class Episode:
    """One real-robot episode, all arrays float64, all poses in the robot base frame.

    Alignment: ``T`` poses and ``T`` actions. ``delta_*[t]`` and ``gripper[t]`` are the
    command issued at pose ``t``; pose ``t + 1`` is the pose reached after it (the pose
    reached after the last command is not recorded in these datasets).

    Attributes:
      position: (T, 3) end-effector (tool) position, metres.
      rotation: (T, 3, 3) end-effector orientation (columns = EE axes in the base frame).
      quaternion: (T, 4) the same orientation as a unit quaternion ``[w, x, y, z]``.
      delta_translation: (T, 3) commanded EE translation per step, metres, base frame.
      delta_rotation: (T, 3) commanded EE rotation per step as an axis-angle vector
        (radians, base-frame axes) -- what SimplerEnv's controllers receive.
      gripper: (T,) commanded gripper value in the source dataset's convention,
        see ``gripper_convention`` (NaN where the source has no gripper command).
      instruction: natural-language instruction ('' when the episode has none).
      source: path of the file the episode was read from.
      index: index of the episode in that file (TFRecord record index, or npz episode).
      dataset: 'bridge_dataset' (rail-berkeley 1.0.0), 'bridge_oxe' (OXE bridge 0.1.0),
        'fractal_rlds' (fractal20220817_data) or 'fractal_npz' (SysID step files).
      control_freq: control frequency of the robot, Hz (Bridge 5, fractal 3).
      gripper_convention: meaning of ``gripper``.
      extras: dataset-specific extra arrays / metadata (documented per loader).
    """

    position: np.ndarray
    rotation: np.ndarray
    quaternion: np.ndarray
    delta_translation: np.ndarray
    delta_rotation: np.ndarray
    gripper: np.ndarray
    instruction: str
    source: str
    index: int
    dataset: str
    control_freq: float
    gripper_convention: str
    extras: Dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def num_steps(self) -> int:
        return int(self.position.shape[0])

    def __len__(self) -> int:
        return self.num_steps

    @property
    def pose7(self) -> np.ndarray:
        """(T, 7) ``[x, y, z, qw, qx, qy, qz]`` -- SimplerEnv SysID's ``base_pose_tool_reached``."""
        return np.concatenate([self.position, self.quaternion], axis=-1)

    @property
    def has_gripper(self) -> bool:
        return bool(np.all(np.isfinite(self.gripper)))

    def __repr__(self) -> str:
        return (f"Episode(dataset={self.dataset!r}, source={self.source!r}, index={self.index}, "
                f"T={self.num_steps}, instruction={self.instruction!r})")


def make_episode(
    *,
    position,
    delta_translation,
    delta_rotation,
    source: str,
    index: int,
    dataset: str,
    control_freq: float,
    gripper_convention: str,
    rotation=None,
    quaternion=None,
    gripper=None,
    instruction: str = "",
    extras: Optional[Dict[str, Any]] = None,
    record: Optional[int] = None,
) -> Episode:
    """Validate shapes / values and fill in the orientation representation not given.

    Exactly one of ``rotation`` (T, 3, 3) and ``quaternion`` (T, 4, [w, x, y, z]) is
    given; the quaternion is normalised (its sign kept), a quaternion derived from a
    matrix has ``w >= 0``. Raises :class:`DataFormatError` naming ``source`` and
    ``record`` (TFRecord record index) or ``index`` (episode index).
    """
    where = dict(path=source, record=record) if record is not None else dict(
        path=source, episode=index)

    def arr(name, value, shape):
        a = np.asarray(value, dtype=np.float64)
        if a.shape != shape:
            raise DataFormatError(f"{name} has shape {a.shape}, expected {shape}", **where)
        if not np.all(np.isfinite(a)):
            raise DataFormatError(f"{name} contains non-finite values", **where)
        return a

    position = np.asarray(position, dtype=np.float64)
    if position.ndim != 2 or position.shape[1] != 3:
        raise DataFormatError(f"position has shape {position.shape}, expected (T, 3)", **where)
    T = position.shape[0]
    if T == 0:
        raise DataFormatError("episode has no steps", **where)
    position = arr("position", position, (T, 3))
    if (rotation is None) == (quaternion is None):
        raise ValueError("give exactly one of rotation and quaternion")
    if quaternion is not None:
        quaternion = arr("quaternion", quaternion, (T, 4))
        norm = np.linalg.norm(quaternion, axis=-1)
        bad = np.flatnonzero(np.abs(norm - 1.0) > QUAT_NORM_TOLERANCE)
        if bad.size:
            raise DataFormatError(
                f"quaternion at step {bad[0]} has norm {norm[bad[0]]:.6g}, expected 1 "
                f"(wrong layout or corrupt data?)", **where)
        quaternion = quaternion / norm[:, None]
        rotation = rotations.quat_wxyz_to_matrix(quaternion)
    else:
        rotation = arr("rotation", rotation, (T, 3, 3))
        quaternion = rotations.matrix_to_quat_wxyz(rotation)
    delta_translation = arr("delta_translation", delta_translation, (T, 3))
    delta_rotation = arr("delta_rotation", delta_rotation, (T, 3))
    if gripper is None:
        gripper = np.full((T,), np.nan)
    else:
        gripper = np.asarray(gripper, dtype=np.float64).reshape(-1)
        if gripper.shape != (T,):
            raise DataFormatError(f"gripper has shape {gripper.shape}, expected ({T},)", **where)
    for a in (position, rotation, quaternion, delta_translation, delta_rotation, gripper):
        a.setflags(write=False)
    return Episode(
        position=position, rotation=rotation, quaternion=quaternion,
        delta_translation=delta_translation, delta_rotation=delta_rotation, gripper=gripper,
        instruction=str(instruction), source=str(source), index=int(index), dataset=dataset,
        control_freq=float(control_freq), gripper_convention=gripper_convention,
        extras=dict(extras or {}),
    )
