#!/bin/bash
# env.xla() on a GPU machine, in a few minutes: the GPU tests, then the speed table of
# envfleet against EnvPool 1.2.5's xla() (benchmarks/gpu/README.md).
#   bash benchmarks/gpu/prepare.sh        first, where there is network: fills .gpu/
#   bash benchmarks/gpu/run.sh [tests|speed|all]     on the GPU machine, from the checkout
#                                                     with .gpu/ carried along
# Everything it reports goes to $OUT (default /tmp/gpu-out): info.txt, tests.txt,
# test_xla.txt, speed.jsonl, speed.md. ENVFLEET_GPU_DEVICES=cpu runs the speed cells on the
# CPU backend instead (to try the script where there is no GPU; the tests then skip).
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
export PYTHONUNBUFFERED=1
what=${1:-all}
{
  date -u; nproc; nvidia-smi -L 2>&1
  python3 -c "import envfleet, envpool, jax; print(envfleet.__file__, envpool.__version__, \
jax.__version__, jax.devices())"
} 2>&1 | tee "$O/info.txt"

if [ "$what" = all ] || [ "$what" = tests ]; then
  # The tests marked gpu (the others need the test-only module, built with CMake), and the PPO
  # example's test, whose jitted iterations run on JAX's default backend: the GPU.
  timeout 300 python3 -m pytest -p no:cacheprovider -q -m gpu tests/test_xla_gpu.py 2>&1 |
    tee "$O/tests.txt"
  timeout 200 python3 -m pytest -p no:cacheprovider -q tests/test_ppo_jax_xla.py 2>&1 |
    tee -a "$O/tests.txt"
  # test_xla.py's exactness and error tests, whose jitted loops also land on the GPU there
  # (for the record: its DLPack tests assume CPU memory, and CheetahRun needs dm_control).
  timeout 240 python3 -m pytest -p no:cacheprovider -q tests/test_xla.py \
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
