"""Tests for simpler_jax.metrics against SIMPLER_SPEC.md §9 (fast, CPU only)."""

import math

import numpy as np
import pytest

from simpler_jax.metrics import (
    aligned,
    aligned_mean,
    bootstrap_ci,
    construct_trial_results,
    kruskal_per_checkpoint,
    kruskal_wallis,
    mmrv,
    pearson,
    trials_per_policy,
    trials_per_policy_for_difference,
    wilson_interval,
)
from simpler_jax.metrics import paper_tables as pt

# SPEC §9.3: task -> (MMRV(sim, real) as calc_metrics.py prints it, Pearson, MMRV with README-swapped args)
SPEC_PER_TASK = {
    "google_robot_pick_coke_can": (0.031333, 0.975434, 0.061833),
    "google_robot_move_near": (0.111000, 0.856097, 0.002667),
    "google_robot_open_drawer": (0.000000, 0.983166, 0.000000),
    "google_robot_close_drawer": (0.123333, 0.771233, 0.113333),
    "google_robot_place_apple_in_closed_top_drawer": (0.000000, 0.969172, 0.010833),
    "widowx_spoon_on_towel": (0.000000, 0.826944, 0.000000),
    "widowx_carrot_on_plate": (0.111333, 0.571368, 0.009333),
    "widowx_stack_cube": (0.000000, 0.999997, 0.000000),
    "widowx_put_eggplant_in_basket": (0.000000, 0.989415, 0.000000),
}
# The spec prints 6 decimals, so 1e-6 is the rounding bound (5e-7) plus float slack.
TOL = 1e-6


def test_spec_table_lists_every_task():
    assert set(SPEC_PER_TASK) == set(pt.TASKS)
    assert set(pt.REAL_PERF) == set(pt.SIMPLER_VISUAL_MATCHING_PERF) == set(pt.TASKS)


# ---------------------------------------------------------------------------
# MMRV and Pearson on the paper tables
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", list(SPEC_PER_TASK))
def test_mmrv_matches_spec(task):
    a = aligned(task)
    assert mmrv(real=a.real, sim=a.sim) == pytest.approx(SPEC_PER_TASK[task][0], abs=TOL)


@pytest.mark.parametrize("task", list(SPEC_PER_TASK))
def test_mmrv_readme_swapped_order_matches_spec(task):
    a = aligned(task)
    assert mmrv(real=a.sim, sim=a.real) == pytest.approx(SPEC_PER_TASK[task][2], abs=TOL)


@pytest.mark.parametrize("task", list(SPEC_PER_TASK))
def test_pearson_matches_spec(task):
    a = aligned(task)
    assert pearson(a.real, a.sim) == pytest.approx(SPEC_PER_TASK[task][1], abs=TOL)
    assert pearson(a.sim, a.real) == pearson(a.real, a.sim)


def test_mmrv_is_asymmetric_on_paper_data():
    a = aligned("google_robot_move_near")
    assert mmrv(a.real, a.sim) == pytest.approx(0.111, abs=TOL)
    assert mmrv(a.sim, a.real) == pytest.approx(0.002667, abs=TOL)


def test_pearson_epsilon_keeps_perfect_small_correlation_below_one():
    scipy_stats = pytest.importorskip("scipy.stats")
    a = aligned("widowx_stack_cube")  # real [0, 0, .125], sim [0, 0, .042]
    ours = pearson(a.real, a.sim)
    assert scipy_stats.pearsonr(a.real, a.sim)[0] == pytest.approx(1.0, abs=1e-12)
    assert 0.999996 < ours < 0.999998


@pytest.mark.parametrize("task", [t for t in pt.TASKS if t != "widowx_stack_cube"])
def test_pearson_agrees_with_scipy_up_to_epsilon(task):
    scipy_stats = pytest.importorskip("scipy.stats")
    a = aligned(task)
    assert pearson(a.real, a.sim) == pytest.approx(scipy_stats.pearsonr(a.real, a.sim)[0], abs=1e-5)


