#!/usr/bin/env bash
# CI: the binary wheel, as a user installs it (RELEASING.md). Builds the CPython 3.11 wheel with
# tools/build_wheels.py, installs it from dist/ with `pip install --find-links dist
# "envfleet[all]"` into a fresh virtual environment whose PATH holds no compiler, and runs
# there, against the installed wheel and not the source tree: every family made, stepped and
# rendered, and the wheel's own checks (tests/wheel), the contract suite over one id per family,
# env.xla() on the CPU (tests/test_xla.py), and two alignment suites whose arithmetic is exact
# (classic control; Box2D's LunarLander, which FMA or another compiler's code would change):
# the wheel's modules compute what the source build's do.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

python3.11 tools/build_wheels.py --python 3.11

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3.11 -m venv "$scratch/venv"
# PATH without a compiler: every program of /usr/bin and /bin but the C and C++ compilers.
mkdir "$scratch/bin"
for dir in /usr/local/bin /usr/bin /bin; do
  for program in "$dir"/*; do
    name=$(basename "$program")
    case "$name" in
      cc | c++ | c89* | c99* | cpp* | gcc* | g++* | clang* | *-gcc* | *-g++* | *-cpp*) continue ;;
    esac
    [ -e "$scratch/bin/$name" ] || ln -s "$program" "$scratch/bin/$name"
  done
done
export PATH="$scratch/venv/bin:$scratch/bin"
export CC=/bin/false CXX=/bin/false
if command -v gcc > /dev/null || command -v g++ > /dev/null || command -v cc > /dev/null; then
  echo "a compiler is still on PATH" >&2
  exit 1
fi

# The wheel just built, named by its file (README.md's `pip install --find-links dist
# "envfleet[all]"` picks the same one); the engine wheel comes from dist/ too.
wheel=$(ls dist/envfleet-*-cp311-cp311-manylinux_2_28_x86_64.whl)
# nanobind: the stub check in test_xla.py; pygame and box2d: the alignment suites' references
# (the versions the test extra pins); pytest-xdist runs the tests on both cores, a file per worker.
pip install -q --only-binary=:all: --find-links dist "$wheel[all]" pytest pytest-xdist==3.8.0 \
  nanobind==3.1.0 pygame==2.6.1 box2d==2.3.10
# Run from outside the checkout, so that nothing of the source tree can be imported.
cd "$scratch"
ids=$(grep -v '^#' "$repo/tests/wheel/family_ids.txt" | paste -sd, -)
ENVFLEET_EXPECT_WHEEL=1 ENVFLEET_CONTRACT_IDS="$ids" python -m pytest -q -p no:cacheprovider -o addopts=-ra \
  -n 2 --dist loadfile --rootdir "$repo" -c "$repo/pyproject.toml" \
  "$repo/tests/wheel" "$repo/tests/contract" "$repo/tests/test_xla.py" \
  "$repo/tests/families/classic_control/test_classic_control.py" \
  "$repo/tests/families/box2d/test_lunar_lander.py"
