"""Alignment of every MiniGrid id with minigrid 3.2.0 (minigrid_reference.py): whole episodes
of random actions, step by step and with exact equality, from several seeds, through
autoresets (next step, as Gymnasium's vector envs) and explicit re-seeded resets.

Each id runs twice: with its registered options for ``STEPS`` steps, and with a short
``max_steps`` (the env's own truncation) for many episodes per env. Both reach terminations
where random actions can (goals, lava, DynamicObstacles' collisions, Fetch's pickups...).
"""

from __future__ import annotations

import pytest
from minigrid_reference import import_minigrid, run_aligned

import envfleet
from envfleet import registry

IDS = sorted(
    tid for tid in envfleet.list_all_envs() if registry.registration(tid).family.name == "minigrid"
)
STEPS = 300


@pytest.fixture(scope="module", autouse=True)
def reference():
    return import_minigrid()


@pytest.mark.parametrize("task_id", IDS)
def test_episodes_match_minigrid(task_id):
    """The registered options: episodes end where random actions reach an end within
    STEPS (the small grids' time limits too); a re-seeded reset halfway."""
    run_aligned(task_id, seed=11, steps=STEPS, reseed_at=STEPS // 2)


@pytest.mark.parametrize("task_id", IDS)
def test_short_episodes_match_minigrid(task_id):
    """max_steps=12: about 25 episodes per env, each truncated by the env itself unless it
    terminates first; the reward scale follows max_steps."""
    counts = run_aligned(task_id, seed=5, steps=100, num_envs=4, max_steps=12)
    assert counts["truncated"] >= 4 * 5, counts
