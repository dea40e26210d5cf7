"""`python -m simpler_jax.sweep`: settings (defaults < TOML < flags), refused before compiling anything."""

import pathlib
import re
import time

import pytest

from simpler_jax.sweep import ConfigError, SweepConfig, main, parse_args, resolve
from simpler_jax.sweep.plugins import TASKS, square_pattern

REPO = pathlib.Path(__file__).resolve().parents[1]
SMOKE = REPO / "experiments" / "core_smoke.toml"


@pytest.fixture
def no_env(monkeypatch):
    """Building or compiling any env fails the test."""
    from simpler_jax.sweep import physics

    def boom(*a, **k):
        raise AssertionError("an env was built before the settings were checked")

    monkeypatch.setattr(physics, "build_env", boom)
    monkeypatch.setattr(physics, "get_env", boom)
    monkeypatch.setattr(physics, "run_chunk", boom)


def test_defaults_are_small():
    c = parse_args([])
    assert c == SweepConfig()
    assert c.tasks == ("widowx", "google_robot") and c.worlds == 8 and c.seeds == (0,)
    assert c.policies == ("scripted-pattern",) and c.variants == ("default",)
    assert c.num_episodes == 16 and c.control_steps == 11


def test_tasks_are_the_robot_scenes():
    from simpler_jax.scenes.scene import ROBOTS

    assert set(TASKS) == set(ROBOTS)


def test_example_config_and_flag_overrides():
    c = parse_args([str(SMOKE)])
    assert c.tasks == ("widowx", "google_robot") and c.seeds == (0, 1)
    assert c.worlds <= 4 and c.chunk <= 4 and c.control_steps <= 6
    assert c.out == "results/core_smoke"
    c = parse_args([str(SMOKE), "--seeds", "7", "--worlds", "2", "--robots", "widowx", "--out", "x"])
    assert c.seeds == (7,) and c.worlds == 2 and c.tasks == ("widowx",) and c.out == "x"
    assert c.chunk == 2  # capped at worlds
    assert c.identity() == resolve(c.identity()).identity()  # what sweep_config.json holds round-trips


def test_scripted_pattern_shape():
    a = square_pattern(SweepConfig(steps_per_side=2, settle_steps=3))
    assert a.shape == (11, 7) and a.dtype.name == "float32"
    assert abs(a[:, :3].sum(axis=0)).max() < 1e-7  # the square closes
    assert (a[-3:] == 0).all()


FLAG_CASES = [
    (["--robots", "franka"], r"unknown task 'franka' in 'tasks'; allowed: \['google_robot', 'widowx'\]"),
    (["--policies", "rt1"], r"unknown policy 'rt1' in 'policies'; allowed: \['scripted-pattern'\]"),
    (["--variants", "dark"], r"unknown variant 'dark' in 'variants'; allowed: \['default'\]"),
    (["--worlds", "0"], r"empty grid: 'worlds' = 0 is out of range; allowed: an integer >= 1"),
    (["--seeds", "1", "-2"], r"'seeds' = \[1, -2\]: -2 is negative"),
    (["--seeds", "3", "3"], r"'seeds' = \[3, 3\] repeats \[3\]"),
    (["--seeds", "x"], r"argument --seeds/--seed: invalid int value: 'x'"),
    (["--spread", "1.5"], r"'spread' = 1.5 is out of range; allowed: 0 <= spread < 1"),
    (["--chunk", "0"], r"'chunk' = 0 is out of range; allowed: an integer >= 1"),
]

TOML_CASES = [
    ("tasks = []", r"empty grid: 'tasks' is empty; give at least one of \['google_robot', 'widowx'\]"),
    ("seeds = []", r"empty grid: 'seeds' is empty"),
    ("policies = []", r"empty grid: 'policies' is empty"),
    ("seeds = [0, 1.5]", r"'seeds' = \[0, 1.5\]: 1.5 is not an integer"),
    ('seeds = [0, "1"]', r"'seeds' = \[0, '1'\]: '1' is not an integer"),
    ("seeds = 3", r"'seeds' = 3 must be a list"),
    ('tasks = ["widowx", "widowx"]', r"'tasks' = \['widowx', 'widowx'\] repeats \['widowx'\]"),
    ("worlds = true", r"'worlds' = True is not an integer"),
    ("robots = ['widowx']", r"unknown key\(s\) \['robots'\] in .*bad.toml; allowed keys: \['tasks', 'policies'"),
    ("tasks = [", r"is not valid TOML"),
]


def _refused(argv, capsys) -> str:
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert time.perf_counter() - t0 < 10, "refusing a bad setting should not take long"
    return capsys.readouterr().err


@pytest.mark.parametrize("argv, message", FLAG_CASES)
def test_bad_flags_are_refused_before_building(argv, message, capsys, no_env, tmp_path):
    err = _refused(argv + ["--out", str(tmp_path / "out")], capsys)
    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, message", TOML_CASES)
def test_bad_config_files_are_refused_before_building(text, message, capsys, no_env, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f'out = "{tmp_path / "out"}"\n{text}\n')
    err = _refused([str(path)], capsys)
    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


def test_missing_config_file(capsys, no_env, tmp_path):
    err = _refused([str(tmp_path / "nope.toml")], capsys)
    assert "nope.toml' does not exist" in err


def test_flags_fix_a_bad_file_value(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("worlds = 0\n")
    with pytest.raises(SystemExit):
        parse_args([str(path)])
    assert parse_args([str(path), "--worlds", "2"]).worlds == 2


def test_resolve_raises_config_error():
    with pytest.raises(ConfigError, match=r"unknown variant 'night' in 'variants'"):
        resolve({"variants": ["night"]})


def test_other_config_in_out_dir_is_refused_before_building(capsys, no_env, tmp_path):
    from simpler_jax.sweep import store

    out = tmp_path / "out"
    first = parse_args(["--robots", "widowx", "--worlds", "2", "--out", str(out)])
    store.claim_folder(out, first.identity())
    assert main(["--robots", "widowx", "--worlds", "3", "--chunk", "2", "--seeds", "0", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"different config \(seeds: \[0\] there, \[0, 1\] now; worlds: 2 there, 3 now\)", err), err


def test_results_without_config_are_refused(capsys, no_env, tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "results.jsonl").write_text('{"robot": "widowx", "world": 0}\n')
    assert main(["--out", str(out)]) == 2
    assert "exists without sweep_config.json" in capsys.readouterr().err
