"""EnvPool 1.2.5's conventions, the default of every entry point (src/envfleet/spec.py's
Conventions): what code written for EnvPool observes, pinned here one behaviour at a time.
Gymnasium's VectorEnv conventions are tested in test_gymnasium_env.py, the registration with
Gymnasium in test_gymnasium_registration.py."""

from __future__ import annotations

import contextlib
import warnings

import dm_env
import gymnasium
import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers import vector as vw

import envfleet


@pytest.fixture
def pools():
    """``pools(task_id, **kwargs)`` makes a pool that is closed after the test."""
    with contextlib.ExitStack() as stack:
        yield lambda task_id, **kwargs: stack.enter_context(
            contextlib.closing(envfleet.make(task_id, **kwargs))
        )


@pytest.mark.parametrize("make", [envfleet.make, envfleet.make_gymnasium, envfleet.make_gym])
def test_spaces_are_one_envs_and_the_pool_is_an_env_not_a_vector_env(make):
    env = make("CartPole-v1", num_envs=4)
    try:
        spec = envfleet.make_spec("CartPole-v1")
        assert env.observation_space == spec.observation_space
        assert env.observation_space.shape == (4,)
        assert env.action_space == gymnasium.spaces.Discrete(2)
        assert env.single_observation_space == env.observation_space
        assert env.single_action_space == env.action_space
        assert env.num_envs == len(env) == 4 and env.is_vector_env
        # A gymnasium.Env, not a VectorEnv: its spaces are one env's (see
        # tests/test_gymnasium_vector_wrappers.py for what Gymnasium's vector wrappers say).
        assert isinstance(env, gymnasium.Env) and not isinstance(env, VectorEnv)
        # gymnasium.Wrapper subclasses take it (the pattern of CleanRL's EnvPool scripts)
        wrapped = gymnasium.Wrapper(env)
        obs, info = wrapped.reset()
        assert obs.shape == (4, 4)
    finally:
        env.close()


def test_gymnasium_vector_wrappers_refuse_one_envs_spaces(pools):
    with pytest.raises(TypeError, match='conventions="gymnasium"'):
        vw.RecordEpisodeStatistics(pools("CartPole-v1", num_envs=4))


def test_results_follow_envpool(pools):
    env = pools("CartPole-v1", num_envs=3)
    obs, info = env.reset()
    assert obs.dtype == np.float32
    assert set(info) == {"env_id", "elapsed_step", "players"}
    np.testing.assert_array_equal(info["players"]["env_id"], info["env_id"])
    assert info["players"]["env_id"].dtype == np.int32
    obs, rew, term, trunc, info = env.step(np.zeros(3, np.int64))
    assert rew.dtype == np.float32 and rew.tolist() == [1.0] * 3
    assert term.dtype == trunc.dtype == np.bool_


def test_rewards_are_the_references_rounded_to_float32(pools):
    # The same pool under Gymnasium's conventions returns the reference envs' own float64
    # rewards; EnvPool's conventions hand out those values as float32.
    kwargs = dict(num_envs=2, seed=3)
    ours = pools("Pendulum-v1", **kwargs)
    exact = pools("Pendulum-v1", conventions="gymnasium", **kwargs)
    ours.reset()
    exact.reset()
    for t in range(20):
        action = np.full((2, 1), np.sin(t), np.float32)
        _, rew32, *_ = ours.step(action)
        _, rew64, *_ = exact.step(action)
        assert rew32.dtype == np.float32 and rew64.dtype == np.float64
        np.testing.assert_array_equal(rew32, rew64.astype(np.float32))


@pytest.mark.parametrize(
    "action", [np.array([0.7, 1.2, 0.0]), [0.2, 1.9, 1.0], np.array([0, 1, 0], np.float32)]
)
def test_float_actions_for_a_discrete_space_are_cast_as_envpool_casts_them(pools, action):
    # EnvPool: action.astype(int) (toward zero); Tianshou's random policies send floats.
    env = pools("Counting-v0", num_envs=3)
    env.reset()
    _, rew, *_ = env.step(action)
    np.testing.assert_array_equal(rew, np.trunc(np.asarray(action, np.float64)))


