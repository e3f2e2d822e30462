"""BipedalWalker against Gymnasium 1.4.0 (pybox2d from the box2d 2.3.10 wheel), bit for bit.

Alignment (box2d_alignment.run_aligned): pools of 3 envs next to Gymnasium's sync vector env,
normal and hardcore terrain (stumps, stairs and pits drawn from np_random), with random actions
(mostly outside [-1, 1], which the env clips, plus exact bounds, zeros and signed zeros) that
make the walker fall within a few hundred steps, and Gymnasium's scripted
`BipedalWalkerHeuristics` gait with noise, which walks for hundreds of steps (lidar hits,
leg contacts) until the time limit. Episodes follow each other in one Box2D world on both sides
(the reference never rebuilds it), so later episodes also check that the world's history is
the same. Observations (lidar included), rewards (float32 arithmetic, as NumPy promotes it),
terminations and truncations must be exactly equal at every step. Frames
(box2d_alignment.run_rendered) equal Gymnasium's pixel for pixel, scrolled far along the
terrain. No tolerance anywhere (see box2d_alignment).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from box2d_alignment import run_aligned, run_rendered
from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

import envfleet

SPECIAL = np.array([-1.0, 1.0, 0.0, -0.0, 1e-30, -3.0, 2.5, 0.99999994])


def random_policy(seed: int):
    rng = np.random.default_rng(seed)

    def policy(t, obs, ref):
        action = rng.uniform(-1.5, 1.5, (len(obs), 4))
        pick = rng.random(action.shape) < 0.1
        action[pick] = rng.choice(SPECIAL, pick.sum())
        return action.astype(np.float32)

    return policy


def heuristic_policy(seed: int, num_envs: int, epsilon: float = 0.05):
    """Gymnasium's scripted gait, one per env (kept across episodes), with noise."""
    rng = np.random.default_rng(seed)
    noise = random_policy(seed + 1)
    walkers = [BipedalWalkerHeuristics() for _ in range(num_envs)]

    def policy(t, obs, ref):
        actions = [walker.step_heuristic(o).copy() for walker, o in zip(walkers, obs, strict=True)]
        actions = np.array(actions, dtype=np.float32)
        pick = rng.random(len(obs)) < epsilon
        actions[pick] = noise(t, obs, ref)[pick]
        return actions

    return policy


@pytest.mark.parametrize("seed", [0, 5])
@pytest.mark.parametrize("task_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_random_actions(task_id: str, seed: int):
    counts = run_aligned(task_id, seed, 700, random_policy(seed))
    assert counts["terminated"] >= 3, counts  # falls (reward -100)
    assert counts["reward_min"] == -100, counts


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("task_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_scripted_walks(task_id: str, seed: int):
    counts = run_aligned(task_id, seed, 900, heuristic_policy(seed, 3), max_episode_steps=300)
    assert counts["truncated"] >= 1 and counts["terminated"] >= 3, counts


def test_spaces_and_registration():
    for task_id in ("BipedalWalker-v3", "BipedalWalkerHardcore-v3"):
        ours = envfleet.make(task_id, num_envs=1, conventions="gymnasium")
        ref = gymnasium.make(task_id)
        assert ours.single_observation_space == ref.observation_space
        assert ours.single_action_space == ref.action_space
        assert ours.spec.max_episode_steps == ref.spec.max_episode_steps
        assert ours.spec.reward_threshold == ref.spec.reward_threshold
        assert ours.metadata["render_fps"] == ref.metadata["render_fps"]
        ours.close()
    hardcore = envfleet.make("BipedalWalker-v3", num_envs=1, hardcore=True, conventions="gymnasium")
    assert hardcore.spec.config.env_options["hardcore"] is True


def test_bad_options():
    with pytest.raises(TypeError, match="hardcore"):  # the list of valid names
        envfleet.make("BipedalWalker-v3", hard=True, conventions="gymnasium")
    with pytest.raises(TypeError):
        envfleet.make("BipedalWalker-v3", hardcore=1.5, conventions="gymnasium")


@pytest.mark.parametrize(
    "task_id, seed, steps, scripted",
    [
        ("BipedalWalker-v3", 0, 700, True),  # walks: the view scrolls along the terrain
        ("BipedalWalkerHardcore-v3", 3, 500, True),
        ("BipedalWalkerHardcore-v3", 4, 300, False),
    ],
)
def test_frames(task_id: str, seed: int, steps: int, scripted: bool):
    policy = heuristic_policy(seed, 1, epsilon=0.0) if scripted else random_policy(seed)
    frames = run_rendered(task_id, seed, steps, policy, episodes=2)
    assert frames >= 100
