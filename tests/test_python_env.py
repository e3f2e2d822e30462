"""Environments written in Python (envfleet.python_env), compiled by Numba, run by the pool.

- ``examples/cartpole.py`` against Gymnasium's CartPole-v1 and our C++ CartPole-v1, exactly;
- ``examples/grid_world.py`` (arrays in the state, walls drawn per episode) and the small envs
  of ``python_env_defs.py`` against the same classes run uncompiled as Gymnasium envs;
- the rng helpers against NumPy's Generator; thread counts, async mode, every front end;
- definition errors (raised at registration), failures inside the env (EnvError), the disk
  cache (a second process loads instead of compiling) and a missing Numba.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import gymnasium
import numpy as np
import pytest
from conftest import assert_isolated_ok, describe, run_isolated
from gymnasium import spaces
from python_env_defs import Flaky, PointMass, RngProbe, rng_probe_reference

import envfleet
from envfleet.python_env import (
    EnvDefinitionError,
    PythonEnv,
    as_gymnasium_env,
    register_python_env,
)

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")


def _load_example(name: str):
    """Imports examples/<name>.py once (it registers its task id)."""
    module_name = f"envfleet_example_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, f"{EXAMPLES}/{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


@pytest.fixture(scope="module")
def cartpole():
    return _load_example("cartpole")


@pytest.fixture(scope="module")
def grid_world():
    return _load_example("grid_world")


@pytest.fixture(scope="module")
def test_envs():
    register_python_env("TestRngProbe-v0", RngProbe)
    register_python_env("TestPointMass-v0", PointMass)
    register_python_env("TestFlaky-v0", Flaky)


def _assert_same(ours, ref, what: str) -> None:
    if isinstance(ref, dict):
        for key, value in ref.items():
            if not key.startswith("_"):
                _assert_same(ours[key], value, f"{what}[{key!r}]")
        return
    if isinstance(ref, tuple):
        for i, value in enumerate(ref):
            _assert_same(ours[i], value, f"{what}[{i}]")
        return
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(ref), err_msg=what, strict=False)


def _run_pair(ours, ref, actions, seed: int, info_keys=()) -> None:
    """Steps both vector envs with the same actions; everything must be exactly equal."""
    obs, info = ours.reset()
    ref_obs, ref_info = ref.reset(seed=seed)
    _assert_same(obs, ref_obs, "reset obs")
    for t, action in enumerate(actions):
        obs, reward, terminated, truncated, info = ours.step(action)
        ref_obs, ref_reward, ref_terminated, ref_truncated, ref_info = ref.step(action)
        _assert_same(obs, ref_obs, f"obs at step {t}")
        np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward at step {t}")
        np.testing.assert_array_equal(terminated, ref_terminated, err_msg=f"terminated at {t}")
        np.testing.assert_array_equal(truncated, ref_truncated, err_msg=f"truncated at {t}")
        for key in info_keys:
            np.testing.assert_array_equal(info[key], ref_info[key], err_msg=f"{key} at {t}")


# ---- alignment -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 123])
@pytest.mark.parametrize("sutton_barto_reward", [False, True])
def test_cartpole_matches_gymnasium(cartpole, seed, sutton_barto_reward):
    n, steps = 4, 3000
    # Gymnasium's conventions: float64 rewards, compared exactly with its SyncVectorEnv.
    ours = envfleet.make(
        "PyCartPole-v1",
        num_envs=n,
        seed=seed,
        sutton_barto_reward=sutton_barto_reward,
        conventions="gymnasium",
    )
    ref = gymnasium.make_vec(
        "CartPole-v1", n, vectorization_mode="sync", sutton_barto_reward=sutton_barto_reward
    )
    actions = np.random.default_rng(seed).integers(0, 2, (steps, n))
    _run_pair(ours, ref, actions, seed)
    # Episodes both terminated and reached the 500-step limit along the way.
    assert ours.single_observation_space == ref.single_observation_space
    assert ours.single_action_space == ref.single_action_space


def test_cartpole_time_limit_is_reached(cartpole):
    """A balancing policy keeps episodes alive to the 500-step truncation, on both sides."""
    ours = envfleet.make("PyCartPole-v1", num_envs=2, seed=5)
    ref = gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    obs, _ = ours.reset()
    ref_obs, _ = ref.reset(seed=5)
    truncations = 0
    for _ in range(1200):
        action = (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)
        obs, reward, terminated, truncated, _ = ours.step(action)
        ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(truncated, ref_truncated)
        truncations += int(truncated.sum())
    assert truncations >= 2


def test_cartpole_matches_cpp_cartpole(cartpole):
    n, steps = 8, 3000
    ours = envfleet.make("PyCartPole-v1", num_envs=n, seed=11)
    cpp = envfleet.make("CartPole-v1", num_envs=n, seed=11)
    obs, info = ours.reset()
    cpp_obs, cpp_info = cpp.reset()
    np.testing.assert_array_equal(obs, cpp_obs)
    for action in np.random.default_rng(1).integers(0, 2, (steps, n)):
        ours_out = ours.step(action)
        cpp_out = cpp.step(action)
        for a, b in zip(ours_out[:4], cpp_out[:4], strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ours_out[4]["elapsed_step"], cpp_out[4]["elapsed_step"])


def _gymnasium_twin(env_class, n: int, **options):
    return gymnasium.vector.SyncVectorEnv(
        [lambda: as_gymnasium_env(env_class, **options) for _ in range(n)]
    )


@pytest.mark.parametrize("slip_probability", [0.0, 0.25])
def test_grid_world_matches_its_uncompiled_self(grid_world, slip_probability):
    n, steps, seed = 4, 1500, 3
    ours = envfleet.make(
        "PyGridWorld-v0",
        num_envs=n,
        seed=seed,
        slip_probability=slip_probability,
        conventions="gymnasium",
    )
    ref = _gymnasium_twin(grid_world.GridWorld, n, slip_probability=slip_probability)
    actions = np.random.default_rng(seed).integers(0, 4, (steps, n))
    _run_pair(ours, ref, actions, seed, info_keys=("shortest_path",))


def test_grid_world_mazes_are_solvable_and_random(grid_world):
    env = envfleet.make("PyGridWorld-v0", num_envs=16, seed=0, wall_probability=0.45)
    obs, info = env.reset()
    walls = obs["walls"]
    assert walls.dtype == np.bool_ and walls.shape == (16, 8, 8)
    assert len({w.tobytes() for w in walls}) == 16  # every env drew its own maze
    assert (info["shortest_path"] > 0).all()
    rows = np.arange(16)
    assert not walls[rows, obs["agent"][:, 0], obs["agent"][:, 1]].any()
    assert not walls[rows, obs["goal"][:, 0], obs["goal"][:, 1]].any()
    # Follow the shortest path (searched here from the observed map): info counts down and
    # the step onto the goal ends the episode with reward 1, after exactly that many moves.
    moves = grid_world.MOVES
    distance = info["shortest_path"].copy()
    done_at = np.full(16, -1)
    for t in range(1, distance.max() + 1):
        actions = np.zeros(16, np.int64)
        for i in np.flatnonzero(done_at < 0):
            dist = _distances(walls[i], obs["goal"][i])
            r, c = obs["agent"][i]
            for a, (dr, dc) in enumerate(moves):
                if 0 <= r + dr < 8 and 0 <= c + dc < 8 and dist[r + dr, c + dc] == dist[r, c] - 1:
                    actions[i] = a
                    break
        obs, reward, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(done_at < 0):
            if terminated[i]:
                assert reward[i] == 1.0
                done_at[i] = t
            else:
                assert reward[i] == -0.01 and info["shortest_path"][i] == distance[i] - t
    np.testing.assert_array_equal(done_at, distance)
    spec = envfleet.make_spec("PyGridWorld-v0")
    assert spec.observation_space == grid_world.GridWorld.observation_space
    assert spec.config.max_episode_steps == 100


def _distances(walls: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Moves from every cell to ``goal`` (-1: cut off), by breadth-first search."""
    dist = np.full(walls.shape, -1)
    dist[goal[0], goal[1]] = 0
    frontier = [tuple(goal)]
    while frontier:
        following = []
        for r, c in frontier:
            for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < 8 and 0 <= cc < 8 and not walls[rr, cc] and dist[rr, cc] < 0:
                    dist[rr, cc] = dist[r, c] + 1
                    following.append((rr, cc))
        frontier = following
    return dist


