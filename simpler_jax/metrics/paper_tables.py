"""The SIMPLER paper's success tables as plain Python data (SIMPLER_SPEC.md §9.2).

Every table is ``{task: {policy: success_rate}}``; a policy absent from a row
was not evaluated on that task ("—" in the spec). Rows list policies in the
order the original code uses (its dict order). Values are verbatim from
`SE:tools/calc_metrics.py` and `SE:tools/calc_metrics_evaluation_videos.py`.

Coverage:
- `REAL_PERF`: real-robot success, 5 Google tasks × 6 policies and
  4 Bridge tasks × 3 policies.
- `SIMPLER_VISUAL_MATCHING_PERF` (alias `SIMPLER_PERF`): SIMPLER sim success on
  the same grid. The code leaves it unlabelled; it matches visual matching.
- `REAL_COKE_CAN_BY_ORIENTATION`: real pick-coke-can success per orientation.
- `REAL_BRIDGE_GRASP`: real Bridge partial success ("grasped").
- Variant aggregation: the original repo holds **only octo-base** values, in
  a trailing comment (`VARIANT_AGG_OCTO_BASE*`), plus one community OpenVLA
  run (`VARIANT_AGG_OPENVLA_COKE_CAN_COMMUNITY`). The other policies'
  variant-aggregation numbers are not in the repo or the spec, so they are not here.

Don't mutate these dicts; `aligned` and `aligned_mean` return fresh arrays.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np

GOOGLE_POLICIES = ("rt-2-x", "rt-1-converged", "rt-1-15pct", "rt-1-x", "rt-1-begin", "octo-base")
BRIDGE_POLICIES = ("rt-1-x", "octo-base", "octo-small")

GOOGLE_TASKS = (
    "google_robot_pick_coke_can",
    "google_robot_move_near",
    "google_robot_open_drawer",
    "google_robot_close_drawer",
    "google_robot_place_apple_in_closed_top_drawer",
)
BRIDGE_TASKS = (
    "widowx_spoon_on_towel",
    "widowx_carrot_on_plate",
    "widowx_stack_cube",
    "widowx_put_eggplant_in_basket",
)
TASKS = GOOGLE_TASKS + BRIDGE_TASKS

Table = Mapping[str, Mapping[str, float]]


def _row(policies: Sequence[str], values: Sequence[float]) -> dict[str, float]:
    assert len(policies) == len(values)
    return dict(zip(policies, values))


_B = BRIDGE_POLICIES
_G = GOOGLE_POLICIES

# Real-robot success rates (SPEC §9.2 REAL_PERF).
REAL_PERF: dict[str, dict[str, float]] = {
    "google_robot_pick_coke_can": _row(_G, [0.907, 0.853, 0.920, 0.760, 0.133, 0.293]),
    "google_robot_move_near": _row(_G, [0.733, 0.633, 0.583, 0.450, 0.017, 0.350]),
    "google_robot_open_drawer": _row(_G, [0.333, 0.815, 0.704, 0.519, 0.000, 0.148]),
    "google_robot_close_drawer": _row(_G, [0.630, 0.926, 0.889, 0.741, 0.000, 0.519]),
    "google_robot_place_apple_in_closed_top_drawer": _row(_G, [0.074, 0.185, 0.185, 0.407, 0.000, 0.000]),
    "widowx_spoon_on_towel": _row(_B, [0.000, 0.333, 0.417]),
    "widowx_carrot_on_plate": _row(_B, [0.000, 0.250, 0.083]),
    "widowx_stack_cube": _row(_B, [0.000, 0.000, 0.125]),
    "widowx_put_eggplant_in_basket": _row(_B, [0.000, 0.250, 0.400]),
}

# SIMPLER sim success rates, visual-matching setting (SPEC §9.2 SIMPLER_PERF).
SIMPLER_VISUAL_MATCHING_PERF: dict[str, dict[str, float]] = {
    "google_robot_pick_coke_can": _row(_G, [0.787, 0.857, 0.710, 0.567, 0.027, 0.170]),
    "google_robot_move_near": _row(_G, [0.779, 0.442, 0.354, 0.317, 0.050, 0.042]),
    "google_robot_open_drawer": _row(_G, [0.157, 0.601, 0.463, 0.296, 0.000, 0.009]),
    "google_robot_close_drawer": _row(_G, [0.343, 0.861, 0.667, 0.891, 0.278, 0.444]),
    "google_robot_place_apple_in_closed_top_drawer": _row(_G, [0.037, 0.065, 0.130, 0.213, 0.000, 0.000]),
    "widowx_spoon_on_towel": _row(_B, [0.000, 0.125, 0.472]),
    "widowx_carrot_on_plate": _row(_B, [0.042, 0.083, 0.097]),
    "widowx_stack_cube": _row(_B, [0.000, 0.000, 0.042]),
    "widowx_put_eggplant_in_basket": _row(_B, [0.000, 0.431, 0.569]),
}
SIMPLER_PERF = SIMPLER_VISUAL_MATCHING_PERF

# Real pick-coke-can success per orientation; 25 trials each. The mean over
# orientations equals REAL_PERF["google_robot_pick_coke_can"] to 3 decimals.
REAL_COKE_CAN_BY_ORIENTATION: dict[str, dict[str, float]] = {
    "horizontal": _row(_G, [0.92, 0.96, 1.00, 0.88, 0.20, 0.44]),
    "vertical": _row(_G, [0.80, 0.88, 0.96, 0.56, 0.00, 0.20]),
    "standing": _row(_G, [1.00, 0.72, 0.80, 0.84, 0.20, 0.24]),
}

# Real Bridge partial success ("grasped"). Original row labels:
# put_spoon_on_tablecloth, put_carrot_on_plate, stack_green_block_on_yellow_block,
# put_eggplant_in_basket; keyed here by the matching REAL_PERF task.
REAL_BRIDGE_GRASP: dict[str, dict[str, float]] = {
    "widowx_spoon_on_towel": _row(_B, [0.042, 0.500, 0.542]),
    "widowx_carrot_on_plate": _row(_B, [0.167, 0.500, 0.208]),
    "widowx_stack_cube": _row(_B, [0.000, 0.292, 0.583]),
    "widowx_put_eggplant_in_basket": _row(_B, [0.000, 0.400, 0.600]),
}

# Variant aggregation, octo-base only, per robot URDF (trailing comment of
# calc_metrics_evaluation_videos.py). Coke can and drawers are the averages
# given there; the per-orientation / per-direction parts follow.
VARIANT_AGG_OCTO_BASE: dict[str, dict[str, float]] = {
    "default": {
        "google_robot_pick_coke_can": 0.00,
        "google_robot_move_near": 0.03125,
        "google_robot_open_drawer": 0.00,
        "google_robot_close_drawer": 0.021,
        "google_robot_drawer": 0.011,  # open/close average as printed
    },
    "recolor_sim": {
        "google_robot_pick_coke_can": 0.012,
        "google_robot_move_near": 0.033,
        "google_robot_open_drawer": 0.00,
        "google_robot_close_drawer": 0.016,
        "google_robot_drawer": 0.008,
    },
}
VARIANT_AGG_OCTO_BASE_COKE_CAN_BY_ORIENTATION: dict[str, dict[str, float]] = {
    "default": {"horizontal": 0.00, "vertical": 0.00, "standing": 0.00},
    "recolor_sim": {"horizontal": 0.009, "vertical": 0.00, "standing": 0.0267},
}
# Community run (SimplerEnv issue/PR #10), openvla-7b, variant aggregation.
VARIANT_AGG_OPENVLA_COKE_CAN_COMMUNITY: dict[str, float] = {
    "horizontal": 0.644,
    "vertical": 0.218,
    "standing": 0.729,
    "average": 0.530,
}

# Real-robot trials per policy, used by the Kruskal–Wallis test (SPEC §9.1).
REAL_TRIALS_PER_TASK: dict[str, int] = {
    "google_robot_pick_coke_can": 75,  # 25 per orientation
    "google_robot_move_near": 60,
    "google_robot_open_drawer": 27,
    "google_robot_close_drawer": 27,
    "google_robot_place_apple_in_closed_top_drawer": 27,
    "widowx_spoon_on_towel": 24,
    "widowx_carrot_on_plate": 24,
    "widowx_stack_cube": 24,
    "widowx_put_eggplant_in_basket": 24,
}
REAL_TRIALS_PER_COKE_CAN_ORIENTATION = 25


class AlignedRates(NamedTuple):
    policies: tuple[str, ...]  # (N,)
    real: np.ndarray  # (N,) float64
    sim: np.ndarray  # (N,) float64


def _row_of(table: Table, task: str, table_name: str) -> Mapping[str, float]:
    if task not in table:
        raise ValueError(f"task {task!r} is not in {table_name}; known tasks: {sorted(table)}")
    return table[task]


def aligned(task: str, sim_table: Table = SIMPLER_VISUAL_MATCHING_PERF, real_table: Table = REAL_PERF) -> AlignedRates:
    """Real and sim success of `task` for the policies present in both tables.

    Returns AlignedRates(policies, real, sim); policies keep the real table's
    order. Feed `real`, `sim` straight into `mmrv(real, sim)` / `pearson(real, sim)`.
    """
    real_row = _row_of(real_table, task, "real_table")
    sim_row = _row_of(sim_table, task, "sim_table")
    policies = tuple(p for p in real_row if p in sim_row)
    if not policies:
        raise ValueError(f"task {task!r} has no policy in both tables (real: {list(real_row)}, sim: {list(sim_row)})")
    real = np.array([real_row[p] for p in policies], dtype=np.float64)
    sim = np.array([sim_row[p] for p in policies], dtype=np.float64)
    return AlignedRates(policies, real, sim)


def aligned_mean(
    tasks: Sequence[str], sim_table: Table = SIMPLER_VISUAL_MATCHING_PERF, real_table: Table = REAL_PERF
) -> AlignedRates:
    """Per-policy mean success over `tasks` (unweighted), real and sim aligned.

    Only policies present in every task of both tables are kept. E.g.
    aligned_mean(GOOGLE_TASKS) gives the "per-policy averages first" vectors,
    aligned_mean(["google_robot_open_drawer", "google_robot_close_drawer"]) the
    drawer open+close average.
    """
    tasks = list(tasks)
    if not tasks:
        raise ValueError("tasks is empty; expected at least one task name")
    per_task = [aligned(t, sim_table, real_table) for t in tasks]
    policies = tuple(p for p in per_task[0].policies if all(p in a.policies for a in per_task))
    if not policies:
        raise ValueError(f"no policy is evaluated on every task of {tasks}")
    real = np.mean([[a.real[a.policies.index(p)] for p in policies] for a in per_task], axis=0)
    sim = np.mean([[a.sim[a.policies.index(p)] for p in policies] for a in per_task], axis=0)
    return AlignedRates(policies, real, sim)
