"""Alignment of every MiniGrid id with minigrid 3.2.0 (minigrid_reference.py): whole episodes
of random actions, step by step and with exact equality, from several seeds, through
autoresets (next step, as Gymnasium's vector envs) and explicit re-seeded resets.

Each id runs twice: with its registered options for ``STEPS`` steps, and with a short
``max_steps`` (the env's own truncation) for many episodes per env. Both reach terminations
where random actions can (goals, lava, DynamicObstacles' collisions, Fetch's pickups...).
"""

from __future__ import annotations

import pytest
from minigrid_reference import curious, forward_shy, import_minigrid, run_aligned

import envfleet
from envfleet import registry

IDS = sorted(
    tid for tid in envfleet.list_all_envs() if registry.registration(tid).family.name == "minigrid"
)
STEPS = 300

# minigrid's ObstructedMaze v0 ids warn that v1 exists.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")


@pytest.fixture(scope="module", autouse=True)
def reference():
    return import_minigrid()


@pytest.mark.parametrize("task_id", IDS)
def test_episodes_match_minigrid(task_id):
    """The registered options: episodes end where random actions reach an end within
    STEPS (the small grids' time limits too); a re-seeded reset halfway."""
    run_aligned(task_id, seed=11, steps=STEPS, reseed_at=STEPS // 2)


@pytest.mark.parametrize("task_id", IDS)
def test_curious_episodes_match_minigrid(task_id):
    """Actions that use what is in front (pick up, toggle, drop, done: minigrid_reference's
    ``curious``), so that doors open and unlock, boxes open and rewarded ends are reached."""
    counts = run_aligned(task_id, seed=23, steps=STEPS, num_envs=3, policy=curious)
    print(task_id, counts)


@pytest.mark.parametrize("task_id", IDS)
def test_short_episodes_match_minigrid(task_id):
    """max_steps=12: at least 7 episodes per env, each truncated by the env itself unless it
    terminates first; the reward scale follows max_steps. Fewer steps forward here, so that
    episodes reach their time limit where forward steps end them (DynamicObstacles)."""
    counts = run_aligned(task_id, 5, steps=100, num_envs=4, policy=forward_shy, max_steps=12)
    assert counts["episodes"] >= 4 * 7 and counts["truncated"] > 0, counts
