"""Toy-text ports (FrozenLake, CliffWalking, Taxi, Blackjack) against Gymnasium 1.4.0.

Every check runs an envfleet pool and ``gymnasium.make_vec(..., vectorization_mode="sync")``
side by side from the same seed (env i gets seed + i in both), feeds both the same actions and
requires identical observations, rewards, terminated/truncated flags and info values at every
step, across thousands of steps and many episodes (autoresets included: both use NEXT_STEP).

Actions are pre-drawn from a seeded generator. For Taxi and CliffWalking a uniformly random
policy almost never finishes an episode, so there they follow a noisy greedy policy (greedy
w.r.t. a value iteration on the reference's own transition table P, or a pre-drawn random
action with probability EPSILON), computed from the reference's observation, which the test
has just checked equals ours.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.toy_text.frozen_lake import generate_random_map
from gymnasium_reference import RawInfo, make_reference

import envfleet

NUM_ENVS = 4
EPSILON = 0.3

# Gymnasium 1.4.0's toy-text registrations: id -> (max_episode_steps, kwargs).
GYMNASIUM_IDS = {
    "FrozenLake-v1": (100, {"map_name": "4x4"}),
    "FrozenLake8x8-v1": (200, {"map_name": "8x8"}),
    "CliffWalking-v1": (None, {}),
    "CliffWalkingSlippery-v1": (None, {"is_slippery": True}),
    "Taxi-v4": (200, {}),
    "Blackjack-v1": (None, {"sab": True, "natural": False}),
}
GUIDED = ("Taxi", "CliffWalking")


def _greedy_table(env) -> np.ndarray:
    """Greedy action per state by value iteration on the reference's P table."""
    P = env.unwrapped.P
    n_s, n_a = len(P), len(P[0])
    entries = [(s, a, p, s2, r, t) for s in P for a in P[s] for p, s2, r, t in P[s][a]]
    s_idx, a_idx, prob, nxt, rew, term = (np.array(c) for c in zip(*entries, strict=True))
    prob = prob.astype(np.float64)
    v = np.zeros(n_s)
    for _ in range(150):
        contrib = prob * (rew + 0.95 * (1.0 - term) * v[nxt])
        q = np.zeros((n_s, n_a))
        np.add.at(q, (s_idx, a_idx), contrib)
        v = q.max(axis=1)
    return q.argmax(axis=1)


def _assert_obs_equal(step, ours, ref):
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(ref), step
        for o, r in zip(ours, ref, strict=True):
            _assert_obs_equal(step, o, r)
        return
    assert ours.dtype == ref.dtype, (step, ours.dtype, ref.dtype)
    np.testing.assert_array_equal(ours, ref, err_msg=f"obs at step {step}")


def _assert_info_equal(step, ours, ref, ref_envs):
    for key in ("prob", "action_mask"):
        if key not in ref:
            assert key not in ours, (step, key)
            continue
        raw = np.array([e.raw[key] for e in ref_envs])
        np.testing.assert_array_equal(ours[key], raw, err_msg=f"info[{key!r}] at step {step}")
        # What SyncVectorEnv batched is our value cast to its batch dtype.
        np.testing.assert_array_equal(
            ours[key].astype(ref[key].dtype), ref[key], err_msg=f"batched {key!r} at {step}"
        )
    if "prob" in ours:
        assert ours["prob"].dtype == np.float64
    if "action_mask" in ours:
        assert ours["action_mask"].dtype == np.int8 and ours["action_mask"].shape == (NUM_ENVS, 6)


