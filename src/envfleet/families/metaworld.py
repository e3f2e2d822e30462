"""Meta-World v3 (metaworld 3.1.1): the 50 Sawyer-arm manipulation tasks of its
``ALL_V3_ENVIRONMENTS``, as EnvPool 1.2.5 names them (``MetaWorld/<Task>-v3``), built by the
C++ env types of envfleet._metaworld (cpp/families/metaworld/, one header per task).

Each env is the reference's task class as Meta-World's MT1/ML1 benchmarks run it: a 39-value
float64 observation (hand, gripper opening, two objects' positions and quaternions, the same of
the previous step, the goal: zeros while ``partially_observable``, the default, as in
ALL_V3_ENVIRONMENTS and ML1; MT1/MT10/MT50 show it), a 4-value float32 action (hand motion,
gripper effort), the v2 reward with its info (success, near_object, grasp_success,
grasp_reward, in_place_reward, obj_to_target, unscaled_reward; EnvPool's task_id), and the
500-step limit (max_path_length, which also truncates when max_episode_steps is set higher).

Options: ``partially_observable``; ``rand_vec``: a task instance's positions, fixed for every
episode as ``set_task`` fixes them (``pickle.loads(task.data)["rand_vec"]`` of an MT1/ML1 task;
see :func:`task_rand_vecs`), else drawn from the env's seed at every reset (as EnvPool does,
and the reference with ``seeded_rand_vec``); ``frame_skip`` (5); from_pixels and rendering as
the MuJoCo family's.

The models are Meta-World's own, read from its package: metaworld 3.1.1 requires MuJoCo 3.3.0,
which cannot be installed beside the 4.0.0 envfleet runs on, so it is installed alone, with
``pip install --no-deps metaworld==3.1.1`` (its models need nothing else), or into envfleet's
cache folder by :func:`install`; ``assets_dir`` is the installed package's ``assets`` folder,
else the cache folder's.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

from envfleet.families._assets import package_dir
from envfleet.registry import Family, register

VERSION = "3.1.1"

METAWORLD = Family(
    "metaworld",
    module="envfleet._metaworld",
    extra="mujoco",
    requires=("mujoco",),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.metaworld",
)

# Meta-World's task names in EnvPool's order (its registration.py; info["task_id"] is the index).
TASK_NAMES = (
    "assembly-v3", "basketball-v3", "bin-picking-v3", "box-close-v3",
    "button-press-topdown-v3", "button-press-topdown-wall-v3", "button-press-v3",
    "button-press-wall-v3", "coffee-button-v3", "coffee-pull-v3", "coffee-push-v3",
    "dial-turn-v3", "disassemble-v3", "door-close-v3", "door-lock-v3", "door-open-v3",
    "door-unlock-v3", "hand-insert-v3", "drawer-close-v3", "drawer-open-v3", "faucet-open-v3",
    "faucet-close-v3", "hammer-v3", "handle-press-side-v3", "handle-press-v3",
    "handle-pull-side-v3", "handle-pull-v3", "lever-pull-v3", "pick-place-wall-v3",
    "pick-out-of-hole-v3", "pick-place-v3", "plate-slide-v3", "plate-slide-side-v3",
    "plate-slide-back-v3", "plate-slide-back-side-v3", "peg-insert-side-v3",
    "peg-unplug-side-v3", "soccer-v3", "stick-push-v3", "stick-pull-v3", "push-v3",
    "push-wall-v3", "push-back-v3", "reach-v3", "reach-wall-v3", "shelf-place-v3",
    "sweep-into-v3", "sweep-v3", "window-open-v3", "window-close-v3",
)  # fmt: skip

MAX_EPISODE_STEPS = 500  # SawyerXYZEnv.max_path_length


def env_type(task_name: str) -> str:
    """EnvPool's CamelCase name of a Meta-World task: "pick-place-v3" -> "PickPlace"."""
    return "".join(part[:1].upper() + part[1:] for part in task_name.rsplit("-", 1)[0].split("-"))


def task_id(task_name: str) -> str:
    """The id of a Meta-World task: "pick-place-v3" -> "MetaWorld/PickPlace-v3"."""
    return f"MetaWorld/{env_type(task_name)}-v3"


def cache_assets_dir() -> str:
    """The models' folder of a metaworld installed by :func:`install` (which may not exist)."""
    from envfleet.bench.references import cache_folder

    return os.path.join(cache_folder("metaworld", VERSION), "metaworld", "assets")


def assets_dir() -> str:
    """Meta-World's models: the installed package's, else envfleet's cache folder's."""
    return package_dir("metaworld", "assets") or cache_assets_dir()


def install() -> str:
    """Installs metaworld VERSION alone (``pip install --no-deps``) into envfleet's cache
    folder, unless it is installed there already; returns its models' folder."""
    from envfleet.bench.references import cache_folder, install_alone

    install_alone("metaworld", VERSION, cache_folder("metaworld", VERSION))
    return cache_assets_dir()


def task_rand_vecs(tasks: Any) -> list[list[float]]:
    """The ``rand_vec`` option of each of Meta-World's ``Task`` objects (a benchmark's
    ``train_tasks`` / ``test_tasks``), in order: the positions ``set_task`` would fix."""
    return [[float(x) for x in pickle.loads(task.data)["rand_vec"]] for task in tasks]


for _index, _name in enumerate(TASK_NAMES):
    register(
        task_id(_name),
        env_type(_name),
        MAX_EPISODE_STEPS,
        family=METAWORLD,
        assets_dir=assets_dir(),
        task_index=_index,
    )
