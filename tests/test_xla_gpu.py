"""env.xla() with the computation on a GPU: the CUDA handlers (cpp/xla/xla_module.cc) and the
pool's GPU staging behind them (cpp/xla/gpu_staging.h, cpp/xla/cuda_driver.h; docs/xla.md,
"What runs where").

Everywhere, GPU or not:

- the staging's copies and synchronisation over real pools, with a fake device whose stream
  runs every copy as late as a GPU may (``_envfleet_testing.StagedXlaPool``,
  tests/cpp/xla/fake_device.h): whole trajectories equal the CPU handlers', and errors leave
  the pool usable, with the same messages;
- on a CPU-only JAX, env.xla() registers nothing for CUDA, registering the CUDA targets
  anyway does not raise, and the jitted calls lower for CUDA with the pool id attribute;
- the backend tests below on the CPU backend.

Where JAX has a GPU (marker ``gpu``, skipped elsewhere): the same jitted loops with the policy
on the GPU equal the Python loop exactly (CartPole, Pong, Ant, a dm pool, async recv/send),
errors raise JaxRuntimeError and leave the pool usable, and examples/ppo_jax_xla.py runs with
JAX on CUDA alone. benchmarks/gpu/run.sh runs them on a GPU machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envfleet
from envfleet import _xla, xla
from envfleet.base import ENV_ID
from envfleet.dm import DmEnvPool

REPO = Path(__file__).resolve().parents[1]
JaxRuntimeError = jax.errors.JaxRuntimeError


def jax_has_gpu() -> bool:
    return any(device.platform == "gpu" for device in jax.devices())


# The backends a jitted loop runs on: the CPU everywhere, the GPU where JAX has one.
BACKENDS = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "gpu",
        id="gpu",
        marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(not jax_has_gpu(), reason="JAX has no GPU here"),
        ],
    ),
]


def host(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def assert_trajectories_equal(stacked, steps):
    """``stacked``: a scan's results (leaves with a leading time axis); ``steps``: one result
    per step, as the front end shapes it. Same structure, same values, step by step."""
    stacked = host(stacked)
    leaves, structure = jax.tree_util.tree_flatten(stacked)
    assert len(steps) == len(leaves[0])
    for t, result in enumerate(steps):
        step_leaves, step_structure = jax.tree_util.tree_flatten(host(result))
        assert str(step_structure) == str(structure)  # each dm pool has its own State class
        for got, expected in zip(step_leaves, leaves, strict=True):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected[t], err_msg=f"step {t}")


def scan_on_cpu(env, actions):
    """The CPU handlers' trajectory: ``env.xla()``'s step in one jitted scan over ``actions``."""
    handle, _, _, step = env.xla()

    @jax.jit
    def run(handle, actions):
        return jax.lax.scan(lambda h, a: step(h, a), handle, actions)

    return run(handle, jnp.asarray(actions))[1]


# ---- the staging over real pools, with the fake device ---------------------------------------


class Staged:
    """A pool's send/recv/step through its GPU staging, with the fake device standing in for
    CUDA and NumPy arrays for XLA's device buffers. Each call gets fresh result buffers, read
    only after ``results()`` flushes the stream (what the loop's later work on the stream
    would read); the calls themselves never flush."""

    def __init__(self, env, testing_module, pool_id=77, **kwargs):
        self.env = env
        ended = env._ended if isinstance(env, DmEnvPool) and env._track_ends else None
        self.pool = testing_module.StagedXlaPool(
            env._pool.pool_api(),
            0 if ended is None else ended.ctypes.data,
            isinstance(env, DmEnvPool),
            pool_id,
            **kwargs,
        )
        self.structs = xla._batch_structs(env, jax, _xla)
        self.handle = np.array([pool_id], np.uint32)
        self.all_env_ids = np.arange(_xla.pool_layout(env._pool.pool_api())[0], dtype=np.int32)
        self.outputs = []

    def fresh_outputs(self):
        out = [np.empty(s.shape, s.dtype) for s in self.structs]
        for array in out:
            array.view(np.uint8)[...] = 0xA5  # what a missing copy leaves
        self.outputs.append(out)
        return out

    def step(self, action, env_id=None):
        env_id = self.all_env_ids if env_id is None else env_id
        self.pool.step(self.handle, self.handle, action, env_id, self.fresh_outputs())
        return self.outputs[-1]

    def recv(self):
        self.pool.recv(self.handle, self.handle, self.fresh_outputs())
        return self.outputs[-1]

    def send(self, action, env_id=None):
        env_id = self.all_env_ids if env_id is None else env_id
        self.pool.send(self.handle, self.handle, action, env_id)

    def results(self):
        self.pool.flush()
        return [xla._shape_result(self.env, np, tuple(out)) for out in self.outputs]


def jax_actions(actions):
    """Actions as a jitted loop holds them without x64: int32 or float32."""
    return actions.astype(np.int32 if actions.dtype.kind in "iu" else np.float32)


@pytest.mark.parametrize(
    ("task_id", "kwargs", "action_shape", "steps"),
    [
        ("CartPole-v1", dict(num_envs=4, seed=7), (), 300),
        # float64 observations and rewards, delivered as float32 (JAX without x64)
        ("CartPole-v1", dict(num_envs=3, conventions="gymnasium"), (), 120),
        ("CartPole-v1", dict(env_type="dm", num_envs=2, max_episode_steps=9), (), 60),
        ("CartPole-v1", dict(env_type="gym", legacy_api=True, num_envs=2), (), 60),
        ("Ant-v5", dict(num_envs=2, seed=5), (8,), 40),
    ],
    ids=["cartpole", "float64-narrowed", "dm-first", "legacy-gym", "ant"],
)
def test_staged_steps_equal_the_cpu_handlers(testing_module, task_id, kwargs, action_shape, steps):
    rng = np.random.default_rng(0)
    num_envs = kwargs["num_envs"]
    if action_shape:
        actions = rng.uniform(-1, 1, size=(steps, num_envs, *action_shape))
    else:
        actions = rng.integers(0, 2, size=(steps, num_envs))
    actions = jax_actions(actions)
    reference, env = envfleet.make(task_id, **kwargs), envfleet.make(task_id, **kwargs)
    reference.reset()
    expected = scan_on_cpu(reference, actions)
    env.reset()
    staged = Staged(env, testing_module)
    for action in actions:
        staged.step(action)
    assert_trajectories_equal(expected, staged.results())
    counts = staged.pool.counts()
    assert counts["Synchronize"] == steps  # one per step
    assert counts["AllocHost"] == 1 and counts["CreateEvent"] == 2  # staging made once
    assert counts.get("PushContext", 0) == 0  # the calling thread had the context current
    staged.pool.close()
    assert staged.pool.violations == 0 and staged.pool.counts()["FreeHost"] == 1


def test_staged_dm_first_flags_follow_the_front_ends_record(testing_module):
    # A dm pool's `first` comes from the front end's own `ended` record, which Python recv
    # and the staged calls update alike: the step types run FIRST, MID..., LAST, FIRST.
    env = envfleet.make("CartPole-v1", env_type="dm", num_envs=2, max_episode_steps=5)
    env.reset()
    staged = Staged(env, testing_module)
    for _ in range(12):
        staged.step(np.ones(2, np.int32))
    step_types = np.stack([np.asarray(t.step_type) for t in staged.results()])
    assert {0, 1, 2} <= set(step_types.ravel().tolist())
    python_env = envfleet.make("CartPole-v1", env_type="dm", num_envs=2, max_episode_steps=5)
    python_env.reset()
    python_types = [python_env.step(np.ones(2, np.int64)).step_type for _ in range(12)]
    np.testing.assert_array_equal(step_types, np.stack(python_types))


def test_staged_back_to_back_recvs_each_deliver_their_own_batch(testing_module):
    # Four recvs with no synchronise between them reuse each half of the output staging
    # twice: each waits for the copies of the call two before it (the fake stream runs
    # nothing earlier). Each env's row, found by its env id, must be that env's.
    num_envs, batch = 8, 2
    kwargs = dict(num_envs=num_envs, batch_size=batch, num_threads=1, seed=3)
    reference, env = envfleet.make("CartPole-v1", **kwargs), envfleet.make("CartPole-v1", **kwargs)
    reference.async_reset()
    env.async_reset()
    actions = np.arange(num_envs, dtype=np.int32) % 2
    # The resets first: four batches of two.
    expected = {}
    for _ in range(4):
        obs, *_, info = reference.recv()
        expected.update({int(i): o for i, o in zip(info["env_id"], obs, strict=True)})
    reference.send(actions.astype(np.int64))
    staged = Staged(env, testing_module)
    for _ in range(4):
        staged.recv()
    counts = staged.pool.counts()
    staged.send(actions)  # its synchronise runs the recvs' copies first, in stream order
    got = {}
    for obs, *_, info in staged.results():
        got.update({int(i): o for i, o in zip(info["env_id"], obs, strict=True)})
    assert sorted(got) == list(range(num_envs))
    for i in range(num_envs):
        np.testing.assert_array_equal(got[i], expected[i].astype(got[i].dtype))
    assert counts.get("Synchronize", 0) == 0 and counts["WaitEvent"] == 2
    # And the stepped batches the send queued.
    expected_next = {}
    for _ in range(4):
        obs, *_, info = reference.recv()
        expected_next.update({int(i): o for i, o in zip(info["env_id"], obs, strict=True)})
    staged.outputs.clear()
    for _ in range(4):
        staged.recv()
    got_next = {}
    for obs, *_, info in staged.results():
        got_next.update({int(i): o for i, o in zip(info["env_id"], obs, strict=True)})
    for i in range(num_envs):
        np.testing.assert_array_equal(got_next[i], expected_next[i].astype(got_next[i].dtype))


def test_staged_async_actor_loop_gives_each_env_its_trajectory(testing_module):
    # recv, then send to the envs received, as a jitted async actor loop does: the send's
    # env ids are the recv's env_id result, read back from "device" memory.
    num_envs, batch, calls = 6, 3, 120

    def policy(obs):
        return (obs[:, 2] > 0).astype(np.int32)

    kwargs = dict(num_envs=num_envs, batch_size=batch, num_threads=2, seed=11)
    reference, env = envfleet.make("CartPole-v1", **kwargs), envfleet.make("CartPole-v1", **kwargs)
    reference.async_reset()
    per_env_expected = {i: [] for i in range(num_envs)}
    for _ in range(calls):
        obs, reward, *_, info = reference.recv()
        for row, i in enumerate(info["env_id"]):
            per_env_expected[int(i)].append((obs[row].tolist(), float(reward[row])))
        reference.send(policy(obs).astype(np.int64), info["env_id"])

    env.async_reset()
    staged = Staged(env, testing_module)
    for _ in range(calls):
        out = staged.recv()
        staged.pool.flush()  # the policy reads the observations (a kernel after the copies)
        obs = xla._shape_result(env, np, tuple(out))[0]
        staged.send(policy(obs), out[ENV_ID])
    per_env_got = {i: [] for i in range(num_envs)}
    for obs, reward, *_, info in staged.results():
        for row, i in enumerate(info["env_id"]):
            per_env_got[int(i)].append((obs[row].tolist(), float(reward[row])))
    counts = staged.pool.counts()
    assert counts["Synchronize"] == calls  # the sends'; recv never synchronises
    for i in range(num_envs):
        common = min(len(per_env_expected[i]), len(per_env_got[i]))
        assert common >= 20
        assert per_env_got[i][:common] == per_env_expected[i][:common], f"env {i}"


def cpu_error(call) -> str:
    with pytest.raises(JaxRuntimeError) as info:
        jax.block_until_ready(call())
    return str(info.value)


def test_staged_errors_are_the_cpu_handlers_and_leave_the_pool_usable(testing_module):
    reference, env = (
        envfleet.make("CartPole-v1", num_envs=2),
        envfleet.make("CartPole-v1", num_envs=2),
    )
    handle, recv, send, step = reference.xla()
    reference.reset()
    env.reset()
    staged = Staged(env, testing_module)
    cases = [
        # (the staged call, the same call through the CPU handlers)
        (lambda: staged.step(np.array([0, 5], np.int32)), lambda: step(handle, jnp.array([0, 5]))),
        (
            lambda: staged.step(np.zeros(3, np.int32), np.array([0, 1, 0], np.int32)),
            lambda: step(handle, jnp.zeros(3, jnp.int32), jnp.array([0, 1, 0])),
        ),
        (
            lambda: staged.send(np.zeros(1, np.int32), np.array([2], np.int32)),
            lambda: send(handle, jnp.zeros(1, jnp.int32), jnp.array([2])),
        ),
        (lambda: staged.recv(), lambda: recv(handle)),
    ]
    for staged_call, cpu_call in cases:
        message = re.sub(r"^UNKNOWN: ", "", cpu_error(cpu_call).splitlines()[0])
        with pytest.raises(RuntimeError) as info:
            staged_call()
        assert str(info.value) == message
    staged.outputs.clear()
    # Nothing was queued by the failed calls: both pools carry on alike.
    actions = np.array([[1, 0], [0, 1], [1, 1]], np.int32)
    for action in actions:
        staged.step(action)
    assert_trajectories_equal(scan_on_cpu(reference, actions), staged.results())
    # Another pool's handle: the staged step checks it after its synchronise.
    with pytest.raises(RuntimeError, match="the handle holds 76 but the call is pool 77's"):
        staged.pool.step(
            np.array([76], np.uint32),
            staged.handle,
            actions[0],
            staged.all_env_ids,
            staged.fresh_outputs(),
        )
    reference.close()
    env.close()
    message = re.sub(r"^UNKNOWN: ", "", cpu_error(lambda: step(handle, actions[0])).splitlines()[0])
    assert "this env pool is closed" in message
    with pytest.raises(RuntimeError, match=re.escape(message)):
        staged.step(actions[0])
    assert staged.pool.violations == 0


def test_staged_calls_push_the_streams_context_where_none_is_current(testing_module):
    env = envfleet.make("CartPole-v1", num_envs=2)
    env.reset()
    staged = Staged(env, testing_module, context_current=False)
    for _ in range(5):
        staged.step(np.ones(2, np.int32))
    counts = staged.pool.counts()
    assert counts["PushContext"] == counts["PopContext"] == 5
    assert len(staged.results()) == 5
    staged.pool.close()
    assert staged.pool.violations == 0


# ---- registration and lowering on a CPU-only JAX ------------------------------------------------


@pytest.mark.skipif(xla._has_cuda(jax), reason="JAX has a CUDA backend here")
def test_cpu_only_jax_gets_no_cuda_targets_and_registering_them_is_harmless(monkeypatch):
    env = envfleet.make("CartPole-v1", num_envs=2)
    handle, _, _, step = env.xla()
    assert xla._registered_platforms == {"cpu"}
    assert set(_xla.cuda_handlers()) == set(_xla.handlers())
    # Registering for a platform JAX lacks only files the targets away (jaxlib keeps them
    # for a CUDA plugin that may come later); the CPU calls go on as before.
    monkeypatch.setattr(xla, "_registered_platforms", {"cpu"})
    xla._register_cuda(jax, _xla)
    env.reset()
    _, (obs, *_) = jax.jit(step)(handle, jnp.ones(2, jnp.int32))
    assert obs.shape == (2, 4)


@pytest.mark.parametrize("call", ["step", "send", "recv"])
def test_calls_lower_for_cuda_with_the_pool_id_and_the_aliased_handle(call):
    # What a GPU machine compiles, lowered here: the same custom calls, the pool id as a
    # static attribute, the handle result aliasing the handle argument.
    env = envfleet.make("CartPole-v1", num_envs=4)
    handle, recv, send, step = env.xla()
    functions = {
        "step": lambda h, a: step(h, a)[0],
        "send": lambda h, a: send(h, a),
        "recv": lambda h, a: recv(h)[0],
    }
    lowered = (
        jax.jit(functions[call])
        .trace(handle, jnp.zeros(4, jnp.int32))
        .lower(lowering_platforms=("cuda",))
        .as_text()
    )
    line = next(line for line in lowered.splitlines() if f"@envfleet_{call}" in line)
    pool_id = int(np.asarray(handle)[0])
    assert f"pool_id = {pool_id} : ui32" in line
    assert "has_side_effect = true" in line
    # The handle is result 0 of a tuple (step, recv) or the only result (send).
    assert re.search(r"output_operand_alias<output_tuple_indices = \[0?\], operand_index = 0", line)


# ---- jitted loops on each backend (the GPU where JAX has one) ----------------------------------


def on_backend(backend):
    return jax.default_device(jax.devices(backend)[0])


# Policies whose arithmetic is exact on any backend (comparisons, integer sums, clip and a
# halving), so that a GPU run and the Python loop take the same actions.
def cartpole_policy(obs, xp):
    return (obs[:, 2] > 0).astype(xp.int32)


def pong_policy(obs, xp):
    return obs[:, -1, 30:34, 60:64].astype(xp.int32).sum(axis=(1, 2)) % 6


def ant_policy(obs, xp):
    return xp.clip(obs[:, :8], -1, 1) * xp.float32(0.5)


def dm_cartpole_policy(observation, xp):
    return (observation.obs[:, 2] > 0).astype(xp.int32)


LOOP_TASKS = {
    "cartpole": ("CartPole-v1", dict(num_envs=8, seed=1), cartpole_policy, 400),
    "pong": ("Pong-v5", dict(num_envs=4, seed=2), pong_policy, 120),
    "ant": ("Ant-v5", dict(num_envs=4, seed=3), ant_policy, 100),
    "dm": ("CartPole-v1", dict(env_type="dm", num_envs=4, max_episode_steps=20), None, 120),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("task", list(LOOP_TASKS))
def test_policy_loop_on_backend_equals_the_python_loop(backend, task):
    task_id, kwargs, policy, steps = LOOP_TASKS[task]
    dm = kwargs.get("env_type") == "dm"
    if dm:
        policy = dm_cartpole_policy

    def observation_of(result):  # of a reset or a step, in either front end
        return result.observation if dm else result[0]

    def as_jax_holds_it(tree):  # what a jitted loop's policy sees without x64
        return jax.tree_util.tree_map(
            lambda a: np.asarray(a).astype(jax.dtypes.canonicalize_dtype(np.asarray(a).dtype)),
            tree,
        )

    reference, env = envfleet.make(task_id, **kwargs), envfleet.make(task_id, **kwargs)
    obs = observation_of(reference.reset())
    expected = []
    for _ in range(steps):
        expected.append(reference.step(np.asarray(policy(as_jax_holds_it(obs), np))))
        obs = observation_of(expected[-1])

    handle, _, _, step = env.xla()
    start = env.reset()
    with on_backend(backend):
        device = jax.devices(backend)[0]
        start_obs = jax.device_put(as_jax_holds_it(observation_of(start)), device)
        handle = jax.device_put(handle, device)

        @jax.jit
        def rollout(handle, obs):
            def body(carry, _):
                handle, obs = carry
                handle, result = step(handle, policy(obs, jnp))
                return (handle, observation_of(result)), result

            return jax.lax.scan(body, (handle, obs), None, length=steps)

        (handle, last_obs), got = rollout(handle, start_obs)
        jax.block_until_ready(got)
    assert handle.devices() == {device}
    assert jax.tree_util.tree_leaves(got)[0].devices() == {device}
    if dm:
        assert_dm_equal(got, expected)
    else:
        assert_gymnasium_equal(got, expected)


def assert_gymnasium_equal(got, expected):
    obs, reward, terminated, truncated, info = host(got)
    for t, (e_obs, e_reward, e_term, e_trunc, e_info) in enumerate(expected):
        np.testing.assert_array_equal(obs[t], e_obs.astype(obs.dtype), err_msg=f"step {t}")
        np.testing.assert_array_equal(reward[t], e_reward.astype(reward.dtype))
        np.testing.assert_array_equal(terminated[t], e_term)
        np.testing.assert_array_equal(truncated[t], e_trunc)
        np.testing.assert_array_equal(info["env_id"][t], e_info["env_id"])
        np.testing.assert_array_equal(info["elapsed_step"][t], e_info["elapsed_step"])


def assert_dm_equal(got, expected):
    got = host(got)
    assert {0, 1, 2} <= set(got.step_type.ravel().tolist())
    for t, timestep in enumerate(expected):
        np.testing.assert_array_equal(got.step_type[t], timestep.step_type, err_msg=f"step {t}")
        np.testing.assert_array_equal(got.reward[t], timestep.reward.astype(np.float32))
        np.testing.assert_array_equal(got.discount[t], timestep.discount.astype(np.float32))
        np.testing.assert_array_equal(got.observation.obs[t], timestep.observation.obs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_async_actor_loop_on_backend_gives_each_env_its_python_trajectory(backend):
    num_envs, batch, calls = 6, 3, 200
    kwargs = dict(num_envs=num_envs, batch_size=batch, num_threads=2, seed=11)
    reference, env = envfleet.make("CartPole-v1", **kwargs), envfleet.make("CartPole-v1", **kwargs)
    reference.async_reset()
    per_env_expected = {i: [] for i in range(num_envs)}
    for _ in range(calls):
        obs, reward, *_, info = reference.recv()
        for row, i in enumerate(info["env_id"]):
            per_env_expected[int(i)].append((obs[row].tolist(), float(reward[row])))
        reference.send(cartpole_policy(obs, np).astype(np.int64), info["env_id"])

    handle, recv, send, _ = env.xla()
    env.async_reset()
    with on_backend(backend):
        handle = jax.device_put(handle, jax.devices(backend)[0])

        @jax.jit
        def actor(handle):
            def body(handle, _):
                handle, (obs, reward, _, _, info) = recv(handle)
                handle = send(handle, cartpole_policy(obs, jnp), info["env_id"])
                return handle, (info["env_id"], obs, reward)

            return jax.lax.scan(body, handle, None, length=calls)

        _, (env_ids, obs, reward) = host(actor(handle))
    per_env_got = {i: [] for i in range(num_envs)}
    for t in range(calls):
        for row, i in enumerate(env_ids[t]):
            per_env_got[int(i)].append((obs[t][row].tolist(), float(reward[t][row])))
    for i in range(num_envs):
        common = min(len(per_env_expected[i]), len(per_env_got[i]))
        assert common >= 20, (i, len(per_env_expected[i]), len(per_env_got[i]))
        assert per_env_got[i][:common] == per_env_expected[i][:common], f"env {i}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_on_backend_raise_and_leave_the_pool_usable(backend):
    env = envfleet.make("CartPole-v1", num_envs=2)
    other = envfleet.make("CartPole-v1", num_envs=2)
    handle, recv, _, step = env.xla()
    other_handle = other.xla()[0]
    env.reset()
    device = jax.devices(backend)[0]
    with on_backend(backend):
        handle = jax.device_put(handle, device)
        other_handle = jax.device_put(other_handle, device)
        jitted_step, jitted_recv = jax.jit(step), jax.jit(recv)
        zeros = jnp.zeros(2, jnp.int32)
        with pytest.raises(JaxRuntimeError, match=r"action 5 for env_id 1 is out of range"):
            jax.block_until_ready(jitted_step(handle, jnp.array([0, 5])))
        with pytest.raises(JaxRuntimeError, match="env_id has 3 entries but there are only 2"):
            jax.block_until_ready(
                jitted_step(handle, jnp.zeros(3, jnp.int32), jnp.array([0, 1, 0]))
            )
        with pytest.raises(JaxRuntimeError, match="pass each call the handle its own env.xla"):
            jax.block_until_ready(jitted_step(other_handle, zeros))
        with pytest.raises(JaxRuntimeError, match="would wait forever"):
            jax.block_until_ready(jitted_recv(handle))
        # The pool carries on, and from Python too.
        handle, (obs, *_) = jitted_step(handle, jnp.array([1, 0]))
        assert np.asarray(obs).shape == (2, 4)
        assert env.step(np.array([1, 1]))[0].shape == (2, 4)
        env.close()
        with pytest.raises(JaxRuntimeError, match="this env pool is closed"):
            jax.block_until_ready(jitted_step(handle, zeros))


@pytest.mark.gpu
@pytest.mark.skipif(not jax_has_gpu(), reason="JAX has no GPU here")
def test_ppo_example_runs_with_jax_on_cuda_alone():
    # JAX_PLATFORMS=cuda: no CPU backend to fall back to, so every env call of the example's
    # compiled iteration runs through the CUDA handlers.
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "ppo_jax_xla.py"), "--total-timesteps", "8192"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JAX_PLATFORMS": "cuda", "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"final avg_episodic_return=[\d.]+ steps=8192", proc.stdout), proc.stdout
