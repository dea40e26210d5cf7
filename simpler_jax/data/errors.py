"""Exception type shared by all loaders in :mod:`simpler_jax.data`."""

from __future__ import annotations

import os
from typing import Optional


class DataFormatError(ValueError):
    """A data file is corrupt, truncated, or does not match the expected schema.

    The message always names the file, and the record / episode index and the
    feature key when they are known; they are also kept as attributes.
    """

    def __init__(
        self,
        message: str,
        *,
        path: "Optional[str | os.PathLike[str]]" = None,
        record: Optional[int] = None,
        episode: Optional[int] = None,
        key: Optional[str] = None,
    ) -> None:
        self.path = None if path is None else os.fspath(path)
        self.record = record
        self.episode = episode
        self.key = key
        self.reason = message
        where = []
        if self.path is not None:
            where.append(self.path)
        if record is not None:
            where.append(f"record {record}")
        if episode is not None:
            where.append(f"episode {episode}")
        if key is not None:
            where.append(f"key {key!r}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)
