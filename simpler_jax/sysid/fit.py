"""SysID end to end: data -> split -> anneal and/or gradient -> fitted gains and losses.

`fit(config)` is what `python -m simpler_jax.sysid` runs; it returns a `FitResult`
with every number the report shows. Candidates are scored in chunks of a fixed
size (padded), so each episode batch compiles once whatever the candidate count.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from simpler_jax.data import load_episodes
from simpler_jax.sysid import gradient as grad_lib
from simpler_jax.sysid import loss as loss_lib
from simpler_jax.sysid.anneal import AnnealConfig, AnnealResult, anneal
from simpler_jax.sysid.batch import EpisodeBatch, split_episodes
from simpler_jax.sysid.rollout import PLACEMENT_WARN_ERROR, SysIDSim
from simpler_jax.sysid.search_space import search_space

METHODS = ("anneal", "grad", "anneal+grad")
CPU_WORLDS_PER_CALL = 64
"""On CPU at most this many worlds (candidates x episodes) per compiled call: XLA:CPU
(jax 0.10) intermittently deadlocks on the first run of large batches
(MJX_NOTES.md, CPU pitfalls); a 640-world SysID call hung here."""


def candidates_per_call(requested: int | None, num_chains: int, num_episodes: int) -> int:
    """Chunk size of candidate scoring: as requested, else all chains (accelerators)
    or as many as keep CPU calls within `CPU_WORLDS_PER_CALL` worlds."""
    if requested is not None:
        return int(requested)
    if jax.default_backend() == "cpu":
        return max(1, min(num_chains, CPU_WORLDS_PER_CALL // max(num_episodes, 1)))
    return num_chains


SHRINK_STEPS = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Candidate shrinkage weights a: gains init**(1-a) * fit**a (geometric, per joint)."""


def shrink_candidates(init: np.ndarray, fitted: np.ndarray, steps=SHRINK_STEPS) -> np.ndarray:
    """(len(steps), 2n) gains on the geometric line from `init` (a=0) to `fitted` (a=1)."""
    a = np.asarray(steps, np.float64)[:, None]
    return np.asarray(init, np.float64) ** (1.0 - a) * np.asarray(fitted, np.float64) ** a


ROBOT_DATASETS = {"google_robot": ("fractal_npz", "fractal_rlds"), "widowx": ("bridge_dataset", "bridge_oxe")}


@dataclasses.dataclass(frozen=True)
class FitConfig:
    robot: str
    data: str
    episodes: tuple[int, ...] | None = None  # indices into the file's episodes; None = all
    method: str = "anneal+grad"
    holdout_fraction: float = 0.3
    split_seed: int = 0
    max_steps: int | None = None  # cut episodes to this many steps
    sim_freq: int | None = None  # default: the original's SysID frequency
    anneal: AnnealConfig = AnnealConfig()
    grad: grad_lib.GradConfig = grad_lib.GradConfig()
    candidates_per_call: int | None = None  # default: see `candidates_per_call`
    init: str = "search"  # 'search' (the original's init point) or 'published'
    # Fraction of the train episodes kept out of the search to choose, among
    # SHRINK_STEPS, how far to move from the init toward the searched gains
    # (0 = no validation: the searched gains are the result).
    validation_fraction: float = 0.0
    assets: str | None = None

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; allowed: {list(METHODS)}")
        if self.init not in ("search", "published"):
            raise ValueError(f"unknown init {self.init!r}; allowed: ['search', 'published']")
        search_space(self.robot)  # validates the robot name
        if not 0.0 <= self.holdout_fraction < 1.0:
            raise ValueError(f"holdout fraction must be in [0, 1), got {self.holdout_fraction}")
        if not 0.0 <= self.validation_fraction < 1.0:
            raise ValueError(f"validation fraction must be in [0, 1), got {self.validation_fraction}")
        if self.max_steps is not None and self.max_steps < 2:
            raise ValueError(f"max_steps must be >= 2, got {self.max_steps}")


