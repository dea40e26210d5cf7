#!/usr/bin/env bash
# Issue 3's grids that the 2-core CPU cannot afford, on one GPU, in one short call
# (a lent GPU's time is counted in minutes). Each named run is one `benchmarks/tasks.py`
# process over a task's full grid (or one move-near triplet), the scripted policy and
# the zero action in the same compiled rollout.
#
#   benchmarks/gpu_tasks.sh OUT_DIR [SECONDS] [RUN ...]
#
# RUN (default: place_apple open_drawer close_drawer move_near_t2):
#   place_apple, open_drawer, close_drawer, pick_coke_can   Google grids (27, 27, 27, 75 episodes)
#   move_near_t0 ... move_near_t4                           google_robot_move_near's triplets (12 episodes each)
#   eggplant, spoon, carrot, stack_cube                     the Bridge grids (24 episodes each)
# Any Google run with the suffix "_ratio4" runs with the Google finger-object contacts
# overdamped (`--finger-object-dampratio google_robot=4`, an experiment), e.g.
# `place_apple_ratio4 move_near_t1_ratio4`.
#
# Each scene compiles to its own program, and XLA compiles on one CPU core, so every
# run gets its own process, all started at once; the GPU then runs their programs in
# turn, so each extra run slows the others (four shared ~500 s on an H200; the apple
# alone took 270 s). Each process stops after SECONDS (default 500) and keeps what it
# finished (tasks.py rewrites its JSON after every chunk). Writes OUT_DIR/gpu_tasks.tgz
# (each run's JSON and log), OUT_DIR/gpu_tasks.log and OUT_DIR/nvidia-smi.txt.
#
# DRY_RUN=1 prints each run's name and tasks.py arguments, one line per run, and exits.
#
# Float32 matrix products run at full precision (JAX_DEFAULT_MATMUL_PRECISION=highest):
# JAX's default on Ampere and later GPUs is TF32. The environments' reset and step trace
# theirs at full precision anyway (simpler_jax.envs.precision); the variable extends it
# to the scripted policy, as in the runs of 2026-12-04.
# Needs jax with a GPU backend, mujoco, mujoco-mjx and this package importable, and
# SIMPLER_JAX_ASSETS set.
set -uo pipefail
usage="usage: benchmarks/gpu_tasks.sh OUT_DIR [SECONDS] [RUN ...]"
out=${1:?$usage}
seconds=${2:-500}
shift $(( $# < 2 ? $# : 2 ))
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(place_apple open_drawer close_drawer move_near_t2)
here=$(cd "$(dirname "$0")" && pwd)

args_of() {  # args_of RUN: the tasks.py arguments of a named run (exit 1 if unknown)
    local name=$1 extra=""
    if [[ $name == *_ratio4 ]]; then  # Google runs only
        [[ $(args_of "${name%_ratio4}") == "--tasks google_robot"* ]] || return 1
        name=${name%_ratio4}
        extra="--finger-object-dampratio google_robot=4"
    fi
    case $name in
        place_apple) echo "--tasks google_robot_place_apple_in_closed_top_drawer --worlds 64 $extra" ;;
        open_drawer) echo "--tasks google_robot_open_drawer --worlds 64 $extra" ;;
        close_drawer) echo "--tasks google_robot_close_drawer --worlds 64 $extra" ;;
        pick_coke_can) echo "--tasks google_robot_pick_coke_can --worlds 50 $extra" ;;
        move_near_t[0-4])
            local t=${name#move_near_t}
            echo "--tasks google_robot_move_near --worlds 24 --episodes $(seq -s ' ' $((12 * t)) $((12 * t + 11))) $extra" ;;
        eggplant) echo "--tasks widowx_put_eggplant_in_basket --worlds 48" ;;
        spoon) echo "--tasks widowx_spoon_on_towel --worlds 48" ;;
        carrot) echo "--tasks widowx_carrot_on_plate --worlds 48" ;;
        stack_cube) echo "--tasks widowx_stack_cube --worlds 48" ;;
        *) return 1 ;;
    esac
}
for name in "${names[@]}"; do
    args_of "$name" > /dev/null || { echo "unknown run '$name'; allowed: place_apple open_drawer close_drawer" \
        "pick_coke_can move_near_t0..move_near_t4 eggplant spoon carrot stack_cube; the Google runs also with the suffix _ratio4" >&2
        exit 2; }
done
if [ "${DRY_RUN:-0}" = 1 ]; then
    for name in "${names[@]}"; do echo "$name $(args_of "$name")"; done
    exit 0
fi

runs="$out/runs"
mkdir -p "$runs"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_DEFAULT_MATMUL_PRECISION=highest
log="$out/gpu_tasks.log"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
python3 -c 'import jax, mujoco, simpler_jax.tasks.env
print("jax", jax.__version__, jax.devices(), "mujoco", mujoco.__version__)' >> "$log" 2>&1 || { tail -20 "$log"; exit 1; }
tail -1 "$log"
for name in "${names[@]}"; do
    # shellcheck disable=SC2046  # the arguments are words
    timeout "$seconds" python3 "$here/tasks.py" $(args_of "$name") --out "$runs/$name.json" > "$runs/$name.log" 2>&1 &
done
wait
for f in "$runs"/*.log; do
    { echo "== $(basename "$f")"; grep -v -i -e warn -e "failed to import" "$f" | tail -5; } | tee -a "$log"
done
tar czf "$out/gpu_tasks.tgz" -C "$runs" . && rm -rf "$runs"
echo "done" | tee -a "$log"
