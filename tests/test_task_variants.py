"""Variant Aggregation variants (SIMPLER_SPEC.md §3.2) as data and per-world parameters."""

import numpy as np
import pytest

from simpler_jax.render.lighting import lighting_mode
from simpler_jax.scenes.appearance import TABLE_APPEARANCES
from simpler_jax.tasks import variants as V
from simpler_jax.tasks.env import TaskEnv


@pytest.mark.parametrize("task,in_metric,run", [
    ("google_robot_pick_coke_can", 9, 11), ("google_robot_pick_standing_coke_can", 9, 11),
    ("google_robot_move_near_v0", 8, 10), ("google_robot_open_top_drawer", 7, 7),
    ("google_robot_close_drawer", 7, 7), ("google_robot_place_apple_in_closed_top_drawer", 7, 7),
])
def test_variant_counts_match_the_paper(task, in_metric, run):
    vs = V.variants(task)
    assert len(vs) == run and sum(v.in_metric for v in vs) == in_metric
    assert len({v.name for v in vs}) == len(vs)
    for v in vs:
        if v.background and v.background != "frl_apartment_stage_simple":
            assert v.substitute  # unavailable originals say what stands in
        assert V.variant_metadata(v)["name"] == v.name
        if v.kind == "table" and v.background:  # the cabinet-room tables: a substitute texture, per world
            assert v.appearance in TABLE_APPEARANCES and V.variant_metadata(v)["appearance"] == v.appearance


def test_bridge_tasks_have_no_variant_aggregation():
    with pytest.raises(ValueError, match="no Variant Aggregation"):
        V.variants("widowx_stack_cube")
    with pytest.raises(ValueError, match="unknown variant 'foggy'.*allowed"):
        V.variant("google_robot_pick_coke_can", "foggy")


def test_per_world_variants_set_lighting_and_head_tilt():
    env = TaskEnv("google_robot_pick_coke_can")
    params = env.episode_params([0, 1])
    np.testing.assert_allclose(params.robot.light_colors[:, 0, 0], 2.2)  # the task's default light
    darker = V.apply_variant(params, V.variant("google_robot_pick_coke_can", "slightly_darker_lighting"))
    np.testing.assert_allclose(darker.robot.light_colors[0], lighting_mode("slightly_darker").colors)
    cam = V.apply_variant(params, V.variant("google_robot_pick_coke_can", "alt_camera"))
    np.testing.assert_allclose(cam.robot.init_qpos[:, V.HEAD_TILT_INDEX], 0.9351361)
    np.testing.assert_allclose(params.robot.init_qpos[:, V.HEAD_TILT_INDEX], V.STANDARD_HEAD_TILT)
    assert env.scene.robot.arm_joints[V.HEAD_TILT_INDEX] == "joint_head_tilt"


# ------------------------------------------------------------ coke-can distractors


@pytest.fixture(scope="module", params=["less", "more"])
def distractor_env(request):
    return TaskEnv("google_robot_pick_coke_can", distractors=V.COKE_CAN_DISTRACTORS[request.param])


def test_distractors_are_placed_by_the_original_rule(distractor_env):
    """Every coke-can episode (3 orientations x 25 positions): the distractor set after
    the target, each more than 0.25 m from it inside x [-0.5, -0.1], y [0.05, 0.35], in
    the target's orientation, the same placement on every build; objects drawn onto
    another start above its top, the others on the table."""
    from simpler_jax.tasks.distractors import MIN_DISTANCE, X_RANGE, Y_RANGE, overlaps

    env = distractor_env
    names = env.distractors
    assert env.model_ids == ("opened_coke_can",) + names and len(env.episodes) == 75
    ids = sorted(env.episodes)
    pose = np.asarray(env.episode_params(ids).robot.object_pose)  # (75, O, 7)
    assert pose.shape == (75, 1 + len(names), 7)
    xy = pose[:, 1:, :2]
    assert (np.linalg.norm(xy - pose[:, :1, :2], axis=-1) > MIN_DISTANCE).all()
    assert ((xy[..., 0] >= X_RANGE[0]) & (xy[..., 0] <= X_RANGE[1])).all()
    assert ((xy[..., 1] >= Y_RANGE[0]) & (xy[..., 1] <= Y_RANGE[1])).all()
    np.testing.assert_array_equal(pose[:, 1:, 3:], np.broadcast_to(pose[:, :1, 3:], pose[:, 1:, 3:].shape))
    again = TaskEnv("google_robot_pick_coke_can", distractors=names)
    np.testing.assert_array_equal(np.asarray(again.episode_params(ids).robot.object_pose), pose)
    stacked = 0
    for w, e in enumerate(ids):
        below = overlaps(env.episodes[e].object_xy, env._footprints)
        for i, under in enumerate(below):
            if under:
                stacked += 1
                tops = [env._spawn.top(j, pose[w, j, 2], pose[w, j, 3:]) for j in under]
                assert pose[w, i, 2] > max(tops)
            else:
                on_table = env._spawn.height(i, pose[w, i, :2], pose[w, i, 3:])
                np.testing.assert_allclose(pose[w, i, 2], on_table, atol=1e-6)
    assert stacked < 0.1 * xy.shape[0] * xy.shape[1], "most distractors find a clear place"


def test_distractors_only_for_grasp_tasks_and_distinct():
    with pytest.raises(ValueError, match="grasp tasks"):
        TaskEnv("google_robot_close_drawer", distractors=("apple",))
    with pytest.raises(ValueError, match="distinct"):
        TaskEnv("google_robot_pick_coke_can", distractors=("apple", "apple"))
    with pytest.raises(ValueError, match="differ from the target"):
        TaskEnv("google_robot_pick_coke_can", distractors=("opened_coke_can",))


def test_no_distractor_parks_the_third_move_near_object_out_of_the_scene():
    """Move near's `no_distractor` (per world): the object that is neither source nor
    target goes PARK_X m behind the robot, at its own height and orientation; the
    source and target stay where the episode puts them."""
    env = TaskEnv("google_robot_move_near")
    ids = sorted(env.episodes)[:6]  # triplet 0: the six (source, target) pairs
    params = env.episode_params(ids)
    out = V.apply_variant(params, V.variant("google_robot_move_near", "no_distractor"))
    before, after = np.asarray(params.robot.object_pose), np.asarray(out.robot.object_pose)
    base = np.asarray(params.robot.base_pos)
    for w in range(len(ids)):
        src, tgt = int(params.source[w]), int(params.target[w])
        third = ({0, 1, 2} - {src, tgt}).pop()
        np.testing.assert_array_equal(after[w, [src, tgt]], before[w, [src, tgt]])
        np.testing.assert_array_equal(after[w, third, 2:], before[w, third, 2:])
        assert after[w, third, 0] - base[w, 0] >= V.PARK_X - 1e-6  # behind the robot, which faces -x
    assert V.not_modelled(V.variant("google_robot_move_near", "no_distractor"))  # results say how it is done
