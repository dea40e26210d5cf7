"""`python -m simpler_jax.sweep`: batched rollouts over robots x per-world parameters x seeds.

Until the SIMPLER tasks land (issue 3) the sweep exercises the environment core:
for each robot, `--worlds` worlds with per-world PD gains drawn around SIMPLER's
sysid values (factor in [1 - spread, 1 + spread], seeded), all driven in one
compiled `jit(vmap(step))` through a fixed end-effector pattern (a 4 cm square in
the base x-y plane, then back), and scored by how far each world's TCP ends from
where the commands put it. It prints a table per robot and writes
`results.jsonl` (one line per world) and `summary.json` (config, versions, seeds,
device, table) to `--out`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np

PATTERN = (  # (base-frame delta in m, control steps)
    ((0.02, 0.0, 0.0), 2),
    ((0.0, 0.02, 0.0), 2),
    ((-0.02, 0.0, 0.0), 2),
    ((0.0, -0.02, 0.0), 2),
)
SETTLE_STEPS = 3


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m simpler_jax.sweep",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--robots", nargs="+", default=["widowx", "google_robot"],
                   help="robots to sweep (google_robot, widowx)")
    p.add_argument("--worlds", type=int, default=8, help="worlds per robot, batched in one call")
    p.add_argument("--spread", type=float, default=0.3, help="relative spread of the per-world PD gains")
    p.add_argument("--seed", type=int, default=0, help="seed of the per-world gains")
    p.add_argument("--assets", default=None, help="SIMPLER asset folder (default: $SIMPLER_JAX_ASSETS or the cache)")
    p.add_argument("--out", default="results/sweep", help="output folder")
    a = p.parse_args(argv)
    from simpler_jax.scenes.scene import ROBOTS

    bad = [r for r in a.robots if r not in ROBOTS]
    if bad:
        p.error(f"unknown robot(s) {bad}; allowed: {sorted(ROBOTS)}")
    if a.worlds < 1:
        p.error(f"--worlds must be >= 1, got {a.worlds}")
    if not 0 <= a.spread < 1:
        p.error(f"--spread must be in [0, 1), got {a.spread}")
    return a


def sweep_robot(robot: str, worlds: int, spread: float, seed: int, assets, progress) -> list[dict]:
    import jax
    import jax.numpy as jnp

    from simpler_jax.controllers import kinematics
    from simpler_jax.envs import BatchedEnv, RobotEnv
    from simpler_jax.scenes.scene import build_scene, default_scene

    env = RobotEnv(build_scene(default_scene(robot), assets), max_steps=10_000)
    batched = BatchedEnv(env, worlds)
    params = batched.default_params()
    rng = np.random.default_rng(seed)
    k = rng.uniform(1 - spread, 1 + spread, (worlds, 1)).astype(np.float32)
    d = rng.uniform(1 - spread, 1 + spread, (worlds, 1)).astype(np.float32)
    params = params.replace(arm_stiffness=params.arm_stiffness * k, arm_damping=params.arm_damping * d)
    state = batched.reset(params, jax.random.split(jax.random.PRNGKey(seed), worlds))
    idx = env.index
    fk = jax.jit(jax.vmap(lambda q: kinematics.forward_kinematics(env.chain, q)[0]))

    def tcp(s):
        return np.asarray(fk(jnp.asarray(np.asarray(s.data.qpos)[:, idx.arm_qpos][:, idx.ik_in_arm])))

    start = tcp(state)
    commanded = np.zeros(3)
    steps = [(np.array(dp), n) for dp, n in PATTERN] + [(np.zeros(3), SETTLE_STEPS)]
    total = sum(n for _, n in steps)
    ik_ok = np.zeros(worlds, int)
    t0, done = None, 0
    for dp, n in steps:
        for _ in range(n):
            action = np.zeros((worlds, 7), np.float32)
            action[:, :3] = dp
            state = batched.step(params, state, action)
            ik_ok += np.asarray(state.controller.ik_success, int)
            commanded = commanded + dp
            progress(robot, worlds)
            if t0 is None:  # the first step compiles; time the rest
                t0 = time.perf_counter()
            else:
                done += 1
    elapsed = time.perf_counter() - t0
    end = tcp(state)
    # WidowX accumulates targets (ends where commanded); Google re-targets from the
    # measured pose, so its final TCP error also shows the tracking lag of its gains.
    err = np.linalg.norm(end - (start + commanded), axis=1)
    rows = []
    for w in range(worlds):
        rows.append({
            "robot": robot, "world": w, "seed": seed,
            "stiffness_scale": float(k[w, 0]), "damping_scale": float(d[w, 0]),
            "tcp_error_m": float(err[w]), "ik_success_rate": float(ik_ok[w] / total),
            "nonfinite": bool(np.asarray(state.nonfinite)[w]),
            "control_steps_per_s": worlds * done / max(elapsed, 1e-9),
        })
    return rows


def main(argv=None) -> int:
    a = parse_args(argv)
    import jax
    import mujoco
    from tqdm import tqdm

    import simpler_jax
    from simpler_jax._xla_setup import enable_compilation_cache
    from simpler_jax.assets import asset_root

    enable_compilation_cache()
    assets = asset_root(a.assets)  # fails early, naming the setting, if assets are missing
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    total = len(a.robots) * (sum(n for _, n in PATTERN) + SETTLE_STEPS) * a.worlds
    bar = tqdm(total=total, unit=" world control steps", desc="sweep", dynamic_ncols=True)
    rows = []
    for robot in a.robots:
        rows += sweep_robot(robot, a.worlds, a.spread, a.seed, assets, lambda r, n: bar.update(n))
    bar.close()
    with open(out / "results.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    table = []
    for robot in a.robots:
        r = [x for x in rows if x["robot"] == robot]
        err = np.array([x["tcp_error_m"] for x in r])
        table.append({
            "robot": robot, "worlds": len(r),
            "tcp_error_mean_mm": 1000 * float(err.mean()), "tcp_error_max_mm": 1000 * float(err.max()),
            "ik_success_rate": float(np.mean([x["ik_success_rate"] for x in r])),
            "nonfinite_worlds": int(sum(x["nonfinite"] for x in r)),
            "control_steps_per_s": r[0]["control_steps_per_s"],
        })
    summary = {
        "config": vars(a) | {"assets": str(assets), "pattern": PATTERN, "settle_steps": SETTLE_STEPS},
        "versions": {"simpler_jax": simpler_jax.__version__, "jax": jax.__version__,
                     "mujoco": mujoco.__version__, "python": platform.python_version()},
        "device": str(jax.devices()[0]),
        "seeds": {"gains": a.seed, "reset_keys": a.seed},
        "table": table,
    }
    with open(out / "summary.json", "w") as f:
        json.dump(summary, f, indent=2)
    print(f"\n{'robot':>14} {'worlds':>6} {'TCP err mean':>13} {'max':>8} {'IK ok':>6} {'NaN':>4} {'ctrl steps/s':>13}")
    for t in table:
        print(f"{t['robot']:>14} {t['worlds']:>6} {t['tcp_error_mean_mm']:>10.1f} mm {t['tcp_error_max_mm']:>5.1f} mm "
              f"{t['ik_success_rate']:>6.2f} {t['nonfinite_worlds']:>4} {t['control_steps_per_s']:>13.1f}")
    print(f"wrote {out / 'results.jsonl'} and {out / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
