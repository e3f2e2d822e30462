"""The bench's peers (src/envfleet/bench/executors.py): PufferLib 3's ``pufferlib.vector``
backends over Gymnasium's envs, and gymnax's jitted CartPole.

Each test builds the executor on a tiny configuration and checks the work behind the count
``run`` returns: the envs were stepped (or reset, on the call after an episode ended) once
per row, with the bench's action stream. The tests skip only where the peer is not installed:
PufferLib 3.0.0 cannot be installed by pip on Python 3.11 with envfleet's Gymnasium (see
benchmarks/README.md, "PufferLib"), gymnax comes with ``envfleet[bench]``.
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import os
import time

import gymnasium
import numpy as np
import pytest
from test_bench import _PACKAGE_ROOT, TINY, run_bench

from envfleet.bench import tasks
from envfleet.bench.__main__ import default_executors
from envfleet.bench.executors import EXECUTORS, build, make_actions, unavailable_reason
from envfleet.bench.plan import make_cells


def _pufferlib_missing() -> str | None:
    from envfleet.bench.executors import import_pufferlib

    try:
        import_pufferlib()
    except ImportError as exc:
        return f"pufferlib 3.x is not installed ({exc})"
    return None


PUFFERLIB_MISSING = _pufferlib_missing()
needs_pufferlib = pytest.mark.skipif(PUFFERLIB_MISSING is not None, reason=PUFFERLIB_MISSING or "")
needs_gymnax = pytest.mark.skipif(
    importlib.util.find_spec("gymnax") is None, reason="gymnax is not installed"
)
PUFFERLIB_EXECUTORS = ["pufferlib-serial", "pufferlib-multiprocessing"]
PUFFERLIB_EXECUTORS += ["pufferlib-multiprocessing-async"]


class _Counting(gymnasium.Wrapper):
    """Counts steps and resets in shared memory (Multiprocessing forks its workers), and
    records, in this process, each env's events: "reset", or (action, episode ended)."""

    steps = None  # multiprocessing.Value, set by the test before the executor is built
    resets = None
    log: list = []

    def __init__(self, env):
        super().__init__(env)
        self.actions: list = []
        _Counting.log.append(self.actions)

    def reset(self, **kwargs):
        with _Counting.resets.get_lock():
            _Counting.resets.value += 1
        self.actions.append("reset")
        return super().reset(**kwargs)

    def step(self, action):
        with _Counting.steps.get_lock():
            _Counting.steps.value += 1
        result = super().step(action)
        self.actions.append((int(np.asarray(action).reshape(-1)[0]), result[2] or result[3]))
        return result


@pytest.fixture
def counting(monkeypatch):
    """CartPole-v1 as every Gymnasium-wrapping executor makes it, wrapped in :class:`_Counting`."""
    _Counting.steps = multiprocessing.Value("q", 0)
    _Counting.resets = multiprocessing.Value("q", 0)
    _Counting.log = []
    original = tasks.gymnasium_maker

    def maker(task, options=None):
        make_one = original(task, options)
        return lambda: _Counting(make_one())

    monkeypatch.setattr(tasks, "gymnasium_maker", maker)
    return _Counting


def _rows(counter) -> int:
    return counter.steps.value + counter.resets.value


def test_the_peers_are_listed_outside_the_quick_grid():
    full, quick = default_executors("CartPole-v1"), default_executors("CartPole-v1", quick=True)
    for name in [*PUFFERLIB_EXECUTORS, "gymnax-jit"]:
        assert name in full and name not in quick
    assert "envfleet-sync" in quick
    assert "gymnax-jit" not in default_executors("Pendulum-v1")  # CartPole only
    assert "pufferlib-serial" in default_executors("Pendulum-v1")  # any Gymnasium task


def test_pufferlibs_async_mode_needs_two_workers():
    cells, notes = make_cells(["pufferlib-multiprocessing-async"], "CartPole-v1", [4], [1, 2], 2)
    assert [(c.num_envs, c.batch_size, c.num_threads) for c in cells] == [(8, 4, 2)]
    assert notes == ["pufferlib-multiprocessing-async skipped below 2 threads (its async mode)"]


def test_a_missing_peer_is_a_reason_not_a_crash(tmp_path, monkeypatch):
    """Without the package, the executor is reported unavailable with the reason."""
    shadow = tmp_path / "shadow"
    for name in ("pufferlib", "gymnax"):
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(f"raise ImportError('no {name} here')\n")
    out = tmp_path / "out"
    executors = "envfleet-sync,pufferlib-serial,gymnax-jit"
    args = [*TINY, "--executors", executors, "--no-extras", "--no-plot", "--out", str(out)]
    proc = run_bench(args, extra_path=str(shadow))
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    notes = "\n".join(doc["notes"])
    assert "pufferlib-serial skipped: pufferlib 3.x is not importable" in notes
    assert "gymnax-jit skipped: gymnax is not importable" in notes
    assert [r["executor"] for r in doc["summary"]] == ["envfleet-sync"]
    assert doc["meta"]["versions"]["pufferlib"] is None


@needs_gymnax
def test_gymnax_runs_cartpole_only():
    assert unavailable_reason("gymnax-jit", "CartPole-v1") is None
    assert "CartPole-v1 only" in unavailable_reason("gymnax-jit", "Acrobot-v1")


