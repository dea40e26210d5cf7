"""A sweep stopped after some chunks and resumed writes the same `results.jsonl` as one that
never stopped (real MJX physics; the stop is an exception from the `on_chunk_done` hook).

Tiny shapes: one task (WidowX), 2 seeds x 3 worlds, 2 worlds per compiled call (the
second chunk of each seed is padded), 6 control steps; one compile for the module.
"""

import json
import shutil

import pytest

from simpler_jax import report
from simpler_jax.sweep import ConfigError, grid, main, parse_args, run, store

FLAGS = ["--tasks", "widowx", "--seeds", "0", "1", "--worlds", "3", "--chunk", "2",
         "--steps-per-side", "1", "--settle-steps", "2"]


class Interrupt(Exception):
    pass


def config_at(out):
    return parse_args(FLAGS + ["--out", str(out)])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted sweep's folder."""
    out = tmp_path_factory.mktemp("sweep") / "reference"
    result = run(config_at(out), progress=False)
    assert result.skipped == 0 and result.ran == 6
    return out


def results_bytes(out) -> bytes:
    return (out / "results.jsonl").read_bytes()


def test_reference_results(reference):
    rows = [json.loads(line) for line in results_bytes(reference).decode().splitlines()]
    keys = [grid.key_of(r) for r in rows]
    assert keys == grid.canonical_keys(config_at(reference))  # canonical order, one line per episode
    assert [(k.seed, k.episode_id) for k in keys] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    for r in rows:
        assert r["task"] == "widowx" and r["policy"] == "scripted-pattern" and r["variant"] == "default"
        assert not r["nonfinite"] and r["ik_success_rate"] == 1.0
        assert 0 < r["tcp_error_m"] < 0.02
        assert r["success"] == (1000 * r["tcp_error_m"] < 2.0)
    # the gains depend on (seed, episode) only: a different seed gives different worlds
    assert rows[0]["stiffness_scale"] != rows[3]["stiffness_scale"]
    assert json.loads((reference / "sweep_config.json").read_text())["config"] == config_at(reference).identity()
    summary = json.loads((reference / "summary.json").read_text())
    assert summary["episodes"] == {"done": 6, "expected": 6}
    assert summary["table"][0]["episodes"] == 6 and summary["table"][0]["control_steps_per_s"] > 0


def test_interrupted_sweep_resumes_to_the_same_file(reference, tmp_path):
    out = tmp_path / "interrupted"
    seen = []

    def stop_after_two(done):
        seen.append(done)
        if done.chunks_done == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        run(config_at(out), on_chunk_done=stop_after_two, progress=False)
    assert [d.episodes_done for d in seen] == [2, 3]  # chunk 1 of seed 0 holds one episode (padded)
    assert len(results_bytes(out).splitlines()) == 3
    assert not (out / "summary.json").exists()

    resumed = run(config_at(out), progress=False)
    assert (resumed.skipped, resumed.ran) == (3, 3)
    assert results_bytes(out) == results_bytes(reference)  # byte-identical, no sorting needed
    assert json.loads((out / "summary.json").read_text())["episodes"]["done"] == 6

    again = run(config_at(out), progress=False)  # nothing left to do
    assert (again.skipped, again.ran) == (6, 0)
    assert results_bytes(out) == results_bytes(reference)


def test_cut_off_last_line_is_dropped_and_redone(reference, tmp_path):
    out = tmp_path / "crashed"
    shutil.copytree(reference, out)
    data = results_bytes(reference)
    first_line_end = data.index(b"\n") + 1
    cut = data[: first_line_end + 40]  # line 1 whole, line 2 cut mid-write (chunk 0 half done)
    (out / "results.jsonl").write_bytes(cut)
    rows, dropped = store.read_results(out / "results.jsonl")
    assert len(rows) == 1 and dropped == 40

    result = run(config_at(out), progress=False)
    assert result.dropped_bytes == 40 and (result.skipped, result.ran) == (1, 5)
    assert results_bytes(out) == results_bytes(reference)


def test_changed_config_is_refused(reference, tmp_path, capsys):
    out = tmp_path / "changed"
    shutil.copytree(reference, out)
    before = results_bytes(out)
    with pytest.raises(ConfigError, match=r"different config \(spread: 0.3 there, 0.2 now\)"):
        run(parse_args(FLAGS + ["--out", str(out), "--spread", "0.2"]), progress=False)
    assert main(FLAGS + ["--out", str(out), "--seeds", "0", "1", "2", "--no-progress"]) == 2
    assert "seeds: [0, 1] there, [0, 1, 2] now" in capsys.readouterr().err
    assert results_bytes(out) == before


def test_report_prints_the_table_again(reference, capsys):
    assert report.main([str(reference)]) == 0
    text = capsys.readouterr().out
    assert "widowx" in text and "scripted-pattern" in text and "Wilson" in text
    assert "6 of 6 episodes" in text
    assert report.main([str(reference), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table == json.loads((reference / "summary.json").read_text())["table"]
    lo, hi = table[0]["success_wilson95"]
    assert lo <= table[0]["success_rate"] <= hi


def test_report_of_unfinished_sweep(reference, tmp_path, capsys):
    out = tmp_path / "part"
    shutil.copytree(reference, out)
    data = results_bytes(reference)
    (out / "results.jsonl").write_bytes(data[: data.index(b"\n") + 10])
    assert report.main([str(out)]) == 0
    text = capsys.readouterr().out
    assert "1/6" in text and "1 of 6 episodes" in text and "unfinished" in text and "cut-off" in text
    assert results_bytes(out) == data[: data.index(b"\n") + 10]  # the report never writes


def test_damaged_middle_line_is_an_error(tmp_path):
    path = tmp_path / "results.jsonl"
    good = '{"task": "widowx", "policy": "p", "variant": "v", "seed": 0, "episode_id": 0}'
    path.write_text('{"task": "widowx"\n' + good + "\n")
    with pytest.raises(store.ResultsFileError, match="line 1 .* is not a result line"):
        store.read_results(path)


def test_chunks_are_fixed_blocks():
    c = parse_args(FLAGS)
    chunks = grid.plan(c)
    assert [(ch.seed, ch.episode_ids, ch.padded_ids()) for ch in chunks] == [
        (0, (0, 1), (0, 1)), (0, (2,), (2, 2)), (1, (0, 1), (0, 1)), (1, (2,), (2, 2))]
    done = {grid.EpisodeKey("widowx", "scripted-pattern", "default", 0, 0)}
    todo = grid.pending(chunks, done)
    assert todo[0][0] == chunks[0] and [k.episode_id for k in todo[0][1]] == [1]
