"""`python -m simpler_jax.sweep`: settings (defaults < TOML < flags), refused before compiling anything."""

import pathlib
import re
import time

import pytest

from simpler_jax.sweep import ConfigError, SweepConfig, main, parse_args, resolve
from simpler_jax.sweep import grid
from simpler_jax.sweep.plugins import POLICIES, TASKS, scene_keys, variant_names

REPO = pathlib.Path(__file__).resolve().parents[1]
EXPERIMENTS = REPO / "experiments"
SMOKE = EXPERIMENTS / "smoke.toml"


@pytest.fixture
def no_env(monkeypatch):
    """Building or compiling any task scene fails the test."""
    from simpler_jax.sweep import rollouts

    def boom(*a, **k):
        raise AssertionError("a scene was built before the settings were checked")

    monkeypatch.setattr(rollouts, "get_scene", boom)
    monkeypatch.setattr(rollouts, "run_chunk", boom)


def test_defaults_are_small():
    c = parse_args([])
    assert c == SweepConfig()
    assert c.tasks == ("google_robot_close_drawer", "widowx_stack_cube") and c.seeds == (0,)
    assert c.policies == ("scripted", "zero") and c.variants == ("visual_matching",)
    assert c.max_episodes == 1 and c.num_episodes == 4 and c.steps == 0


def test_tasks_are_the_simpler_tasks():
    from simpler_jax.tasks.spec import TASK_SPECS

    assert set(TASKS) == set(TASK_SPECS)
    assert set(POLICIES) == {"scripted", "zero"}


def test_example_config_and_flag_overrides():
    c = parse_args([str(SMOKE)])
    assert c.tasks == ("widowx_stack_cube",) and c.seeds == (0, 1)
    assert c.out == "results/smoke"
    c = parse_args([str(SMOKE), "--seeds", "7", "--episodes", "3", "5", "--tasks", "widowx_carrot_on_plate",
                    "--out", "x"])
    assert c.seeds == (7,) and c.episodes == (3, 5) and c.tasks == ("widowx_carrot_on_plate",) and c.out == "x"
    assert c.episode_ids("widowx_carrot_on_plate") == (3, 5)[: c.max_episodes or None]
    assert parse_args(["--episodes", "all"]).episodes == "all"
    assert c.identity() == resolve(c.identity()).identity()  # what sweep_config.json holds round-trips


