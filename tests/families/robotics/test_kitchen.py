"""FrankaKitchen-v1 against gymnasium-robotics 1.4.2 on MuJoCo 4.0.0, bit for bit.

The reference's info lists task names (``tasks_to_complete`` in a set's order, which changes
with PYTHONHASHSEED); envfleet's, as EnvPool's, are int32 masks over the seven tasks. The
reference side of every comparison goes through TaskMasks, which turns its lists into those
masks, so that robotics_reference.run_aligned compares everything else as it does for every
task: the nested observation dicts, rewards, terminations, truncations, each step of whole
episodes (three envs, seeds s + i, NEXT_STEP autoreset on both sides).

Random actions complete no task, so the task machinery (rewards, removal, termination, the
masks) runs on a copy of the kitchen model with joint equality constraints that pull some of
the task joints to their goals at different speeds, the reference reading the same copy. Then:
the options, the spaces, the batched goal functions against the reference's compute_reward,
the nested observation through dm_env, reset_mask and SAME_STEP autoreset, bad options and a
frame.
"""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest
import robotics_reference
from gymnasium_reference import RawInfo
from gymnasium_robotics.envs.franka_kitchen import franka_env
from robotics_reference import NUM_ENVS, assert_same, run_aligned

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.families.robotics import ASSETS_DIR
from envfleet.families.robotics.kitchen import TASKS, task_mask

TASK_ID = "FrankaKitchen-v1"
KITCHEN_ASSETS = os.path.join(ASSETS_DIR, "kitchen_franka")
INFO_KEYS = ("tasks_to_complete", "step_task_completions", "episode_task_completions")


class TaskMasks(gymnasium.Wrapper):
    """The reference with its info lists of task names as envfleet's masks."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, self._masks(info)

    def step(self, action):
        *out, info = self.env.step(action)
        return (*out, self._masks(info))

    @staticmethod
    def _masks(info):
        return {key: task_mask(info[key]) for key in INFO_KEYS}


class _PathTo:
    """os.path, but for join() of the reference's model path, which leads to `xml_file` (the
    reference's constructor takes no model path)."""

    def __init__(self, xml_file):
        self.xml_file = xml_file

    def __getattr__(self, name):
        return getattr(os.path, name)

    def join(self, *parts):
        joined = os.path.join(*parts)
        if os.path.basename(joined) == os.path.basename(self.xml_file):
            return self.xml_file
        return joined


def reference(xml_file=None, monkeypatch=None):
    """A maker of reference vector envs (TaskMasks, RawInfo), reading `xml_file` if given."""

    def make(num_envs, **kwargs):
        kwargs.pop("xml_file", None)

        def build():
            return gymnasium.make_vec(
                TASK_ID,
                num_envs=num_envs,
                vectorization_mode="sync",
                wrappers=[TaskMasks, RawInfo],
                **kwargs,
            )

        if xml_file is None:
            return build()
        with monkeypatch.context() as patch:
            patch.setattr(franka_env, "path", _PathTo(xml_file))
            return build()

    return make


def test_alignment_random_actions():
    """One whole 280-step episode and the start of the next."""
    counts = run_aligned(TASK_ID, 7, 290, reference=reference())
    assert counts == {"terminated": 0, "truncated": NUM_ENVS, "successes": 0.0}


# ---- Completed tasks, on an edited model ------------------------------------------------------

# Joint equality constraints (joint1 held at polycoef[0]) pulling task joints to their goals,
# each at its own speed (solref's time constant), so that tasks complete on different steps
# (about steps 0, 2, 6, 10 and 13 of an episode: slide cabinet, microwave, bottom burner,
# light switch, hinge cabinet).
PULLS = """
    <equality>
        <joint joint1="slide_cabinet" polycoef="0.37 0 0 0 0" solref="0.02 1"/>
        <joint joint1="microwave" polycoef="-0.75 0 0 0 0" solref="0.1 1"/>
        <joint joint1="light_switch" polycoef="-0.69 0 0 0 0" solref="0.2 1"/>
        <joint joint1="right_hinge_cabinet" polycoef="1.45 0 0 0 0" solref="0.22 1"/>
        <joint joint1="knob_Joint_2" polycoef="-0.88 0 0 0 0" solref="0.06 1"/>
    </equality>
"""


