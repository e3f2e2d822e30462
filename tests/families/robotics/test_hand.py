"""The Shadow Dexterous Hand tasks against gymnasium-robotics 1.4.2 on MuJoCo 4.0.0, bit for bit.

Every id that is not an alias (HandReach v3, HandManipulate* v1: every object, variant, touch
kind and reward) runs whole episodes next to the reference (robotics_reference.run_aligned:
three envs, seeds s + i, NEXT_STEP autoreset on both sides) with random actions (a sixth of
them outside the action box); the v0 ids are checked to be their v1/v3 ids under another name,
and every id's time limit and options against the reference's registration. Then: the options
against the reference built with the same arguments (its base classes where the tasks' own
constructors fix them), with thresholds that make successes (is_success 1.0, the sparse
rewards 0.0 and -0.0) happen; relative control against the reference whose missing mujoco-py
helpers are supplied; the batched goal functions against the reference's per-pair
compute_reward; bad options; and frames.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
import robotics_reference
from gymnasium_robotics.envs.shadow_dexterous_hand import hand_env, manipulate, reach
from gymnasium_robotics.envs.shadow_dexterous_hand.manipulate_touch_sensors import (
    MujocoManipulateTouchSensorsEnv,
)
from gymnasium_robotics.utils import mujoco_utils
from robotics_reference import NUM_ENVS, run_aligned

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.registry import registration

# The reference's Hand ids: every mujoco-py (v0) and mujoco (v1, v3) one.
REFERENCE_IDS = sorted(k for k in gymnasium.registry if k.startswith("Hand"))
TASK_IDS = [i for i in REFERENCE_IDS if not i.endswith("-v0")]
ALIASES = [i for i in REFERENCE_IDS if i.endswith("-v0")]

# EnvPool 1.2.5's Hand ids (envpool/mujoco/robotics/registration.py builds them so).
ENVPOOL_VARIANTS = {
    "Block": (
        ["", "Full", "RotateParallel", "RotateXYZ", "RotateZ"],
        ["", "RotateParallel", "RotateXYZ", "RotateZ"],
    ),
    "Egg": (["", "Full", "Rotate"], ["", "Rotate"]),
    "Pen": (["", "Full", "Rotate"], ["", "Rotate"]),
}
ENVPOOL_IDS = sorted(
    [f"HandReach{reward}-{version}" for reward in ("", "Dense") for version in ("v0", "v3")]
    + [
        f"HandManipulate{obj}{variant}{reward}-{version}"
        for obj, (variants, _) in ENVPOOL_VARIANTS.items()
        for variant in variants
        for reward in ("", "Dense")
        for version in ("v0", "v1")
    ]
    + [
        f"HandManipulate{obj}{variant}{touch}{reward}-{version}"
        for obj, (_, variants) in ENVPOOL_VARIANTS.items()
        for variant in variants
        for touch in ("_BooleanTouchSensors", "_ContinuousTouchSensors")
        for reward in ("", "Dense")
        for version in ("v0", "v1")
    ]
)
TARGET_POSITION_RANGE = np.array([(-0.04, 0.04), (-0.06, 0.02), (0.0, 0.06)])


def test_ids_are_the_references():
    ours = sorted(i for i in envfleet.list_all_envs() if i.startswith("Hand"))
    assert ours == REFERENCE_IDS == ENVPOOL_IDS
    assert len(ours) == 112 and len(TASK_IDS) == 56


@pytest.mark.parametrize("alias", ALIASES)
def test_v0_is_its_v1_or_v3_under_another_name(alias):
    """EnvPool builds v0 (the reference's mujoco-py classes) as v1/v3; so does envfleet. The
    reference registers both with the same arguments and time limit."""
    target = alias.replace("-v0", "-v3" if alias.startswith("HandReach") else "-v1")
    ours, theirs = registration(alias), registration(target)
    assert ours.alias_of == target
    assert (ours.env_type, ours.options, ours.max_episode_steps) == (
        theirs.env_type,
        theirs.options,
        theirs.max_episode_steps,
    )
    ref, ref_target = gymnasium.registry[alias], gymnasium.registry[target]
    assert ref.kwargs == ref_target.kwargs
    assert ref.max_episode_steps == ref_target.max_episode_steps


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_registration_is_the_references(task_id):
    """The id's time limit, and its options' values as the reference's env holds them."""
    reg, ref_spec = registration(task_id), gymnasium.registry[task_id]
    assert reg.max_episode_steps == ref_spec.max_episode_steps
    options = envfleet.make_spec(task_id).config.env_options
    module = ref_spec.entry_point.split(":")[0].rsplit(".", 1)[1]  # reach, manipulate_egg, ...
    assert options["xml_file"] == f"hand/{module}.xml"
    assert reg.env_type.endswith("TouchSensors") == module.endswith("_touch_sensors")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gymnasium.make(task_id).unwrapped
    names = ["reward_type", "distance_threshold", "relative_control"]
    if module != "reach":
        names += [
            "target_position",
            "target_rotation",
            "rotation_threshold",
            "randomize_initial_position",
            "randomize_initial_rotation",
            "ignore_z_target_rotation",
        ]
        ranges = np.array(
            [[options[f"target_position_{end}{k}"] for end in ("low", "high")] for k in range(3)]
        )
        np.testing.assert_array_equal(ranges, ref.target_position_range)
    if reg.env_type.endswith("TouchSensors"):
        names += ["touch_get_obs", "touch_visualisation"]
    for name in names:
        assert options[name] == getattr(ref, name), name
    assert options["frame_skip"] == ref.n_substeps
    if module == "reach":
        joints, values = options["initial_qpos_joints"], options["initial_qpos"]
        assert dict(zip(joints, values, strict=True)) == reach.DEFAULT_INITIAL_QPOS
    else:
        assert options["initial_qpos_joints"] == options["initial_qpos"] == []
    ref.close()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment_random_actions(task_id):
    counts = run_aligned(task_id, 7, 120)
    episodes = 2 if task_id.startswith("HandReach") else 1  # 50 or 100 steps each
    assert counts["truncated"] == episodes * NUM_ENVS
    assert counts["terminated"] == 0


# ---- Options ---------------------------------------------------------------------------------


def _fps_class(base, n_substeps):
    """``base`` stating the render_fps of n_substeps (the reference asserts that its
    metadata's 25 is round(1 / dt), so another n_substeps needs a class stating its rate, as
    envfleet's spec does)."""
    fps = int(np.round(1.0 / (0.002 * n_substeps)))
    return type(base.__name__, (base,), {"metadata": {**base.metadata, "render_fps": fps}})


def _vector(make_one, max_episode_steps):
    from gymnasium.wrappers import TimeLimit

    def make(num_envs, max_episode_steps=max_episode_steps, **_):
        def one():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env = make_one()
            return robotics_reference.RawInfo(TimeLimit(env, max_episode_steps))

        return gymnasium.vector.SyncVectorEnv([one] * num_envs)

    return make


def reach_reference(base=reach.MujocoHandReachEnv, **arguments):
    """A maker of reference vector envs of HandReach built with ``arguments``."""
    env_class = _fps_class(base, arguments.get("n_substeps", 20))
    return _vector(lambda: env_class(**arguments), 50)


def manipulate_reference(xml, touch=False, base=None, **arguments):
    """A maker of reference vector envs of MujocoManipulateEnv (or its touch-sensor subclass)
    itself, built with ``arguments``: the objects' own classes fix some of them."""
    if base is None:
        base = MujocoManipulateTouchSensorsEnv if touch else manipulate.MujocoManipulateEnv
    env_class = _fps_class(base, arguments.get("n_substeps", 20))
    arguments.setdefault("target_position_range", TARGET_POSITION_RANGE)
    return _vector(lambda: env_class(model_path=xml, **arguments), 100)


class _MujocoPyHelpers:
    """What MujocoHandEnv._set_action's relative branch asks of mujoco-py's MjData and MjModel
    (get_joint_qpos, actuator_names, actuator_name2id), supplied from the reference's own
    MujocoModelNames and qpos as mujoco-py's did (a hinge joint's value is data.qpos[address],
    a float64 scalar); anything else is the real object's."""

    def __init__(self, real, model, names, data=None):
        self._real, self._model, self._names, self._data = real, model, names, data

    def __getattr__(self, name):
        return getattr(self._real, name)

    def get_joint_qpos(self, name):
        (value,) = mujoco_utils.get_joint_qpos(self._model, self._data, name)
        return value

    @property
    def actuator_names(self):
        return self._names.actuator_names

    def actuator_name2id(self, name):
        return self._names.actuator_name2id[name]


def _with_mujoco_py_helpers(base):
    """``base`` whose _set_action runs the reference's own code with the helpers above."""

    def _set_action(self, action):
        model, data = self.model, self.data
        self.model = _MujocoPyHelpers(model, model, self._model_names)
        self.data = _MujocoPyHelpers(data, model, self._model_names, data)
        try:
            hand_env.MujocoHandEnv._set_action(self, action)
        finally:
            self.model, self.data = model, data

    return type(base.__name__, (base,), {"_set_action": _set_action})


REACH_INITIAL = dict(reach.DEFAULT_INITIAL_QPOS, **{"robot0:FFJ2": 0.5, "robot0:THJ3": 0.4})

# name: (task id, envfleet's options, the reference's maker, whether some steps succeed)
OPTION_CASES = {
    # A threshold that the fingertips meet and miss: successes, sparse rewards -0.0 and -1.
    "reach-threshold": (
        "HandReach-v3",
        dict(distance_threshold=0.12),
        reach_reference(distance_threshold=0.12),
        True,
    ),
    "reach-dense-substeps-start": (
        "HandReachDense-v3",
        dict(
            frame_skip=10,
            initial_qpos_joints=list(REACH_INITIAL),
            initial_qpos=list(REACH_INITIAL.values()),
        ),
        reach_reference(n_substeps=10, initial_qpos=REACH_INITIAL, reward_type="dense"),
        True,
    ),
    "reach-relative": (
        "HandReach-v3",
        dict(relative_control=True, distance_threshold=0.12),
        reach_reference(
            base=_with_mujoco_py_helpers(reach.MujocoHandReachEnv),
            relative_control=True,
            distance_threshold=0.12,
        ),
        True,
    ),
    "block-relative-dense": (
        "HandManipulateBlockDense-v1",
        dict(relative_control=True),
        manipulate_reference(
            "hand/manipulate_block.xml",
            base=_with_mujoco_py_helpers(manipulate.MujocoManipulateEnv),
            relative_control=True,
            target_position="random",
            target_rotation="xyz",
            reward_type="dense",
        ),
        False,
    ),
    # Thresholds that the block meets and misses, another range, a block that starts where it
    # is put, Euler z ignored as for the pen, another frame skip.
    "block-thresholds": (
        "HandManipulateBlock-v1",
        dict(
            distance_threshold=0.05,
            rotation_threshold=2.5,
            target_position_low0=-0.01,
            target_position_high0=0.02,
            target_position_low2=0.01,
            randomize_initial_position=False,
            ignore_z_target_rotation=True,
            frame_skip=16,
        ),
        manipulate_reference(
            "hand/manipulate_block.xml",
            target_position="random",
            target_rotation="xyz",
            target_position_range=np.array([(-0.01, 0.02), (-0.06, 0.02), (0.01, 0.06)]),
            reward_type="sparse",
            distance_threshold=0.05,
            rotation_threshold=2.5,
            randomize_initial_position=False,
            ignore_z_target_rotation=True,
            n_substeps=16,
        ),
        True,
    ),
    # The z rotation with a threshold it meets, position fixed, the start not rotated.
    "egg-z-fixed": (
        "HandManipulateEggRotate-v1",
        dict(
            target_position="fixed",
            target_rotation="z",
            rotation_threshold=1.2,
            randomize_initial_rotation=False,
        ),
        manipulate_reference(
            "hand/manipulate_egg.xml",
            target_position="fixed",
            target_rotation="z",
            reward_type="sparse",
            rotation_threshold=1.2,
            randomize_initial_rotation=False,
        ),
        True,
    ),
    # The pen rotated at the start, its z angle counted, parallel goals.
    "pen-parallel-dense": (
        "HandManipulatePenRotateDense-v1",
        dict(
            target_rotation="parallel",
            randomize_initial_rotation=True,
            ignore_z_target_rotation=False,
            distance_threshold=0.02,
        ),
        manipulate_reference(
            "hand/manipulate_pen.xml",
            target_position="ignore",
            target_rotation="parallel",
            reward_type="dense",
            randomize_initial_rotation=True,
            ignore_z_target_rotation=False,
            distance_threshold=0.02,
        ),
        False,
    ),
    # Touch values as log(x + 1), the pen's constants (ignore_z) kept.
    "pen-touch-log": (
        "HandManipulatePen_ContinuousTouchSensorsDense-v1",
        dict(touch_get_obs="log", touch_visualisation="always"),
        manipulate_reference(
            "hand/manipulate_pen_touch_sensors.xml",
            touch=True,
            target_position="random",
            target_rotation="xyz",
            reward_type="dense",
            randomize_initial_rotation=False,
            ignore_z_target_rotation=True,
            distance_threshold=0.05,
            touch_get_obs="log",
            touch_visualisation="always",
        ),
        False,
    ),
    # A touch model whose observation leaves the touch values out.
    "block-touch-off": (
        "HandManipulateBlockRotateZ_BooleanTouchSensors-v1",
        dict(touch_get_obs="off", touch_visualisation="off", rotation_threshold=1.2),
        manipulate_reference(
            "hand/manipulate_block_touch_sensors.xml",
            touch=True,
            target_position="ignore",
            target_rotation="z",
            reward_type="sparse",
            rotation_threshold=1.2,
            touch_get_obs="off",
            touch_visualisation="off",
        ),
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_options_match_the_reference(case):
    task_id, options, reference, succeeds = OPTION_CASES[case]
    rng = np.random.default_rng(3)

    def policy(obs, t):  # small moves about the actuators' middles, or relative to the joints
        return rng.uniform(-0.3, 0.3, (NUM_ENVS, 20)).astype(np.float32)

    counts = run_aligned(task_id, 5, 110, policy=policy, reference=reference, **options)
    steps = 50 if task_id.startswith("HandReach") else 100
    assert counts["truncated"] == (110 // steps) * NUM_ENVS
    if succeeds:  # both branches of the thresholds' comparisons
        assert 0 < counts["successes"] < 110 * NUM_ENVS


class _RetryCounting:
    """Counts the reference's failed _reset_sim calls (the object off the palm), and sets
    initial_qpos in _env_setup as MujocoManipulateEnv's code means to: it calls mujoco-py's
    data.set_joint_qpos, which sets a hinge joint's qpos[address] (mujoco_utils' does too)."""

    failed_resets = 0

    def _env_setup(self, initial_qpos):
        for name, value in initial_qpos.items():
            mujoco_utils.set_joint_qpos(self.model, self.data, name, value)
        self._mujoco.mj_forward(self.model, self.data)

    def _reset_sim(self):
        on_palm = super()._reset_sim()
        type(self).failed_resets += not on_palm
        return on_palm


def test_resets_retry_until_the_object_stays_on_the_palm():
    """A palm tilted by the wrist (initial_qpos), held there (relative control) for long
    settles (frame_skip 50): the egg often rolls off during _reset_sim, which is then drawn
    again, as often as the reference's."""
    base = _with_mujoco_py_helpers(_fps_class(manipulate.MujocoManipulateEnv, 50))
    env_class = type("Tilted", (_RetryCounting, base), {"failed_resets": 0})
    arguments = dict(
        model_path="hand/manipulate_egg.xml",
        target_position="random",
        target_rotation="xyz",
        target_position_range=TARGET_POSITION_RANGE,
        reward_type="sparse",
        relative_control=True,
        n_substeps=50,
        initial_qpos={"robot0:WRJ0": -0.45},
    )
    reference = _vector(lambda: env_class(**arguments), 100)
    options = dict(
        relative_control=True,
        frame_skip=50,
        initial_qpos_joints=["robot0:WRJ0"],
        initial_qpos=[-0.45],
    )
    counts = run_aligned("HandManipulateEgg-v1", 1, 105, reference=reference, **options)
    assert counts["truncated"] == NUM_ENVS
    assert env_class.failed_resets > 0


def test_reference_has_no_relative_control():
    """Why the relative-control cases patch the reference: its own fails."""
    env, _, _ = robotics_reference.make("HandReach-v3", 0, relative_control=True)
    with pytest.raises(AttributeError, match="get_joint_qpos"):
        env.step(np.zeros(20, np.float32))
    env.close()


@pytest.mark.parametrize("rotation, like", [("ignore", {}), ("fixed", {"target_rotation": "z"})])
def test_rotations_the_reference_cannot_sample(rotation, like):
    """target_rotation "ignore" and "fixed" fail in the reference's _sample_goal (a mujoco-py
    call); envfleet's goal quaternion is then the object's (normalised) at the reset. The reset
    itself is the reference's: "ignore" rotates the start as "xyz" does, "fixed" does not
    rotate it (as "z" without randomize_initial_rotation), so the states and goal positions
    are those of these ids, draw for draw. Where the rotation is ignored, the dense reward is
    the position's alone."""
    with pytest.raises(AttributeError, match="get_joint_qpos"):
        robotics_reference.make("HandManipulateBlockDense-v1", 1, target_rotation=rotation)
    env = envfleet.make(
        "HandManipulateBlockDense-v1",
        num_envs=3,
        seed=1,
        target_rotation=rotation,
        conventions="gymnasium",
    )
    same = envfleet.make(
        "HandManipulateBlockDense-v1",
        num_envs=3,
        seed=1,
        randomize_initial_rotation=rotation == "ignore",
        conventions="gymnasium",
        **like,
    )
    obs, _ = env.reset()
    other, _ = same.reset()
    np.testing.assert_array_equal(obs["observation"], other["observation"])
    np.testing.assert_array_equal(obs["desired_goal"][:, :3], other["desired_goal"][:, :3])
    quat = obs["achieved_goal"][:, 3:]
    expected = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    np.testing.assert_allclose(obs["desired_goal"][:, 3:], expected, rtol=0, atol=1e-15)
    obs, reward, *_ = env.step(np.zeros((3, 20), np.float32))
    d_pos = np.linalg.norm(obs["achieved_goal"][:, :3] - obs["desired_goal"][:, :3], axis=1)
    if rotation == "ignore":
        np.testing.assert_array_equal(reward, -(10.0 * d_pos + 0.0))
    env.close()
    same.close()


# ---- Goal functions ---------------------------------------------------------------------------


def _goal_pairs(size, n, rng):
    """Random goal pairs: positions, unit quaternions (manipulation), pairs close enough to
    succeed, equal pairs and a few with quaternions of both signs."""
    achieved = rng.normal(1.0, 0.1, (n, size))
    desired = achieved + rng.normal(0.0, 0.02, (n, size))
    if size == 7:
        for goal in (achieved, desired):
            goal[:, 3:] = rng.normal(size=(n, 4))
            goal[:, 3:] /= np.linalg.norm(goal[:, 3:], axis=1, keepdims=True)
        near = slice(0, n // 4)
        desired[near, 3:] = achieved[near, 3:] + rng.normal(0.0, 0.02, (n // 4, 4))
        desired[n // 2 : n // 2 + 20, 3:] *= -1
    desired[::10] = achieved[::10]  # equal: distance 0, success
    return achieved, desired


# Every combination of the goal functions' options that the ids use, plus the rotations that
# the reference cannot sample but whose rewards it computes.
GOAL_CASES = [
    ("HandReach-v3", {}),
    ("HandReachDense-v3", {}),
    ("HandManipulateBlock-v1", {}),
    ("HandManipulateBlockDense-v1", {}),
    ("HandManipulateBlockRotateZDense-v1", {}),
    ("HandManipulateBlockRotateParallel-v1", {"rotation_threshold": 1.0}),
    ("HandManipulatePen-v1", {"rotation_threshold": 1.0}),
    ("HandManipulatePenDense-v1", {}),
    ("HandManipulatePenRotate_BooleanTouchSensorsDense-v1", {}),
    ("HandManipulateEggDense-v1", {"target_rotation": "ignore"}),
    ("HandManipulateEgg-v1", {"target_rotation": "fixed", "distance_threshold": 0.05}),
]


@pytest.mark.parametrize("task_id, options", GOAL_CASES)
def test_goal_functions_take_batches(task_id, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gymnasium.make(task_id, **options).unwrapped  # no reset: "ignore"/"fixed" fail there
    spec = envfleet.make_spec(task_id, **options)
    size = 15 if task_id.startswith("HandReach") else 7
    achieved, desired = _goal_pairs(size, 1000, np.random.default_rng(1))
    expected = np.array(
        [ref.compute_reward(a, d, {}) for a, d in zip(achieved, desired, strict=True)]
    )
    rewards = spec.compute_reward(achieved, desired, {})
    assert rewards.dtype == expected.dtype
    np.testing.assert_array_equal(rewards, expected)
    assert np.array_equal(np.signbit(rewards), np.signbit(expected))
    if "Dense" not in task_id:
        assert 0 < (rewards == 0).sum() < 1000  # successes and failures
    # Any leading shape. The reference's own batched call agrees too, but where
    # ignore_z_target_rotation is on: its `euler_a[2] = euler_b[2]` then sets the batch's third
    # row, not every goal's z angle (envfleet's batches give each goal its one-goal value).
    grid = spec.compute_reward(achieved.reshape(10, 100, size), desired.reshape(10, 100, size))
    np.testing.assert_array_equal(grid.ravel(), expected)
    if not getattr(ref, "ignore_z_target_rotation", False):
        np.testing.assert_array_equal(ref.compute_reward(achieved, desired, {}), expected)
    for name in ("compute_terminated", "compute_truncated"):
        ours = getattr(spec, name)(achieved, desired, {})
        assert ours.shape == (1000,) and not ours.any()
        assert getattr(ref, name)(achieved[0], desired[0], {}) is False
    with pytest.raises(ValueError, match="same shape"):
        spec.compute_reward(achieved, desired[:, :2])
    ref.close()


@pytest.mark.parametrize(
    "task_id, options",
    [
        ("HandReach-v3", {"distance_threshold": 0.12}),
        ("HandManipulatePenDense-v1", {}),
        ("HandManipulateBlockRotateZ-v1", {"rotation_threshold": 1.2}),
    ],
)
def test_step_reward_is_compute_reward_of_its_goals(task_id, options):
    """Over whole episodes: the reward of each step is compute_reward of the step's goals,
    sign of zero included, and so is the reference's compute_reward of them."""
    env = envfleet.make(task_id, num_envs=3, seed=2, conventions="gymnasium", **options)
    ref, _, _ = robotics_reference.make(task_id, 0, **options)
    env.reset()
    rng = np.random.default_rng(0)
    steps = env.spec.max_episode_steps  # one episode (the next step would be the autoreset's)
    for _ in range(steps):
        action = rng.uniform(-0.3, 0.3, (3, 20)).astype(np.float32)
        obs, reward, _, _, info = env.step(action)
        again = env.spec.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
        np.testing.assert_array_equal(reward, again)
        assert np.array_equal(np.signbit(reward), np.signbit(again))
        theirs = [
            ref.unwrapped.compute_reward(a, d, {})
            for a, d in zip(obs["achieved_goal"], obs["desired_goal"], strict=True)
        ]
        assert np.array_equal(np.signbit(reward), np.signbit(theirs))
        np.testing.assert_array_equal(reward, theirs)
    env.close()
    ref.close()


def test_spaces_and_spec():
    for task_id in ("HandReach-v3", "HandManipulateEgg_BooleanTouchSensors-v1"):
        env = envfleet.make(task_id, num_envs=2, conventions="gymnasium")
        ref, _, _ = robotics_reference.make(task_id, seed=0)
        assert env.single_observation_space == ref.observation_space
        assert env.single_action_space == ref.action_space
        obs, info = env.reset()
        assert list(obs) == ["observation", "achieved_goal", "desired_goal"]
        assert info["is_success"].dtype == np.float32
        assert env.spec.max_episode_steps == ref.spec.max_episode_steps
        assert env.metadata["render_fps"] == ref.metadata["render_fps"] == 25
        env.close()
        ref.close()


@pytest.mark.parametrize(
    "task_id, options, match",
    [
        ("HandReach-v3", {"reward_type": "shaped"}, "reward_type"),
        ("HandReach-v3", {"frame_skip": 0}, "frame_skip"),
        ("HandReach-v3", {"distance_threshold": -1.0}, "distance_threshold"),
        ("HandReach-v3", {"initial_qpos": [0.1]}, "same length"),
        (
            "HandReach-v3",
            {"initial_qpos_joints": ["robot0:nothing"], "initial_qpos": [0.1]},
            "robot0:nothing",
        ),
        ("HandManipulateBlock-v1", {"target_position": "anywhere"}, "target_position"),
        ("HandManipulateBlock-v1", {"target_rotation": "xy"}, "target_rotation"),
        ("HandManipulateBlock-v1", {"rotation_threshold": float("nan")}, "rotation_threshold"),
        ("HandManipulateBlock-v1", {"target_position_low1": 0.5}, "target_position_low1"),
        (
            "HandManipulateBlock-v1",
            {"initial_qpos_joints": ["object:joint"], "initial_qpos": [0.1]},
            "hinge or slide",
        ),
        ("HandManipulateBlock_BooleanTouchSensors-v1", {"touch_get_obs": "on"}, "touch_get_obs"),
        (
            "HandManipulateBlock_BooleanTouchSensors-v1",
            {"touch_visualisation": "sometimes"},
            "touch_visualisation",
        ),
        ("HandManipulateBlock-v1", {"xml_file": "hand/reach.xml"}, "object:joint"),
        ("HandReach-v3", {"xml_file": "fetch/reach.xml"}, "20 actuators"),
    ],
)
def test_bad_options_are_refused(task_id, options, match):
    with pytest.raises(ValueError, match=match):
        envfleet.make(task_id, num_envs=1, **options)


def test_touch_options_belong_to_touch_models():
    with pytest.raises(TypeError, match="touch_get_obs"):
        envfleet.make("HandManipulateBlock-v1", num_envs=1, touch_get_obs="boolean")


# ---- Frames ----------------------------------------------------------------------------------

WIDTH, HEIGHT = 64, 48  # not square, so that a swapped width and height cannot pass


@pytest.mark.parametrize(
    "task_id, options",
    [
        ("HandReach-v3", {}),
        ("HandManipulateBlockRotateZ_BooleanTouchSensors-v1", {}),
        ("HandManipulateEgg_ContinuousTouchSensors-v1", {"touch_visualisation": "off"}),
    ],
)
def test_frames_match_the_reference(task_id, options):
    """The free view of hand_env's DEFAULT_CAMERA_CONFIG with what the reference's
    _render_callback shows: HandReach's goal and fingertip markers (model.site_pos, rewritten
    on every frame from the last one's), the object's target at the goal (0.15 m aside where
    the position is ignored), the touch sensors' sites coloured by contact ("on_touch", the
    touch ids' default) or hidden ("off"); pixel for pixel, after a reset and after steps.
    Rendering sets the target object's state (as in the reference's), so the observations are
    compared after it too, with the reference's and with those of a pool that draws nothing."""
    ours, refs = robotics_reference.render_pair(task_id, 4, WIDTH, HEIGHT, **options)
    plain = envfleet.make(task_id, num_envs=2, seed=4, conventions="gymnasium", **options)
    try:
        ours.reset()
        plain.reset()
        rng = np.random.default_rng(0)
        for t in range(9):
            if t % 4 == 0:
                frames = ours.render(env_ids=[0, 1])
                assert frames.shape == (2, HEIGHT, WIDTH, 3)
                robotics_reference.assert_frames_equal(f"{task_id} step {t}", frames, refs)
            action = rng.uniform(-1, 1, (2, 20)).astype(np.float32)
            obs, *_ = ours.step(action)
            unrendered, *_ = plain.step(action)
            for key, value in unrendered.items():
                np.testing.assert_array_equal(obs[key], value, err_msg=f"{key} {t}")
            for i, ref in enumerate(refs):
                ref_obs, *_ = ref.step(action[i])
                for key, value in ref_obs.items():
                    np.testing.assert_array_equal(obs[key][i], value, err_msg=f"{key} {t}")
    finally:
        ours.close()
        plain.close()
        for ref in refs:
            ref.close()
