"""envfleet.integrations.torchrl: TorchRL 0.14.1's MultiThreadedEnv over envfleet's pools
(docs/integrations/torchrl.md).

The reference is the pool itself: a TorchRL rollout, replayed action for action on a fresh
pool with the same seed, must show the same observations, rewards and done flags, across
episode ends (the pool's next-step autoreset, which TorchRL's class relies on).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tensordict import TensorDict
from torchrl.collectors import Collector
from torchrl.envs.utils import check_env_specs

import envfleet
from envfleet.integrations.torchrl import MultiThreadedEnv, MultiThreadedEnvWrapper

torch.set_num_threads(1)  # two cores, shared with the pool's workers

NUM_ENVS = 4


def replay(task_id: str, actions: np.ndarray, seed: int, **kwargs):
    """Steps a fresh pool through ``actions[:, t]`` and stacks (obs, reward, done) over t."""
    pool = envfleet.make(task_id, num_envs=actions.shape[0], seed=seed, **kwargs)
    try:
        pool.reset()
        steps = [pool.step(actions[:, t]) for t in range(actions.shape[1])]
        return (
            np.stack([s[0] for s in steps], axis=1),
            np.stack([s[1] for s in steps], axis=1),
            np.stack([s[2] | s[3] for s in steps], axis=1),
        )
    finally:
        pool.close()


@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pendulum-v1"])
def test_rollout_is_the_pools_trajectory(task_id):
    env = MultiThreadedEnv(NUM_ENVS, task_id, create_env_kwargs={"seed": 3})
    try:
        torch.manual_seed(0)
        rollout = env.rollout(300, break_when_any_done=False)
        check_env_specs(env)
    finally:
        env.close()
    assert rollout.shape == (NUM_ENVS, 300)
    obs, reward, done = replay(task_id, rollout["action"].numpy(), seed=3)
    np.testing.assert_array_equal(rollout["next", "observation"].numpy(), obs)
    np.testing.assert_array_equal(rollout["next", "reward"].numpy(), reward)
    np.testing.assert_array_equal(rollout["next", "done"].numpy(), done)
    assert rollout["next", "reward"].dtype == torch.float32  # EnvPool's conventions
    if task_id == "CartPole-v1":
        assert done.any()  # the rollout crossed episode ends


def test_dict_observations_become_tensordict_keys():
    env = MultiThreadedEnv(2, "CheetahRun-v1")
    try:
        check_env_specs(env)
        rollout = env.rollout(5, break_when_any_done=False)
    finally:
        env.close()
    assert rollout["next", "position"].shape == (2, 5, 8)
    assert rollout["next", "velocity"].shape == (2, 5, 9)


def test_collector_gathers_frames():
    env = MultiThreadedEnv(NUM_ENVS, "CartPole-v1")
    collector = Collector(env, policy=None, frames_per_batch=100, total_frames=400)
    frames = 0
    for batch in collector:
        assert batch.numel() == 100
        frames += batch.numel()
    collector.shutdown()
    assert frames == 400


def test_set_seed_rebuilds_the_pool_with_that_seed():
    env = MultiThreadedEnv(NUM_ENVS, "CartPole-v1")
    try:
        old_pool = env._env
        env.set_seed(11)
        assert old_pool.closed
        observation = env.reset()["observation"].numpy()
    finally:
        env.close()
    pool = envfleet.make("CartPole-v1", num_envs=NUM_ENVS, seed=11)
    np.testing.assert_array_equal(observation, pool.reset()[0])
    pool.close()


def test_wrapper_takes_an_existing_pool_and_follows_its_reward_dtype():
    pool = envfleet.make("CartPole-v1", num_envs=3, conventions="gymnasium")
    env = MultiThreadedEnvWrapper(pool)
    try:
        check_env_specs(env)
        assert env.rollout(10)["next", "reward"].dtype == torch.float64
    finally:
        env.close()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(num_envs=4, batch_size=2), ValueError, "sync pool"),
        (dict(num_envs=2, autoreset_mode="same_step"), ValueError, "autoreset_mode='next_step'"),
        (dict(num_envs=2, env_type="gym", legacy_api=True), TypeError, "Gymnasium front end"),
        (dict(num_envs=2, env_type="dm"), TypeError, "Gymnasium front end"),
    ],
)
def test_pools_torchrl_cannot_drive_are_refused(kwargs, error, message):
    pool = envfleet.make("CartPole-v1", **kwargs)
    with pytest.raises(error, match=message):
        MultiThreadedEnvWrapper(pool)
    pool.close()


def test_multithreaded_env_refuses_an_async_pool_and_closes_it(monkeypatch):
    made = []
    make = envfleet.make
    monkeypatch.setattr(envfleet, "make", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    with pytest.raises(ValueError, match="batch_size=2 for num_envs=4"):
        MultiThreadedEnv(4, "CartPole-v1", create_env_kwargs={"batch_size": 2})
    assert made and made[0].closed


def test_a_partial_reset_leaves_earlier_results_alone():
    env = MultiThreadedEnv(3, "CartPole-v1")
    try:
        step = env.rand_step(env.reset())
        kept = step["next", "observation"].clone()
        reset = env.reset(TensorDict({"_reset": torch.tensor([False, True, False])}, [3]))
        np.testing.assert_array_equal(step["next", "observation"].numpy(), kept.numpy())
        assert not reset["observation"][1].equal(kept[1])  # env 1 started a new episode
        np.testing.assert_array_equal(env.obs["observation"][[0, 2]].numpy(), kept[[0, 2]])
    finally:
        env.close()
