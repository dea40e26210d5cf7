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
