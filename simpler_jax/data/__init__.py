"""Real-robot trajectory loaders (BridgeData V2, RT-1 fractal) without TensorFlow.

Every loader yields :class:`Episode` records (numpy float64, robot base frame);
corrupt or malformed input raises :class:`DataFormatError` (a ``ValueError``)
naming the file, record / episode index and feature key.
"""

from __future__ import annotations

import contextlib
import os
from typing import List

from simpler_jax.data.bridge import iter_bridge_episodes, load_bridge
from simpler_jax.data.episodes import Episode, make_episode
from simpler_jax.data.errors import DataFormatError
from simpler_jax.data.example_proto import encode_example, parse_example
from simpler_jax.data.fractal import (
    iter_fractal_rlds_episodes,
    load_fractal_npz,
    load_fractal_rlds,
)
from simpler_jax.data.rlds import PathLike, iter_records, resolve_shards
from simpler_jax.data.tfrecord import crc32c, iter_tfrecord, masked_crc32c, write_tfrecord

__all__ = [
    "DataFormatError", "Episode", "make_episode",
    "load_episodes", "load_bridge", "iter_bridge_episodes",
    "load_fractal_rlds", "iter_fractal_rlds_episodes", "load_fractal_npz",
    "iter_tfrecord", "write_tfrecord", "crc32c", "masked_crc32c",
    "parse_example", "encode_example", "iter_records", "resolve_shards",
]


def load_episodes(path: PathLike, split: str = "train") -> List[Episode]:
    """Load any supported file / TFDS directory, picking the loader from its content.

    ``.npz`` -> :func:`load_fractal_npz`; TFRecord shards (or a TFDS version directory)
    holding ``steps/observation/base_pose_tool_reached`` -> :func:`load_fractal_rlds`
    (step 0 dropped), otherwise -> :func:`load_bridge` (schema auto-detected).
    """
    path = os.fspath(path)
    if os.path.isfile(path) and path.endswith(".npz"):
        return load_fractal_npz(path)
    with contextlib.closing(
            iter_records(path, split, keys=("steps/observation/base_pose_tool_reached",))) as it:
        first = next(it, None)
    if first is not None and "steps/observation/base_pose_tool_reached" in first[2]:
        return load_fractal_rlds(path, split)
    return load_bridge(path, split)
