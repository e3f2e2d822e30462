"""Gymnasium-Robotics task ids (gymnasium-robotics 1.4.2), built by envfleet._robotics: the ids
EnvPool 1.2.5 lists for the family, one module per robot (fetch, hand, maze, adroit, kitchen)
stating its ids, time limits and options.

The models are gymnasium-robotics' own: ``assets_dir`` points at the installed
``gymnasium_robotics/envs/assets`` folder (found without importing the package), and each env
type's ``xml_file`` resolves against it. Goal envs (Fetch, Shadow Hand, PointMaze) also state
their batched ``compute_reward`` / ``compute_terminated`` / ``compute_truncated``
(``GOAL_FUNCTIONS``), which a pool's spec offers (:class:`envfleet.spec.GoalEnvSpec`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from envfleet.families._assets import package_dir
from envfleet.registry import Family, register_goal_functions

# envfleet._robotics links the MuJoCo family's libmujoco.so.4.0.0 and reads its models from the
# installed gymnasium-robotics (envfleet[robotics]).
ROBOTICS = Family(
    "robotics",
    module="envfleet._robotics",
    extra="robotics",
    requires=("mujoco", "gymnasium_robotics"),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.robotics",
)

ASSETS_DIR = package_dir("gymnasium_robotics", "envs", "assets")


class GoalFunctions:
    """Registers a goal env type's batched goal functions (GoalEnvSpec) the dict way the
    robots' modules write it: ``GOAL_FUNCTIONS[env_type] = cls``, ``cls(env_options)`` having
    compute_reward, compute_terminated and compute_truncated over batches."""

    def __setitem__(self, env_type: str, factory: Callable[[Mapping[str, Any]], Any]) -> None:
        register_goal_functions(env_type, factory)


GOAL_FUNCTIONS = GoalFunctions()

ROBOTS = ("fetch", "hand", "maze", "adroit", "kitchen")

for _robot in ROBOTS:
    importlib.import_module(f"{__name__}.{_robot}")