@pytest.fixture
def pulling_model(tmp_path):
    """kitchen_env_model.xml with PULLS, written next to links to the files it includes."""
    (tmp_path / "kitchen_assets").mkdir()
    os.symlink(os.path.join(KITCHEN_ASSETS, "franka_assets"), tmp_path / "franka_assets")
    source = os.path.join(KITCHEN_ASSETS, "kitchen_assets")
    for name in os.listdir(source):
        if name != "kitchen_env_model.xml":
            os.symlink(os.path.join(source, name), tmp_path / "kitchen_assets" / name)
    with open(os.path.join(source, "kitchen_env_model.xml")) as f:
        text = f.read()
    assert text.count("</mujoco>") == 1
    path = tmp_path / "kitchen_assets" / "kitchen_env_model.xml"
    path.write_text(text.replace("</mujoco>", PULLS + "</mujoco>"))
    return str(path)


def ours_alone(steps, seed, max_episode_steps, **options):
    """Our pool run as run_aligned runs it (same actions), for what it returns besides
    equality: the rewards, terminations and info masks of every step."""
    env = envfleet.make(
        TASK_ID,
        num_envs=NUM_ENVS,
        seed=seed,
        conventions="gymnasium",
        max_episode_steps=max_episode_steps,
        **options,
    )
    env.reset()
    drawn = robotics_reference.actions(env.single_action_space, steps, seed + 1)
    rewards, terminated, infos = [], [], []
    for t in range(steps):
        _, reward, term, _, info = env.step(drawn[t])
        rewards.append(reward)
        terminated.append(term)
        infos.append({key: info[key].copy() for key in INFO_KEYS})
    env.close()
    return np.array(rewards), np.array(terminated), infos


OPTION_CASES = {
    "defaults": {},
    # Two tasks, in another order than KitchenEnv's: the goal dicts follow it, and the
    # episode ends once both are done.
    "two_tasks": {"tasks_to_complete": ["microwave", "slide cabinet"]},
    # Completed tasks stay pending: each counts again on every step it stays done.
    "keep_tasks": {"remove_task_when_completed": False, "terminate_on_tasks_completed": False},
    # Keep the tasks but end the episode once every one has been done.
    "keep_and_end": {
        "tasks_to_complete": ["slide cabinet", "microwave", "slide cabinet"],
        "remove_task_when_completed": False,
    },
    # Other noise and another frame skip (42: the reference's check that round(1 / dt) is
    # its render_fps, 12, still holds).
    "noise": {"robot_noise_ratio": 0.05, "object_noise_ratio": 0.0, "frame_skip": 42},
}


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_alignment_with_tasks_completing(case, pulling_model, monkeypatch):
    options = OPTION_CASES[case]
    steps, max_steps = 64, 30
    counts = run_aligned(
        TASK_ID,
        3,
        steps,
        max_episode_steps=max_steps,
        reference=reference(pulling_model, monkeypatch),
        xml_file=pulling_model,
        **options,
    )
    rewards, terminated, infos = ours_alone(steps, 3, max_steps, xml_file=pulling_model, **options)
    assert counts["terminated"] == terminated.sum()
    step_masks = np.array([info["step_task_completions"] for info in infos])
    assert np.array_equal(rewards, step_masks.sum(axis=-1))
    assert rewards.sum() > 0
    goal = options.get("tasks_to_complete", TASKS)
    if options.get("remove_task_when_completed", True):
        assert rewards.max() < len(set(goal))  # tasks complete on different steps
    else:
        assert rewards.max() >= 2  # kept tasks count again
    if options.get("terminate_on_tasks_completed", True) and len(set(goal)) == 2:
        assert counts["terminated"] > 0
    else:
        assert counts["terminated"] == 0


