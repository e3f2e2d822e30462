"""Counting-v0 as cpp/families/example/counting.h and src/envfleet/families/example.py define it:
its spaces, its defaults and its option checks.

The pool's semantics that Counting pins down (autoreset, ``continue_episodes``, ordering,
errors from ``fail_at_step``) are tested in tests/core/test_pool.py; this file checks only
what Counting itself declares.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envfleet


@pytest.mark.parametrize("episode_length", [1, 5, 7])
def test_spaces_follow_the_spec(episode_length):
    spec = envfleet.make_spec("Counting-v0", episode_length=episode_length)
    assert spec.observation_space == gymnasium.spaces.Box(
        low=0, high=np.array([episode_length, 10**9]), shape=(2,), dtype=np.int64
    )
    assert spec.action_space == gymnasium.spaces.Discrete(10)
    assert spec.reward_range == (0.0, 9.0)


def test_registration_has_no_time_limit_and_the_header_defaults():
    spec = envfleet.make_spec("Counting-v0")
    assert spec.config.max_episode_steps == 0
    assert spec.reward_threshold is None
    options = spec.config.env_options
    assert (options["episode_length"], options["fail_at_step"]) == (5, -1)
    assert options["continue_episodes"] is False


def test_default_episode_is_five_steps_and_never_truncated():
    env = envfleet.make("Counting-v0", num_envs=1, conventions="gymnasium")
    try:
        env.reset()
        ends = []
        for t in range(1, 13):
            obs, reward, terminated, truncated, _ = env.step(np.array([t % 10]))
            assert not truncated[0]
            if terminated[0]:
                ends.append((t, obs[0].tolist()))
        # Steps 1-5 end episode 1 at [5, 1]; step 6 resets; steps 7-11 end episode 2.
        assert ends == [(5, [5, 1]), (11, [5, 2])]
    finally:
        env.close()


@pytest.mark.parametrize("length", [0, -3])
def test_episode_length_must_be_positive(length):
    # Checked by the spec, so make_spec already refuses it, before any env exists.
    for call in (envfleet.make_spec, envfleet.make):
        with pytest.raises(ValueError, match="episode_length must be >= 1"):
            call("Counting-v0", episode_length=length)


def test_options_are_checked_by_kind():
    with pytest.raises(TypeError, match="episode_length"):
        envfleet.make("Counting-v0", episode_length=2.5, conventions="gymnasium")
    with pytest.raises(TypeError, match="continue_episodes"):
        envfleet.make("Counting-v0", continue_episodes=1, conventions="gymnasium")