def _run_aligned(task_id, seed, steps, envfleet_kwargs=None, ref=None, **kwargs):
    """Steps both side by side; returns (episodes ended, set of rewards seen, observations).

    The observations are the single-key ones of every step, shape (steps, NUM_ENVS), with -1
    on the step after an episode ended (the autoreset step), for checks on the trajectories.
    """
    ours = envfleet.make(
        task_id,
        num_envs=NUM_ENVS,
        seed=seed,
        **(envfleet_kwargs or kwargs),
        conventions="gymnasium",
    )
    ref = ref if ref is not None else make_reference(task_id, NUM_ENVS, **kwargs)
    try:
        n_a = ref.single_action_space.n
        rng = np.random.default_rng(seed + 1000)
        random_actions = rng.integers(0, n_a, size=(steps, NUM_ENVS))
        explore = rng.random((steps, NUM_ENVS)) < EPSILON
        greedy = _greedy_table(ref.envs[0]) if task_id.startswith(GUIDED) else None

        obs, info = ours.reset()
        ref_obs, ref_info = ref.reset(seed=seed)
        _assert_obs_equal("reset", obs, ref_obs)
        _assert_info_equal("reset", info, ref_info, ref.envs)
        episodes, rewards = 0, set()
        trace = np.full((steps, NUM_ENVS), -1, dtype=np.int64)
        done = np.zeros(NUM_ENVS, dtype=bool)
        for t in range(steps):
            actions = random_actions[t]
            if greedy is not None:
                actions = np.where(explore[t], actions, greedy[ref_obs]).astype(np.int64)
            obs, reward, terminated, truncated, info = ours.step(actions)
            ref_obs, ref_reward, ref_terminated, ref_truncated, ref_info = ref.step(actions)
            _assert_obs_equal(t, obs, ref_obs)
            assert reward.dtype == np.float64
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward at step {t}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=f"term. {t}")
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=f"trunc. {t}")
            _assert_info_equal(t, info, ref_info, ref.envs)
            np.testing.assert_array_equal(info["env_id"], np.arange(NUM_ENVS))
            if not isinstance(obs, tuple):
                trace[t] = np.where(done, -1, obs)
            done = terminated | truncated
            episodes += int(np.sum(done))
            rewards.update(reward.tolist())
        return episodes, rewards, trace
    finally:
        ours.close()
        ref.close()


# ---- 1. Every registered id, with its registered defaults ------------------------------------

# Minimum episodes each run must see, so a test cannot pass by never finishing one.
MIN_EPISODES = {
    "FrozenLake-v1": 300,
    "FrozenLake8x8-v1": 60,
    "CliffWalking-v1": 20,
    "CliffWalkingSlippery-v1": 10,
    "Taxi-v4": 40,
    "Blackjack-v1": 1000,
}


@pytest.mark.parametrize("seed", [0, 2024])
@pytest.mark.parametrize("task_id", sorted(GYMNASIUM_IDS))
def test_registered_id_aligned(task_id, seed):
    episodes, rewards, _ = _run_aligned(task_id, seed, steps=1500)
    assert episodes >= MIN_EPISODES[task_id], episodes
    if task_id.startswith("Taxi"):
        assert {20.0, -10.0, -1.0} <= rewards  # deliveries, illegal pickups/dropoffs, moves
    if task_id.startswith("CliffWalking"):
        assert {-100.0, -1.0} <= rewards


@pytest.mark.parametrize("task_id", sorted(GYMNASIUM_IDS))
def test_registration_matches_gymnasium(task_id):
    max_steps, kwargs = GYMNASIUM_IDS[task_id]
    ref_spec = gym.spec(task_id)
    assert ref_spec.max_episode_steps == max_steps and ref_spec.kwargs == kwargs
    spec = envfleet.make_spec(task_id)
    assert spec.config.max_episode_steps == (max_steps or 0)
    for name, value in kwargs.items():
        assert spec.config.env_options[name] == value, name


@pytest.mark.parametrize("task_id", sorted(GYMNASIUM_IDS))
def test_spaces_match_gymnasium(task_id):
    spec = envfleet.make_spec(task_id)
    ref = gym.make(task_id)
    ours = envfleet.make(task_id, num_envs=NUM_ENVS, conventions="gymnasium")
    try:
        assert spec.observation_space == ref.observation_space
        assert spec.action_space == ref.action_space
        assert ours.single_observation_space == ref.observation_space
        assert ours.single_action_space == ref.action_space
    finally:
        ours.close()
        ref.close()


# ---- 2. Options ------------------------------------------------------------------------------