def test_point_mass_box_actions_tuple_obs_and_info(test_envs):
    n, steps, seed = 3, 400, 9
    options = {"friction": 0.05, "max_bumps": 2}
    ours = envfleet.make(
        "TestPointMass-v0", num_envs=n, seed=seed, conventions="gymnasium", **options
    )
    ref = _gymnasium_twin(PointMass, n, **options)
    actions = np.random.default_rng(0).uniform(-1.5, 1.5, (steps, n, 2)).astype(np.float32)
    _run_pair(ours, ref, actions, seed, info_keys=("speed", "position"))
    assert isinstance(ours.single_observation_space, spaces.Tuple)
    assert ours.single_observation_space == PointMass.observation_space


def test_rng_helpers_draw_what_numpy_draws(test_envs):
    n, episodes = 3, 20
    env = envfleet.make("TestRngProbe-v0", num_envs=n, seed=40)
    rows = [env.reset()[0]]
    for _ in range(2 * episodes - 1):  # odd steps end episodes, even steps reset
        obs = env.step(np.zeros(n, np.int64))[0]
        if _ % 2:
            rows.append(obs)
    draws = np.stack(rows, axis=1)  # (env, episode, draw)
    for i in range(n):
        np.testing.assert_array_equal(draws[i], rng_probe_reference(40 + i, episodes))


