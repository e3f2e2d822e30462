"""Tianshou 2.0.1 with envfleet's pools (docs/integrations/tianshou.md).

Tianshou's ``Collector`` drives a pool as it drives an EnvPool one: ``len()``,
``step(actions, env_ids)``, ``reset(env_id=...)``, one env's ``action_space`` and dict infos.
Random collection samples that one-env space, an epsilon-greedy policy mixes its own and
sampled actions; both reach the pool. ``EnvfleetFactory`` is Tianshou's ``EnvPoolFactory``
building envfleet pools for the high-level API.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.highlevel.env import EnvFactoryRegistered, EnvMode, VectorEnvType
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step

import envfleet
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.integrations.tianshou import EnvfleetFactory

torch.set_num_threads(1)  # two cores, shared with the pool's workers

NUM_ENVS = 4

# Tianshou's Collector stacks the infos of reset and stepped envs into one object array and
# warns that their keys differ; it does the same over EnvPool's pools.
pytestmark = pytest.mark.filterwarnings("ignore:You are using tensors with different shape")


def q_policy(env, eps: float) -> DiscreteQLearningPolicy:
    net = Net(state_shape=env.observation_space.shape, action_shape=env.action_space.n)
    return DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=eps)


def assert_buffer_holds_cartpole_transitions(buffer: VectorReplayBuffer, steps: int) -> None:
    """Each env's sub-buffer is one stream of transitions: a step's ``obs_next`` is the next
    step's ``obs`` unless the episode ended there, CartPole pays 1 per step, and only the
    last step of an episode is done."""
    assert len(buffer) == steps
    for sub in buffer.buffers:
        batch = sub[np.arange(len(sub))]
        assert batch.obs.shape == (len(sub), 4) and batch.obs.dtype == np.float32
        np.testing.assert_array_equal(batch.rew, np.ones(len(sub)))
        assert set(np.unique(batch.act)) <= {0, 1}
        continuing = ~batch.done[:-1]
        np.testing.assert_array_equal(batch.obs_next[:-1][continuing], batch.obs[1:][continuing])


def test_collector_with_random_and_epsilon_greedy_actions():
    env = envfleet.make_gymnasium("CartPole-v1", num_envs=NUM_ENVS, seed=0)
    policy = q_policy(env, eps=0.5)
    buffer = VectorReplayBuffer(2_000, NUM_ENVS)
    collector = Collector(policy, env, buffer)
    collector.reset()

    stats = collector.collect(n_step=200, random=True)
    assert stats.n_collected_steps == 200 and stats.n_collected_episodes > 0
    np.testing.assert_array_equal(stats.returns, stats.lens)  # 1 per step, whole episodes
    with policy_within_training_step(policy):
        stats = collector.collect(n_step=200)
    assert stats.n_collected_steps == 200
    assert_buffer_holds_cartpole_transitions(buffer, 400)

    # Whole episodes from a reset, as Tianshou's test collectors gather them.
    stats = collector.collect(n_episode=NUM_ENVS, reset_before_collect=True)
    assert stats.n_collected_episodes == NUM_ENVS
    assert np.all(stats.lens >= 8) and np.all(stats.lens <= 500)
    collector.close()
    assert env.closed


def test_envfleet_factory_builds_pools_for_the_high_level_api():
    factory = EnvFactoryRegistered(
        task="CartPole-v1",
        venv_type=VectorEnvType.DUMMY,
        envpool_factory=EnvfleetFactory(),
        max_episode_steps=30,  # reaches gymnasium.make and envfleet.make alike
    )
    envs = factory.create_envs(num_training_envs=NUM_ENVS, num_test_envs=2, seed=0)
    assert isinstance(envs.training_envs, GymnasiumEnvPool)
    assert envs.training_envs.config["num_envs"] == NUM_ENVS
    assert envs.test_envs.config["num_envs"] == 2
    assert envs.training_envs.config["max_episode_steps"] == 30
    assert envs.training_envs.observation_space == envs.env.observation_space

    # Collect into a buffer, learn from it, evaluate on the test pool.
    policy = q_policy(envs.training_envs, eps=0.1)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3))
    buffer = VectorReplayBuffer(1_000, NUM_ENVS)
    train_collector = Collector(algorithm, envs.training_envs, buffer, exploration_noise=True)
    train_collector.reset()
    with policy_within_training_step(policy):
        train_collector.collect(n_step=256)
        stats = algorithm.update(buffer=buffer, sample_size=64)
    assert np.isfinite(stats.loss)
    test_stats = Collector(algorithm, envs.test_envs).collect(
        n_episode=4, reset_before_collect=True
    )
    assert test_stats.n_collected_episodes == 4 and np.all(test_stats.lens <= 30)
    for venv in (envs.training_envs, envs.test_envs):
        venv.close()


def test_envfleet_factory_passes_its_seed_and_options():
    venv = EnvfleetFactory().create_venv("Pendulum-v1", 3, EnvMode.TEST, 7, {"g": 9.81})
    try:
        assert venv.config["seed"] == (7, 8, 9) and venv.config["g"] == 9.81
    finally:
        venv.close()


def test_envfleet_factory_rejects_unknown_options_clearly():
    with pytest.raises(TypeError, match="unknown option 'bogus' for CartPole-v1"):
        EnvfleetFactory().create_venv("CartPole-v1", 2, EnvMode.TRAINING, 0, {"bogus": 1})
