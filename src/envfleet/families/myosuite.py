"""MyoSuite (myosuite 3.0.0 on myo-sim 0.2.3's models): musculoskeletal tasks driven by
muscles, as EnvPool 1.2.5 names them (``myoFingerReachRandom-v0``, and each id again as
``MyoSuite/<id>``), built by the C++ env types of envfleet._myosuite
(cpp/families/myosuite/, one header per task class of the reference).

The ids are generated as the reference registers them: a table of base tasks (below: the
reference's registration kwargs, as options) and its rule for the muscle conditions, every id
that starts with ``myo`` also registered as ``myoSarc...`` (sarcopenia: peak muscle forces
halved) and ``myoFati...`` (3CC-r muscle fatigue), and every ``myoHand...`` id also as
``myoReaf...`` (reafferentation: EIP's command drives EPL). Ported so far: the finger and elbow
tasks (PoseEnvV0, ReachEnvV0); docs/families/myosuite.md lists what is not yet.

Each env is the reference's task as ``gymnasium.make(id)`` builds it: a float64 observation
(its obs keys, in order; the reference returns these values cast to float32), a float32 action
in [-1, 1] (clipped; the muscles' excitation is its sigmoid), the dense reward, the info's
reward terms and ``solved``, termination on the task's ``done`` or an unstable simulation, and
the id's time limit.

The models are read from the installed myo_sim package (``pip install envfleet[myosuite]``);
``assets_dir`` is its ``models`` folder.
"""

from __future__ import annotations

from typing import Any

from envfleet.families._assets import package_dir
from envfleet.registry import Family, register, register_alias

MYOSUITE = Family(
    "myosuite",
    module="envfleet._myosuite",
    extra="myosuite",
    requires=("mujoco", "myo_sim"),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.myosuite",
)

FINGER = "legacy/finger/myofinger_v0.xml"
# The reference's motor_finger recipe: myo-sim's tendon-motor finger with its motors' gears
# scaled by 4 (_MOTOR_FINGER_GEAR_SCALE), stepped 5 MuJoCo steps at a time.
MOTOR_FINGER = dict(xml_file="legacy/finger/motorfinger_v0.xml", gear_scale=4.0, frame_skip=5)
ELBOW = "legacy/elbow/myoelbow_1dof6muscles.xml"
ELBOW_EXO = "legacy/elbow/myoelbow_1dof6muscles_1dofexo.xml"
# The site the reference's resolver adds to the elbow models for PoseEnvV0's
# viz_site_targets=("wrist",): [x, y, z, size].
WRIST_TARGET = {"wrist_target": [0.007, -0.261, 0.065, 0.005]}

FINGER_JOINTS = ["IFadb", "IFmcp", "IFpip", "IFdip"]


def _elbow_pose(xml_file: str, low: float, high: float, **options: Any) -> dict[str, Any]:
    return dict(xml_file=xml_file, world_sites=WRIST_TARGET, target_jnt_names=["r_elbow_flex"],
                target_jnt_low=[low], target_jnt_high=[high], viz_site_targets=["wrist"],
                pose_thd=0.175, reset_type="random", **options)  # fmt: skip


EXO_WEIGHTS = dict(weighted_reward_keys=["pose", "bonus", "act_reg", "penalty"],
                   reward_weights=[1.0, 4.0, 5.0, 50.0])  # fmt: skip

# The reference's base tasks (myosuite/envs/myo/tasks/basic/__init__.py): id -> (env type,
# max_episode_steps, options).
BASE_TASKS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "motorFingerReachFixed-v0": ("Reach", 200, dict(
        MOTOR_FINGER, target_sites=["IFtip"],
        target_low=[0.2, 0.05, 0.20], target_high=[0.2, 0.05, 0.20])),
    "motorFingerReachRandom-v0": ("Reach", 200, dict(
        MOTOR_FINGER, target_sites=["IFtip"], target_sampling="workspace",
        target_low=[0.1, -0.1, 0.1], target_high=[0.27, 0.1, 0.3])),
    "myoFingerReachFixed-v0": ("Reach", 100, dict(
        xml_file=FINGER, target_sites=["IFtip"],
        target_low=[0.2, 0.05, 0.20], target_high=[0.2, 0.05, 0.20])),
    "myoFingerReachRandom-v0": ("Reach", 100, dict(
        xml_file=FINGER, target_sites=["IFtip"], target_sampling="workspace",
        target_low=[0.1, -0.1, 0.1], target_high=[0.27, 0.1, 0.3])),
    "myoElbowPose1D6MFixed-v0": ("Pose", 100, _elbow_pose(ELBOW, 2, 2)),
    "myoElbowPose1D6MRandom-v0": ("Pose", 100, _elbow_pose(ELBOW, 0, 2.27)),
    "myoElbowPose1D6MExoFixed-v0": ("Pose", 100, _elbow_pose(ELBOW_EXO, 2, 2, **EXO_WEIGHTS)),
    "motorFingerPoseFixed-v0": ("Pose", 200, dict(
        MOTOR_FINGER, target_jnt_names=FINGER_JOINTS, viz_site_targets=["IFtip"],
        target_jnt_low=[0, 0, 0.75, 0.75], target_jnt_high=[0, 0, 0.75, 0.75])),
    "motorFingerPoseRandom-v0": ("Pose", 200, dict(
        MOTOR_FINGER, target_jnt_names=FINGER_JOINTS, viz_site_targets=["IFtip"],
        target_jnt_low=[-0.2, -0.4, 0.1, 0.1], target_jnt_high=[0.2, 1, 1, 1])),
    "myoFingerPoseFixed-v0": ("Pose", 100, dict(
        xml_file=FINGER, target_jnt_names=FINGER_JOINTS, viz_site_targets=["IFtip"],
        target_jnt_low=[0, 0, 0.75, 0.75], target_jnt_high=[0, 0, 0.75, 0.75])),
    "myoFingerPoseRandom-v0": ("Pose", 100, dict(
        xml_file=FINGER, target_jnt_names=FINGER_JOINTS, viz_site_targets=["IFtip"],
        target_jnt_low=[-0.2, -0.4, 0.1, 0.1], target_jnt_high=[0.2, 1, 1, 1])),
}  # fmt: skip

CONDITIONS = {"Sarc": "sarcopenia", "Fati": "fatigue", "Reaf": "reafferentation"}


def variants(task_id: str) -> dict[str, str]:
    """The reference's ids of a base task with each muscle condition ("" for none): every
    ``myo*`` id also as ``myoSarc*`` and ``myoFati*``, every ``myoHand*`` also as
    ``myoReaf*``."""
    out = {task_id: ""}
    if task_id.startswith("myo"):
        for prefix in ("Sarc", "Fati") + (("Reaf",) if task_id.startswith("myoHand") else ()):
            out[f"myo{prefix}{task_id[3:]}"] = CONDITIONS[prefix]
    return out


def models_dir() -> str:
    """myo-sim's models folder (``myo_sim/models`` of the installed package), or ""."""
    return package_dir("myo_sim", "models")


TASK_IDS: list[str] = []
for _base, (_type, _steps, _options) in BASE_TASKS.items():
    for _id, _condition in variants(_base).items():
        register(_id, _type, _steps, family=MYOSUITE, assets_dir=models_dir(),
                 muscle_condition=_condition, **_options)  # fmt: skip
        register_alias(f"MyoSuite/{_id}", _id)
        TASK_IDS.append(_id)
