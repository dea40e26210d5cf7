"""Whole episodes in one compiled call: reset, then `lax.scan` over policy + step.

    run = make_rollout(env, ScriptedPolicy(env))       # jit(vmap) over worlds
    final = run(params, keys, scripted)                # scripted: (W,) bool

Each world acts with the scripted policy where `scripted` is True and with the zero
action otherwise, so a scripted run and its zero-action control share one compiled
program. The episode runs `env.max_steps` control steps; `final.stats.success` is
SIMPLER's success at the final step. With `record=True` the call also returns
every world's joint positions after the reset and after each control step,
(W, T + 1, nq) float32, from
which `simpler_jax.sweep.videos` renders an episode's frames afterwards (rendering
stays out of the rollout).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from simpler_jax.tasks.scripted import ScriptedPolicy


def make_rollout(env, policy: ScriptedPolicy | None = None, num_steps: int | None = None,
                 record: bool = False):
    """jit(vmap(world rollout)): (params, keys (W, 2), scripted (W,) bool) -> final TaskState,
    or (final TaskState, qpos (W, T + 1, nq)) with `record`."""
    policy = policy or ScriptedPolicy(env)
    steps = int(num_steps or env.max_steps)

    def one_world(params, key, scripted):
        state = env.reset(params, key)
        pstate = policy.init(params, state)

        def body(carry, _):
            state, pstate = carry
            action, pstate = policy(params, state, pstate)
            action = jnp.where(scripted, action, jnp.zeros_like(action))
            state = env.step(params, state, action)
            return (state, pstate), (state.env.data.qpos if record else None)

        qpos0 = state.env.data.qpos
        (state, _), qpos = jax.lax.scan(body, (state, pstate), None, length=steps)
        return (state, jnp.concatenate([qpos0[None], qpos])) if record else state

    return jax.jit(jax.vmap(one_world))
