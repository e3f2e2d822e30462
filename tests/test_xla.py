"""env.xla(): the pool's send/recv/step as XLA custom calls (src/envfleet/xla.py,
cpp/xla/xla_module.cc), and zero-copy DLPack export of the Python recv's batches.

A jitted ``lax.scan`` of steps must give exactly what the Python loop gives for the same seed
and actions (CartPole, Pong, Ant, a dm_control task; sync and async), run without the GIL,
compile once, and turn every failure into a Python exception.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envfleet
from envfleet import _xla

PACKAGE = Path(envfleet.__file__).parent
JaxRuntimeError = jax.errors.JaxRuntimeError


def host(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def scan_steps(step, handle, actions):
    """Runs ``step`` over ``actions`` (T, B, ...) in one jitted lax.scan; returns the results."""

    @jax.jit
    def run(handle, actions):
        def body(handle, action):
            handle, result = step(handle, action)
            return handle, result

        return jax.lax.scan(body, handle, actions)

    return run(handle, actions)


def python_steps(env, actions):
    return [env.step(np.asarray(action)) for action in actions]


def assert_same_gymnasium(expected, got, dtype_of=lambda a: a.dtype):
    """Python results (a list of 5-tuples) against the scan's stacked 5-tuple."""
    obs, reward, terminated, truncated, info = host(got)
    for t, (e_obs, e_reward, e_term, e_trunc, e_info) in enumerate(expected):
        np.testing.assert_array_equal(obs[t], e_obs.astype(obs.dtype), err_msg=f"step {t}")
        np.testing.assert_array_equal(reward[t], e_reward.astype(reward.dtype))
        np.testing.assert_array_equal(terminated[t], e_term)
        np.testing.assert_array_equal(truncated[t], e_trunc)
        np.testing.assert_array_equal(info["env_id"][t], e_info["env_id"])
        np.testing.assert_array_equal(info["elapsed_step"][t], e_info["elapsed_step"])


def make_pair(task_id, **kwargs):
    """Two pools made alike: one driven from Python, one through xla()."""
    return envfleet.make(task_id, **kwargs), envfleet.make(task_id, **kwargs)


# ---- exactness: jitted scan == Python loop -----------------------------------------------------


@pytest.mark.parametrize("fused", [True, False], ids=["step", "send+recv"])
def test_cartpole_scan_equals_python_loop(fused):
    num_envs, steps = 4, 300
    actions = np.random.default_rng(0).integers(0, 2, size=(steps, num_envs))
    reference, env = make_pair("CartPole-v1", num_envs=num_envs, seed=7)
    reference.reset()
    expected = python_steps(reference, actions)
    handle, recv, send, step = env.xla()
    env.reset()
    if not fused:

        def step(handle, action):  # noqa: F811 - EnvPool's step is send then recv
            return recv(send(handle, action))

    _, got = scan_steps(step, handle, jnp.asarray(actions))
    assert any(e[2].any() for e in expected), "the run must cross episode ends"
    assert_same_gymnasium(expected, got)


def test_gymnasium_conventions_with_x64_are_bit_exact():
    # With jax_enable_x64 the arrays keep the pool's own dtypes (float64 rewards here).
    num_envs, steps = 3, 120
    actions = np.random.default_rng(1).integers(0, 2, size=(steps, num_envs))
    reference, env = make_pair("CartPole-v1", num_envs=num_envs, conventions="gymnasium")
    reference.reset()
    expected = python_steps(reference, actions)
    jax.config.update("jax_enable_x64", True)
    try:
        handle, _, _, step = env.xla()
        env.reset()
        _, got = scan_steps(step, handle, jnp.asarray(actions))
        assert got[1].dtype == jnp.float64 and expected[0][1].dtype == np.float64
        assert_same_gymnasium(expected, got)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_legacy_gym_result_has_done_and_time_limit_flag():
    num_envs, steps = 2, 30
    actions = np.ones((steps, num_envs), np.int64)
    reference, env = make_pair(
        "CartPole-v1", env_type="gym", legacy_api=True, num_envs=num_envs, max_episode_steps=7
    )
    reference.reset()
    expected = python_steps(reference, actions)
    handle, _, _, step = env.xla()
    env.reset()
    _, (obs, reward, done, info) = host(scan_steps(step, handle, jnp.asarray(actions)))
    for t, (e_obs, _, e_done, e_info) in enumerate(expected):
        np.testing.assert_array_equal(obs[t], e_obs)
        np.testing.assert_array_equal(done[t], e_done)
        np.testing.assert_array_equal(info["TimeLimit.truncated"][t], e_info["TimeLimit.truncated"])
    assert info["TimeLimit.truncated"].any()


