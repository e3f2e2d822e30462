"""The registry (src/envfleet/registry.py, make.py): make, make_spec, list_all_envs, register."""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

import envfleet
from envfleet import registry

ALL_ENVS = envfleet.list_all_envs()


def test_list_all_envs_is_sorted_and_includes_the_basics():
    assert ALL_ENVS == sorted(ALL_ENVS)
    assert len(set(ALL_ENVS)) == len(ALL_ENVS)
    for task in ("CartPole-v1", "Counting-v0"):
        assert task in ALL_ENVS


# Every id making, stepping and matching its spec on every front end: tests/contract/.


def test_unknown_task_id_lists_valid_ids():
    with pytest.raises(ValueError) as excinfo:
        envfleet.make("NoSuchTask-v0")
    msg = str(excinfo.value)
    assert "NoSuchTask-v0" in msg
    for task in ALL_ENVS:
        assert task in msg


def test_near_miss_task_id_suggests_the_right_one():
    with pytest.raises(ValueError, match="CartPole-v1"):
        envfleet.make_spec("CartPole-v2")


@pytest.mark.parametrize("task_id", [None, 3, b"CartPole-v1"])
def test_non_string_task_id(task_id):
    with pytest.raises((TypeError, ValueError), match="task_id"):
        envfleet.make(task_id)


def test_unknown_option_lists_valid_options():
    with pytest.raises(TypeError) as excinfo:
        envfleet.make("Counting-v0", episod_length=3)
    msg = str(excinfo.value)
    assert "episod_length" in msg
    for valid in ("episode_length", "fail_at_step", "num_envs", "batch_size", "seed"):
        assert valid in msg


def test_unknown_option_of_a_task_without_options():
    with pytest.raises(TypeError, match="frameskip"):
        envfleet.make("CartPole-v1", frameskip=4)


