"""Threaded stress tests of whole pools from Python: several Python threads stepping pools at
once, pools with many more workers than cores, batches released on another thread than the one
that stepped, and pools made and closed concurrently. Each checks results against a serial run
(a race that corrupts a result fails here), and .ci/sanitizers.sh runs them under
ThreadSanitizer, which reports a race even when it did not corrupt anything this time."""

from __future__ import annotations

import ctypes
import os
import queue
import threading
import time

import numpy as np
import pytest

import envfleet

ACTIONS = np.random.default_rng(17).integers(0, 2, size=(64, 4096))


def _run_threads(target, args_list, timeout=300):
    errors = []

    def guarded(*args):
        try:
            target(*args)
        except BaseException as exc:  # reported by the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=args) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a stepping thread hung"
    if errors:
        raise errors[0]


def _async_trajectories(task, num_envs, batch_size, num_threads, calls, seed=3):
    """Each env's observations, in order, from an async recv()/send() loop in which env i's
    k-th action is ACTIONS[i, k]: the per-env result does not depend on which envs share a
    batch, so it must equal any other run's."""
    env = envfleet.make(
        task, num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, seed=seed
    )
    taken = np.zeros(num_envs, dtype=np.int64)
    per_env = [[] for _ in range(num_envs)]
    env.async_reset()
    for _ in range(calls):
        obs, _, _, _, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            per_env[i].append(obs[row].copy())
        env.send(ACTIONS[ids, taken[ids]], ids)
        taken[ids] += 1
    env.recv()
    env.close()
    return [np.array(rows) for rows in per_env]


def _sync_trajectory(task, num_envs, num_threads, steps, seed=3):
    env = envfleet.make(task, num_envs=num_envs, num_threads=num_threads, seed=seed)
    obs, _ = env.reset()
    rows = [obs.copy()]
    for t in range(steps):
        obs, *_ = env.step(ACTIONS[:num_envs, t])
        rows.append(obs.copy())
    env.close()
    return np.array(rows)


def _same_prefixes(got, want):
    # An async run's envs advance unevenly: compare each env over the steps both runs took.
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        n = min(len(a), len(b))
        assert n > 0, f"env {i} was never stepped"
        np.testing.assert_array_equal(a[:n], b[:n], err_msg=f"env {i}")


def test_python_threads_step_their_own_sync_and_async_pools_at_once():
    sync_want = _sync_trajectory("CartPole-v1", 16, 2, 300)
    async_want = _async_trajectories("CartPole-v1", 32, 8, 1, 300)
    results = {}

    def sync_worker(k):
        results[("sync", k)] = _sync_trajectory("CartPole-v1", 16, 2, 300)

    def async_worker(k):
        # Many more workers than cores: threads that sleep, wake late and compete for items.
        results[("async", k)] = _async_trajectories("CartPole-v1", 32, 8, 12, 300)

    _run_threads(sync_worker, [(k,) for k in range(3)])
    _run_threads(async_worker, [(k,) for k in range(3)])
    _run_threads(
        lambda kind, k: (sync_worker if kind == "sync" else async_worker)(k),
        [("sync", 10), ("async", 10), ("sync", 11), ("async", 11)],
    )
    for (kind, k), got in results.items():
        if kind == "sync":
            np.testing.assert_array_equal(got, sync_want, err_msg=f"sync thread {k}")
        else:
            _same_prefixes(got, async_want)


