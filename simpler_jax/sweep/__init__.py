"""`python -m simpler_jax.sweep [CONFIG.toml] [flags]`: a configured, resumable sweep of SIMPLER tasks.

The grid is tasks x policies x variants x seeds x episodes: SimplerEnv task names
(`--list` shows them), policies (`scripted`: the privileged scripted policy, the
default; `zero`: the zero action), variants (`visual_matching`, and for the Google
tasks their Variant Aggregation variants), seeds, and each task's paper episode
grid (`episodes = "all"` or a list of ids, `max_episodes` caps it). Each episode is
one world of a compiled whole-episode rollout (`simpler_jax.tasks.rollout`: reset,
then policy + physics for the task's control steps in one `jit(vmap)` call over at
most `chunk` worlds of one scene); success is SIMPLER's rule at the final step.

Settings: defaults < the TOML file's top-level keys (tasks, policies, variants,
seeds, episodes, max_episodes, chunk, steps, videos, out, assets; see
experiments/*.toml) < flags. Bad settings are refused (exit code 2) before
anything is built or compiled.

Output folder (--out): sweep_config.json (the resolved config, written at the
start), results.jsonl (one line per episode: task, policy, variant, seed, episode
id, scene, policy checkpoint, instruction, success, strict success, the task's
episode stats under the original's names, non-finite physics; appended and
fsync'd after each chunk), timing.jsonl (per-chunk wall clock), summary.json
(config, versions, device, seeds, variant metadata, table, sim-vs-real metrics;
rewritten at the end), videos/*.gif (with --videos N: the first N episodes of each
task x policy x variant x seed, worlds side by side), plots/*.png (sim-vs-real
scatter with MMRV and Pearson, where two or more of the sweep's policies have
real-robot numbers in the paper). Running again into the same folder with the same
config resumes: finished episodes are skipped, a cut-off last line is redone; a
different config is refused. results.jsonl is written in canonical order (tasks,
policies, variants, seeds as listed, then each task's episodes by scene) and is
byte-identical whether or not the sweep was interrupted.
`python -m simpler_jax.report OUT` prints the table again.
"""

from simpler_jax.sweep.cli import main, parse_args
from simpler_jax.sweep.config import ConfigError, SweepConfig, resolve
from simpler_jax.sweep.runner import ChunkDone, SweepResult, run

__all__ = ["ChunkDone", "ConfigError", "SweepConfig", "SweepResult", "main", "parse_args", "resolve", "run"]