def test_pong_scan_equals_python_loop():
    num_envs, steps = 2, 150
    actions = np.random.default_rng(2).integers(0, 6, size=(steps, num_envs))
    reference, env = make_pair("Pong-v5", num_envs=num_envs, seed=3)
    reference.reset()
    expected = python_steps(reference, actions)
    handle, _, _, step = env.xla()
    env.reset()
    _, got = scan_steps(step, handle, jnp.asarray(actions))
    assert got[0].dtype == jnp.uint8 and got[0].shape == (steps, num_envs, 4, 84, 84)
    assert_same_gymnasium(expected, got)
    np.testing.assert_array_equal(
        host(got[4]["lives"]), np.stack([e[4]["lives"] for e in expected])
    )


def test_ant_scan_equals_python_loop():
    num_envs, steps = 2, 60
    # float32 actions: what JAX holds without x64, given to both pools alike.
    actions = np.random.default_rng(3).uniform(-1, 1, size=(steps, num_envs, 8)).astype(np.float32)
    reference, env = make_pair("Ant-v5", num_envs=num_envs, seed=5)
    reference.reset()
    expected = python_steps(reference, actions)
    handle, _, _, step = env.xla()
    env.reset()
    _, got = scan_steps(step, handle, jnp.asarray(actions))
    assert_same_gymnasium(expected, got)


@pytest.mark.parametrize("task_id", ["CheetahRun-v1", "CartPole-v1"])
def test_dm_scan_equals_python_loop(task_id):
    num_envs, steps = 2, 40
    rng = np.random.default_rng(4)
    if task_id == "CheetahRun-v1":
        actions = rng.uniform(-1, 1, size=(steps, num_envs, 6)).astype(np.float32)
    else:
        actions = rng.integers(0, 2, size=(steps, num_envs))
    # A short time limit, so that LAST and FIRST step types come up.
    reference, env = make_pair(task_id, env_type="dm", num_envs=num_envs, max_episode_steps=9)
    reference.reset()
    expected = python_steps(reference, actions)
    handle, _, _, step = env.xla()
    env.reset()
    _, got = host(scan_steps(step, handle, jnp.asarray(actions)))
    assert set(got.step_type.ravel().tolist()) == {0, 1, 2}
    for t, timestep in enumerate(expected):
        np.testing.assert_array_equal(got.step_type[t], timestep.step_type, err_msg=f"step {t}")
        np.testing.assert_array_equal(got.reward[t], timestep.reward.astype(np.float32))
        np.testing.assert_array_equal(got.discount[t], timestep.discount.astype(np.float32))
        for name in timestep.observation._fields:
            e, g = getattr(timestep.observation, name), getattr(got.observation, name)
            if name == "players":
                e, g = e.env_id, g.env_id
            np.testing.assert_array_equal(g[t], np.asarray(e).astype(g.dtype), err_msg=name)


