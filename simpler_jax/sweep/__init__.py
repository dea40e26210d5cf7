"""`python -m simpler_jax.sweep [CONFIG.toml] [flags]`: a configured, resumable sweep.

The grid is tasks x policies x variants x seeds x worlds episodes. Until the
SIMPLER tasks land, a task is a robot scene (widowx, google_robot), the policy a
scripted end-effector square (open loop), the variant SIMPLER's defaults, and an
episode one world with PD gains drawn around SIMPLER's sysid values (factors in
[1 - spread, 1 + spread], from the seed and episode id), scored by its final TCP
error (success: below --success-threshold-mm). Worlds run `chunk` at a time in
one compiled `jit(vmap(step))` per task.

Settings: defaults < the TOML file's top-level keys (tasks, policies, variants,
seeds, worlds, spread, chunk, steps_per_side, settle_steps, success_threshold_mm,
out, assets; see experiments/core_smoke.toml) < flags. Bad settings are refused
(exit code 2) before anything compiles.

Output folder (--out): sweep_config.json (the resolved config, written at the
start), results.jsonl (one line per episode, appended and fsync'd after each
chunk), timing.jsonl (per-chunk wall clock), summary.json (config, versions,
device, seeds, table; rewritten at the end). Running again into the same folder
with the same config resumes: finished episodes are skipped, a cut-off last line
is redone; a different config is refused. results.jsonl is written in canonical
order (tasks, policies, variants, seeds as listed, then episode id) and is
byte-identical whether or not the sweep was interrupted.
`python -m simpler_jax.report OUT` prints the table again.
"""

from simpler_jax.sweep.cli import main, parse_args
from simpler_jax.sweep.config import ConfigError, SweepConfig, resolve
from simpler_jax.sweep.runner import ChunkDone, SweepResult, run

__all__ = ["ChunkDone", "ConfigError", "SweepConfig", "SweepResult", "main", "parse_args", "resolve", "run"]
