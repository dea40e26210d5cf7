"""Sim-vs-real evaluation metrics for SIMPLER (SIMPLER_SPEC.md §9).

Ranking (argument order is always ``(real, sim)``; MMRV is asymmetric):
  mmrv(real, sim), pearson(real, sim)
Statistics:
  kruskal_per_checkpoint(real, sim, n_trials), kruskal_wallis(*groups),
  construct_trial_results(rates, n_trials), wilson_interval(k, n),
  bootstrap_ci(outcomes, seed=...), trials_per_policy(p_a, p_b),
  trials_per_policy_for_difference(d)
Reference data:
  paper_tables.REAL_PERF, paper_tables.SIMPLER_VISUAL_MATCHING_PERF, ...,
  aligned(task), aligned_mean(tasks)
"""

from simpler_jax.metrics import paper_tables
from simpler_jax.metrics.paper_tables import AlignedRates, aligned, aligned_mean
from simpler_jax.metrics.ranking import mmrv, pearson
from simpler_jax.metrics.stats import (
    KruskalResult,
    bootstrap_ci,
    construct_trial_results,
    kruskal_per_checkpoint,
    kruskal_wallis,
    trials_per_policy,
    trials_per_policy_for_difference,
    wilson_interval,
)

__all__ = [
    "AlignedRates",
    "KruskalResult",
    "aligned",
    "aligned_mean",
    "bootstrap_ci",
    "construct_trial_results",
    "kruskal_per_checkpoint",
    "kruskal_wallis",
    "mmrv",
    "paper_tables",
    "pearson",
    "trials_per_policy",
    "trials_per_policy_for_difference",
    "wilson_interval",
]
