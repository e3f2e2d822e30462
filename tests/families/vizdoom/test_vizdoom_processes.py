"""ViZDoom engine processes, their supervisors, shared memory and scratch folders are resources:
one engine per env while the pool lives, none of them left after close(), after the owner is
SIGKILLed, after an engine is killed, or after make/close loops. Ctrl-C (SIGINT to the
owner's process group) interrupts Python but not the engines, which run in their own group.

Only what the test itself started counts: every check compares against a snapshot taken
before, since other runs may have engines of their own.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

import envfleet

TASK = "DefendTheCenter-v1"
ENGINE = envfleet.registry.registration(TASK).options["vzd_path"]
SCRATCH = os.path.join(tempfile.gettempdir(), "envfleet-vizdoom-*")


def _argv(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def snapshot():
    """(engine pids, supervisor pids, /dev/shm ViZDoom* names, scratch folders)."""
    engines, supervisors = set(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        argv = _argv(entry)
        if not argv:
            continue
        if argv[0].endswith("vizdoom_supervisor"):
            supervisors.add(int(entry))
        elif argv[0] == ENGINE:
            engines.add(int(entry))
    shm = set(glob.glob("/dev/shm/ViZDoom*"))
    scratch = set(glob.glob(SCRATCH))
    return engines, supervisors, shm, scratch


def new_since(before):
    return tuple(now - old for now, old in zip(snapshot(), before, strict=True))


def wait_clean(before, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        left = new_since(before)
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


def test_one_engine_per_env_and_close_cleans_up(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot()
    env = envfleet.make_gymnasium(TASK, num_envs=3)
    try:
        env.reset()
        env.step(np.ones((3, 3)))
        engines, supervisors, shm, scratch = new_since(before)
        assert len(engines) == 3
        assert len(supervisors) == 3
        assert len(scratch) == 3
        assert shm  # the instances' shared memory exists while they run
    finally:
        env.close()
    assert wait_clean(before) == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []  # nothing written in the cwd (no _vizdoom, no ini)


def test_sigkill_of_owner_leaves_nothing(tmp_path):
    before = snapshot()
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
        engines, supervisors, _, _ = new_since(before)
        assert len(engines) == 2 and len(supervisors) == 2
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    engines, supervisors, shm, scratch = wait_clean(before, timeout=10)
    assert (engines, supervisors, shm, scratch) == (set(), set(), set(), set())


def test_ctrl_c_interrupts_python_not_the_engines(tmp_path):
    before = snapshot()
    child = start_child(
        f"""
        import time, numpy as np, envfleet
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
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err[-3000:]
    assert "ok" in out.split(), (out, err[-3000:])
    assert wait_clean(before) == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []


def test_engine_killed_mid_episode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot()
    env = envfleet.make_gymnasium(TASK, num_envs=2, seed=3)
    try:
        env.reset()
        for _ in range(3):
            env.step(np.ones((2, 3)))
        engines = sorted(new_since(before)[0])
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
    assert wait_clean(before) == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []


def test_make_close_loop_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot()
    for _ in range(5):
        env = envfleet.make_gymnasium(TASK, num_envs=2)
        env.reset()
        env.step(np.ones((2, 3)))
        env.close()
    assert wait_clean(before) == (set(), set(), set(), set())
    assert os.listdir(tmp_path) == []