def test_python_threads_share_one_pool_each_stepping_its_own_envs():
    # The pool's lock makes each step() whole; the envs of one thread never see another's
    # actions, so each env's trajectory is its serial one.
    num_envs, steps = 8, 400
    want = _sync_trajectory("CartPole-v1", num_envs, 1, steps)
    env = envfleet.make("CartPole-v1", num_envs=num_envs, batch_size=2, num_threads=3, seed=3)
    got = {}

    def worker(ids):
        ids = np.array(ids, dtype=np.int32)
        obs, info = env.reset(env_id=ids)
        assert list(info["env_id"]) == list(ids)
        rows = [obs.copy()]
        for t in range(steps):
            obs, _, _, _, info = env.step(ACTIONS[ids, t], ids)
            assert list(info["env_id"]) == list(ids)
            rows.append(obs.copy())
        got[tuple(ids)] = np.array(rows)

    _run_threads(worker, [([2 * k, 2 * k + 1],) for k in range(num_envs // 2)])
    env.close()
    for ids, rows in got.items():
        np.testing.assert_array_equal(rows, want[:, list(ids)], err_msg=f"envs {ids}")


def test_batches_released_on_another_thread_keep_their_values():
    # The stepping thread hands each batch to a consumer thread, which checks it against a
    # copy and drops it there: the block's lease ends on a thread other than the one that
    # recycles blocks, while that thread keeps stepping.
    env = envfleet.make(
        "Counting-v0", num_envs=16, batch_size=4, num_threads=6, seed=0, episode_length=7
    )
    handoff: queue.Queue = queue.Queue(maxsize=64)
    bad = []

    def consume():
        while (item := handoff.get()) is not None:
            obs, copy = item
            if not np.array_equal(obs, copy):
                bad.append((obs.copy(), copy))
            del obs, item

    consumer = threading.Thread(target=consume)
    consumer.start()
    env.async_reset()
    try:
        for k in range(3000):
            obs, _, _, _, info = env.recv()
            handoff.put((obs, obs.copy()))
            env.send(np.full(4, k % 10, dtype=np.int64), info["env_id"])
        env.recv()
    finally:
        handoff.put(None)
        consumer.join(120)
    env.close()
    assert not consumer.is_alive()
    assert not bad, f"{len(bad)} held batches changed, first: {bad[0]}"


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_pools_made_and_closed_in_several_threads_at_once():
    before = len(os.listdir("/proc/self/task"))

    def churn(k):
        for i in range(40):
            env = envfleet.make(
                "Counting-v0", num_envs=6, batch_size=3, num_threads=1 + (i + k) % 4, seed=i
            )
            env.async_reset()
            _, _, _, _, info = env.recv()
            env.send(np.ones(3, dtype=np.int64), info["env_id"])
            if i % 2:
                env.recv()
            env.close()  # with or without results still in flight

    _run_threads(churn, [(k,) for k in range(4)])
    # A joined Python thread may take a moment more to leave /proc/self/task.
    deadline = time.monotonic() + 10
    while len(os.listdir("/proc/self/task")) > before and time.monotonic() < deadline:
        time.sleep(0.01)
    # (<=: a thread of an earlier test may end meanwhile.)
    assert len(os.listdir("/proc/self/task")) <= before, "worker threads outlived their pools"


class _EnvfleetArray(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("elements", ctypes.c_int64)]


_STEP = ctypes.CFUNCTYPE(  # ctypes calls it without the GIL, as XLA's threads do
    ctypes.c_char_p,
    ctypes.c_void_p,
    ctypes.POINTER(_EnvfleetArray),
    ctypes.POINTER(ctypes.c_int32),
    ctypes.c_int64,
    ctypes.POINTER(_EnvfleetArray),
    ctypes.c_int64,
)


class _EnvfleetKey(ctypes.Structure):  # cpp/bind/pool_api.h
    _fields_ = [
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
    ]


class _PoolApi(ctypes.Structure):  # cpp/bind/pool_api.h
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("pool", ctypes.c_void_p),
        ("num_envs", ctypes.c_int32),
        ("batch_size", ctypes.c_int32),
        ("num_keys", ctypes.c_int32),
        ("keys", ctypes.c_void_p),
        ("action", _EnvfleetKey),
        ("send", ctypes.c_void_p),
        ("recv", ctypes.c_void_p),
        ("step", _STEP),
    ]


def _pool_api(env) -> _PoolApi:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    capsule = env._pool.pool_api()
    return _PoolApi.from_address(get(capsule, b"envfleet.pool_api"))


def test_batches_released_while_a_native_caller_steps_the_pool():
    # env.xla()'s handlers step a pool through its plain-C table without the GIL, while Python
    # threads may drop batches that Python's own step() returned earlier: the end of those
    # leases and the native step's recycling of blocks must not race.
    env = envfleet.make("Counting-v0", num_envs=4, num_threads=2, seed=0, episode_length=9)
    api = _pool_api(env)
    assert api.version == 2
    assert (api.action.dtype, api.action.ndim) == (4, 0)  # one int64 per env
    env.reset()
    held = [env.step(np.full(4, k % 10, dtype=np.int64)) for k in range(200)]
    # Outputs in the keys' own dtypes (reward, terminated, truncated, env_id, elapsed_step, obs).
    outputs = [
        np.zeros(4, np.float64),
        np.zeros(4, np.bool_),
        np.zeros(4, np.bool_),
        np.zeros(4, np.int32),
        np.zeros(4, np.int32),
        np.zeros((4, 2), np.int64),
    ]
    codes = [6, 0, 0, 3, 3, 4]  # EnvfleetDType of each
    arrays = (_EnvfleetArray * len(outputs))(
        *[_EnvfleetArray(o.ctypes.data, c, o.size) for o, c in zip(outputs, codes, strict=True)]
    )
    action = np.full(4, 3, dtype=np.int64)
    action_array = _EnvfleetArray(action.ctypes.data, 4, 4)
    env_ids = np.arange(4, dtype=np.int32)
    ids = env_ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    errors = []

    def native_steps():
        for _ in range(2000):
            error = api.step(api.pool, ctypes.byref(action_array), ids, 4, arrays, len(outputs))
            if error:
                errors.append(error.decode())
                return

    stepper = threading.Thread(target=native_steps)
    stepper.start()
    while held:
        held.pop()  # ends a lease on this thread, under the GIL only
        time.sleep(0.0005)
    stepper.join(120)
    assert not stepper.is_alive()
    assert not errors, errors[0]
    np.testing.assert_array_equal(outputs[3], env_ids)
    # The reward is the action, except on the autoreset step that starts an episode.
    np.testing.assert_array_equal(outputs[0], np.where(outputs[4] > 0, 3.0, 0.0))
    _, reward, _, _, info = env.step(np.full(4, 7, dtype=np.int64))
    np.testing.assert_array_equal(reward, np.where(info["elapsed_step"] > 0, 7.0, 0.0))
    env.close()
