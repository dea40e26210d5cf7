"""Whole episodes in one compiled call: reset, then `lax.scan` over policy + step.

    run = make_rollout(env, ScriptedPolicy(env))       # jit(vmap) over worlds
    final = run(params, keys, scripted)                # scripted: (W,) bool

Each world acts with the scripted policy where `scripted` is True and with the zero
action otherwise, so a scripted run and its zero-action control share one compiled
program. The episode runs `env.max_steps` control steps; `final.stats.success` is
SIMPLER's success at the final step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from simpler_jax.tasks.scripted import ScriptedPolicy


def make_rollout(env, policy: ScriptedPolicy | None = None, num_steps: int | None = None):
    """jit(vmap(world rollout)): (params, keys (W, 2), scripted (W,) bool) -> final TaskState."""
    policy = policy or ScriptedPolicy(env)
    steps = int(num_steps or env.max_steps)

    def one_world(params, key, scripted):
        state = env.reset(params, key)
        pstate = policy.init(params, state)

        def body(carry, _):
            state, pstate = carry
            action, pstate = policy(params, state, pstate)
            action = jnp.where(scripted, action, jnp.zeros_like(action))
            return (env.step(params, state, action), pstate), None

        (state, _), _ = jax.lax.scan(body, (state, pstate), None, length=steps)
        return state

    return jax.jit(jax.vmap(one_world))
