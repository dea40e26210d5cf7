"""Command line of `python -m simpler_jax.sweep`: parse, validate, run, print the table."""

from __future__ import annotations

import argparse
import sys

from simpler_jax.sweep.config import DEFAULTS, FIELDS, ConfigError, SweepConfig, load_file, resolve
from simpler_jax.sweep.plugins import POLICIES, TASKS, VARIANTS


def build_parser() -> argparse.ArgumentParser:
    import simpler_jax.sweep as pkg

    d = DEFAULTS
    p = argparse.ArgumentParser(prog="python -m simpler_jax.sweep", description=pkg.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config", nargs="?", metavar="CONFIG.toml",
                   help="TOML file with any of the settings below (top-level keys); flags override it")
    p.add_argument("--tasks", "--robots", dest="tasks", nargs="+", metavar="TASK",
                   help=f"tasks (today robot scenes), from {sorted(TASKS)}; default {list(d.tasks)}")
    p.add_argument("--policies", nargs="+", metavar="POLICY",
                   help=f"policies, from {sorted(POLICIES)}; default {list(d.policies)}")
    p.add_argument("--variants", nargs="+", metavar="VARIANT",
                   help=f"variants, from {sorted(VARIANTS)}; default {list(d.variants)}")
    p.add_argument("--seeds", "--seed", dest="seeds", nargs="+", type=int, metavar="SEED",
                   help=f"distinct non-negative integer seeds; default {list(d.seeds)}")
    p.add_argument("--worlds", type=int,
                   help=f"episodes (worlds) per task, policy, variant and seed; default {d.worlds}")
    p.add_argument("--spread", type=float,
                   help=f"relative spread of the per-world PD gains, in [0, 1); default {d.spread}")
    p.add_argument("--chunk", type=int,
                   help=f"worlds per compiled call (capped at --worlds); default {d.chunk}")
    p.add_argument("--steps-per-side", dest="steps_per_side", type=int,
                   help=f"control steps per side of the scripted square (2 cm each); default {d.steps_per_side}")
    p.add_argument("--settle-steps", dest="settle_steps", type=int,
                   help=f"zero-action control steps at the end; default {d.settle_steps}")
    p.add_argument("--success-threshold-mm", dest="success_threshold_mm", type=float,
                   help=f"an episode succeeds if its final TCP error is below this; default {d.success_threshold_mm}")
    p.add_argument("--out", help=f"output folder (resumed if it holds the same sweep); default {d.out}")
    p.add_argument("--assets", help="SIMPLER asset folder (default: $SIMPLER_JAX_ASSETS or the cache)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def parse(argv=None) -> tuple[SweepConfig, argparse.Namespace]:
    """(validated config, raw flags); exits with code 2 and a message naming the bad setting."""
    p = build_parser()
    a = p.parse_args(argv)
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
    print(format_table(result.table, config))
    print(f"wrote {result.out / RESULTS_FILE} and {result.out / SUMMARY_FILE}")
    return 0
