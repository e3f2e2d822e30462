"""envfleet.placement: pools on CPU sets, and one pool per NUMA node (EnvPool's numa mode).

No multi-node machine is at hand: the node layout is simulated by CPU sets (each usable CPU a
"node"), which is all the code sees of a real one (it places threads by CPU numbers).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import envfleet
from envfleet.placement import _cpu_list, make_per_node, numa_nodes, on_cpus

CPUS = sorted(os.sched_getaffinity(0))
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two usable CPUs to simulate nodes")


def _threads() -> dict[int, str]:
    """{thread id: its Cpus_allowed_list} of this process."""
    threads = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                line = next(li for li in f if li.startswith("Cpus_allowed_list"))
        except (FileNotFoundError, StopIteration):
            continue  # a thread that ended meanwhile
        threads[int(tid)] = line.split(":", 1)[1].strip()
    return threads


def test_cpu_lists_parse_as_the_kernel_writes_them():
    assert _cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert _cpu_list("5") == [5]
    assert _cpu_list("") == []


def test_numa_nodes_cover_only_usable_cpus():
    nodes = numa_nodes()
    assert nodes and all(nodes)
    flat = [cpu for node in nodes for cpu in node]
    assert len(flat) == len(set(flat)) and set(flat) <= set(CPUS)


def test_on_cpus_restricts_the_thread_and_restores_it():
    with on_cpus([CPUS[-1]]):
        assert os.sched_getaffinity(0) == {CPUS[-1]}
    assert sorted(os.sched_getaffinity(0)) == CPUS
    with pytest.raises(ValueError, match="cpus is empty"):
        with on_cpus([]):
            pass
    with pytest.raises(ValueError, match="cannot run on CPUs"):
        with on_cpus([100_000]):
            pass
    assert sorted(os.sched_getaffinity(0)) == CPUS


@two_cpus
def test_each_node_pool_runs_on_its_node_and_together_they_are_one_pool():
    nodes = [[CPUS[0]], [CPUS[1]]]
    before = set(_threads())
    pools = make_per_node("CartPole-v1", nodes=nodes, num_envs=3, seed=5)
    try:
        new = {tid: cpus for tid, cpus in _threads().items() if tid not in before}
        # One worker per node (num_threads = the node's CPUs), each pinned to its node's CPU.
        assert sorted(new.values()) == sorted(str(node[0]) for node in nodes)
        assert sorted(os.sched_getaffinity(0)) == CPUS  # the caller's CPUs are restored
        whole = envfleet.make("CartPole-v1", num_envs=6, seed=5)
        try:
            parts = [pool.reset()[0] for pool in pools]
            np.testing.assert_array_equal(np.concatenate(parts), whole.reset()[0])
            rng = np.random.default_rng(0)
            for _ in range(30):
                actions = rng.integers(0, 2, size=6)
                ours = [pools[k].step(actions[3 * k : 3 * k + 3]) for k in range(2)]
                theirs = whole.step(actions)
                for field in range(4):  # obs, reward, terminated, truncated
                    np.testing.assert_array_equal(
                        np.concatenate([o[field] for o in ours]), theirs[field]
                    )
        finally:
            whole.close()
    finally:
        for pool in pools:
            pool.close()


@two_cpus
def test_async_node_pools_are_driven_as_envpools_numa_mode():
    pools = make_per_node(
        "CartPole-v1", nodes=[[c] for c in CPUS[:2]], num_envs=4, batch_size=2, seed=1
    )
    try:
        for pool in pools:
            pool.async_reset()
        for _ in range(20):
            for pool in pools:
                obs, _, _, _, info = pool.recv()
                assert obs.shape == (2, 4)
                pool.send(np.zeros(2, dtype=np.int64), info["env_id"])
    finally:
        for pool in pools:
            pool.close()


def test_per_env_lists_must_cover_every_node():
    with pytest.raises(ValueError, match="one per env of every node"):
        make_per_node("CartPole-v1", nodes=[[CPUS[0]], [CPUS[0]]], num_envs=2, seed=[1, 2, 3])
    with pytest.raises(ValueError, match="expected non-empty lists"):
        make_per_node("CartPole-v1", nodes=[[]])