CUSTOM_DESC = ["SFFHF", "FHFSF", "FFFHF", "HFFFG"]  # non-square, two start tiles

OPTION_CASES = [
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake8x8-v1", {"is_slippery": False}),
    ("FrozenLake-v1", {"map_name": "8x8"}),
    ("FrozenLake-v1", {"success_rate": 0.75}),
    ("FrozenLake8x8-v1", {"success_rate": 0.1}),
    ("FrozenLake-v1", {"desc": CUSTOM_DESC}),
    ("FrozenLake-v1", {"desc": CUSTOM_DESC, "is_slippery": False}),
    ("CliffWalking-v1", {"is_slippery": True}),
    ("CliffWalkingSlippery-v1", {"is_slippery": False}),
    ("Taxi-v4", {"is_rainy": True}),
    ("Taxi-v4", {"fickle_passenger": True}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True}),
    ("Taxi-v4", {"is_rainy": True, "rainy_probability": 0.5}),
    ("Taxi-v4", {"fickle_passenger": True, "fickle_probability": 0.9}),
    ("Blackjack-v1", {"sab": False}),
    ("Blackjack-v1", {"sab": False, "natural": True}),
    ("Blackjack-v1", {"sab": True, "natural": True}),
]


def _case_id(case):
    task_id, kwargs = case
    parts = [f"{k}={'custom' if k == 'desc' else v}" for k, v in kwargs.items()]
    return f"{task_id}[{','.join(parts)}]"


@pytest.mark.parametrize("case", OPTION_CASES, ids=[_case_id(c) for c in OPTION_CASES])
def test_option_aligned(case):
    task_id, kwargs = case
    episodes, rewards, _ = _run_aligned(task_id, seed=7, steps=1000, **kwargs)
    assert episodes >= 10, episodes
    if task_id.startswith("Blackjack") and kwargs.get("natural"):
        # The natural bonus was actually paid, and never under sab rules.
        assert (1.5 in rewards) == (not kwargs.get("sab"))


@pytest.mark.parametrize("is_rainy", [False, True])
def test_taxi_fickle_passenger_changes_destination(is_rainy):
    # A fickle passenger re-draws the destination (an extra integers() draw) on the first move
    # with the passenger aboard. The destination is obs % 4 and never changes otherwise within
    # an episode: make sure the aligned run really went through that path, many times.
    _, _, trace = _run_aligned(
        "Taxi-v4",
        seed=3,
        steps=1000,
        is_rainy=is_rainy,
        fickle_passenger=True,
        fickle_probability=1.0,
    )
    within = (trace[1:] >= 0) & (trace[:-1] >= 0)
    changes = int(np.sum(within & (trace[1:] % 4 != trace[:-1] % 4)))
    assert changes >= 20, changes


def test_frozen_lake_reward_schedule():
    # Gymnasium takes a tuple of numbers (goal, hole, frozen).
    episodes, rewards, _ = _run_aligned(
        "FrozenLake-v1", seed=11, steps=1000, reward_schedule=(2.5, -1.0, -0.125)
    )
    assert {2.5, -1.0, -0.125} <= rewards and episodes >= 100


def test_frozen_lake_random_map():
    # Gymnasium makes a random 8x8 map when desc and map_name are both None, from
    # generate_random_map() with seed=None (OS entropy). Ours is reproducible: env i's map is
    # generate_random_map(size=8, p=0.8, seed=<env i's seed>), bit for bit.
    seed = 5

    def env_fn(i):
        desc = generate_random_map(seed=seed + i)
        return lambda: RawInfo(gym.make("FrozenLake-v1", desc=desc))

    ref = gym.vector.SyncVectorEnv([env_fn(i) for i in range(NUM_ENVS)])
    episodes, _, _ = _run_aligned(
        "FrozenLake-v1", seed=seed, steps=1000, envfleet_kwargs={"map_name": None}, ref=ref
    )
    assert episodes >= 50


def test_frozen_lake_bad_map_name():
    with pytest.raises(ValueError, match="map_name"):
        envfleet.make("FrozenLake-v1", map_name="5x5", conventions="gymnasium")
