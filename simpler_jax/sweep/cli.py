"""Command line of `python -m simpler_jax.sweep`: parse, validate, run, print the table."""

from __future__ import annotations

import argparse
import sys

from simpler_jax.sweep.config import DEFAULTS, FIELDS, ConfigError, SweepConfig, load_file, resolve
from simpler_jax.sweep.plugins import POLICIES, VISUAL_MATCHING, variant_names


def build_parser() -> argparse.ArgumentParser:
    import simpler_jax.sweep as pkg

    d = DEFAULTS
    p = argparse.ArgumentParser(prog="python -m simpler_jax.sweep", description=pkg.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", nargs="?", metavar="CONFIG.toml",
                   help="TOML file with any of the settings below (top-level keys); flags override it")
    p.add_argument("--tasks", nargs="+", metavar="TASK",
                   help=f"SimplerEnv task names (see --list); default {list(d.tasks)}")
    p.add_argument("--policies", nargs="+", metavar="POLICY",
                   help=f"policies, from {sorted(POLICIES)}; default {list(d.policies)}")
    p.add_argument("--variants", nargs="+", metavar="VARIANT",
                   help=f"'{VISUAL_MATCHING}' or Variant Aggregation variants (see --list); default {list(d.variants)}")
    p.add_argument("--seeds", "--seed", dest="seeds", nargs="+", type=int, metavar="SEED",
                   help=f"distinct non-negative integer seeds; default {list(d.seeds)}")
    p.add_argument("--episodes", nargs="+", metavar="ID",
                   help=f"'all' (each task's paper grid) or episode ids; default {d.episodes!r}")
    p.add_argument("--max-episodes", dest="max_episodes", type=int,
                   help=f"keep the first N episodes of each task (0: all selected); default {d.max_episodes}")
    p.add_argument("--chunk", type=int, help=f"worlds per compiled rollout call; default {d.chunk}")
    p.add_argument("--steps", type=int,
                   help="control steps per episode (0: each task's own length; fewer reads the "
                        f"success rules early, for smoke tests); default {d.steps}")
    p.add_argument("--videos", type=int,
                   help=f"episodes per task x policy x variant x seed rendered to a GIF; default {d.videos}")
    p.add_argument("--out", help=f"output folder (resumed if it holds the same sweep); default {d.out}")
    p.add_argument("--assets", help="SIMPLER asset folder (default: $SIMPLER_JAX_ASSETS or the cache)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the tasks (grid size, variants) and policies, then exit")
    return p


def _episodes_flag(p: argparse.ArgumentParser, values):
    if values is None:
        return None
    if values == ["all"]:
        return "all"
    try:
        return [int(v) for v in values]
    except ValueError:
        p.error(f"--episodes {' '.join(values)}: give 'all' or integer episode ids")


def list_choices() -> str:
    """Every task with its grid size, episode length and variants; the policies."""
    from simpler_jax.tasks.spec import TASK_SPECS

    lines = ["tasks (episodes, control steps, variants):"]
    for name, spec in TASK_SPECS.items():
        lines.append(f"  {name}  ({len(spec.episodes())} episodes, {spec.max_steps} steps)  "
                     f"variants: {', '.join(variant_names(name))}")
    lines.append("policies:")
    lines += [f"  {name}: {p.description}" for name, p in POLICIES.items()]
    return "\n".join(lines)


def parse(argv=None) -> tuple[SweepConfig, argparse.Namespace]:
    """(validated config, raw flags); exits with code 2 and a message naming the bad setting."""
    p = build_parser()
    a = p.parse_args(argv)
    if a.list:
        print(list_choices())
        raise SystemExit(0)
    a.episodes = _episodes_flag(p, a.episodes)
    try:
        file_values = load_file(a.config) if a.config else {}
        config = resolve(file_values, {k: getattr(a, k) for k in FIELDS}, source=a.config or "config")
    except ConfigError as e:
        p.error(str(e))
    return config, a


def parse_args(argv=None) -> SweepConfig:
    """The validated `SweepConfig` of a command line (defaults < CONFIG.toml < flags)."""
    return parse(argv)[0]


def main(argv=None) -> int:
    config, a = parse(argv)
    from simpler_jax._xla_setup import enable_compilation_cache
    from simpler_jax.assets.paths import MissingAssetError
    from simpler_jax.sweep.runner import run
    from simpler_jax.sweep.store import RESULTS_FILE, SUMMARY_FILE, ResultsFileError
    from simpler_jax.sweep.table import format_table

    import jax

    if not jax.config.jax_compilation_cache_dir:  # keep a cache the caller set up
        enable_compilation_cache()
    try:
        result = run(config, progress=not a.no_progress)
    except (ConfigError, MissingAssetError, ResultsFileError) as e:
        print(f"python -m simpler_jax.sweep: error: {e}", file=sys.stderr)
        return 2
    if result.dropped_bytes:
        print(f"dropped a cut-off last line ({result.dropped_bytes} bytes) of {result.out / RESULTS_FILE}; redone")
    if result.skipped:
        print(f"resumed: {result.skipped} episode(s) already in {result.out / RESULTS_FILE}, ran {result.ran}")
    print()
    print(format_table(result.table, result.comparisons))
    print(f"wrote {result.out / RESULTS_FILE} and {result.out / SUMMARY_FILE}")
    if config.videos:
        print(f"videos in {result.out / 'videos'}")
    if result.comparisons:
        print(f"sim-vs-real scatter plots in {result.out / 'plots'}")
    return 0
