#!/bin/bash
# The GPU machine's runs, a few minutes each (benchmarks/gpu/README.md): env.xla()'s GPU tests
# and speed table against EnvPool 1.2.5's xla() (tests, speed; all = both), MuJoCo pixels at
# scale (render: benchmarks/gpu_render.py, issue #38) and the many-core table (scale:
# benchmarks/scaling.py, issue #37).
#   bash benchmarks/gpu/prepare.sh        first, where there is network: fills .gpu/
#   bash benchmarks/gpu/run.sh [tests|speed|all|render|scale] [ARGS]  on the GPU machine, from the
#                                                     checkout with .gpu/ carried along
# Everything it reports goes to $OUT (default /tmp/gpu-out): info.txt, tests.txt,
# test_xla.txt, speed.jsonl, speed.md, render.md and render/, scale.md and scale/.
# ENVFLEET_GPU_DEVICES=cpu runs the speed cells on the CPU backend instead (to try the script
# where there is no GPU; the tests then skip).
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/gpu-out}
mkdir -p "$O"
SITE=/tmp/envfleet-gpu-site
if [ -d .gpu ]; then
  rm -rf "$SITE" && mkdir -p "$SITE"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
    .gpu/wheels/*.whl || exit 1
  tar -xzf .gpu/envpool.tar.gz -C "$SITE" || exit 1
  export PYTHONPATH="$SITE"
fi
if [ -d .gpu/gl ] && [ "$(id -u)" = 0 ]; then
  for f in .gpu/gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
# NVIDIA's EGL vendor file where the driver is mounted (glvnd finds it there).
NVIDIA_EGL=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
if [ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ] && [ -f "$NVIDIA_EGL" ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=$NVIDIA_EGL
fi
export PYTHONUNBUFFERED=1
what=${1:-all}
shift || true  # the rest goes to gpu_render.py / scaling.py (e.g. render --threads 1 2)
{
  date -u; nproc; nvidia-smi -L 2>&1
  python3 -c "import envfleet, envpool, jax; print(envfleet.__file__, envpool.__version__, \
jax.__version__, jax.devices())"
} 2>&1 | tee "$O/info.txt"

if [ "$what" = all ] || [ "$what" = tests ]; then
  # The tests marked gpu (the others need the test-only module, built with CMake), and the PPO
  # example's test, whose jitted iterations run on JAX's default backend: the GPU.
  timeout 300 python3 -m pytest -p no:cacheprovider -o addopts=-ra -q -m gpu tests/test_xla_gpu.py 2>&1 |
    tee "$O/tests.txt"
  timeout 200 python3 -m pytest -p no:cacheprovider -o addopts=-ra -q tests/test_ppo_jax_xla.py 2>&1 |
    tee -a "$O/tests.txt"
  # test_xla.py's exactness and error tests, whose jitted loops also land on the GPU there
  # (for the record: its DLPack tests assume CPU memory, and CheetahRun needs dm_control).
  timeout 240 python3 -m pytest -p no:cacheprovider -o addopts=-ra -q tests/test_xla.py \
    -k "not dlpack and not CheetahRun and not stub and not gil" 2>&1 | tee "$O/test_xla.txt"
fi

if [ "$what" = all ] || [ "$what" = speed ]; then
  devices=${ENVFLEET_GPU_DEVICES:-gpu}
  S="$O/speed.jsonl"
  : > "$S"
  for lib in envfleet envpool; do
    # CartPole: the policy on the GPU and on the CPU backend (the issue's 8-env cell).
    timeout 90 python3 benchmarks/gpu/xla_speed.py $lib CartPole-v1 --num-envs 8 \
      --num-threads 2 --devices ${devices/gpu/gpu cpu} >> "$S"
    timeout 90 python3 benchmarks/gpu/xla_speed.py $lib Pong-v5 --num-envs 64 \
      --num-threads 16 --devices $devices --length 100 >> "$S"
    # x64 for both: EnvPool's xla() takes Ant's actions only as float64.
    timeout 90 python3 benchmarks/gpu/xla_speed.py $lib Ant-v5 --num-envs 64 \
      --num-threads 16 --devices $devices --length 200 --x64 >> "$S"
  done
  python3 benchmarks/gpu/xla_speed.py --table "$S" | tee "$O/speed.md"
fi

if [ "$what" = render ]; then
  # Both renderers, default quality and render_fast, dm_control, render() of a batch, EnvPool,
  # and the 16-process ceiling; EGL on the GPU.
  MUJOCO_GL=egl timeout 540 python3 benchmarks/gpu_render.py --out "$O/render" "$@" 2>&1 |
    tee "$O/render.md"
fi

if [ "$what" = scale ]; then
  timeout 540 python3 benchmarks/scaling.py --out "$O/scale" "$@" 2>&1 | tee "$O/scale.md"
fi
