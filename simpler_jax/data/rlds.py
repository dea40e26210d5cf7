"""Reading TFDS/RLDS episodes stored as TFRecord shards, without TensorFlow.

TFDS writes one ``tf.train.Example`` per episode; step features are flattened over
the T steps under ``steps/<name>`` (a (7,) float feature is a list of T*7 floats,
scalars / bools hold T values, text holds T byte strings); episode-level features
sit at the top level (``episode_metadata/...``).
"""

from __future__ import annotations

import glob
import os
from typing import Collection, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from simpler_jax.data.errors import DataFormatError
from simpler_jax.data.example_proto import FeatureValue, parse_example
from simpler_jax.data.tfrecord import iter_tfrecord

PathLike = Union[str, "os.PathLike[str]"]


def resolve_shards(path: PathLike, split: str = "train") -> List[str]:
    """A TFRecord file -> [file]; a TFDS version directory -> its ``*-{split}.tfrecord-*`` shards."""
    path = os.fspath(path)
    if os.path.isdir(path):
        shards = sorted(glob.glob(os.path.join(glob.escape(path), f"*-{split}.tfrecord-*")))
        if not shards:
            raise FileNotFoundError(f"{path}: no TFRecord shards for split {split!r} "
                                    f"(expected files named '*-{split}.tfrecord-*')")
        return shards
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    return [path]


def iter_records(
    path: PathLike,
    split: str = "train",
    keys: Optional[Collection[str]] = None,
    verify_crc: bool = True,
) -> Iterator[Tuple[str, int, Dict[str, FeatureValue]]]:
    """Yield ``(shard_path, record_index, features)`` over all shards of ``path``."""
    for shard in resolve_shards(path, split):
        for i, payload in enumerate(iter_tfrecord(shard, verify_crc=verify_crc)):
            yield shard, i, parse_example(payload, keys, path=shard, record=i)


class StepFeatures:
    """Typed access to the flattened step features of one decoded episode record."""

    def __init__(self, features: Dict[str, FeatureValue], path: str, record: int):
        self.features = features
        self.path = path
        self.record = record
        self.T: Optional[int] = None  # number of steps, fixed by the first floats() call

    def error(self, message: str, key: Optional[str] = None) -> DataFormatError:
        return DataFormatError(message, path=self.path, record=self.record, key=key)

    def has(self, key: str) -> bool:
        return key in self.features

    def _get(self, key: str) -> FeatureValue:
        try:
            return self.features[key]
        except KeyError:
            raise self.error("missing feature", key=key) from None

    def floats(self, key: str, dim: int) -> np.ndarray:
        """(T, dim) float64 from a flattened float feature; T is fixed by the first call."""
        v = self._get(key)
        if not isinstance(v, np.ndarray) or v.dtype != np.float32:
            raise self.error("expected a float list", key=key)
        if v.size % dim:
            raise self.error(f"{v.size} values is not a multiple of the per-step size {dim}",
                             key=key)
        n = v.size // dim
        if self.T is None:
            self.T = n
        elif n != self.T:
            raise self.error(f"has {n} steps of size {dim} ({v.size} values), "
                             f"expected {self.T} steps", key=key)
        return v.reshape(n, dim).astype(np.float64)

    def ints(self, key: str, dim: int = 1) -> np.ndarray:
        v = self._get(key)
        if not isinstance(v, np.ndarray) or v.dtype != np.int64:
            raise self.error("expected an int64 list", key=key)
        if self.T is not None and v.size != self.T * dim:
            raise self.error(f"has {v.size} values, expected {self.T * dim}", key=key)
        return v.reshape(-1, dim) if dim > 1 else v

    def texts(self, key: str) -> List[str]:
        v = self._get(key)
        if not isinstance(v, list):
            raise self.error("expected a bytes list", key=key)
        if self.T is not None and len(v) != self.T:
            raise self.error(f"has {len(v)} strings, expected {self.T}", key=key)
        try:
            return [b.decode("utf-8") for b in v]
        except UnicodeDecodeError as e:
            raise self.error(f"not valid UTF-8 text: {e}", key=key) from None

    def scalar_text(self, key: str, default: str = "") -> str:
        v = self.features.get(key)
        if isinstance(v, list) and v:
            return v[0].decode("utf-8", errors="replace")
        return default

    def scalar_int(self, key: str) -> Optional[int]:
        v = self.features.get(key)
        if isinstance(v, np.ndarray) and v.size:
            return int(v.reshape(-1)[0])
        return None


def first_instruction(texts: Sequence[str]) -> str:
    """The episode's instruction: the first non-empty per-step string ('' if none)."""
    for t in texts:
        if t.strip():
            return t
    return ""
