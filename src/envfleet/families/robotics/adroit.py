"""The Adroit hand tasks: gymnasium-robotics 1.4.2's AdroitHandDoor, AdroitHandHammer,
AdroitHandPen and AdroitHandRelocate, dense and Sparse (v1), built by the C++ env types of the
same names (cpp/families/robotics/adroit*.h).

They are not goal envs: the observation is one float64 array, the info's ``success`` a bool.
The dense rewards are 1.4.2's (the reference warns that 1.2.1 changed those of Door, Hammer
and Relocate without a version bump). Options: ``reward_type`` ("dense" or "sparse", the
reference's) and ``frame_skip`` (EnvPool's; the reference fixes it at 5).
"""

from __future__ import annotations

from envfleet.families.robotics import ASSETS_DIR, ROBOTICS
from envfleet.registry import register

TASKS = ("AdroitHandDoor", "AdroitHandHammer", "AdroitHandPen", "AdroitHandRelocate")
MAX_EPISODE_STEPS = 200  # gymnasium_robotics/__init__.py, every Adroit id

for _task in TASKS:
    for _suffix, _reward_type in (("", "dense"), ("Sparse", "sparse")):
        register(
            f"{_task}{_suffix}-v1",
            _task,
            MAX_EPISODE_STEPS,
            family=ROBOTICS,
            assets_dir=ASSETS_DIR,
            reward_type=_reward_type,
        )