# ---- pool semantics --------------------------------------------------------------------------


def _trajectory(env, actions):
    obs, _ = env.reset()
    out = [obs["agent"].copy()]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        out += [obs["agent"].copy(), obs["walls"].copy(), reward, terminated, truncated]
    return out


def test_same_trajectories_on_any_number_of_threads(grid_world):
    actions = np.random.default_rng(0).integers(0, 4, (300, 8))
    runs = [
        _trajectory(envfleet.make("PyGridWorld-v0", num_envs=8, num_threads=k), actions)
        for k in (1, 2, 4)
    ]
    for run in runs[1:]:
        for a, b in zip(runs[0], run, strict=True):
            np.testing.assert_array_equal(a, b)


def test_async_mode_gives_each_env_its_own_trajectory(grid_world):
    """In async mode envs finish in any order; each env's own trajectory is the sync one."""
    n, per_env = 8, 120
    actions = np.random.default_rng(0).integers(0, 4, (n, per_env))
    sync = envfleet.make("PyGridWorld-v0", num_envs=n, seed=7)
    obs, _ = sync.reset()
    expected = [[obs["agent"][i].copy()] for i in range(n)]
    for k in range(per_env):
        obs = sync.step(actions[:, k])[0]
        for i in range(n):
            expected[i].append(obs["agent"][i].copy())

    env = envfleet.make("PyGridWorld-v0", num_envs=n, batch_size=3, num_threads=2, seed=7)
    got = [[] for _ in range(n)]
    env.async_reset()
    while min(len(g) for g in got) <= per_env:
        obs, reward, terminated, truncated, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            got[i].append(obs["agent"][row].copy())
        steps = [min(len(got[i]) - 1, per_env - 1) for i in ids]
        env.send(actions[ids, steps], ids)
    for i in range(n):
        np.testing.assert_array_equal(np.array(got[i][: per_env + 1]), np.array(expected[i]))


def test_partial_steps_in_any_order_give_each_env_its_own_trajectory(cartpole):
    """The batched step takes runs of consecutive env ids in one call and an env id out of
    order on its own: steps of env subsets, sorted, shuffled or with gaps, give every env the
    trajectory a full sync pool gives it (resets included: random actions end CartPole's
    episodes every ~20 steps)."""
    n, per_env = 40, 80
    actions = np.random.default_rng(3).integers(0, 2, (n, per_env))
    full = envfleet.make("PyCartPole-v1", num_envs=n, seed=11)
    full.reset()
    expected = [[] for _ in range(n)]
    for k in range(per_env):
        obs, reward, terminated, truncated, _ = full.step(actions[:, k])
        for i in range(n):
            expected[i].append((obs[i].copy(), reward[i], terminated[i], truncated[i]))

    pick = np.random.default_rng(4)
    for threads in (1, 2):
        env = envfleet.make("PyCartPole-v1", num_envs=n, num_threads=threads, seed=11)
        env.reset()
        done = np.zeros(n, np.int64)
        while (done < per_env).any():
            left = np.flatnonzero(done < per_env)
            ids = pick.choice(left, size=pick.integers(1, len(left) + 1), replace=False)
            if pick.random() < 0.5:
                ids = np.sort(ids)  # runs of consecutive ids, with gaps between them
            ids = ids.astype(np.int32)
            obs, reward, terminated, truncated, info = env.step(actions[ids, done[ids]], ids)
            np.testing.assert_array_equal(info["env_id"], ids)
            for row, i in enumerate(ids):
                want = expected[i][done[i]]
                np.testing.assert_array_equal(obs[row], want[0])
                assert (reward[row], terminated[row], truncated[row]) == want[1:], (i, done[i])
            done[ids] += 1


