"""The dm_env front end (src/envfleet/dm.py): batched ``dm_env.TimeStep``s and specs."""

from __future__ import annotations

import functools

import dm_env
import numpy as np
import pytest
from dm_env import StepType, specs

import envfleet


@pytest.fixture
def dm_counting(counting):
    """conftest.py's ``counting`` behind the dm_env front end."""
    return functools.partial(counting, env_type="dm")


def test_is_a_dm_env_environment(dm_counting):
    env = dm_counting(num_envs=2)
    assert isinstance(env, dm_env.Environment)
    assert env.num_envs == 2


def test_timestep_fields_and_step_types(dm_counting):
    n = 2
    env = dm_counting(num_envs=n, episode_length=3)
    ts = env.reset()
    assert isinstance(ts, dm_env.TimeStep)
    assert ts.step_type.tolist() == [StepType.FIRST] * n
    assert ts.reward.tolist() == [0.0] * n
    assert ts.discount.tolist() == [1.0] * n
    assert ts.observation.obs.tolist() == [[0, 1]] * n
    assert ts.observation.env_id.tolist() == list(range(n))

    for t, action in zip([1, 2], [4, 6], strict=True):
        ts = env.step(np.full(n, action))
        assert ts.step_type.tolist() == [StepType.MID] * n
        assert ts.reward.tolist() == [float(action)] * n
        assert ts.discount.tolist() == [1.0] * n
        assert ts.observation.obs.tolist() == [[t, 1]] * n

    ts = env.step(np.full(n, 9))  # terminates
    assert ts.step_type.tolist() == [StepType.LAST] * n
    assert ts.reward.tolist() == [9.0] * n
    assert ts.discount.tolist() == [0.0] * n, "termination: discount 0"
    assert ts.observation.obs.tolist() == [[3, 1]] * n

    ts = env.step(np.full(n, 5))  # NEXT_STEP autoreset
    assert ts.step_type.tolist() == [StepType.FIRST] * n
    assert ts.reward.tolist() == [0.0] * n
    assert ts.discount.tolist() == [1.0] * n
    assert ts.observation.obs.tolist() == [[0, 2]] * n

    ts = env.step(np.full(n, 5))
    assert ts.step_type.tolist() == [StepType.MID] * n


@pytest.mark.parametrize(
    ("episode_length", "discount"),
    [(10, 1.0), (2, 0.0)],
    ids=["truncation-discount-1", "termination-discount-0"],
)
def test_last_step_at_the_time_limit(dm_counting, episode_length, discount):
    """A truncation has discount 1 (the dm_env convention), a termination on the same step 0."""
    env = dm_counting(num_envs=1, episode_length=episode_length, max_episode_steps=2)
    env.reset()
    env.step(np.array([1]))
    ts = env.step(np.array([1]))
    assert ts.step_type.tolist() == [StepType.LAST]
    assert ts.discount.tolist() == [discount]
    ts = env.step(np.array([1]))
    assert ts.step_type.tolist() == [StepType.FIRST]


def test_mixed_step_types_in_one_batch(dm_counting):
    env = dm_counting(num_envs=3, episode_length=2)
    env.reset()
    env.step(np.array([1]), env_id=[0])  # env 0 runs one step ahead
    ts = env.step(np.array([1, 1, 1]))
    assert ts.step_type.tolist() == [StepType.LAST, StepType.MID, StepType.MID]
    assert ts.discount.tolist() == [0.0, 1.0, 1.0]
    ts = env.step(np.array([1, 1, 1]))
    assert ts.step_type.tolist() == [StepType.FIRST, StepType.LAST, StepType.LAST]


def test_autoreset_that_continues_the_clock_is_first(dm_counting):
    # Counting-v0 with continue_episodes: the autoreset after a termination keeps elapsed_step
    # running (as Atari's episodic_life does); the dm step type is still FIRST, as after any LAST.
    env = dm_counting(num_envs=2, episode_length=2, continue_episodes=True)
    assert env.reset().step_type.tolist() == [StepType.FIRST] * 2
    env.step(np.array([1]), env_id=[0])  # env 0 runs one step ahead
    ts = env.step(np.array([1, 1]))
    assert ts.step_type.tolist() == [StepType.LAST, StepType.MID]
    assert ts.discount.tolist() == [0.0, 1.0]
    ts = env.step(np.array([1, 1]))
    assert ts.step_type.tolist() == [StepType.FIRST, StepType.LAST]
    assert ts.observation.obs.tolist() == [[0, 2], [2, 1]]
    ts = env.step(np.array([1, 1]))
    assert ts.step_type.tolist() == [StepType.MID, StepType.FIRST]
    assert ts.observation.obs.tolist() == [[1, 2], [0, 2]]
    ts = env.step(np.array([1, 1]))
    assert ts.step_type.tolist() == [StepType.LAST, StepType.MID]
    ts = env.reset(env_id=[0])  # an explicit reset right after a LAST: FIRST once
    assert ts.step_type.tolist() == [StepType.FIRST]
    ts = env.step(np.array([1, 1]))
    assert ts.step_type.tolist() == [StepType.MID, StepType.LAST]


