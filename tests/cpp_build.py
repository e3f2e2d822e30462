"""Builds tests/cpp (the C++ unit tests and the test-only module ``_envfleet_testing``) once per
test session, for the ``testing_module`` and ``cpp_tests_executable`` fixtures of
tests/conftest.py. The two are separate targets: a C++ unit test that does not compile fails
the C++ tests, not the Python tests that use the module.

The build directory is ``build/tests-<python tag>`` under the repository root (a temporary
directory if the repository is not writable) and is kept between sessions, so a session after
a C++ change rebuilds only what changed (CMake + Ninja if installed, else Makefiles). A failed
configure or build fails the tests that need it, with the compiler's output: it never skips.
``ENVFLEET_TEST_BUILD_DIR`` overrides the directory, ``ENVFLEET_TEST_BUILD_JOBS`` the number of
parallel compile jobs (default: the usable cores), and ``ENVFLEET_SANITIZE`` (e.g. ``thread``)
builds both targets with sanitizers (cpp/envfleet.cmake; .ci/sanitizers.sh sets all three).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(REPO, "tests", "cpp")
MODULE = "_envfleet_testing"
EXECUTABLE = "envfleet_cpp_tests"


_configured: str | BaseException | None = None  # the build directory, or why configuring failed
_built: dict[str, str | BaseException] = {}  # target -> its file, or why building it failed


def build_dir() -> str:
    if os.environ.get("ENVFLEET_TEST_BUILD_DIR"):
        return os.path.abspath(os.environ["ENVFLEET_TEST_BUILD_DIR"])
    name = f"tests-{sys.implementation.cache_tag}"  # e.g. tests-cpython-311
    root = os.path.join(REPO, "build")
    if os.access(root if os.path.isdir(root) else REPO, os.W_OK):
        return os.path.join(root, name)
    tag = hashlib.sha1(REPO.encode()).hexdigest()[:8]
    return os.path.join(tempfile.gettempdir(), f"envfleet-{name}-{tag}")


def _tool(name: str) -> str | None:
    # The one installed beside this interpreter (the venv's), else one on PATH.
    local = os.path.join(os.path.dirname(sys.executable), name)
    return local if os.path.exists(local) else shutil.which(name)


def _run(cmd: list[str], what: str) -> None:
    # The build tools never run under a sanitizer runtime preloaded for this interpreter
    # (.ci/sanitizers.sh runs the tests with LD_PRELOAD=libasan/libtsan).
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr)[-20000:]
        raise RuntimeError(
            f"{what} failed (exit code {proc.returncode}):\n$ {' '.join(cmd)}\n{output}"
        )


@contextlib.contextmanager
def _locked(directory: str):
    # One build at a time in a directory (parallel pytest workers, sessions side by side).
    os.makedirs(os.path.dirname(directory), exist_ok=True)
    with open(directory + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _configure(directory: str) -> None:
    cmake = _tool("cmake")
    if cmake is None:
        raise RuntimeError("cmake is missing: pip install '.[test]' installs it")
    ninja = _tool("ninja")
    generator = "Ninja" if ninja else "Unix Makefiles"
    # Configure from scratch when the interpreter or the generator changed (a cache made for
    # another venv or generator cannot be reused); otherwise `cmake --build` re-runs the
    # configure step by itself whenever a CMakeLists.txt changed.
    sanitize = os.environ.get("ENVFLEET_SANITIZE", "")
    stamp = os.path.join(directory, "envfleet-configured-with.txt")
    wanted = f"{sys.executable}\n{generator}\n{ninja or ''}\n"
    if sanitize:  # a line only then, so that existing unsanitized builds stay configured
        wanted += f"{sanitize}\n"
    if os.path.exists(stamp):
        with open(stamp) as f:
            if f.read() == wanted:
                return
    if os.path.exists(os.path.join(directory, "CMakeCache.txt")):
        shutil.rmtree(directory)
    cmd = [cmake, "-S", SOURCE, "-B", directory, "-G", generator]
    cmd.append(f"-DPython_EXECUTABLE={sys.executable}")
    cmd.append(f"-DENVFLEET_SANITIZE={sanitize}")
    if ninja:
        cmd.append(f"-DCMAKE_MAKE_PROGRAM={ninja}")
    _run(cmd, "configuring tests/cpp")
    with open(stamp, "w") as f:
        f.write(wanted)


def build(target: str) -> str:
    """Configures tests/cpp (if needed) and builds ``target`` (``envfleet_cpp_tests`` or
    ``_envfleet_testing``), once per process; returns the build directory. Raises on failure,
    and a failure is remembered: a session tries each build once."""
    global _configured
    if target not in _built:
        directory = build_dir()
        with _locked(directory):
            if _configured is None:
                try:
                    _configure(directory)
                    _configured = directory
                except Exception as exc:
                    _configured = exc
            if isinstance(_configured, BaseException):
                _built[target] = _configured
            else:
                jobs = os.environ.get("ENVFLEET_TEST_BUILD_JOBS")
                jobs = jobs or str(len(os.sched_getaffinity(0)))
                cmd = [_tool("cmake"), "--build", directory, "--parallel", jobs]
                if not _built:
                    # First, both targets in one go (their files compile in parallel); if that
                    # fails, each target on its own below, so each reports its own errors.
                    with contextlib.suppress(RuntimeError):
                        _run(cmd, "building tests/cpp")
                        _built.update({EXECUTABLE: directory, MODULE: directory})
                if target not in _built:
                    try:
                        _run(cmd + ["--target", target], f"building {target} (tests/cpp)")
                        _built[target] = directory
                    except Exception as exc:
                        _built[target] = exc
    result = _built[target]
    if isinstance(result, BaseException):
        raise result
    return result


def build_or_fail(target: str) -> str:
    """``build(target)`` for fixtures: a failed build fails the test with the compiler output."""
    try:
        return build(target)
    except Exception as exc:
        message = str(exc)
    pytest.fail(message, pytrace=False)


def cpp_tests_executable() -> str:
    """Builds the C++ unit tests' runner; returns its path."""
    return os.path.join(build_or_fail(EXECUTABLE), EXECUTABLE)


def import_testing_module():
    """Builds ``_envfleet_testing`` and imports it from its build directory (put on sys.path)."""
    directory = build_or_fail(MODULE)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    module = importlib.import_module(MODULE)
    here = os.path.dirname(os.path.abspath(module.__file__))
    assert os.path.samefile(here, directory), (
        f"imported {MODULE} from {module.__file__}, not from the build in {directory}"
    )
    return module