def test_every_front_end(grid_world):
    actions = np.random.default_rng(2).integers(0, 4, (50, 4))
    gymn = envfleet.make("PyGridWorld-v0", num_envs=4, seed=1)
    gym = envfleet.make_gym("PyGridWorld-v0", num_envs=4, seed=1)
    legacy = envfleet.make("PyGridWorld-v0", env_type="gym", num_envs=4, seed=1, legacy_api=True)
    dm = envfleet.make_dm("PyGridWorld-v0", num_envs=4, seed=1)
    obs, info = gymn.reset()
    gym_obs, _ = gym.reset()
    legacy_obs = legacy.reset()
    ts = dm.reset()
    for key in ("walls", "agent", "goal"):
        np.testing.assert_array_equal(gym_obs[key], obs[key])
        np.testing.assert_array_equal(legacy_obs[key], obs[key])
        np.testing.assert_array_equal(getattr(ts.observation, key), obs[key])
    np.testing.assert_array_equal(ts.observation.shortest_path, info["shortest_path"])
    for action in actions:
        obs, reward, terminated, truncated, info = gymn.step(action)
        gym_obs, gym_reward, *_ = gym.step(action)
        legacy_obs, legacy_reward, done, _ = legacy.step(action)
        ts = dm.step(action)
        np.testing.assert_array_equal(gym_obs["agent"], obs["agent"])
        np.testing.assert_array_equal(legacy_obs["agent"], obs["agent"])
        np.testing.assert_array_equal(ts.observation.agent, obs["agent"])
        np.testing.assert_array_equal(gym_reward, reward)
        np.testing.assert_array_equal(ts.reward, reward)
        np.testing.assert_array_equal(done, terminated | truncated)
        np.testing.assert_array_equal(ts.discount, np.where(terminated, 0.0, 1.0))


def test_same_step_autoreset_reports_final_obs(cartpole):
    env = envfleet.make("PyCartPole-v1", num_envs=4, seed=0, autoreset_mode="same_step")
    env.reset()
    seen = 0
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(np.zeros(4, np.int64))
        done = terminated | truncated
        if done.any():
            seen += 1
            final = info["final_obs"][done]
            assert (np.abs(final[:, 2]) > 0.2).all() or (np.abs(final[:, 0]) > 2.4).all()
            assert (np.abs(obs[done]) <= 0.05).all()  # already the next episode's start
    assert seen


def test_options_and_registration_overrides(cartpole, test_envs):
    register_python_env("PyCartPoleSB-v1", cartpole.CartPole, sutton_barto_reward=True)
    env = envfleet.make("PyCartPoleSB-v1", num_envs=2)
    env.reset()
    rewards = [env.step(np.zeros(2, np.int64))[1] for _ in range(5)]
    assert np.all(np.array(rewards) == 0.0)
    assert env.spec.config.sutton_barto_reward is True
    with pytest.raises(TypeError, match="unknown option 'gravity'.*sutton_barto_reward"):
        envfleet.make("PyCartPole-v1", gravity=3.0)
    with pytest.raises(TypeError, match="must be a bool"):
        envfleet.make("PyCartPole-v1", sutton_barto_reward=1)
    with pytest.raises(TypeError, match="must be an int"):
        envfleet.make("TestPointMass-v0", max_bumps=2.5)
    register_python_env("TestPointMassShort-v0", PointMass, max_episode_steps=7)
    env = envfleet.make("TestPointMassShort-v0", num_envs=1, walls=False, max_bumps=1000)
    env.reset()
    truncated = [env.step(np.zeros((1, 2), np.float32))[3][0] for _ in range(7)]
    assert truncated == [False] * 6 + [True]


