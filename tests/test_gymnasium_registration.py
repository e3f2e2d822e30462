"""envfleet's ids in Gymnasium's registry (src/envfleet/gymnasium_registration.py):
``gymnasium.make_vec("envfleet/<id>")`` gives a pool with Gymnasium's VectorEnv conventions."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers import vector as vw

import envfleet
from envfleet import registry


def test_every_id_is_registered_with_gymnasium():
    # Aliases with a "/" of their own are not (Gymnasium's ids take one namespace); other ids
    # with one (Meta-World's) are, their "/" made a "-".
    ids = {
        f"envfleet/{task_id.replace('/', '-')}"
        for task_id in envfleet.list_all_envs()
        if "/" not in task_id or registry.registration(task_id).alias_of is None
    }
    assert ids <= set(gymnasium.registry)
    assert "envfleet/phys2d/CartPole-v1" not in gymnasium.registry
    assert "envfleet/phys2d-CartPole-v1" not in gymnasium.registry
    assert "envfleet/MetaWorld-PickPlace-v3" in gymnasium.registry
    spec = gymnasium.spec("envfleet/CartPole-v1")
    assert spec.max_episode_steps == 500 and spec.reward_threshold == 475.0


def test_make_vec_takes_an_id_with_a_slash_by_its_gymnasium_id():
    env = gymnasium.make_vec("envfleet/MetaWorld-Reach-v3", num_envs=2)
    try:
        assert env.spec.id == "envfleet/MetaWorld-Reach-v3" and env.spec.max_episode_steps == 500
        assert env.config.task_id == "MetaWorld/Reach-v3"
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2, 39)
    finally:
        env.close()


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
def test_make_vec_gives_a_pool_with_gymnasiums_conventions(mode):
    env = gymnasium.make_vec("envfleet/CartPole-v1", num_envs=3, vectorization_mode=mode)
    try:
        assert isinstance(env, envfleet.GymnasiumVectorEnvPool) and isinstance(env, VectorEnv)
        assert env.config.conventions == "gymnasium"
        assert env.observation_space == batch_space(env.single_observation_space, 3)
        # Gymnasium's EnvSpec of the call, as make_vec gives its own vector envs.
        assert env.spec.id == "envfleet/CartPole-v1" and env.spec.max_episode_steps == 500
        obs, _ = env.reset(seed=0)
        assert obs.shape == (3, 4)
        _, rew, *_ = env.step(env.action_space.sample())
        assert rew.dtype == np.float64
    finally:
        env.close()


def test_make_vec_passes_options_and_works_under_vector_wrappers():
    env = vw.RecordEpisodeStatistics(
        gymnasium.make_vec("envfleet/Counting-v0", num_envs=2, episode_length=3, seed=5)
    )
    try:
        env.reset()
        for _ in range(3):
            *_, info = env.step(np.array([1, 2]))
        assert info["_episode"].tolist() == [True, True]
        assert info["episode"]["r"].tolist() == [3.0, 6.0]
        assert env.unwrapped.config.seed == (5, 6)
    finally:
        env.close()


def test_an_async_pool_is_refused_at_construction():
    with pytest.raises(ValueError, match="batch_size"):
        gymnasium.make_vec("envfleet/CartPole-v1", num_envs=4, batch_size=2)


def test_make_vec_refuses_envpools_conventions():
    with pytest.raises(ValueError, match="envfleet.make"):
        gymnasium.make_vec("envfleet/CartPole-v1", num_envs=2, conventions="envpool")


def test_gymnasium_make_of_one_env_points_to_make_vec():
    with pytest.raises(gymnasium.error.Error, match="make_vec"):
        gymnasium.make("envfleet/CartPole-v1")


def test_new_registrations_reach_gymnasium():
    task_id = "CountingShortRegistrationTest-v9"
    envfleet.register(task_id, "Counting", max_episode_steps=4, episode_length=10)
    try:
        env = gymnasium.make_vec(f"envfleet/{task_id}", num_envs=1)
        env.reset()
        truncated = [env.step(np.zeros(1, np.int64))[3][0] for _ in range(4)]
        assert truncated == [False, False, False, True]
        env.close()
    finally:  # leave the registries as they were for the other tests
        registry._registry.pop(task_id, None)
        gymnasium.registry.pop(f"envfleet/{task_id}", None)
