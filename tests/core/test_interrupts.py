"""Ctrl-C, close() and interpreter exit while a pool has work in flight (README "Ctrl-C and
shutdown"), through a Python-written env whose steps are slow on purpose
(tests/python_env_defs.py's Busy): a waiting step(), recv() or reset() raises the signal
handler's exception promptly, the interrupted batch completes on the workers, and the pool
stays usable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import envfleet

pytest.importorskip("numba", reason="the test extra installs numba")

TESTS = Path(__file__).resolve().parents[1]
STEP_SECONDS = 0.02  # each Busy step, calibrated below
NUM_ENVS = 48  # one worker plus the caller: a batch takes about NUM_ENVS / 2 steps, ~0.5 s


@pytest.fixture(scope="module")
def spin() -> int:
    """Busy's `spin` for a step of about STEP_SECONDS on this machine."""
    sys.path.insert(0, str(TESTS))
    from python_env_defs import Busy

    if "Busy-v0" not in envfleet.list_all_envs():
        envfleet.register_python_env("Busy-v0", Busy)
    env = envfleet.make("Busy-v0", num_envs=1, num_threads=1, spin=1_000_000)
    env.reset()
    env.step(np.zeros(1, int))  # compiled by now
    start = time.perf_counter()
    env.step(np.zeros(1, int))
    per_spin = (time.perf_counter() - start) / 1_000_000
    env.close()
    return max(1, int(STEP_SECONDS / per_spin))


class Interrupted(Exception):
    pass


@pytest.fixture
def sigint_raises():
    """SIGINT raises Interrupted (the default handler's KeyboardInterrupt would look like a
    user's Ctrl-C to pytest); restored afterwards."""

    def handler(signum, frame):
        raise Interrupted

    previous = signal.signal(signal.SIGINT, handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds: float) -> list[float]:
    """Sends this process SIGINT after `seconds`, from another thread; returns a list that
    then holds the time it was sent."""
    sent: list[float] = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(seconds, fire).start()
    return sent


def make_busy(spin: int, **kwargs) -> envfleet.GymnasiumEnvPool:
    kwargs.setdefault("num_envs", NUM_ENVS)
    return envfleet.make("Busy-v0", num_threads=1, spin=spin, **kwargs)


def test_ctrl_c_interrupts_a_waiting_step_and_the_pool_stays_usable(spin, sigint_raises):
    env = make_busy(spin)
    env.reset()
    actions = np.zeros(NUM_ENVS, int)
    sent = interrupt_after(0.1)
    with pytest.raises(Interrupted):
        env.step(actions)
    latency = time.perf_counter() - sent[0]
    # About 20 ms of polling plus the one ~20 ms step the caller is in; the bound leaves room
    # for a loaded machine, and is far below the ~0.5 s the batch takes.
    assert latency < 0.25, f"the interrupt took {latency * 1000:.0f} ms"
    # The envs are still stepping: a new step of them says why it cannot go on.
    with pytest.raises(ValueError, match="interrupted recv"):
        env.step(actions)
    # recv() returns the interrupted batch: every env took exactly its first step.
    obs, _, _, _, info = env.recv()
    np.testing.assert_array_equal(obs, np.ones(NUM_ENVS))
    np.testing.assert_array_equal(info["env_id"], np.arange(NUM_ENVS))
    obs, *_ = env.step(actions)
    np.testing.assert_array_equal(obs, np.full(NUM_ENVS, 2.0))
    env.close()


def test_reset_drops_the_interrupted_batch(spin, sigint_raises):
    env = make_busy(spin)
    env.reset()
    interrupt_after(0.1)
    with pytest.raises(Interrupted):
        env.step(np.zeros(NUM_ENVS, int))
    obs, info = env.reset()
    np.testing.assert_array_equal(obs, np.zeros(NUM_ENVS))
    np.testing.assert_array_equal(info["elapsed_step"], np.zeros(NUM_ENVS))
    obs, *_ = env.step(np.zeros(NUM_ENVS, int))
    np.testing.assert_array_equal(obs, np.ones(NUM_ENVS))
    env.close()