def test_decorator_form_and_listing():
    @register_python_env("TestDecorated-v0", max_episode_steps=3)
    class Decorated(PythonEnv):
        observation_space = spaces.Discrete(5)
        action_space = spaces.Discrete(5)
        state = {"value": np.int64}

        @staticmethod
        def reset(state, rng, options):
            state.value = rng.integers(5)

        @staticmethod
        def step(state, action, rng, options):
            state.value = action
            return float(action), False

        @staticmethod
        def observe(state, obs):
            obs[()] = state.value

    assert isinstance(Decorated, type)
    assert "TestDecorated-v0" in envfleet.list_all_envs()
    env = envfleet.make("TestDecorated-v0", num_envs=2)
    env.reset()
    obs, reward, *_ = env.step(np.array([4, 1]))
    np.testing.assert_array_equal(obs, [4, 1])
    np.testing.assert_array_equal(reward, [4.0, 1.0])


# ---- failures inside the env: EnvError, never a crash --------------------------------------


@pytest.mark.parametrize("fail_in", ["step", "observe", "reset"])
def test_exception_in_env_raises_env_error(fail_in):
    where = {"step": 0, "observe": 1, "reset": 2}[fail_in]
    fail_at = {"step": 4, "observe": 4, "reset": 0}[fail_in]
    out = assert_isolated_ok(
        f"""
        import numpy as np, envfleet, sys
        sys.path.insert(0, {HERE!r})
        from python_env_defs import Flaky
        envfleet.register_python_env("Flaky-v0", Flaky)
        env = envfleet.make("Flaky-v0", num_envs=3, num_threads=2, fail_at={fail_at},
                            fail_in={where})
        try:
            env.reset()
            for _ in range(6):
                env.step(np.zeros(3, np.int64))
            print("no error")
        except envfleet.EnvError as err:
            print("EnvError", err.env_id, sorted(err.env_ids.tolist()), "|", err)
        # The pool stays usable: a fresh pool, and the failed one reset again.
        ok = envfleet.make("Flaky-v0", num_envs=2)
        ok.reset()
        print("usable", ok.step(np.zeros(2, np.int64))[1].tolist())
        """
    )
    assert "EnvError" in out, out
    assert f"py.Flaky {fail_in} raised an exception (error code 1" in out, out
    assert "usable [1.0, 1.0]" in out, out


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("fail_in", ["step", "observe"])
def test_envs_failing_inside_a_batch_leave_the_others_exact(test_envs, fail_in, num_threads):
    """The pool steps and observes a Python env's envs in groups (one compiled call per
    group, cpp/core/function_env.h): envs that raise in the middle of a group fail alone;
    the envs before and after them in that group step and observe exactly once."""
    where = {"step": 0, "observe": 1}[fail_in]
    # Within and across groups of 64 (runs of about n / 16 envs on one thread).
    failing = (2, 5, 63, 64, 70, 71, 1099)
    n = 1100
    env = envfleet.make(
        "TestFlaky-v0",
        num_envs=n,
        num_threads=num_threads,
        per_env_options=[
            {"fail_at": 3 if i in failing else -1, "fail_in": where} for i in range(n)
        ],
    )
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, np.zeros(n))
    for t in (1, 2):
        obs, reward, *_ = env.step(np.zeros(n, np.int64))
        np.testing.assert_array_equal(obs, np.full(n, t))
    with pytest.raises(envfleet.EnvError) as err:
        env.step(np.zeros(n, np.int64))
    assert err.value.env_id in failing
    assert f"py.Flaky {fail_in} raised an exception" in str(err.value)
    # The failed envs start new episodes; every other env took step 3 exactly once.
    obs, reward, terminated, truncated, info = env.step(np.zeros(n, np.int64))
    expected = np.full(n, 4)
    expected[list(failing)] = 0
    np.testing.assert_array_equal(obs, expected)
    np.testing.assert_array_equal(info["elapsed_step"], expected)
    env.close()


