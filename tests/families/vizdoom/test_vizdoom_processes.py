"""ViZDoom engine processes, their supervisors, shared memory and scratch folders are resources:
one engine per env while the pool lives, none of them left after close(), after the owner is
SIGKILLed, after an engine is killed, or after make/close loops. Ctrl-C (SIGINT to the
owner's process group) interrupts Python but not the engines, which run in their own group.

Only what the test itself started counts (Census): other tests, or another test process, may
run engines of their own at the same time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import envfleet

TASK = "DefendTheCenter-v1"
ENGINE = envfleet.registry.registration(TASK).options["vzd_path"]


def _argv(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def _option(argv, name):
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


class Census:
    """What the ViZDoom envs of one owner process started: its supervisors (their
    -envfleet-parent argument names the owner), the engines and shared memory of those
    instances (+viz_instance_id) and their scratch folders (the folder of -config).

    Only these count: other tests, or pytest-xdist's other worker, may run engines of their own
    at the same time. Instances are recorded while they run (look), so that what is left of them
    after the owner closed or died can still be found (left)."""

    def __init__(self, owner):
        self.owner = str(owner)
        self.instances = set()
        self.folders = set()

    def _processes(self):
        engines, supervisors = set(), set()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            argv = _argv(entry)
            if not argv:
                continue
            instance = _option(argv, "+viz_instance_id")
            if argv[0].endswith("vizdoom_supervisor"):
                if _option(argv, "-envfleet-parent") == self.owner:
                    supervisors.add(int(entry))
                    self.instances.add(instance)
                    config = _option(argv, "-config")
                    if config and os.path.basename(os.path.dirname(config)).startswith(
                        "envfleet-vizdoom-"
                    ):
                        self.folders.add(os.path.dirname(config))
            elif argv[0] == ENGINE and instance in self.instances:
                engines.add(int(entry))
        return engines, supervisors

    def look(self):
        """(engine pids, supervisor pids) of the owner's instances running now."""
        self._processes()  # records the instances first, then finds their engines
        return self._processes()

    def left(self):
        """(engines, supervisors, shared memory names, scratch folders) of the owner's
        instances that exist now."""
        engines, supervisors = self._processes()
        shm = {
            path
            for instance in self.instances
            for base in ("ViZDoomSM", "ViZDoomMQCtr", "ViZDoomMQDoom")
            if os.path.exists(path := f"/dev/shm/{base}{instance}")
        }
        return engines, supervisors, shm, {f for f in self.folders if os.path.exists(f)}

    def wait_clean(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            left = self.left()
            if not any(left) or time.monotonic() > deadline:
                return left
            time.sleep(0.1)


CHILD_ENV = dict(os.environ)
CHILD_ENV["PYTHONPATH"] = os.pathsep.join(
    [os.path.dirname(os.path.dirname(os.path.abspath(envfleet.__file__)))]
    + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
)


def start_child(code, cwd):
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=CHILD_ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, for os.killpg
    )


def wait_for_line(proc, want, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.strip() == want:
            return
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"child did not print {want!r}: {proc.stderr.read()[-3000:]}")


def _asleep(pid, timeout=10.0):
    """Waits until the main thread of `pid` sleeps in a system call (state S); False if it
    did not within `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/task/{pid}/stat") as f:
            if f.read().rpartition(")")[2].split()[0] == "S":
                return True
        time.sleep(0.005)
    return False


def _hang_report(proc):
    """Why `proc` hangs: each of its threads (name, state, kernel wait, blocked signals), then,
    having killed it, its stderr, where the child's faulthandler (registered for SIGUSR1) has
    written every Python thread's stack."""
    lines = []
    for tid in sorted(os.listdir(f"/proc/{proc.pid}/task"), key=int):
        try:
            with open(f"/proc/{proc.pid}/task/{tid}/status") as f:
                status = dict(line.split(":\t", 1) for line in f.read().splitlines())
            with open(f"/proc/{proc.pid}/task/{tid}/wchan") as f:
                wchan = f.read()
        except OSError:
            continue
        lines.append(
            f"thread {tid} {status['Name']} {status['State']} wchan={wchan} "
            f"SigBlk={status['SigBlk']}"
        )
    proc.send_signal(signal.SIGUSR1)
    time.sleep(1.0)
    proc.kill()
    out, err = proc.communicate()
    return "\n".join(lines + [f"stdout: {out!r}", f"stderr: {err[-6000:]}"])


