"""SysID benchmarks: batched throughput, synthetic recovery, fits on real data.

Parts (each prints a table and writes benchmarks/out/sysid_<part>_<robot>.json):

  throughput  candidate evaluations per second, one candidate per compiled call
              against `--chains` candidates per call (same scorer, same episodes);
              the ratio is the result.
  synthetic   trajectories generated in our simulator with SIMPLER's published gains
              (real commands, real first poses) fitted back from the original's
              search init: annealing alone, then annealing + gradient. Reports the
              loss and each gain's relative error.
  published   SIMPLER's published gains scored on every episode of --data.
  real        the full CLI fit (`simpler_jax.sysid.fit`) on a real file with a
              train/held-out split: held-out loss of the fitted gains against
              SIMPLER's published gains in our simulator, time for the annealing
              to reach the published gains' train loss, and the published gains'
              loss on every episode of the file (the number the paper reports).

    python benchmarks/sysid.py --part real --robot google_robot \
        --data ../shared/data/fractal_sysid/with_contact_100.npz --episodes 0:40 --holdout 0.5
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import sys
import time

import numpy as np

DEFAULT_DATA = {
    "google_robot": "../shared/data/fractal_sysid/with_contact_100.npz",
    "widowx": "../shared/data/bridge_dataset/1.0.0",
}


def _setup():
    import simpler_jax  # noqa: F401  (XLA flags)
    from simpler_jax._xla_setup import enable_compilation_cache

    enable_compilation_cache()


def _device() -> str:
    import jax

    d = jax.devices()[0]
    return f"{d.platform}:{getattr(d, 'device_kind', '')} ({platform.processor() or platform.machine()})"


def part_throughput(a) -> dict:
    from simpler_jax.data import load_episodes
    from simpler_jax.sysid import SysIDSim, search_space
    from simpler_jax.sysid.fit import CandidateScorer

    sim = SysIDSim(a.robot)
    batch, _ = sim.prepare(load_episodes(a.data)[: a.num_episodes], a.max_steps)
    box = search_space(a.robot).box
    rng = np.random.default_rng(0)
    cands = box.lo + (box.hi - box.lo) * rng.random((a.chains, 2 * box.num_joints))
    rows = []
    for per_call in (1, a.chains):
        scorer = CandidateScorer(sim, batch, per_call)
        scorer(cands[:per_call])  # compile
        n = a.chains if per_call > 1 else max(2, min(a.chains, a.single_calls))
        t = time.perf_counter()
        losses = scorer(cands[:n])
        dt = time.perf_counter() - t
        rows.append({"candidates_per_call": per_call, "candidates": n, "seconds": dt,
                     "evals_per_s": n / dt, "loss_mean": float(losses.mean())})
    single, batched = rows
    same = np.allclose(CandidateScorer(sim, batch, 1)(cands[:2]), CandidateScorer(sim, batch, a.chains)(cands[:2]),
                       rtol=1e-4, atol=1e-6)
    return {"rows": rows, "batched_over_single": batched["evals_per_s"] / single["evals_per_s"],
            "same_losses_batched_and_single": bool(same),
            "episodes": batch.num_episodes, "steps": batch.num_steps, "substeps": sim.env.substeps}


def part_synthetic(a) -> dict:
    from simpler_jax.data import load_episodes
    from simpler_jax.sysid import AnnealConfig, GradConfig, SysIDSim, anneal, refine, search_space, synthetic_batch
    from simpler_jax.sysid.fit import CandidateScorer, candidates_per_call

    sim = SysIDSim(a.robot)
    real, _ = sim.prepare(load_episodes(a.data)[: a.num_episodes], a.max_steps)
    true = sim.published_gains()
    batch = synthetic_batch(sim, real, true)
    space = search_space(a.robot)
    scorer = CandidateScorer(sim, batch, candidates_per_call(None, a.chains, batch.num_episodes))
    cfg = AnnealConfig(num_chains=a.chains, iterations=a.iterations, round_fractions=a.rounds, seed=a.seed)
    t = time.perf_counter()
    ann = anneal(scorer, space.box, space.init_gains, cfg)
    anneal_s = time.perf_counter() - t
    t = time.perf_counter()
    grd = refine(sim.objective, ann.best_gains,
                 GradConfig(steps=a.grad_steps, learning_rate=a.lr, final_learning_rate=a.lr / 10), args=(batch,))
    grad_s = time.perf_counter() - t
    n = len(true) // 2

    def describe(g, loss):
        rel = g / true - 1.0
        ratio = (g[:n] / g[n:]) / (true[:n] / true[n:]) - 1.0
        return {"loss": float(loss), "loss_below_1e-4": bool(loss < 1e-4),
                "max_rel_gain_error": float(np.abs(rel).max()), "all_gains_within_10pct": bool(np.all(np.abs(rel) <= 0.1)),
                "rel_gain_error": rel.tolist(), "stiffness_over_damping_rel_error": ratio.tolist(),
                "gains": g.tolist()}

    return {"true_gains": true.tolist(), "init_gains": space.init_gains.tolist(), "initial_loss": ann.initial_loss,
            "anneal": {**describe(ann.best_gains, ann.best_loss), "seconds": anneal_s,
                       "evaluations": int(ann.history_loss.size), "round_best": ann.round_best.tolist(),
                       "config": {"chains": a.chains, "iterations": a.iterations, "rounds": list(a.rounds)}},
            "anneal+grad": {**describe(grd.best_gains, grd.best_loss), "seconds": grad_s, "grad_steps": a.grad_steps,
                            "stopped": grd.stopped, "loss_trace": grd.loss_trace.tolist()},
            "episodes": batch.num_episodes, "steps": batch.num_steps}


def part_real(a) -> dict:
    from simpler_jax.sysid import AnnealConfig, FitConfig, GradConfig, fit
    from simpler_jax.sysid.report import summary_dict, write_outputs

    config = FitConfig(
        robot=a.robot, data=a.data, episodes=a.episodes, method=a.method, holdout_fraction=a.holdout,
        validation_fraction=a.validation,
        split_seed=0, max_steps=a.max_steps,
        anneal=AnnealConfig(num_chains=a.chains, iterations=a.iterations, round_fractions=a.rounds, seed=a.seed),
        grad=GradConfig(steps=a.grad_steps, learning_rate=a.lr, final_learning_rate=a.lr / 10), init=a.init,
    )
    result = fit(config, log=lambda m: print(m, file=sys.stderr))
    out_dir = pathlib.Path(a.out).with_suffix("")
    write_outputs(result, out_dir)
    summary = summary_dict(result)
    pub_train = result.losses["published"]["train"]
    res = {
        "losses": result.losses,
        "heldout_fitted_over_published": result.losses["fitted"]["heldout"] / result.losses["published"]["heldout"],
        "anneal_seconds_to_reach_published_train_loss":
            result.anneal.time_to_reach(pub_train) if result.anneal else None,
        "anneal_seconds": result.timings.get("anneal_s"), "grad_seconds": result.timings.get("grad_s"),
        "evaluations": int(result.anneal.history_loss.size) if result.anneal else 0,
        "train_episodes": summary["train_episodes"], "heldout_episodes": summary["heldout_episodes"],
        "gains": summary["gains"], "grad_stopped": result.grad.stopped if result.grad else None,
        "joint_limit_excess_max_rad": result.limit_excess_max, "outputs": str(out_dir),
        "validation_shrink": result.shrink,
    }
    if a.all_episodes_published:
        res["published_loss_all_episodes"] = part_published(a)
    return res


def part_published(a) -> dict:
    """SIMPLER's published gains scored on every episode of the file."""
    from simpler_jax.data import load_episodes
    from simpler_jax.sysid import SysIDSim
    from simpler_jax.sysid.fit import trajectories

    sim = SysIDSim(a.robot)
    eps = load_episodes(a.data)
    batch, placed = sim.prepare(eps, a.max_steps)
    _, losses, excess = trajectories(sim, sim.published_gains()[None], batch)
    return {"episodes": len(eps), "steps": int(np.asarray(batch.mask).sum()), "loss": float(losses.mean()),
            "placement_error_max": float(placed.error.max()), "joint_limit_excess_max_rad": float(excess.max())}