# ---- Spaces, spec, goal functions -------------------------------------------------------------


def test_spaces_and_spec():
    env = envfleet.make(TASK_ID, num_envs=2, seed=0, conventions="gymnasium")
    ref, ref_obs, ref_info = robotics_reference.make(TASK_ID, seed=0)
    try:
        assert env.single_observation_space == ref.observation_space
        assert env.single_action_space == ref.action_space
        assert env.single_action_space.dtype == np.float64
        obs, info = env.reset()
        # The reference's own dict order (its _get_obs), the tasks in the option's order.
        assert list(obs) == list(ref_obs) == ["observation", "achieved_goal", "desired_goal"]
        assert list(obs["achieved_goal"]) == list(ref_obs["achieved_goal"]) == list(TASKS)
        assert list(env.single_observation_space) == list(obs)
        assert_same("reset obs", row(obs, 0), ref_obs)
        for key in INFO_KEYS:
            assert info[key].dtype == np.int32 and info[key].shape == (2, 7)
            np.testing.assert_array_equal(info[key][0], task_mask(ref_info[key]))
        assert env.spec.max_episode_steps == ref.spec.max_episode_steps == 280
        assert env.metadata["render_fps"] == ref.metadata["render_fps"] == 12
        two = envfleet.make_spec(TASK_ID, tasks_to_complete=["kettle", "microwave"])
        assert list(two.observation_space["desired_goal"]) == ["kettle", "microwave"]
        state_keys = list(envfleet.make_spec(TASK_ID).state_array_spec)
        assert "obs:desired_goal:bottom burner" in state_keys  # EnvPool's name for it
    finally:
        env.close()
        ref.close()


def row(obs, i):
    """Env i's observation of a batch (nested dicts of arrays)."""
    if isinstance(obs, dict):
        return {key: row(value, i) for key, value in obs.items()}
    return obs[i]


def test_config_tables_are_the_references():
    """kitchen.h's copies of franka_config.xml and init_qpos, through what they produce: a
    reset without noise observes init_qpos and zero velocities."""
    ref, _, _ = robotics_reference.make(TASK_ID, seed=0)
    robot = ref.unwrapped.robot_env
    env = envfleet.make(TASK_ID, num_envs=1, robot_noise_ratio=0.0, object_noise_ratio=0.0)
    obs, _ = env.reset()
    qpos = robot.init_qpos
    np.testing.assert_array_equal(obs["observation"][0, :9], qpos[:9])
    np.testing.assert_array_equal(obs["observation"][0, 18:39], qpos[9:])
    assert not obs["observation"][0, 9:18].any() and not obs["observation"][0, 39:].any()
    # The noise amplitudes and bounds the step reads.
    assert (
        robot.robot_pos_noise_amp.tolist()
        == [0.1] * 9
        + [0.005] * 2
        + [0.0005] * 6
        + [0.005] * 3
        + [0.1] * 3
        + [0.005] * 3
        + [0.1] * 3
    )
    assert (
        robot.robot_vel_noise_amp.tolist()
        == [0.1] * 9 + [0.005] * 11 + [0.1] * 3 + [0.005] * 3 + [0.1] * 3
    )
    assert robot.robot_pos_bound[:9].tolist() == [
        [-2.9, 2.9],
        [-1.8, 1.8],
        [-2.9, 2.9],
        [-3.1, 0.0],
        [-2.9, 2.9],
        [0.0, 3.8],
        [-2.9, 2.9],
        [0.0, 0.04],
        [0.0, 0.04],
    ]
    assert robot.robot_vel_bound[:9].tolist() == [[-10.0, 10.0]] * 9
    env.close()
    ref.close()


