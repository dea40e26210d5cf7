"""SysID search boxes and the [0, 1] parameterisation of the original (SIMPLER_SPEC.md §10.3).

A candidate is x in [0, 1]^(2n): stiffness K = K_lo + (K_hi - K_lo) x[:n] and damping
D = D_lo + (D_hi - D_lo) x[n:], for the n joints SysID fits (the 7 Google arm joints,
the 6 WidowX arm joints).
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True)
class SearchBox:
    """Per-joint bounds of stiffness and damping, each (n,) float64."""

    k_lo: np.ndarray
    k_hi: np.ndarray
    d_lo: np.ndarray
    d_hi: np.ndarray

    def __post_init__(self):
        for name in ("k_lo", "k_hi", "d_lo", "d_hi"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), np.float64))
        n = self.k_lo.shape
        if not (self.k_hi.shape == self.d_lo.shape == self.d_hi.shape == n) or len(n) != 1:
            raise ValueError(f"search box bounds must all be (n,), got shapes "
                             f"{[getattr(self, k).shape for k in ('k_lo', 'k_hi', 'd_lo', 'd_hi')]}")
        if np.any(self.k_hi <= self.k_lo) or np.any(self.d_hi <= self.d_lo):
            raise ValueError("search box upper bounds must exceed the lower bounds")
        if np.any(self.k_lo <= 0) or np.any(self.d_lo < 0):
            raise ValueError("stiffness bounds must be > 0 and damping bounds >= 0")

    @property
    def num_joints(self) -> int:
        return int(self.k_lo.shape[0])

    @property
    def lo(self) -> np.ndarray:
        """(2n,) lower bounds of [K, D]."""
        return np.concatenate([self.k_lo, self.d_lo])

    @property
    def hi(self) -> np.ndarray:
        return np.concatenate([self.k_hi, self.d_hi])

    def to_gains(self, x):
        """x (..., 2n) in [0, 1] -> gains (..., 2n) = [K, D]."""
        lo, hi = jnp.asarray(self.lo, jnp.float32), jnp.asarray(self.hi, jnp.float32)
        return lo + (hi - lo) * x

    def to_unit(self, gains) -> np.ndarray:
        """gains (..., 2n) -> x (..., 2n) (not clipped)."""
        return (np.asarray(gains, np.float64) - self.lo) / (self.hi - self.lo)

    def shrunk(self, center: np.ndarray, fraction: float) -> "SearchBox":
        """A box `fraction` of this one's width, centred on `center` (2n,) gains.

        Bounds stay positive (stiffness >= 1% of this box's lower bound).
        """
        center = np.asarray(center, np.float64)
        half = 0.5 * fraction * (self.hi - self.lo)
        lo = center - half
        hi = center + half
        n = self.num_joints
        floor = np.concatenate([0.01 * self.k_lo, np.zeros(n)])
        shift = np.maximum(floor - lo, 0.0)
        return SearchBox(lo[:n] + shift[:n], hi[:n] + shift[:n], lo[n:] + shift[n:], hi[n:] + shift[n:])


@dataclasses.dataclass(frozen=True)
class SearchSpace:
    """The original's first-round box and initial point for one robot."""

    box: SearchBox
    k_init: np.ndarray
    d_init: np.ndarray

    @property
    def init_gains(self) -> np.ndarray:
        return np.concatenate([np.asarray(self.k_init, np.float64), np.asarray(self.d_init, np.float64)])


SEARCH_SPACES = {
    "google_robot": SearchSpace(
        SearchBox(
            k_lo=[1400, 1400, 900, 900, 900, 380, 380],
            k_hi=[2000, 2000, 1300, 1300, 1300, 600, 600],
            d_lo=[700, 700, 580, 580, 580, 200, 200],
            d_hi=[1200, 1200, 850, 850, 850, 350, 360],
        ),
        k_init=np.array([1700, 1700, 1100, 1000, 1100, 500, 500], np.float64),
        d_init=np.array([950, 950, 700, 700, 700, 300, 300], np.float64),
    ),
    "widowx": SearchSpace(
        SearchBox(
            k_lo=[600] * 6,
            k_hi=[1400] * 6,
            d_lo=[150, 130, 100, 100, 100, 100],
            d_hi=[500, 400, 400, 400, 400, 400],
        ),
        k_init=np.array([1000] * 6, np.float64),
        d_init=np.array([300, 250, 200, 200, 200, 200], np.float64),
    ),
}
"""First-round search boxes and initial values, SIMPLER_SPEC.md §10.3."""

ROUND_FRACTIONS = (1.0, 0.5, 0.15)
"""Box width of each annealing round relative to the first box.

The original shrank its box by hand between rounds (§10.3's commented blocks): the
Google second-round widths are 0.45-0.75 of the first, the final round's 0.08-0.25;
0.5 and 0.15 are those schedules' middles.
"""


def search_space(robot: str) -> SearchSpace:
    if robot not in SEARCH_SPACES:
        raise ValueError(f"no SysID search space for robot {robot!r}; allowed: {sorted(SEARCH_SPACES)}")
    return SEARCH_SPACES[robot]