@dataclasses.dataclass
class FitResult:
    config: FitConfig
    fitted_joints: tuple[str, ...]
    arm_joints: tuple[str, ...]
    train_episodes: np.ndarray
    heldout_episodes: np.ndarray
    gains: dict  # name -> (2n,) gains: 'published', 'init', 'anneal', 'grad', 'fitted'
    losses: dict  # name -> {'train': float, 'heldout': float | None}
    placement_error_max: float
    limit_excess_max: float
    anneal: AnnealResult | None
    grad: grad_lib.GradResult | None
    timings: dict
    shrink: dict | None  # validation choice: {'steps', 'validation_losses', 'chosen', 'episodes'}
    trajectories: dict  # name -> simulated TCP positions (E,T,3) of `plot_batch`
    plot_batch: EpisodeBatch  # the held-out episodes (the train ones without a held-out split)
    fitted_in_arm: np.ndarray  # (n,) positions of the fitted joints among the arm joints

    def arm_gains(self, gains):
        """(2n,) fitted [K, D] -> evaluation gains of every arm joint ((A,), (A,)):
        the joints SysID does not fit keep SIMPLER's evaluation values."""
        from simpler_jax.scenes.scene import ROBOTS

        cfg, n = ROBOTS[self.config.robot], len(self.fitted_in_arm)
        k, d = np.array(cfg.arm_stiffness, np.float64), np.array(cfg.arm_damping, np.float64)
        k[self.fitted_in_arm], d[self.fitted_in_arm] = gains[:n], gains[n:]
        return k, d


def select_episodes(episodes, robot: str, path: str, indices):
    kinds = ROBOT_DATASETS[robot]
    if episodes and episodes[0].dataset not in kinds:
        raise ValueError(f"{path} holds {episodes[0].dataset} episodes; robot {robot} needs one of {list(kinds)}")
    if indices is None:
        return list(episodes)
    bad = [i for i in indices if not 0 <= i < len(episodes)]
    if bad:
        raise ValueError(f"episode indices {bad} out of range: {path} has {len(episodes)} episodes (0..{len(episodes) - 1})")
    return [episodes[i] for i in indices]


class CandidateScorer:
    """objective(gains (C, 2n)) -> (C,) in fixed-size compiled chunks."""

    def __init__(self, sim: SysIDSim, batch: EpisodeBatch, chunk: int):
        self.sim, self.batch, self.chunk = sim, batch, int(chunk)
        self.evaluations = 0

    def __call__(self, gains: np.ndarray) -> np.ndarray:
        gains = np.asarray(gains, np.float32)
        out = []
        for start in range(0, gains.shape[0], self.chunk):
            part = gains[start:start + self.chunk]
            pad = self.chunk - part.shape[0]
            padded = np.concatenate([part, np.repeat(part[-1:], pad, 0)]) if pad else part
            losses = np.asarray(self.sim.losses(padded, self.batch)).mean(axis=1)
            out.append(losses[: part.shape[0]])
        self.evaluations += gains.shape[0]
        return np.concatenate(out)


def trajectories(sim: SysIDSim, gain_sets: np.ndarray, batch: EpisodeBatch):
    """Per gain set (G of them): simulated TCP positions p (G,E,T,3), episode losses
    (G,E) and the largest joint-limit excursion per episode (G,E). Per gain set one
    compiled call over the episodes (in chunks of `CPU_WORLDS_PER_CALL` on CPU)."""
    ps, losses, excess = [], [], []
    mask = np.asarray(batch.mask)
    num = batch.num_episodes
    chunk = CPU_WORLDS_PER_CALL if jax.default_backend() == "cpu" else num
    for gains in np.asarray(gain_sets, np.float32):
        parts = []
        for start in range(0, num, chunk):
            sl = slice(start, min(start + chunk, num))
            parts.append(sim.rollouts(jnp.asarray(gains), batch.action[sl], batch.init_qpos[sl], batch.mask[sl]))
        p, r, q = (np.concatenate([np.asarray(x[i]) for x in parts]) for i in range(3))
        err = loss_lib.pose_error(p, r, np.asarray(batch.position), np.asarray(batch.rotation))
        ps.append(p)
        losses.append(np.asarray(loss_lib.episode_losses(err, jnp.asarray(mask))))
        excess.append(sim.limit_excess(q, mask))
    return np.stack(ps), np.stack(losses), np.stack(excess)


