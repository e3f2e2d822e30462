"""Meta-World alignment (issue #39): every task against metaworld 3.1.1's task class, with the
same seed and actions, over whole episodes (500 steps: the time limit).

Per task: a whole episode of Meta-World's scripted expert with the goal observed (the paths
where objects are grasped, moved and placed: each expert episode must reach success, so that
the success paths are compared too), and two episodes of uniform random actions with the goal
hidden (the default), positions drawn at every reset from the seed. Observations, episode ends,
rewards and every info value must be equal, bit for bit (the same MuJoCo 4.0.0, and the
reference's NumPy arithmetic: float32 where its rewards are float32, NumPy's pow, exp and log).
Fixed task instances (``rand_vec``) are in test_metaworld_spec.py.
"""

from __future__ import annotations

import pytest
from metaworld_reference import run_aligned

from envfleet.families import metaworld as family

# The expert's policies warn that their gains exceed the action box (the actions are clipped).
pytestmark = pytest.mark.filterwarnings("ignore:Constant.*too high:UserWarning")

STEPS = 500
# The expert fails at seed 3's positions of these two (soccer's ball rolls past, the block
# misses the shelf); seed 4's it solves.
EXPERT_SEEDS = {"soccer-v3": 4, "shelf-place-v3": 4}


@pytest.mark.parametrize("task_name", family.TASK_NAMES)
def test_expert_episode_equals_reference(task_name):
    run = run_aligned(task_name, seed=EXPERT_SEEDS.get(task_name, 3), steps=STEPS,
                      partially_observable=False, actions="policy")  # fmt: skip
    assert run.mismatch is None, run.mismatch
    assert run.successes > 0, "the expert episode never succeeded: its success path is untested"


@pytest.mark.parametrize("task_name", family.TASK_NAMES)
def test_random_episodes_equal_reference(task_name):
    run = run_aligned(task_name, seed=11, steps=150, actions="random", resets=2)
    assert run.mismatch is None, run.mismatch