@needs_pufferlib
def test_pufferlib_serial_steps_every_row_with_the_action_stream(counting):
    """Serial: on call i env j is stepped with actions[i % count][j], or reset if its last
    step ended the episode (next-step autoreset), exactly as the pools count a row."""
    batch, calls = 3, 60
    actions = make_actions("CartPole-v1", batch, 4, seed=0)
    executor = build("pufferlib-serial", "CartPole-v1", batch, batch, None, 0, actions)
    try:
        assert counting.resets.value == batch  # the reset before timing
        assert executor.run(calls) == calls * batch
        assert _rows(counting) == batch + calls * batch
        assert counting.resets.value > batch  # random actions end episodes within 60 calls
        envs = counting.log[-batch:]  # the driver env PufferLib makes first is never stepped
        for j, events in enumerate(envs):
            assert events[0] == "reset" and len(events) == 1 + calls
            for i, (before, event) in enumerate(zip(events, events[1:], strict=False)):
                if before != "reset" and before[1]:  # the episode ended on the last call
                    assert event == "reset"
                else:
                    assert event == (int(actions[i % 4][j]), event[1])
    finally:
        executor.close()


@needs_pufferlib
@pytest.mark.parametrize("name", ["pufferlib-multiprocessing", "pufferlib-multiprocessing-async"])
def test_pufferlib_multiprocessing_steps_every_row(name, counting):
    """The workers step (or reset) one env per row sent; async recv/send keeps a reserve of
    envs, so the count is read once the last batch sent has been stepped."""
    info = EXECUTORS[name]
    batch = 2
    num_envs = 2 * batch if info.mode == "async" else batch
    actions = make_actions("CartPole-v1", batch, 4, seed=0)
    executor = build(name, "CartPole-v1", num_envs, batch, 2, 0, actions)
    try:
        assert len(executor.worker_pids) == 2
        assert all(os.path.exists(f"/proc/{pid}") for pid in executor.worker_pids)
        _wait_for(lambda: _rows(counting) >= num_envs)
        start = _rows(counting)
        assert start == num_envs  # every env was reset once, nothing stepped yet
        calls = 40
        assert executor.run(calls) == calls * batch
        _wait_for(lambda: _rows(counting) >= start + calls * batch)
        time.sleep(0.2)  # nothing beyond the rows sent may be stepped
        assert _rows(counting) == start + calls * batch
        assert counting.resets.value > num_envs  # episodes ended and were reset
    finally:
        executor.close()


def _wait_for(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


@needs_pufferlib
def test_pufferlib_leaves_no_symlink_behind(tmp_path):
    """PufferLib 3.0's import makes a ``resources`` link in the working directory; the
    bench imports it elsewhere."""
    import subprocess
    import sys

    code = "from envfleet.bench.executors import import_pufferlib; import_pufferlib()"
    env = dict(os.environ)
    paths = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([_PACKAGE_ROOT, *paths])
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, env=env)
    assert not os.path.lexists(tmp_path / "resources")


@needs_gymnax
def test_gymnax_loop_steps_every_row_with_the_action_stream():
    """The compiled loop does ``calls`` vmapped steps with ``actions[i % count]``: its carry
    equals a step-by-step replay of the same keys and actions, through episode ends."""
    import jax

    batch, calls = 3, 50
    actions = make_actions("CartPole-v1", batch, 4, seed=0)
    executor = build("gymnax-jit", "CartPole-v1", batch, batch, None, 0, actions)
    try:
        assert executor.setup["compile_s"] > 0
        initial = executor.internals["carry"]
        assert executor.run(calls) == calls * batch
        state, key, (obs, reward, done) = executor.internals["carry"]

        import gymnax

        env, params = gymnax.make("CartPole-v1")
        step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
        replay, replay_key, _ = initial
        ends = 0
        for i in range(calls):
            replay_key, step_key = jax.random.split(replay_key)
            keys = jax.random.split(step_key, batch)
            replay_obs, replay, _, replay_done, _ = step(
                keys, replay, np.asarray(actions[i % 4], np.int32), params
            )
            ends += int(np.sum(replay_done))
        assert ends > 0  # random actions end CartPole episodes within 50 calls
        np.testing.assert_allclose(np.asarray(obs), np.asarray(replay_obs), rtol=1e-5)
        assert (np.asarray(state.time) == np.asarray(replay.time)).all()
        assert (np.asarray(done) == np.asarray(replay_done)).all()
        assert (np.asarray(key) == np.asarray(replay_key)).all()
        assert executor.run(calls) == calls * batch  # and again, on the same compiled loop
    finally:
        executor.close()


@needs_gymnax
def test_compile_time_is_reported(tmp_path):
    out = tmp_path / "out"
    args = [*TINY, "--executors", "envfleet-sync,gymnax-jit", "--no-extras", "--no-plot"]
    proc = run_bench([*args, "--out", str(out)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    rows = {r["label"]: r for r in doc["summary"]}
    assert rows["gymnax-jit"]["compile_s"] > 0 and rows["gymnax-jit"]["median"] > 0
    assert rows["envfleet-sync"]["compile_s"] is None
    assert doc["meta"]["versions"]["gymnax"] and doc["meta"]["versions"]["jax"]
    assert "jit compile time" in proc.stdout and "gymnax-jit b=2" in proc.stdout
