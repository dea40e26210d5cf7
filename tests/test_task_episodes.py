"""Task names, instructions and episode id -> (objects, poses) against the spec's tables."""

import math

import pytest

from simpler_jax.tasks import episodes as E
from simpler_jax.tasks import instructions
from simpler_jax.tasks.object_info import object_info
from simpler_jax.tasks.spec import TASK_SPECS, task_spec

S = math.sqrt(0.5)


@pytest.mark.parametrize("model_id,name", [
    ("baked_opened_pepsi_can_v2", "pepsi can"), ("opened_7up_can", "7up can"),
    ("green_cube_3cm", "green cube"), ("bridge_spoon_generated_modified", "spoon"),
    ("blue_plastic_bottle", "blue plastic bottle"), ("baked_apple_v2", "apple"),
])
def test_instruction_object_names(model_id, name):
    assert instructions.object_name(model_id) == name


@pytest.mark.parametrize("task,first,count", [
    ("google_robot_pick_coke_can", ("pick coke can",), 75),
    ("google_robot_pick_horizontal_coke_can", ("pick coke can",), 25),
    ("google_robot_move_near_v0", ("move blue plastic bottle near pepsi can",), 60),
    ("google_robot_open_drawer", ("open top drawer",), 27),
    ("google_robot_close_middle_drawer", ("close middle drawer",), 9),
    ("google_robot_open_bottom_drawer", ("open bottom drawer",), 9),
    ("google_robot_place_apple_in_closed_top_drawer", ("open top drawer", "place apple into top drawer"), 27),
    ("widowx_spoon_on_towel", ("put the spoon on the towel",), 24),
    ("widowx_carrot_on_plate", ("put carrot on plate",), 24),
    ("widowx_stack_cube", ("stack the green block on the yellow block",), 24),
    ("widowx_put_eggplant_in_basket", ("put eggplant into yellow basket",), 24),
])
def test_paper_grids_and_instructions(task, first, count):
    eps = task_spec(task).episodes()
    assert len(eps) == count
    assert eps[0].instruction == first
    assert [e.episode_id for e in eps] == list(range(count))


def test_episode_lengths_and_robots():
    expect = {"grasp": 80, "move_near": 80, "drawer": 113, "place_in_drawer": 200}
    for spec in TASK_SPECS.values():
        if spec.family in expect:
            assert spec.max_steps == expect[spec.family] and spec.robot == "google_robot"
    assert task_spec("widowx_put_eggplant_in_basket").max_steps == 120
    assert task_spec("widowx_stack_cube").max_steps == 60


def test_coke_can_grid():
    eps = task_spec("google_robot_pick_coke_can").episodes()
    assert sorted({round(e.object_xy[0][0], 4) for e in eps}) == [-0.35, -0.2925, -0.235, -0.1775, -0.12]
    assert sorted({round(e.object_xy[0][1], 4) for e in eps}) == [-0.02, 0.09, 0.2, 0.31, 0.42]
    assert eps[0].object_quat[0] == (0.0, 0.0, 0.0, 1.0)  # horizontal first
    assert eps[25].object_quat[0] == pytest.approx((S, 0, 0, S))  # vertical
    assert eps[50].object_quat[0] == pytest.approx((S, S, 0, 0))  # standing
    assert eps[1].object_xy[0] == pytest.approx((-0.35, 0.09))  # y runs fastest
    assert all(e.robot_xy == (0.35, 0.20) and e.robot_yaw == pytest.approx(math.pi) for e in eps)
    assert all(e.model_ids == ("opened_coke_can",) for e in eps)


@pytest.mark.parametrize("episode_id,triplet,pair,cfg", [
    (0, 0, (0, 1), 0), (5, 0, (2, 1), 0), (6, 0, (0, 1), 1), (13, 1, (0, 2), 0), (59, 4, (2, 1), 1),
])
def test_move_near_episode_ids(episode_id, triplet, pair, cfg):
    e = task_spec("google_robot_move_near_v0").episodes()[episode_id]
    assert e.model_ids == E.MOVE_NEAR_TRIPLETS_V0[triplet]
    assert (e.source, e.target) == pair
    assert e.object_xy == E.MOVE_NEAR_XY[cfg]
    assert e.scene_key == f"triplet{triplet}"
    assert e.robot_xy == (0.35, 0.21) and e.robot_yaw == pytest.approx(math.pi - 0.09)


