"""benchmarks/tasks.py's command-line parsing (the benchmark itself runs outside the tests)."""

import importlib.util
import pathlib
import re

import pytest

from simpler_jax.scenes.scene import ROBOTS

_PATH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "tasks.py"
_spec = importlib.util.spec_from_file_location("benchmark_tasks", _PATH)
tasks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tasks)


def test_finger_dampratio_entries_parse_per_robot():
    assert tasks.parse_dampratios(["google_robot=4", "widowx=2.5"], ROBOTS) == {"google_robot": 4.0, "widowx": 2.5}
    assert tasks.parse_dampratios([], ROBOTS) == {}


@pytest.mark.parametrize("entry, message", [
    ("google=4", "ROBOT one of ['google_robot', 'widowx']"),
    ("google_robot", "expected ROBOT=RATIO"),
    ("google_robot=four", "positive finite"),
    ("widowx=0", "positive finite"),
    ("widowx=-1", "positive finite"),
    ("widowx=nan", "positive finite"),
    ("widowx=inf", "positive finite"),
])
def test_bad_finger_dampratio_entries_name_the_entry(entry, message):
    with pytest.raises(ValueError, match=re.escape(message)) as e:
        tasks.parse_dampratios([entry], ROBOTS)
    assert repr(entry) in str(e.value)


_GPU_TASKS = _PATH.parent / "gpu_tasks.sh"
_GPU_RUNS = ["place_apple", "open_drawer", "close_drawer", "pick_coke_can", "eggplant", "spoon", "carrot",
             "stack_cube", "place_apple_ratio4", *(f"move_near_t{t}" for t in range(5)), "move_near_t1_ratio4"]


def _gpu_tasks(*args):
    import os
    import subprocess

    return subprocess.run(["bash", str(_GPU_TASKS), *args], capture_output=True, text=True,
                          env={**os.environ, "DRY_RUN": "1"}, timeout=60)


def test_gpu_tasks_runs_name_known_tasks_and_episodes(tmp_path):
    from simpler_jax.tasks import task_spec

    done = _gpu_tasks(str(tmp_path), "500", *_GPU_RUNS)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == _GPU_RUNS
    for line in lines:
        name, *args = line.split()
        assert args[0] == "--tasks" and int(args[args.index("--worlds") + 1]) > 0
        grid = [e.episode_id for e in task_spec(args[1]).episodes()]
        if "--episodes" in args:
            ids = [int(a) for a in args[args.index("--episodes") + 1:] if a.isdigit()]
            assert len(ids) == 12 and set(ids) <= set(grid), name
        assert ("--finger-object-dampratio" in args) == name.endswith("_ratio4")
        if name.endswith("_ratio4"):
            assert tasks.parse_dampratios([args[args.index("--finger-object-dampratio") + 1]], ROBOTS)
    assert not list(tmp_path.iterdir())  # a dry run writes nothing


@pytest.mark.parametrize("run", ["coke", "move_near_t5", "eggplant_ratio4"])
def test_gpu_tasks_names_an_unknown_run(tmp_path, run):
    done = _gpu_tasks(str(tmp_path), "500", "place_apple", run)
    assert done.returncode == 2
    assert f"unknown run '{run}'" in done.stderr and "allowed: place_apple" in done.stderr
    assert not done.stdout
