"""The Gymnasium front end (src/envfleet/gymnasium_env.py) under Gymnasium's VectorEnv
conventions (``conventions="gymnasium"``, what ``gymnasium.make_vec`` gives): a real
gymnasium.vector.VectorEnv under Gymnasium's own vector wrappers. EnvPool's conventions (the
default) are tested in test_envpool_conventions.py."""

from __future__ import annotations

import contextlib

import gymnasium
import numpy as np
import pytest
from gymnasium.spaces import Box, Discrete, MultiDiscrete
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers import vector as vw

import envfleet


def vector_env(task_id: str, **kwargs):
    """``envfleet.make`` with Gymnasium's VectorEnv conventions."""
    return envfleet.make(task_id, conventions="gymnasium", **kwargs)


@pytest.fixture
def cartpole():
    """``cartpole(**kwargs)`` makes a CartPole-v1 pool (4 envs unless told otherwise) that is
    closed after the test."""
    with contextlib.ExitStack() as pools:
        yield lambda num_envs=4, **kwargs: pools.enter_context(
            contextlib.closing(vector_env("CartPole-v1", num_envs=num_envs, **kwargs))
        )


def test_is_a_vector_env_with_the_right_spaces(cartpole):
    env = cartpole(num_envs=4)
    assert isinstance(env, VectorEnv)
    assert env.num_envs == 4
    assert isinstance(env.single_observation_space, Box)
    assert env.single_observation_space.shape == (4,)
    assert env.single_observation_space.dtype == np.float32
    assert env.single_action_space == Discrete(2)
    assert env.observation_space == batch_space(env.single_observation_space, 4)
    assert env.observation_space.shape == (4, 4)
    assert env.action_space == MultiDiscrete([2, 2, 2, 2])
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert env.unwrapped is env
    assert env.spec.observation_space == env.single_observation_space


@pytest.mark.parametrize("mode", ["same_step", "disabled"])
def test_metadata_names_the_autoreset_mode(cartpole, mode):
    env = cartpole(autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] is AutoresetMode[mode.upper()]


def test_reset_and_step_return_gymnasium_types(cartpole):
    env = cartpole(num_envs=3)
    obs, info = env.reset(seed=0)
    assert isinstance(info, dict)
    assert env.observation_space.contains(obs)
    assert obs.dtype == env.single_observation_space.dtype
    env.action_space.seed(0)
    for _ in range(30):
        obs, rew, term, trunc, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        assert rew.shape == (3,) and rew.dtype == np.float64
        assert term.shape == (3,) and term.dtype == np.bool_
        assert trunc.shape == (3,) and trunc.dtype == np.bool_
        assert isinstance(info, dict) and info["env_id"].tolist() == [0, 1, 2]


def test_reset_seed_determinism(cartpole):
    # gymnasium.utils.env_checker.check_reset_seed_determinism, for a vector env
    env = cartpole()
    a, _ = env.reset(seed=123)
    a = a.copy()
    env.step(np.ones(4, np.int64))
    b, _ = env.reset(seed=123)
    np.testing.assert_array_equal(a, b)
    c, _ = env.reset(seed=124)
    assert not np.array_equal(a, c)


def test_step_determinism(cartpole):
    # gymnasium.utils.env_checker.check_step_determinism, for a vector env
    results = []
    for _ in range(2):
        env = cartpole()
        env.reset(seed=5)
        steps = [
            tuple(np.array(x, copy=True) for x in env.step(np.array([0, 1, 1, 0]))[:4])
            for _ in range(20)
        ]
        results.append(steps)
    for s1, s2 in zip(*results, strict=True):
        for u, v in zip(s1, s2, strict=True):
            np.testing.assert_array_equal(u, v)


def test_returned_data_not_reused(cartpole):
    # gymnasium.utils.env_checker.check_returned_data_not_reused, for a vector env
    env = cartpole()
    obs_1, _ = env.reset(seed=0)
    obs_2, *_ = env.step(np.zeros(4, np.int64))
    assert not np.shares_memory(obs_1, obs_2)


def test_close_sets_closed(cartpole):
    env = cartpole()
    env.reset()
    env.close()
    assert env.closed
    env.close()


def _manual_episode_stats(env, actions_seq):
    """Steps ``env`` with ``actions_seq`` and counts returns/lengths by hand (NEXT_STEP)."""
    n = env.num_envs
    ret = np.zeros(n)
    length = np.zeros(n, dtype=int)
    prev_done = np.zeros(n, dtype=bool)
    finished = []  # (step, env, return, length)
    for t, actions in enumerate(actions_seq):
        obs, rew, term, trunc, info = env.step(actions)
        for i in range(n):
            if prev_done[i]:  # the reset step of NEXT_STEP autoreset
                ret[i], length[i] = 0.0, 0
                assert rew[i] == 0.0
                continue
            ret[i] += rew[i]
            length[i] += 1
        done = term | trunc
        for i in np.flatnonzero(done):
            finished.append((t, int(i), float(ret[i]), int(length[i])))
        prev_done = done
    return finished