@pytest.mark.parametrize("fail_in", ["step", "observe", "reset"])
def test_async_envs_failing_inside_a_chunk_leave_the_others_exact(test_envs, fail_in):
    """Async mode steps, resets and observes a chunk of queued envs in one compiled call
    each: an env that raises fails alone, and every other env of the chunk steps exactly once
    (its own step count, the observation, stays the pool's elapsed_step)."""
    where = {"step": 0, "observe": 1, "reset": 2}[fail_in]
    failing = (3, 4, 40, 41, 95)
    n, batch = 96, 48
    env = envfleet.make(
        "TestFlaky-v0",
        num_envs=n,
        batch_size=batch,
        num_threads=2,
        per_env_options=[
            {"fail_at": 3 if i in failing else -1, "fail_in": where} for i in range(n)
        ],
    )
    env.async_reset()
    errors = batches = 0
    while batches < 60:
        try:
            obs, reward, terminated, truncated, info = env.recv()
        except envfleet.EnvError as err:
            assert err.env_id in failing
            assert f"py.Flaky {fail_in} raised an exception" in str(err)
            errors += 1
            env.send(np.zeros(len(err.env_ids), np.int64), err.env_ids)
            continue
        batches += 1
        np.testing.assert_array_equal(obs, info["elapsed_step"])
        env.send(np.zeros(len(info["env_id"]), np.int64), info["env_id"])
    assert errors > 0
    env.close()


def test_async_loop_survives_env_error(test_envs):
    env = envfleet.make("TestFlaky-v0", num_envs=4, batch_size=2, num_threads=2, fail_at=3)
    env.async_reset()
    errors = steps = 0
    while steps < 100:
        try:
            obs, reward, terminated, truncated, info = env.recv()
            env.send(np.zeros(2, np.int64), info["env_id"])
            steps += 1
        except envfleet.EnvError as err:
            errors += 1
            assert err.env_id in err.env_ids
            env.send(np.zeros(len(err.env_ids), np.int64), err.env_ids)
    assert errors > 0


def test_out_of_bounds_index_is_an_index_error():
    """With the default bounds check, writing obs[4] of a (4,) obs is caught at registration
    (the check run) with the Python traceback; never a memory overwrite."""
    out = assert_isolated_ok(
        f"""
        import sys
        sys.path.insert(0, {HERE!r})
        from python_env_defs import OutOfBounds
        import envfleet
        try:
            envfleet.register_python_env("OOB-v0", OutOfBounds)
        except envfleet.EnvDefinitionError as err:
            print("EnvDefinitionError:", err, "| cause:", type(err.__cause__).__name__)
        """
    )
    assert "observe raised an exception" in out, out
    assert "IndexError" in out, out


def test_out_of_bounds_without_bounds_check_is_caught_by_canaries():
    out = assert_isolated_ok(
        f"""
        import sys
        sys.path.insert(0, {HERE!r})
        from python_env_defs import OutOfBounds
        import envfleet
        try:
            envfleet.register_python_env("OOB-v0", OutOfBounds, boundscheck=False)
        except envfleet.EnvDefinitionError as err:
            print("EnvDefinitionError:", err)
        """
    )
    assert "observe wrote past the end of obs" in out, out


# ---- definition errors: raised at registration -----------------------------------------------


def _env(**attrs):
    """A PythonEnv subclass: a valid 1-D env, with ``attrs`` replacing its parts."""

    def reset(state, rng, options):
        state.x = rng.uniform(-1.0, 1.0)

    def step(state, action, rng, options):
        state.x += action - 0.5
        return -abs(state.x), abs(state.x) > 5.0

    def observe(state, obs):
        obs[0] = state.x

    body = {
        "observation_space": spaces.Box(-10, 10, (1,), np.float32),
        "action_space": spaces.Discrete(2),
        "state": {"x": np.float64},
        "reset": staticmethod(reset),
        "step": staticmethod(step),
        "observe": staticmethod(observe),
    }
    body.update(
        {
            k: staticmethod(v) if callable(v) and not isinstance(v, type) else v
            for k, v in attrs.items()
        }
    )
    return type("Env1D", (PythonEnv,), body)


