"""A sweep stopped after some chunks and resumed writes the same `results.jsonl` as one that
never stopped (real MJX physics; the stop is an exception from the `on_chunk_done` hook).

Tiny shapes: one task (WidowX stack cube, scripted policy), one seed x episodes 0-2,
2 worlds per compiled call (the second chunk is padded), whole 60-step episodes, the
first chunk filmed. The rollout is the one tests/test_task_env.py compiles (same
memoised scene); both modules run in one test process, so it is compiled once.
"""

import json
import shutil

import numpy as np

import pytest

from simpler_jax import report
from simpler_jax.sweep import ConfigError, grid, main, parse_args, run, store

TASK = "widowx_stack_cube"
STEPS = 60  # tests/test_task_env.py MAX_STEPS: the same compiled rollout
pytestmark = pytest.mark.xdist_group("stack_cube_rollout")  # see tests/test_task_env.py
FLAGS = ["--tasks", TASK, "--policies", "scripted", "--seeds", "0", "--episodes", "0", "1", "2",
         "--max-episodes", "0", "--chunk", "2", "--steps", str(STEPS), "--videos", "1"]


class Interrupt(Exception):
    pass


def config_at(out):
    return parse_args(FLAGS + ["--out", str(out)])


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted sweep's folder."""
    out = tmp_path_factory.mktemp("sweep") / "reference"
    result = run(config_at(out), progress=False)
    assert result.skipped == 0 and result.ran == 3
    return out


def results_bytes(out) -> bytes:
    return (out / "results.jsonl").read_bytes()


def test_reference_results(reference):
    rows = [json.loads(line) for line in results_bytes(reference).decode().splitlines()]
    keys = [grid.key_of(r) for r in rows]
    assert keys == grid.canonical_keys(config_at(reference))  # canonical order, one line per episode
    assert [(k.seed, k.episode_id) for k in keys] == [(0, 0), (0, 1), (0, 2)]
    for r in rows:
        assert (r["task"], r["policy"], r["variant"]) == (TASK, "scripted", "visual_matching")
        assert r["scene_key"] == TASK and r["checkpoint"] is None
        assert r["instruction"] == ["stack the green block on the yellow block"]
        assert not r["nonfinite"] and r["control_steps"] == STEPS
        assert r["success"]  # issue 3's reduced grid: the scripted policy stacks the cube in episodes 0-2
        assert set(r["episode_stats"]) == {"moved_correct_obj", "moved_wrong_obj", "is_src_obj_grasped",
                                           "consecutive_grasp", "src_on_target"}
    assert json.loads((reference / "sweep_config.json").read_text())["config"] == config_at(reference).identity()
    summary = json.loads((reference / "summary.json").read_text())
    assert summary["episodes"] == {"done": 3, "expected": 3}
    assert summary["table"][0]["episodes"] == 3
    assert summary["table"][0]["success_rate"] == np.mean([r["success"] for r in rows])
    assert summary["variants"][f"{TASK}/visual_matching"]["kind"] == "visual_matching"
    assert summary["sim_vs_real"] == [] and "jax" in summary["versions"]


def test_videos_show_the_filmed_episodes(reference):
    from PIL import Image

    gifs = sorted(p.name for p in (reference / "videos").iterdir())
    assert gifs == [f"{TASK}__scripted__visual_matching__seed0__chunk0.gif"]
    with Image.open(reference / "videos" / gifs[0]) as im:
        assert im.size == (160, 120)
        im.seek(0)
        frame = np.asarray(im.convert("RGB"))
        durations = []
        for i in range(im.n_frames):  # GIF writers merge identical consecutive frames
            im.seek(i)
            durations.append(im.info["duration"])
    from simpler_jax.robots import widowx

    # One world, filmed at the control rate: the reset, then each step.
    frame_ms = round(1000 / widowx.CONFIG.control_freq)
    assert sum(durations) == (STEPS + 1) * frame_ms
    assert frame.std() > 10  # a rendered scene, not a blank image


