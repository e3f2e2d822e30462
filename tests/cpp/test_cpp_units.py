"""The C++ unit tests (tests/cpp/**/*_test.cc), one pytest test per C++ test.

The names are read from the sources (``TEST(Suite, Name)``) so that collecting needs no build;
``test_every_cpp_test_is_collected`` checks them against the runner's own ``--list``. Each test
runs the ``envfleet_cpp_tests`` executable (built once per session by tests/cpp_build.py) on
its own, in a separate process, and fails with the runner's output (file:line of each failed
check) on a non-zero exit, a crash or a hang.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 300  # per test, far above the slowest (~1 s); the runner's own limit is below


def _source_tests() -> list[str]:
    names = []
    for path in sorted(glob.glob(os.path.join(HERE, "**", "*_test.cc"), recursive=True)):
        with open(path) as f:
            names += [".".join(m) for m in re.findall(r"^TEST\((\w+),\s*(\w+)\)", f.read(), re.M)]
    return sorted(names)


SOURCE_TESTS = _source_tests()


def _describe(proc: subprocess.CompletedProcess) -> str:
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
    return f"envfleet_cpp_tests: {how}\n{proc.stdout[-8000:]}{proc.stderr[-4000:]}"


def test_every_cpp_test_is_collected(cpp_tests_executable):
    proc = subprocess.run(
        [cpp_tests_executable, "--list"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, _describe(proc)
    assert sorted(proc.stdout.split()) == SOURCE_TESTS
    assert len(SOURCE_TESTS) > 50


@pytest.mark.parametrize("name", SOURCE_TESTS)
def test_cpp(cpp_tests_executable, name):
    try:
        proc = subprocess.run(
            [cpp_tests_executable, "--timeout", str(TIMEOUT_S - 30), name],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        pytest.fail(f"{name} hung (killed after {TIMEOUT_S} s)\n{out[-8000:]}", pytrace=False)
    if proc.returncode != 0:
        pytest.fail(_describe(proc), pytrace=False)
    assert f"[       OK ] {name}" in proc.stdout, _describe(proc)
