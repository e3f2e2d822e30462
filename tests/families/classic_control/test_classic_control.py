"""Classic control envs against Gymnasium 1.4.0, step by step and bit for bit.

Each test runs ``envfleet.make(task_id, num_envs=4, seed=s)`` next to
``gymnasium.make_vec(task_id, num_envs=4, vectorization_mode="sync")`` reset with ``seed=s``
(env i seeded with s + i on both sides, NEXT_STEP autoreset on both sides), feeds both the
same actions and requires obs, reward, terminated and truncated to be exactly equal at every
step, across many episodes (terminations and time-limit truncations both occur). No
tolerance is needed: the ports reproduce NumPy's dtype promotions, libm calls and NumPy's
own float32 sin/cos kernel (see cpp/common/numpy/math.h).
"""

from __future__ import annotations

import inspect
import os

import gymnasium
import numpy as np
import pytest

import envfleet

NUM_ENVS = 4

# Gymnasium warns that CartPole-v0 is out of date; it is still a registered task.
pytestmark = pytest.mark.filterwarnings("ignore:.*CartPole-v0 is out of date")

TASK_IDS = [
    "CartPole-v0",
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]


# --------------------------------------------------------------------------------------------
# Policies. Random draws are pre-generated from the test's seed; where a task needs a policy
# that reaches its goal (MountainCar, Acrobot) the pre-generated draws are mixed with a simple
# feedback on the observation, which both sides share bit for bit (it is asserted equal).
# --------------------------------------------------------------------------------------------


class Policy:
    def __init__(self, task_id: str, steps: int, seed: int):
        self.task_id = task_id
        rng = np.random.default_rng(seed)
        self.coin = rng.random((steps, NUM_ENVS))
        self.discrete = rng.integers(0, 3, (steps, NUM_ENVS))
        # Continuous actions: mostly in [-3, 3] (a third to a half outside the action bounds,
        # which the envs clip themselves), plus exact bounds, zeros and tiny values.
        cont = rng.uniform(-3.0, 3.0, (steps, NUM_ENVS))
        special = np.array([-2.0, 2.0, -1.0, 1.0, 0.0, -0.0, 1e-30, -7.5, 1e6, -2.0000002])
        pick = rng.random((steps, NUM_ENVS)) < 0.1
        cont[pick] = rng.choice(special, pick.sum())
        self.continuous = cont.astype(np.float32)

    def __call__(self, t: int, obs: np.ndarray) -> np.ndarray:
        coin, rand = self.coin[t], self.discrete[t]
        if self.task_id.startswith("CartPole"):
            return (coin < 0.5).astype(np.int64)
        if self.task_id == "MountainCar-v0":
            # Push along the velocity (reaches the goal), 20% random actions.
            pump = np.where(obs[:, 1] >= 0, 2, 0)
            return np.where(coin < 0.2, rand, pump).astype(np.int64)
        if self.task_id == "Acrobot-v1":
            # Torque along the second joint's velocity (swings up), 20% random actions.
            pump = np.where(obs[:, 5] > 0, 2, 0)
            return np.where(coin < 0.2, rand, pump).astype(np.int64)
        if self.task_id == "MountainCarContinuous-v0":
            # Random magnitudes in the velocity's direction, 30% fully random.
            pump = np.abs(self.continuous[t]) * np.where(obs[:, 1] >= 0, 1, -1)
            action = np.where(coin < 0.3, self.continuous[t], pump.astype(np.float32))
            return action.astype(np.float32).reshape(NUM_ENVS, 1)
        if self.task_id == "Pendulum-v1":
            return self.continuous[t].reshape(NUM_ENVS, 1)
        raise AssertionError(self.task_id)


def make_pair(task_id: str, seed: int, **kwargs):
    ours = envfleet.make(task_id, num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **kwargs)
    # make_vec hands **kwargs to gymnasium.make for each env: env options and, like ours,
    # max_episode_steps.
    ref = gymnasium.make_vec(task_id, num_envs=NUM_ENVS, vectorization_mode="sync", **kwargs)
    return ours, ref


