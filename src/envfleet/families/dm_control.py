"""DeepMind Control Suite task ids, as EnvPool 1.2.5 names them, built by envfleet._dm_control.

Each id is a task of dm_control 1.0.50's suite (``suite.load(domain, task)``): one C++ env type
per domain (``Cartpole``, ...) whose ``task_name`` option picks the task. The time limit is the
suite's ``time_limit / control_timestep`` in steps (1000 for every task here; lqr, unlimited in
dm_control, takes EnvPool's 1000), which the pool enforces; the dm front end then reports
discount 1.0, as dm_control does at its time limit. The XML models are dm_control's own:
``assets_dir`` points at the installed ``dm_control/suite`` folder (found without importing
dm_control).
"""

from __future__ import annotations

import importlib.util
import os

from envfleet.registry import Family, register

# envfleet._dm_control links libmujoco.so.4.0.0 from the mujoco-core wheel and reads the models
# of the dm_control package (envfleet[dm_control]).
DM_CONTROL = Family(
    "dm_control",
    module="envfleet._dm_control",
    extra="dm_control",
    requires=("dm_control", "mujoco"),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.dmc",
)


def _assets_dir() -> str:
    spec = importlib.util.find_spec("dm_control")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(spec.submodule_search_locations[0], "suite")


ASSETS_DIR = _assets_dir()

# task id: (C++ env type, dm_control task name). Every time limit is the suite's
# _DEFAULT_TIME_LIMIT / control timestep: 1000 steps (cartpole: 10 s / 0.01 s, walker:
# 25 s / 0.025 s, ...); lqr's is infinite in dm_control, 1000 in EnvPool.
TASKS = {
    "AcrobotSwingup-v1": ("Acrobot", "swingup"),
    "AcrobotSwingupSparse-v1": ("Acrobot", "swingup_sparse"),
    "BallInCupCatch-v1": ("BallInCup", "catch"),
    "CartpoleBalance-v1": ("Cartpole", "balance"),
    "CartpoleBalanceSparse-v1": ("Cartpole", "balance_sparse"),
    "CartpoleSwingup-v1": ("Cartpole", "swingup"),
    "CartpoleSwingupSparse-v1": ("Cartpole", "swingup_sparse"),
    "CartpoleThreePoles-v1": ("Cartpole", "three_poles"),
    "CartpoleTwoPoles-v1": ("Cartpole", "two_poles"),
    "CheetahRun-v1": ("Cheetah", "run"),
    "DogFetch-v1": ("Dog", "fetch"),
    "DogRun-v1": ("Dog", "run"),
    "DogStand-v1": ("Dog", "stand"),
    "DogTrot-v1": ("Dog", "trot"),
    "DogWalk-v1": ("Dog", "walk"),
    "FingerSpin-v1": ("Finger", "spin"),
    "FingerTurnEasy-v1": ("Finger", "turn_easy"),
    "FingerTurnHard-v1": ("Finger", "turn_hard"),
    "FishSwim-v1": ("Fish", "swim"),
    "FishUpright-v1": ("Fish", "upright"),
    "HopperHop-v1": ("Hopper", "hop"),
    "HopperStand-v1": ("Hopper", "stand"),
    "HumanoidCMURun-v1": ("HumanoidCMU", "run"),
    "HumanoidCMUStand-v1": ("HumanoidCMU", "stand"),
    "HumanoidCMUWalk-v1": ("HumanoidCMU", "walk"),
    "HumanoidRun-v1": ("Humanoid", "run"),
    "HumanoidRunPureState-v1": ("Humanoid", "run_pure_state"),
    "HumanoidStand-v1": ("Humanoid", "stand"),
    "HumanoidWalk-v1": ("Humanoid", "walk"),
    "LqrLqr21-v1": ("Lqr", "lqr_2_1"),
    "LqrLqr62-v1": ("Lqr", "lqr_6_2"),
    "ManipulatorBringBall-v1": ("Manipulator", "bring_ball"),
    "ManipulatorBringPeg-v1": ("Manipulator", "bring_peg"),
    "ManipulatorInsertBall-v1": ("Manipulator", "insert_ball"),
    "ManipulatorInsertPeg-v1": ("Manipulator", "insert_peg"),
    "PendulumSwingup-v1": ("Pendulum", "swingup"),
    "PointMassEasy-v1": ("PointMass", "easy"),
    "PointMassHard-v1": ("PointMass", "hard"),
    "QuadrupedEscape-v1": ("Quadruped", "escape"),
    "QuadrupedFetch-v1": ("Quadruped", "fetch"),
    "QuadrupedRun-v1": ("Quadruped", "run"),
    "QuadrupedWalk-v1": ("Quadruped", "walk"),
    "ReacherEasy-v1": ("Reacher", "easy"),
    "ReacherHard-v1": ("Reacher", "hard"),
    "StackerStack2-v1": ("Stacker", "stack_2"),
    "StackerStack4-v1": ("Stacker", "stack_4"),
    "SwimmerSwimmer15-v1": ("Swimmer", "swimmer15"),
    "SwimmerSwimmer6-v1": ("Swimmer", "swimmer6"),
    "WalkerRun-v1": ("Walker", "run"),
    "WalkerStand-v1": ("Walker", "stand"),
    "WalkerWalk-v1": ("Walker", "walk"),
}
TIME_LIMIT = 1000

# C++ env type: the dm_control.suite domain it ports.
DOMAINS = {
    "Acrobot": "acrobot",
    "BallInCup": "ball_in_cup",
    "Cartpole": "cartpole",
    "Cheetah": "cheetah",
    "Dog": "dog",
    "Finger": "finger",
    "Fish": "fish",
    "Hopper": "hopper",
    "Humanoid": "humanoid",
    "HumanoidCMU": "humanoid_CMU",
    "Lqr": "lqr",
    "Manipulator": "manipulator",
    "Pendulum": "pendulum",
    "PointMass": "point_mass",
    "Quadruped": "quadruped",
    "Reacher": "reacher",
    "Stacker": "stacker",
    "Swimmer": "swimmer",
    "Walker": "walker",
}


def suite_task(task_id: str) -> tuple[str, str]:
    """The ``(domain, task)`` of ``dm_control.suite.load`` that ``task_id`` runs."""
    env_type, task_name = TASKS[task_id]
    return DOMAINS[env_type], task_name


for _task_id, (_env_type, _task_name) in TASKS.items():
    register(
        _task_id,
        _env_type,
        family=DM_CONTROL,
        max_episode_steps=TIME_LIMIT,
        assets_dir=ASSETS_DIR,
        task_name=_task_name,
    )
