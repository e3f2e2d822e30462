"""CleanRL's EnvPool scripts with ``import envfleet as envpool`` (docs/integrations/cleanrl.md).

CleanRL's ``ppo_atari_envpool.py`` is not in this repository and a test may not fetch it, so
each test here is a compact PPO-style loop of our own that touches the pool exactly where the
script does, in the script's order:

- the original (written for EnvPool 0.6 and gym 0.23.1): ``make(..., env_type="gym",
  episodic_life=True, reward_clip=True, seed=...)`` plus envfleet's ``legacy_api=True``;
  assigning ``num_envs``, ``single_action_space``, ``single_observation_space``; an old
  ``gym.Wrapper`` around the pool; ``isinstance(action_space, gym.spaces.Discrete)`` with old
  gym; ``reset() -> obs``; ``step() -> (obs, reward, done, info)`` with ``info["reward"]``
  (unclipped), ``info["terminated"]`` (game over) and ``info["lives"]``.
- EnvPool's port to its 1.x API (EnvPool's ``examples/cleanrl_examples``): the same with
  ``gymnasium`` as ``gym``, ``reset() -> (obs, info)``, the 5-tuple and an all-zero warm-up
  step inside the wrapper's constructor.
"""

from __future__ import annotations

import copy
import pickle

import gym  # old gym (0.23.1, the test extra), as the original script imports it
import gymnasium
import numpy as np
import pytest
import torch
from conftest import describe, run_isolated
from torch import nn
from torch.distributions.categorical import Categorical

import envfleet as envpool

torch.set_num_threads(1)  # two cores, shared with the pool's workers

NUM_ENVS = 4
STEPS = 250  # enough for random Breakout play to lose lives in every env


def tiny_agent(num_actions: int) -> nn.Module:
    """The script's Nature-CNN shape, scaled down: 4 stacked 84x84 frames -> logits."""
    return nn.Sequential(
        nn.Conv2d(4, 8, 8, stride=4),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(8 * 20 * 20, num_actions),
    )


def check_atari_info(info: dict, reward: np.ndarray, step_count: int) -> None:
    np.testing.assert_array_equal(info["env_id"], np.arange(NUM_ENVS))
    np.testing.assert_array_equal(reward, np.sign(info["reward"]))  # reward_clip=True
    assert info["lives"].shape == (NUM_ENVS,) and info["terminated"].shape == (NUM_ENVS,)
    assert np.all(info["elapsed_step"] <= step_count)


class OldGymEpisodeStatistics(gym.Wrapper):
    """Game returns across lives, from the unclipped reward and the game-over flag (what the
    original script's RecordEpisodeStatistics does, in our own words)."""

    def __init__(self, env):
        super().__init__(env)
        self.num_envs = getattr(env, "num_envs", 1)

    def reset(self, **kwargs):
        obs = super().reset(**kwargs)
        self.game_returns = np.zeros(self.num_envs, dtype=np.float32)
        return obs

    def step(self, action):
        obs, reward, done, info = super().step(action)
        self.game_returns += info["reward"]
        info["game_return"] = self.game_returns.copy()
        self.game_returns *= 1 - info["terminated"]
        return obs, reward, done, info


def test_original_script_runs_with_the_import_swapped_and_legacy_api():
    envs = envpool.make(
        "Breakout-v5",
        env_type="gym",
        num_envs=NUM_ENVS,
        episodic_life=True,
        reward_clip=True,
        seed=1,
        legacy_api=True,  # the one edit besides the import
    )
    envs.num_envs = NUM_ENVS
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    envs = OldGymEpisodeStatistics(envs)
    assert isinstance(envs.action_space, gym.spaces.Discrete)
    assert envs.single_observation_space.shape == (4, 84, 84)

    agent = tiny_agent(envs.single_action_space.n)
    next_obs = torch.Tensor(envs.reset())
    assert next_obs.shape == (NUM_ENVS, 4, 84, 84)
    observations, actions, rewards, dones = [], [], [], []
    lives_lost = np.zeros(NUM_ENVS, dtype=bool)
    for step in range(1, STEPS + 1):
        with torch.no_grad():
            action = Categorical(logits=agent(next_obs / 255.0)).sample()
        observations.append(next_obs)
        actions.append(action)
        obs, reward, done, info = envs.step(action.cpu().numpy())
        rewards.append(torch.tensor(reward).view(-1))
        dones.append(torch.Tensor(done))
        next_obs = torch.Tensor(obs)
        check_atari_info(info, reward, step)
        assert done.dtype == np.bool_ and not info["TimeLimit.truncated"].any()
        lives_lost |= done & (info["terminated"] == 0)  # episodic_life: a lost life ends one
    assert lives_lost.all()

    # One policy-gradient step on the batch, as the script's update does (shapes and dtypes).
    batch_obs = torch.stack(observations).reshape((-1, *envs.single_observation_space.shape))
    logits = agent(batch_obs / 255.0)
    returns = torch.stack(rewards).reshape(-1)
    log_prob = Categorical(logits=logits).log_prob(torch.stack(actions).reshape(-1))
    (-(log_prob * returns).mean()).backward()
    assert all(p.grad is not None for p in agent.parameters())
    assert torch.stack(dones).shape == (STEPS, NUM_ENVS)
    envs.close()


