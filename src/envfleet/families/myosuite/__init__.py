"""MyoSuite (myosuite 3.0.0 on myo-sim 0.2.3's models): musculoskeletal tasks driven by
muscles, as EnvPool 1.2.5 names them (``myoFingerReachRandom-v0``, and each id again as
``MyoSuite/<id>``), built by the C++ env types of envfleet._myosuite
(cpp/families/myosuite/, one header per task class of the reference).

The ids are generated as the reference registers them: a table of base tasks (below: the
reference's registration kwargs, as options) and its rule for the muscle conditions, every id
that starts with ``myo`` also registered as ``myoSarc...`` (sarcopenia: peak muscle forces
halved) and ``myoFati...`` (3CC-r muscle fatigue), and every ``myoHand...`` id also as
``myoReaf...`` (reafferentation: EIP's command drives EPL). Ported so far: the finger and elbow
tasks (PoseEnvV0, ReachEnvV0), the hand's pose, reach, key-turn, object-hold and pen-twirl tasks
and the arm's reach tasks; docs/families/myosuite.md lists what is not yet.

Each env is the reference's task as ``gymnasium.make(id)`` builds it: a float64 observation
(its obs keys, in order; the reference returns these values cast to float32), a float32 action
in [-1, 1] (clipped; the muscles' excitation is its sigmoid), the dense reward, the info's
reward terms and ``solved``, termination on the task's ``done`` or an unstable simulation, and
the id's time limit.

The models are read from the installed myo_sim package (``pip install envfleet[myosuite]``);
``assets_dir`` is its ``models`` folder. The key-turn, object-hold and pen-twirl tasks' hand is
myosuite's own (its ``envs/myo/assets/hand/assets`` files, which myo-sim does not ship):
myosuite 3.0.0 is installed alone for them by :func:`install` (or ``pip install --no-deps
myosuite==3.0.0``; it cannot be installed with its dependencies beside envfleet, which needs
gymnasium>=1.3).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from envfleet.families._assets import package_dir
from envfleet.families.myosuite import recipes
from envfleet.registry import Family, register, register_alias

MYOSUITE = Family(
    "myosuite",
    module="envfleet._myosuite",
    extra="myosuite",
    requires=("mujoco", "myo_sim"),
    libraries=("mujoco/libmujoco.so.4.0.0",),
    envpool_package="envpool.mujoco.myosuite",
    prepare=recipes.prepare,
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
    # The weight the exoskeleton's forearm carries: its mass drawn at every reset.
    "myoElbowPose1D6MExoRandom-v0": ("Pose", 100, _elbow_pose(
        ELBOW_EXO, 0, 2.27, weight_bodyname="carry_weight", weight_range=[0.1, 2.0],
        **EXO_WEIGHTS)),
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

# The hand of the reference's hand_pose recipe (recipes.py), compiled into envfleet's cache
# folder on first use; its names carry the side suffix "_r".
HAND = dict(assets_dir=recipes.REGISTERED_DIR, xml_file="hand_pose.mjb", actuator_suffix="_r")
HAND_TIPS = ["THtip_r", "IFtip_r", "MFtip_r", "RFtip_r", "LFtip_r"]
HAND_JOINTS = [
    "pro_sup_r", "deviation_r", "flexion_r", "cmc_flexion_r", "cmc_abduction_r",
    "mp_flexion_r", "ip_flexion_r", "mcp2_flexion_r", "mcp2_abduction_r", "pm2_flexion_r",
    "md2_flexion_r", "mcp3_flexion_r", "mcp3_abduction_r", "pm3_flexion_r", "md3_flexion_r",
    "mcp4_flexion_r", "mcp4_abduction_r", "pm4_flexion_r", "md4_flexion_r", "mcp5_flexion_r",
    "mcp5_abduction_r", "pm5_flexion_r", "md5_flexion_r",
]  # fmt: skip
# The reference's hand poses (its ASL_qpos: the American Sign Language numerals 0-9), joint
# angles in HAND_JOINTS' order.
ASL_POSES = [
    "0 0 0 0.28272 0.5624 -0.75573 -1.309 1.30045 -0.006982 1.45492 0.998897 1.26466 0 1.40604 "
    "0.227795 1.07614 -0.020944 1.46103 0.06284 0.83263 -0.14399 1.571 1.38248",
    "0 0 0 0.04536 0.0248 -0.7854 -1.309 0.366605 0.010473 0.269258 0.111722 1.48459 0 1.45318 "
    "1.44532 1.44532 -0.204204 1.46103 1.44532 1.48459 -0.2618 1.47674 1.48459",
    "0 0 0 0.04536 0.0248 -0.7854 -1.13447 0.514973 0.010473 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 1.44532 -0.204204 1.46103 1.44532 1.48459 -0.2618 1.47674 1.48459",
    "0 0 0 0.25305 0.3384 0.01569 -0.0262045 0.645885 0.010473 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 1.571 -0.036652 1.52387 1.45318 1.40604 -0.068068 1.39033 1.571",
    "0 0 0 -0.147495 0.6392 -0.7854 -1.309 0.637158 0.010473 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 0.306345 -0.010472 0.400605 0.133535 0.21994 -0.068068 0.274925 0.01571",
    "0 0 0 0.25305 0.3384 0.01569 -0.0262045 0.645885 0.010473 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 0.306345 -0.010472 0.400605 0.133535 0.21994 -0.068068 0.274925 0.01571",
    "0 0 0 -0.147495 0.6392 -0.7854 -1.309 0.637158 0.010473 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 0.306345 -0.010472 0.400605 0.133535 1.1861 -0.2618 1.35891 1.48459",
    "0 0 0 0.01569 0.524 -0.7854 -1.309 0.645885 -0.006982 0.128305 0.111722 0.510575 0 "
    "0.37704 0.117825 1.28036 -0.115192 1.52387 1.45318 0.432025 -0.068068 0.18852 0.149245",
    "0 0 0 0.22338 0.428 -0.7854 -1.309 0.645885 -0.006982 0.128305 0.194636 1.39033 0 1.08399 "
    "0.573415 0.667675 -0.020944 0 0.06284 0.432025 -0.068068 0.18852 0.149245",
    "0 0 0 0.28272 0.5624 -0.75573 -1.309 1.30045 -0.006982 1.45492 0.998897 0.39275 0 0.18852 "
    "0.227795 0.667675 -0.020944 0 0.06284 0.432025 -0.068068 0.18852 0.149245",
]
ASL = [[float(v) for v in pose.split()] for pose in ASL_POSES]
# myoHandPoseFixed-v0's pose.
HAND_POSE = [
    0, 0, 0, 0.0824475, -0.0904, -0.681555, -0.514888, 0, -0.013964, -0.0458132, 0, 0.67553,
    -0.020944, 0.76979, 0.65982, 0, 0, 0, 0, 0.479155, -0.099484, 0.95831, 0,
]  # fmt: skip


def _hand_pose(low: list[float], high: list[float], **options: Any) -> dict[str, Any]:
    return dict(HAND, target_jnt_names=HAND_JOINTS, target_jnt_low=low, target_jnt_high=high,
                viz_site_targets=HAND_TIPS, pose_thd=0.7, **options)  # fmt: skip


def _fixed_hand_pose(pose: list[float]) -> dict[str, Any]:
    return _hand_pose(pose, pose, target_type="fixed", reset_type="init")


# The fingertips' boxes of myoHandReach: (x, y, z) of each tip, and how far the Random boxes
# reach below and above it, as the reference writes them (its sums, so the same floats).
HAND_REACH_TIPS = {
    "THtip_r": ((-0.165, -0.537, 1.495), (0.020, 0.040, 0.040), (0.040, 0.020, 0.040)),
    "IFtip_r": ((-0.151, -0.547, 1.455), (0.040, 0.020, 0.010), (0.040, 0.020, 0.010)),
    "MFtip_r": ((-0.146, -0.547, 1.447), (0.040, 0.020, 0.010), (0.040, 0.020, 0.010)),
    "RFtip_r": ((-0.148, -0.543, 1.445), (0.040, 0.020, 0.010), (0.040, 0.020, 0.010)),
    "LFtip_r": ((-0.148, -0.528, 1.434), (0.040, 0.020, 0.010), (0.040, 0.020, 0.010)),
}


def _hand_reach(spread: bool, far_th: float) -> dict[str, Any]:
    low, high = [], []
    for at, below, above in HAND_REACH_TIPS.values():
        low += [c - b for c, b in zip(at, below, strict=True)] if spread else list(at)
        high += [c + a for c, a in zip(at, above, strict=True)] if spread else list(at)
    return dict(HAND, target_sites=list(HAND_REACH_TIPS), target_low=low, target_high=high,
                far_th=far_th)  # fmt: skip


HAND_TASKS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "myoHandPoseFixed-v0": ("Pose", 100, _fixed_hand_pose(HAND_POSE)),
    **{f"myoHandPose{k}Fixed-v0": ("Pose", 100, _fixed_hand_pose(pose))
       for k, pose in enumerate(ASL)},
    # The range of each joint over the ten poses.
    "myoHandPoseRandom-v0": ("Pose", 100, _hand_pose(
        [min(p[j] for p in ASL) for j in range(len(HAND_JOINTS))],
        [max(p[j] for p in ASL) for j in range(len(HAND_JOINTS))], reset_type="random")),
    "myoHandReachFixed-v0": ("Reach", 100, _hand_reach(False, 0.044)),
    "myoHandReachRandom-v0": ("Reach", 100, _hand_reach(True, 0.075)),
}  # fmt: skip
BASE_TASKS.update(HAND_TASKS)

# The arm of the reference's full_arm recipe edited by its edit_fn_arm_reaching (recipes.py),
# the model of the ids myosuite.envs.myo.myoedits registers: the index fingertip's target box
# around this point, spread this far below and above it for Random.
ARM = dict(assets_dir=recipes.REGISTERED_DIR, xml_file="arm_reaching.mjb", target_sites=["IFtip"])
ARM_TIP = (-0.175, -0.245, 1.405)
ARM_SPREAD = (0.175, 0.175, 0.425)
BASE_TASKS.update({
    "myoArmReachFixed-v0": ("Reach", 150, dict(
        ARM, target_low=list(ARM_TIP), target_high=list(ARM_TIP), far_th=1.0)),
    # far_th 1.3: the far corners of the box are up to 1.24 m from the starting fingertip.
    "myoArmReachRandom-v0": ("Reach", 150, dict(
        ARM, target_low=[c - d for c, d in zip(ARM_TIP, ARM_SPREAD, strict=True)],
        target_high=[c + d for c, d in zip(ARM_TIP, ARM_SPREAD, strict=True)], far_th=1.3)),
})  # fmt: skip

# The legacy hand and its key, of the reference's hand_keyturn recipe (recipes.py): built from
# myosuite's own model files (install()); its names have no side suffix.
KEY_HAND = dict(assets_dir=recipes.REGISTERED_DIR, xml_file="hand_keyturn.mjb")
BASE_TASKS.update({
    "myoHandKeyTurnFixed-v0": ("KeyTurn", 200, dict(KEY_HAND)),
    "myoHandKeyTurnRandom-v0": ("KeyTurn", 200, dict(
        KEY_HAND, key_init_range=[-math.pi / 2, math.pi / 2], goal_th=2 * math.pi)),
})  # fmt: skip

# The legacy hand with a pen and a target pen, of the reference's hand_pen recipe: the Random
# ids turn the target at every reset.
PEN_HAND = dict(assets_dir=recipes.REGISTERED_DIR, xml_file="hand_pen.mjb", frame_skip=5)
BASE_TASKS.update({
    "myoHandPenTwirlFixed-v0": ("PenTwirl", 50, dict(PEN_HAND)),
    "myoHandPenTwirlRandom-v0": ("PenTwirl", 50, dict(PEN_HAND, target_orientation="random")),
})  # fmt: skip

# The legacy hand, a goal and a free object, of the reference's hand_hold recipe: the Random
# ids draw the goal and the object's size at every reset.
HOLD_HAND = dict(assets_dir=recipes.REGISTERED_DIR, xml_file="hand_hold.mjb")
BASE_TASKS.update({
    "myoHandObjHoldFixed-v0": ("ObjHold", 75, dict(HOLD_HAND)),
    "myoHandObjHoldRandom-v0": ("ObjHold", 75, dict(HOLD_HAND, random_goal_and_size=True)),
})  # fmt: skip

# The torso tasks' models: myosuite's own torso files (the torso; the torso in an exosuit)
# with myo-sim's parts, compiled into envfleet's cache folder on first use. The target is the
# middle of each range: the spine upright, the lateral bend's range (-0.1, 0.1) included.
TORSO_JOINTS = [
    "flex_extension", "lat_bending", "axial_rotation", "Abs_t1", "Abs_t2", "Abs_r3",
    "L4_L5_FE", "L4_L5_LB", "L4_L5_AR", "L3_L4_FE", "L3_L4_LB", "L3_L4_AR", "L2_L3_FE",
    "L2_L3_LB", "L2_L3_AR", "L1_L2_FE", "L1_L2_LB", "L1_L2_AR",
]  # fmt: skip


def _torso(xml_file: str) -> dict[str, Any]:
    bend = [0.1 if joint == "lat_bending" else 0.0 for joint in TORSO_JOINTS]
    return dict(assets_dir=recipes.REGISTERED_DIR, xml_file=xml_file, frame_skip=5,
                target_jnt_names=TORSO_JOINTS, target_jnt_low=[-b if b else 0.0 for b in bend],
                target_jnt_high=bend)  # fmt: skip


BASE_TASKS.update(
    {
        "myoTorsoPoseFixed-v0": ("Torso", 200, _torso("torso.mjb")),
        "myoTorsoExoPoseFixed-v0": ("Torso", 200, _torso("torso_exosuit.mjb")),
    }
)

# The legs with a rigid torso, of myosuite's own leg model (recipes.py: leg_reach): stand with
# the pelvis within 5 cm of where the reset leaves it, from a pose with every joint moved by up
# to 0.2.
BASE_TASKS.update({
    "myoLegStandRandom-v0": ("LegReach", 150, dict(
        assets_dir=recipes.REGISTERED_DIR, xml_file="leg_reach.mjb", target_sites=["pelvis"],
        target_low=[-0.05, -0.05, 0.0], target_high=[0.05, 0.05, 0.0],
        joint_random_range=[-0.2, 0.2], far_th=0.44)),
})  # fmt: skip

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


def install() -> str:
    """Installs myosuite 3.0.0 alone (``pip install --no-deps``, none of its dependencies) into
    envfleet's cache folder, unless it is there already, for its own model files, which the
    KeyTurn, ObjHold and PenTwirl tasks' models are built from (myo-sim does not ship them);
    returns the package's folder. (A myosuite 3.0.0 installed in the environment serves as well.)"""
    from envfleet.bench.references import MYOSUITE, install_alone

    install_alone(*MYOSUITE, Path(recipes.myosuite_cache_dir()))
    return recipes.myosuite_dir()


def models_dir() -> str:
    """myo-sim's models folder (``myo_sim/models`` of the installed package), or ""."""
    return package_dir("myo_sim", "models")


TASK_IDS: list[str] = []
for _base, (_type, _steps, _options) in BASE_TASKS.items():
    for _id, _condition in variants(_base).items():
        register(_id, _type, _steps, family=MYOSUITE, **{"assets_dir": models_dir(), **_options},
                 muscle_condition=_condition)  # fmt: skip
        register_alias(f"MyoSuite/{_id}", _id)
        TASK_IDS.append(_id)