@pytest.mark.parametrize(
    "task_id,options",
    [
        ("Counting-v0", {"episode_length": "3"}),
        ("Counting-v0", {"episode_length": 3.5}),
        ("Counting-v0", {"episode_length": True}),
        ("Counting-v0", {"episode_length": None}),
        ("CliffWalkingSlippery-v1", {"is_slippery": 1}),
        ("CliffWalkingSlippery-v1", {"is_slippery": "yes"}),
        ("FrozenLake-v1", {"map_name": 4}),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else v,
)
def test_wrong_option_types_raise_type_error(task_id, options):
    (name,) = options
    with pytest.raises(TypeError, match=name):
        envfleet.make(task_id, **options)


def test_option_values_of_the_right_kind_are_accepted():
    env = envfleet.make("Counting-v0", episode_length=np.int32(2))
    try:
        env.reset()
        env.step(np.array([0]))
        _, _, term, _, _ = env.step(np.array([0]))
        assert term.tolist() == [True]
    finally:
        env.close()


@pytest.fixture
def scratch_ids():
    """Task ids registered by a test; removed from the registry afterwards."""
    ids = []
    yield ids
    for task_id in ids:
        registry._registry.pop(task_id, None)
        gymnasium.registry.pop(f"envfleet/{task_id}", None)
    in_use = {reg.env_type for reg in registry._registry.values()}
    for env_type in set(registry._family_of_type) - in_use:
        del registry._family_of_type[env_type]


def test_register_a_new_id_with_options(scratch_ids):
    task_id = f"CountingTest{os.getpid()}-v3"
    scratch_ids.append(task_id)
    envfleet.register(task_id, "Counting", max_episode_steps=4, episode_length=2)
    assert task_id in envfleet.list_all_envs()
    spec = envfleet.make_spec(task_id)
    assert spec.config.max_episode_steps == 4
    assert spec.config.episode_length == 2
    env = envfleet.make(task_id, num_envs=1)
    try:
        env.reset()
        env.step(np.array([1]))
        _, _, term, trunc, _ = env.step(np.array([1]))
        assert term.tolist() == [True] and trunc.tolist() == [False]
    finally:
        env.close()
    # make's keywords override the registered defaults
    env = envfleet.make(task_id, num_envs=1, episode_length=10)
    try:
        env.reset()
        for _ in range(3):
            _, _, term, trunc, _ = env.step(np.array([1]))
        assert env.spec.config.episode_length == 10
        assert not term[0]
        _, _, term, trunc, _ = env.step(np.array([1]))
        assert trunc.tolist() == [True] and term.tolist() == [False]
    finally:
        env.close()


def test_register_rejects_unknown_options(scratch_ids):
    task_id = f"CountingBad{os.getpid()}-v0"
    scratch_ids.append(task_id)
    with pytest.raises(TypeError, match="no_such_option"):
        envfleet.register(task_id, "Counting", no_such_option=1)
    assert task_id not in envfleet.list_all_envs()


def test_register_rejects_a_bad_task_id():
    with pytest.raises(TypeError, match="task_id"):
        envfleet.register("", "Counting")


def test_id_of_a_missing_engine_is_listed_and_making_it_names_the_extra(scratch_ids):
    from envfleet.registry import Family

    task_id = f"MissingEngine{os.getpid()}-v0"
    scratch_ids.append(task_id)
    family = Family("nowhere", module="envfleet._no_such_engine", extra="nowhere")
    envfleet.register(task_id, "NoSuchEngineType", family=family, some_option=1)
    assert task_id in envfleet.list_all_envs()
    for call in (envfleet.make, envfleet.make_spec):
        with pytest.raises(envfleet.EngineNotInstalledError, match=r"envfleet\[nowhere\]"):
            call(task_id)
    # An ImportError, so `except ImportError` guards written for optional engines work.
    assert issubclass(envfleet.EngineNotInstalledError, ImportError)


def test_id_of_a_missing_required_package_names_the_extra(scratch_ids):
    from envfleet.registry import Family

    task_id = f"MissingPackage{os.getpid()}-v0"
    scratch_ids.append(task_id)
    family = Family("roms", extra="roms", requires=("no_such_package_for_envfleet",))
    envfleet.register(task_id, "Counting", family=family)
    with pytest.raises(envfleet.EngineNotInstalledError, match="no_such_package_for_envfleet"):
        envfleet.make(task_id)


def test_id_of_a_type_the_module_lacks_cannot_be_made(scratch_ids):
    task_id = f"NoType{os.getpid()}-v0"
    scratch_ids.append(task_id)
    envfleet.register(task_id, "NoSuchCoreType")
    with pytest.raises(ValueError, match="NoSuchCoreType"):
        envfleet.make(task_id)


def test_register_finds_the_family_of_a_known_type(scratch_ids):
    from envfleet.registry import registration

    task_id = f"MyPong{os.getpid()}-v5"
    scratch_ids.append(task_id)
    envfleet.register(task_id, "Atari", game="pong")
    assert registration(task_id).family.module == "envfleet._atari"


def test_registration_states_time_limits_and_thresholds():
    spec = envfleet.make_spec("CartPole-v1")
    assert spec.config.max_episode_steps == 500 and spec.reward_threshold == 475.0
    assert spec.max_episode_steps == 500  # Gymnasium's EnvSpec names
    spec = envfleet.make_spec("Pendulum-v1")
    assert spec.config.max_episode_steps == 200 and spec.reward_threshold is None
    # No time limit registered: none at all (the C++ spec states no limit of its own).
    spec = envfleet.make_spec("CliffWalking-v1")
    assert spec.config.max_episode_steps == 0 and spec.max_episode_steps is None


def test_make_spec_config_fields():
    spec = envfleet.make_spec("CartPole-v1", num_envs=4, batch_size=2, seed=3)
    c = spec.config
    assert c.task_id == "CartPole-v1"
    assert c.num_envs == 4
    assert c.batch_size == 2
    assert c.num_threads == min(2, os.cpu_count() or 1)
    assert c.seed == (3, 4, 5, 6)
    assert c.max_episode_steps == 500
    assert c.thread_affinity_offset == -1
    assert c.autoreset_mode is envfleet.AutoresetMode.NEXT_STEP
    assert isinstance(spec.observation_space, gymnasium.spaces.Box)
    assert spec.observation_space.shape == (4,)
    assert spec.observation_space.dtype == np.float32
    assert spec.action_space == gymnasium.spaces.Discrete(2)
    d = c._asdict()
    assert d["num_envs"] == 4 and d["seed"] == (3, 4, 5, 6)


def test_make_spec_defaults():
    c = envfleet.make_spec("CartPole-v0").config
    assert c.num_envs == 1 and c.batch_size == 1 and c.num_threads == 1
    assert c.seed == (42,)
    assert c.max_episode_steps == 200


def test_make_spec_env_options_are_config_attributes():
    spec = envfleet.make_spec("Counting-v0", episode_length=7, max_episode_steps=3)
    assert spec.config.episode_length == 7
    assert spec.config.env_options["episode_length"] == 7
    assert spec.config.max_episode_steps == 3
    assert spec.observation_space.high.tolist()[0] == 7
    with pytest.raises(AttributeError):
        spec.config.no_such_field  # noqa: B018


def test_make_spec_config_includes_default_env_options():
    # EnvPool's spec.config holds every option, defaults included.
    c = envfleet.make_spec("Counting-v0").config
    assert c.episode_length == 5
    assert c.fail_at_step == -1


def test_make_spec_of_an_options_task_keeps_registered_defaults():
    c = envfleet.make_spec("FrozenLake8x8-v1").config
    assert c.map_name == "8x8"
    assert c.max_episode_steps == 200


def test_make_variants_return_their_front_ends():
    for make, kwargs, cls in [
        (envfleet.make_gymnasium, {}, envfleet.GymnasiumEnvPool),
        (envfleet.make_gymnasium, {"conventions": "gymnasium"}, envfleet.GymnasiumVectorEnvPool),
        (envfleet.make_gym, {}, envfleet.GymnasiumEnvPool),  # as in EnvPool 1.2.5
        (envfleet.make_gym, {"legacy_api": True}, envfleet.GymEnvPool),
        (envfleet.make_dm, {}, envfleet.DmEnvPool),
    ]:
        env = make("Counting-v0", num_envs=2, **kwargs)
        try:
            assert isinstance(env, cls)
            assert env.spec.config.num_envs == 2
        finally:
            env.close()
    env = envfleet.make("Counting-v0")
    try:
        assert isinstance(env, envfleet.GymnasiumEnvPool)
    finally:
        env.close()


def test_unknown_env_type():
    with pytest.raises(ValueError, match="env_type"):
        envfleet.make("Counting-v0", env_type="torch")


def test_legacy_api_is_gym_only():
    with pytest.raises(ValueError, match="legacy_api"):
        envfleet.make("Counting-v0", env_type="dm", legacy_api=True)


def test_envpool_drop_in_names():
    import envfleet as envpool

    for name in (
        "make",
        "make_gym",
        "make_dm",
        "make_gymnasium",
        "make_spec",
        "list_all_envs",
        "register",
    ):
        assert callable(getattr(envpool, name)), name
        assert name in envpool.__all__
