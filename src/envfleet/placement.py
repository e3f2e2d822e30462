"""Pools placed on sets of CPUs: one pool per NUMA node (EnvPool's numa+async mode).

On a machine with several NUMA nodes, a pool whose threads and envs span nodes pays for remote
memory on every step. :func:`make_per_node` makes one pool per node, each with its worker
threads pinned to that node's CPUs and its envs built there (so their memory, first touched by
the threads that build them, is the node's own), and seeds them so that together they are the
one pool of ``len(nodes) * num_envs`` envs that ``make`` would give. Drive them as EnvPool's
numa+async mode does: ``send`` to every pool, then ``recv`` from each (docs/many-cores.md).

:func:`on_cpus` is the building block: a pool made inside ``with on_cpus(cpus):`` has its
workers and envs on those CPUs, and ``thread_affinity_offset`` counts within them.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from envfleet.make import make

DEFAULT_SEED = 42  # make()'s


def _cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]."""
    cpus: list[int] = []
    for part in filter(None, text.strip().split(",")):
        first, _, last = part.partition("-")
        cpus.extend(range(int(first), int(last or first) + 1))
    return cpus


def numa_nodes() -> list[list[int]]:
    """The CPUs of each NUMA node that this thread may use, in node order (nodes with none
    left out). Where the system does not say (no /sys/devices/system/node), one node holding
    every usable CPU."""
    usable = os.sched_getaffinity(0)
    nodes = []
    paths = glob.glob("/sys/devices/system/node/node[0-9]*/cpulist")
    for path in sorted(paths, key=lambda p: int(re.search(r"node(\d+)/", p).group(1))):
        with open(path) as f:
            cpus = [cpu for cpu in _cpu_list(f.read()) if cpu in usable]
        if cpus:
            nodes.append(cpus)
    return nodes or [sorted(usable)]


@contextlib.contextmanager
def on_cpus(cpus: Iterable[int]) -> Iterator[None]:
    """Runs the block with the calling thread restricted to ``cpus`` (restored after).

    Threads inherit the CPUs of the thread that starts them: a pool made in the block has its
    worker threads, and the threads that build its envs, on these CPUs.
    """
    wanted = set(cpus)
    if not wanted:
        raise ValueError("on_cpus: cpus is empty; expected the CPU numbers to run on")
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, wanted)
    except OSError as exc:
        raise ValueError(
            f"on_cpus: cannot run on CPUs {sorted(wanted)} (this process may use "
            f"{sorted(before)}): {exc}"
        ) from exc
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _share(value: Any, index: int, count: int, num_envs: int, name: str) -> Any:
    """Pool ``index``'s part of a per-env list for ``count`` pools of ``num_envs``."""
    if len(value) != count * num_envs:
        raise ValueError(
            f"make_per_node: {name} has {len(value)} entries; expected one per env of every "
            f"node, {count} x num_envs={num_envs} = {count * num_envs}"
        )
    return list(value[index * num_envs : (index + 1) * num_envs])


def make_per_node(
    task_id: str,
    env_type: str = "gymnasium",
    nodes: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list:
    """One pool of ``task_id`` per NUMA node (``nodes``: CPU lists; default :func:`numa_nodes`).

    Every keyword is :func:`envfleet.make`'s, for each pool, with these defaults per node:
    ``num_threads`` = the node's CPU count and ``thread_affinity_offset=0`` (worker t on the
    node's t-th CPU). ``seed`` (an int: pool k's env i gets seed + k * num_envs + i) and
    ``per_env_options``/a seed list (one entry per env of every node, in node order) make the
    pools together the pool of ``len(nodes) * num_envs`` envs that ``make`` would give.
    """
    nodes = [list(node) for node in (numa_nodes() if nodes is None else nodes)]
    if not nodes or not all(nodes):
        raise ValueError(f"make_per_node: nodes={nodes!r}; expected non-empty lists of CPUs")
    num_envs = int(kwargs.get("num_envs", 1))
    seed = kwargs.pop("seed", DEFAULT_SEED)
    per_env_options = kwargs.pop("per_env_options", None)
    pools = []
    try:
        for k, cpus in enumerate(nodes):
            options = dict(kwargs)
            options.setdefault("num_threads", len(cpus))
            options.setdefault("thread_affinity_offset", 0)
            if isinstance(seed, Sequence):
                options["seed"] = _share(seed, k, len(nodes), num_envs, "seed")
            else:
                options["seed"] = int(seed) + k * num_envs
            if per_env_options is not None:
                options["per_env_options"] = _share(
                    per_env_options, k, len(nodes), num_envs, "per_env_options"
                )
            with on_cpus(cpus):
                pools.append(make(task_id, env_type, **options))
    except BaseException:
        for pool in pools:
            pool.close()
        raise
    return pools
