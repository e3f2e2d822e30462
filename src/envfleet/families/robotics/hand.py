"""The Shadow Dexterous Hand tasks: gymnasium-robotics 1.4.2's HandReach (v3) and
HandManipulate{Block,Egg,Pen} with their variants (v1), sparse and Dense, with and without touch
sensors (``_BooleanTouchSensors``, ``_ContinuousTouchSensors``): every Hand id EnvPool 1.2.5
lists, built by the C++ env types ``HandReach``, ``HandManipulate{Block,Egg,Pen}`` and
``HandManipulate{Block,Egg,Pen}TouchSensors`` (cpp/families/robotics/hand_reach.h,
hand_manipulate.h).

The v0 ids are the reference's mujoco-py versions of the same tasks (``MujocoPyHandReachEnv``,
``MujocoPyHandBlockEnv``, ...: the same models, code and constants on the unmaintained mujoco-py
bindings, which cannot be installed here): as in EnvPool 1.2.5, which builds v0 and v1 alike,
``HandReach*-v0`` is an alias of its v3 id and ``HandManipulate*-v0`` of its v1 id.

An id's variant is a set of options of its object's env type:

* ``""`` and ``Full``: ``target_position="random"``, ``target_rotation="xyz"`` (the same task
  under two names, as in the reference);
* ``Rotate`` (egg, pen) and ``RotateXYZ`` (block): ``target_position="ignore"``,
  ``target_rotation="xyz"``; ``RotateZ`` and ``RotateParallel`` (block): ``"z"``,
  ``"parallel"``;
* ``_BooleanTouchSensors`` / ``_ContinuousTouchSensors``: ``touch_get_obs="boolean"`` /
  ``"sensordata"`` on the object's touch-sensor model;
* ``Dense``: ``reward_type="dense"``.

Options are the reference constructors' keywords (EnvPool's names where they differ):
``reward_type``, ``relative_control``, ``frame_skip`` (``n_substeps``), ``distance_threshold``,
and for HandManipulate ``target_position``, ``target_rotation``, ``randomize_initial_position``,
``randomize_initial_rotation``, ``rotation_threshold``, ``ignore_z_target_rotation``,
``target_position_low0..2`` / ``target_position_high0..2`` (each object's
``target_position_range``) and, with touch sensors, ``touch_get_obs`` and
``touch_visualisation``. The reference's ``initial_qpos`` dict is two lists:
``initial_qpos_joints`` (the joint names) and ``initial_qpos`` (their values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envfleet.families.robotics import ASSETS_DIR, GOAL_FUNCTIONS, ROBOTICS
from envfleet.registry import register, register_alias

REACH_MAX_EPISODE_STEPS = 50  # gymnasium_robotics/__init__.py, HandReach*
MANIPULATE_MAX_EPISODE_STEPS = 100  # gymnasium_robotics/__init__.py, HandManipulate*

REWARDS = (("", "sparse"), ("Dense", "dense"))

# object: {variant: (target_position, target_rotation)}, and the variants with touch-sensor ids.
VARIANTS = {
    "Block": {
        "": ("random", "xyz"),
        "Full": ("random", "xyz"),
        "RotateParallel": ("ignore", "parallel"),
        "RotateXYZ": ("ignore", "xyz"),
        "RotateZ": ("ignore", "z"),
    },
    "Egg": {"": ("random", "xyz"), "Full": ("random", "xyz"), "Rotate": ("ignore", "xyz")},
    "Pen": {"": ("random", "xyz"), "Full": ("random", "xyz"), "Rotate": ("ignore", "xyz")},
}
TOUCH_VARIANTS = {
    "Block": ("", "RotateParallel", "RotateXYZ", "RotateZ"),
    "Egg": ("", "Rotate"),
    "Pen": ("", "Rotate"),
}
TOUCH_SUFFIXES = (("_BooleanTouchSensors", "boolean"), ("_ContinuousTouchSensors", "sensordata"))


class HandReachGoalFunctions:
    """HandReach's GoalEnv functions over batches: goals of shape (..., 15), the five
    fingertips' positions; ``info`` is not read (the reference ignores it)."""

    def __init__(self, options: Mapping[str, Any]):
        self.reward_type = options["reward_type"]
        self.distance_threshold = float(options["distance_threshold"])

    def distance(self, achieved_goal, desired_goal) -> np.ndarray:
        # reach.goal_distance
        achieved_goal, desired_goal = _same_shape(achieved_goal, desired_goal, 15)
        return np.linalg.norm(achieved_goal - desired_goal, axis=-1)

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        d = self.distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":
            return -(d > self.distance_threshold).astype(np.float32)
        return -d

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: the task is a continuing one (BaseRobotEnv.compute_terminated)."""
        return np.zeros(self.distance(achieved_goal, desired_goal).shape, dtype=bool)

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: only the time limit truncates (BaseRobotEnv.compute_truncated)."""
        return np.zeros(self.distance(achieved_goal, desired_goal).shape, dtype=bool)


