"""The Fetch tasks against gymnasium-robotics 1.4.2 on MuJoCo 4.0.0, bit for bit.

Every id (the four tasks, sparse and Dense, v4; v1 is v4 under another name) runs whole
50-step episodes next to the reference (robotics_reference.run_aligned: three envs, seeds
s + i, NEXT_STEP autoreset on both sides), with random actions (a sixth of them outside the
action box) and with a controller that reaches the goal, so that successes, their sparse
reward of -0.0 and the gripper's finger actuators (PickAndPlace) are all exercised. Then: the
options against the reference's base class built with the same arguments, the batched goal
functions against the reference's per-pair compute_reward, and bad options.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import robotics_reference
from robotics_reference import NUM_ENVS, run_aligned

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.families.robotics.fetch import TASKS
from envfleet.registry import registration

TASK_IDS = [f"{task}{suffix}-v4" for task in TASKS for suffix in ("", "Dense")]


def reach_policy(obs, t):
    """Moves the gripper (the observation's first three values) toward the goal (Reach) or
    the object toward it by pushing from behind (the others, roughly), opening and closing the
    fingers now and then."""
    grip = obs["observation"][:, :3]
    target = obs["desired_goal"]
    if obs["observation"].shape[1] == 25:  # an object: go behind it first, then push
        obj = obs["achieved_goal"]
        away = obj - target
        behind = obj + 0.03 * away / np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)
        target = np.where((t % 50) < 20, behind, target)
    move = np.clip((target - grip) * 12.0, -1.0, 1.0)
    fingers = np.full((len(grip), 1), 1.0 if (t // 7) % 2 else -1.0)
    return np.concatenate([move, fingers], axis=1).astype(np.float32)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment_random_actions(task_id):
    counts = run_aligned(task_id, 7, 120)
    assert counts["truncated"] == 2 * NUM_ENVS  # two whole episodes per env
    assert counts["terminated"] == 0


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment_toward_the_goal(task_id):
    counts = run_aligned(task_id, 3, 110, policy=reach_policy)
    assert counts["truncated"] == 2 * NUM_ENVS
    if task_id.startswith("FetchReach"):
        assert counts["successes"] > 0  # the sparse reward's -0.0 and is_success 1.0 are met


@pytest.mark.parametrize("task", TASKS)
def test_v1_is_v4_under_another_name(task):
    for suffix in ("", "Dense"):
        v1, v4 = registration(f"{task}{suffix}-v1"), registration(f"{task}{suffix}-v4")
        assert v1.alias_of == v4.task_id
        assert (v1.env_type, v1.options, v1.max_episode_steps) == (
            v4.env_type,
            v4.options,
            v4.max_episode_steps,
        )


def _base_reference(xml_file, initial_qpos, **arguments):
    """A maker of reference vector envs of MujocoFetchEnv itself (the base class every task
    calls with its constants), built with ``arguments``: how the options are compared, since
    the tasks' own constructors take reward_type only."""
    from gymnasium.wrappers import TimeLimit
    from gymnasium_robotics.envs.fetch.fetch_env import MujocoFetchEnv

    # The reference asserts that its metadata's render_fps (25) is round(1 / dt): another
    # n_substeps needs a class that states its own rate, as envfleet's spec does.
    fps = int(np.round(1.0 / (0.002 * arguments["n_substeps"])))
    metadata = {**MujocoFetchEnv.metadata, "render_fps": fps}
    env_class = type("FetchWithOptions", (MujocoFetchEnv,), {"metadata": metadata})

    def make(num_envs, max_episode_steps=50, **_):
        def one():
            env = env_class(model_path=xml_file, initial_qpos=initial_qpos, **arguments)
            return robotics_reference.RawInfo(TimeLimit(env, max_episode_steps))

        return gymnasium.vector.SyncVectorEnv([one] * num_envs)

    return make


OPTION_CASES = {
    # A Push with another threshold, ranges, offset, frame skip and start, its fingers free.
    "push": (
        "FetchPush-v4",
        dict(
            distance_threshold=0.08,
            obj_range=0.1,
            target_range=0.2,
            target_offset_x=0.05,
            target_offset_y=-0.02,
            frame_skip=10,
            block_gripper=False,
            initial_slide0=0.41,
            reward_type="dense",
        ),
        dict(
            xml_file="fetch/push.xml",
            initial_qpos={
                "robot0:slide0": 0.41,
                "robot0:slide1": 0.48,
                "robot0:slide2": 0.0,
                "object0:joint": [1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0],
            },
            has_object=True,
            block_gripper=False,
            n_substeps=10,
            gripper_extra_height=0.0,
            target_in_the_air=False,
            target_offset=np.array([0.05, -0.02, 0.0]),
            obj_range=0.1,
            target_range=0.2,
            distance_threshold=0.08,
            reward_type="dense",
        ),
    ),
    # A PickAndPlace whose targets are always on the table, with a raised gripper.
    "pick": (
        "FetchPickAndPlace-v4",
        dict(target_in_the_air=False, gripper_extra_height=0.1, initial_object_x=1.3),
        dict(
            xml_file="fetch/pick_and_place.xml",
            initial_qpos={
                "robot0:slide0": 0.405,
                "robot0:slide1": 0.48,
                "robot0:slide2": 0.0,
                "object0:joint": [1.3, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0],
            },
            has_object=True,
            block_gripper=False,
            n_substeps=20,
            gripper_extra_height=0.1,
            target_in_the_air=False,
            target_offset=0.0,
            obj_range=0.15,
            target_range=0.15,
            distance_threshold=0.05,
            reward_type="sparse",
        ),
    ),
    # A Reach with a wider target range and a tighter threshold.
    "reach": (
        "FetchReach-v4",
        dict(target_range=0.25, distance_threshold=0.02, initial_slide1=0.5),
        dict(
            xml_file="fetch/reach.xml",
            initial_qpos={"robot0:slide0": 0.4049, "robot0:slide1": 0.5, "robot0:slide2": 0.0},
            has_object=False,
            block_gripper=True,
            n_substeps=20,
            gripper_extra_height=0.2,
            target_in_the_air=True,
            target_offset=0.0,
            obj_range=0.15,
            target_range=0.25,
            distance_threshold=0.02,
            reward_type="sparse",
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_options_match_the_reference_base_class(case):
    task_id, options, arguments = OPTION_CASES[case]
    reference = _base_reference(**arguments)
    counts = run_aligned(task_id, 5, 110, policy=reach_policy, reference=reference, **options)
    assert counts["truncated"] == 2 * NUM_ENVS


@pytest.mark.parametrize("task_id", ["FetchPush-v4", "FetchReachDense-v4"])
def test_goal_functions_take_batches(task_id):
    env, _, _ = robotics_reference.make(task_id, seed=0)
    ref = env.unwrapped
    spec = envfleet.make_spec(task_id)
    rng = np.random.default_rng(1)
    achieved = rng.normal(1.0, 0.2, (1000, 3))
    desired = achieved + rng.normal(0.0, 0.04, (1000, 3))
    desired[::10] = achieved[::10]  # distance 0: a success, sparse reward -0.0
    expected = np.array(
        [ref.compute_reward(a, d, {}) for a, d in zip(achieved, desired, strict=True)]
    )
    rewards = spec.compute_reward(achieved, desired, {})
    assert rewards.dtype == expected.dtype
    np.testing.assert_array_equal(rewards, expected)
    assert np.array_equal(np.signbit(rewards), np.signbit(expected))
    # Any leading shape; the reference's batched call agrees too.
    grid = spec.compute_reward(achieved.reshape(10, 100, 3), desired.reshape(10, 100, 3))
    np.testing.assert_array_equal(grid.ravel(), expected)
    np.testing.assert_array_equal(ref.compute_reward(achieved, desired, {}), expected)
    for name in ("compute_terminated", "compute_truncated"):
        ours = getattr(spec, name)(achieved, desired, {})
        assert ours.shape == (1000,) and not ours.any()
        assert getattr(ref, name)(achieved[0], desired[0], {}) is False
    with pytest.raises(ValueError, match="same shape"):
        spec.compute_reward(achieved, desired[:, :2])
    env.close()


def test_step_reward_is_compute_reward_of_its_goals():
    env = envfleet.make("FetchPickAndPlace-v4", num_envs=4, seed=2, conventions="gymnasium")
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):  # one episode (the next step would be the autoreset's, reward 0)
        obs, reward, _, _, info = env.step(rng.uniform(-1, 1, (4, 4)).astype(np.float32))
        again = env.spec.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
        np.testing.assert_array_equal(reward, again)
    env.close()


def test_spaces_and_spec():
    env = envfleet.make("FetchPush-v4", num_envs=2, conventions="gymnasium")
    ref, _, _ = robotics_reference.make("FetchPush-v4", seed=0)
    assert env.single_observation_space == ref.observation_space
    assert env.single_action_space == ref.action_space
    obs, info = env.reset()
    assert list(obs) == ["observation", "achieved_goal", "desired_goal"]
    assert info["is_success"].dtype == np.float32
    assert env.spec.max_episode_steps == 50
    assert env.metadata["render_fps"] == ref.metadata["render_fps"] == 25
    env.close()
    ref.close()


@pytest.mark.parametrize(
    "task_id, options, match",
    [
        ("FetchPush-v4", {"reward_type": "shaped"}, "reward_type"),
        ("FetchReach-v4", {"has_object": True}, "has_object"),
        ("FetchPush-v4", {"obj_range": 0.05}, "obj_range"),
        ("FetchPush-v4", {"frame_skip": 0}, "frame_skip"),
        ("FetchPush-v4", {"distance_threshold": -1.0}, "distance_threshold"),
        ("FetchPush-v4", {"xml_file": "fetch/nothing.xml"}, "xml_file"),
        ("FetchPush-v4", {"xml_file": "hand/reach.xml"}, "mocap"),
    ],
)
def test_bad_options_are_refused(task_id, options, match):
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        envfleet.make(task_id, num_envs=1, **options)


# ---- Frames ----------------------------------------------------------------------------------

WIDTH, HEIGHT = 72, 56  # not square, so that a swapped width and height cannot pass


@pytest.mark.parametrize("task_id", ["FetchPush-v4", "FetchReach-v4"])
def test_frames_match_the_reference(task_id):
    """The free view of fetch_env's DEFAULT_CAMERA_CONFIG and the goal marker (target0, which
    the reference's _render_callback moves to the goal), pixel for pixel, after a reset and
    after steps; also a model camera."""
    ours, refs = robotics_reference.render_pair(task_id, 4, WIDTH, HEIGHT)
    try:
        ours.reset()
        rng = np.random.default_rng(0)
        for t in range(3):
            frames = ours.render(env_ids=[0, 1])
            assert frames.shape == (2, HEIGHT, WIDTH, 3)
            robotics_reference.assert_frames_equal(f"{task_id} step {t}", frames, refs)
            camera = ours.render(env_ids=[0], camera_id=0)[0]
            assert camera.shape == (HEIGHT, WIDTH, 3) and not np.array_equal(camera, frames[0])
            action = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
            ours.step(action)
            for i, ref in enumerate(refs):
                ref.step(action[i])
    finally:
        ours.close()
        for ref in refs:
            ref.close()


def test_from_pixels_observes_the_frames():
    env = envfleet.make(
        "FetchReach-v4",
        num_envs=2,
        seed=1,
        from_pixels=True,
        render_width=32,
        render_height=24,
        conventions="gymnasium",
    )
    try:
        obs, info = env.reset()
        assert obs.shape == (2, 3, 24, 32) and obs.dtype == np.uint8
        assert info["is_success"].shape == (2,)
        obs, reward, _, _, info = env.step(np.zeros((2, 4), np.float32))
        assert obs.std() > 0 and reward.shape == (2,)
    finally:
        env.close()
