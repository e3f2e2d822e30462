"""Pools spread over Ray actors, with the API of a local pool (``pip install 'envfleet[ray]'``).

:func:`make_distributed` splits ``num_envs`` envs into ``num_workers`` contiguous ranges and
runs each range as an ordinary envfleet pool inside one Ray actor (a *worker*), placed one per
node (Ray's SPREAD strategy) or one per bundle of a placement group. The driver holds
:class:`RayPool`, which has the C++ pool's methods (``send``, ``recv``, ``step``, ``reset``,
...) and results, so envfleet's own front ends (Gymnasium, gym, dm_env) sit on it unchanged.

- **Ids and seeds are global.** Worker k holds envs ``offsets[k] .. offsets[k+1]-1``; each env
  gets the seed and ``per_env_options`` entry that a local pool of ``num_envs`` envs would give
  it, so a distributed run reproduces a local one exactly (``tests/test_ray.py``).
- **Sync mode** (``batch_size == num_envs``): every call goes to every worker concerned and the
  rows come back in send order, as from a local pool.
- **Async mode** (``batch_size < num_envs``): worker pools are async with
  ``batch_size / num_workers`` rows per batch; ``recv()`` returns the first ``num_workers``
  worker batches to arrive (``ray.wait``), from whichever workers, ``info["env_id"]`` global.
- **Faults**: see :class:`WorkerLostError`.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

import numpy as np
import ray
import ray.util
from ray.exceptions import RayActorError, RayTaskError
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from envfleet.base import ENV_ID, build_core_pool
from envfleet.errors import EnvError
from envfleet.make import ENV_TYPES, make_front_end
from envfleet.registry import make_spec

# make() options that the driver resolves for the whole pool and hands each worker its part of.
_SPLIT_OPTIONS = ("num_envs", "batch_size", "seed", "per_env_options", "num_threads")


class WorkerLostError(RuntimeError):
    """A worker (a Ray actor running part of the pool) died: its process or node is gone.

    ``env_ids`` are the global ids of the envs it held, ``worker`` its index. Their episodes,
    and any results in flight, are lost. With ``max_restarts=0`` (the default) the pool cannot
    go on: every later call raises this error again; ``close()`` still frees the other
    workers. With ``max_restarts > 0``, the pool starts a new worker in its place (up to
    ``max_restarts`` times per worker; ``restarted`` is True):
    its envs are built afresh with the seeds they were made with, and the pool goes on: in
    sync mode the next ``step()`` starts them on new episodes (autoreset), in async mode their
    resets are queued and ``recv()`` returns their first observations.
    """

    def __init__(self, message: str, worker: int, env_ids: np.ndarray, restarted: bool):
        super().__init__(message)
        self.worker = worker
        self.env_ids = env_ids
        self.restarted = restarted


class _Worker:
    """One envfleet core pool inside a Ray actor; results leave with global env ids."""

    def __init__(self, task_id: str, options: dict[str, Any], offset: int):
        self._offset = offset
        self._pool = build_core_pool(make_spec(task_id, **options))
        self._async = options["batch_size"] < options["num_envs"]

    def ready(self) -> tuple[list[str], str, str, int]:
        node_id = ray.get_runtime_context().get_node_id()
        return self._pool.keys(), ray.util.get_node_ip_address(), node_id, os.getpid()

    def _globalize(self, out: tuple) -> tuple:
        out = list(out)
        out[ENV_ID] = out[ENV_ID] + np.int32(self._offset)
        return tuple(out)

    def _run(self, call, *args: Any) -> tuple:
        try:
            return self._globalize(call(*args))
        except EnvError as err:
            err.env_id = int(err.env_id) + self._offset
            err.env_ids = np.asarray(err.env_ids) + self._offset
            raise

    def send(self, action: np.ndarray, env_id: np.ndarray | None) -> None:
        self._pool.send(action, env_id)

    def recv(self) -> tuple:
        return self._run(self._pool.recv)

    def step(self, action: np.ndarray, env_id: np.ndarray | None) -> tuple:
        return self._run(self._pool.step, action, env_id)

    def reset(self, env_id: np.ndarray | None) -> tuple:
        return self._run(self._pool.reset, env_id)

    def async_reset(self) -> None:
        self._pool.async_reset()

    def reseed(self, env_id: np.ndarray, seeds: list[int]) -> None:
        self._pool.reseed(env_id, seeds)

    def render(self, env_id: np.ndarray, camera_id: int, width: int, height: int) -> np.ndarray:
        return self._pool.render(env_id, camera_id, width, height)

    def episode_over(self, env_id: int) -> bool:
        return self._pool.episode_over(env_id)

    def close(self) -> None:
        self._pool.close()


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


class RayPool:
    """The core-pool interface (what envfleet's front ends call as ``env._pool``) over
    workers that are Ray actors. Made by :func:`make_distributed`."""

    def __init__(
        self,
        spec: Any,
        options: dict[str, Any],
        num_workers: int,
        cpus_per_worker: float,
        placement_group: Any,
        max_restarts: int,
    ):
        config = spec.config
        n, b = config.num_envs, config.batch_size
        self._async = b < n
        if num_workers > n:
            raise ValueError(f"num_workers ({num_workers}) must be <= num_envs ({n})")
        if self._async and (n % num_workers or b % num_workers):
            raise ValueError(
                f"async mode splits the pool evenly: num_envs ({n}) and batch_size ({b}) must "
                f"both be multiples of num_workers ({num_workers})"
            )
        if config.render_mode == "human":
            raise ValueError("render_mode='human' would open windows on the workers' nodes")
        sizes = [n // num_workers + (k < n % num_workers) for k in range(num_workers)]
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._owner = np.repeat(np.arange(num_workers), sizes)
        self._worker_batch = b // num_workers if self._async else 0
        self.num_envs, self.batch_size = n, b
        # Restarts are the driver's, not Ray's: a dead worker's calls then fail at once
        # (a restarting Ray actor would hold them, or run them on envs that lost their state).
        self._restarts_left = np.full(num_workers, max_restarts, dtype=np.int64)
        self._closed = False
        self._lost: WorkerLostError | None = None
        self._pending = np.zeros(num_workers, dtype=np.int64)  # actions sent, not recv'd
        self._sent_order: list[np.ndarray] = []  # sync send/recv: the ids in send order
        self._in_flight: dict[Any, int] = {}  # async: worker recv futures -> worker
        self._ready: list[tuple] = []  # async: worker batches read, not yet returned
        # Envs with an action (or reset) in flight: checked here, because a worker's own
        # check would fail inside a send nobody waits for.
        self._busy = np.zeros(n, dtype=bool)
        self._task_id = config.task_id
        self._cpus_per_worker = cpus_per_worker
        self._placement_group = placement_group
        seeds = np.asarray(config.seed, dtype=np.uint64)
        self._worker_options = []
        for k in range(num_workers):
            lo, hi = int(self._offsets[k]), int(self._offsets[k + 1])
            own = dict(options)
            own.update(
                num_envs=hi - lo,
                batch_size=self._worker_batch or hi - lo,
                seed=[int(s) for s in seeds[lo:hi]],
                num_threads=options.get("num_threads") or max(1, int(cpus_per_worker)),
            )
            if config.per_env_options:
                own["per_env_options"] = list(config.per_env_options[lo:hi])
            own.pop("render_env_id", None)  # a global id; the driver checked it
            self._worker_options.append(own)
        self._workers = [self._start_worker(k) for k in range(num_workers)]
        self.workers: list[dict[str, Any]] = [{} for _ in range(num_workers)]
        try:
            self._keys = self._await_ready(range(num_workers))
        except BaseException:
            self.close()
            raise

    def _start_worker(self, k: int) -> Any:
        strategy: Any = "SPREAD"
        if self._placement_group is not None:
            strategy = PlacementGroupSchedulingStrategy(
                placement_group=self._placement_group, placement_group_bundle_index=k
            )
        return (
            ray.remote(_Worker)
            .options(num_cpus=self._cpus_per_worker, max_restarts=0, scheduling_strategy=strategy)
            .remote(self._task_id, self._worker_options[k], int(self._offsets[k]))
        )

    def _await_ready(self, workers: Any) -> list[str]:
        """Waits until ``workers`` have built their pools; records where each one runs."""
        workers = list(workers)
        try:
            ready = ray.get([self._workers[k].ready.remote() for k in workers])
        except RayTaskError as err:
            raise RuntimeError(f"a worker could not build its pool: {err.cause!r}") from err
        except RayActorError as err:
            # A failing constructor kills the actor: Ray reports it as a dead actor.
            raise RuntimeError(f"a worker could not start: {err}") from err
        for k, (_, node, node_id, pid) in zip(workers, ready, strict=True):
            self.workers[k] = {
                "worker": k,
                "node": node,
                "node_id": node_id,
                "pid": pid,
                "env_ids": self._env_range(k),
            }
        return ready[0][0]

    # ---- bookkeeping ----------------------------------------------------------------------

    def _env_range(self, k: int) -> np.ndarray:
        return np.arange(self._offsets[k], self._offsets[k + 1], dtype=np.int32)

    def _get(self, refs: list, workers: list[int]) -> list:
        """``ray.get`` of calls to ``workers`` (one per ref), with their faults translated."""
        try:
            return ray.get(refs)
        except RayActorError:
            # Find which worker died (another may have finished): the first one whose call fails.
            for ref, k in zip(refs, workers, strict=True):
                try:
                    ray.get(ref)
                except RayActorError:
                    self._worker_lost(k)
            raise
        except RayTaskError as err:
            raise err.cause from None

    def _worker_lost(self, k: int) -> None:
        ids = self._env_range(k)
        self._pending[k] = 0
        self._in_flight = {ref: w for ref, w in self._in_flight.items() if w != k}
        self._sent_order = [s[self._owner[s] != k] for s in self._sent_order]
        self._busy[ids] = False
        where = self.workers[k].get("node", "?")
        if self._restarts_left[k] > 0:
            self._restarts_left[k] -= 1
            ray.kill(self._workers[k])  # whatever is left of it
            self._workers[k] = self._start_worker(k)
            self._await_ready([k])
            if self._async:
                # Fresh envs need a first reset before anything else: queue it, so that the
                # async loop goes on with them.
                self._workers[k].async_reset.remote()
                self._pending[k] = len(ids)
                self._busy[ids] = True
            raise WorkerLostError(
                f"worker {k} (node {where}) died and was restarted: envs {ids[0]}..{ids[-1]} "
                "lost their episodes and results in flight and start new episodes (the "
                "results of this call are lost)",
                k,
                ids,
                restarted=True,
            )
        self._lost = WorkerLostError(
            f"worker {k} (node {where}) died: envs {ids[0]}..{ids[-1]} are lost, so the pool "
            "cannot go on (make_distributed(..., max_restarts=N) restarts workers instead)",
            k,
            ids,
            restarted=False,
        )
        raise self._lost

    def _check_usable(self) -> None:
        if self._closed:
            raise RuntimeError("this distributed pool is closed")
        if self._lost is not None:
            raise self._lost

    def _ids(self, env_id: Any) -> np.ndarray:
        if env_id is None:
            return np.arange(self.num_envs, dtype=np.int32)
        ids = np.asarray(env_id)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"env_id must hold integers, got dtype {ids.dtype}")
        ids = ids.reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise ValueError(f"env_id must be in [0, {self.num_envs}), got {ids}")
        return ids.astype(np.int32, copy=False)

    def _split(self, ids: np.ndarray, action: np.ndarray | None = None, every: bool = False):
        """(worker, local ids, its actions) for every worker that ``ids`` name. ``every``:
        ``ids`` are all envs in order, so each worker gets None (all its envs, in order) and
        a slice of ``action`` (a view, not a copy)."""
        if action is not None and (action.ndim == 0 or len(action) != len(ids)):
            raise ValueError(f"action has shape {action.shape} for {len(ids)} env ids")
        if every:
            bounds = self._offsets
            return [
                (k, None, None if action is None else action[bounds[k] : bounds[k + 1]])
                for k in range(len(self._workers))
            ]
        owner = self._owner[ids]
        parts = []
        for k in np.unique(owner):
            rows = owner == k
            local = ids[rows] - np.int32(self._offsets[k])
            parts.append((int(k), local, None if action is None else action[rows]))
        return parts

    def _gather(self, outs: list[tuple], order: np.ndarray | None = None) -> tuple:
        """One batch from worker batches; rows in the order of env ids ``order`` if given."""
        if len(outs) == 1:
            out = outs[0]
        else:
            out = tuple(np.concatenate(column) for column in zip(*outs, strict=True))
        if order is not None and not np.array_equal(out[ENV_ID], order):
            position = np.empty(self.num_envs, dtype=np.int64)
            position[out[ENV_ID]] = np.arange(len(out[ENV_ID]))
            rows = position[order]
            out = tuple(column[rows] for column in out)
        return out

    # ---- the core pool's interface ----------------------------------------------------------

    def keys(self) -> list[str]:
        return list(self._keys)

    def send(self, action: np.ndarray, env_id: Any) -> None:
        self._check_usable()
        ids = self._ids(env_id)
        parts = self._split(ids, action, env_id is None)
        if self._busy[ids].any() or len(np.unique(ids)) != len(ids):
            busy = ids[self._busy[ids]]
            raise ValueError(
                f"env_id {ids} names envs twice or envs with actions in flight ({busy}): "
                "recv() their results first"
            )
        self._busy[ids] = True
        for k, local, part in parts:
            self._workers[k].send.remote(part, local)
            self._pending[k] += (
                self._offsets[k + 1] - self._offsets[k] if local is None else len(local)
            )
        if not self._async:
            self._sent_order.append(ids)

    def recv(self) -> tuple:
        self._check_usable()
        if self._async:
            return self._recv_async()
        if self._pending.sum() < self.num_envs:
            raise ValueError(
                f"recv() would wait forever: the next batch needs {self.num_envs} results but "
                f"only {self._pending.sum()} envs have actions in flight; send() more first"
            )
        order = np.concatenate(self._sent_order)
        self._sent_order = []
        workers = [k for k in range(len(self._workers)) if self._pending[k]]
        self._pending[:] = 0
        outs = self._get([self._workers[k].recv.remote() for k in workers], workers)
        self._busy[:] = False
        return self._gather(outs, order)

    def _recv_async(self) -> tuple:
        b = self._worker_batch
        outs, self._ready = self._ready[: len(self._workers)], self._ready[len(self._workers) :]
        try:
            while len(outs) < len(self._workers):
                # Every worker batch that its pending actions will fill is asked for now, so
                # whichever worker finishes first is read first.
                for k in range(len(self._workers)):
                    asked = sum(1 for w in self._in_flight.values() if w == k)
                    for _ in range(int(self._pending[k]) // b - asked):
                        self._in_flight[self._workers[k].recv.remote()] = k
                if not self._in_flight:
                    raise ValueError(
                        f"recv() would wait forever: the next batch needs {self.batch_size} "
                        f"results in worker batches of {b}, but only "
                        f"{len(outs) * b} are ready and no worker has {b} actions in flight; "
                        "send() more first (send each batch's info['env_id'] back whole)"
                    )
                (ref,), _ = ray.wait(list(self._in_flight), num_returns=1)
                k = self._in_flight.pop(ref)
                self._pending[k] -= b
                outs.extend(self._get([ref], [k]))
        except BaseException as exc:
            # Batches already read are not lost: the next recv() returns them first (unless
            # their worker was replaced: its envs start over).
            self._ready = outs + self._ready
            if isinstance(exc, WorkerLostError):
                lost = exc.worker
                self._ready = [o for o in self._ready if self._owner[o[ENV_ID][0]] != lost]
            raise
        out = self._gather(outs)
        self._busy[out[ENV_ID]] = False
        return out

    def step(self, action: np.ndarray, env_id: Any) -> tuple:
        self._check_usable()
        if self._async:
            self.send(action, env_id)
            return self.recv()
        ids = self._ids(env_id)
        parts = self._split(ids, action, env_id is None)
        refs = [self._workers[k].step.remote(part, local) for k, local, part in parts]
        return self._run_sync(refs, parts, ids)

    def reset(self, env_id: Any) -> tuple:
        self._check_usable()
        if self._async:
            if env_id is not None:
                raise ValueError(
                    "a distributed async pool resets all its envs at once (reset() or "
                    "async_reset()); single envs start new episodes by autoreset"
                )
            self.async_reset()
            return self.recv()
        ids = self._ids(env_id)
        parts = self._split(ids, every=env_id is None)
        refs = [self._workers[k].reset.remote(local) for k, local, _ in parts]
        return self._run_sync(refs, parts, ids)

    def _run_sync(self, refs: list, parts: list, ids: np.ndarray) -> tuple:
        workers = [k for k, _, _ in parts]
        try:
            outs = self._get(refs, workers)
        except EnvError as err:
            # As a local pool does, the whole batch is dropped: name every env in it.
            err.env_ids = np.sort(ids)
            raise
        return self._gather(outs, ids)

    def async_reset(self) -> None:
        self._check_usable()
        if self._pending.any():
            raise ValueError(
                "async_reset(): some envs still have actions in flight (was async_reset() "
                "called twice?); recv() their results first"
            )
        for k, worker in enumerate(self._workers):
            worker.async_reset.remote()
            self._pending[k] = self._offsets[k + 1] - self._offsets[k]
        self._busy[:] = True
        if not self._async:
            self._sent_order = [np.arange(self.num_envs, dtype=np.int32)]

    def reseed(self, env_id: Any, seeds: list[int]) -> None:
        self._check_usable()
        ids = self._ids(env_id)
        if len(seeds) != len(ids):
            raise ValueError("need one seed per env id")
        seeds_array = np.asarray(seeds, dtype=np.uint64)
        parts = self._split(ids, seeds_array)
        refs = [self._workers[k].reseed.remote(local, part.tolist()) for k, local, part in parts]
        self._get(refs, [k for k, _, _ in parts])

    def render(self, env_id: Any, camera_id: int, width: int, height: int) -> np.ndarray:
        self._check_usable()
        ids = self._ids(env_id)
        parts = self._split(ids)
        refs = [
            self._workers[k].render.remote(local, camera_id, width, height) for k, local, _ in parts
        ]
        frames = self._get(refs, [k for k, _, _ in parts])
        grouped = np.concatenate([ids[self._owner[ids] == k] for k, _, _ in parts])
        position = np.empty(self.num_envs, dtype=np.int64)
        position[grouped] = np.arange(len(grouped))
        return np.concatenate(frames)[position[ids]]

    def episode_over(self, env_id: int) -> bool:
        self._check_usable()
        k = int(self._owner[env_id])
        local = int(env_id - self._offsets[k])
        return self._get([self._workers[k].episode_over.remote(local)], [k])[0]

    @property
    def pending(self) -> int:
        return int(self._pending.sum())

    @property
    def closed(self) -> bool:
        return self._closed

    def pool_api(self) -> Any:
        raise TypeError("env.xla() needs a local pool: a distributed pool's envs are elsewhere")

    def close(self) -> None:
        """Closes every worker's pool and ends the actors; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        refs = [w.close.remote() for w in self._workers]
        # Workers that are gone have nothing left to close.
        ray.wait(refs, num_returns=len(refs), timeout=30)
        for worker in self._workers:
            ray.kill(worker)
        self._in_flight.clear()
        self._ready.clear()


def workers(env: Any) -> list[dict[str, Any]]:
    """Where the workers of a :func:`make_distributed` pool run: per worker, its index,
    ``node`` (IP address), ``node_id`` (Ray's), ``pid`` and ``env_ids`` (the global ids of
    its envs)."""
    pool = getattr(env, "_pool", None)
    if not isinstance(pool, RayPool):
        raise TypeError(f"env must be a pool made by make_distributed, got {type(env).__name__}")
    return [dict(w) for w in pool.workers]


def make_distributed(
    task_id: str,
    num_workers: int = 2,
    env_type: str = "gymnasium",
    *,
    cpus_per_worker: float = 1,
    placement_group: Any = None,
    max_restarts: int = 0,
    **kwargs: Any,
):
    """Makes a pool of ``num_envs`` envs of ``task_id`` spread over ``num_workers`` Ray
    actors, behind the front end ``env_type`` (``"gymnasium"``, ``"gym"`` or ``"dm"``).

    ``kwargs`` are :func:`envfleet.make`'s: ``num_envs``, ``batch_size``, ``seed`` and
    ``per_env_options`` are the whole pool's (env i gets what a local pool's env i would);
    ``num_threads`` is each worker's (default ``cpus_per_worker``). Each worker asks Ray for
    ``cpus_per_worker`` CPUs and is placed on bundle k of ``placement_group`` if one is given,
    else by Ray's SPREAD strategy (one per node while nodes have room). ``max_restarts``:
    how often Ray may restart a worker that dies (:class:`WorkerLostError`). Ray must be
    started (``ray.init(...)``) or it starts a local instance.
    """
    num_workers = _check_int("num_workers", num_workers, 1)
    max_restarts = _check_int("max_restarts", max_restarts, 0)
    if isinstance(cpus_per_worker, bool) or not isinstance(cpus_per_worker, numbers.Real):
        raise TypeError(f"cpus_per_worker must be a number, got {cpus_per_worker!r}")
    if cpus_per_worker <= 0:
        raise ValueError(f"cpus_per_worker must be > 0, got {cpus_per_worker}")
    if env_type not in ENV_TYPES:
        raise ValueError(f"env_type must be one of {ENV_TYPES}, got {env_type!r}")
    if placement_group is not None and len(placement_group.bundle_specs) < num_workers:
        raise ValueError(
            f"placement_group has {len(placement_group.bundle_specs)} bundles for "
            f"{num_workers} workers (one bundle each)"
        )
    options = {k: v for k, v in kwargs.items() if k not in ("legacy_api", *_SPLIT_OPTIONS[:-1])}

    def build(spec: Any) -> RayPool:
        return RayPool(spec, options, num_workers, cpus_per_worker, placement_group, max_restarts)

    return make_front_end(task_id, env_type, kwargs, build)