class HandManipulateGoalFunctions:
    """The HandManipulate tasks' GoalEnv functions over batches: goals of shape (..., 7), the
    object's position and quaternion; ``info`` is not read (the reference ignores it). The
    rotations are gymnasium_robotics.utils.rotations' formulas, elementwise over the batch
    (NumPy's ufuncs give each sample the value the reference's one-goal call gets)."""

    def __init__(self, options: Mapping[str, Any]):
        self.reward_type = options["reward_type"]
        self.target_position = options["target_position"]
        self.target_rotation = options["target_rotation"]
        self.ignore_z_target_rotation = bool(options["ignore_z_target_rotation"])
        self.distance_threshold = float(options["distance_threshold"])
        self.rotation_threshold = float(options["rotation_threshold"])

    def goal_distance(self, achieved_goal, desired_goal) -> tuple[np.ndarray, np.ndarray]:
        """manipulate._goal_distance: the position distance and the rotation angle (each 0
        where the task ignores it)."""
        goal_a, goal_b = _same_shape(achieved_goal, desired_goal, 7)
        d_pos = np.zeros(goal_a.shape[:-1])
        d_rot = np.zeros(goal_a.shape[:-1])
        if self.target_position != "ignore":
            d_pos = np.linalg.norm(goal_a[..., :3] - goal_b[..., :3], axis=-1)
        if self.target_rotation != "ignore":
            quat_a, quat_b = goal_a[..., 3:], goal_b[..., 3:]
            if self.ignore_z_target_rotation:
                euler_a = _quat2euler(quat_a)
                euler_b = _quat2euler(quat_b)
                euler_a[..., 2] = euler_b[..., 2]
                quat_a = _euler2quat(euler_a)
            quat_diff = _quat_mul(quat_a, _quat_conjugate(quat_b))
            d_rot = 2 * np.arccos(np.clip(quat_diff[..., 0], -1.0, 1.0))
        return d_pos, d_rot

    def is_success(self, achieved_goal, desired_goal) -> np.ndarray:
        d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
        achieved_pos = (d_pos < self.distance_threshold).astype(np.float32)
        achieved_rot = (d_rot < self.rotation_threshold).astype(np.float32)
        return achieved_pos * achieved_rot

    def compute_reward(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        if self.reward_type == "sparse":
            return self.is_success(achieved_goal, desired_goal) - np.float32(1.0)
        d_pos, d_rot = self.goal_distance(achieved_goal, desired_goal)
        return -(10.0 * d_pos + d_rot)

    def compute_terminated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: the tasks are continuing ones (BaseRobotEnv.compute_terminated)."""
        goal_a, _ = _same_shape(achieved_goal, desired_goal, 7)
        return np.zeros(goal_a.shape[:-1], dtype=bool)

    def compute_truncated(self, achieved_goal, desired_goal, info=None) -> np.ndarray:
        """Never: only the time limit truncates (BaseRobotEnv.compute_truncated)."""
        goal_a, _ = _same_shape(achieved_goal, desired_goal, 7)
        return np.zeros(goal_a.shape[:-1], dtype=bool)


def _same_shape(a, b, size: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim == 0 or a.shape[-1] != size:
        raise ValueError(
            f"achieved_goal and desired_goal must have the same shape (..., {size}), got "
            f"{a.shape} and {b.shape}"
        )
    return a, b


# gymnasium_robotics.utils.rotations, for batches of any leading shape: the reference's
# formulas in its order of operations.
_FLOAT_EPS = np.finfo(np.float64).eps
_EPS4 = _FLOAT_EPS * 4.0


def _quat_conjugate(q: np.ndarray) -> np.ndarray:
    inv_q = -q
    inv_q[..., 0] *= -1
    return inv_q


def _quat_mul(q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    w0, x0, y0, z0 = q0[..., 0], q0[..., 1], q0[..., 2], q0[..., 3]
    w1, x1, y1, z1 = q1[..., 0], q1[..., 1], q1[..., 2], q1[..., 3]
    w = w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1
    x = w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1
    y = w0 * y1 + y0 * w1 + z0 * x1 - x0 * z1
    z = w0 * z1 + z0 * w1 + x0 * y1 - y0 * x1
    return np.stack([w, x, y, z], axis=-1)


def _quat2mat(quat: np.ndarray) -> np.ndarray:
    w, x, y, z = quat[..., 0], quat[..., 1], quat[..., 2], quat[..., 3]
    nq = np.sum(quat * quat, axis=-1)
    s = 2.0 / nq
    X, Y, Z = x * s, y * s, z * s
    wX, wY, wZ = w * X, w * Y, w * Z
    xX, xY, xZ = x * X, x * Y, x * Z
    yY, yZ, zZ = y * Y, y * Z, z * Z
    mat = np.empty(quat.shape[:-1] + (3, 3), dtype=np.float64)
    mat[..., 0, 0] = 1.0 - (yY + zZ)
    mat[..., 0, 1] = xY - wZ
    mat[..., 0, 2] = xZ + wY
    mat[..., 1, 0] = xY + wZ
    mat[..., 1, 1] = 1.0 - (xX + zZ)
    mat[..., 1, 2] = yZ - wX
    mat[..., 2, 0] = xZ - wY
    mat[..., 2, 1] = yZ + wX
    mat[..., 2, 2] = 1.0 - (xX + yY)
    return np.where((nq > _FLOAT_EPS)[..., np.newaxis, np.newaxis], mat, np.eye(3))


def _mat2euler(mat: np.ndarray) -> np.ndarray:
    cy = np.sqrt(mat[..., 2, 2] * mat[..., 2, 2] + mat[..., 1, 2] * mat[..., 1, 2])
    condition = cy > _EPS4
    euler = np.empty(mat.shape[:-1], dtype=np.float64)
    euler[..., 2] = np.where(
        condition,
        -np.arctan2(mat[..., 0, 1], mat[..., 0, 0]),
        -np.arctan2(-mat[..., 1, 0], mat[..., 1, 1]),
    )
    euler[..., 1] = -np.arctan2(-mat[..., 0, 2], cy)
    euler[..., 0] = np.where(condition, -np.arctan2(mat[..., 1, 2], mat[..., 2, 2]), 0.0)
    return euler


def _quat2euler(quat: np.ndarray) -> np.ndarray:
    return _mat2euler(_quat2mat(quat))


def _euler2quat(euler: np.ndarray) -> np.ndarray:
    ai, aj, ak = euler[..., 2] / 2, -euler[..., 1] / 2, euler[..., 0] / 2
    si, sj, sk = np.sin(ai), np.sin(aj), np.sin(ak)
    ci, cj, ck = np.cos(ai), np.cos(aj), np.cos(ak)
    cc, cs = ci * ck, ci * sk
    sc, ss = si * ck, si * sk
    quat = np.empty(euler.shape[:-1] + (4,), dtype=np.float64)
    quat[..., 0] = cj * cc + sj * ss
    quat[..., 3] = cj * sc - sj * cs
    quat[..., 2] = -(cj * ss + sj * cc)
    quat[..., 1] = cj * cs - sj * sc
    return quat


GOAL_FUNCTIONS["HandReach"] = HandReachGoalFunctions
for _suffix, _reward_type in REWARDS:
    register(
        f"HandReach{_suffix}-v3",
        "HandReach",
        REACH_MAX_EPISODE_STEPS,
        family=ROBOTICS,
        assets_dir=ASSETS_DIR,
        reward_type=_reward_type,
    )
    register_alias(f"HandReach{_suffix}-v0", f"HandReach{_suffix}-v3")

for _object, _variants in VARIANTS.items():
    _type = f"HandManipulate{_object}"
    GOAL_FUNCTIONS[_type] = HandManipulateGoalFunctions
    GOAL_FUNCTIONS[f"{_type}TouchSensors"] = HandManipulateGoalFunctions
    for _variant, (_position, _rotation) in _variants.items():
        _touch_suffixes = TOUCH_SUFFIXES if _variant in TOUCH_VARIANTS[_object] else ()
        for _suffix, _reward_type in REWARDS:
            _id = f"{_type}{_variant}{_suffix}"
            register(
                f"{_id}-v1",
                _type,
                MANIPULATE_MAX_EPISODE_STEPS,
                family=ROBOTICS,
                assets_dir=ASSETS_DIR,
                reward_type=_reward_type,
                target_position=_position,
                target_rotation=_rotation,
            )
            register_alias(f"{_id}-v0", f"{_id}-v1")
            for _touch_suffix, _touch_get_obs in _touch_suffixes:
                _touch_id = f"{_type}{_variant}{_touch_suffix}{_suffix}"
                register(
                    f"{_touch_id}-v1",
                    f"{_type}TouchSensors",
                    MANIPULATE_MAX_EPISODE_STEPS,
                    family=ROBOTICS,
                    assets_dir=ASSETS_DIR,
                    reward_type=_reward_type,
                    target_position=_position,
                    target_rotation=_rotation,
                    touch_get_obs=_touch_get_obs,
                )
                register_alias(f"{_touch_id}-v0", f"{_touch_id}-v1")