def test_move_near_versions_and_orientations():
    v1 = task_spec("google_robot_move_near").episodes()
    assert v1[0].model_ids == ("blue_plastic_bottle", "baked_opened_pepsi_can_v2", "orange")
    assert v1[0].object_quat == ((0.5, 0.5, 0.5, 0.5), E.STANDING, E.YAW_90)
    assert task_spec("google_robot_move_near").object_density("baked_apple_v2", 800.0) == 200.0
    assert task_spec("google_robot_pick_object").object_density("apple", 800.0) == 800.0
    for e in v1 + task_spec("google_robot_move_near_v0").episodes():
        for m in e.model_ids:
            object_info(task_spec(e.task).info_file, m)  # every model is in the task's JSON


def test_drawer_grid():
    eps = task_spec("google_robot_close_drawer").episodes()
    assert [e.drawer for e in eps] == [0] * 9 + [1] * 9 + [2] * 9
    assert eps[0].drawer_qpos == (0.2, 0.0, 0.0) and eps[9].drawer_qpos == (0.0, 0.2, 0.0)
    assert eps[0].robot_xy == (0.644, -0.179) and eps[0].robot_yaw == pytest.approx(math.pi - 0.03)
    assert eps[8].overlay == "open_drawer_c2.png" and eps[8].robot_yaw == pytest.approx(math.pi - 0.025)
    assert all(e.drawer_qpos == (0.0, 0.0, 0.0) for e in task_spec("google_robot_open_drawer").episodes())


def test_apple_grid():
    eps = task_spec("google_robot_place_apple_in_closed_top_drawer").episodes()
    assert {e.overlay for e in eps} == {"open_drawer_a0.png", "open_drawer_b0.png", "open_drawer_c0.png"}
    assert eps[0].object_xy == ((-0.08, -0.02),) and eps[8].object_xy == ((-0.02, 0.08),)
    assert eps[9].robot_xy == (0.652, 0.009) and eps[0].model_ids == ("baked_apple_v2",)
    assert all(e.drawer == 0 and e.drawer_qpos == (0.0, 0.0, 0.0) for e in eps)


def test_bridge_episode_ids():
    spoon = task_spec("widowx_spoon_on_towel").episodes()
    assert spoon[0].object_xy == ((-0.235, -0.075), (-0.235, 0.075))
    assert spoon[0].object_quat == (E.IDENTITY, E.IDENTITY) and spoon[1].object_quat == (E.YAW_90, E.IDENTITY)
    assert spoon[1].object_xy == spoon[0].object_xy and spoon[2].object_xy == ((-0.235, -0.075), (-0.085, -0.075))
    assert spoon[23].object_xy == ((-0.085, 0.075), (-0.085, -0.075))
    carrot = task_spec("widowx_carrot_on_plate").episodes()
    assert carrot[0].object_quat[0] == E.YAW_180 and carrot[1].object_quat[0] == E.YAW_MINUS_90
    cube = task_spec("widowx_stack_cube").episodes()
    assert [c for xy in cube[0].object_xy for c in xy] == pytest.approx([-0.21, -0.05, -0.21, 0.05])
    assert [c for xy in cube[12].object_xy for c in xy] == pytest.approx([-0.26, -0.1, -0.26, 0.1])
    egg = task_spec("widowx_put_eggplant_in_basket").episodes()
    assert egg[0].object_xy == ((-0.115, 0.191), (-0.125, 0.025)) and egg[3].object_xy[0] == (-0.115, 0.201)
    assert egg[23].object_xy[0] == (-0.095, 0.221) and egg[23].object_quat[0] == E.EGGPLANT_QUATS[2]
    assert egg[0].robot_xy == (0.127, 0.06) and spoon[0].robot_xy == (0.147, 0.028)
    assert all((e.source, e.target) == (0, 1) for e in spoon + egg)


def test_unknown_task_names_the_closest():
    with pytest.raises(ValueError, match="did you mean 'widowx_stack_cube'"):
        task_spec("widowx_stack_cubes")
