"""Physics throughput: batched MJX control steps against MuJoCo C on the same scene.

For each robot scene (robot on its table at SIMPLER's placement; hand-table
contact pairs active; `--with-object` adds the grasp-validation object and its
pairs) and each batch size it measures
  * MJX: `jit(vmap(env.step))` control steps per second (controller + substeps),
    reported per world-step (one physics substep of one world);
  * MuJoCo C, same model: `mujoco.rollout` single-threaded and on all cores, with
    body gravity compensation standing in for the per-substep bias compensation
    (same cost class), reported per world-step.
Ratios (MJX world-steps/s divided by C world-steps/s) are the result; absolute
times depend on the machine. Each configuration runs in its own process under a
time limit (large CPU batches can hang in XLA:CPU, MJX_NOTES.md §4).

    python benchmarks/physics.py [--worlds 1 64 256 1024] [--robots google_robot widowx]
        [--steps 2] [--timeout 900] [--out benchmarks/out/physics.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np


def _scene(robot: str, with_object: bool):
    from simpler_jax.scenes.scene import build_scene, default_scene
    from simpler_jax.validation import grasp_lift as gl

    spec = gl.scene_spec(gl.CASES[robot], "simplified") if with_object else default_scene(robot)
    return build_scene(spec)


def _mjx_child(robot: str, worlds: int, steps: int, with_object: bool) -> dict:
    import jax
    import jax.numpy as jnp

    import simpler_jax  # noqa: F401  (XLA flags)
    from simpler_jax._xla_setup import enable_compilation_cache
    from simpler_jax.envs import batch_params
    from simpler_jax.envs.robot_env import RobotEnv

    enable_compilation_cache()
    env = RobotEnv(_scene(robot, with_object), max_steps=10_000)
    params = batch_params(env.default_params(), worlds)
    keys = jax.random.split(jax.random.PRNGKey(0), worlds)
    reset = jax.jit(jax.vmap(env.reset))
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    actions = jnp.asarray(rng.uniform(-0.01, 0.01, (steps + 1, worlds, 7)).astype(np.float32))
    t0 = time.perf_counter()
    state = jax.block_until_ready(reset(params, keys))
    state = jax.block_until_ready(step(params, state, actions[0]))
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(steps):
        state = step(params, state, actions[i + 1])
    jax.block_until_ready(state)
    elapsed = time.perf_counter() - t0
    world_steps = worlds * steps * env.substeps
    return {
        "engine": "mjx",
        "robot": robot,
        "worlds": worlds,
        "control_steps_per_s": worlds * steps / elapsed,
        "world_steps_per_s": world_steps / elapsed,
        "compile_and_first_step_s": compile_s,
        "finite": bool(np.all(np.isfinite(np.asarray(state.data.qpos)))),
        "device": str(jax.devices()[0]),
    }


def _c_child(robot: str, worlds: int, steps: int, nthread: int, with_object: bool) -> dict:
    import mujoco
    from mujoco import rollout

    import simpler_jax  # noqa: F401

    scene = _scene(robot, with_object)
    m = scene.mj_model
    idx = scene.index
    robot_bodies = [b for b in range(m.nbody) if m.body_rootid[b] == m.body_rootid[idx.base_body] and b > 0]
    m.body_gravcomp[robot_bodies] = 1.0
    d = mujoco.MjData(m)
    num_arm = len(idx.arm_qpos)
    d.qpos[idx.arm_qpos] = scene.robot.init_qpos[:num_arm]
    d.qpos[idx.finger_qpos] = scene.robot.init_qpos[num_arm:]
    mujoco.mj_forward(m, d)
    nstep = steps * scene.robot.substeps
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state0, spec)
    init = np.tile(state0, (worlds, 1))
    ctrl = np.zeros((worlds, nstep, m.nu))
    ctrl[:, :, idx.arm_actuators] = scene.robot.init_qpos[:num_arm]
    ctrl[:, :, idx.finger_actuators] = scene.robot.init_qpos[num_arm:]
    ctrl += np.random.default_rng(0).uniform(-0.05, 0.05, (worlds, 1, m.nu))
    models = [m] * worlds
    datas = [mujoco.MjData(m) for _ in range(max(nthread, 1))]
    with rollout.Rollout(nthread=nthread) as r:
        r.rollout(models, datas, init[:, :], ctrl[:, :1])  # warm-up
        t0 = time.perf_counter()
        r.rollout(models, datas, init, ctrl)
        elapsed = time.perf_counter() - t0
    return {
        "engine": f"mujoco_c_rollout_{nthread}thread",
        "robot": robot,
        "worlds": worlds,
        "control_steps_per_s": worlds * steps / elapsed,
        "world_steps_per_s": worlds * nstep / elapsed,
    }


def _run_child(args: list[str], timeout: float, with_object: bool) -> dict | None:
    cmd = [sys.executable, __file__, *(["--with-object"] if with_object else []), "--child", *args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    except subprocess.CalledProcessError as err:
        return {"error": err.stderr.strip().splitlines()[-1] if err.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["google_robot", "widowx"])
    p.add_argument("--worlds", nargs="+", type=int, default=[1, 64, 256, 1024])
    p.add_argument("--steps", type=int, default=2, help="timed control steps per configuration")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per configuration")
    p.add_argument("--with-object", action="store_true", help="add the grasp-validation object")
    p.add_argument("--out", default="benchmarks/out/physics.json")
    p.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child is not None:
        kind, robot, worlds, steps = a.child[0], a.child[1], int(a.child[2]), int(a.child[3])
        obj = a.with_object
        if kind == "mjx":
            res = _mjx_child(robot, worlds, steps, obj)
        else:
            res = _c_child(robot, worlds, steps, int(a.child[4]), obj)
        print(json.dumps(res))
        return 0

    rows = []
    cores = os.cpu_count() or 1
    for robot in a.robots:
        for w in a.worlds:
            c1 = _run_child(["c", robot, str(w), str(a.steps), "1"], a.timeout, a.with_object)
            cn = _run_child(["c", robot, str(w), str(a.steps), str(cores)], a.timeout, a.with_object)
            mj = _run_child(["mjx", robot, str(w), str(a.steps)], a.timeout, a.with_object)
            row = {"robot": robot, "worlds": w, "mjx": mj, "c_1thread": c1, f"c_{cores}thread": cn}
            if "error" not in mj and "error" not in c1:
                row["mjx_over_c1"] = mj["world_steps_per_s"] / c1["world_steps_per_s"]
            if "error" not in mj and "error" not in cn:
                row["mjx_over_call"] = mj["world_steps_per_s"] / cn["world_steps_per_s"]
            rows.append(row)
            print(_format_row(row, cores), flush=True)
            _write(a, rows, cores)  # after every row: an interrupted run keeps what it measured
    print(f"wrote {a.out}")
    return 0


def _write(a, rows, cores) -> None:
    import jax
    import mujoco

    result = {
        "benchmark": "physics",
        "date": time.strftime("%Y-%m-%d"),
        # The MJX rows name their device; the parent never starts a JAX backend (on a
        # GPU it would take the memory the children need).
        "machine": {"platform": platform.platform(), "cpus": cores, "processor": platform.processor()},
        "versions": {"jax": jax.__version__, "mujoco": mujoco.__version__},
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "steps": a.steps,
        "scene": "robot+table+object" if a.with_object else "robot+table",
        "rows": rows,
    }
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)


def _fmt(x):
    return f"{x:,.0f}" if isinstance(x, (int, float)) else str(x)


def _format_row(row, cores) -> str:
    mj, c1, cn = row["mjx"], row["c_1thread"], row[f"c_{cores}thread"]
    get = lambda r: r.get("world_steps_per_s", r.get("error")) if r else "-"  # noqa: E731
    ratio = row.get("mjx_over_c1")
    ratio_s = f"{ratio:.3f}" if ratio is not None else "-"
    return (
        f"{row['robot']:>12} worlds={row['worlds']:>5}  MJX {_fmt(get(mj)):>10} ws/s  "
        f"C 1thr {_fmt(get(c1)):>10} ws/s  C {cores}thr {_fmt(get(cn)):>10} ws/s  MJX/C1 {ratio_s}"
    )


if __name__ == "__main__":
    sys.exit(main())
