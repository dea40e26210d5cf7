#!/usr/bin/env bash
# Issue 3's grids that the 2-core CPU could not afford, on one GPU, in one short call
# (a lent GPU's time is counted in minutes): place apple (27 episodes), open and close
# drawer (27 each) and move near v0's triplets (12 episodes each), each with the
# scripted policy and the zero action in the same compiled rollout
# (`benchmarks/tasks.py`).
#
#   benchmarks/gpu_tasks.sh OUT_DIR [SECONDS] [MOVE_NEAR_TRIPLETS]
#
# MOVE_NEAR_TRIPLETS: which of move near's triplets 0-4 to run (default "2"; quoted,
# space-separated). Each extra process slows the others: the GPU runs one process's
# kernels at a time, and these small batches leave it idle between kernels.
#
# Each scene compiles to its own program, and XLA compiles on one CPU core, so every
# run gets its own process, all started at once; the GPU then runs their programs in
# turn. Each process stops after SECONDS (default 500) and keeps what it finished
# (tasks.py rewrites its JSON after every chunk). Writes OUT_DIR/gpu_tasks.tgz (each
# run's JSON and log), OUT_DIR/gpu_tasks.log and OUT_DIR/nvidia-smi.txt.
#
# Float32 matrix products run at full precision (JAX_DEFAULT_MATMUL_PRECISION=highest):
# JAX's default on Ampere and later GPUs is TF32, which the physics should not get.
# Needs jax with a GPU backend, mujoco, mujoco-mjx and this package importable, and
# SIMPLER_JAX_ASSETS set.
set -uo pipefail
out=${1:?usage: benchmarks/gpu_tasks.sh OUT_DIR [SECONDS] [MOVE_NEAR_TRIPLETS]}
seconds=${2:-500}
triplets=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
runs="$out/runs"
mkdir -p "$runs"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_DEFAULT_MATMUL_PRECISION=highest
log="$out/gpu_tasks.log"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
python3 -c 'import jax, mujoco, simpler_jax.tasks.env
print("jax", jax.__version__, jax.devices(), "mujoco", mujoco.__version__)' >> "$log" 2>&1 || { tail -20 "$log"; exit 1; }
tail -1 "$log"

run() {  # run NAME ARGS...: one tasks.py process in the background
    local name=$1
    shift
    timeout "$seconds" python3 "$here/tasks.py" "$@" --out "$runs/$name.json" > "$runs/$name.log" 2>&1 &
}
run place_apple --tasks google_robot_place_apple_in_closed_top_drawer --worlds 64
run open_drawer --tasks google_robot_open_drawer --worlds 64
run close_drawer --tasks google_robot_close_drawer --worlds 64
for t in $triplets; do
    run "move_near_t$t" --tasks google_robot_move_near_v0 --worlds 24 --episodes $(seq $((12 * t)) $((12 * t + 11)))
done
wait
for f in "$runs"/*.log; do
    { echo "== $(basename "$f")"; grep -v -i -e warn -e "failed to import" "$f" | tail -5; } | tee -a "$log"
done
tar czf "$out/gpu_tasks.tgz" -C "$runs" . && rm -rf "$runs"
echo "done" | tee -a "$log"
