"""MuJoCo task ids, as Gymnasium 1.4.0 registers them (v4 and v5), and EnvPool 1.2.5's v2 and v3
ids of gym 0.23.1's MuJoCo tasks, built by envfleet._mujoco.

Each id maps to a C++ env type per robot and version (``AntV5``, ...) whose options are the
keyword arguments of that version's Gymnasium constructor (tuples such as ``healthy_z_range``
become lists of floats). The XML models are Gymnasium's own: ``assets_dir`` points at the
installed ``gymnasium/envs/mujoco/assets`` folder (found without importing Gymnasium's MuJoCo
package), and ``xml_file`` resolves against it as Gymnasium resolves it.
"""

from __future__ import annotations

from envfleet.families._assets import package_dir
from envfleet.registry import Family, register, register_alias

# envfleet._mujoco links libmujoco.so.4.0.0 from the mujoco-core wheel (envfleet[mujoco]).
MUJOCO = Family(
    "mujoco",
    module="envfleet._mujoco",
    extra="mujoco",
    requires=("mujoco",),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.gym",
)


ASSETS_DIR = package_dir("gymnasium", "envs", "mujoco", "assets")

# robot: (max_episode_steps, reward_threshold), as in gymnasium/envs/__init__.py (the same for
# v4 and v5). The C++ env type of <robot>-v<n> is "<robot>V<n>" (cpp/families/mujoco/).
ROBOTS = {
    "Ant": (1000, 6000.0),
    "HalfCheetah": (1000, 4800.0),
    "Hopper": (1000, 3800.0),
    "Walker2d": (1000, None),
    "Humanoid": (1000, None),
    "HumanoidStandup": (1000, None),
    "InvertedPendulum": (1000, 950.0),
    "InvertedDoublePendulum": (1000, 9100.0),
    "Reacher": (50, -3.75),
    "Pusher": (100, 0.0),
    "Swimmer": (1000, 360.0),
}
VERSIONS = (4, 5)

for _robot, (_steps, _threshold) in ROBOTS.items():
    for _version in VERSIONS:
        register(
            f"{_robot}-v{_version}",
            f"{_robot}V{_version}",
            family=MUJOCO,
            max_episode_steps=_steps,
            reward_threshold=_threshold,
            assets_dir=ASSETS_DIR,
        )

# gym 0.23.1's v2/v3 tasks (EnvPool's ids; gym ran them on mujoco-py) are Gymnasium's v4 code
# but for Ant-v3 and Humanoid-v3, which count their contact forces where v4 does not: those two
# have their own C++ types ("AntV3", "HumanoidV3"), the others are v4's under another name. gym
# registered each with v4's time limit and reward threshold.
LEGACY_VERSIONS = {
    "Ant": 3,
    "HalfCheetah": 3,
    "Hopper": 3,
    "Walker2d": 3,
    "Humanoid": 3,
    "HumanoidStandup": 2,
    "InvertedPendulum": 2,
    "InvertedDoublePendulum": 2,
    "Reacher": 2,
    "Pusher": 2,
    "Swimmer": 3,
}
OWN_LEGACY_TYPES = ("Ant", "Humanoid")

for _robot, _version in LEGACY_VERSIONS.items():
    if _robot in OWN_LEGACY_TYPES:
        _steps, _threshold = ROBOTS[_robot]
        register(
            f"{_robot}-v{_version}",
            f"{_robot}V{_version}",
            family=MUJOCO,
            max_episode_steps=_steps,
            reward_threshold=_threshold,
            assets_dir=ASSETS_DIR,
        )
    else:
        register_alias(f"{_robot}-v{_version}", f"{_robot}-v4")
