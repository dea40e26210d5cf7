"""SysID: loss, search boxes, annealing, gradient, parameters file, CLI -- on real data.

Compiled shapes are shared: one WidowX `SysIDSim` (session fixture), two real
Bridge episodes cut to 4 steps, candidates scored 4 per call. The full-size
acceptance runs (synthetic recovery to 1e-4, fits on the fractal and Bridge
samples) are `benchmarks/sysid.py`, recorded in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import json

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from conftest import SHARED_DATA
from simpler_jax.data import load_episodes
from simpler_jax.envs.controller_params import (
    ControllerParamsError,
    read_controller_params,
    write_controller_params,
)
from simpler_jax.sysid import (
    AnnealConfig,
    GradConfig,
    SearchBox,
    SysIDSim,
    anneal,
    episode_losses,
    pose_error,
    refine,
    value_and_grad_in_log_gains,
    search_space,
    split_episodes,
    synthetic_batch,
)
from simpler_jax.sysid.fit import SHRINK_STEPS, CandidateScorer, shrink_candidates
from simpler_jax.utils.rotations import axis_angle_to_mat

BRIDGE = SHARED_DATA / "bridge_dataset" / "1.0.0"
FRACTAL = SHARED_DATA / "fractal_sysid" / "with_contact_100.npz"
STEPS = 4
CHUNK = 4


class WidowXSysID:
    def __init__(self):
        self.sim = SysIDSim("widowx")
        self.episodes = load_episodes(BRIDGE)
        self.real, self.placement = self.sim.prepare(self.episodes[:2], STEPS)
        self.true = self.sim.published_gains()
        self.synthetic = synthetic_batch(self.sim, self.real, self.true)
        self.scorer = CandidateScorer(self.sim, self.synthetic, CHUNK)
        # The gradient twin `fit` differentiates (no joint-limit rows); the same robot
        # and shapes as the CLI test's, so its compiled gradient serves both.
        self.twin = SysIDSim("widowx", joint_limits=False)


@pytest.fixture(scope="session")
def widowx_sysid() -> WidowXSysID:
    return WidowXSysID()


# ---------------------------------------------------------------- loss
def test_pose_error_matches_the_original_formula():
    p = jnp.zeros((3, 3))
    r = jnp.broadcast_to(jnp.eye(3), (3, 3, 3))
    theta = jnp.array([0.0, 0.3, 1.2])
    r2 = jax.vmap(axis_angle_to_mat)(jnp.stack([jnp.zeros(3), jnp.zeros(3), theta], -1))
    p2 = jnp.array([[0.0, 0.0, 0.0], [0.03, 0.04, 0.0], [0.0, 0.0, -0.1]])
    err = pose_error(p, r, p2, r2)
    chex.assert_shape(err, (3,))
    # translation norm + half the geodesic angle
    np.testing.assert_allclose(err, [0.0, 0.05 + 0.15, 0.1 + 0.6], atol=2e-6)
    # beyond the clip (|dR|_F > 2 sqrt 2 cannot happen for rotations; the clip keeps pi/2 max)
    big = pose_error(jnp.zeros(3), jnp.eye(3), jnp.zeros(3), -jnp.eye(3))
    assert float(big) == pytest.approx(np.pi / 2, abs=1e-3)
    assert np.all(np.isfinite(jax.grad(lambda x: pose_error(x, r[0], p[0], r[0]))(p[0])))


def test_episode_losses_mean_over_valid_steps_only():
    errs = jnp.array([[1.0, 2.0, 100.0], [4.0, 0.0, 0.0]])
    mask = jnp.array([[True, True, False], [True, False, False]])
    np.testing.assert_allclose(episode_losses(errs, mask), [1.5, 4.0])


# ---------------------------------------------------------- search box
def test_search_boxes_are_the_originals_and_round_trip():
    g = search_space("google_robot")
    assert g.box.k_hi.tolist() == [2000, 2000, 1300, 1300, 1300, 600, 600]
    assert g.box.d_lo.tolist() == [700, 700, 580, 580, 580, 200, 200]
    w = search_space("widowx")
    assert w.init_gains.tolist() == [1000] * 6 + [300, 250, 200, 200, 200, 200]
    x = np.random.default_rng(0).random((5, 12))
    np.testing.assert_allclose(w.box.to_unit(np.asarray(w.box.to_gains(x))), x, atol=1e-5)
    small = w.box.shrunk(w.box.lo, 0.1)  # centred on the lower corner: stays positive
    assert np.all(small.k_lo > 0) and np.all(small.d_lo >= 0)
    np.testing.assert_allclose(small.hi - small.lo, 0.1 * (w.box.hi - w.box.lo))
    with pytest.raises(ValueError, match="no SysID search space for robot 'ur5'"):
        search_space("ur5")
    with pytest.raises(ValueError, match="upper bounds"):
        SearchBox([2.0], [1.0], [0.0], [1.0])


def test_split_is_deterministic_and_disjoint():
    a = split_episodes(20, 0.3, 0)
    b = split_episodes(20, 0.3, 0)
    assert [x.tolist() for x in a] == [x.tolist() for x in b]
    assert len(a[1]) == 6 and not set(a[0]) & set(a[1]) and len(a[0]) + len(a[1]) == 20
    with pytest.raises(ValueError, match="holdout fraction must be in"):
        split_episodes(10, 1.0, 0)


# ------------------------------------------------------------ annealing
def _l1_distance(center):
    def evaluate(gains):
        return np.abs(gains / center - 1.0).sum(axis=1)
    return evaluate


def test_anneal_is_deterministic_and_shrinks_around_the_best():
    space = search_space("widowx")
    center = space.box.lo + 0.37 * (space.box.hi - space.box.lo)
    cfg = AnnealConfig(num_chains=64, iterations=12, seed=3)
    r1 = anneal(_l1_distance(center), space.box, space.init_gains, cfg)
    r2 = anneal(_l1_distance(center), space.box, space.init_gains, cfg)
    np.testing.assert_array_equal(r1.best_gains, r2.best_gains)
    assert r1.history_loss.shape == (1 + 3 * 12 * 64,)
    assert r1.best_loss == r1.history_loss.min() and np.all(np.diff(r1.round_best) <= 0)
    assert r1.best_loss < 0.05 * r1.initial_loss
    widths = [b.hi - b.lo for b in r1.round_boxes]
    np.testing.assert_allclose(widths[1], 0.5 * widths[0])
    assert np.all(r1.round_boxes[2].lo <= r1.best_gains + 1e-9) or r1.round_best[2] < r1.round_best[1]
    r3 = anneal(_l1_distance(center), space.box, space.init_gains, AnnealConfig(num_chains=64, iterations=12, seed=4))
    assert not np.array_equal(r1.best_gains, r3.best_gains)
    # the original's per-chain rules (no resampling, all coordinates, fixed width, T 1.5)
    original = AnnealConfig(num_chains=64, iterations=12, seed=3, resample=False, coordinate_fraction=1.0,
                            step_decay=False, relative_temperature=False, t_max=1.5)
    r0 = anneal(_l1_distance(center), space.box, space.init_gains, original)
    assert r1.best_loss < 0.2 * r0.best_loss


def test_anneal_never_accepts_nan_candidates():
    space = search_space("widowx")

    def evaluate(gains):
        out = np.abs(gains[:, 0] - 900.0)
        out[gains[:, 0] < 900] = np.nan
        return out

    r = anneal(evaluate, space.box, space.init_gains, AnnealConfig(num_chains=16, iterations=4))
    assert np.isfinite(r.best_loss) and r.best_gains[0] >= 900


# -------------------------------------------------- rollout, loss, grads
def test_placement_reaches_the_real_first_poses(widowx_sysid):
    w = widowx_sysid
    assert np.all(w.placement.converged) and w.placement.error.max() < 1e-3
    chex.assert_shape(w.real.init_qpos, (2, 8))


def test_synthetic_data_scores_zero_only_at_the_true_gains(widowx_sysid):
    w = widowx_sysid
    cands = np.stack([w.true, w.true * 0.9, w.true * np.r_[np.ones(6), 1.2 * np.ones(6)], w.true])
    losses = w.scorer(cands)
    chex.assert_shape(losses, (4,))
    assert losses[0] < 1e-6 and losses[3] == losses[0]
    assert losses[1] > 1e-6 and losses[2] > 1e-4
    real = np.asarray(w.sim.losses(w.true[None], w.real))
    assert np.all(real > 1e-3) and np.all(real < 0.2)  # real data is not reproduced exactly


def test_batched_candidates_equal_one_at_a_time(widowx_sysid):
    w = widowx_sysid
    rng = np.random.default_rng(1)
    box = search_space("widowx").box
    cands = box.lo + (box.hi - box.lo) * rng.random((CHUNK, 12))
    batched = w.scorer(cands)
    single = np.array([np.asarray(w.sim.losses(c[None], w.synthetic)).mean() for c in cands])
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-8)


def test_replays_stay_inside_the_joint_limits_and_padded_steps_hold(widowx_sysid):
    w = widowx_sysid
    rollout = w.sim.rollouts
    gains = jnp.asarray(w.true, jnp.float32)
    p, _, q = rollout(gains, w.real.action, w.real.init_qpos, w.real.mask)
    assert np.all(w.sim.limit_excess(q, w.real.mask) == 0.0)
    # Episode 0 cut to 2 valid steps: the padded steps are not simulated (the
    # pose holds exactly), the valid ones are unchanged.
    mask = np.asarray(w.real.mask).copy()
    mask[0, 2:] = False
    p_cut, _, _ = rollout(gains, w.real.action, w.real.init_qpos, jnp.asarray(mask))
    np.testing.assert_array_equal(p_cut[0, 2:], np.broadcast_to(p_cut[0, 1], p_cut[0, 2:].shape))
    np.testing.assert_array_equal(p_cut[0, :2], p[0, :2])
    np.testing.assert_array_equal(p_cut[1], p[1])
    assert float(jnp.abs(p[0, 3] - p[0, 1]).max()) > 1e-4  # the full episode moves on


def test_gradient_is_finite_and_matches_finite_differences(widowx_sysid):
    w = widowx_sysid
    # Off the valley K_i / D_i = true (where the sum-of-norms loss has a kink).
    g0 = jnp.asarray(w.true * np.r_[0.85 * np.ones(6), 1.1 * np.ones(6)], jnp.float32)
    # The program `refine` descends with (log-gain steps u, gains g0 * exp(u)); the
    # next test's refinement reuses it (one compile for both).
    value_and_grad = value_and_grad_in_log_gains(w.twin.objective)
    u0 = jnp.zeros(12, jnp.float32)
    _, grad = value_and_grad(u0, g0, w.synthetic)
    assert np.all(np.isfinite(grad)) and float(jnp.linalg.norm(grad)) > 0
    v = np.zeros(12, np.float32)
    v[0] = 1.0
    h = 0.005
    fd = (float(value_and_grad(u0 + h * v, g0, w.synthetic)[0])
          - float(value_and_grad(u0 - h * v, g0, w.synthetic)[0])) / (2 * h)
    assert float(grad[0]) == pytest.approx(fd, rel=0.2, abs=1e-8)
    assert value_and_grad is value_and_grad_in_log_gains(w.twin.objective)  # memoised


def test_anneal_then_gradient_recover_synthetic_gains(widowx_sysid):
    """CI-sized synthetic recovery: the full-size one (loss < 1e-4) is benchmarks/sysid.py."""
    w = widowx_sysid
    space = search_space("widowx")
    res = anneal(w.scorer, space.box, space.init_gains, AnnealConfig(num_chains=CHUNK, iterations=6, seed=0))
    assert res.best_loss < 0.5 * res.initial_loss
    g = refine(w.twin.objective, res.best_gains,
               GradConfig(steps=6, learning_rate=0.01, final_learning_rate=0.002), args=(w.synthetic,))
    assert g.stopped == "completed" and np.all(np.isfinite(g.loss_trace))
    assert g.best_loss < res.best_loss


# ------------------------------------------------------- parameters file
def test_controller_params_file_round_trip_and_errors(tmp_path):
    from simpler_jax.robots import widowx

    joints = widowx.CONFIG.arm_joints
    k = np.linspace(700, 1200, 6)
    d = np.linspace(150, 300, 6)
    path = write_controller_params(tmp_path / "p.json", "widowx", joints, k, d, fit={"method": "anneal"})
    got = read_controller_params(path, "widowx", joints)
    np.testing.assert_allclose(got["arm_stiffness"], k, rtol=1e-6)
    np.testing.assert_allclose(got["arm_damping"], d, rtol=1e-6)
    with pytest.raises(ControllerParamsError, match="for robot 'widowx', not 'google_robot'"):
        read_controller_params(path, "google_robot", joints)
    with pytest.raises(ControllerParamsError, match="does not exist"):
        read_controller_params(tmp_path / "missing.json", "widowx", joints)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ControllerParamsError, match="not valid JSON"):
        read_controller_params(bad, "widowx", joints)
    doc = json.loads(path.read_text())
    doc["arm_damping"] = doc["arm_damping"][:5]
    bad.write_text(json.dumps(doc))
    with pytest.raises(ControllerParamsError, match=r"arm_damping has shape \(5,\), expected \(6,\)"):
        read_controller_params(bad, "widowx", joints)
    doc["arm_damping"] = [-1.0] * 6
    bad.write_text(json.dumps(doc))
    with pytest.raises(ControllerParamsError, match="finite and positive"):
        read_controller_params(bad, "widowx", joints)


# ---------------------------------------------------------------- CLI
def test_cli_writes_params_that_an_environment_accepts(tmp_path, capsys):
    from simpler_jax.envs import make_robot_env
    from simpler_jax.sysid.__main__ import main

    out = tmp_path / "fit"
    rc = main(["--robot", "widowx", "--data", str(BRIDGE), "--episodes", "0:3", "--holdout", "0.34",
               "--max-steps", str(STEPS), "--chains", str(CHUNK), "--iterations", "1", "--grad-steps", "2",
               "--out", str(out), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "held-out" in text and "wrist_angle" in text
    report = json.loads((out / "sysid_report.json").read_text())
    assert report["train_episodes"] and report["heldout_episodes"]
    assert set(report["losses"]) >= {"published", "init", "anneal", "grad", "fitted"}
    assert report["losses"]["fitted"]["train"] <= report["losses"]["init"]["train"] + 1e-7
    assert report["versions"]["jax"] and report["config"]["anneal"]["seed"] == 0
    assert (out / "trajectories.png").stat().st_size > 1000
    env = make_robot_env("widowx", controller_params=out / "controller_params.json")
    fitted = report["gains"]["fitted"]
    np.testing.assert_allclose(env.default_params().arm_stiffness, fitted["stiffness"], rtol=1e-6)
    np.testing.assert_allclose(env.default_params().arm_damping, fitted["damping"], rtol=1e-6)


def test_validation_chooses_the_shrinkage_on_kept_out_train_episodes(tmp_path, capsys):
    from simpler_jax.sysid.__main__ import main

    out = tmp_path / "fit"
    rc = main(["--robot", "widowx", "--data", str(BRIDGE), "--episodes", "0:4", "--holdout", "0.25",
               "--validation", "0.34", "--method", "anneal", "--max-steps", str(STEPS), "--chains", str(CHUNK),
               "--iterations", "1", "--out", str(out), "--no-progress"])
    assert rc == 0
    assert "chosen a =" in capsys.readouterr().out
    report = json.loads((out / "sysid_report.json").read_text())
    # 3 train episodes: 2 searched, 1 kept out to choose the shrinkage toward the init.
    shrink = report["validation_shrink"]
    assert len(report["train_episodes"]) == 3 and len(shrink["episodes"]) == 1
    assert set(shrink["episodes"]) <= set(report["train_episodes"])
    assert len(shrink["validation_losses"]) == len(SHRINK_STEPS) and shrink["chosen"] in SHRINK_STEPS
    assert min(shrink["validation_losses"]) == shrink["validation_losses"][SHRINK_STEPS.index(shrink["chosen"])]
    g = {k: np.r_[v["stiffness"], v["damping"]] for k, v in report["gains"].items()}
    expect = shrink_candidates(g["init"], g["searched"])[SHRINK_STEPS.index(shrink["chosen"])]
    np.testing.assert_allclose(g["fitted"], expect, rtol=1e-6)


@pytest.mark.parametrize("argv, message", [
    (["--robot", "widowx", "--data", str(FRACTAL)], "holds fractal_npz episodes; robot widowx needs one of"),
    (["--robot", "widowx", "--data", str(BRIDGE), "--episodes", "0,99"], r"episode indices \[99\] out of range"),
    (["--robot", "google_robot", "--data", str(FRACTAL), "--method", "anneal", "--holdout", "1.5"],
     "holdout fraction must be in"),
])
def test_cli_bad_inputs_fail_with_the_bad_value_named(argv, message, capsys, tmp_path):
    from simpler_jax.sysid.__main__ import main

    import re

    rc = main(argv + ["--out", str(tmp_path), "--no-progress"])
    assert rc == 2
    assert re.search(message, capsys.readouterr().err)


def test_cli_rejects_unknown_method_and_bad_selection(capsys):
    from simpler_jax.sysid.__main__ import main

    with pytest.raises(SystemExit):
        main(["--robot", "widowx", "--data", str(BRIDGE), "--method", "newton"])
    assert "invalid choice: 'newton'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--robot", "widowx", "--data", str(BRIDGE), "--episodes", "a:b"])
    assert "bad episode selection 'a:b'" in capsys.readouterr().err


def test_make_accepts_a_sysid_params_file_and_names_unknown_tasks(tmp_path):
    import simpler_jax
    from simpler_jax.robots import google_robot

    cfg = google_robot.CONFIG
    k = np.array(cfg.arm_stiffness) * 1.1
    d = np.array(cfg.arm_damping) * 0.9
    path = write_controller_params(tmp_path / "g.json", "google_robot", cfg.arm_joints, k, d)
    env = simpler_jax.make("google_robot", controller_params=path, max_steps=5)
    np.testing.assert_allclose(env.default_params().arm_stiffness, k, rtol=1e-6)
    np.testing.assert_allclose(env.default_params().arm_damping, d, rtol=1e-6)
    assert env.max_steps == 5 and "widowx" in simpler_jax.list_tasks()
    with pytest.raises(ValueError, match=r"unknown task 'widowz'; did you mean 'widowx'\?"):
        simpler_jax.make("widowz")
    with pytest.raises(ControllerParamsError, match="for robot 'google_robot', not 'widowx'"):
        simpler_jax.make("widowx", controller_params=path)