@pytest.mark.parametrize("path", sorted(EXPERIMENTS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_experiment_config_is_valid(path):
    c = parse_args([str(path)])
    assert c.num_episodes > 0
    for task in c.tasks:
        assert set(c.variants) <= set(variant_names(task))


def test_paper_grids_are_planned_whole():
    """A full-grid config plans every paper episode once, chunked by scene."""
    c = resolve({"tasks": ["google_robot_move_near", "google_robot_pick_coke_can", "widowx_stack_cube"],
                 "policies": ["scripted"], "max_episodes": 0, "chunk": 8})
    chunks = grid.plan(c)
    per_task = {t: sorted(e for ch in chunks if ch.task == t for e in ch.episode_ids) for t in c.tasks}
    assert per_task == {"google_robot_move_near": list(range(60)), "google_robot_pick_coke_can": list(range(75)),
                        "widowx_stack_cube": list(range(24))}
    for ch in chunks:
        assert len(ch.padded_ids()) == ch.size <= 8
        keys = scene_keys(ch.task)
        assert {keys[e] for e in ch.episode_ids} == {ch.scene_key}  # one compiled scene per chunk
    assert len({ch.scene_key for ch in chunks if ch.task == "google_robot_move_near"}) == 5
    assert c.num_episodes == 60 + 75 + 24


def test_variant_aggregation_variants_are_per_task():
    c = parse_args(["--tasks", "google_robot_close_drawer", "--variants", "visual_matching", "darker",
                    "mk_station2"])
    assert c.variants == ("visual_matching", "darker", "mk_station2")
    from simpler_jax.sweep.rollouts import SceneOptions, scene_options
    from simpler_jax.tasks.variants import COKE_CAN_DISTRACTORS

    assert scene_options("google_robot_close_drawer", "mk_station2") == SceneOptions("mk_station2")
    assert scene_options("google_robot_close_drawer", "darker") == SceneOptions("mk_station")  # VA: plain station
    assert scene_options("google_robot_close_drawer", "visual_matching") == SceneOptions("mk_station_recolor")
    assert scene_options("google_robot_pick_coke_can", "more_distractors").distractors == COKE_CAN_DISTRACTORS["more"]
    assert scene_options("google_robot_move_near", "no_distractor") == SceneOptions("mk_station_recolor")
    # Table textures are a look of the base scene: images only, the rollout's scene is shared.
    table = scene_options("google_robot_pick_coke_can", "cabinet2_table")
    assert table.appearance == "cabinet2_table" and table.physics == scene_options("google_robot_pick_coke_can", "base")


FLAG_CASES = [
    (["--tasks", "widowx_stack_cubes"], r"in 'tasks': unknown task 'widowx_stack_cubes'; did you mean "
                                        r"'widowx_stack_cube'\?"),
    (["--policies", "rt1"], r"in 'policies': unknown policy 'rt1'.*known: \['scripted', 'zero'\]"),
    (["--variants", "dark"], r"unknown variant 'dark' in 'variants' for task 'google_robot_close_drawer'; "
                             r"allowed for that task: \['visual_matching', 'base', "),
    (["--tasks", "widowx_stack_cube", "--variants", "darker"],
     r"unknown variant 'darker' in 'variants' for task 'widowx_stack_cube'; allowed for that task: "
     r"\['visual_matching'\]"),
    (["--episodes", "0", "24"], r"'episodes' = \[0, 24\]: \[24\] not in the grid of task 'widowx_stack_cube'; "
                                r"allowed: 0..23"),
    (["--episodes", "first"], r"--episodes first: give 'all' or integer episode ids"),
    (["--max-episodes", "-1"], r"'max_episodes' = -1 is out of range; allowed: an integer >= 0"),
    (["--seeds", "1", "-2"], r"'seeds' = \[1, -2\]: -2 is negative"),
    (["--seeds", "3", "3"], r"'seeds' = \[3, 3\] repeats \[3\]"),
    (["--seeds", "x"], r"argument --seeds/--seed: invalid int value: 'x'"),
    (["--chunk", "0"], r"'chunk' = 0 is out of range; allowed: an integer >= 1"),
    (["--videos", "-1"], r"'videos' = -1 is out of range; allowed: an integer >= 0"),
]

TOML_CASES = [
    ("tasks = []", r"empty grid: 'tasks' is empty; give at least one of \['google_robot_close_bottom_drawer'"),
    ("seeds = []", r"empty grid: 'seeds' is empty"),
    ("policies = []", r"empty grid: 'policies' is empty"),
    ("episodes = []", r"empty grid: 'episodes' is empty; episode ids must be distinct non-negative integers "
                      r"\(or \"all\"\)"),
    ('episodes = "some"', r"'episodes' = 'some' must be \"all\" or a list of episode ids"),
    ("seeds = [0, 1.5]", r"'seeds' = \[0, 1.5\]: 1.5 is not an integer"),
    ('seeds = [0, "1"]', r"'seeds' = \[0, '1'\]: '1' is not an integer"),
    ("seeds = 3", r"'seeds' = 3 must be a list"),
    ('tasks = ["widowx_stack_cube", "widowx_stack_cube"]', r"repeats \['widowx_stack_cube'\]"),
    ("steps = true", r"'steps' = True is not an integer"),
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
    path.write_text("chunk = 0\n")
    with pytest.raises(SystemExit):
        parse_args([str(path)])
    assert parse_args([str(path), "--chunk", "2"]).chunk == 2


def test_resolve_raises_config_error():
    with pytest.raises(ConfigError, match=r"unknown variant 'night' in 'variants'"):
        resolve({"variants": ["night"]})


def test_other_config_in_out_dir_is_refused_before_building(capsys, no_env, tmp_path):
    from simpler_jax.sweep import store

    out = tmp_path / "out"
    first = parse_args(["--tasks", "widowx_stack_cube", "--max-episodes", "2", "--out", str(out)])
    store.claim_folder(out, first.identity())
    assert main(["--tasks", "widowx_stack_cube", "--max-episodes", "3", "--seeds", "0", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"different config \(max_episodes: 2 there, 3 now; seeds: \[0\] there, \[0, 1\] now\)",
                     err), err


def test_results_without_config_are_refused(capsys, no_env, tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "results.jsonl").write_text('{"robot": "widowx", "world": 0}\n')
    assert main(["--out", str(out)]) == 2
    assert "exists without sweep_config.json" in capsys.readouterr().err


def test_list_names_tasks_variants_and_policies(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--list"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "google_robot_open_drawer  (27 episodes, 113 steps)" in text
    assert "widowx_put_eggplant_in_basket  (24 episodes, 120 steps)" in text
    assert "mk_station2" in text and "scripted:" in text and "zero:" in text
