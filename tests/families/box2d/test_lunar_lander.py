"""LunarLander against Gymnasium 1.4.0 (pybox2d from the box2d 2.3.10 wheel), bit for bit.

Alignment (box2d_alignment.run_aligned): pools of 3 envs next to Gymnasium's sync vector env,
over many whole episodes (crashes, flights off the screen, landings that put the lander to sleep,
time-limit truncations), with random actions (continuous ones mostly outside [-1, 1], which the
env clips, plus exact bounds and the 0.5 thresholds of the side engines) and Gymnasium's own
scripted `heuristic` lander; with wind and turbulence, and other gravities. Observations,
rewards, terminations and truncations must be exactly equal at every step. Frames
(box2d_alignment.run_rendered): every frame of scripted landings equals Gymnasium's, pixel for
pixel, engine particles included. No tolerance anywhere (see box2d_alignment).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from box2d_alignment import run_aligned, run_rendered
from gymnasium.envs.box2d.lunar_lander import heuristic

import envfleet

# Gymnasium warns about wind_power / turbulence_power outside their recommended range.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SPECIAL_CONTINUOUS = np.array([-1.0, 1.0, 0.0, -0.0, 0.5, -0.5, 0.50000006, -2.0, 3.0, 1e-30])


def random_policy(continuous: bool, seed: int):
    rng = np.random.default_rng(seed)

    def policy(t, obs, ref):
        n = len(obs)
        if not continuous:
            return rng.integers(0, 4, n)
        action = rng.uniform(-2.0, 2.0, (n, 2))
        pick = rng.random((n, 2)) < 0.1
        action[pick] = rng.choice(SPECIAL_CONTINUOUS, pick.sum())
        return action.astype(np.float32)

    return policy


def heuristic_policy(continuous: bool, seed: int, epsilon: float = 0.1):
    """Gymnasium's scripted lander (it lands, and the lander falls asleep), with some noise."""
    rng = np.random.default_rng(seed)
    noise = random_policy(continuous, seed + 1)

    class Flag:  # heuristic() reads env.unwrapped.continuous only
        unwrapped = type("U", (), {"continuous": continuous})

    def policy(t, obs, ref):
        scripted = np.array([heuristic(Flag, o) for o in obs])
        if continuous:
            scripted = scripted.astype(np.float32)
        explore = noise(t, obs, ref)
        pick = rng.random(len(obs)) < epsilon
        scripted[pick] = explore[pick]
        return scripted

    return policy


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("task_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_random_actions(task_id: str, seed: int):
    continuous = "Continuous" in task_id
    counts = run_aligned(task_id, seed, 600, random_policy(continuous, seed))
    assert counts["terminated"] >= 6, counts  # crashes and flights off the screen
    assert counts["reward_min"] == -100, counts


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("task_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_scripted_landings(task_id: str, seed: int):
    continuous = "Continuous" in task_id
    counts = run_aligned(
        task_id, seed, 900, heuristic_policy(continuous, seed), max_episode_steps=400
    )
    # Landed landers fall asleep (+100); slower descents hit the time limit.
    assert counts["reward_max"] == 100, counts
    assert counts["terminated"] + counts["truncated"] >= 4, counts


@pytest.mark.parametrize(
    "options",
    [
        {"enable_wind": True},
        {"enable_wind": True, "wind_power": 20.0, "turbulence_power": 2.0, "continuous": True},
        {"enable_wind": True, "wind_power": 25.0, "turbulence_power": 0.0},  # warned, accepted
        {"gravity": -3.5},
        {"gravity": -11.99, "enable_wind": True, "continuous": True},
    ],
)
def test_options(options: dict):
    continuous = options.get("continuous", False)
    counts = run_aligned(
        "LunarLander-v3",
        3,
        500,
        heuristic_policy(continuous, 3, epsilon=0.3),
        max_episode_steps=250,
        **options,
    )
    assert counts["terminated"] + counts["truncated"] >= 3, counts


def test_v2_ids_run_the_v3_dynamics():
    """EnvPool's v2 ids are Gymnasium's v3 envs under another name."""
    for ours_id, ref_id in [
        ("LunarLander-v2", "LunarLander-v3"),
        ("LunarLanderContinuous-v2", "LunarLanderContinuous-v3"),
    ]:
        a = envfleet.make(ours_id, num_envs=2, seed=5, conventions="gymnasium")
        b = envfleet.make(ref_id, num_envs=2, seed=5, conventions="gymnasium")
        np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
        action = np.stack([b.single_action_space.sample()] * 2)
        for _ in range(50):
            np.testing.assert_array_equal(a.step(action)[0], b.step(action)[0])
        assert a.spec.max_episode_steps == b.spec.max_episode_steps == 1000


def test_spaces_and_registration():
    for task_id in ("LunarLander-v3", "LunarLanderContinuous-v3"):
        ours = envfleet.make(task_id, num_envs=1, conventions="gymnasium")
        ref = gymnasium.make(task_id)
        assert ours.single_observation_space == ref.observation_space
        assert ours.single_action_space == ref.action_space
        assert ours.spec.max_episode_steps == ref.spec.max_episode_steps
        assert ours.spec.reward_threshold == ref.spec.reward_threshold
        assert ours.metadata["render_fps"] == ref.metadata["render_fps"]
        ours.close()


@pytest.mark.parametrize("gravity", [-12.0, 0.0, 1.0, -20.0])
def test_gravity_out_of_range(gravity: float):
    # Gymnasium asserts -12 < gravity < 0 with this message.
    with pytest.raises(AssertionError, match="must be between -12 and 0"):
        gymnasium.make("LunarLander-v3", gravity=gravity)
    with pytest.raises(ValueError, match="must be between -12 and 0"):
        envfleet.make("LunarLander-v3", gravity=gravity, conventions="gymnasium")


def test_bad_options():
    with pytest.raises(TypeError, match="turbulence_power"):  # the list of valid names
        envfleet.make("LunarLander-v3", wind=True, conventions="gymnasium")
    with pytest.raises(TypeError):
        envfleet.make("LunarLander-v3", continuous="yes", conventions="gymnasium")


@pytest.mark.parametrize(
    "task_id, seed, options",
    [
        ("LunarLander-v3", 0, {}),
        ("LunarLanderContinuous-v3", 1, {}),
        ("LunarLander-v3", 4, {"enable_wind": True, "gravity": -8.0}),
    ],
)
def test_frames(task_id: str, seed: int, options: dict):
    continuous = "Continuous" in task_id
    frames = run_rendered(
        task_id, seed, 1000, heuristic_policy(continuous, seed, 0.2), episodes=2, **options
    )
    assert frames >= 150