@pytest.mark.parametrize(
    "attrs, match",
    [
        ({"observation_space": spaces.Text(5)}, "observation_space: Text"),
        ({"observation_space": spaces.Box(0, 1, (2,), np.float16)}, "float16 is not supported"),
        ({"action_space": spaces.MultiBinary(2)}, "action_space: MultiBinary"),
        ({"action_space": "Discrete(2)"}, "action_space must be a gymnasium space"),
        ({"state": {"x": "not a dtype"}}, "state field 'x'"),
        ({"state": {"grid": (np.bool_, (3, 3))}}, "use np.uint8"),
        ({"state": {"class": np.float64}}, "must be a Python identifier"),
        ({"options": {"g": "ten"}}, "defaults must be bool, int or float"),
        ({"options": {"num_envs": 3}}, "clashes with an argument of make"),
        ({"info": {"env_id": np.int64}}, "reserved"),
        ({"info": {"speed": np.float64}}, "observe must be observe\\(state, obs, info\\)"),
        ({"max_episode_steps": -1}, "max_episode_steps must be an int >= 0"),
        ({"step": lambda state, action, rng: (0.0, False)}, "step takes 3 parameter"),
        ({"observe": lambda state: None}, "observe takes 1 parameter"),
        ({"reset": None}, "reset is missing"),
    ],
)
def test_bad_definitions_raise_before_compiling(attrs, match):
    with pytest.raises(EnvDefinitionError, match=match):
        register_python_env("TestBad-v0", _env(**attrs))
    assert "TestBad-v0" not in envfleet.list_all_envs()


def test_missing_self_hint():
    class Forgot(PythonEnv):
        observation_space = spaces.Discrete(2)
        action_space = spaces.Discrete(2)
        state = {"x": np.int64}

        def reset(self, state, rng, options):
            pass

        step = staticmethod(lambda state, action, rng, options: (0.0, False))
        observe = staticmethod(lambda state, obs: None)

    with pytest.raises(EnvDefinitionError, match="is @staticmethod missing"):
        register_python_env("TestForgot-v0", Forgot)


def test_function_numba_cannot_compile_names_it():
    def step(state, action, rng, options):
        state.x = {"a": object()}["a"]  # no objects in nopython mode
        return 0.0, False

    with pytest.raises(EnvDefinitionError) as info:
        register_python_env("TestNoCompile-v0", _env(step=step))
    message = str(info.value)
    assert "Numba cannot compile step in nopython mode" in message
    assert "Env1D" in message and "object" in message  # Numba's own message follows
    assert "TestNoCompile-v0" not in envfleet.list_all_envs()


def test_step_must_return_reward_and_terminated():
    def step(state, action, rng, options):
        return 1.0

    with pytest.raises(EnvDefinitionError, match=r"step must return \(reward, terminated\)"):
        register_python_env("TestBadReturn-v0", _env(step=step))


def test_observe_must_write_every_element():
    def observe(state, obs):
        obs[0] = state.x  # obs[1] left as it was

    env = _env(observation_space=spaces.Box(-10, 10, (2,), np.float32), observe=observe)
    with pytest.raises(EnvDefinitionError, match=r"did not write every element of obs .*\(1,\)"):
        register_python_env("TestUnwritten-v0", env)


def test_observe_must_not_change_the_state():
    def observe(state, obs):
        state.x += 1.0
        obs[0] = state.x

    with pytest.raises(EnvDefinitionError, match="observe changed the state"):
        register_python_env("TestObserveWrites-v0", _env(observe=observe))


def test_exception_on_the_check_run_chains_the_python_traceback():
    def reset(state, rng, options):
        state.x = rng.uniform(-1.0, 1.0)
        if state.x > -2.0:
            raise ValueError("reset is broken")

    with pytest.raises(EnvDefinitionError, match="reset raised an exception") as info:
        register_python_env("TestResetRaises-v0", _env(reset=reset))
    assert isinstance(info.value.__cause__, ValueError)
    assert "reset is broken" in str(info.value)


def test_observation_outside_its_space_warns():
    def observe(state, obs):
        obs[0] = 100.0

    with pytest.warns(UserWarning, match="outside its space"):
        register_python_env("TestOutside-v0", _env(observe=observe))


# ---- the uncompiled twin ---------------------------------------------------------------------


def test_as_gymnasium_env_is_a_gymnasium_env(grid_world):
    env = as_gymnasium_env(grid_world.GridWorld, wall_probability=0.1)
    assert isinstance(env, gymnasium.Env)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert set(info) == {"shortest_path"}
    with pytest.raises(TypeError, match="unknown option"):
        as_gymnasium_env(grid_world.GridWorld, walls=3)


# ---- the disk cache --------------------------------------------------------------------------


