"""MuJoCo task ids, as Gymnasium 1.4.0 registers them (v4 and v5).

Each id maps to a C++ env type per robot and version (``AntV5``, ...) whose options are the
keyword arguments of that version's Gymnasium constructor (tuples such as ``healthy_z_range``
become lists of floats). The XML models are Gymnasium's own: ``assets_dir`` points at the
installed ``gymnasium/envs/mujoco/assets`` folder (found without importing Gymnasium's MuJoCo
package), and ``xml_file`` resolves against it as Gymnasium resolves it.
"""

from __future__ import annotations

import importlib.util
import os

from envfleet.registry import register


def _assets_dir() -> str:
    spec = importlib.util.find_spec("gymnasium")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(spec.submodule_search_locations[0], "envs", "mujoco", "assets")


ASSETS_DIR = _assets_dir()

# (task name, max_episode_steps), as in gymnasium/envs/__init__.py.
_TASKS = [
    ("Ant", 1000),
    ("HalfCheetah", 1000),
    ("Hopper", 1000),
    ("Walker2d", 1000),
    ("Humanoid", 1000),
    ("HumanoidStandup", 1000),
    ("InvertedPendulum", 1000),
    ("InvertedDoublePendulum", 1000),
    ("Reacher", 50),
    ("Pusher", 100),
    ("Swimmer", 1000),
]

for _name, _steps in _TASKS:
    for _version in (4, 5):
        register(
            f"{_name}-v{_version}",
            f"{_name}V{_version}",
            max_episode_steps=_steps,
            assets_dir=ASSETS_DIR,
        )
