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

With `trace=True` it also returns a `StepTrace` per world and control step: the
plan phase the scripted policy acted in, the action applied, and the measured TCP,
source and target positions after the step (`benchmarks/trace.py` prints and saves
them). Both options only add outputs; the default program is unchanged.
"""

from __future__ import annotations

import flax.struct
import jax
import jax.numpy as jnp

from simpler_jax.tasks.scripted import ScriptedPolicy


@flax.struct.dataclass
class StepTrace:
    """What one world did at one control step (after the rollout: leading (W, T) axes)."""

    phase: jax.Array  # () int32: index into the scripted plan of the phase acted in
    action: jax.Array  # (7,) float32: the action applied (zeros where the world is zero-action)
    tcp: jax.Array  # (3,) world TCP position after the step (m)
    source: jax.Array  # (3,) world centre of mass of the source object after the step
    target: jax.Array  # (3,) world centre of mass of the target object (the source's where none)
    grasped: jax.Array  # () bool: the source is grasped after the step
    success: jax.Array  # () bool: the task's success after the step


def make_rollout(env, policy: ScriptedPolicy | None = None, num_steps: int | None = None,
                 record: bool = False, trace: bool = False):
    """jit(vmap(world rollout)): (params, keys (W, 2), scripted (W,) bool) -> final TaskState;
    with `record` and/or `trace`, a tuple (final TaskState, [qpos (W, T + 1, nq)],
    [StepTrace with leading (W, T)]) holding the requested outputs in that order."""
    policy = policy or ScriptedPolicy(env)
    steps = int(num_steps or env.max_steps)

    def one_world(params, key, scripted):
        state = env.reset(params, key)
        pstate = policy.init(params, state)

        def body(carry, _):
            state, pstate = carry
            action, pstate = policy(params, state, pstate)
            action = jnp.where(scripted, action, jnp.zeros_like(action))
            acted_in = pstate.phase
            state = env.step(params, state, action)
            out = (state.env.data.qpos if record else None,
                   _step_trace(policy, params, state, acted_in, action) if trace else None)
            return (state, pstate), out

        qpos0 = state.env.data.qpos
        (state, _), (qpos, steps_trace) = jax.lax.scan(body, (state, pstate), None, length=steps)
        extra = (jnp.concatenate([qpos0[None], qpos]),) if record else ()
        extra += (steps_trace,) if trace else ()
        return (state, *extra) if extra else state

    return jax.jit(jax.vmap(one_world))


def _step_trace(policy: ScriptedPolicy, params, state, phase, action) -> StepTrace:
    source = policy.object_com(state, params.source)
    target = jnp.where(params.target >= 0, policy.object_com(state, params.target), source)
    return StepTrace(phase=phase, action=action, tcp=policy.tcp_world(params, state), source=source,
                     target=target, grasped=state.stats.grasped, success=state.stats.success)
