"""BridgeData V2 (WidowX 250, 5 Hz) RLDS loaders, without TensorFlow.

Two TFRecord layouts are read (auto-detected per record):

* ``bridge_dataset`` 1.0.0 (rail-berkeley; == current OXE ``bridge_data_v2``):
  ``steps/observation/state`` (7: x, y, z, roll, pitch, yaw, gripper opening),
  flat ``steps/action`` (7: dx, dy, dz, droll, dpitch, dyaw, gripper in [0, 1], 1 = open;
  mostly 0/1, a few in-between values occur on real data),
  ``steps/language_instruction``, ``episode_metadata/{file_path, episode_id}``.
* OXE ``bridge`` 0.1.0 (what SimplerEnv's SysID reads): the same state;
  ``steps/action/world_vector`` (3) = action[0:3], ``steps/action/rotation_delta`` (3)
  = action[3:6] (rpy), ``steps/action/open_gripper`` (bool),
  ``steps/observation/natural_language_instruction``; optional top-level ``episode_id``.

Conventions (docs/BRIDGE_DATA.md): positions are used as stored (metres, robot
base frame); orientation ``R = euler_sxyz(roll, pitch, yaw) @ [[0,0,1],[0,1,0],[-1,0,0]]``
(rpy = 0 is the gripper pointing straight down); the commanded rpy delta becomes the
axis-angle vector of ``euler_sxyz(droll, dpitch, dyaw)`` (transforms3d
``euler2axangle``, as SimplerEnv does); all steps are kept; action[t] is issued at
state[t], state[t+1] is reached after it. Images are not decoded.
"""

from __future__ import annotations

from typing import Iterator, List

import numpy as np

from simpler_jax.data import rotations
from simpler_jax.data.episodes import Episode, make_episode
from simpler_jax.data.rlds import PathLike, StepFeatures, first_instruction, iter_records

BRIDGE_CONTROL_FREQ = 5.0
GRIPPER_CONVENTION = "open fraction in [0, 1]: 1 = open, 0 = closed"

_K_STATE = "steps/observation/state"
_K_ACTION = "steps/action"
_K_LANG = "steps/language_instruction"
_K_WORLD = "steps/action/world_vector"
_K_ROT = "steps/action/rotation_delta"
_K_OPEN = "steps/action/open_gripper"
_K_LANG_OXE = "steps/observation/natural_language_instruction"
_KEYS = (
    _K_STATE, _K_ACTION, _K_LANG, _K_WORLD, _K_ROT, _K_OPEN, _K_LANG_OXE,
    "steps/is_first", "steps/is_last", "steps/is_terminal",
    "episode_metadata/file_path", "episode_metadata/episode_id", "episode_id",
)


def _episode(sf: StepFeatures, schema: str) -> Episode:
    if schema == "auto":
        if sf.has(_K_ACTION):
            schema = "bridge_dataset"
        elif sf.has(_K_WORLD):
            schema = "bridge_oxe"
        else:
            raise sf.error(f"neither {_K_ACTION!r} (bridge_dataset 1.0.0) nor {_K_WORLD!r} "
                           "(OXE bridge 0.1.0) is present: not a Bridge RLDS record",
                           key=_K_ACTION)
    state = sf.floats(_K_STATE, 7)
    extras = {}
    if schema == "bridge_dataset":
        action = sf.floats(_K_ACTION, 7)
        world, rpy_delta, gripper = action[:, :3], action[:, 3:6], action[:, 6]
        texts = sf.texts(_K_LANG)
        extras["episode_file_path"] = sf.scalar_text("episode_metadata/file_path")
        eid = sf.scalar_int("episode_metadata/episode_id")
        if eid is not None:
            extras["episode_id"] = eid
    elif schema == "bridge_oxe":
        world = sf.floats(_K_WORLD, 3)
        rpy_delta = sf.floats(_K_ROT, 3)
        gripper = sf.ints(_K_OPEN).astype(np.float64)
        texts = sf.texts(_K_LANG_OXE)
        if sf.has("episode_id"):
            extras["episode_id"] = sf.scalar_text("episode_id")
    else:
        raise ValueError(f"unknown Bridge schema {schema!r}")
    for k in ("steps/is_first", "steps/is_last", "steps/is_terminal"):
        if sf.has(k):
            extras[k.split("/")[-1]] = sf.ints(k).astype(bool)
    extras["rpy"] = state[:, 3:6]
    extras["gripper_state"] = state[:, 6]
    extras["rotation_delta_rpy"] = rpy_delta
    return make_episode(
        position=state[:, :3],
        rotation=rotations.bridge_rpy_to_matrix(state[:, 3:6]),
        delta_translation=world,
        delta_rotation=rotations.euler_sxyz_to_axis_angle(rpy_delta),
        gripper=gripper,
        instruction=first_instruction(texts),
        source=sf.path, index=sf.record, record=sf.record,
        dataset=schema, control_freq=BRIDGE_CONTROL_FREQ,
        gripper_convention=GRIPPER_CONVENTION, extras=extras,
    )


def iter_bridge_episodes(
    path: PathLike,
    split: str = "train",
    schema: str = "auto",
    verify_crc: bool = True,
) -> Iterator[Episode]:
    """Yield the episodes of a Bridge TFRecord shard, or of all ``split`` shards of a
    TFDS version directory (e.g. ``.../bridge_dataset/1.0.0``), in file order.

    ``schema``: 'auto' (per record), 'bridge_dataset' (1.0.0) or 'bridge_oxe' (0.1.0).
    ``Episode.index`` is the record index inside ``Episode.source`` (the shard).
    ``extras``: 'rpy' (T,3) stored state angles, 'gripper_state' (T,) measured opening,
    'rotation_delta_rpy' (T,3) stored rpy command, 'is_first'/'is_last'/'is_terminal'
    (T,) when stored, 'episode_id' and (1.0.0) 'episode_file_path' metadata.
    Raises :class:`~simpler_jax.data.errors.DataFormatError` on corrupt records.
    """
    for shard, i, feats in iter_records(path, split, _KEYS, verify_crc):
        yield _episode(StepFeatures(feats, shard, i), schema)


def load_bridge(
    path: PathLike,
    split: str = "train",
    schema: str = "auto",
    verify_crc: bool = True,
) -> List[Episode]:
    """All episodes of :func:`iter_bridge_episodes` as a list."""
    return list(iter_bridge_episodes(path, split=split, schema=schema, verify_crc=verify_crc))
