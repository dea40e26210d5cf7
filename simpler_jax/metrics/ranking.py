"""Sim-vs-real ranking metrics: MMRV and Pearson correlation.

Both follow `SE:simpler_env/utils/metrics.py` exactly (see SIMPLER_SPEC.md §9.1),
including its edge cases. Inputs are per-policy success rates, aligned by policy
(use `simpler_jax.metrics.paper_tables.aligned` to get aligned vectors).

Argument order here is ``(real, sim)`` for both functions. The original
`mean_maximum_rank_violation(perf_sim, perf_real)` takes sim first; its README
snippet swaps them (a documentation bug, SPEC §12.10). MMRV is **not**
symmetric, so pass ``real=`` and ``sim=`` by keyword when in doubt.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from simpler_jax.metrics._checks import rate_vector, same_length

# Added to the Pearson denominator by the original code; it makes a perfect
# correlation of small values come out slightly below 1 (e.g. 0.999997).
PEARSON_EPS = 1e-8


def _aligned_pair(real: Sequence[float], sim: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    r = rate_vector(real, "real")
    s = rate_vector(sim, "sim")
    same_length(r, "real", s, "sim")
    return r, s


def mmrv(real: Sequence[float], sim: Sequence[float]) -> float:
    """Mean Maximum Rank Violation of `sim` against `real` (lower is better).

    Args:
      real: (N,) real-robot success rates, one per policy.
      sim:  (N,) simulated success rates for the same policies, same order.

    Returns:
      MMRV = (1/N) Σ_i max_j |real_i − real_j| · 1[(sim_i > sim_j) ≠ (real_i > real_j)],
      with max over an empty set = 0. Comparisons are strict, so a sim tie
      against distinct real values is a violation. The penalty uses the *real*
      gap, which makes MMRV asymmetric: ``mmrv(real=a, sim=b) != mmrv(real=b, sim=a)``
      in general.

    This equals the original's ``mean_maximum_rank_violation(perf_sim=sim,
    perf_real=real)``, the value `SE:tools/calc_metrics.py` prints.
    """
    r, s = _aligned_pair(real, sim)
    sim_gt = s[:, None] > s[None, :]
    real_gt = r[:, None] > r[None, :]
    gap = np.abs(r[:, None] - r[None, :])
    worst = np.where(sim_gt != real_gt, gap, 0.0).max(axis=1)  # j == i never violates
    return float(worst.mean())


def pearson(real: Sequence[float], sim: Sequence[float]) -> float:
    """Pearson correlation between `real` and `sim` as the original computes it.

    Args:
      real: (N,) real-robot success rates, one per policy.
      sim:  (N,) simulated success rates for the same policies, same order.

    Returns:
      1.0 if the centred vectors are exactly equal (this includes two constant
      vectors); otherwise Σ r'·s' / (sqrt(Σ r'² · Σ s'²) + 1e-8) with
      r' = real − mean(real), s' = sim − mean(sim). A constant vector against a
      varying one gives 0.0. The 1e-8 makes perfect correlation of small rates
      slightly less than 1 (scipy.stats.pearsonr would give exactly 1).
      Symmetric in its arguments.
    """
    r, s = _aligned_pair(real, sim)
    rc = r - r.mean()
    sc = s - s.mean()
    if np.all(sc == rc):
        return 1.0
    return float(np.sum(sc * rc) / (np.sqrt(np.sum(sc**2) * np.sum(rc**2)) + PEARSON_EPS))