def test_async_routing_gives_each_env_its_python_trajectory():
    # batch_size < num_envs: rows go to whichever envs finish first, so the two runs order
    # rows differently; each env's own sequence of results is what must agree.
    num_envs, batch, steps = 6, 3, 200

    def policy(obs, xp):
        return (obs[:, 2] > 0).astype(xp.int32)  # deterministic per env: its pole angle

    def per_env(env_ids, *arrays):
        rows = {i: [] for i in range(num_envs)}
        for t in range(len(env_ids)):
            for r, i in enumerate(env_ids[t]):
                rows[int(i)].append(tuple(np.asarray(a[t][r]).tolist() for a in arrays))
        return rows

    kwargs = dict(num_envs=num_envs, batch_size=batch, num_threads=2, seed=11)
    reference, env = make_pair("CartPole-v1", **kwargs)
    reference.async_reset()
    py_ids, py_obs, py_rew = [], [], []
    for _ in range(steps):
        obs, rew, _, _, info = reference.recv()
        py_ids.append(info["env_id"].copy())
        py_obs.append(obs.copy())
        py_rew.append(rew.copy())
        reference.send(policy(obs, np), info["env_id"])

    handle, recv, send, _ = env.xla()
    env.async_reset()

    @jax.jit
    def run(handle):
        def body(handle, _):
            handle, (obs, rew, _, _, info) = recv(handle)
            handle = send(handle, policy(obs, jnp), info["env_id"])
            return handle, (info["env_id"], obs, rew)

        return jax.lax.scan(body, handle, None, length=steps)

    _, (xla_ids, xla_obs, xla_rew) = host(run(handle))
    assert sorted(set(xla_ids.ravel().tolist())) == list(range(num_envs))
    expected = per_env(py_ids, py_obs, py_rew)
    got = per_env(xla_ids, xla_obs, xla_rew)
    for i in range(num_envs):
        common = min(len(expected[i]), len(got[i]))
        assert common >= 20, (i, len(expected[i]), len(got[i]))
        assert got[i][:common] == expected[i][:common], f"env {i}"


def test_python_and_xla_calls_continue_one_another():
    reference, env = make_pair("CartPole-v1", num_envs=2, seed=9)
    reference.reset()
    env.reset()
    handle, _, _, step = env.xla()
    actions = np.array([[0, 1], [1, 1], [1, 0]] * 4)
    expected = python_steps(reference, actions)
    _, got = scan_steps(step, handle, jnp.asarray(actions[:6]))
    np.testing.assert_array_equal(host(got[0]), np.stack([e[0] for e in expected[:6]]))
    for t in range(6, len(actions)):  # the same pool, on from Python
        np.testing.assert_array_equal(env.step(actions[t])[0], expected[t][0])


def test_python_calls_during_a_jitted_loop_interleave_safely():
    # The pool's lock serialises whole calls: each env counts every step of both loops.
    env = envfleet.make("Counting-v0", num_envs=3, episode_length=1_000_000)
    handle, _, _, step = env.xla()
    env.reset()
    xla_steps, python_steps_taken = 3000, 300

    @jax.jit
    def run(handle):
        def body(_, handle):
            return step(handle, jnp.ones(3, jnp.int32))[0]

        return jax.lax.fori_loop(0, xla_steps, body, handle)

    errors = []

    def python_loop():
        try:
            for _ in range(python_steps_taken):
                env.step(np.ones(3, np.int64))
        except Exception as err:  # noqa: BLE001 - reported by the assertion below
            errors.append(err)

    thread = threading.Thread(target=python_loop)
    thread.start()
    handle = jax.block_until_ready(run(handle))
    thread.join()
    assert errors == []
    obs, *_ = env.step(np.ones(3, np.int64))
    assert obs[:, 0].tolist() == [xla_steps + python_steps_taken + 1] * 3


# ---- runtime: no GIL, one compilation, fori_loop ------------------------------------------------


def test_jitted_loop_releases_the_gil():
    env = envfleet.make("CartPole-v1", num_envs=4)
    handle, _, _, step = env.xla()
    env.reset()

    @jax.jit
    def run(handle):
        def body(_, handle):
            return step(handle, jnp.zeros(4, jnp.int32))[0]

        # Long enough to last well over 0.05 s on a fast machine (60,000 steps took 0.047 s
        # once the pool's sync path got faster).
        return jax.lax.fori_loop(0, 300_000, body, handle)

    run(handle).block_until_ready()  # compiled outside the measurement
    ticks = 0
    running = True

    def count():
        nonlocal ticks
        while running:
            ticks += 1

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.05)
    before = ticks
    start = time.perf_counter()
    run(handle).block_until_ready()
    seconds = time.perf_counter() - start
    during = ticks - before
    running = False
    thread.join()
    # A loop holding the GIL would leave the counting thread no time at all.
    assert seconds > 0.05, seconds
    assert during > 10_000, (during, seconds)