def test_aggregates_match_spec():
    google = [aligned(t) for t in pt.GOOGLE_TASKS]
    bridge = [aligned(t) for t in pt.BRIDGE_TASKS]
    assert np.mean([mmrv(a.real, a.sim) for a in google]) == pytest.approx(0.053133, abs=TOL)
    assert np.mean([pearson(a.real, a.sim) for a in google]) == pytest.approx(0.911020, abs=TOL)
    assert np.mean([mmrv(a.real, a.sim) for a in bridge]) == pytest.approx(0.027833, abs=TOL)
    assert np.mean([pearson(a.real, a.sim) for a in bridge]) == pytest.approx(0.846931, abs=TOL)

    g = aligned_mean(pt.GOOGLE_TASKS)
    assert mmrv(g.real, g.sim) == 0.0
    assert pearson(g.real, g.sim) == pytest.approx(0.973627, abs=TOL)
    b = aligned_mean(pt.BRIDGE_TASKS)
    assert mmrv(b.real, b.sim) == 0.0
    assert pearson(b.real, b.sim) == pytest.approx(0.949835, abs=TOL)
    d = aligned_mean(["google_robot_open_drawer", "google_robot_close_drawer"])
    assert mmrv(d.real, d.sim) == pytest.approx(0.0555, abs=TOL)
    assert pearson(d.real, d.sim) == pytest.approx(0.915923, abs=TOL)


def test_per_policy_google_means_match_spec():
    spec = {  # policy: (sim, real), SPEC §9.3
        "rt-2-x": (0.4206, 0.5354),
        "rt-1-converged": (0.5652, 0.6824),
        "rt-1-15pct": (0.4648, 0.6562),
        "rt-1-x": (0.4568, 0.5754),
        "rt-1-begin": (0.0710, 0.0300),
        "octo-base": (0.1330, 0.2620),
    }
    g = aligned_mean(pt.GOOGLE_TASKS)
    assert g.policies == pt.GOOGLE_POLICIES
    for p, sim, real in zip(g.policies, g.sim, g.real):
        assert (sim, real) == pytest.approx(spec[p], abs=5e-5)


# ---------------------------------------------------------------------------
# MMRV / Pearson definitions and edge cases
# ---------------------------------------------------------------------------


def _mmrv_loop(real, sim):
    """Direct double loop over the §9.1 formula, independent of the vectorised code."""
    total = 0.0
    for i in range(len(real)):
        worst = 0.0
        for j in range(len(real)):
            if (sim[i] > sim[j]) != (real[i] > real[j]):
                worst = max(worst, abs(real[i] - real[j]))
        total += worst
    return total / len(real)


@pytest.mark.parametrize("seed", range(5))
def test_mmrv_matches_direct_loop_with_ties(seed):
    rng = np.random.default_rng(seed)
    real = np.round(rng.uniform(size=8), 1)  # rounding forces ties
    sim = np.round(rng.uniform(size=8), 1)
    expected = _mmrv_loop(real, sim)
    assert mmrv(real, sim) == pytest.approx(expected, abs=1e-12)


def test_mmrv_sim_ties_are_violations():
    # SPEC §9.1 example: sim all tied, real distinct -> 0.4.
    assert mmrv(real=[0.1, 0.5, 0.9], sim=[0.5, 0.5, 0.5]) == pytest.approx(0.4, abs=1e-12)
    # Swapped: the penalty uses the (now constant) real gaps, so it is 0.
    assert mmrv(real=[0.5, 0.5, 0.5], sim=[0.1, 0.5, 0.9]) == 0.0


def test_mmrv_perfect_and_reversed_ranking():
    real = [0.1, 0.4, 0.8]
    assert mmrv(real, [0.2, 0.3, 0.9]) == 0.0
    # Reversed: worst gaps are 0.7, 0.4, 0.7 -> mean 0.6.
    assert mmrv(real, [0.9, 0.3, 0.2]) == pytest.approx(0.6, abs=1e-12)


