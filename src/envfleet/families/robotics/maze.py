"""The PointMaze tasks: gymnasium-robotics 1.4.2's PointMaze v3 ids, sparse and Dense, for
each of its mazes (maps.py), built by the C++ env type ``PointMaze``
(cpp/families/robotics/point_maze.h).

The maze is the ``maze_map`` option: the name of a map of maps.py, as EnvPool 1.2.5 takes it
(``"U_MAZE"``, ``"MEDIUM_MAZE_DIVERSE_GR"``, ...), or a map of one's own as rows of cells
separated by ``/`` or newlines (``"111/1g1/1r1/111"`` for the reference's
``[[1, 1, 1], [1, "g", 1], [1, "r", 1], [1, 1, 1]]``). ``maze_size_scaling``, ``maze_height``,
``position_noise_range`` and ``frame_skip`` (EnvPool's options) are what PointMazeEnv fixes at
1, 0.4, 0.25 and 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envfleet.families.robotics import ASSETS_DIR, GOAL_FUNCTIONS, ROBOTICS
from envfleet.registry import register

# task -> (maze_map, max_episode_steps), as gymnasium_robotics/__init__.py registers them.
TASKS = {
    "PointMaze_UMaze": ("U_MAZE", 300),
    "PointMaze_Open": ("OPEN", 300),
    "PointMaze_Open_Diverse_G": ("OPEN_DIVERSE_G", 300),
    "PointMaze_Open_Diverse_GR": ("OPEN_DIVERSE_GR", 300),
    "PointMaze_Medium": ("MEDIUM_MAZE", 600),
    "PointMaze_Medium_Diverse_G": ("MEDIUM_MAZE_DIVERSE_G", 600),
    "PointMaze_Medium_Diverse_GR": ("MEDIUM_MAZE_DIVERSE_GR", 600),
    "PointMaze_Large": ("LARGE_MAZE", 800),
    "PointMaze_Large_Diverse_G": ("LARGE_MAZE_DIVERSE_G", 800),
    "PointMaze_Large_Diverse_GR": ("LARGE_MAZE_DIVERSE_GR", 800),
}

# The distance within which the ball has reached the goal (maze_v4.MazeEnv).
GOAL_RADIUS = 0.45


class PointMazeGoalFunctions:
    """MazeEnv's GoalEnv functions over batches: ``achieved_goal`` and ``desired_goal`` of
    shape (..., 2); ``info`` is not read (the reference ignores it)."""

    def __init__(self, options: Mapping[str, Any]):
        self.reward_type = options["reward_type"]
        self.continuing_task = bool(options["continuing_task"])

    @staticmethod
    def _difference(achieved_goal, desired_goal) -> np.ndarray:
        achieved_goal = np.asarray(achieved_goal, dtype=np.float64)
        desired_goal = np.asarray(desired_goal, dtype=np.float64)
        if achieved_goal.shape != desired_goal.shape or achieved_goal.shape[-1:] != (2,):
            raise ValueError(
                f"achieved_goal and desired_goal must have the same shape (..., 2), got "
                f"{achieved_goal.shape} and {desired_goal.shape}"
            )
        return achieved_goal - desired_goal

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        distance = np.linalg.norm(self._difference(achieved_goal, desired_goal), axis=-1)
        if self.reward_type == "dense":
            return np.exp(-distance)
        return (distance <= GOAL_RADIUS).astype(np.float64)

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """An episodic task (continuing_task=False) ends at the goal; a continuing one never."""
        diff = self._difference(achieved_goal, desired_goal)
        if self.continuing_task:
            return np.zeros(diff.shape[:-1], dtype=bool)
        # The reference's np.linalg.norm(a - b) (no axis) is sqrt(diff.dot(diff)), BLAS's
        # ddot, whose rounding can differ from the axis form's sum: matmul takes the same ddot
        # for each pair (a 1x2 by 2x1 product).
        squares = np.matmul(diff[..., None, :], diff[..., :, None])[..., 0, 0]
        return np.sqrt(squares) <= GOAL_RADIUS

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: only the time limit truncates (MazeEnv.compute_truncated)."""
        return np.zeros(self._difference(achieved_goal, desired_goal).shape[:-1], dtype=bool)


GOAL_FUNCTIONS["PointMaze"] = PointMazeGoalFunctions

for _task, (_maze_map, _steps) in TASKS.items():
    for _suffix, _reward_type in (("", "sparse"), ("Dense", "dense")):
        register(
            f"{_task}{_suffix}-v3",
            "PointMaze",
            _steps,
            family=ROBOTICS,
            assets_dir=ASSETS_DIR,
            maze_map=_maze_map,
            reward_type=_reward_type,
        )