def test_jit_compiles_once_for_many_calls():
    env = envfleet.make("CartPole-v1", num_envs=3)
    handle, _, _, step = env.xla()
    env.reset()
    traces = 0

    @jax.jit
    def run(handle, action):
        nonlocal traces
        traces += 1
        return step(handle, action)

    for t in range(5):
        handle, (obs, *_) = run(handle, jnp.full(3, t % 2, jnp.int32))
    assert traces == 1
    assert run._cache_size() == 1
    assert obs.shape == (3, 4)


def test_eager_calls_outside_jit():
    env = envfleet.make("CartPole-v1", num_envs=2, batch_size=1)
    handle, recv, send, _ = env.xla()
    env.async_reset()
    handle, (obs, _, _, _, info) = recv(handle)
    assert obs.shape == (1, 4) and info["elapsed_step"].tolist() == [0]
    handle = send(handle, jnp.array([1]), info["env_id"])
    handle, (obs, _, _, _, info) = recv(handle)
    assert obs.shape == (1, 4)


# ---- errors: Python exceptions, never a crash --------------------------------------------------


def test_out_of_range_action_raises_from_the_jitted_call():
    env = envfleet.make("CartPole-v1", num_envs=2)
    handle, _, _, step = env.xla()
    env.reset()
    with pytest.raises(JaxRuntimeError, match=r"action 5 for env_id 1 is out of range"):
        jax.block_until_ready(jax.jit(step)(handle, jnp.array([0, 5])))
    # Nothing was queued: the pool carries on.
    handle, (obs, *_) = jax.jit(step)(handle, jnp.array([0, 1]))
    assert obs.shape == (2, 4)


def test_recv_with_nothing_in_flight_raises_instead_of_hanging():
    env = envfleet.make("CartPole-v1", num_envs=2)
    handle, recv, _, _ = env.xla()
    env.reset()
    with pytest.raises(JaxRuntimeError, match="would wait forever"):
        jax.block_until_ready(jax.jit(recv)(handle))


def test_env_exception_surfaces_and_the_pool_stays_usable():
    env = envfleet.make("Counting-v0", num_envs=2, episode_length=5, fail_at_step=1)
    handle, _, _, step = env.xla()
    env.reset()
    jitted = jax.jit(step)
    with pytest.raises(JaxRuntimeError, match=r"env [01] raised: .*failing at step 1"):
        jax.block_until_ready(jitted(handle, jnp.array([1, 1])))
    handle, (obs, reward, *_) = jitted(handle, jnp.array([1, 1]))
    assert np.asarray(obs).tolist() == [[0, 2], [0, 2]]


def test_closed_pool_and_stale_handle_raise():
    env = envfleet.make("CartPole-v1", num_envs=2)
    handle, _, _, step = env.xla()
    env.reset()
    # The calls find their pool by the id compiled into them; a handle that holds another
    # value was not threaded from this pool's calls.
    with pytest.raises(JaxRuntimeError, match=r"the handle holds 4000000000 but the call is pool"):
        jax.block_until_ready(step(np.array([4_000_000_000], np.uint32), jnp.zeros(2, jnp.int32)))
    env.close()
    with pytest.raises(JaxRuntimeError, match="this env pool is closed"):
        jax.block_until_ready(step(handle, jnp.zeros(2, jnp.int32)))
    with pytest.raises(RuntimeError, match="closed"):
        env.xla()


def test_another_pools_handle_raises_and_both_pools_carry_on():
    first, second = make_pair("CartPole-v1", num_envs=2)
    first_handle, _, _, first_step = first.xla()
    second_handle, _, _, _ = second.xla()
    first.reset()
    jitted = jax.jit(first_step)
    with pytest.raises(JaxRuntimeError, match="pass each call the handle its own env.xla"):
        jax.block_until_ready(jitted(second_handle, jnp.zeros(2, jnp.int32)))
    _, (obs, *_) = jitted(first_handle, jnp.zeros(2, jnp.int32))
    assert obs.shape == (2, 4)