def test_config_is_envpools_dict_and_a_namespace(pools):
    env = pools("CartPole-v1", num_envs=3, batch_size=2, num_threads=1)
    config = env.config
    assert config is env.spec.config
    assert config["num_envs"] == config.num_envs == 3
    assert config["batch_size"] == 2 and config["num_threads"] == 1
    assert config["max_episode_steps"] == 500
    assert config["reward_threshold"] == 475.0
    assert config["max_num_players"] == 1 and config["gym_reset_return_info"] is True
    as_dict = dict(config)
    assert as_dict["num_envs"] == 3 and "env_options" not in as_dict
    assert config.get("no_such_key", "default") == "default"
    with pytest.raises(KeyError):
        config["env_options"]
    atari = envfleet.make_spec("Pong-v5") if "Pong-v5" in envfleet.list_all_envs() else None
    if atari is not None:  # env options are entries too (EnvPool's config lists them)
        assert atari.config["frame_skip"] == atari.config.frame_skip == 4


def test_envpool_options_are_accepted(pools):
    env = pools(
        "CartPole-v1",
        num_envs=2,
        gym_reset_return_info=True,
        max_num_players=1,
        render_mode="rgb_array",
    )
    env.reset()
    assert env.render().shape == (1, 400, 600, 3)  # EnvPool's: render_env_id's frame
    with pytest.raises(ValueError, match="legacy_api"):
        envfleet.make("CartPole-v1", gym_reset_return_info=False)
    with pytest.raises(ValueError, match="max_num_players"):
        envfleet.make("CartPole-v1", max_num_players=0)


def test_reset_seed_reseeds_as_gymnasium_does(pools):
    # EnvPool ignores reset(seed=) with a warning; envfleet applies it.
    for make in (envfleet.make_gym, envfleet.make_gymnasium):
        env = make("CartPole-v1", num_envs=2)
        try:
            a, _ = env.reset(seed=7)
            a = a.copy()
            env.step(np.ones(2, np.int64))
            b, _ = env.reset(seed=7)
            np.testing.assert_array_equal(a, b)
            c, _ = env.reset(seed=8)
            assert not np.array_equal(a, c)
        finally:
            env.close()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_seed_warns_as_envpool_does_and_reseeds_the_next_reset(pools, env_type):
    env = pools("CartPole-v1", env_type=env_type, num_envs=2, seed=0)
    twin = pools("CartPole-v1", env_type=env_type, num_envs=2, seed=5)
    with pytest.warns(UserWarning, match="reset"):
        env.seed(5)
    with pytest.warns(UserWarning, match="does nothing"):
        env.seed()
    first = env.reset()
    want = twin.reset()
    if env_type == "dm":
        first, want = first.observation.obs, want.observation.obs
    else:
        first, want = first[0], want[0]
    np.testing.assert_array_equal(first, want)


def test_dm_front_end_follows_envpool(pools):
    env = pools("CartPole-v1", env_type="dm", num_envs=2)
    ts = env.reset()
    assert ts.reward.dtype == np.float32 and ts.discount.dtype == np.float32
    assert ts.observation.players.env_id.tolist() == [0, 1]
    ts = env.step(np.ones(2))  # a float action, cast
    assert ts.reward.dtype == np.float32 and ts.discount.dtype == np.float32
    assert env.reward_spec().dtype == env.discount_spec().dtype == np.float32
    assert isinstance(env.observation_spec().players.env_id, dm_env.specs.Array)
    exact = pools("CartPole-v1", env_type="dm", num_envs=2, conventions="dm_env")
    ts = exact.step(np.ones(2, np.int64))
    assert ts.reward.dtype == np.float64 and ts.discount.dtype == np.float64
    assert "players" not in ts.observation._fields


