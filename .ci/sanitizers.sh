#!/usr/bin/env bash
# The sanitizer steps (issue #17): .ci/run calls this after the test suite, in the venv the test
# command made (run it by hand the same way), in the same environment
# (a venv with envfleet's test extras: cmake, ninja, nanobind, pytest). Two builds of envfleet's
# C++ with ENVFLEET_SANITIZE (cpp/envfleet.cmake), each under build/sanitize/:
#
#   asan  -fsanitize=address,undefined: the modules _core (the pool and every engine-free family)
#         and _box2d, the C++ unit tests and the test-only module _envfleet_testing. Runs every
#         C++ unit test (leak checks on), then ASAN_PYTESTS with those modules: tests/core (the
#         pool, its concurrency, faults, Ctrl-C, processes, per-env options, rendering), bad
#         input, the API fuzz, and the Box2D tests that step and draw each env (its
#         frame-by-frame and long-drive tests take minutes under ASan), on $JOBS pytest-xdist
#         workers (one each took 190 s of CI, one core idle most of it). Not
#         tests/test_faults_families.py: its snippets cap their address space (RLIMIT_AS), and
#         ASan reserves terabytes of it for its shadow memory.
#   tsan  -fsanitize=thread: _core, the C++ unit tests and _envfleet_testing. Runs the C++ tests
#         of the pool and its primitives (TSAN_CPP_TESTS), then TSAN_PYTESTS: the stress tests
#         of the primitives, the pool, fault and Ctrl-C tests, the threaded stress test, and the
#         API fuzz of _core's families, in one process (the stress tests time threads of their
#         own: a second worker beside them only adds noise). Only tests of _core's families: an engine module built
#         without TSan synchronises through atomics TSan cannot see while its memcpy and memset
#         calls go through TSan's interceptors, which makes false reports (seen in libmujoco).
#         Nor tests/core/test_processes.py: TSan does not support fork() in a threaded process.
#
# Modules: _box2d is the one engine module here because Box2D is compiled from source with the
# same flags (so the engine's own memory errors are caught too) and builds in about a minute;
# ALE (_atari) alone takes several minutes to compile, and libmujoco (_mujoco, _dm_control) is a
# prebuilt library that no flag of ours instruments. Tests that use those families run with
# their ordinary modules.
#
# Python is not sanitized: the runtime is preloaded (LD_PRELOAD), envfleet is imported from a
# package directory that mirrors the installed envfleet with the sanitized modules in place of
# its own (build/sanitize/<job>/package), and ASan's leak check is off in Python (the
# interpreter keeps memory until exit by design). Any report fails the step. ASan and TSan write
# reports to files (log_path), checked after each run, because some tests run snippets in a
# child interpreter and look only at how it exits. UBSan (g++'s runtime beside ASan's) ignores
# log_path and ends the process on its first report (no recovery): it prints on stderr, which
# pytest then leaves alone (-s), and a child interpreter's report fails the test that ran it
# (those tests check its exit status and output). Suppressions, each with its reason, are in
# .ci/sanitizers/.
#
#   bash .ci/sanitizers.sh [asan|tsan]...     (default: both; ENVFLEET_SANITIZE_JOBS=<n> jobs)
set -euo pipefail
cd "$(dirname "$0")/.."

ASAN_PYTESTS=(tests/core tests/test_bad_input.py tests/fuzz
              tests/families/box2d/test_lunar_lander.py::test_random_actions
              tests/families/box2d/test_lunar_lander.py::test_scripted_landings
              tests/families/box2d/test_bipedal_walker.py::test_random_actions
              tests/families/box2d/test_bipedal_walker.py::test_scripted_walks
              tests/families/box2d/test_car_racing.py::test_render_frames
              # ViZDoom's engines are processes of a foreign, uninstrumented binary: the ASan
              # runtime preloaded for Python reaches them through the environment and they die
              # at start. The family's C++ runs in _vizdoom, which this build does not cover.
              --deselect tests/fuzz/test_api_fuzz.py::TestVizdoom)
