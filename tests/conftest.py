"""Shared helpers for envfleet's Python tests.

``run_isolated`` runs a snippet in a fresh interpreter, so that a segfault, an abort or a
hang in the C++ core fails one test instead of taking the whole run down with it. Use it for
anything that could crash the process (misuse paths, error paths, use after close).

A watchdog (``faulthandler.dump_traceback_later``) also guards every in-process test: a test
that hangs for ``ENVFLEET_TEST_WATCHDOG`` seconds (default 600) dumps every thread's stack and
ends the run, rather than hanging CI forever. It is a safety net, not a timing assertion.
"""

from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import textwrap

import pytest

import envfleet

# The directory that holds the `envfleet` package this interpreter imported: the child
# interpreters must import the very same build.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(envfleet.__file__)))
_WATCHDOG_S = float(os.environ.get("ENVFLEET_TEST_WATCHDOG", "600"))
# Under .ci/sanitizers.sh (ENVFLEET_SANITIZE set) a snippet runs several times slower (TSan:
# the 5000 pool closes of test_closing_async_pools_with_steps_still_queued_returns took most
# of their 120 s, and once went over on a busy machine): its time limit is scaled, up to just
# under the per-test watchdog, so that only a hang fails it.
_SANITIZER_SLOWDOWN = 4 if os.environ.get("ENVFLEET_SANITIZE") else 1


def run_isolated(code: str, timeout: float = 60) -> tuple[int, str, str]:
    """Runs ``code`` (dedented) in a fresh ``sys.executable``; returns (returncode, stdout, stderr).

    PYTHONPATH is inherited, with the directory of the imported ``envfleet`` put first. A
    snippet that runs past ``timeout`` seconds is killed and the calling test fails with a
    message saying it hung, plus whatever it printed.
    """
    if _SANITIZER_SLOWDOWN > 1:
        timeout = min(timeout * _SANITIZER_SLOWDOWN, max(timeout, _WATCHDOG_S - 30))
    env = dict(os.environ)
    paths = [_PACKAGE_ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONFAULTHANDLER"] = "1"  # a crash prints the Python stack to stderr
    try:
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        pytest.fail(
            f"isolated snippet hung: no exit within {timeout} s (killed)\n"
            f"--- stdout ---\n{out[-4000:]}\n--- stderr ---\n{err[-4000:]}",
            pytrace=False,
        )
    return proc.returncode, proc.stdout, proc.stderr


def describe(returncode: int, stdout: str, stderr: str) -> str:
    """A readable account of an isolated run, for assertion messages."""
    how = f"signal {-returncode}" if returncode < 0 else f"exit code {returncode}"
    return f"{how}\n--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"


def assert_isolated_ok(code: str, timeout: float = 60) -> str:
    """Runs ``code`` isolated and requires a clean exit; returns its stdout."""
    rc, out, err = run_isolated(code, timeout)
    assert rc == 0, "isolated snippet failed: " + describe(rc, out, err)
    return out


def engine_built(task_id: str) -> bool:
    """Whether ``task_id``'s family's engine module is built and loads here (False where
    ``make_spec`` raises :class:`~envfleet.EngineNotInstalledError`), for ``skipif`` marks on
    tests of families that some builds leave out."""
    try:
        envfleet.make_spec(task_id)
    except envfleet.EngineNotInstalledError:
        return False
    return True


def vizdoom_built() -> bool:
    """Whether the ViZDoom family is built here (it is left out where Boost was missing at
    build time)."""
    return engine_built("Basic-v1")


@pytest.fixture(autouse=True)
def _hang_watchdog():
    faulthandler.dump_traceback_later(_WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytest_tmp(tmp_path_factory):
    # Stable-Baselines3 makes a fresh `SB3-<date>` folder under the system temp dir on every
    # `learn()` unless SB3_LOGDIR names one: the suite left hundreds behind per run. pytest
    # prunes its own temp folders, so the logs go there.
    previous = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if previous is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = previous


@pytest.fixture
def counting():
    """``counting(**kwargs)`` makes a Counting-v0 Gymnasium pool and closes it after the test."""
    pools = []

    def make(**kwargs):
        kwargs.setdefault("episode_length", 3)
        pool = envfleet.make("Counting-v0", **kwargs)
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


# ---- tests/cpp: the C++ unit tests and the test-only module, built once per session ----------


@pytest.fixture(scope="session")
def testing_module():
    """The test-only extension module ``_envfleet_testing`` (tests/cpp/testing_module), built
    from tests/cpp by tests/cpp_build.py; a failed build fails the test, with the compiler's
    output. Its directory is put on sys.path, so that a ``Family(...,
    module="_envfleet_testing")`` can import it by name."""
    import cpp_build

    return cpp_build.import_testing_module()


@pytest.fixture(scope="session")
def cpp_tests_executable():
    """The path of the ``envfleet_cpp_tests`` runner (tests/cpp/check_main.cc), built as above."""
    import cpp_build

    return cpp_build.cpp_tests_executable()


def pytest_configure(config):
    """Meta-World's models come from the metaworld package, and the MyoSuite key-turn tasks'
    hand from myosuite's, which the test extra cannot list (metaworld pins another MuJoCo than
    envfleet's, myosuite another Gymnasium): each is installed alone into envfleet's cache
    folder (``envfleet.families.<family>.install()``, once) before any test makes one of their
    envs. Where that fails (no network), the tests that need them fail naming what is missing."""
    from envfleet.families import metaworld, myosuite

    if not os.path.isdir(metaworld.assets_dir()):
        try:
            metaworld.install()
        except Exception as exc:  # reported; the tests that need the models then fail
            print(f"\nenvfleet: could not install metaworld's models: {exc}", file=sys.stderr)
    if not myosuite.recipes.myosuite_dir():
        try:
            myosuite.install()
        except Exception as exc:  # reported, as above
            print(f"\nenvfleet: could not install myosuite's models: {exc}", file=sys.stderr)


# ---- the order of the test files ------------------------------------------------------------

# The files that take minutes, slowest first (per-test durations of a CI run on the 2-core
# machine, on one worker: the contract ~12 min, minigrid ~7, the training examples and the WFC
# levels ~3 each, the rest 1.5-3.5). pytest-xdist hands each worker a whole file in
# collection order (pyproject.toml: --dist loadfile --no-loadscope-reorder): with the longest
# files first, the short ones fill in at the end and both workers finish together. By its own
# order (most tests first) a file with a few long tests came last, and one worker ran it alone
# for minutes.
SLOWEST_FILES_FIRST = (
    "tests/contract/test_contract.py",
    "tests/families/minigrid/test_minigrid.py",
    "tests/integrations/test_training_examples.py",
    "tests/families/minigrid/test_minigrid_wfc.py",
    "tests/families/minigrid/test_babyai.py",
    "tests/families/dm_control/test_dm_control.py",
    "tests/families/box2d/test_car_racing.py",
    "tests/families/metaworld/test_metaworld_spec.py",
    "tests/families/robotics/test_hand.py",
    "tests/families/dm_control/test_dm_control_render.py",
    "tests/core/test_numpy_random.py",
    "tests/families/atari/test_atari.py",
)


def pytest_collection_modifyitems(config, items):
    """Moves SLOWEST_FILES_FIRST's files to the front, in that order; every other file, and the
    tests within each file, keep pytest's order (the sort is stable)."""
    rank = {path: i for i, path in enumerate(SLOWEST_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
