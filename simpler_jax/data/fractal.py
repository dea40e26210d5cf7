"""Google Robot / RT-1 ``fractal20220817_data`` (3 Hz) loaders, without TensorFlow.

* :func:`iter_fractal_rlds_episodes` reads the RLDS TFRecord layout (0.1.0):
  ``steps/observation/base_pose_tool_reached`` (7: x, y, z, qx, qy, qz, qw; base frame),
  ``steps/action/world_vector`` (3), ``steps/action/rotation_delta`` (3),
  ``steps/action/gripper_closedness_action`` (1), ``steps/observation/natural_language_instruction``.
* :func:`load_fractal_npz` reads SimplerEnv SysID step files (``shared/data/fractal_sysid``):
  ``pose`` (S, 7) = [x, y, z, qw, qx, qy, qz], ``world_vector`` (S, 3),
  ``rotation_delta`` (S, 3), ``episode_start`` (E,), ``episode_length`` (E,).

Conventions (docs/BRIDGE_DATA.md, SIMPLER_SPEC.md section 10): quaternions are
reordered xyzw -> wxyz (npz files are already wxyz) and normalised, their sign kept;
``rotation_delta`` is used as an axis-angle vector (SimplerEnv's choice, despite the
TFDS catalog calling it rpy); step 0 of every RLDS episode is dropped (its action may
not reach the robot in time) -- the npz files already had it dropped.
"""

from __future__ import annotations

import os
import zipfile
from typing import Iterator, List

import numpy as np

from simpler_jax.data import rotations
from simpler_jax.data.episodes import Episode, make_episode
from simpler_jax.data.errors import DataFormatError
from simpler_jax.data.rlds import PathLike, StepFeatures, first_instruction, iter_records

FRACTAL_CONTROL_FREQ = 3.0
GRIPPER_CONVENTION = "closedness: 1 = close, -1 = open"
NPZ_KEYS = ("pose", "world_vector", "rotation_delta", "episode_start", "episode_length")

_K_POSE = "steps/observation/base_pose_tool_reached"
_K_WORLD = "steps/action/world_vector"
_K_ROT = "steps/action/rotation_delta"
_K_GRIP = "steps/action/gripper_closedness_action"
_K_LANG = "steps/observation/natural_language_instruction"
_K_CLOSED = "steps/observation/gripper_closed"
_KEYS = (_K_POSE, _K_WORLD, _K_ROT, _K_GRIP, _K_LANG, _K_CLOSED,
         "steps/is_first", "steps/is_last", "steps/is_terminal")


def _rlds_episode(sf: StepFeatures, drop_first_step: bool) -> Episode:
    pose = sf.floats(_K_POSE, 7)
    world = sf.floats(_K_WORLD, 3)
    rot = sf.floats(_K_ROT, 3)
    grip = sf.floats(_K_GRIP, 1)[:, 0]
    texts = sf.texts(_K_LANG)
    extras = {}
    if sf.has(_K_CLOSED):
        extras["gripper_closed"] = sf.floats(_K_CLOSED, 1)[:, 0]
    for k in ("steps/is_first", "steps/is_last", "steps/is_terminal"):
        if sf.has(k):
            extras[k.split("/")[-1]] = sf.ints(k).astype(bool)
    s = 1 if drop_first_step else 0
    if pose.shape[0] <= s:
        raise sf.error(f"episode has {pose.shape[0]} step(s): none left after dropping step 0")
    extras = {k: (v[s:] if isinstance(v, np.ndarray) else v) for k, v in extras.items()}
    return make_episode(
        position=pose[s:, :3],
        quaternion=rotations.quat_xyzw_to_wxyz(pose[s:, 3:7]),
        delta_translation=world[s:],
        delta_rotation=rot[s:],
        gripper=grip[s:],
        instruction=first_instruction(texts),
        source=sf.path, index=sf.record, record=sf.record,
        dataset="fractal_rlds", control_freq=FRACTAL_CONTROL_FREQ,
        gripper_convention=GRIPPER_CONVENTION, extras=extras,
    )


def iter_fractal_rlds_episodes(
    path: PathLike,
    split: str = "train",
    drop_first_step: bool = True,
    verify_crc: bool = True,
) -> Iterator[Episode]:
    """Yield the episodes of a fractal RLDS TFRecord shard, or of all ``split`` shards
    of a TFDS version directory, in file order. ``Episode.index`` is the record index in
    ``Episode.source``. With ``drop_first_step`` (default, as SimplerEnv SysID) an
    episode of T stored steps yields T - 1. ``extras``: 'gripper_closed' (measured) and
    'is_first'/'is_last'/'is_terminal' when stored (also with step 0 dropped).
    """
    for shard, i, feats in iter_records(path, split, _KEYS, verify_crc):
        yield _rlds_episode(StepFeatures(feats, shard, i), drop_first_step)


def load_fractal_rlds(
    path: PathLike,
    split: str = "train",
    drop_first_step: bool = True,
    verify_crc: bool = True,
) -> List[Episode]:
    """All episodes of :func:`iter_fractal_rlds_episodes` as a list."""
    return list(iter_fractal_rlds_episodes(path, split, drop_first_step, verify_crc))


def load_fractal_npz(path: PathLike) -> List[Episode]:
    """Episodes of a SysID ``.npz`` step file (step 0 of each episode already dropped).

    Gripper commands are not stored: ``Episode.gripper`` is NaN, ``instruction`` ''.
    """
    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in NPZ_KEYS if k not in z.files]
            if missing:
                raise DataFormatError(
                    f"missing array {missing[0]!r} (file has {sorted(z.files)})",
                    path=path, key=missing[0])
            data = {k: np.asarray(z[k]) for k in NPZ_KEYS}
    except DataFormatError:
        raise
    except (zipfile.BadZipFile, EOFError, ValueError, OSError, KeyError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise DataFormatError(f"cannot read npz file: {type(e).__name__}: {e}",
                              path=path) from None

    want = {"pose": 7, "world_vector": 3, "rotation_delta": 3}
    S = data["pose"].shape[0] if data["pose"].ndim == 2 else -1
    for k, d in want.items():
        a = data[k]
        if a.ndim != 2 or a.shape != (S, d) or a.dtype.kind != "f":
            raise DataFormatError(f"array has shape {a.shape} / dtype {a.dtype}, expected "
                                  f"({'S' if S < 0 else S}, {d}) floats", path=path, key=k)
    start, length = data["episode_start"], data["episode_length"]
    for k, a in (("episode_start", start), ("episode_length", length)):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise DataFormatError(f"array has shape {a.shape} / dtype {a.dtype}, expected (E,) "
                                  "integers", path=path, key=k)
    if start.shape != length.shape:
        raise DataFormatError(f"episode_start {start.shape} and episode_length {length.shape} "
                              "differ in shape", path=path, key="episode_length")
    episodes = []
    for e, (s0, n) in enumerate(zip(start.tolist(), length.tolist())):
        if n < 1 or s0 < 0 or s0 + n > S:
            raise DataFormatError(f"steps [{s0}, {s0 + n}) are empty or outside the {S} stored "
                                  "steps", path=path, episode=e, key="episode_length")
        sl = slice(s0, s0 + n)
        pose = data["pose"][sl]
        episodes.append(make_episode(
            position=pose[:, :3], quaternion=pose[:, 3:7],
            delta_translation=data["world_vector"][sl],
            delta_rotation=data["rotation_delta"][sl],
            source=path, index=e, dataset="fractal_npz", control_freq=FRACTAL_CONTROL_FREQ,
            gripper_convention="none (not stored)",
            extras={"step_offset": int(s0)},
        ))
    return episodes