def test_a_call_whose_pool_is_unregistered_raises():
    env = envfleet.make("CartPole-v1", num_envs=2)
    handle, _, _, step = env.xla()
    env.reset()
    _xla.unregister_pool(int(np.asarray(handle)[0]))  # what freeing the env does
    with pytest.raises(JaxRuntimeError, match=r"pool id \d+ names no live pool"):
        jax.block_until_ready(step(handle, jnp.zeros(2, jnp.int32)))


def test_bad_shapes_fail_at_trace_time():
    env = envfleet.make("CartPole-v1", num_envs=3)
    handle, _, send, step = env.xla()
    with pytest.raises(ValueError, match=r"action has shape \(2,\) but shape \(3,\)"):
        step(handle, jnp.zeros(2, jnp.int32))
    with pytest.raises(ValueError, match=r"shape \(2,\) was expected"):
        send(handle, jnp.zeros(3, jnp.int32), jnp.array([0, 1]))
    with pytest.raises(TypeError, match="env_id must be an integer"):
        send(handle, jnp.zeros(1, jnp.int32), jnp.array([0.5]))


def test_missing_jax_names_the_extra(monkeypatch):
    env = envfleet.make("CartPole-v1")
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match=r"pip install 'envfleet\[jax\]'"):
        env.xla()


def test_module_built_without_jax_says_how_to_rebuild(monkeypatch):
    env = envfleet.make("CartPole-v1")
    monkeypatch.setitem(sys.modules, "envfleet._xla", None)
    with pytest.raises(ImportError, match="which this build of envfleet lacks"):
        env.xla()


def test_handle_is_forgotten_with_its_pool():
    gc.collect()
    before = _xla.num_registered()
    env = envfleet.make("CartPole-v1")
    functions = env.xla()
    assert _xla.num_registered() == before + 1
    del env, functions
    gc.collect()
    assert _xla.num_registered() == before


def test_shipped_xla_stub_matches_the_module(tmp_path):
    fresh = tmp_path / "_xla.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "envfleet._xla", "-o", fresh],
        check=True,
    )
    assert fresh.read_text() == (PACKAGE / "_xla.pyi").read_text(), "regenerate _xla.pyi"


# ---- DLPack: the Python recv's batches leave without a copy -------------------------------------


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@pytest.mark.parametrize("conventions", ["envpool", "gymnasium"])
def test_batches_export_through_dlpack_without_a_copy(conventions):
    env = envfleet.make("CartPole-v1", num_envs=4, num_threads=2, conventions=conventions)
    env.reset()
    obs, reward, terminated, truncated, info = env.step(np.ones(4, np.int64))
    views = [obs, terminated, truncated, info["env_id"], info["elapsed_step"]]
    if conventions == "gymnasium":
        views.append(reward)  # the pool's own float64 rewards (EnvPool's float32 are a cast)
    for array in views:
        assert address(np.from_dlpack(array)) == address(array)
    for array in views[:-1] if conventions == "gymnasium" else views:  # JAX: no float64
        # Each array of a block starts on a 64-byte line, as XLA's CPU client needs to
        # take it without a copy.
        assert jax.dlpack.from_dlpack(array).unsafe_buffer_pointer() == address(array)
        assert jnp.from_dlpack(array).unsafe_buffer_pointer() == address(array)
        assert jax.device_put(array, may_alias=True).unsafe_buffer_pointer() == address(array)


def test_dlpack_view_keeps_its_block_alive():
    env = envfleet.make("CartPole-v1", num_envs=4)
    obs, _ = env.reset()
    view = jax.dlpack.from_dlpack(obs)
    pointer, values = address(obs), obs.copy()
    del obs
    gc.collect()
    for _ in range(20):  # the pool recycles free blocks: never the one the view holds
        fresh, *_ = env.step(np.ones(4, np.int64))
        assert address(fresh) != pointer
    assert view.unsafe_buffer_pointer() == pointer
    np.testing.assert_array_equal(np.asarray(view), values)
