"""The EnvPool-style ``gym`` front end (src/envfleet/gym_env.py), with the opt-in legacy API."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from gymnasium.spaces import Box, Discrete

import envfleet


@pytest.fixture
def gym_counting(counting):
    """conftest.py's ``counting`` behind the gym front end."""
    return functools.partial(counting, env_type="gym")


def test_spaces_describe_one_env():
    env = envfleet.make_gym("CartPole-v1", num_envs=4)
    try:
        assert isinstance(env.observation_space, Box)
        assert env.observation_space.shape == (4,)  # one env, not (4, 4)
        assert env.action_space == Discrete(2)
        assert env.num_envs == 4
        assert len(env) == 4
        obs, info = env.reset()
        assert obs.shape == (4, 4)
        for row in obs:
            assert env.observation_space.contains(row)
    finally:
        env.close()


def test_default_api_follows_gymnasium_conventions(gym_counting):
    env = gym_counting(num_envs=2)
    obs, info = env.reset()
    assert obs.tolist() == [[0, 1], [0, 1]]
    assert info["env_id"].tolist() == [0, 1]
    out = env.step(np.array([2, 3]))
    assert len(out) == 5
    obs, rew, term, trunc, info = out
    assert obs.tolist() == [[1, 1], [1, 1]]
    assert rew.tolist() == [2.0, 3.0]


def test_legacy_reset_returns_obs_only(gym_counting):
    env = gym_counting(num_envs=2, legacy_api=True)
    obs = env.reset()
    assert isinstance(obs, np.ndarray)
    assert obs.tolist() == [[0, 1], [0, 1]]


def test_legacy_step_four_tuple_and_done(gym_counting):
    env = gym_counting(num_envs=2, episode_length=3, legacy_api=True)
    env.reset()
    for t in (1, 2, 3):
        out = env.step(np.array([1, 2]))
        assert len(out) == 4
        obs, rew, done, info = out
        assert done.dtype == np.bool_
        assert done.tolist() == [t == 3, t == 3]
        assert rew.tolist() == [1.0, 2.0]
        assert info["TimeLimit.truncated"].tolist() == [False, False]
    obs, rew, done, info = env.step(np.array([1, 2]))
    assert obs.tolist() == [[0, 2], [0, 2]] and rew.tolist() == [0.0, 0.0]
    assert done.tolist() == [False, False]


@pytest.mark.parametrize(
    "episode_length,limit,want_done,want_truncated",
    [
        (10, 2, True, True),  # cut by the time limit only
        (2, 2, True, False),  # terminated exactly at the limit: a real end, not truncation
        (2, 10, True, False),  # terminated
    ],
    ids=["truncated", "both", "terminated"],
)
def test_legacy_time_limit_truncated(
    gym_counting, episode_length, limit, want_done, want_truncated
):
    env = gym_counting(
        num_envs=1, episode_length=episode_length, max_episode_steps=limit, legacy_api=True
    )
    env.reset()
    env.step(np.array([0]))
    _, _, done, info = env.step(np.array([0]))
    assert done.tolist() == [want_done]
    assert info["TimeLimit.truncated"].tolist() == [want_truncated]


def test_legacy_truncated_flag_per_env(gym_counting):
    env = gym_counting(num_envs=3, episode_length=3, max_episode_steps=3, legacy_api=True)
    env.reset()
    env.step(np.array([0]), env_id=[2])  # env 2 one step ahead
    env.step(np.array([0, 0, 0]))
    _, _, done, info = env.step(np.array([0, 0, 0]))
    # env 2 hits step 3 (terminates and hits the limit together); envs 0 and 1 are at step 2
    assert done.tolist() == [False, False, True]
    assert info["TimeLimit.truncated"].tolist() == [False, False, False]


def test_legacy_api_with_cartpole_time_limit():
    env = envfleet.make_gym("CartPole-v1", num_envs=2, max_episode_steps=5, legacy_api=True)
    try:
        env.reset()
        flags = []
        for _ in range(5):
            _, _, done, info = env.step(np.array([0, 1]))
            flags.append((done.tolist(), info["TimeLimit.truncated"].tolist()))
        # CartPole cannot fall within 5 steps from its start: each end is a truncation
        assert flags[-1] == ([True, True], [True, True])
        assert all(f == ([False, False], [False, False]) for f in flags[:-1])
    finally:
        env.close()


def test_gym_send_recv(gym_counting):
    env = gym_counting(num_envs=4, batch_size=2, episode_length=100)
    env.async_reset()
    obs, rew, term, trunc, info = env.recv()
    assert obs.shape == (2, 2)
    env.send(np.array([3, 4]), info["env_id"])
    env.recv()


def test_gym_legacy_recv_is_a_four_tuple(gym_counting):
    env = gym_counting(num_envs=2, legacy_api=True)
    env.async_reset()
    out = env.recv()
    assert len(out) == 4
    obs, rew, done, info = out
    assert "TimeLimit.truncated" in info