def main(argv=None) -> int:
    from simpler_jax.sysid.fit import METHODS

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=("throughput", "synthetic", "real", "published"), required=True)
    p.add_argument("--robot", choices=sorted(DEFAULT_DATA), default="widowx")
    p.add_argument("--data", default=None)
    p.add_argument("--episodes", default=None, help="episode selection for 'real', e.g. 0:40")
    p.add_argument("--num-episodes", type=int, default=2, help="episodes for throughput/synthetic")
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--holdout", type=float, default=0.3)
    p.add_argument("--method", choices=METHODS, default="anneal+grad", help="real: fit method")
    p.add_argument("--validation", type=float, default=0.0,
                   help="real: fraction of the train episodes that choose the shrinkage toward the init")
    p.add_argument("--chains", type=int, default=128)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--rounds", default=None, help="annealing round fractions (default: the package default)")
    p.add_argument("--grad-steps", type=int, default=30)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--init", choices=("search", "published"), default="search",
                   help="real: start from the original's search init point or from the published gains")
    p.add_argument("--single-calls", type=int, default=16, help="candidates timed one per call (throughput)")
    p.add_argument("--all-episodes-published", action="store_true",
                   help="real: also score the published gains on every episode of the file")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    a.data = a.data or DEFAULT_DATA[a.robot]
    from simpler_jax.sysid.search_space import ROUND_FRACTIONS

    a.rounds = ROUND_FRACTIONS if a.rounds is None else tuple(float(x) for x in a.rounds.split(","))
    if a.episodes:
        from simpler_jax.sysid.__main__ import parse_indices

        a.episodes = parse_indices(a.episodes)
    a.out = a.out or f"benchmarks/out/sysid_{a.part}_{a.robot}.json"
    _setup()
    t = time.perf_counter()
    parts = {"throughput": part_throughput, "synthetic": part_synthetic, "real": part_real,
             "published": part_published}
    res = parts[a.part](a)
    doc = {"part": a.part, "robot": a.robot, "data": a.data, "device": _device(),
           "args": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(a).items()},
           "wall_s": time.perf_counter() - t, "date": time.strftime("%Y-%m-%d"), "result": res}
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(_table(doc), indent=1))
    print(f"wrote {out}")
    return 0


def _table(doc) -> dict:
    r = doc["result"]
    if doc["part"] == "throughput":
        return {f"{row['candidates_per_call']}/call evals/s": round(row["evals_per_s"], 2) for row in r["rows"]} | {
            "batched/single": round(r["batched_over_single"], 2)}
    if doc["part"] == "published":
        return r
    if doc["part"] == "synthetic":
        return {k: {"loss": r[k]["loss"], "max_rel_gain_error": round(r[k]["max_rel_gain_error"], 3)}
                for k in ("anneal", "anneal+grad")}
    return {"losses": r["losses"], "heldout fitted/published": r["heldout_fitted_over_published"],
            "s to published train loss": r["anneal_seconds_to_reach_published_train_loss"],
            **({"published, all episodes": r["published_loss_all_episodes"]} if "published_loss_all_episodes" in r else {})}


if __name__ == "__main__":
    sys.exit(main())