def test_pearson_edge_cases():
    assert pearson([0.2, 0.2, 0.2], [0.1, 0.5, 0.9]) == 0.0  # constant vs varying
    assert pearson([0.3, 0.3], [0.7, 0.7]) == 1.0  # both constant: centred vectors equal
    assert pearson([0.25, 0.75], [0.0, 0.5]) == 1.0  # equal after centring: exact 1
    assert pearson([0.1, 0.5, 0.9], [0.9, 0.5, 0.1]) == pytest.approx(-1.0, abs=1e-7)
    assert pearson([0.4], [0.9]) == 1.0
    assert mmrv([0.4], [0.9]) == 0.0


# ---------------------------------------------------------------------------
# Kruskal–Wallis
# ---------------------------------------------------------------------------

SPEC_KRUSKAL_MOVE_NEAR = {  # checkpoint: (H, p), SPEC §9.3, n = 60
    "rt-2-x": (0.406, 0.524),
    "rt-1-converged": (4.028, 0.0448),
    "rt-1-15pct": (6.508, 0.0107),
    "rt-1-x": (2.237, 0.135),
    "rt-1-begin": (1.026, 0.311),
    "octo-base": (16.73, 4.3e-5),
}


def test_kruskal_move_near_matches_spec():
    a = aligned("google_robot_move_near")
    results = kruskal_per_checkpoint(a.real, a.sim, pt.REAL_TRIALS_PER_TASK["google_robot_move_near"])
    assert len(results) == len(a.policies) == len(SPEC_KRUSKAL_MOVE_NEAR)
    for policy, res in zip(a.policies, results):
        h, p = SPEC_KRUSKAL_MOVE_NEAR[policy]
        assert res.statistic == pytest.approx(h, rel=2e-3), policy
        assert res.pvalue == pytest.approx(p, rel=1e-2), policy


@pytest.mark.parametrize("n_groups", [2, 3, 4, 5])
def test_kruskal_wallis_matches_scipy(n_groups):
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(n_groups)
    groups = [rng.integers(0, 4, size=rng.integers(3, 12)).astype(float) for _ in range(n_groups)]
    ours = kruskal_wallis(*groups)
    ref = scipy_stats.kruskal(*groups)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-14)


def test_kruskal_identical_vectors_give_p_one():
    # Both rates round to 0 of 27 trials: every value equal, where scipy fails.
    res = kruskal_per_checkpoint([0.0, 0.5], [0.01, 0.5], 27)
    assert [tuple(r) for r in res] == [(0.0, 1.0), (0.0, 1.0)]
    with pytest.raises(ValueError, match="identical"):
        kruskal_wallis([0, 0, 0], [0, 0])


def test_construct_trial_results_rounds_half_to_even_and_orders_ones_first():
    trials = construct_trial_results([0.25, 0.35, 1.0, 0.0], 10)  # 2.5 -> 2, 3.5 -> 4
    assert trials.shape == (4, 10)
    assert trials.sum(axis=1).tolist() == [2, 4, 10, 0]
    assert trials[1].tolist() == [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]


def test_construct_trial_results_nan_policy():
    with pytest.raises(ValueError, match=r"success_rates\[1\] is nan"):
        construct_trial_results([0.5, float("nan")], 4)
    assert construct_trial_results([0.5, float("nan")], 4, nan_as_zero=True).sum(axis=1).tolist() == [2, 0]


# ---------------------------------------------------------------------------
# Confidence intervals
# ---------------------------------------------------------------------------

Z95 = 1.959963984540054


def test_wilson_hand_values():
    # 5/10: centre 0.5; half = z/(1+z²/10) * sqrt(0.025 + z²/400) = 0.2634069...
    assert wilson_interval(5, 10) == pytest.approx((0.2365931, 0.7634069), abs=1e-7)
    # 1/10: centre (0.1 + z²/20)/(1 + z²/10) = 0.2109831..., half = 0.1931069...
    assert wilson_interval(1, 10) == pytest.approx((0.0178762, 0.4041500), abs=1e-7)
    # 0/n: [0, z²/(n + z²)]; n/n mirrors it.
    hi = Z95**2 / (10 + Z95**2)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(hi, abs=1e-12))
    assert hi == pytest.approx(0.2775328, abs=1e-7)
    assert wilson_interval(10, 10) == (pytest.approx(1 - hi, abs=1e-12), 1.0)