def test_dm_image_spec_has_scalar_bounds():
    if "Pong-v5" not in envfleet.list_all_envs():
        pytest.skip("the Atari family is not registered")
    spec = envfleet.make_spec("Pong-v5").observation_spec().obs
    assert isinstance(spec, dm_env.specs.BoundedArray)
    assert spec.minimum.shape == spec.maximum.shape == ()
    assert spec.maximum == 255 and spec.shape == (4, 84, 84)


def test_spec_attributes_follow_envpool():
    spec = envfleet.make_spec("CartPole-v1")
    assert spec.reward_threshold == 475.0 and spec.id == "CartPole-v1"
    actions = spec.action_array_spec
    assert list(actions) == ["env_id", "players.env_id", "action"]
    assert actions["action"].shape == [-1] and actions["action"].maximum + 1 == 2
    states = spec.state_array_spec
    assert states["obs"].shape == [4] and states["obs"].dtype == np.float32
    assert states["reward"].dtype == np.float32 and states["reward"].shape == [-1]
    assert {"info:env_id", "info:players.env_id", "elapsed_step", "done", "trunc"} <= set(states)
    box = envfleet.make_spec("Pendulum-v1").action_array_spec["action"]
    assert box.shape == [-1, 1] and box.minimum == -2.0 and box.maximum == 2.0


def test_envpools_public_names_come_first_in_its_order():
    envpool_all = [
        "register",
        "make",
        "make_dm",
        "make_gym",
        "make_gymnasium",
        "make_spec",
        "list_all_envs",
        "EnvSpec",
        "EnvPool",
        "DMEnvPool",
        "GymnasiumEnvPool",
    ]
    assert envfleet.__all__[: len(envpool_all)] == envpool_all
    assert all(hasattr(envfleet, name) for name in envfleet.__all__)
    spec = envfleet.make_spec("CartPole-v1")
    assert spec.gymnasium_observation_space == spec.observation_space
    assert spec.gymnasium_action_space == spec.action_space


def test_async_pool_follows_envpools_send_recv(pools):
    env = pools("Counting-v0", num_envs=4, batch_size=2, num_threads=2)
    assert env.is_async and not isinstance(env, VectorEnv)
    env.async_reset()
    obs, info = env.recv(reset=True)
    assert obs.shape == (2, 2) and info["env_id"].shape == (2,)
    env.send(np.ones(2), info["env_id"])  # float actions, cast
    obs, rew, term, trunc, info = env.recv()
    assert rew.dtype == np.float32 and obs.shape == (2, 2)


def test_legacy_api_is_never_a_vector_env(pools):
    env = pools("CartPole-v1", env_type="gym", num_envs=2, legacy_api=True)
    assert isinstance(env, envfleet.GymEnvPool) and not isinstance(env, VectorEnv)
    assert env.reset().shape == (2, 4)
    obs, rew, done, info = env.step(np.zeros(2, np.int64))
    assert rew.dtype == np.float32 and "TimeLimit.truncated" in info


@pytest.mark.parametrize(
    "env_type,conventions",
    [("gymnasium", "dm_env"), ("dm", "gymnasium"), ("gym", "gymnasium"), ("gym", "dm_env")],
)
def test_conventions_that_do_not_fit_the_front_end_are_refused(env_type, conventions):
    with pytest.raises(ValueError, match="conventions"):
        envfleet.make("CartPole-v1", env_type=env_type, conventions=conventions)


def test_unknown_conventions_are_refused():
    with pytest.raises(ValueError, match="conventions must be one of"):
        envfleet.make_spec("CartPole-v1", conventions="torch")


def test_gymnasium_conventions_batch_the_spaces(pools):
    env = pools("CartPole-v1", num_envs=3, conventions="gymnasium")
    assert env.observation_space == batch_space(env.single_observation_space, 3)
    obs, info = env.reset()
    assert "players" not in info
    _, rew, *_ = env.step(env.action_space.sample())
    assert rew.dtype == np.float64


def test_no_warning_on_the_hot_path(pools):
    env = pools("CartPole-v1", num_envs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1)
        env.step(np.zeros(2, np.int64))
