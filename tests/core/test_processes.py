"""Pools and processes (README "Threads and processes"): a pool inherited through fork()
refuses to run and does not hang the child; pools do not pickle; one pool per spawned
process works and gives the same results as in this process."""

from __future__ import annotations

import copy
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import envfleet


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_pools_refuse_pickle_and_copy(env_type):
    env = envfleet.make("CartPole-v1", env_type=env_type, num_envs=2)
    for operation in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot be pickled.*envfleet.make"):
            operation(env)
    env.close()


def test_a_forked_child_gets_a_clear_error_and_exits_cleanly():
    # In a script of its own: fork() in the test process would copy pytest's threads too.
    code = """
        import os, sys
        import numpy as np
        import envfleet
        env = envfleet.make("CartPole-v1", num_envs=4, num_threads=2)
        env.reset()
        pid = os.fork()
        if pid == 0:
            try:
                env.step(np.zeros(4, int))
                print("child: stepped")
            except RuntimeError as error:
                print("child:", "fork()" in str(error))
            env.close()   # safe: leaves the parent's threads alone
            sys.stdout.flush()
            sys.exit(0)   # a normal exit, the pool still referenced: must not hang
        _, status = os.waitpid(pid, 0)
        obs, *_ = env.step(np.zeros(4, int))
        print("parent:", os.waitstatus_to_exitcode(status), obs.shape)
    """
    environment = dict(os.environ)
    src = str(Path(envfleet.__file__).resolve().parents[1])
    environment["PYTHONPATH"] = os.pathsep.join([src, environment.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["child: True", "parent: 0 (4, 4)"], result.stdout


def rollout(seed: int) -> np.ndarray:
    """Observations of 50 steps of 4 CartPole-v1 envs with fixed actions."""
    env = envfleet.make("CartPole-v1", num_envs=4, seed=seed)
    obs, _ = env.reset()
    trajectory = [obs]
    for t in range(50):
        obs, *_ = env.step(np.full(4, t % 2))
        trajectory.append(obs)
    env.close()
    return np.stack(trajectory)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_one_pool_per_spawned_process(method):
    context = multiprocessing.get_context(method)
    with context.Pool(2) as workers:
        remote = workers.map(rollout, [3, 4])
    np.testing.assert_array_equal(remote[0], rollout(3))
    np.testing.assert_array_equal(remote[1], rollout(4))