def test_one_engine_per_env_and_close_cleans_up(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    census = Census(os.getpid())
    env = envfleet.make_gymnasium(TASK, num_envs=3)
    try:
        env.reset()
        env.step(np.ones((3, 3)))
        engines, supervisors = census.look()
        assert len(engines) == 3
        assert len(supervisors) == 3
        _, _, shm, scratch = census.left()
        assert len(scratch) == 3
        assert shm  # the instances' shared memory exists while they run
    finally:
        env.close()
    assert census.wait_clean() == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []  # nothing written in the cwd (no _vizdoom, no ini)


def test_sigkill_of_owner_leaves_nothing(tmp_path):
    child = start_child(
        f"""
        import time, envfleet
        env = envfleet.make_gymnasium({TASK!r}, num_envs=2)
        env.reset()
        print("ready", flush=True)
        time.sleep(120)
        """,
        tmp_path,
    )
    try:
        wait_for_line(child, "ready")
        census = Census(child.pid)
        engines, supervisors = census.look()
        assert len(engines) == 2 and len(supervisors) == 2
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    assert census.wait_clean() == (set(), set(), set(), set())


def test_ctrl_c_interrupts_python_not_the_engines(tmp_path):
    child = start_child(
        f"""
        import faulthandler, signal, time, numpy as np, envfleet
        faulthandler.register(signal.SIGUSR1, all_threads=True)  # the stacks, if it hangs
        env = envfleet.make_gymnasium({TASK!r}, num_envs=2)
        env.reset()
        try:  # "ready" inside the try: the SIGINT may land before print returns
            print("ready", flush=True)
            time.sleep(120)
        except KeyboardInterrupt:
            for _ in range(5):
                env.step(np.ones((2, 3)))
            print("ok", flush=True)
        env.close()
        """,
        tmp_path,
    )
    try:
        wait_for_line(child, "ready")
        census = Census(child.pid)
        assert [len(pids) for pids in census.look()] == [2, 2]
        # The SIGINT goes in once the main thread sleeps in time.sleep: one that lands between
        # Python's last look at its signal flag and the sleep's system call is only seen when
        # the sleep ends (CPython's race, not the pool's). Asleep, the main thread must be
        # woken, which it is not when the kernel hands the signal to one of the pool's threads
        # that leave it unblocked: Python's handler then only sets its flag (_hang_report
        # shows each thread's blocked signals).
        assert _asleep(child.pid)
        os.killpg(child.pid, signal.SIGINT)
        try:
            out, err = child.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit within 60 s of the SIGINT:\n{_hang_report(child)}")
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err[-3000:]
    assert "ok" in out.split(), (out, err[-3000:])
    assert census.wait_clean() == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []


def test_engine_killed_mid_episode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    census = Census(os.getpid())
    env = envfleet.make_gymnasium(TASK, num_envs=2, seed=3)
    try:
        env.reset()
        for _ in range(3):
            env.step(np.ones((2, 3)))
        engines = sorted(census.look()[0])
        assert len(engines) == 2
        os.kill(engines[0], signal.SIGKILL)
        with pytest.raises(Exception) as err:
            for _ in range(3):  # the step after the kill finds the engine gone
                env.step(np.ones((2, 3)))
        message = str(err.value)
        assert "engine" in message.lower(), message
        assert TASK in message or "env" in message.lower(), message
    finally:
        env.close()
    assert census.wait_clean() == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []


def test_make_close_loop_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    census = Census(os.getpid())
    for _ in range(5):
        env = envfleet.make_gymnasium(TASK, num_envs=2)
        env.reset()
        env.step(np.ones((2, 3)))
        assert [len(pids) for pids in census.look()] == [2, 2]
        env.close()
    assert len(census.instances) == 10
    assert census.wait_clean() == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []
