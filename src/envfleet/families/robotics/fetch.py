"""The Fetch tasks: gymnasium-robotics 1.4.2's FetchReach, FetchPush, FetchSlide and
FetchPickAndPlace, sparse and Dense, v4 (the ``mujoco`` bindings' versions, built by the C++
env types of the same names, cpp/families/robotics/fetch.h) and v1.

v1 is the reference's mujoco-py version of the same task (same model, code and constants, on
the unmaintained mujoco-py bindings, which cannot be installed here): as in EnvPool 1.2.5, a
v1 id is its v4 task under another name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envfleet.families.robotics import ASSETS_DIR, GOAL_FUNCTIONS, ROBOTICS
from envfleet.registry import register, register_alias

TASKS = ("FetchReach", "FetchPush", "FetchSlide", "FetchPickAndPlace")
MAX_EPISODE_STEPS = 50  # gymnasium_robotics/__init__.py, every Fetch id


class FetchGoalFunctions:
    """The Fetch tasks' GoalEnv functions over batches: ``achieved_goal`` and
    ``desired_goal`` of shape (..., 3); ``info`` is not read (the reference ignores it)."""

    def __init__(self, options: Mapping[str, Any]):
        self.reward_type = options["reward_type"]
        self.distance_threshold = float(options["distance_threshold"])

    def distance(self, achieved_goal, desired_goal) -> np.ndarray:
        # fetch_env.goal_distance
        achieved_goal, desired_goal = np.asarray(achieved_goal), np.asarray(desired_goal)
        if achieved_goal.shape != desired_goal.shape:
            raise ValueError(
                f"achieved_goal and desired_goal must have the same shape, got "
                f"{achieved_goal.shape} and {desired_goal.shape}"
            )
        return np.linalg.norm(achieved_goal - desired_goal, axis=-1)

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        d = self.distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":
            return -(d > self.distance_threshold).astype(np.float32)
        return -d

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: the tasks are continuing ones (BaseRobotEnv.compute_terminated)."""
        return np.zeros(self.distance(achieved_goal, desired_goal).shape, dtype=bool)

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: only the time limit truncates (BaseRobotEnv.compute_truncated)."""
        return np.zeros(self.distance(achieved_goal, desired_goal).shape, dtype=bool)


for _task in TASKS:
    GOAL_FUNCTIONS[_task] = FetchGoalFunctions
    for _suffix, _reward_type in (("", "sparse"), ("Dense", "dense")):
        register(
            f"{_task}{_suffix}-v4",
            _task,
            MAX_EPISODE_STEPS,
            family=ROBOTICS,
            assets_dir=ASSETS_DIR,
            reward_type=_reward_type,
        )
        register_alias(f"{_task}{_suffix}-v1", f"{_task}{_suffix}-v4")