def test_ctrl_c_interrupts_an_async_recv(spin, sigint_raises):
    env = make_busy(spin, num_envs=2 * NUM_ENVS, batch_size=NUM_ENVS)
    env.async_reset()
    _, _, _, _, info = env.recv()
    env.send(np.zeros(NUM_ENVS, int), info["env_id"])
    for _ in range(2):
        _, _, _, _, info = env.recv()
        env.send(np.zeros(NUM_ENVS, int), info["env_id"])
    interrupt_after(0.05)
    with pytest.raises(Interrupted):
        env.recv()
    # Nothing was lost: the next batches hold every env once more.
    seen = []
    for _ in range(2):
        _, _, _, _, info = env.recv()
        seen.extend(info["env_id"])
    assert sorted(seen) == list(range(2 * NUM_ENVS))
    env.close()


def test_close_with_work_in_flight_is_idempotent(spin):
    env = make_busy(spin, num_envs=8, batch_size=4)
    env.async_reset()
    _, _, _, _, info = env.recv()
    env.send(np.zeros(4, int), info["env_id"])
    env.close()
    env.close()
    assert env.closed if hasattr(env, "closed") else True
    with pytest.raises(RuntimeError, match="closed"):
        env.recv()
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


def test_other_python_threads_run_while_a_step_waits(spin):
    env = make_busy(spin)
    env.reset()
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    env.step(np.zeros(NUM_ENVS, int))
    done.set()
    thread.join()
    assert len(ticks) > 20  # the step took ~0.5 s, in which the thread ran freely
    env.close()


def run_script(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    src = str(Path(envfleet.__file__).resolve().parents[1])
    path = [src, str(TESTS), environment.get("PYTHONPATH", "")]
    environment["PYTHONPATH"] = os.pathsep.join(path)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )


def test_exiting_with_pools_alive_and_work_in_flight(spin):
    result = run_script(
        f"""
        import numpy as np
        import envfleet
        from python_env_defs import Busy
        envfleet.register_python_env("Busy-v0", Busy)
        sync = envfleet.make("Busy-v0", num_envs=8, num_threads=2, spin={spin})
        sync.reset()
        sync.send(np.zeros(8, int))          # a whole batch in flight, never received
        pools = [envfleet.make("Busy-v0", num_envs=8, batch_size=2, num_threads=2, spin={spin})
                 for _ in range(3)]
        for pool in pools:
            pool.async_reset()
        print("exiting")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "exiting"


def _thread_ids() -> set[str]:
    return set(os.listdir("/proc/self/task"))


def _blocks_sigint(tid: str) -> bool:
    with open(f"/proc/self/task/{tid}/status") as status:
        blocked = next(line for line in status if line.startswith("SigBlk:"))
    return bool(int(blocked.split()[1], 16) >> (signal.SIGINT - 1) & 1)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads Linux's /proc")
def test_the_pools_threads_never_take_a_ctrl_c():
    """Python runs signal handlers in the main thread only: a Ctrl-C the kernel hands to another
    thread does not interrupt the main thread's blocking call (time.sleep, input(), a lock), so
    KeyboardInterrupt would come only when that call ends. Every thread a pool starts blocks
    the asynchronous signals (cpp/core/signal_mask.h); the caller's mask stays as it was."""
    before = _thread_ids()
    env = envfleet.make("CartPole-v1", num_envs=8, num_threads=2)
    try:
        env.reset()
        started = _thread_ids() - before
        assert len(started) >= 2, started  # the two workers (the build's helpers have ended)
        assert all(_blocks_sigint(tid) for tid in started)
        assert not _blocks_sigint(str(threading.get_native_id()))
    finally:
        env.close()
