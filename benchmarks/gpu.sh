#!/usr/bin/env bash
# The GPU rows of the renderer and physics benchmarks, in one short call (a lent
# GPU's time is counted in minutes). Writes into OUT_DIR: render.json,
# physics.json, gpu.log (everything printed) and nvidia-smi.txt.
#
#   benchmarks/gpu.sh OUT_DIR [RENDER_SECONDS] [PHYSICS_SECONDS]
#
# Needs jax with a GPU backend, mujoco, mujoco-mjx and this package importable, and
# SIMPLER_JAX_ASSETS set; MuJoCo's reference renderer needs EGL (MUJOCO_GL=egl).
set -uo pipefail
out=${1:?usage: benchmarks/gpu.sh OUT_DIR [RENDER_SECONDS] [PHYSICS_SECONDS]}
render_s=${2:-240}
physics_s=${3:-300}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MUJOCO_GL=${MUJOCO_GL:-egl}
log="$out/gpu.log"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
python3 -c 'import jax, mujoco, simpler_jax.envs, simpler_jax.render
print("jax", jax.__version__, jax.devices(), "mujoco", mujoco.__version__)' >> "$log" 2>&1 || { tail -20 "$log"; exit 1; }
tail -1 "$log"
# Renderer: 128- and 256-pixel-wide images (camera aspect kept) for 1 to 1024 worlds.
timeout "$render_s" python3 "$here/render.py" --worlds 1 64 256 1024 --widths 128 256 \
    --repeats 5 --no-brute --no-images --out-dir "$out" 2>&1 | grep -v -i "warn" | tee -a "$log"
# Physics: 1024 and 4096 worlds per robot scene against MuJoCo C on this machine's cores.
timeout "$physics_s" python3 "$here/physics.py" --worlds 1024 4096 --steps 2 --timeout 150 \
    --out "$out/physics.json" 2>&1 | tee -a "$log"
echo "done" | tee -a "$log"
