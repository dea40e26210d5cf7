"""Statistics for success rates: Kruskal–Wallis, confidence intervals, trial counts.

- `construct_trial_results` / `kruskal_per_checkpoint`: the sim-vs-real
  Kruskal–Wallis test of `SE:simpler_env/utils/metrics.py`
  (`construct_unordered_trial_results`, `print_all_kruskal_results`; SPEC §9.1).
- `kruskal_wallis`: the tie-corrected H test (same numbers as scipy.stats.kruskal),
  in numpy only, so scipy stays an optional test dependency.
- `wilson_interval`, `bootstrap_ci`: confidence intervals for one success rate.
- `trials_per_policy`: trials needed to tell two policies' success rates apart.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple, Sequence

import numpy as np

from simpler_jax.metrics._checks import count, probability, rate_vector, same_length


class KruskalResult(NamedTuple):
    statistic: float  # H, tie-corrected
    pvalue: float  # chi-square survival function at H with (groups - 1) dof


# ---------------------------------------------------------------------------
# Kruskal–Wallis
# ---------------------------------------------------------------------------


def _chi2_sf(x: float, dof: int) -> float:
    """P[X > x] for X ~ chi-square(dof), from the exact finite-sum forms."""
    if x <= 0.0:
        return 1.0
    half = 0.5 * x
    if dof % 2 == 0:  # exp(-x/2) Σ_{i<dof/2} (x/2)^i / i!
        term = math.exp(-half)
        total = term
        for i in range(1, dof // 2):
            term *= half / i
            total += term
    else:  # erfc(sqrt(x/2)) + sqrt(2x/π) e^{-x/2} Σ_{i=1}^{(dof-1)/2} x^{i-1} / (1·3···(2i-1))
        total = math.erfc(math.sqrt(half))
        term = math.sqrt(2.0 * x / math.pi) * math.exp(-half)
        for i in range(1, (dof - 1) // 2 + 1):
            total += term
            term *= x / (2 * i + 1)
    return min(1.0, max(0.0, total))


def _average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks with ties averaged, and the size of each tie group."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    cuts = np.flatnonzero(np.diff(xs)) + 1
    starts = np.concatenate(([0], cuts))
    ends = np.concatenate((cuts, [x.size]))
    ranks = np.empty(x.size, dtype=np.float64)
    ranks[order] = np.repeat((starts + 1 + ends) / 2.0, ends - starts)
    return ranks, ends - starts


def kruskal_wallis(*groups: Sequence[float]) -> KruskalResult:
    """Kruskal–Wallis H test with tie correction (matches scipy.stats.kruskal).

    Args:
      *groups: two or more 1-D samples of finite numbers, each non-empty.

    Returns:
      KruskalResult(statistic=H, pvalue). H = [12/(N(N+1)) Σ R_g²/n_g − 3(N+1)] / C
      with C = 1 − Σ(t³ − t)/(N³ − N) over tie groups t; p from chi-square with
      len(groups) − 1 degrees of freedom.

    Raises:
      ValueError: fewer than two groups, an empty or non-1-D group, a NaN/inf
        value, or all values identical (H undefined; scipy raises too).
    """
    if len(groups) < 2:
        raise ValueError(f"got {len(groups)} group(s); Kruskal–Wallis needs at least 2")
    arrays = []
    for g, values in enumerate(groups):
        try:
            a = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"group {g} = {values!r} is not a sequence of numbers") from err
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"group {g} has shape {a.shape}; each group must be a non-empty 1-D sample")
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            raise ValueError(f"group {g}[{bad[0]}] is {a[bad[0]]}; values must be finite")
        arrays.append(a)
    x = np.concatenate(arrays)
    n_total = x.size
    ranks, ties = _average_ranks(x)
    correction = 1.0 - float(np.sum(ties.astype(np.float64) ** 3 - ties)) / (n_total**3 - n_total)
    if correction <= 0.0:
        raise ValueError(f"all {n_total} values are identical ({x[0]}); the Kruskal–Wallis H is undefined")
    bounds = np.cumsum([0] + [a.size for a in arrays])
    rank_term = sum(
        float(ranks[lo:hi].sum()) ** 2 / (hi - lo) for lo, hi in zip(bounds[:-1], bounds[1:])
    )
    h = (12.0 / (n_total * (n_total + 1)) * rank_term - 3.0 * (n_total + 1)) / correction
    return KruskalResult(statistic=float(h), pvalue=_chi2_sf(h, len(arrays) - 1))


def construct_trial_results(
    success_rates: Sequence[float], n_trials: int, *, nan_as_zero: bool = False
) -> np.ndarray:
    """Per-checkpoint 0/1 trial vectors, as `construct_unordered_trial_results`.

    Args:
      success_rates: (C,) success rates, one per checkpoint, in [0, 1].
      n_trials: trials per checkpoint (the real-robot trial count of the task).
      nan_as_zero: the original turns NaN rates (missing checkpoints) into 0;
        set True to do the same, otherwise NaN raises ValueError.

    Returns:
      (C, n_trials) int array; row c has round(n_trials · rate_c) ones followed by
      zeros. Rounding is numpy's half-to-even, as in the original.
    """
    n = count(n_trials, "n_trials", minimum=1)
    rates = success_rates
    if nan_as_zero:
        try:
            arr = np.asarray(success_rates, dtype=np.float64)
            rates = np.where(np.isnan(arr), 0.0, arr)
        except (TypeError, ValueError):
            pass  # rate_vector below reports what is wrong
    r = rate_vector(rates, "success_rates")
    ones = np.round(n * r).astype(np.int64)
    return (np.arange(n)[None, :] < ones[:, None]).astype(np.int64)


def kruskal_per_checkpoint(
    real: Sequence[float], sim: Sequence[float], n_trials: int, *, nan_as_zero: bool = False
) -> list[KruskalResult]:
    """Sim-vs-real Kruskal–Wallis test per checkpoint, as `print_all_kruskal_results`.

    Args:
      real: (C,) real success rates, one per checkpoint (policy).
      sim:  (C,) sim success rates, same checkpoints, same order.
      n_trials: trials per checkpoint used to rebuild both 0/1 vectors
        (SPEC §9.1; `paper_tables.REAL_TRIALS_PER_TASK`).
      nan_as_zero: treat NaN rates as 0 like the original (default: raise).

    Returns:
      One KruskalResult per checkpoint, from kruskal_wallis(sim_trials, real_trials).
      When the two trial vectors are identical the original prints p = 1.0 (a
      workaround for scipy failing when every value is equal); this returns
      KruskalResult(0.0, 1.0) there. A small p means sim and real success
      differ significantly for that checkpoint.
    """
    r = construct_trial_results(real, n_trials, nan_as_zero=nan_as_zero)
    s = construct_trial_results(sim, n_trials, nan_as_zero=nan_as_zero)
    same_length(r[:, 0], "real", s[:, 0], "sim")
    out = []
    for sim_c, real_c in zip(s, r):
        if np.array_equal(sim_c, real_c):
            out.append(KruskalResult(0.0, 1.0))
        else:
            out.append(kruskal_wallis(sim_c, real_c))
    return out


# ---------------------------------------------------------------------------
# Confidence intervals
# ---------------------------------------------------------------------------


def _z(two_sided_level: float) -> float:
    """Standard-normal quantile z with P[|Z| < z] = two_sided_level."""
    return NormalDist().inv_cdf(0.5 + 0.5 * two_sided_level)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a success rate of `successes` out of `trials`.

    Returns:
      (low, high) with centre (p̂ + z²/2n)/(1 + z²/n) and half-width
      z/(1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²), z the two-sided normal quantile
      of `confidence`. Stays inside [0, 1]; low = 0 at k = 0, high = 1 at k = n.
    """
    n = count(trials, "trials", minimum=1)
    k = count(successes, "successes", minimum=0)
    if k > n:
        raise ValueError(f"successes = {k} exceeds trials = {n}; expected 0 <= successes <= trials")
    z = _z(probability(confidence, "confidence", open_interval=True))
    p = k / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def bootstrap_ci(
    outcomes: Sequence[float],
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean success of `outcomes`.

    Args:
      outcomes: (n,) per-episode successes (0/1) or per-variant rates, in [0, 1].
      confidence: two-sided level, in (0, 1).
      n_resamples: bootstrap resamples (with replacement, size n each).
      seed: seed of the numpy Generator (`np.random.default_rng(seed)`); the
        same inputs and seed always give the same interval.

    Returns:
      (low, high): the (1 − confidence)/2 and (1 + confidence)/2 quantiles
      (numpy's linear interpolation) of the resampled means.
    """
    x = rate_vector(outcomes, "outcomes")
    level = probability(confidence, "confidence", open_interval=True)
    resamples = count(n_resamples, "n_resamples", minimum=1)
    rng = np.random.default_rng(count(seed, "seed", minimum=0))
    n = x.size
    chunk = max(1, (1 << 22) // n)  # bound memory at ~4M indices per draw
    means = np.empty(resamples, dtype=np.float64)
    for lo in range(0, resamples, chunk):
        hi = min(resamples, lo + chunk)
        means[lo:hi] = x[rng.integers(0, n, size=(hi - lo, n))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


# ---------------------------------------------------------------------------
# Trial counts
# ---------------------------------------------------------------------------


def trials_per_policy(
    p_a: float, p_b: float, confidence: float = 0.95, power: float = 0.8, two_sided: bool = True
) -> int:
    """Trials per policy to resolve success rates `p_a` vs `p_b`.

    Method: normal approximation for comparing two independent proportions with
    equal group sizes (no continuity correction):

      n = ceil( [z_α · sqrt(2 p̄(1 − p̄)) + z_β · sqrt(p_a(1 − p_a) + p_b(1 − p_b))]² / (p_a − p_b)² )

    with p̄ = (p_a + p_b)/2, α = 1 − confidence, z_α the normal quantile at
    1 − α/2 (two-sided) or 1 − α (one-sided), and z_β at `power`.
    Example: 0.5 vs 0.6 at 95 % / 80 % power needs 388 trials per policy.

    Raises:
      ValueError: rates outside [0, 1], p_a == p_b, or confidence/power not in (0, 1).
    """
    a = probability(p_a, "p_a")
    b = probability(p_b, "p_b")
    if a == b:
        raise ValueError(f"p_a = p_b = {a}; the success rates must differ to be resolvable")
    level = probability(confidence, "confidence", open_interval=True)
    beta_level = probability(power, "power", open_interval=True)
    alpha = 1.0 - level
    z_alpha = NormalDist().inv_cdf(1.0 - alpha / 2.0 if two_sided else 1.0 - alpha)
    z_beta = NormalDist().inv_cdf(beta_level)
    p_bar = (a + b) / 2.0
    root = z_alpha * math.sqrt(2.0 * p_bar * (1.0 - p_bar)) + z_beta * math.sqrt(
        a * (1.0 - a) + b * (1.0 - b)
    )
    # The 1e-9 keeps an exactly integral n from rounding up through float noise.
    return max(1, math.ceil(root * root / (a - b) ** 2 - 1e-9))


def trials_per_policy_for_difference(
    difference: float, confidence: float = 0.95, power: float = 0.8, two_sided: bool = True
) -> int:
    """Worst-case `trials_per_policy` for a success-rate gap of `difference`.

    Both variance terms peak when the two rates straddle 0.5, so this is
    trials_per_policy(0.5 − difference/2, 0.5 + difference/2, ...), an upper
    bound over all baselines for the same gap. `difference` must be in (0, 1].
    """
    d = probability(difference, "difference")
    if d == 0.0:
        raise ValueError("difference = 0.0; it must be in (0, 1] to be resolvable")
    return trials_per_policy(0.5 - d / 2.0, 0.5 + d / 2.0, confidence, power, two_sided)