def run_aligned(task_id: str, seed: int, steps: int, **kwargs) -> dict[str, int]:
    """Steps both vector envs in lockstep; returns how many episodes ended and how."""
    ours, ref = make_pair(task_id, seed, **kwargs)
    try:
        obs, _ = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        assert obs.dtype == ref_obs.dtype
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"{task_id}: first reset")
        policy = Policy(task_id, steps, seed)
        counts = {"terminated": 0, "truncated": 0, "left_wall": 0}
        for t in range(steps):
            action = policy(t, ref_obs)
            obs, reward, terminated, truncated, info = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"{task_id} seed={seed} step {t}, action {action.ravel().tolist()}"
            np.testing.assert_array_equal(obs, ref_obs, err_msg=f"obs, {where}")
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            assert obs.dtype == ref_obs.dtype and reward.dtype == np.float64
            np.testing.assert_array_equal(info["env_id"], np.arange(NUM_ENVS))
            counts["terminated"] += int(terminated.sum())
            counts["truncated"] += int(truncated.sum())
            if task_id.startswith("MountainCar"):  # the car stopped by the left wall
                counts["left_wall"] += int((obs[:, 0] == np.float32(-1.2)).sum())

        # A second seeded reset re-seeds every env the same way on both sides.
        obs, _ = ours.reset(seed=seed + 1000)
        ref_obs, _ = ref.reset(seed=seed + 1000)
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"{task_id}: reseeded reset")
        return counts
    finally:
        ours.close()
        ref.close()


# task id -> (steps, max_episode_steps override or None, the fewest episodes that must have
# terminated / been truncated, so that both endings and their autoresets are exercised).
ALIGNMENT = {
    "CartPole-v0": (2000, None, 100, 0),
    "CartPole-v1": (2000, 30, 100, 20),
    "MountainCar-v0": (3000, 130, 10, 10),
    "MountainCarContinuous-v0": (3000, 120, 10, 10),
    "Pendulum-v1": (2000, None, 0, 30),
    "Acrobot-v1": (1500, 110, 10, 10),
}


@pytest.mark.parametrize("seed", [0, 123])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_seeded_alignment(task_id: str, seed: int):
    steps, max_episode_steps, min_terminated, min_truncated = ALIGNMENT[task_id]
    kwargs = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    counts = run_aligned(task_id, seed, steps, **kwargs)
    assert counts["terminated"] >= min_terminated, counts
    assert counts["truncated"] >= min_truncated, counts
    if task_id.startswith("MountainCar"):
        assert counts["left_wall"] >= 5, counts


# goal_velocity values that the policies reach in some episodes, but not in all.
GOAL_VELOCITY = {"MountainCar-v0": 0.04, "MountainCarContinuous-v0": 0.03}
SUTTON_BARTO = {"sutton_barto_reward": True}

OPTION_CASES = [
    pytest.param("CartPole-v1", SUTTON_BARTO, 1000, id="CartPole-sutton_barto"),
    pytest.param(
        "MountainCar-v0",
        {"goal_velocity": GOAL_VELOCITY["MountainCar-v0"], "max_episode_steps": 130},
        2000,
        id="MountainCar-goal_velocity",
    ),
    pytest.param(
        "MountainCarContinuous-v0",
        {"goal_velocity": GOAL_VELOCITY["MountainCarContinuous-v0"], "max_episode_steps": 130},
        2000,
        id="MountainCarContinuous-goal_velocity",
    ),
    pytest.param("Pendulum-v1", {"g": 9.81}, 1000, id="Pendulum-g"),
    pytest.param("Pendulum-v1", {"g": 3}, 600, id="Pendulum-g-int"),
]


@pytest.mark.parametrize(("task_id", "options", "steps"), OPTION_CASES)
def test_options_alignment(task_id: str, options: dict, steps: int):
    counts = run_aligned(task_id, 7, steps, **options)
    assert counts["terminated"] + counts["truncated"] > 0, counts
    if "goal_velocity" in options:
        assert counts["terminated"] > 0 and counts["truncated"] > 0, counts