def fit(config: FitConfig, progress: Callable[[str, int, int], Callable[[int], None]] | None = None,
        log: Callable[[str], None] = print) -> FitResult:
    """Run one SysID fit. `progress(label, total, unit)` returns an update(n) callback."""
    t0 = time.perf_counter()
    timings = {}
    all_eps = load_episodes(config.data)
    eps = select_episodes(all_eps, config.robot, config.data, config.episodes)
    ids = np.asarray(config.episodes if config.episodes is not None else range(len(all_eps)))
    train_i, hold_i = split_episodes(len(eps), config.holdout_fraction, config.split_seed)
    sim = SysIDSim(config.robot, config.sim_freq, config.assets)
    train, placed = sim.prepare([eps[i] for i in train_i], config.max_steps)
    search, val, val_i = train, None, train_i[:0]
    if config.validation_fraction > 0:  # positions within the train episodes, seed split_seed + 1
        s_rel, v_rel = split_episodes(len(train_i), config.validation_fraction, config.split_seed + 1)
        search, val, val_i = train.take(s_rel), train.take(v_rel), train_i[v_rel]
    hold, placed_h = (sim.prepare([eps[i] for i in hold_i], config.max_steps) if len(hold_i) else (None, None))
    perr = max(float(placed.error.max()), float(placed_h.error.max()) if placed_h else 0.0)
    if perr > PLACEMENT_WARN_ERROR:
        log(f"warning: IK placement error {perr:.4f} at an episode's first pose exceeds {PLACEMENT_WARN_ERROR}")
    timings["load_and_place_s"] = time.perf_counter() - t0

    space = search_space(config.robot)
    published = sim.published_gains()
    init = space.init_gains if config.init == "search" else published
    gains = {"published": published, "init": init}
    anneal_res = grad_res = None
    current = init
    if "anneal" in config.method:
        chunk = candidates_per_call(config.candidates_per_call, config.anneal.num_chains, search.num_episodes)
        scorer = CandidateScorer(sim, search, chunk)
        total = 1 + len(config.anneal.round_fractions) * config.anneal.iterations * config.anneal.num_chains
        update = progress("anneal", total, "cand") if progress else None
        t = time.perf_counter()
        anneal_res = anneal(scorer, space.box, init, config.anneal, update)
        timings["anneal_s"] = time.perf_counter() - t
        timings["anneal_evaluations"] = scorer.evaluations
        current = gains["anneal"] = anneal_res.best_gains
    if "grad" in config.method:
        update = progress("gradient", config.grad.steps, "step") if progress else None
        t = time.perf_counter()
        # The gradient comes from a twin without joint-limit rows: with them, MJX's
        # constraint solve has a NaN reverse pass whenever the arm comes to rest under
        # a (near-)zero command, limit active or not (its line search divides by the
        # zero Newton direction). The twin differs only in replays that reach a limit
        # (3 of 60 fractal train episodes at the published gains), which it lets
        # over-travel: a surrogate gradient, so its gains are judged below.
        twin = SysIDSim(config.robot, config.sim_freq, config.assets, joint_limits=False)
        grad_res = grad_lib.refine(twin.objective, current, config.grad, update, args=(search,))
        timings["grad_s"] = time.perf_counter() - t
        if grad_res.stopped != "completed":
            log(f"gradient refinement stopped: {grad_res.stopped}")
        # Judge the refined gains with the limits on, as every other loss.
        judged = trajectories(sim, np.stack([current, grad_res.best_gains]), search)[1].mean(axis=1)
        if judged[1] <= judged[0]:
            current = grad_res.best_gains
        gains["grad"] = grad_res.best_gains
    shrink = None
    if val is not None:
        candidates = shrink_candidates(init, current)
        val_loss = trajectories(sim, candidates, val)[1].mean(axis=1)
        best = int(np.argmin(val_loss))
        shrink = {"steps": list(SHRINK_STEPS), "validation_losses": [float(x) for x in val_loss],
                  "chosen": SHRINK_STEPS[best], "episodes": [int(i) for i in ids[val_i]]}
        gains["searched"] = current
        current = candidates[best]
        log(f"validation ({len(val_i)} train episodes kept out of the search) chose "
            f"init**{1 - SHRINK_STEPS[best]:g} * searched**{SHRINK_STEPS[best]:g}")
    gains["fitted"] = current

    names = list(gains)
    stack = np.stack([gains[n] for n in names])
    t = time.perf_counter()
    p, train_l, excess = trajectories(sim, stack, train)
    losses = {n: {"train": float(train_l[i].mean()), "heldout": None} for i, n in enumerate(names)}
    excess = float(excess.max())
    traj, plot_batch = {n: p[i] for i, n in enumerate(names)}, train
    if hold is not None:
        p, hold_l, hold_excess = trajectories(sim, stack, hold)
        for i, n in enumerate(names):
            losses[n]["heldout"] = float(hold_l[i].mean())
        traj, plot_batch = {n: p[i] for i, n in enumerate(names)}, hold
        excess = max(excess, float(hold_excess.max()))
    timings["evaluate_s"] = time.perf_counter() - t
    timings["total_s"] = time.perf_counter() - t0
    return FitResult(
        config=config, fitted_joints=tuple(sim.scene.robot.arm_joints[i] for i in sim.fitted_in_arm),
        arm_joints=tuple(sim.scene.robot.arm_joints), train_episodes=ids[train_i], heldout_episodes=ids[hold_i],
        gains=gains, losses=losses, placement_error_max=perr, limit_excess_max=excess,
        anneal=anneal_res, grad=grad_res, shrink=shrink, timings=timings, trajectories=traj, plot_batch=plot_batch,
        fitted_in_arm=np.asarray(sim.fitted_in_arm),
    )
