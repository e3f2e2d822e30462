"""What the Gymnasium-Robotics family's robots share: frame stacking of state observations
(EnvPool's ``frame_stack`` option, which EnvPool's own robotics tests exercise), goal specs, and
the family's ids against EnvPool's list."""

from __future__ import annotations

import envpool
import numpy as np
import pytest
from envpool.registration import registry as envpool_registry
from gymnasium import spaces

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.spec import GoalEnvSpec

STACKED = ["FetchReach-v4", "PointMaze_UMaze-v3", "FrankaKitchen-v1", "AdroitHandDoor-v1"]


def _leaves(obs) -> list:
    """The arrays of an observation (or the Boxes of a space), nested dicts flattened."""
    if isinstance(obs, spaces.Dict):
        obs = obs.spaces
    if isinstance(obs, dict):
        return [leaf for value in obs.values() for leaf in _leaves(value)]
    return [obs]


@pytest.mark.parametrize("task_id", STACKED)
def test_frame_stack_stacks_every_observation_array(task_id):
    """frame_stack=k: each observation array (goals and nested dicts included) holds the
    last k of the unstacked env's, oldest first; a reset fills the stack with its own."""
    k, steps = 3, 6
    plain = envfleet.make(task_id, num_envs=2, seed=5, conventions="gymnasium")
    stacked = envfleet.make(task_id, num_envs=2, seed=5, conventions="gymnasium", frame_stack=k)
    try:
        pairs = zip(
            _leaves(plain.single_observation_space),
            _leaves(stacked.single_observation_space),
            strict=True,
        )
        for one, many in pairs:
            assert many.shape == (k, *one.shape)
        history = [_leaves(plain.reset()[0])]
        got = _leaves(stacked.reset()[0])
        for a, b in zip(got, history[0], strict=True):
            assert all(np.array_equal(a[:, j], b) for j in range(k))
        rng = np.random.default_rng(0)
        for _ in range(steps):
            action = rng.uniform(-1, 1, (2, *plain.single_action_space.shape))
            action = action.astype(plain.single_action_space.dtype)
            obs, reward, *_ = plain.step(action)
            got, stacked_reward, *_ = stacked.step(action)
            np.testing.assert_array_equal(stacked_reward, reward)
            history.append(_leaves(obs))
            window = (history[:1] * k + history)[-k:]  # the reset's fills the older frames
            for key, array in enumerate(_leaves(got)):
                for j in range(k):
                    np.testing.assert_array_equal(array[:, j], window[j][key])
    finally:
        plain.close()
        stacked.close()


@pytest.mark.parametrize("value", [0, -1, 65])
def test_frame_stack_out_of_range_raises(value):
    with pytest.raises(ValueError, match="frame_stack"):
        envfleet.make("FetchPush-v4", frame_stack=value)


def test_goal_envs_have_goal_specs():
    """Fetch, the Shadow Hand, PointMaze and FrankaKitchen are GoalEnvs; Adroit is not."""
    ours = [tid for tid in envfleet.list_all_envs() if _family(tid) == "robotics"]
    for task_id in ours:
        goal = not task_id.startswith("Adroit")
        assert isinstance(envfleet.make_spec(task_id), GoalEnvSpec) == goal, task_id


def test_ids_are_envpools():
    theirs = {
        tid
        for tid in envpool.list_all_envs()
        if envpool_registry.specs[tid][0] == "envpool.mujoco.robotics"
    }
    ours = {tid for tid in envfleet.list_all_envs() if _family(tid) == "robotics"}
    assert len(theirs) == 157
    assert ours == theirs


def _family(task_id: str) -> str:
    return envfleet.registry.registration(task_id).family.name