_CACHE_ENV = """
import numpy as np
from gymnasium import spaces
from cache_constants import OFFSET
from cache_helper import scale

import envfleet


class Scaled(envfleet.PythonEnv):
    observation_space = spaces.Box(-100, 100, (1,), np.float64)
    action_space = spaces.Discrete(2)
    state = {"x": np.float64}

    @staticmethod
    def reset(state, rng, options):
        state.x = 1.0

    @staticmethod
    def step(state, action, rng, options):
        state.x = scale(state.x) + OFFSET
        return 0.0, False

    @staticmethod
    def observe(state, obs):
        obs[0] = state.x
"""

_CACHE_HELPER = """
import numba


@numba.njit
def scale(x):
    return x * {scale}
"""

_CACHE_RUN = """
import sys
sys.path.insert(0, {directory!r})
import numpy as np, envfleet
from envfleet.python_env import compile_python_env
import importlib.util
spec = importlib.util.spec_from_file_location({module!r}, {directory!r} + "/cache_env.py")
module = importlib.util.module_from_spec(spec)
sys.modules[{module!r}] = module
spec.loader.exec_module(module)
Scaled = module.Scaled
envfleet.register_python_env("Scaled-v0", Scaled)
env = envfleet.make("Scaled-v0", num_envs=1)
env.reset()
print("hit", compiled.cache_hit if (compiled := compile_python_env(Scaled)) else None,
      "value", env.step(np.zeros(1, np.int64))[0][0, 0])
"""


def test_disk_cache_is_used_by_a_new_process_and_tracks_dependencies(tmp_path, monkeypatch):
    """A second process loads the compiled wrappers instead of compiling; changing a helper
    function or a constant in another file (reached through the env's globals) recompiles."""
    (tmp_path / "cache_env.py").write_text(_CACHE_ENV)
    cache = tmp_path / "cache"
    monkeypatch.setenv("ENVFLEET_CACHE_DIR", str(cache))
    runs = []
    # Compile; load; a helper function changed; a constant imported from a file that holds
    # no function of the env changed (its value counts: Numba froze it into the code); the
    # same file imported under another module name (cached code names its modules); load.
    for scale, offset, module in (
        (2.0, 0.0, "cache_env"),
        (2.0, 0.0, "cache_env"),
        (3.0, 0.0, "cache_env"),
        (3.0, 0.5, "cache_env"),
        (3.0, 0.5, "renamed_env"),
        (3.0, 0.5, "cache_env"),
    ):
        (tmp_path / "cache_helper.py").write_text(_CACHE_HELPER.format(scale=scale))
        (tmp_path / "cache_constants.py").write_text(f"OFFSET = {offset}\n")
        code = _CACHE_RUN.format(directory=str(tmp_path), module=module)
        rc, out, err = run_isolated(code, timeout=180)
        assert rc == 0, describe(rc, out, err)
        runs.append(out.split())
    assert [r[1] for r in runs] == ["False", "True", "False", "False", "False", "True"], runs
    assert [float(r[3]) for r in runs] == [2.0, 2.0, 3.0, 3.5, 3.5, 3.5], runs
    assert any(p.suffix == ".nbi" for p in cache.rglob("*")), list(cache.rglob("*"))


def test_without_numba_the_error_says_so():
    out = assert_isolated_ok(
        """
        import sys
        sys.modules["numba"] = None  # as if it were not installed
        import envfleet
        from gymnasium import spaces
        print("imported", "CartPole-v1" in envfleet.list_all_envs())
        class E(envfleet.PythonEnv):
            observation_space = spaces.Discrete(2)
            action_space = spaces.Discrete(2)
            state = {"x": int}
            reset = staticmethod(lambda state, rng, options: None)
            step = staticmethod(lambda state, action, rng, options: (0.0, False))
            observe = staticmethod(lambda state, obs: None)
        try:
            envfleet.register_python_env("E-v0", E)
        except ImportError as err:
            print("ImportError:", err)
        """
    )
    assert "imported True" in out
    assert "ImportError:" in out and "pip install" in out and "Numba" in out, out


def test_the_check_run_can_build_a_scratch_generator():
    """Registration checks envs on a generator in Python memory built from NumPy's state; it
    verifies itself against NumPy, and this fails if the C++ generator's layout changes."""
    from envfleet.python_env import _ScratchRng

    assert _ScratchRng.create(0) is not None
    assert _ScratchRng.create(2**40 + 3) is not None
