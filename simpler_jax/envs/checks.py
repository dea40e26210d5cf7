"""Input checks at the boundary (outside jit), with errors that name the bad value."""

from __future__ import annotations

import jax
import numpy as np

from simpler_jax.envs.params import Params

ACTION_DTYPES = (np.float32, np.float64)


def check_action(action, num_worlds: int | None, action_size: int = 7) -> np.ndarray:
    """Validate a (num_worlds, 7) (or (7,) when num_worlds is None) float action."""
    arr = np.asarray(action)
    expected = (action_size,) if num_worlds is None else (num_worlds, action_size)
    if arr.dtype.type not in ACTION_DTYPES:
        raise TypeError(
            f"action dtype {arr.dtype} is not allowed; use float32 or float64 "
            "([dx, dy, dz, rx, ry, rz, gripper])"
        )
    if arr.shape != expected:
        raise ValueError(
            f"action shape {arr.shape} is wrong; expected {expected} "
            "(worlds x [dx, dy, dz, rx, ry, rz, gripper])"
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.argwhere(bad)[:5].tolist()
        raise ValueError(f"action has non-finite values (NaN/inf) at indices {where}; actions must be finite")
    return arr


def check_params(params: Params, reference: Params, num_worlds: int | None) -> None:
    """Every field must have the reference world's shape, with a leading world axis if batched."""
    if not isinstance(params, Params):
        raise TypeError(f"params must be simpler_jax.envs.Params, got {type(params).__name__}")
    for field in Params.__dataclass_fields__:
        got = np.shape(getattr(params, field))
        ref = np.shape(getattr(reference, field))
        expected = ref if num_worlds is None else (num_worlds,) + ref
        if got != expected:
            raise ValueError(f"params.{field} has shape {got}; expected {expected}")
        value = np.asarray(getattr(params, field))
        if not np.all(np.isfinite(value)):
            raise ValueError(f"params.{field} has non-finite values")


def check_keys(keys, num_worlds: int) -> None:
    shape = np.shape(keys)
    if jax.dtypes.issubdtype(getattr(keys, "dtype", None), jax.dtypes.prng_key):
        ok = shape == (num_worlds,)
    else:
        ok = shape == (num_worlds, 2)
    if not ok:
        raise ValueError(
            f"keys shape {shape} is wrong; expected one PRNG key per world ({num_worlds} worlds), "
            "e.g. jax.random.split(key, num_worlds)"
        )
