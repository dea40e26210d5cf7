"""Running one chunk of episodes: real MJX physics, one compiled `jit(vmap(step))` per task.

An episode (task, policy, variant, seed, episode_id) is one world:
* PD gains: SIMPLER's arm stiffness and damping times factors drawn from
  `np.random.default_rng([seed, episode_id])` (uniform in [1 - spread, 1 + spread]),
  so they depend on the episode alone, not on the chunk it runs in; the same
  factors for every task, policy and variant (paired comparisons).
* reset key: `jax.random.fold_in(jax.random.PRNGKey(seed), episode_id)`.
* actions: the policy's open-loop (T, 7) actions, the same for every world.
* measured: the TCP error (m) between where the TCP ends and where the commands
  put it (start + sum of the commanded deltas), the fraction of control steps whose
  IK converged, whether the physics went non-finite; success = finite and
  error < `success_threshold_mm`. WidowX accumulates targets (ends where
  commanded); the Google Robot re-targets from the measured pose, so its error
  also shows the tracking lag of its gains.
"""

from __future__ import annotations

import dataclasses
import time

import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.sweep.grid import Chunk
from simpler_jax.sweep.plugins import POLICIES, TASKS, VARIANTS


@dataclasses.dataclass(frozen=True)
class Compiled:
    """A task's batched env for `num_worlds` worlds and its batched TCP forward kinematics.

    tcp: (num_worlds, n_ik) joint positions -> (num_worlds, 3) TCP positions, base frame.
    """

    env: object
    batched: object
    tcp: object
    num_worlds: int


def build_env(task: str, assets, num_worlds: int) -> Compiled:
    """Build (not yet compile: that happens at the first call) the task's batched env."""
    from simpler_jax.controllers import kinematics
    from simpler_jax.envs import BatchedEnv, RobotEnv
    from simpler_jax.scenes.scene import build_scene, default_scene

    env = RobotEnv(build_scene(default_scene(TASKS[task].robot), assets), max_steps=10_000)
    tcp = jax.jit(jax.vmap(lambda q: kinematics.forward_kinematics(env.chain, q)[0]))
    return Compiled(env, BatchedEnv(env, num_worlds), tcp, num_worlds)


_CACHE: dict = {}


def get_env(task: str, assets, num_worlds: int) -> Compiled:
    """`build_env`, memoised per process (a resumed or repeated sweep reuses the compiled calls)."""
    key = (task, str(assets), num_worlds)
    if key not in _CACHE:
        _CACHE[key] = build_env(task, assets, num_worlds)
    return _CACHE[key]


def episode_gains(seed: int, episode_ids, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """(stiffness factors (n, 1), damping factors (n, 1)) float32 for episodes `episode_ids` (n,)."""
    f = np.array([np.random.default_rng([seed, int(e)]).uniform(1 - spread, 1 + spread, 2)
                  for e in episode_ids], np.float32)
    return f[:, :1], f[:, 1:]


def reset_keys(seed: int, episode_ids) -> jax.Array:
    """(n, 2) uint32 PRNG keys, one per episode."""
    base = jax.random.PRNGKey(seed)
    return jnp.stack([jax.random.fold_in(base, int(e)) for e in episode_ids])


def run_chunk(compiled: Compiled, chunk: Chunk, config) -> tuple[list[dict], dict]:
    """Run the chunk's episodes (padded to `compiled.num_worlds` worlds) in one batch.

    Returns (one result row per episode of `chunk.episode_ids`, in order; a timing
    record). Rows: the EpisodeKey fields, then stiffness_scale, damping_scale,
    tcp_error_m, success, ik_success_rate, nonfinite.
    """
    env, batched, n = compiled.env, compiled.batched, compiled.num_worlds
    ids = chunk.padded_ids()
    assert len(ids) == n, (len(ids), n)
    k, d = episode_gains(chunk.seed, ids, config.spread)
    params = batched.default_params()
    params = params.replace(arm_stiffness=params.arm_stiffness * k, arm_damping=params.arm_damping * d)
    params = VARIANTS[chunk.variant].apply(params)
    actions = POLICIES[chunk.policy].actions(config)  # (T, 7)
    idx = env.index

    def tcp(s):
        q = np.asarray(s.data.qpos)[:, idx.arm_qpos][:, idx.ik_in_arm]
        return np.asarray(compiled.tcp(jnp.asarray(q)), np.float64)

    t_start = time.perf_counter()
    state = batched.reset(params, reset_keys(chunk.seed, ids))
    start = tcp(state)
    ik_ok = np.zeros(n, np.int64)
    t_warm = None
    for t, a in enumerate(actions):
        state = batched.step(params, state, np.broadcast_to(a, (n, a.shape[0])))
        ik_ok += np.asarray(state.controller.ik_success).astype(np.int64)
        if t == 0:  # the first step of a process compiles; time the rest
            t_warm = time.perf_counter()
    t_end = time.perf_counter()
    commanded = actions[:, :3].astype(np.float64).sum(axis=0)
    err = np.linalg.norm(tcp(state) - (start + commanded), axis=1)
    nonfinite = np.asarray(state.nonfinite)
    steps = len(actions)
    rows = []
    for w, e in enumerate(chunk.episode_ids):
        rows.append({
            "task": chunk.task, "policy": chunk.policy, "variant": chunk.variant,
            "seed": chunk.seed, "episode_id": e,
            "stiffness_scale": float(k[w, 0]), "damping_scale": float(d[w, 0]),
            "tcp_error_m": float(err[w]),
            "success": bool(not nonfinite[w] and 1000 * err[w] < config.success_threshold_mm),
            "ik_success_rate": float(ik_ok[w] / max(steps, 1)),
            "nonfinite": bool(nonfinite[w]),
        })
    timing = {
        "task": chunk.task, "policy": chunk.policy, "variant": chunk.variant, "seed": chunk.seed,
        "chunk": chunk.index, "worlds": n, "control_steps": steps, "seconds": t_end - t_start,
        "warm_world_steps": n * max(steps - 1, 0),
        "warm_seconds": (t_end - t_warm) if t_warm is not None else 0.0,
    }
    return rows, timing
