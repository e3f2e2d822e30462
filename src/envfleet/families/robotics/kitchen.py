"""Franka Kitchen: gymnasium-robotics 1.4.2's FrankaKitchen-v1, built by the C++ env type
FrankaKitchen (cpp/families/robotics/kitchen.h).

The observation is the reference's nested dict: ``observation`` (59 values), and
``achieved_goal`` and ``desired_goal``, dicts of the goal's tasks (in the order of the
``tasks_to_complete`` option). The reference's info holds lists of task names; here, as in
EnvPool, ``tasks_to_complete``, ``step_task_completions`` and ``episode_task_completions`` are
int32 masks over the seven tasks in :data:`TASKS` order, 1 for a task in the list.

Options (the reference's): ``tasks_to_complete`` (a list of task names), ``terminate_on_tasks_
completed``, ``remove_task_when_completed``, ``robot_noise_ratio``, ``object_noise_ratio`` and
``frame_skip`` (the reference's checks that round(1 / dt) is its render_fps, 12).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envfleet.families.robotics import ASSETS_DIR, GOAL_FUNCTIONS, ROBOTICS
from envfleet.registry import register

# KitchenEnv's tasks, in its OBS_ELEMENT_GOALS order: the order of the info masks.
TASKS = (
    "bottom burner",
    "top burner",
    "light switch",
    "slide cabinet",
    "hinge cabinet",
    "microwave",
    "kettle",
)
BONUS_THRESH = 0.3  # kitchen_env.BONUS_THRESH
MAX_EPISODE_STEPS = 280  # gymnasium_robotics/__init__.py


def task_mask(names) -> np.ndarray:
    """The info mask (int32, one entry per task of TASKS) of a reference info list of names."""
    mask = np.zeros(len(TASKS), np.int32)
    for name in names:
        mask[TASKS.index(name)] = 1
    return mask


class KitchenGoalFunctions:
    """FrankaKitchen's GoalEnv functions over batches. ``achieved_goal`` and ``desired_goal``
    are dicts of the goal's tasks, each of shape (..., task size), as the observation holds
    them; ``info`` is the step's info (its masks of shape (..., 7)) or None.

    compute_reward is KitchenEnv.compute_reward's count of the pending tasks within
    BONUS_THRESH of their goal, as a float64. The reference reads the pending tasks from the
    env's state (before the step removes the completed ones); here they are the info's:
    ``tasks_to_complete | step_task_completions`` (the step's completions are what it
    removed), every goal task where ``info`` is None (an episode's start). The reference has
    no compute_terminated or compute_truncated (GoalEnv's raise NotImplementedError): these
    return what its step returns, termination once every goal task has been completed in the
    episode (with terminate_on_tasks_completed) and never a truncation (its time limit's).
    """

    def __init__(self, options: Mapping[str, Any]):
        self.tasks = list(dict.fromkeys(options["tasks_to_complete"]))
        self.terminate_on_tasks_completed = bool(options["terminate_on_tasks_completed"])
        self._goal_mask = task_mask(self.tasks).astype(bool)

    def _completed(self, achieved_goal, desired_goal) -> np.ndarray:
        """Which tasks (mask of shape (..., 7)) are within BONUS_THRESH of their goal."""
        columns = []
        for task in TASKS:
            if task not in self.tasks:
                columns.append(None)
                continue
            diff = np.asarray(achieved_goal[task], np.float64) - np.asarray(
                desired_goal[task], np.float64
            )
            # np.linalg.norm of each pair is sqrt(diff.dot(diff)), BLAS's ddot; a stacked
            # matmul of (1, n) by (n, 1) makes that very call per pair (norm(axis=-1) sums
            # the squares in another order where the ddot kernel fuses its multiply-adds).
            dot = np.matmul(diff[..., None, :], diff[..., :, None])[..., 0, 0]
            columns.append(np.sqrt(dot) < BONUS_THRESH)
        shape = next(c.shape for c in columns if c is not None)
        return np.stack([np.zeros(shape, bool) if c is None else c for c in columns], axis=-1)

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        completed = self._completed(achieved_goal, desired_goal)
        if info is None:
            pending = self._goal_mask
        else:
            pending = (
                np.asarray(info["tasks_to_complete"]) | np.asarray(info["step_task_completions"])
            ).astype(bool)
        return np.sum(completed & pending, axis=-1).astype(np.float64)

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        if info is None:
            raise ValueError("FrankaKitchen's termination reads info['episode_task_completions']")
        episode = np.asarray(info["episode_task_completions"]).astype(bool)
        done = np.all(episode | ~self._goal_mask, axis=-1)
        return done & self.terminate_on_tasks_completed

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        shape = self._completed(achieved_goal, desired_goal).shape[:-1]
        return np.zeros(shape, dtype=bool)


GOAL_FUNCTIONS["FrankaKitchen"] = KitchenGoalFunctions

register(
    "FrankaKitchen-v1",
    "FrankaKitchen",
    MAX_EPISODE_STEPS,
    family=ROBOTICS,
    assets_dir=ASSETS_DIR,
)