def _goal_batch(rng, n):
    """n random goal pairs around the goals: about half the tasks within BONUS_THRESH, and
    distances within a few ulps of it."""
    ref, _, _ = robotics_reference.make(TASK_ID, seed=0)
    goals = ref.unwrapped.goal
    ref.close()
    achieved, desired = {}, {}
    for task, goal in goals.items():
        desired[task] = np.broadcast_to(goal, (n, goal.size)).copy()
        direction = rng.normal(size=(n, goal.size))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        radius = rng.uniform(0.0, 0.6, (n, 1))
        radius[::7] = 0.3 + rng.integers(-3, 4, (len(radius[::7]), 1)) * np.spacing(0.3)
        achieved[task] = desired[task] + direction * radius
    return achieved, desired, goals


def test_goal_functions_take_batches():
    rng = np.random.default_rng(1)
    achieved, desired, _ = _goal_batch(rng, 1000)
    ref, _, _ = robotics_reference.make(TASK_ID, seed=0)
    kitchen = ref.unwrapped
    expected = []
    for i in range(1000):
        kitchen.tasks_to_complete = set(TASKS)
        one = {t: a[i] for t, a in achieved.items()}
        expected.append(kitchen.compute_reward(one, {t: d[i] for t, d in desired.items()}, {}))
    ref.close()
    spec = envfleet.make_spec(TASK_ID)
    rewards = spec.compute_reward(achieved, desired)
    assert rewards.dtype == np.float64
    np.testing.assert_array_equal(rewards, expected)
    assert 0 < rewards.mean() < 7
    # Any leading shape.
    grid = spec.compute_reward(
        {t: a.reshape(10, 100, -1) for t, a in achieved.items()},
        {t: d.reshape(10, 100, -1) for t, d in desired.items()},
    )
    np.testing.assert_array_equal(grid.ravel(), expected)
    assert not spec.compute_truncated(achieved, desired).any()


def test_step_results_are_the_goal_functions_of_its_obs_and_info(pulling_model):
    """reward == compute_reward(achieved, desired, info) and terminated ==
    compute_terminated(...) at every step, tasks completing and episodes ending."""
    for options in (
        {"tasks_to_complete": ["microwave", "slide cabinet"]},
        {"remove_task_when_completed": False},
    ):
        env = envfleet.make(
            TASK_ID,
            num_envs=3,
            seed=2,
            conventions="gymnasium",
            xml_file=pulling_model,
            max_episode_steps=40,
            **options,
        )
        env.reset()
        rng = np.random.default_rng(0)
        ended = completed = 0
        for _ in range(60):  # autoreset steps included: reward 0 and the reset's info
            obs, reward, terminated, _, info = env.step(rng.uniform(-1, 1, (3, 9)))
            again = env.spec.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
            np.testing.assert_array_equal(reward, again)
            done = env.spec.compute_terminated(obs["achieved_goal"], obs["desired_goal"], info)
            np.testing.assert_array_equal(terminated, done)
            ended += terminated.sum()
            completed += reward.sum()
        assert completed > 0
        if "tasks_to_complete" in options:
            assert ended > 0
        env.close()


# ---- Front ends -------------------------------------------------------------------------------