def test_options_change_behaviour():
    """The option cases above are not vacuous: each option changes what the env returns."""

    def rollout(task_id, steps=1000, **options):
        env = envfleet.make(
            task_id,
            num_envs=NUM_ENVS,
            seed=7,
            max_episode_steps=130,
            **options,
            conventions="gymnasium",
        )
        policy = Policy(task_id, steps, 7)
        obs, _ = env.reset()
        rewards, terminated_count = [], 0
        for t in range(steps):
            obs, reward, terminated, _, _ = env.step(policy(t, obs))
            rewards.append(reward)
            terminated_count += int(terminated.sum())
        env.close()
        return np.concatenate(rewards), terminated_count

    cartpole, sutton_barto = rollout("CartPole-v1")[0], rollout("CartPole-v1", **SUTTON_BARTO)[0]
    assert set(np.unique(cartpole)) == {0.0, 1.0}  # 0.0: the autoreset steps
    assert set(np.unique(sutton_barto)) == {-1.0, 0.0}
    assert not np.array_equal(rollout("Pendulum-v1")[0], rollout("Pendulum-v1", g=9.81)[0])
    for task_id, goal_velocity in GOAL_VELOCITY.items():
        default = rollout(task_id)[1]
        assert 0 < rollout(task_id, goal_velocity=goal_velocity)[1] < default, task_id


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_options_match_constructor(task_id: str):
    """Every constructor argument of the Gymnasium class (but render_mode) is an option, with
    the same default; Pendulum has two more: assets_dir, where render() finds Gymnasium's arrow
    sprite: the installed gymnasium's envs/classic_control/assets
    (test_classic_control_render.py), and EnvPool's version (1; 0 is Pendulum-v0,
    test_pendulum_v0.py)."""
    entry_point = gymnasium.spec(task_id).entry_point
    module, name = entry_point.split(":")
    cls = getattr(__import__(module, fromlist=[name]), name)
    params = {
        p.name: p.default
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name not in ("self", "render_mode")
    }
    # The core's option table: name -> default, or name -> (kind, default).
    defaults = dict(envfleet.make_spec(task_id).config.env_options)
    if task_id == "Pendulum-v1":
        assert defaults.pop("assets_dir") == os.path.join(
            os.path.dirname(gymnasium.__file__), "envs", "classic_control", "assets"
        )
        assert defaults.pop("version") == 1
    if task_id == "Acrobot-v1":  # EnvPool's info["state"]: on under EnvPool's conventions
        assert defaults.pop("include_state") is True
    assert set(defaults) == set(params)
    for option, default in params.items():
        assert defaults[option] == default, option
        envfleet.make_spec(task_id, **{option: default})  # Gymnasium's default is accepted


def test_acrobot_state_info_is_envpools():
    """EnvPool 1.2.5's Acrobot info["state"]: the link angles (theta1, theta2) as float32, here
    under EnvPool's conventions (the default); Gymnasium's conventions keep its empty info."""
    seed, steps = 5, 300
    ours = envfleet.make("Acrobot-v1", num_envs=1, seed=seed)
    ref = gymnasium.make("Acrobot-v1")
    assert ours.spec.state_array_spec["info:state"].shape == [2]
    _, info = ours.reset()
    ref.reset(seed=seed)
    actions = np.random.default_rng(0).integers(0, 3, steps)
    for t in range(steps):
        want = np.asarray(ref.unwrapped.state[:2], dtype=np.float32)
        assert info["state"].dtype == np.float32
        np.testing.assert_array_equal(info["state"][0], want, err_msg=f"step {t}")
        _, _, terminated, truncated, info = ours.step(actions[t : t + 1])
        _, _, ref_terminated, ref_truncated, _ = ref.step(actions[t])
        if ref_terminated or ref_truncated:
            break
    ours.close()
    assert "state" not in envfleet.make("Acrobot-v1", conventions="gymnasium").reset()[1]
    assert "state" not in envfleet.make("Acrobot-v1", include_state=False).reset()[1]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_spaces(task_id: str):
    ours, ref = make_pair(task_id, 0)
    try:
        for attr in ("single_observation_space", "single_action_space"):
            mine, theirs = getattr(ours, attr), getattr(ref, attr)
            assert mine == theirs, (attr, mine, theirs)
            assert type(mine) is type(theirs)
            if isinstance(theirs, gymnasium.spaces.Box):
                assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
                assert mine.low.dtype == theirs.low.dtype
                np.testing.assert_array_equal(mine.low, theirs.low)
                np.testing.assert_array_equal(mine.high, theirs.high)
            else:
                assert (mine.n, mine.start) == (theirs.n, theirs.start)
        assert ours.observation_space == ref.observation_space
        assert ours.action_space == ref.action_space
    finally:
        ours.close()
        ref.close()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_default_time_limit(task_id: str):
    """The default time limit is Gymnasium's registered max_episode_steps."""
    expected = gymnasium.spec(task_id).max_episode_steps
    assert envfleet.make_spec(task_id).config.max_episode_steps == expected