def test_interrupted_sweep_resumes_to_the_same_file(reference, tmp_path):
    """Stopped after chunk 0, then killed while writing a line of chunk 1 (the cut-off
    line is appended by hand): the resume drops the cut-off bytes, keeps chunk 0 and
    runs chunk 1 only. (One resumed chunk covers both ways a sweep stops: each
    rollout costs most of a minute on CI's CPUs.)"""
    out = tmp_path / "interrupted"
    seen = []

    def stop_after_one(done):
        seen.append(done)
        if done.chunks_done == 1:
            raise Interrupt

    with pytest.raises(Interrupt):
        run(config_at(out), on_chunk_done=stop_after_one, progress=False)
    assert [d.episodes_done for d in seen] == [2]
    assert len(results_bytes(out).splitlines()) == 2
    assert results_bytes(out) == b"".join(results_bytes(reference).splitlines(keepends=True)[:2])
    assert not (out / "summary.json").exists()

    data = results_bytes(reference)
    third = data.splitlines(keepends=True)[2]
    with open(out / "results.jsonl", "ab") as f:  # line 3 cut mid-write
        f.write(third[:40])
    rows, dropped = store.read_results(out / "results.jsonl")
    assert len(rows) == 2 and dropped == 40

    resumed = run(config_at(out), progress=False)  # chunk 1 holds one episode (padded)
    assert resumed.dropped_bytes == 40 and (resumed.skipped, resumed.ran) == (2, 1)
    assert results_bytes(out) == results_bytes(reference)  # byte-identical, no sorting needed
    assert json.loads((out / "summary.json").read_text())["episodes"]["done"] == 3

    again = run(config_at(out), progress=False)  # nothing left to do
    assert (again.skipped, again.ran, again.dropped_bytes) == (3, 0, 0)
    assert results_bytes(out) == results_bytes(reference)


def test_changed_config_is_refused(reference, tmp_path, capsys):
    out = tmp_path / "changed"
    shutil.copytree(reference, out)
    before = results_bytes(out)
    with pytest.raises(ConfigError, match=r"different config \(steps: 60 there, 3 now\)"):
        run(parse_args(FLAGS + ["--out", str(out), "--steps", "3"]), progress=False)
    assert main(FLAGS + ["--out", str(out), "--seeds", "0", "1", "--no-progress"]) == 2
    assert "seeds: [0] there, [0, 1] now" in capsys.readouterr().err
    assert results_bytes(out) == before


def test_report_prints_the_table_again(reference, capsys):
    assert report.main([str(reference)]) == 0
    text = capsys.readouterr().out
    assert TASK in text and "scripted" in text and "Wilson" in text
    assert "3 of 3 episodes" in text
    assert report.main([str(reference), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    summary = json.loads((reference / "summary.json").read_text())
    assert printed == {"table": summary["table"], "sim_vs_real": summary["sim_vs_real"]}
    table = printed["table"]
    lo, hi = table[0]["success_wilson95"]
    assert lo <= table[0]["success_rate"] <= hi


def test_report_of_unfinished_sweep(reference, tmp_path, capsys):
    out = tmp_path / "part"
    shutil.copytree(reference, out)
    data = results_bytes(reference)
    (out / "results.jsonl").write_bytes(data[: data.index(b"\n") + 10])
    assert report.main([str(out)]) == 0
    text = capsys.readouterr().out
    assert "1/3" in text and "1 of 3 episodes" in text and "unfinished" in text and "cut-off" in text
    assert results_bytes(out) == data[: data.index(b"\n") + 10]  # the report never writes


def test_damaged_middle_line_is_an_error(tmp_path):
    path = tmp_path / "results.jsonl"
    good = '{"task": "widowx_stack_cube", "policy": "p", "variant": "v", "seed": 0, "episode_id": 0}'
    path.write_text('{"task": "widowx_stack_cube"\n' + good + "\n")
    with pytest.raises(store.ResultsFileError, match="line 1 .* is not a result line"):
        store.read_results(path)


def test_chunks_are_fixed_blocks():
    c = parse_args(FLAGS)
    chunks = grid.plan(c)
    assert [(ch.seed, ch.episode_ids, ch.padded_ids()) for ch in chunks] == [(0, (0, 1), (0, 1)), (0, (2,), (2, 2))]
    two_seeds = grid.plan(parse_args(FLAGS + ["--seeds", "0", "1"]))
    assert [(ch.seed, ch.episode_ids) for ch in two_seeds] == [(0, (0, 1)), (0, (2,)), (1, (0, 1)), (1, (2,))]
    done = {grid.EpisodeKey(TASK, "scripted", "visual_matching", 0, 0)}
    todo = grid.pending(chunks, done)
    assert todo[0][0] == chunks[0] and [k.episode_id for k in todo[0][1]] == [1]