@pytest.mark.parametrize(
    "task,kwargs",
    [("CartPole-v1", {}), ("Counting-v0", {"episode_length": 6, "max_episode_steps": 4})],
)
def test_record_episode_statistics(task, kwargs):
    n = 4
    inner = vector_env(task, num_envs=n, **kwargs)
    env = vw.RecordEpisodeStatistics(inner)
    twin = vector_env(task, num_envs=n, **kwargs)  # same seed: same trajectory
    try:
        rng = np.random.default_rng(0)
        high = inner.single_action_space.n
        actions_seq = [rng.integers(0, high, n) for _ in range(300)]
        env.reset()
        twin.reset()
        expected = _manual_episode_stats(twin, actions_seq)
        got = []
        for t, actions in enumerate(actions_seq):
            *_, info = env.step(actions)
            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    got.append(
                        (t, int(i), float(info["episode"]["r"][i]), int(info["episode"]["l"][i]))
                    )
        assert len(expected) >= n, "the run must finish several episodes"
        assert got == expected
    finally:
        env.close()
        twin.close()


def test_record_episode_statistics_same_step():
    n = 3
    env = vw.RecordEpisodeStatistics(
        vector_env("Counting-v0", num_envs=n, episode_length=4, autoreset_mode="same_step")
    )
    try:
        env.reset()
        episodes = []
        for t in range(20):
            actions = np.array([(t + i) % 10 for i in range(n)])
            *_, info = env.step(actions)
            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    episodes.append(
                        (t, int(i), float(info["episode"]["r"][i]), int(info["episode"]["l"][i]))
                    )
        # every env ends an episode every 4 steps; its return is the sum of its 4 actions
        expected = []
        for t in range(3, 20, 4):
            for i in range(n):
                expected.append((t, i, float(sum((s + i) % 10 for s in range(t - 3, t + 1))), 4))
        assert episodes == expected
    finally:
        env.close()


class _RecordRaw(gymnasium.vector.VectorObservationWrapper):
    """Keeps a copy of every raw observation batch that passes through."""

    def __init__(self, env):
        super().__init__(env)
        self.seen = []

    def observations(self, observations):
        self.seen.append(np.array(observations, copy=True))
        return observations


def test_normalize_observation():
    env = vw.NormalizeObservation(_RecordRaw(vector_env("CartPole-v1", num_envs=4)))
    try:
        obs, _ = env.reset(seed=0)
        rng = np.random.default_rng(1)
        for _ in range(200):
            obs, *_ = env.step(rng.integers(0, 2, 4))
            assert obs.shape == (4, 4) and np.all(np.isfinite(obs))
        raw = np.concatenate(env.env.seen)
        np.testing.assert_allclose(env.obs_rms.mean, raw.mean(axis=0), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(env.obs_rms.var, raw.var(axis=0), rtol=1e-3, atol=1e-5)
    finally:
        env.close()


def test_normalize_reward_scales_each_step_uniformly():
    inner = vector_env("Counting-v0", num_envs=4, episode_length=1000)
    env = vw.NormalizeReward(inner)
    try:
        env.reset()
        for t in range(50):
            actions = np.array([1, 2, 3, 4]) + t % 3
            _, rew, *_ = env.step(actions)
            assert np.all(np.isfinite(rew))
            ratio = rew / actions
            np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
            assert ratio[0] > 0
    finally:
        env.close()


def test_clip_reward():
    env = vw.ClipReward(
        vector_env("Counting-v0", num_envs=4, episode_length=1000),
        min_reward=1.0,
        max_reward=3.0,
    )
    try:
        env.reset()
        _, rew, *_ = env.step(np.array([0, 2, 5, 9]))
        assert rew.tolist() == [1.0, 2.0, 3.0, 3.0]
    finally:
        env.close()


def test_transform_observation():
    inner = vector_env("Counting-v0", num_envs=2, episode_length=1000)
    single = Box(-np.inf, np.inf, (2,), np.float64)
    space = batch_space(single, 2)
    env = vw.TransformObservation(inner, lambda obs: obs * 2.5, space, single)
    try:
        obs, _ = env.reset()
        assert obs.tolist() == [[0.0, 2.5], [0.0, 2.5]]
        obs, *_ = env.step(np.array([0, 0]))
        assert obs.tolist() == [[2.5, 2.5], [2.5, 2.5]]
        assert env.observation_space == space
    finally:
        env.close()


def test_envpool_dict_action_form():
    # An async pool: EnvPool's send/recv with env ids (its conventions, the default).
    env = envfleet.make("Counting-v0", num_envs=4, batch_size=2, episode_length=100)
    try:
        env.async_reset()
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"].copy()
        env.send({"action": np.array([7, 8]), "env_id": ids})
        seen = {}
        while len(seen) < 2:
            obs, rew, _, _, info = env.recv()
            for row, e in enumerate(info["env_id"].tolist()):
                if e in ids.tolist() and obs[row, 0] == 1:
                    seen[e] = rew[row]
            env.send({"action": np.zeros(2, np.int64), "env_id": info["env_id"]})
        assert seen == {int(ids[0]): 7.0, int(ids[1]): 8.0}
    finally:
        env.close()


def test_dict_action_form_in_step():
    env = vector_env("Counting-v0", num_envs=3)
    try:
        env.reset()
        _, rew, _, _, info = env.step({"action": np.array([4, 6]), "env_id": np.array([2, 0])})
        assert info["env_id"].tolist() == [2, 0]
        assert rew.tolist() == [4.0, 6.0]
        _, rew, _, _, info = env.step({"action": np.array([1, 2, 3])})
        assert rew.tolist() == [1.0, 2.0, 3.0]
    finally:
        env.close()


def test_np_random_and_action_space_sampling_work(cartpole):
    env = cartpole()
    env.reset(seed=1)
    assert isinstance(env.np_random, np.random.Generator)
    env.action_space.seed(3)
    env.step(env.action_space.sample())