def test_dm_env_observation_nests_namedtuples():
    """EnvPool's dm layout: observation.desired_goal.bottom_burner (its fields identifiers),
    the same arrays as the Gymnasium front end's."""
    dm = envfleet.make_dm(TASK_ID, num_envs=2, seed=5)
    gym = envfleet.make(TASK_ID, num_envs=2, seed=5, conventions="gymnasium")
    try:
        ts = dm.reset()
        obs, _ = gym.reset()
        assert ts.observation._fields[:3] == ("observation", "achieved_goal", "desired_goal")
        assert type(ts.observation.desired_goal).__name__ == "desired_goal"
        assert ts.observation.desired_goal._fields[0] == "bottom_burner"
        for part in ("achieved_goal", "desired_goal"):
            for task, field in zip(TASKS, getattr(ts.observation, part), strict=True):
                np.testing.assert_array_equal(field, obs[part][task])
        np.testing.assert_array_equal(ts.observation.observation, obs["observation"])
        np.testing.assert_array_equal(ts.observation.tasks_to_complete, np.ones((2, 7)))
        spec = dm.observation_spec()
        assert spec.desired_goal.kettle.shape == (7,) and spec.desired_goal.kettle.name == "kettle"
        assert spec.achieved_goal.bottom_burner.name == "bottom burner"
        assert spec.tasks_to_complete.shape == (7,)
        action = np.zeros((2, 9))
        ts = dm.step(action)
        obs, *_ = gym.step(action)
        np.testing.assert_array_equal(
            ts.observation.achieved_goal.kettle, obs["achieved_goal"]["kettle"]
        )
    finally:
        dm.close()
        gym.close()


def test_reset_mask_and_same_step_autoreset_keep_the_nesting():
    env = envfleet.make(TASK_ID, num_envs=3, seed=1, conventions="gymnasium")
    try:
        obs, _ = env.reset()
        before = obs["achieved_goal"]["kettle"].copy()
        env.step(np.ones((3, 9)))
        obs, info = env.reset(options={"reset_mask": np.array([True, False, True])})
        np.testing.assert_array_equal(obs["achieved_goal"]["kettle"][[0, 2]], before[[0, 2]])
        assert not np.array_equal(obs["achieved_goal"]["kettle"][1], before[1])
        assert info["_tasks_to_complete"].tolist() == [True, False, True]
    finally:
        env.close()
    env = envfleet.make(
        TASK_ID,
        num_envs=2,
        seed=1,
        conventions="gymnasium",
        autoreset_mode="same_step",
        max_episode_steps=2,
    )
    try:
        env.reset()
        env.step(np.zeros((2, 9)))
        obs, _, _, truncated, info = env.step(np.zeros((2, 9)))
        assert truncated.all()
        final = info["final_obs"]
        assert list(final) == ["observation", "achieved_goal", "desired_goal"]
        assert final["desired_goal"]["kettle"].shape == (2, 7)
    finally:
        env.close()


# ---- Bad options and frames -------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, match",
    [
        ({"tasks_to_complete": ["toaster"]}, "tasks_to_complete"),
        ({"tasks_to_complete": []}, "tasks_to_complete"),
        ({"frame_skip": 0}, "frame_skip"),
        ({"robot_noise_ratio": -0.1}, "noise_ratio"),
        ({"xml_file": "adroit_hand/adroit_door.xml"}, "nq = 30"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises(ValueError, match=match):
        envfleet.make(TASK_ID, num_envs=1, **options)


def test_unknown_task_is_refused_by_the_reference_too():
    with pytest.raises(ValueError, match="toaster"):
        robotics_reference.make(TASK_ID, tasks_to_complete=["toaster"])


WIDTH, HEIGHT = 48, 40


def test_frame_matches_the_reference():
    """DEFAULT_CAMERA_CONFIG's free view (lookat, distance, azimuth, elevation), pixel for
    pixel, after a reset and a step."""
    ours = envfleet.make(
        TASK_ID,
        num_envs=1,
        seed=3,
        render_mode="rgb_array",
        render_width=WIDTH,
        render_height=HEIGHT,
        conventions="gymnasium",
    )
    ref, _, _ = robotics_reference.make(
        TASK_ID, 3, render_mode="rgb_array", width=WIDTH, height=HEIGHT
    )
    try:
        ours.reset()
        for _ in range(2):
            frame = ours.render(env_ids=[0])[0]
            assert frame.shape == (HEIGHT, WIDTH, 3)
            np.testing.assert_array_equal(frame, ref.render())
            ours.step(np.full((1, 9), 0.5))
            ref.step(np.full(9, 0.5))
    finally:
        ours.close()
        ref.close()
