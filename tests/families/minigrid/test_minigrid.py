"""Alignment of every MiniGrid id with minigrid 3.2.0 (minigrid_reference.py): whole episodes,
step by step and with exact equality, from several seeds, through autoresets (next step, as
Gymnasium's vector envs) and explicit re-seeded resets.

Each id runs four times: forward-biased random actions for ``STEPS`` steps with a re-seeded
reset halfway; a "curious" policy that uses what is in front (pickups, toggles, drops, done);
a goal-directed planner that reaches the rewarded ends needing keys, boxes and object
identity; and a short ``max_steps`` (the env's own truncation) for many episodes per env. The
default run takes the last three on one id per env type (sampling.py), the others ``extended``.
"""

from __future__ import annotations

import pytest
from minigrid_reference import curious, forward_shy, goal_directed, import_minigrid, run_aligned
from sampling import first_of_each

import envfleet
from envfleet import registry

# BabyAI's levels, in the same family, have tests of their own (test_babyai.py).
IDS = sorted(
    tid
    for tid in envfleet.list_all_envs()
    if registry.registration(tid).family.name == "minigrid" and not tid.startswith("BabyAI-")
)
STEPS = 300
WFC_STEPS = 100  # the MiniGrid-WFC-* ids' (is_wfc says why)

# minigrid's ObstructedMaze v0 ids warn that v1 exists.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")


@pytest.fixture(scope="module", autouse=True)
def reference():
    return import_minigrid()


@pytest.mark.parametrize("task_id", IDS)
def test_episodes_match_minigrid(task_id):
    """The registered options: episodes end where random actions reach an end within
    STEPS (the small grids' time limits too); a re-seeded reset halfway."""
    steps = WFC_STEPS if is_wfc(task_id) else STEPS  # is_wfc says why
    run_aligned(task_id, seed=11, steps=steps, reseed_at=steps // 2)


@pytest.mark.parametrize("task_id", first_of_each(IDS))  # an id per env type: sampling.py
def test_curious_episodes_match_minigrid(task_id):
    """Actions that use what is in front (pick up, toggle, drop, done: minigrid_reference's
    ``curious``), so that doors open and unlock, boxes open and rewarded ends are reached."""
    steps, num_envs = (WFC_STEPS, 1) if is_wfc(task_id) else (STEPS, 2)  # is_wfc says why
    counts = run_aligned(task_id, seed=23, steps=steps, num_envs=num_envs, policy=curious)
    print(task_id, counts)


# Ids whose rewarded end the goal-directed policy does not reach in these runs: the room
# grids of 1x1 rooms (KeyCorridorS3), the mazes with every obstacle at once, PutNear's and
# GoToDoor-5x5's `done`/drop tasks, a Memory run that picks the wrong end, Playground (no
# reward), and Dynamic-Obstacles where the balls get in the way. (curious reaches PutNear's
# and GoToDoor's.)
NOT_REWARDED = {
    "MiniGrid-Dynamic-Obstacles-6x6-v0",
    "MiniGrid-Dynamic-Obstacles-16x16-v0",
    "MiniGrid-GoToDoor-5x5-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-KeyCorridorS3R2-v0",
    "MiniGrid-KeyCorridorS3R3-v0",
    "MiniGrid-MemoryS9-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-ObstructedMaze-1Q-v0",
    "MiniGrid-ObstructedMaze-1Q-v1",
    "MiniGrid-ObstructedMaze-2Q-v0",
    "MiniGrid-ObstructedMaze-2Q-v1",
    "MiniGrid-ObstructedMaze-Full-v0",
    "MiniGrid-ObstructedMaze-Full-v1",
    "MiniGrid-Playground-v0",
    "MiniGrid-PutNear-6x6-N2-v0",
    "MiniGrid-PutNear-8x8-N3-v0",
}


def is_wfc(task_id: str) -> bool:
    """The tests here run the MiniGrid-WFC-* ids on fewer envs and steps. Each new episode's
    level is made by the reference's Python WFC, seconds a level for ObstaclesAngular: at the
    other ids' sizes these ids took nine minutes of CI. Their levels themselves are compared,
    over many seeds and sizes, by test_minigrid_wfc.py."""
    return task_id.startswith("MiniGrid-WFC-")


@pytest.mark.parametrize("task_id", first_of_each(IDS))  # an id per env type: sampling.py
def test_goal_directed_episodes_match_minigrid(task_id):
    """A planner reading minigrid's state (minigrid_reference's ``goal_directed``): it clears
    blocking balls, opens boxes and doors, carries keys to their doors and picks up the env's
    own object, so the rewarded ends that depend on object identity (KeyCorridor, the Unlock*
    envs, ObstructedMaze) and on unlocking (DoorKey, LockedRoom) are reached and compared."""
    # The planner ends a WFC episode within tens of steps: one env over 100 steps still
    # reaches several goals (is_wfc says why).
    steps, num_envs = (WFC_STEPS, 1) if is_wfc(task_id) else (400, 3)
    counts = run_aligned(task_id, seed=41, steps=steps, num_envs=num_envs, policy=goal_directed)
    assert (counts["successes"] > 0) != (task_id in NOT_REWARDED), counts


@pytest.mark.parametrize("task_id", first_of_each(IDS))  # an id per env type: sampling.py
def test_short_episodes_match_minigrid(task_id):
    """max_steps=12: at least 7 episodes per env, each truncated by the env itself unless it
    terminates first; the reward scale follows max_steps. Fewer steps forward here, so that
    episodes reach their time limit where forward steps end them (DynamicObstacles)."""
    # WFC: one env for 40 steps, at least 3 episodes (is_wfc says why).
    steps, num_envs, episodes = (40, 1, 3) if is_wfc(task_id) else (100, 2, 2 * 7)
    counts = run_aligned(
        task_id, 5, steps=steps, num_envs=num_envs, policy=forward_shy, max_steps=12
    )
    assert counts["episodes"] >= episodes and counts["truncated"] > 0, counts
