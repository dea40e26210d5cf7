"""Success rules on hand-built states, just inside and just outside each threshold."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from simpler_jax.tasks import episodes as E
from simpler_jax.tasks import rules
from simpler_jax.tasks.object_info import object_info
from simpler_jax.tasks.spec import task_spec
from simpler_jax.tasks.stats import EpisodeReference, Measurement, report, zeros_stats

EPS = 1e-4


def measurement(pos, com=None, **kw) -> Measurement:
    pos = jnp.asarray(pos, jnp.float32)
    n = pos.shape[0]
    fields = dict(
        object_pos=pos, object_com=pos if com is None else jnp.asarray(com, jnp.float32),
        object_speed=jnp.zeros(n), grasped=jnp.array(False), source_env_contact=jnp.array(True),
        source_foreign_contact=jnp.array(False), drawer_qpos=jnp.zeros(3), drawer_speed=jnp.zeros(3),
        drawer_bottom_contact=jnp.array(False),
    )
    fields.update({k: jnp.asarray(v) for k, v in kw.items()})
    return Measurement(**fields)


def reference(settle, bbox=None, source=0, target=1, drawer=-1) -> EpisodeReference:
    settle = jnp.asarray(settle, jnp.float32)
    bbox = jnp.zeros_like(settle) if bbox is None else jnp.asarray(bbox, jnp.float32)
    i = lambda v: jnp.array(v, jnp.int32)  # noqa: E731
    return EpisodeReference(settle_pos=settle, bbox_world=bbox, source=i(source), target=i(target), drawer=i(drawer))


# ------------------------------------------------------------------ grasp family
SETTLE = [[-0.2, 0.1, 0.93]]


def lift(dz, grasped=True, env_contact=False, stats=None):
    m = measurement([[-0.2, 0.1, 0.93 + dz]], grasped=grasped, source_env_contact=env_contact)
    return rules.update_grasp(stats or zeros_stats(), m, reference(SETTLE, target=-1))


def test_grasp_lift_threshold_is_one_centimetre():
    assert bool(lift(0.01 + EPS).success)
    assert not bool(lift(0.01 - EPS).success)


def test_grasp_lift_needs_no_environment_contact():
    assert not bool(lift(0.05, env_contact=True).success)


def test_grasp_lifted_is_sticky_while_grasped_and_cleared_when_released():
    s = lift(0.015)
    assert bool(s.lifted_object)
    held = lift(0.0, grasped=True, env_contact=True, stats=s)  # back on the table, still held
    assert bool(held.lifted_object) and bool(held.success)
    dropped = lift(0.0, grasped=False, env_contact=True, stats=s)
    assert not bool(dropped.lifted_object) and not bool(dropped.success)


def test_grasp_five_significant_lifts_make_success_sticky():
    s = zeros_stats()
    for _ in range(5):
        s = lift(0.02 + EPS, stats=s)
    assert int(s.n_lift_significant) == 5
    s = lift(0.0, grasped=False, env_contact=True, stats=s)
    assert bool(s.success) and not bool(s.lifted_object)
    s4 = zeros_stats()
    for _ in range(4):
        s4 = lift(0.02 + EPS, stats=s4)
    assert not bool(lift(0.0, grasped=False, env_contact=True, stats=s4).success)
    # 0.02 exactly above 1 cm but not significant
    assert int(lift(0.02 - EPS).n_lift_significant) == 0


def test_grasp_counters_track_consecutive_grasps():
    s = zeros_stats()
    for _ in range(4):
        s = lift(0.0, env_contact=True, stats=s)
    assert int(s.consecutive_grasp) == 4 and not bool(s.consec_grasp_ever)
    s = lift(0.0, env_contact=True, stats=s)
    assert bool(s.consec_grasp_ever)
    s = lift(0.0, grasped=False, env_contact=True, stats=s)
    assert int(s.consecutive_grasp) == 0 and bool(s.consec_grasp_ever) and bool(s.grasped_ever)


# -------------------------------------------------------------------- move near
def _move_near_scene(src_xy, d_other=0.5):
    """Source 0, target 1 at the origin, third object far away; half diagonals 0.05."""
    settle = [[0.3, 0.0, 0.9], [0.0, 0.0, 0.9], [0.0, d_other, 0.9]]
    bbox = [[0.1 / np.sqrt(2)] * 2 + [0.1]] * 3  # |xy| = 0.1 -> half diagonal 0.05
    pos = [[src_xy[0], src_xy[1], 0.9], [0.0, 0.0, 0.9], [0.0, d_other, 0.9]]
    return measurement(pos), reference(settle, bbox)


def test_move_near_distance_threshold():
    limit = 0.05 + 0.05 + 0.10
    m, ref = _move_near_scene((limit - EPS, 0.0))
    s = rules.update_move_near(zeros_stats(), m, ref)
    assert bool(s.near_tgt_obj) and bool(s.success)
    m, ref = _move_near_scene((limit + EPS, 0.0))
    s = rules.update_move_near(zeros_stats(), m, ref)
    assert not bool(s.near_tgt_obj) and not bool(s.success)


def test_move_near_source_must_move_three_centimetres():
    settle = [[0.1, 0.0, 0.9], [0.0, 0.0, 0.9], [0.0, 0.5, 0.9]]
    for dx, moved in ((0.03 + EPS, True), (0.03 - EPS, False)):
        m = measurement([[0.1 - dx, 0.0, 0.9], [0.0, 0.0, 0.9], [0.0, 0.5, 0.9]])
        s = rules.update_move_near(zeros_stats(), m, reference(settle, [[0.07, 0.07, 0.1]] * 3))
        assert bool(s.moved_correct_obj) == moved and bool(s.success) == moved


def test_move_near_other_object_moving_more_is_wrong():
    m, ref = _move_near_scene((0.15, 0.0))
    pos = m.object_pos.at[2, 0].add(0.2)  # the distractor moved 0.2 > source's 0.15
    s = rules.update_move_near(zeros_stats(), m.replace(object_pos=pos, object_com=pos), ref)
    assert bool(s.moved_wrong_obj) and not bool(s.moved_correct_obj) and not bool(s.success)


def test_move_near_other_objects_keep_height():
    m, ref = _move_near_scene((0.15, 0.0))
    for dz, keep in ((-0.02 + EPS, True), (-0.02 - EPS, False)):
        pos = m.object_pos.at[2, 2].add(dz)
        s = rules.update_move_near(zeros_stats(), m.replace(object_pos=pos, object_com=pos), ref)
        assert bool(s.all_obj_keep_height) == keep and bool(s.success) == keep


def test_move_near_source_must_be_closest_to_target():
    # distractor origin 0.13 from the source, target 0.15 away: not closest (0.15 > 0.13 + 0.01)
    settle = [[0.4, 0.0, 0.9], [0.0, 0.0, 0.9], [0.28, 0.0, 0.9]]
    bbox = [[0.1 / np.sqrt(2)] * 2 + [0.1]] * 3
    for other_x, closest in ((0.28, False), (0.30 + EPS, True)):
        pos = [[0.15, 0.0, 0.9], [0.0, 0.0, 0.9], [other_x, 0.0, 0.9]]
        s = rules.update_move_near(zeros_stats(), measurement(pos), reference(settle, bbox))
        assert bool(s.is_closest_to_tgt) == closest


@pytest.mark.parametrize("model_id,half_diag", [
    ("baked_opened_coke_can", 0.0467), ("baked_opened_redbull_can", 0.0414),
    ("blue_plastic_bottle", 0.0426), ("baked_apple", 0.0566), ("orange", 0.0495),
    ("baked_sponge", 0.0610),
])
def test_move_near_half_diagonals_match_the_spec(model_id, half_diag):
    info = object_info("info_pick_custom_baked_tex_v0.json", model_id)
    bw = rules.bbox_world(info.bbox_size, E.move_near_quat(model_id))
    assert float(jnp.linalg.norm(bw[:2]) / 2) == pytest.approx(half_diag, abs=6e-5)


# ---------------------------------------------------------------------- drawers
@pytest.mark.parametrize("action,qpos,success", [
    ("open", 0.15 + EPS, True), ("open", 0.15 - EPS, False),
    ("close", 0.05 - EPS, True), ("close", 0.05 + EPS, False),
])
def test_drawer_thresholds(action, qpos, success):
    m = measurement(np.zeros((0, 3)), drawer_qpos=jnp.array([0.0, qpos, 0.3]))
    s = rules.update_drawer(zeros_stats(), m, reference(np.zeros((0, 3)), source=-1, target=-1, drawer=1), action)
    assert bool(s.success) == success
    assert float(s.drawer_qpos) == pytest.approx(qpos)


def test_drawer_action_is_checked():
    m = measurement(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="'push'.*allowed"):
        rules.update_drawer(zeros_stats(), m, reference(np.zeros((0, 3)), drawer=0), "push")


def test_place_in_drawer_needs_subtask_opening_and_bottom_contact():
    ref = reference([[0.0, 0.0, 0.9]], source=0, target=-1, drawer=0)
    m = measurement([[0.0, 0.0, 0.7]], drawer_qpos=jnp.array([0.05 + EPS, 0.0, 0.0]), drawer_bottom_contact=True)
    s = rules.update_place_in_drawer(zeros_stats(), m, ref, step=99)
    assert int(s.subtask_id) == 0 and not bool(s.success) and int(s.has_contact) == 1
    s = rules.update_place_in_drawer(s, m.replace(drawer_bottom_contact=jnp.array(False)), ref, step=100)
    assert int(s.subtask_id) == 1 and bool(s.success)  # contact from subtask 0 still counts
    low = m.replace(drawer_qpos=jnp.array([0.05 - EPS, 0.0, 0.0]))
    assert not bool(rules.update_place_in_drawer(s, low, ref, step=101).success)
    fresh = rules.update_place_in_drawer(zeros_stats(), m.replace(drawer_bottom_contact=jnp.array(False)), ref, step=150)
    assert not bool(fresh.success)  # never touched the bottom


def test_place_in_drawer_open_flag_is_sticky():
    ref = reference([[0.0, 0.0, 0.9]], source=0, target=-1, drawer=0)
    s = rules.update_place_in_drawer(zeros_stats(), measurement([[0, 0, 0.9]], drawer_qpos=jnp.array([0.16, 0, 0])), ref, 1)
    s = rules.update_place_in_drawer(s, measurement([[0, 0, 0.9]], drawer_qpos=jnp.array([0.0, 0, 0])), ref, 2)
    assert bool(s.is_drawer_open)


# ----------------------------------------------------------------------- put on
# The spec's derived thresholds (§2.6): xy limit and dz upper bound per task.
PUT_ON_LIMITS = {
    "widowx_spoon_on_towel": (0.0737, 0.0380),
    "widowx_carrot_on_plate": (0.0808, 0.0420),
    "widowx_stack_cube": (0.0242, 0.0500),
    "widowx_put_eggplant_in_basket": (0.0793, 0.0800),
}


def _put_on_ref(task):
    spec = task_spec(task)
    src, tgt = E.BRIDGE_OBJECTS[task]
    bbox = [rules.bbox_world(object_info(spec.info_file, m).bbox_size, (1.0, 0.0, 0.0, 0.0)) for m in (src, tgt)]
    return spec, reference([[0.0, 0.3, 0.9], [0.0, 0.0, 0.9]], jnp.stack(bbox))


def _put_on(task, dxy, dz, foreign=False):
    spec, ref = _put_on_ref(task)
    m = measurement([[dxy, 0.0, 0.9 + dz], [0.0, 0.0, 0.9]], source_foreign_contact=foreign)
    return rules.update_put_on(zeros_stats(), m, ref, spec.z_offset, spec.require_source_alone)


@pytest.mark.parametrize("task", sorted(PUT_ON_LIMITS))
def test_put_on_thresholds_match_the_spec(task):
    xy, dz = PUT_ON_LIMITS[task]
    tol = 6e-5  # the spec rounds to 0.1 mm
    assert bool(_put_on(task, xy - tol, dz / 2).success)
    assert not bool(_put_on(task, xy + tol, dz / 2).success)
    assert bool(_put_on(task, 0.0, dz - tol).success)
    assert not bool(_put_on(task, 0.0, dz + tol).success)
    assert not bool(_put_on(task, 0.0, -EPS).success)  # below the target's centre


@pytest.mark.parametrize("task,alone", [("widowx_spoon_on_towel", False), ("widowx_carrot_on_plate", True),
                                        ("widowx_stack_cube", True), ("widowx_put_eggplant_in_basket", False)])
def test_put_on_foreign_contact_rule(task, alone):
    _, dz = PUT_ON_LIMITS[task]
    assert bool(_put_on(task, 0.0, dz / 2, foreign=True).success) != alone


def test_strict_success_needs_hold_release_and_rest():
    task = "widowx_stack_cube"
    spec, ref = _put_on_ref(task)
    on = measurement([[0.0, 0.0, 0.93], [0.0, 0.0, 0.9]])
    s = zeros_stats()
    for k in range(3):
        s = rules.update_put_on(s, on, ref, spec.z_offset, spec.require_source_alone)
        assert bool(s.success) and bool(s.strict_success) == (k == 2)
    held = rules.update_put_on(s, on.replace(grasped=jnp.array(True)), ref, spec.z_offset, False)
    assert bool(held.success) and not bool(held.strict_success)  # the hovering-stack complaint
    moving = rules.update_put_on(s, on.replace(object_speed=jnp.array([0.05, 0.0])), ref, spec.z_offset, False)
    assert bool(moving.success) and not bool(moving.strict_success)


def test_rules_batch_under_jit_vmap():
    spec, ref = _put_on_ref("widowx_stack_cube")
    dz = jnp.array([0.03, 0.06, -0.01, 0.03])
    pos = jnp.stack([jnp.array([[0.0, 0.0, 0.9 + z], [0.0, 0.0, 0.9]]) for z in dz])
    m = jax.vmap(lambda p: measurement(p))(pos)
    refs = jax.tree.map(lambda x: jnp.broadcast_to(x, (4,) + x.shape), ref)
    stats = jax.tree.map(lambda x: jnp.broadcast_to(x, (4,) + x.shape), zeros_stats())
    out = jax.jit(jax.vmap(lambda s, m, r: rules.update_put_on(s, m, r, 0.02, True)))(stats, m, refs)
    chex.assert_shape(out.success, (4,))
    chex.assert_type(out.success, bool)
    assert out.success.tolist() == [True, False, False, True]
    assert report("put_on", out, world=0)["src_on_target"] is True
