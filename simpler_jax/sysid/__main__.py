"""`python -m simpler_jax.sysid`: fit controller stiffness/damping to real trajectories.

Replays each episode's real commands open-loop through the robot's SIMPLER
controller in MJX (arm placed by IK at the first real pose, no contacts) and
minimises the original's pose loss over the arm joints' stiffness and damping:
vectorised simulated annealing (three rounds of shrinking boxes), gradient
descent through the differentiable rollout (taken in a twin without joint-limit
rows, whose MJX reverse pass stays finite at rest; the result is scored with the
limits on), or both. Writes to --out:
controller_params.json (give it to `make_robot_env(..., controller_params=FILE)`),
sysid_report.json / .txt (losses before/after on train and held-out episodes,
per-joint values, annealing top 10, gradient trace, config, versions) and
trajectories.png (real vs simulated EE for a few held-out episodes).

Example:
  python -m simpler_jax.sysid --robot google_robot \\
      --data ../shared/data/fractal_sysid/with_contact_100.npz --episodes 0:40 \\
      --method anneal+grad --chains 1024 --out results/sysid_google
"""

from __future__ import annotations

import argparse
import sys

from simpler_jax.sysid.anneal import AnnealConfig
from simpler_jax.sysid.fit import METHODS, FitConfig, fit
from simpler_jax.sysid.gradient import GradConfig
from simpler_jax.sysid.search_space import ROUND_FRACTIONS, SEARCH_SPACES


def parse_indices(text: str) -> tuple[int, ...]:
    """'0:10,15,20:22' -> (0..9, 15, 20, 21)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if ":" in part:
                a, b = part.split(":")
                out.extend(range(int(a), int(b)))
            else:
                out.append(int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad episode selection {part!r}: use N, A:B or a comma list") from None
    if not out:
        raise argparse.ArgumentTypeError(f"episode selection {text!r} selects no episodes")
    return tuple(out)


def parse_fractions(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad round fractions {text!r}: comma-separated numbers in (0, 1]") from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m simpler_jax.sysid", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robot", required=True, choices=sorted(SEARCH_SPACES))
    p.add_argument("--data", required=True,
                   help="fractal .npz step file, or an RLDS/TFDS directory (bridge_dataset, bridge, fractal20220817_data)")
    p.add_argument("--episodes", type=parse_indices, default=None,
                   help="episode indices in the file, e.g. 0:40 or 0,3,7 (default: all)")
    p.add_argument("--method", choices=METHODS, default="anneal+grad")
    p.add_argument("--holdout", type=float, default=0.3, help="fraction of episodes held out (default 0.3)")
    p.add_argument("--validation", type=float, default=0.0,
                   help="fraction of the train episodes kept out of the search to choose how far to move "
                        "from the init toward the searched gains (steps 0, .25, .5, .75, 1; default 0: no validation)")
    p.add_argument("--split-seed", type=int, default=0, help="seed of the train/held-out (and validation) split")
    p.add_argument("--seed", type=int, default=0, help="annealing seed")
    p.add_argument("--chains", type=int, default=1024, help="annealing candidates per batch (default 1024)")
    p.add_argument("--iterations", type=int, default=8, help="annealing proposals per chain per round")
    p.add_argument("--rounds", type=parse_fractions, default=ROUND_FRACTIONS,
                   help=f"box width of each round relative to the first (default {','.join(map(str, ROUND_FRACTIONS))})")
    p.add_argument("--candidates-per-call", type=int, default=None,
                   help="candidates per compiled call (default: --chains on an accelerator; on CPU as "
                        "many as keep a call within 64 worlds, as XLA:CPU can deadlock on large batches)")
    p.add_argument("--grad-steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.02, help="Adam learning rate on log-gains")
    p.add_argument("--init", choices=("search", "published"), default="search",
                   help="start from the original's search init point or from SIMPLER's published gains")
    p.add_argument("--max-steps", type=int, default=None, help="cut episodes to this many steps")
    p.add_argument("--sim-freq", type=int, default=None, help="physics Hz (default: the original's SysID 252 Google / 500 WidowX)")
    p.add_argument("--assets", default=None, help="SIMPLER asset folder (default: $SIMPLER_JAX_ASSETS or the cache)")
    p.add_argument("--out", default="results/sysid", help="output folder")
    p.add_argument("--no-progress", action="store_true")
    return p


def main(argv=None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    try:
        config = FitConfig(
            robot=a.robot, data=a.data, episodes=a.episodes, method=a.method, holdout_fraction=a.holdout,
            validation_fraction=a.validation,
            split_seed=a.split_seed, max_steps=a.max_steps, sim_freq=a.sim_freq,
            anneal=AnnealConfig(num_chains=a.chains, iterations=a.iterations, round_fractions=a.rounds, seed=a.seed),
            grad=GradConfig(steps=a.grad_steps, learning_rate=a.lr, final_learning_rate=a.lr / 10),
            candidates_per_call=a.candidates_per_call, init=a.init, assets=a.assets,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import simpler_jax  # noqa: F401  (XLA flags before jax initialises)
    from simpler_jax.sysid.report import write_outputs

    bars = []

    def progress(label, total, unit):
        if a.no_progress:
            return None
        from tqdm import tqdm

        for old in bars:
            old.close()
        bar = tqdm(total=total, desc=label, unit=unit, file=sys.stderr, dynamic_ncols=True)
        bars.append(bar)
        return bar.update

    try:
        result = fit(config, progress=progress, log=lambda m: print(m, file=sys.stderr))
    except (ValueError, FileNotFoundError) as e:
        for b in bars:
            b.close()
        print(f"error: {e}", file=sys.stderr)
        return 2
    for b in bars:
        b.close()
    written = write_outputs(result, a.out)
    print(written["text"])
    print(f"\nwrote {written['params']}, {written['report']}, {written['plot']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
