"""Running one chunk of episodes: a task scene's compiled whole-episode rollout.

An episode (task, policy, variant, seed, episode_id) is one world:
* params: the episode's `TaskParams` (`TaskEnv.episode_params`: robot pose, object
  poses, drawer openings, lighting), then the variant's per-world changes
  (lighting, camera tilt: `simpler_jax.tasks.variants.apply_variant`); a variant
  that changes the scene (another cabinet) has its own compiled scene;
* reset key: `jax.random.fold_in(jax.random.PRNGKey(seed), episode_id)`;
* actions: the policy inside the compiled rollout (`simpler_jax.tasks.rollout`);
* result: SIMPLER's success at the final control step, the strict success, the
  family's episode stats under the original's names, non-finite physics.

A chunk's worlds all belong to one scene key; scripted and zero-action chunks of
a scene share one compiled program.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.sweep import plugins
from simpler_jax.sweep.grid import Chunk
from simpler_jax.tasks.env import DEFAULT_STATION



@dataclasses.dataclass
class CompiledScene:
    """A task scene's `TaskEnv` and its compiled rollout over `num_worlds` worlds.

    rollout: (params, keys (W, 2), scripted (W,) bool) -> final TaskState, or
    (final, qpos (W, T + 1, nq)) when `record`. `calls` counts calls (the first compiles).
    """

    env: object
    rollout: Callable
    num_worlds: int
    steps: int
    record: bool
    calls: int = 0


@dataclasses.dataclass(frozen=True)
class SceneOptions:
    """What a (task, variant) changes in the compiled scene: the cabinet URDF and the
    distractor objects (`TaskEnv` keywords), and the look its images draw (`TaskEnv`
    appearances; images only: the rollouts, which render nothing, share the scene
    without it)."""

    station: str = DEFAULT_STATION
    distractors: tuple[str, ...] = ()
    appearance: str = ""

    @property
    def physics(self) -> "SceneOptions":
        """These options without what only the images see."""
        return dataclasses.replace(self, appearance="")


def scene_options(task: str, variant: str) -> SceneOptions:
    """The scene of a (task, variant): the variant's cabinet (else SIMPLER's standard
    one) and distractors (move near's `no_distractor` is per world, in the standard
    scene: `simpler_jax.tasks.variants.apply_variant`)."""
    from simpler_jax.tasks.variants import NO_DISTRACTOR

    v = plugins.variant(task, variant)
    if v is None:
        return SceneOptions()
    distractors = () if v.distractors == NO_DISTRACTOR else tuple(v.distractors)
    return SceneOptions(v.station or DEFAULT_STATION, distractors, v.appearance or "")


_CACHE: dict = {}


def get_scene(task: str, scene_key: str, options: SceneOptions, assets, num_worlds: int, steps: int,
              record: bool) -> CompiledScene:
    """The compiled scene, memoised per process (a resumed or repeated sweep reuses it)."""
    key = (task, scene_key, options.physics, str(assets), num_worlds, steps, record)
    if key not in _CACHE:
        from simpler_jax.tasks.env import TaskEnv
        from simpler_jax.tasks.rollout import make_rollout

        env = TaskEnv(task, scene_key=scene_key, assets=assets, station=options.station,
                      distractors=options.distractors, max_steps=steps or None)
        _CACHE[key] = CompiledScene(env, make_rollout(env, record=record), num_worlds, env.max_steps, record)
    return _CACHE[key]


def reset_keys(seed: int, episode_ids) -> jax.Array:
    """(n, 2) uint32 PRNG keys, one per episode."""
    base = jax.random.PRNGKey(seed)
    return jnp.stack([jax.random.fold_in(base, int(e)) for e in episode_ids])


def chunk_params(env, chunk: Chunk):
    """The chunk's (padded) worlds' `TaskParams`, with the variant's per-world changes."""
    from simpler_jax.tasks.variants import apply_variant

    params = env.episode_params(list(chunk.padded_ids()))
    v = plugins.variant(chunk.task, chunk.variant)
    if v is not None:
        params = jax.vmap(lambda p: apply_variant(p, v))(params)
    return params


def run_chunk(compiled: CompiledScene, chunk: Chunk) -> tuple[list[dict], dict, object, np.ndarray | None]:
    """Run the chunk's episodes in one compiled call.

    Returns (one result row per episode of `chunk.episode_ids`, in order; a timing
    record; the worlds' TaskParams; qpos (n, T + 1, nq) of the chunk's episodes when
    the scene records, else None).
    """
    from simpler_jax.tasks.stats import report

    env, n = compiled.env, compiled.num_worlds
    ids = chunk.padded_ids()
    assert len(ids) == n, (len(ids), n)
    policy = plugins.POLICIES[chunk.policy]
    params = chunk_params(env, chunk)
    scripted = np.full((n,), policy.scripted)
    t0 = time.perf_counter()
    out = compiled.rollout(params, reset_keys(chunk.seed, ids), scripted)
    final, qpos = out if compiled.record else (out, None)
    final = jax.device_get(final)
    seconds = time.perf_counter() - t0
    compiled.calls += 1
    family = env.spec.family
    rows = []
    for w, e in enumerate(chunk.episode_ids):
        stats = report(family, final.stats, w)
        rows.append({
            "task": chunk.task, "policy": chunk.policy, "variant": chunk.variant,
            "seed": chunk.seed, "episode_id": e,
            "scene_key": chunk.scene_key,
            "checkpoint": policy.checkpoint,
            "instruction": list(env.episodes[e].instruction),
            "success": bool(stats.pop("success")),
            "strict_success": bool(stats.pop("strict_success")),
            "episode_stats": stats,
            "nonfinite": bool(final.env.nonfinite[w]),
            "control_steps": int(final.env.step[w]),
        })
    timing = {
        "task": chunk.task, "policy": chunk.policy, "variant": chunk.variant, "seed": chunk.seed,
        "chunk": chunk.index, "scene_key": chunk.scene_key, "worlds": n,
        "control_steps": compiled.steps, "seconds": seconds, "compiled": compiled.calls == 1,
    }
    traj = None if qpos is None else np.asarray(qpos)[: len(chunk.episode_ids)]
    return rows, timing, params, traj
