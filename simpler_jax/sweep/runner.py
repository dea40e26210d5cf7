"""`run(config)`: the resumable sweep loop.

1. Claim the output folder (`store.claim_folder`: write `sweep_config.json`, or
   refuse a folder started with another config).
2. Read `results.jsonl` (a cut-off last line is dropped and cut from the file);
   the episodes there are done.
3. For each chunk of the grid (canonical order) with an episode not done: run the
   whole chunk (same worlds, same compiled call as an uninterrupted sweep), write
   its video if it holds episodes selected for one, append the missing episodes'
   lines, fsync, append a timing line, call `on_chunk_done`.
4. Put `results.jsonl` in canonical order if it is not (only a damaged or
   hand-edited file can need it), write `summary.json` from all its lines, and a
   sim-vs-real scatter plot per task where the sweep's policies have real numbers.

Results are deterministic (same config -> same numbers), and lines are written in
canonical order, so a resumed sweep's `results.jsonl` is byte-identical to an
uninterrupted one, without sorting.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Callable

from simpler_jax.sweep import grid, store
from simpler_jax.sweep.config import SweepConfig
from simpler_jax.sweep.table import sim_vs_real, summary_table
from simpler_jax.utils.records import package_versions


BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"  # episodes/s


@dataclasses.dataclass(frozen=True)
class ChunkDone:
    """What `on_chunk_done` receives after a chunk's lines are on disk.

    chunk: the grid chunk; rows: the lines it appended; chunks_done: chunks run
    so far by this call; episodes_done: lines now in results.jsonl.
    """

    chunk: grid.Chunk
    rows: list
    chunks_done: int
    episodes_done: int


@dataclasses.dataclass(frozen=True)
class SweepResult:
    out: pathlib.Path
    rows: list          # every result line, canonical order
    table: list         # summary_table(rows)
    comparisons: list   # sim_vs_real(table)
    skipped: int        # episodes already in results.jsonl when the sweep started
    ran: int            # episodes this call ran
    dropped_bytes: int  # cut-off bytes removed from the end of results.jsonl


def run(config: SweepConfig, *, on_chunk_done: Callable[[ChunkDone], None] | None = None,
        progress: bool = True) -> SweepResult:
    """Run (or resume) `config`'s sweep into `config.out`; see the module docstring.

    Raises ConfigError if `config.out` holds another sweep, ResultsFileError if
    its results.jsonl is damaged, MissingAssetError if there is work to do and no
    assets. An exception from `on_chunk_done` stops the sweep with every finished
    chunk already on disk (resume by calling again).
    """
    out = pathlib.Path(config.out)
    store.claim_folder(out, config.identity())
    results = out / store.RESULTS_FILE
    rows, dropped = store.read_results(results, repair=True)
    rows = store.canonical_rows(rows, config)
    done = {grid.key_of(r) for r in rows}
    todo = grid.pending(grid.plan(config), done)
    assets = None
    if todo:
        from tqdm import tqdm

        from simpler_jax.assets import asset_root
        from simpler_jax.sweep import rollouts

        assets = asset_root(config.assets)  # fails early, naming the setting, if assets are missing
        filmed = video_episodes(config)
        bar = tqdm(total=config.num_episodes, initial=len(done), unit=" episodes", desc="sweep",
                   dynamic_ncols=True, disable=not progress, bar_format=BAR_FORMAT)
        try:
            n_done = len(done)
            for i, (chunk, missing) in enumerate(todo):
                bar.set_postfix_str(f"{chunk.task} {chunk.policy} seed {chunk.seed} chunk {chunk.index}")
                options = rollouts.scene_options(chunk.task, chunk.variant)
                compiled = rollouts.get_scene(chunk.task, chunk.scene_key, options, assets, chunk.size,
                                              config.steps, record=config.videos > 0)
                chunk_rows, timing, params, qpos = rollouts.run_chunk(compiled, chunk)
                if qpos is not None:
                    _write_video(out, chunk, options, assets, params, qpos, filmed)
                want = set(missing)
                new = [r for r in chunk_rows if grid.key_of(r) in want]
                store.append_rows(results, new)
                store.append_timing(out / store.TIMING_FILE, timing)
                n_done += len(new)
                bar.update(len(new))
                if on_chunk_done is not None:
                    on_chunk_done(ChunkDone(chunk, new, i + 1, n_done))
        finally:
            bar.close()
    all_rows = store.make_canonical(results, config)
    table = summary_table(all_rows, config, store.read_timing(out / store.TIMING_FILE))
    comparisons = sim_vs_real(table)
    for c in comparisons:
        from simpler_jax.sweep.plots import write_scatter

        write_scatter(out / "plots" / f"{c['task']}__{c['variant']}.png", c)
    store.write_json_atomic(out / store.SUMMARY_FILE, _summary(config, assets, all_rows, table, comparisons))
    return SweepResult(out, all_rows, table, comparisons, len(done), len(all_rows) - len(done), dropped)


def video_episodes(config: SweepConfig) -> set:
    """Keys of the episodes filmed: the first `videos` of each (task, policy, variant, seed)."""
    if not config.videos:
        return set()
    picked, count = set(), {}
    for key in grid.canonical_keys(config):
        cell = key[:4]
        if count.get(cell, 0) < config.videos:
            picked.add(key)
            count[cell] = count.get(cell, 0) + 1
    return picked


def video_path(out: pathlib.Path, chunk: grid.Chunk) -> pathlib.Path:
    return out / "videos" / f"{chunk.task}__{chunk.policy}__{chunk.variant}__seed{chunk.seed}__chunk{chunk.index}.gif"


def _write_video(out, chunk, options, assets, params, qpos, filmed) -> None:
    import jax

    from simpler_jax.sweep import videos

    worlds = [w for w, key in enumerate(chunk.keys()) if key in filmed]
    if not worlds:
        return
    r = videos.renderer(chunk.task, chunk.scene_key, options, assets)
    clips = [r.frames(jax.tree.map(lambda x: x[w], params), qpos[w]) for w in worlds]
    path = video_path(out, chunk)
    path.parent.mkdir(parents=True, exist_ok=True)
    videos.write_gif(path, videos.tile(clips), fps=r.control_freq)


def _summary(config: SweepConfig, assets, rows: list, table: list, comparisons: list) -> dict:
    import jax

    from simpler_jax.sweep import plugins
    from simpler_jax.tasks.variants import variant_metadata

    variants = {}
    for t in config.tasks:
        for v in config.variants:
            var = plugins.variant(t, v)
            variants[f"{t}/{v}"] = {"name": v, "kind": "visual_matching"} if var is None else variant_metadata(var)
    return {
        "config": config.identity() | {"out": config.out, "assets": None if assets is None else str(assets)},
        "versions": package_versions(),
        "device": str(jax.devices()[0]),
        "seeds": {
            "seeds": list(config.seeds),
            "reset_keys": "jax.random.fold_in(jax.random.PRNGKey(seed), episode_id)",
        },
        "episodes": {"done": len(rows), "expected": config.num_episodes},
        "policies": {p: dataclasses.asdict(plugins.POLICIES[p]) for p in config.policies},
        "variants": variants,
        "success_rule": "SIMPLER's success of each task at the final control step "
                        + ("(episodes cut to %d steps)" % config.steps if config.steps else "(full episodes)"),
        "table": table,
        "sim_vs_real": comparisons,
    }