TSAN_CPP_TESTS=('Pool.*' 'ActionQueue.*' 'Semaphore.*' 'ThreadPool.*' 'ParallelFor.*' 'Block*')
TSAN_PYTESTS=(tests/core/test_concurrency.py tests/core/test_pool.py
              tests/core/test_thread_stress.py tests/core/test_faults.py
              tests/core/test_interrupts.py
              tests/fuzz/test_api_fuzz.py::TestExample
              tests/fuzz/test_api_fuzz.py::TestClassicControl
              tests/fuzz/test_api_fuzz.py::TestToyText)

PYTHON=${PYTHON:-python}
ROOT=${ENVFLEET_SANITIZE_DIR:-$PWD/build/sanitize}
JOBS=${ENVFLEET_SANITIZE_JOBS:-$(nproc)}
SUPPRESSIONS=$PWD/.ci/sanitizers

# step NAME COMMAND...: runs COMMAND and prints how long it took (wall clock, and the CPU time
# of its processes: on a shared machine the wall clock says little).
step() {
  local name=$1
  shift
  echo "-- sanitizers: $name"
  local TIMEFORMAT="-- sanitizers: $name: %0R s (CPU: %0U s user, %0S s system)"
  time "$@"
}

# Fails, printing them, if any sanitizer report was written under $1.
check_reports() {
  if compgen -G "$1/*" > /dev/null; then
    echo "sanitizer reports (see above for the run that wrote them):" >&2
    cat "$1"/* >&2
    return 1
  fi
}

# build_modules DIR SANITIZERS TARGET...: the top-level project, only the named modules.
build_modules() {
  local dir=$1 sanitizers=$2
  shift 2
  local generator=()
  if command -v ninja > /dev/null; then generator=(-G Ninja); fi
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v "$PYTHON")" -DENVFLEET_SANITIZE="$sanitizers" \
    -DENVFLEET_ATARI=OFF > "$dir.configure.log" || { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" --parallel "$JOBS" --target "$@"
}

# build_tests DIR SANITIZERS: tests/cpp (both targets), configured as the test suite does it.
build_tests() {
  ENVFLEET_TEST_BUILD_DIR=$1 ENVFLEET_SANITIZE=$2 ENVFLEET_TEST_BUILD_JOBS=$JOBS "$PYTHON" -c '
import sys
sys.path.insert(0, "tests")
import cpp_build
for target in (cpp_build.EXECUTABLE, cpp_build.MODULE):
    cpp_build.build(target)'
}

# make_package DIR MODULES...: DIR/envfleet mirrors the envfleet this Python imports, with the
# given module files in place of its own.
make_package() {
  local dir=$1
  shift
  local installed
  installed=$("$PYTHON" -c 'import envfleet, os; print(os.path.dirname(os.path.abspath(envfleet.__file__)))')
  rm -rf "$dir"
  mkdir -p "$dir/envfleet"
  local entry module
  for entry in "$installed"/*; do
    [ "$(basename "$entry")" = __pycache__ ] || ln -s "$entry" "$dir/envfleet/"
  done
  for module in "$@"; do ln -sf "$module" "$dir/envfleet/"; done
}

# The directory of libmujoco (_mujoco's RPATH, $ORIGIN/../mujoco, does not lead there from the
# mirrored package).
mujoco_dir() {
  "$PYTHON" -c '
import importlib.util
spec = importlib.util.find_spec("mujoco")
print(spec.submodule_search_locations[0] if spec else "")'
}

# suppressions NAME: the option that names .ci/sanitizers/NAME.supp, if there is one.
suppressions() {
  if [ -f "$SUPPRESSIONS/$1.supp" ]; then echo ":suppressions=$SUPPRESSIONS/$1.supp"; fi
}

# runtime SANITIZER: what to preload for it: g++'s runtime library (libasan.so, libtsan.so)
# and libstdc++.
runtime() {
  local compiler
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$ROOT/$1/modules/CMakeCache.txt")
  local path
  path=$("$compiler" -print-file-name="lib$1.so")
  if [ ! -f "$path" ]; then  # it links, so this is unlikely: g++ depends on the runtimes
    echo "$compiler has no lib$1.so (Debian: apt-get install libgcc-12-dev)" >&2
    return 1
  fi
  # libstdc++ too: the runtime's interceptor of __cxa_throw looks for the real one when it
  # starts, before Python (which does not link libstdc++) loads it with the first module; without
  # it the first C++ exception aborts ("real___cxa_throw != 0").
  echo "$path $("$compiler" -print-file-name=libstdc++.so)"
}

asan() {
  local dir=$ROOT/asan
  mkdir -p "$dir"
  step "asan: build _core, _box2d" build_modules "$dir/modules" address,undefined _core _box2d
  step "asan: build tests/cpp" build_tests "$dir/tests" address,undefined
  rm -rf "$dir/reports" && mkdir -p "$dir/reports"
  local common="log_path=$dir/reports/report:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1$(suppressions ubsan)"
  step "asan: C++ unit tests" env ASAN_OPTIONS="$common:detect_leaks=1$(suppressions asan)" \
    "$dir/tests/envfleet_cpp_tests"
  check_reports "$dir/reports"
  make_package "$dir/package" "$dir"/modules/_core.*.so "$dir"/modules/_box2d.*.so
  local preload
  preload=$(runtime asan)
  step "asan: ${ASAN_PYTESTS[*]}" env \
    LD_PRELOAD="$preload" \
    ASAN_OPTIONS="$common:detect_leaks=0$(suppressions asan)" \
    LD_LIBRARY_PATH="$(mujoco_dir)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    PYTHONPATH="$dir/package" ENVFLEET_TEST_BUILD_DIR="$dir/tests" \
    ENVFLEET_SANITIZE=address,undefined \
    "$PYTHON" -m pytest -q -x -p no:cacheprovider -o addopts=-ra -s -n "$JOBS" "${ASAN_PYTESTS[@]}"
  check_reports "$dir/reports"
  unset UBSAN_OPTIONS
}

tsan() {
  local dir=$ROOT/tsan
  mkdir -p "$dir"
  step "tsan: build _core" build_modules "$dir/modules" thread _core
  step "tsan: build tests/cpp" build_tests "$dir/tests" thread
  rm -rf "$dir/reports" && mkdir -p "$dir/reports"
  export TSAN_OPTIONS="log_path=$dir/reports/report:halt_on_error=1:second_deadlock_stack=1$(suppressions tsan)"
  step "tsan: C++ unit tests ${TSAN_CPP_TESTS[*]}" "$dir/tests/envfleet_cpp_tests" \
    "${TSAN_CPP_TESTS[@]}"
  check_reports "$dir/reports"
  make_package "$dir/package" "$dir"/modules/_core.*.so
  local preload
  preload=$(runtime tsan)
  step "tsan: ${TSAN_PYTESTS[*]}" env \
    LD_PRELOAD="$preload" \
    LD_LIBRARY_PATH="$(mujoco_dir)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    PYTHONPATH="$dir/package" ENVFLEET_TEST_BUILD_DIR="$dir/tests" ENVFLEET_SANITIZE=thread \
    "$PYTHON" -m pytest -q -x -p no:cacheprovider -o addopts=-ra -s "${TSAN_PYTESTS[@]}"
  check_reports "$dir/reports"
  unset TSAN_OPTIONS
}

start=$SECONDS
for job in "${@:-asan tsan}"; do
  for name in $job; do
    case $name in
      asan | tsan) "$name" ;;
      *) echo "unknown sanitizer job '$name' (asan, tsan)" >&2; exit 2 ;;
    esac
  done
done
echo "-- sanitizers: all done in $((SECONDS - start)) s"
