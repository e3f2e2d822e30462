#!/bin/bash
# Prepares, on a machine with network, what benchmarks/gpu/run.sh needs on the GPU machine
# (Python 3.12, jax + CUDA plugin, numpy, flax, optax; no network, no gymnasium, mujoco,
# ale-py, envpool or pytest): the git-ignored folder .gpu/ of this checkout, which travels with
# it (the device tool's carry: [".gpu"]; it prints the size, which must stay under 64 MiB with
# the checkout). It holds
#   .gpu/wheels/          cp312 wheels, installed there with pip --no-index --target
#   .gpu/envpool.tar.gz   EnvPool 1.2.5 cut to the families the tables run, with its assets,
#                         and dm_control's cheetah model (CheetahRun-v1)
#   .gpu/gl/              Debian's libglvnd EGL/GL loaders (the machine has only NVIDIA's driver)
# The commands, in order:
#   envfleet (about 4 minutes): its manylinux cp312 wheel (6.4 MB; a plain `pip wheel .` would
#     also hold procgen's 56 MB engine and push .gpu/ past what travels):
#     python tools/build_wheels.py --python 3.12; cp dist/envfleet-*-cp312-*.whl .gpu/wheels/
#   the other wheels:
#     pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --platform manylinux_2_28_x86_64 -d .gpu/wheels <the packages in WHEELS below>
#   EnvPool: pip download (same flags) envpool==1.2.5 -d .gpu/download; unzip; keep envpool/'s
#     package files, python/, classic_control/, atari/ and mujoco/'s gym envs, envpool.libs/ and
#     the dist-info; entry.py rewritten to register only those; envpool_assets' atari/ and
#     mujoco/assets_gym/ (from the installed envpool-assets 0.3.0 of this venv, else
#     downloaded): the whole wheel is 53 MB and its assets 140 MB, too much to travel.
# Usage: bash benchmarks/gpu/prepare.sh   (tools/build_wheels.py finds pyenv's CPython 3.12)
set -euo pipefail
cd "$(dirname "$0")/../.."
PIP=(python3 -m pip)
TOOLS_PY=python3
[ -x .venv/bin/python ] && PIP=(.venv/bin/python -m pip) && TOOLS_PY=.venv/bin/python
DOWNLOAD=(download --no-deps --only-binary=:all: --python-version 3.12
          --platform manylinux_2_28_x86_64)
# envfleet's run-time needs and the tests' (pytest and its own), pinned as the test extra
# pins them where it does.
WHEELS=(gymnasium==1.4.0 cloudpickle farama-notifications dm-env dm-tree mujoco==4.0.0
        mujoco-core==4.0.0 glfw pyopengl ale-py==0.12.1 optree typing-extensions packaging
        pytest pluggy iniconfig pygments)

rm -rf .gpu && mkdir -p .gpu/wheels .gpu/download .gpu/envpool
"$TOOLS_PY" tools/build_wheels.py --python 3.12
cp dist/envfleet-*-cp312-cp312-manylinux_*.whl .gpu/wheels/
"${PIP[@]}" "${DOWNLOAD[@]}" -d .gpu/wheels "${WHEELS[@]}"

"${PIP[@]}" "${DOWNLOAD[@]}" -d .gpu/download envpool==1.2.5
unzip -q .gpu/download/envpool-1.2.5-*.whl -d .gpu/download/envpool
FROM=.gpu/download/envpool TO=.gpu/envpool
mkdir -p "$TO/envpool/mujoco"
cp -r "$FROM"/envpool.libs "$FROM"/envpool-1.2.5.dist-info "$TO"/
cp "$FROM"/envpool/*.py "$TO/envpool/"
cp -r "$FROM"/envpool/python "$FROM"/envpool/classic_control "$FROM"/envpool/atari "$TO/envpool/"
cp -r "$FROM"/envpool/mujoco/__init__.py "$FROM"/envpool/mujoco/gym \
      "$FROM"/envpool/mujoco/mujoco_gym_envpool.so "$TO/envpool/mujoco/"
cat > "$TO/envpool/entry.py" <<'EOF'
"""Entry point for the envs' registration: cut to the families benchmarks/gpu/ carries."""

import envpool.atari.registration  # noqa: F401
import envpool.classic_control.registration  # noqa: F401
import envpool.mujoco.gym.registration  # noqa: F401
EOF
ASSETS=$("${PIP[0]}" -c "import envpool_assets, os; print(os.path.dirname(envpool_assets.__file__))" 2>/dev/null || true)
if [ -z "$ASSETS" ]; then
  "${PIP[@]}" "${DOWNLOAD[@]}" -d .gpu/download envpool-assets==0.3.0
  unzip -q .gpu/download/envpool_assets-0.3.0-*.whl -d .gpu/download/assets
  ASSETS=.gpu/download/assets/envpool_assets
fi
mkdir -p "$TO/envpool_assets/mujoco"
cp "$ASSETS/__init__.py" "$TO/envpool_assets/"
cp -r "$ASSETS/atari" "$TO/envpool_assets/"
cp -r "$ASSETS/mujoco/assets_gym" "$TO/envpool_assets/mujoco/"
# dm_control's cheetah model, for benchmarks/gpu_render.py's CheetahRun-v1 cells: envfleet
# locates the dm_control package without importing it, and reads suite/cheetah.xml and
# suite/common/ (the whole wheel, 116 MB installed, would not travel).
DMC=$("${PIP[0]}" -c "import importlib.util as u; print(u.find_spec('dm_control').submodule_search_locations[0])" 2>/dev/null || true)
if [ -z "$DMC" ]; then
  "${PIP[@]}" "${DOWNLOAD[@]}" -d .gpu/download dm-control==1.0.50
  unzip -q .gpu/download/dm_control-1.0.50-*.whl 'dm_control/suite/*' -d .gpu/download/dmc
  DMC=.gpu/download/dmc/dm_control
fi
mkdir -p "$TO/dm_control/suite"
: > "$TO/dm_control/__init__.py"
cp "$DMC/suite/cheetah.xml" "$TO/dm_control/suite/"
cp -r "$DMC/suite/common" "$TO/dm_control/suite/"
find "$TO" -name __pycache__ -prune -exec rm -rf {} +
tar -czf .gpu/envpool.tar.gz -C "$TO" .
rm -rf .gpu/download .gpu/envpool
# GL for MuJoCo's rendering there: the GPU machine has NVIDIA's EGL driver but not the vendor-
# neutral loaders (libglvnd) that envfleet and MuJoCo open; run.sh unpacks these Debian packages.
mkdir -p .gpu/gl
(cd .gpu/gl && apt-get download -q libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
ls -la .gpu/wheels .gpu/envpool.tar.gz
du -sh .gpu