def test_wilson_level_and_sample_size_behave():
    lo95, hi95 = wilson_interval(30, 60)
    lo99, hi99 = wilson_interval(30, 60, confidence=0.99)
    assert lo99 < lo95 < 0.5 < hi95 < hi99
    lo_big, hi_big = wilson_interval(300, 600)
    assert hi_big - lo_big < hi95 - lo95


def test_bootstrap_is_deterministic_given_seed():
    outcomes = [1] * 17 + [0] * 13
    first = bootstrap_ci(outcomes, n_resamples=2000, seed=7)
    assert bootstrap_ci(outcomes, n_resamples=2000, seed=7) == first
    lo, hi = first
    assert lo < 17 / 30 < hi
    # Per-variant rates (not 0/1) make the resampled means near-continuous,
    # so a different seed moves the interval.
    rates = np.random.default_rng(0).uniform(size=9)
    a = bootstrap_ci(rates, n_resamples=500, seed=1)
    assert bootstrap_ci(rates, n_resamples=500, seed=1) == a
    assert bootstrap_ci(rates, n_resamples=500, seed=2) != a


def test_bootstrap_agrees_with_normal_approximation_for_large_n():
    outcomes = np.array([1] * 300 + [0] * 300)
    lo, hi = bootstrap_ci(outcomes, n_resamples=4000, seed=0)
    half = Z95 * math.sqrt(0.25 / 600)  # 0.0400
    assert lo == pytest.approx(0.5 - half, abs=0.006)
    assert hi == pytest.approx(0.5 + half, abs=0.006)


def test_bootstrap_of_constant_outcomes_is_a_point():
    assert bootstrap_ci([1, 1, 1, 1], n_resamples=50, seed=3) == (1.0, 1.0)


# ---------------------------------------------------------------------------
# Trial counts
# ---------------------------------------------------------------------------


def test_trials_hand_value():
    # p̄ = .55: (1.959964*sqrt(2*.2475) + 0.841621*sqrt(.25 + .24))² / .01 = 387.34 -> 388
    assert trials_per_policy(0.5, 0.6) == 388
    assert trials_per_policy(0.6, 0.5) == 388
    assert trials_per_policy_for_difference(0.1) == trials_per_policy(0.45, 0.55) == 392


@pytest.mark.parametrize("baseline", [0.0, 0.1, 0.3, 0.5])
def test_trials_decrease_as_difference_grows(baseline):
    diffs = np.arange(0.05, 1.0 - baseline + 1e-9, 0.05)
    counts = [trials_per_policy(baseline, min(1.0, baseline + d)) for d in diffs]
    assert all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[0] > 4 * counts[-1]


def test_trials_worst_case_and_settings():
    d = 0.2
    worst = trials_per_policy_for_difference(d)
    for p in np.linspace(0.0, 0.8, 17):
        assert trials_per_policy(p, p + d) <= worst
    assert trials_per_policy(0.5, 0.7, power=0.9) > trials_per_policy(0.5, 0.7, power=0.8)
    assert trials_per_policy(0.5, 0.7, confidence=0.99) > trials_per_policy(0.5, 0.7)
    assert trials_per_policy(0.5, 0.7, two_sided=False) < trials_per_policy(0.5, 0.7)


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


def test_table_shapes_and_ranges():
    for table in (pt.REAL_PERF, pt.SIMPLER_VISUAL_MATCHING_PERF):
        for task in pt.GOOGLE_TASKS:
            assert tuple(table[task]) == pt.GOOGLE_POLICIES
        for task in pt.BRIDGE_TASKS:
            assert tuple(table[task]) == pt.BRIDGE_POLICIES
        assert all(0.0 <= v <= 1.0 for row in table.values() for v in row.values())
    assert set(pt.REAL_BRIDGE_GRASP) == set(pt.BRIDGE_TASKS)
    assert set(pt.REAL_TRIALS_PER_TASK) == set(pt.TASKS)


