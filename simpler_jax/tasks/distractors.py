"""Distractor objects of the coke-can Variant Aggregation (SIMPLER_SPEC.md §2.2, §3.2).

`GraspSingleOpenedCokeCanDistractorInScene-v0` adds a distractor set to the scene
(`distractor_config` "less": pepsi can, apple, sponge, orange; "more": 7up and sprite
cans, sponge, orange, fanta can, spoon). Each distractor is dropped where the
original samples it: xy = target xy + U(-0.3, 0.3)^2, clipped to x in [-0.50, -0.10],
y in [0.05, 0.35], drawn again until it is more than 0.25 m from the target; with the
target's orientation. The draws here come from a NumPy generator seeded by the
episode id and `seed`, so an episode always gets the same placement (the original
redraws at every reset).

The original drops the distractors one after another, so one drawn onto another lands
on it. Here all objects settle together in the task's settle time, so a draw is
repeated (up to `CLEAR_DRAWS` times) while its footprint (a circle of half its
middle bounding-box side) overlaps one placed before; when the clipped region leaves
no clear place (targets near its edge put several on the x = -0.10 edge), the
distractor keeps an overlapping draw and starts stacked on top of the ones it
overlaps (`TaskEnv` spawn heights), from where it falls as in the original.
"""

from __future__ import annotations

import dataclasses

import numpy as np

SPREAD = 0.3  # half width of the uniform offset from the target (m)
X_RANGE = (-0.50, -0.10)
Y_RANGE = (0.05, 0.35)
MIN_DISTANCE = 0.25  # from the target (m)
MAX_DRAWS = 10_000
CLEAR_DRAWS = 500  # draws that must also clear the distractors placed before


def distractor_xy(target_xy, radii, rng: np.random.Generator) -> np.ndarray:
    """(D, 2) positions of D distractors of footprint radii `radii` (D,) around
    `target_xy` (2,) by the original's rule, preferring (for `CLEAR_DRAWS` draws each)
    positions clear of the distractors placed before."""
    target = np.asarray(target_xy, np.float64)
    radii = np.asarray(radii, np.float64).reshape(-1)
    out: list[np.ndarray] = []
    for i, r in enumerate(radii):
        fallback = None
        for draw in range(MAX_DRAWS):
            xy = target + rng.uniform(-SPREAD, SPREAD, 2)
            xy = np.array([np.clip(xy[0], *X_RANGE), np.clip(xy[1], *Y_RANGE)])
            if np.linalg.norm(xy - target) <= MIN_DISTANCE:
                continue
            if all(np.linalg.norm(xy - p) > r + radii[j] for j, p in enumerate(out)):
                break
            fallback = xy if fallback is None else fallback
            if draw >= CLEAR_DRAWS:
                xy = fallback  # the original's rule alone: it may overlap (and is stacked)
                break
        else:
            raise ValueError(f"no position for distractor {i} {MIN_DISTANCE} m from target {tuple(target)} "
                             f"in x {X_RANGE}, y {Y_RANGE}")
        out.append(xy)
    return np.asarray(out, np.float64).reshape(len(radii), 2)


def overlaps(xy, radii) -> list[list[int]]:
    """For each object i, the objects j < i whose footprints (centres `xy` (O, 2),
    radii (O,)) overlap it: the ones it is stacked on at reset."""
    xy, radii = np.asarray(xy, np.float64), np.asarray(radii, np.float64)
    return [[j for j in range(i) if np.linalg.norm(xy[i] - xy[j]) < radii[i] + radii[j]] for i in range(len(xy))]


def with_distractors(episode, distractors: tuple[str, ...], radii=(), seed: int = 0):
    """`episode` (a `simpler_jax.tasks.episodes.Episode` with one object, the target)
    with `distractors` appended to its objects, placed and oriented as the original;
    radii (D,): their footprint radii (m; half their middle bounding-box side, a width)."""
    if not distractors:
        return episode
    if len(episode.model_ids) != 1 or episode.source != 0:
        raise ValueError(f"distractors need a single-object grasp episode, got objects {episode.model_ids}")
    clash = set(distractors) & set(episode.model_ids)
    if clash or len(set(distractors)) != len(distractors):
        raise ValueError(f"distractors {distractors} must be distinct and differ from the target "
                         f"{episode.model_ids[0]!r}")
    rng = np.random.default_rng([int(episode.episode_id), int(seed)])
    if len(radii) != len(distractors):
        raise ValueError(f"need one footprint radius per distractor: {len(distractors)} distractors, "
                         f"{len(radii)} radii")
    xy = distractor_xy(episode.object_xy[0], radii, rng)
    return dataclasses.replace(
        episode,
        model_ids=episode.model_ids + tuple(distractors),
        object_xy=episode.object_xy + tuple((float(x), float(y)) for x, y in xy),
        object_quat=episode.object_quat * (1 + len(distractors)),
    )
