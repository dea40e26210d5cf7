"""Input checks shared by the metrics module: every bad input raises ValueError."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def rate_vector(values: Any, name: str) -> np.ndarray:
    """`values` as a float64 vector of success rates: 1-D, non-empty, finite, in [0, 1]."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"{name} = {values!r} is not a sequence of numbers; expected success rates in [0, 1]"
        ) from err
    if arr.ndim != 1:
        raise ValueError(
            f"{name} has shape {arr.shape}; expected a 1-D sequence of success rates (one per policy)"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty; expected at least one success rate")
    for i, v in enumerate(arr):
        if not math.isfinite(v):
            raise ValueError(f"{name}[{i}] is {v}; success rates must be finite numbers in [0, 1]")
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name}[{i}] = {v} is outside [0, 1]; success rates must lie in [0, 1]")
    return arr


def same_length(a: np.ndarray, a_name: str, b: np.ndarray, b_name: str) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{a_name} has {a.size} values but {b_name} has {b.size}; "
            "both must list the same policies in the same order"
        )


def probability(value: Any, name: str, *, open_interval: bool = False) -> float:
    """A scalar in [0, 1] (or in (0, 1) with `open_interval`)."""
    try:
        v = float(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} = {value!r} is not a number") from err
    if not math.isfinite(v):
        raise ValueError(f"{name} is {v}; expected a finite number")
    if open_interval and not 0.0 < v < 1.0:
        raise ValueError(f"{name} = {v} is outside (0, 1); it must be strictly between 0 and 1")
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} = {v} is outside [0, 1]")
    return v


def count(value: Any, name: str, *, minimum: int) -> int:
    """An integer (bool excluded) that is >= `minimum`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} = {value!r} is not an integer; expected an integer >= {minimum}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} = {v} is too small; expected an integer >= {minimum}")
    return v