def test_coke_can_orientations_average_to_real_perf():
    for policy in pt.GOOGLE_POLICIES:
        mean = np.mean([pt.REAL_COKE_CAN_BY_ORIENTATION[o][policy] for o in ("horizontal", "vertical", "standing")])
        assert mean == pytest.approx(pt.REAL_PERF["google_robot_pick_coke_can"][policy], abs=5e-4)


def test_grasp_is_at_least_success_on_bridge():
    for task in pt.BRIDGE_TASKS:
        for policy, grasp in pt.REAL_BRIDGE_GRASP[task].items():
            assert grasp >= pt.REAL_PERF[task][policy]


def test_variant_agg_partials_are_consistent():
    for urdf, orient in pt.VARIANT_AGG_OCTO_BASE_COKE_CAN_BY_ORIENTATION.items():
        assert np.mean(list(orient.values())) == pytest.approx(
            pt.VARIANT_AGG_OCTO_BASE[urdf]["google_robot_pick_coke_can"], abs=5e-4
        )
        row = pt.VARIANT_AGG_OCTO_BASE[urdf]
        assert (row["google_robot_open_drawer"] + row["google_robot_close_drawer"]) / 2 == pytest.approx(
            row["google_robot_drawer"], abs=5e-4
        )


def test_aligned_returns_fresh_arrays():
    a = aligned("google_robot_pick_coke_can")
    a.real[:] = 0.0
    assert aligned("google_robot_pick_coke_can").real[0] == 0.907


# ---------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mmrv([0.1, 0.2], [0.1, 0.2, 0.3]), "real has 2 values but sim has 3"),
        (lambda: pearson([], []), "real is empty"),
        (lambda: mmrv([0.1, float("nan")], [0.1, 0.2]), r"real\[1\] is nan"),
        (lambda: pearson([0.1, 0.2], [0.1, 1.5]), r"sim\[1\] = 1.5 is outside \[0, 1\]"),
        (lambda: mmrv([-0.1, 0.2], [0.1, 0.2]), r"real\[0\] = -0.1 is outside \[0, 1\]"),
        (lambda: mmrv([[0.1, 0.2]], [[0.1, 0.2]]), r"real has shape \(1, 2\)"),
        (lambda: pearson(["a", "b"], [0.1, 0.2]), "real = .* is not a sequence of numbers"),
        (lambda: kruskal_per_checkpoint([0.1], [0.1, 0.2], 10), "real has 1 values but sim has 2"),
        (lambda: kruskal_per_checkpoint([0.1], [0.2], 0), "n_trials = 0 is too small"),
        (lambda: kruskal_wallis([1, 2]), "needs at least 2"),
        (lambda: kruskal_wallis([1, 2], []), "group 1 has shape"),
        (lambda: kruskal_wallis([1, float("inf")], [1]), r"group 0\[1\] is inf"),
        (lambda: wilson_interval(11, 10), "successes = 11 exceeds trials = 10"),
        (lambda: wilson_interval(1, 0), "trials = 0 is too small"),
        (lambda: wilson_interval(1.5, 10), "successes = 1.5 is not an integer"),
        (lambda: wilson_interval(1, 10, confidence=1.0), r"confidence = 1.0 is outside \(0, 1\)"),
        (lambda: bootstrap_ci([]), "outcomes is empty"),
        (lambda: bootstrap_ci([0, 2]), r"outcomes\[1\] = 2.0 is outside \[0, 1\]"),
        (lambda: bootstrap_ci([0, 1], n_resamples=0), "n_resamples = 0 is too small"),
        (lambda: trials_per_policy(0.3, 0.3), "p_a = p_b = 0.3"),
        (lambda: trials_per_policy(0.3, 1.2), r"p_b = 1.2 is outside \[0, 1\]"),
        (lambda: trials_per_policy(0.3, float("nan")), "p_b is nan"),
        (lambda: trials_per_policy(0.3, 0.5, power=0.0), r"power = 0.0 is outside \(0, 1\)"),
        (lambda: trials_per_policy_for_difference(0.0), "difference = 0.0"),
        (lambda: aligned("google_robot_fly"), "task 'google_robot_fly' is not in real_table"),
        (lambda: aligned_mean([]), "tasks is empty"),
    ],
)
def test_bad_input_raises_value_error_naming_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()