class GymnasiumEpisodeStatistics(gymnasium.Wrapper):
    """EnvPool's port of the wrapper, in our own words: the 5-tuple, a warm-up step in the
    constructor, and (on Gymnasium 1.x, whose Wrapper no longer forwards unknown attributes)
    the two ``single_*`` lines docs/integrations/cleanrl.md tells users to add."""

    def __init__(self, env):
        super().__init__(env)
        self.num_envs = getattr(env, "num_envs", 1)
        self.single_action_space = env.single_action_space
        self.single_observation_space = env.single_observation_space
        env.reset()
        info = env.step(np.zeros(self.num_envs, dtype=int))[-1]
        self.has_lives = info["lives"].sum() > 0

    def reset(self, **kwargs):
        obs, _ = super().reset(**kwargs)
        self.game_returns = np.zeros(self.num_envs, dtype=np.float32)
        return obs

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        dones = terminated + truncated
        self.game_returns += info["reward"]
        self.game_returns *= 1 - dones
        return obs, reward, dones, info


def test_envpool_port_runs_with_the_import_swapped():
    envs = envpool.make(
        "Breakout-v5", env_type="gym", num_envs=NUM_ENVS, episodic_life=True, reward_clip=True
    )
    envs.num_envs = NUM_ENVS
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    envs = GymnasiumEpisodeStatistics(envs)
    assert isinstance(envs.action_space, gymnasium.spaces.Discrete)
    assert envs.has_lives

    agent = tiny_agent(envs.single_action_space.n)
    next_obs = torch.Tensor(envs.reset())
    lives_lost = np.zeros(NUM_ENVS, dtype=bool)
    for step in range(1, STEPS + 1):
        with torch.no_grad():
            action = Categorical(logits=agent(next_obs / 255.0)).sample()
        obs, reward, done, info = envs.step(action.cpu().numpy())
        next_obs = torch.Tensor(obs)
        check_atari_info(info, reward, step)
        assert reward.dtype == np.float32 and done.dtype == np.bool_  # EnvPool's conventions
        lives_lost |= done & (info["terminated"] == 0)
    assert lives_lost.all()
    envs.close()


# ---- the legacy pool's spaces: Gymnasium's, and old gym's classes too ------------------------


@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pendulum-v1", "Breakout-v5"])
def test_legacy_spaces_are_instances_of_both_libraries_classes(task_id):
    env = envpool.make_gym(task_id, num_envs=2, legacy_api=True)
    spec = env.spec
    try:
        for ours, theirs in [
            (env.observation_space, spec.observation_space),
            (env.action_space, spec.action_space),
        ]:
            assert isinstance(ours, type(theirs)) and isinstance(ours, gym.spaces.Space)
            assert isinstance(ours, getattr(gym.spaces, type(theirs).__name__))
            assert ours == theirs and theirs == ours
            for copied in (pickle.loads(pickle.dumps(ours)), copy.deepcopy(ours)):
                assert type(copied) is type(ours) and copied == theirs
        assert env.single_action_space is env.action_space
        assert env.observation_space.contains(env.reset()[0])
    finally:
        env.close()


def test_legacy_dict_spaces_hold_twins():
    env = envpool.make_gym("CheetahRun-v1", num_envs=1, legacy_api=True)
    try:
        space = env.observation_space
        assert type(space) is gymnasium.spaces.Dict and space == env.spec.observation_space
        assert all(isinstance(sub, gym.spaces.Box) for sub in space.values())
    finally:
        env.close()


def test_without_old_gym_the_legacy_spaces_are_gymnasiums():
    returncode, stdout, stderr = run_isolated(
        """
        import sys
        sys.modules["gym"] = None  # as if gym were not installed
        import envfleet
        env = envfleet.make_gym("CartPole-v1", num_envs=2, legacy_api=True)
        print(type(env.action_space).__module__, env.action_space == env.spec.action_space)
        """
    )
    assert returncode == 0, describe(returncode, stdout, stderr)
    assert stdout.split() == ["gymnasium.spaces.discrete", "True"]
