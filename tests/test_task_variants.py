"""Variant Aggregation variants (SIMPLER_SPEC.md §3.2) as data and per-world parameters."""

import numpy as np
import pytest

from simpler_jax.render.lighting import lighting_mode
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
