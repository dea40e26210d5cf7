"""`python -m simpler_jax.report RESULTS_DIR`: the summary table of a sweep folder, again.

Reads `sweep_config.json` and `results.jsonl` (and `timing.jsonl` for throughput,
if present) written by `python -m simpler_jax.sweep` and prints one row per task x
policy x variant: episodes, SIMPLER's success rate with its 95% Wilson interval,
strict success, non-finite worlds, warm control steps/s; then MMRV and Pearson
against the paper's real-robot numbers where at least two policies have them.
Works on an unfinished sweep too (episodes shown as done/expected); it never
writes to the folder. Nothing is compiled.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def load(results_dir) -> tuple[object, list[dict], list[dict], int]:
    """(SweepConfig, result rows in canonical order, timing records, cut-off bytes at the end)."""
    from simpler_jax.sweep import store
    from simpler_jax.sweep.config import resolve

    out = pathlib.Path(results_dir)
    config = resolve(store.read_config(out), source=str(out / store.CONFIG_FILE))
    rows, dropped = store.read_results(out / store.RESULTS_FILE)
    return config, store.canonical_rows(rows, config), store.read_timing(out / store.TIMING_FILE), dropped


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m simpler_jax.report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results_dir", metavar="RESULTS_DIR", help="a folder written by python -m simpler_jax.sweep")
    p.add_argument("--json", action="store_true", help="print the table as JSON instead of text")
    a = p.parse_args(argv)
    from simpler_jax.sweep.config import ConfigError
    from simpler_jax.sweep.store import ResultsFileError
    from simpler_jax.sweep.table import format_table, sim_vs_real, summary_table

    try:
        config, rows, timing, dropped = load(a.results_dir)
    except (ConfigError, ResultsFileError) as e:
        p.error(str(e))
    table = summary_table(rows, config, timing)
    comparisons = sim_vs_real(table)
    if a.json:
        print(json.dumps({"table": table, "sim_vs_real": comparisons}, indent=2))
        return 0
    print(format_table(table, comparisons))
    total = config.num_episodes
    note = "" if len(rows) == total else "; unfinished: run the same sweep again to resume it"
    cut = f"; a cut-off last line ({dropped} bytes) ignored" if dropped else ""
    print(f"{len(rows)} of {total} episodes in {pathlib.Path(a.results_dir) / 'results.jsonl'}{note}{cut}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