def test_same_step_autoreset_has_no_first_after_last(dm_counting):
    env = dm_counting(
        num_envs=1, episode_length=2, continue_episodes=True, autoreset_mode="same_step"
    )
    env.reset()
    env.step(np.array([1]))
    assert env.step(np.array([1])).step_type.tolist() == [StepType.LAST]
    assert env.step(np.array([1])).step_type.tolist() == [StepType.MID]


@pytest.mark.parametrize("episodic_life", [False, True])
def test_atari_zero_discount_on_life_loss(episodic_life):
    """The discount comes from the env's info["discount"]: 0 on a life loss, also where the
    episode goes on (step type MID without episodic_life), as in EnvPool's dm_env API."""
    if "Breakout-v5" not in envfleet.list_all_envs():
        pytest.skip("the Atari family is not built")
    kinds = set()
    for zero in (False, True):
        env = envfleet.make_dm(
            "Breakout-v5", seed=3, episodic_life=episodic_life, zero_discount_on_life_loss=zero
        )
        try:
            ts = env.reset()
            losses = 0
            for _ in range(200):
                lives = ts.observation.lives[0]
                ts = env.step(np.ones(1, np.int64))  # FIRE: launches the ball after a loss
                step_type, discount = ts.step_type[0], ts.discount[0]
                if step_type == StepType.FIRST:
                    assert discount == 1.0
                    continue
                lost = ts.observation.lives[0] < lives
                losses += lost
                ended = step_type == StepType.LAST
                assert ended == (episodic_life and lost or bool(ts.observation.terminated[0]))
                assert discount == (0.0 if ended or (zero and lost) else 1.0)
                kinds.add((int(step_type), float(discount)))
            assert losses >= 5
        finally:
            env.close()
    if not episodic_life:
        assert (int(StepType.MID), 0.0) in kinds


def test_observation_namedtuple_holds_obs_info_and_env_id():
    env = envfleet.make_dm("Taxi-v3", num_envs=2)
    try:
        ts = env.reset()
        fields = ts.observation._fields
        assert fields[0] == "obs"
        assert "env_id" in fields
        for key in env.spec.info_keys:
            assert key.name in fields
        assert ts.observation.env_id.tolist() == [0, 1]
    finally:
        env.close()


def test_partial_step_observation_env_id(dm_counting):
    env = dm_counting(num_envs=4)
    env.reset()
    ts = env.step(np.array([1, 2]), env_id=[3, 0])
    assert ts.observation.env_id.tolist() == [3, 0]
    assert ts.reward.tolist() == [1.0, 2.0]


def _leaves(tree):
    """The arrays (or specs) of a namedtuple observation, EnvPool's nested ``players``
    included, in field order."""
    for value in tree:
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            yield from _leaves(value)
        else:
            yield value


@pytest.mark.parametrize("task_id", ["Counting-v0", "CartPole-v1", "Taxi-v3", "Blackjack-v1"])
@pytest.mark.parametrize("conventions", ["envpool", "dm_env"])
def test_specs_validate_returned_values(task_id, conventions):
    if task_id not in envfleet.list_all_envs():
        pytest.skip(f"{task_id} is not built")
    n = 3
    env = envfleet.make_dm(task_id, num_envs=n, conventions=conventions)
    try:
        obs_spec = env.observation_spec()
        act_spec = env.action_spec()
        assert all(isinstance(s, specs.Array) for s in _leaves(obs_spec))
        assert isinstance(act_spec, specs.Array)
        assert obs_spec._fields == env.reset().observation._fields
        assert ("players" in obs_spec._fields) == (conventions == "envpool")
        rng = np.random.default_rng(0)
        ts = env.reset()
        for _ in range(40):
            assert ts.reward.dtype == env.reward_spec().dtype
            assert ts.discount.dtype == env.discount_spec().dtype
            for value, spec in zip(_leaves(ts.observation), _leaves(obs_spec), strict=True):
                for i in range(n):
                    spec.validate(value[i])
            for i in range(n):
                env.reward_spec().validate(ts.reward[i])
                env.discount_spec().validate(ts.discount[i])
            actions = np.stack([act_spec.generate_value() for _ in range(n)])
            if isinstance(act_spec, specs.DiscreteArray):
                actions = rng.integers(0, act_spec.num_values, n).astype(act_spec.dtype)
            for a in actions:
                act_spec.validate(a)
            ts = env.step(actions)
    finally:
        env.close()


def test_specs_reject_values_outside_them(dm_counting):
    env = dm_counting(num_envs=1, episode_length=3)
    act_spec = env.action_spec()
    with pytest.raises(ValueError):
        act_spec.validate(np.int64(10))
    obs_spec = env.observation_spec().obs
    with pytest.raises(ValueError):
        obs_spec.validate(np.array([4, 1], np.int64))  # more steps than episode_length
