"""The PointMaze tasks against gymnasium-robotics 1.4.2 on MuJoCo 4.0.0, bit for bit.

The maze's model (Maze.make_maze writes it into a temporary XML file) is built by
cpp/families/robotics/point_maze_model.h alone, compiled here into a small program, and
compared with the reference's byte for byte (mj_saveModel) for every map, scaled and not.
Every id runs whole episodes next to the reference (robotics_reference.run_aligned: three
envs, seeds s + i, NEXT_STEP autoreset on both sides) with a controller that follows the
maze's corridors to the goal, mixed with random actions, so that the ball hits walls, reaches
goals (success, the sparse reward's 1.0) and, with reset_target, gets new goals; some ids at
their registered time limit, the others at a shorter one. Then: the options (those the
reference's PointMazeEnv takes, and those it fixes, against a reference built with them),
custom maps, the batched goal functions against the reference's per-pair calls, bad options,
and frames.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections import deque
from unittest import mock

import gymnasium
import mujoco
import numpy as np
import pytest
import robotics_reference
from gymnasium_robotics.envs.maze import maps, maze_v4
from robotics_reference import NUM_ENVS, make_reference_vec, run_aligned

import envfleet
from envfleet import _robotics  # noqa: F401  (the engine: the test extra installs it)
from envfleet.families.robotics import ASSETS_DIR
from envfleet.families.robotics.maze import TASKS
from envfleet.registry import registration

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# EnvPool 1.2.5's PointMaze ids (envpool.list_all_envs()), all of the reference's PointMaze ids.
ENVPOOL_IDS = [
    f"PointMaze_{maze}{suffix}-v3"
    for maze in (
        "Open",
        "UMaze",
        "Medium",
        "Large",
        "Open_Diverse_G",
        "Open_Diverse_GR",
        "Medium_Diverse_G",
        "Medium_Diverse_GR",
        "Large_Diverse_G",
        "Large_Diverse_GR",
    )
    for suffix in ("", "Dense")
]
TASK_IDS = [f"{task}{suffix}-v3" for task in TASKS for suffix in ("", "Dense")]
MAP_NAMES = [
    "EMPTY_MAZE",
    "U_MAZE",
    "OPEN",
    "OPEN_DIVERSE_G",
    "OPEN_DIVERSE_GR",
    "MEDIUM_MAZE",
    "MEDIUM_MAZE_DIVERSE_G",
    "MEDIUM_MAZE_DIVERSE_GR",
    "LARGE_MAZE",
    "LARGE_MAZE_DIVERSE_G",
    "LARGE_MAZE_DIVERSE_GR",
]


def rows_of(maze_map) -> str:
    """A map of maps.py (a list of rows of 1, 0, "r", "g", "c") as the maze_map option's
    rows."""
    return "/".join("".join(str(cell) for cell in row) for row in maze_map)


def map_of(task_id: str):
    return getattr(maps, TASKS[task_id.replace("Dense", "").removesuffix("-v3")][0])


@pytest.fixture(scope="module", autouse=True)
def remove_reference_xml_files():
    """The reference's Maze.make_maze leaves the XML file it writes in the temporary folder:
    those of this module's reference envs (and only those) are removed after it."""
    made = []
    make_maze = maze_v4.Maze.make_maze.__func__

    def recording(cls, *args, **kwargs):
        maze, path = make_maze(cls, *args, **kwargs)
        made.append(path)
        return maze, path

    with mock.patch.object(maze_v4.Maze, "make_maze", classmethod(recording)):
        yield
    for path in made:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


# ---- A driver ---------------------------------------------------------------------------------


class MazeWalker:
    """A policy that reaches goals through the maze: from the ball's cell to the next cell of
    a shortest path (breadth-first over the free cells) toward the goal's cell, or to the goal
    itself in its cell, by a PD law on the observation (saturating past the action box, which
    the env clips); a share of the steps take random actions instead, so the ball also hits
    walls. Deterministic for its seed; both sides get the same actions."""

    def __init__(self, maze_map, scaling=1.0, seed=0, random_share=0.2):
        self.walls = np.array([[cell == 1 for cell in row] for row in maze_map])
        self.rows, self.cols = self.walls.shape
        self.scaling = scaling
        self.random_share = random_share
        self.rng = np.random.default_rng(seed)
        self.paths = {}  # goal cell -> {cell: steps to it}

    def cell(self, xy):
        i = int(np.floor((self.rows / 2 * self.scaling - xy[1]) / self.scaling))
        j = int(np.floor((xy[0] + self.cols / 2 * self.scaling) / self.scaling))
        return min(max(i, 0), self.rows - 1), min(max(j, 0), self.cols - 1)

    def centre(self, cell):
        i, j = cell
        s = self.scaling
        return np.array([(j + 0.5) * s - self.cols / 2 * s, self.rows / 2 * s - (i + 0.5) * s])

    def steps_to(self, goal):
        if goal not in self.paths:
            steps, queue = {goal: 0}, deque([goal])
            while queue:
                i, j = queue.popleft()
                for n in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                    free = 0 <= n[0] < self.rows and 0 <= n[1] < self.cols and not self.walls[n]
                    if free and n not in steps:
                        steps[n] = steps[(i, j)] + 1
                        queue.append(n)
            self.paths[goal] = steps
        return self.paths[goal]

    def __call__(self, obs, t):
        actions = np.empty((len(obs["achieved_goal"]), 2))
        for k, (ball, state, goal) in enumerate(
            zip(obs["achieved_goal"], obs["observation"], obs["desired_goal"], strict=True)
        ):
            if self.rng.random() < self.random_share:
                actions[k] = self.rng.uniform(-1.2, 1.2, 2)
                continue
            here, there = self.cell(ball), self.cell(goal)
            steps = self.steps_to(there)
            target = goal
            if here != there and here in steps:
                i, j = here
                near = ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1))
                target = self.centre(min(near, key=lambda n: steps.get(n, np.inf)))
            actions[k] = 4.0 * (target - ball) - 0.6 * state[2:4]
        return np.clip(actions, -1.2, 1.2).astype(np.float32)


def walker(task_id, seed=0, **kwargs):
    return MazeWalker(map_of(task_id), seed=seed, **kwargs)


# ---- Ids ----------------------------------------------------------------------------------------


def test_ids_are_envpools_with_the_references_time_limits():
    ours = sorted(i for i in envfleet.list_all_envs() if i.startswith("PointMaze"))
    assert ours == sorted(ENVPOOL_IDS) == sorted(TASK_IDS)
    for task_id in TASK_IDS:
        ref = gymnasium.spec(task_id)
        reg = registration(task_id)
        assert reg.max_episode_steps == ref.max_episode_steps, task_id
        assert rows_of(ref.kwargs["maze_map"]) == rows_of(map_of(task_id))
        assert reg.options["reward_type"] == ref.kwargs["reward_type"]


def test_spaces_and_spec():
    env = envfleet.make("PointMaze_MediumDense-v3", num_envs=2, conventions="gymnasium")
    ref, _, ref_info = robotics_reference.make("PointMaze_MediumDense-v3", seed=0)
    try:
        assert env.single_observation_space == ref.observation_space
        assert env.single_action_space == ref.action_space
        obs, info = env.reset()
        assert list(obs) == ["observation", "achieved_goal", "desired_goal"]
        assert [key.name for key in env.spec.info_keys] == list(ref_info) == ["success"]
        assert info["success"].dtype == np.bool_
        assert env.spec.max_episode_steps == 600
        assert env.metadata["render_fps"] == ref.metadata["render_fps"] == 50
    finally:
        env.close()
        ref.close()


# ---- The model ----------------------------------------------------------------------------------

MODEL_PROGRAM = r"""
#include <cstdlib>
#include "families/robotics/point_maze_model.h"

// argv: agent XML, maze_map, maze_size_scaling, maze_height, output file.
int main(int argc, char** argv) {
  if (argc != 6) return 2;
  const envfleet::robotics::MazeMap map = envfleet::robotics::ParseMazeMap(argv[2]);
  const auto model = envfleet::robotics::LoadMazeModel(argv[1], map, std::atof(argv[3]),
                                                       std::atof(argv[4]));
  mj_saveModel(model.get(), argv[5], nullptr, 0);
  return 0;
}
"""


@pytest.fixture(scope="module")
def model_program(tmp_path_factory):
    """point_maze_model.h's LoadMazeModel as a program that saves the model it builds."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    assert compiler, "a C++ compiler is needed to build the model check (set CXX)"
    folder = tmp_path_factory.mktemp("maze_model")
    source, program = folder / "save_model.cc", folder / "save_model"
    source.write_text(MODEL_PROGRAM)
    mujoco_dir = os.path.dirname(mujoco.__file__)
    subprocess.run(
        [
            compiler,
            "-std=c++17",
            "-O1",
            f"-I{REPO}/cpp",
            "-isystem",
            f"{mujoco_dir}/include",
            str(source),
            "-o",
            str(program),
            f"{mujoco_dir}/libmujoco.so.4.0.0",
            f"-Wl,-rpath,{mujoco_dir}",
        ],
        check=True,
        capture_output=True,
    )
    return program, folder


def reference_model_bytes(maze_map, maze_size_scaling, maze_height, path) -> bytes:
    """The model of the reference's PointMazeEnv (with the scaling and height its MazeEnv
    takes), saved by mj_saveModel."""
    with maze_arguments(maze_size_scaling=maze_size_scaling, maze_height=maze_height):
        env = gymnasium.make("PointMaze_UMaze-v3", maze_map=maze_map).unwrapped
    mujoco.mj_saveModel(env.point_env.model, str(path), None)
    env.close()
    return path.read_bytes()


@pytest.mark.parametrize("scaling, height", [(1, 0.4), (1.3, 0.7), (0.1, 0.33)])
def test_model_is_the_references_byte_for_byte(model_program, scaling, height):
    program, folder = model_program
    agent = os.path.join(ASSETS_DIR, "point", "point.xml")  # PointMazeEnv's agent
    cases = [(name, getattr(maps, name)) for name in MAP_NAMES]
    cases.append((rows_of(maps.LARGE_MAZE_DIVERSE_GR), maps.LARGE_MAZE_DIVERSE_GR))
    for option, maze_map in cases:
        ours = folder / "ours.mjb"
        subprocess.run(
            [str(program), agent, option, repr(float(scaling)), repr(height), str(ours)], check=True
        )
        expected = reference_model_bytes(maze_map, scaling, height, folder / "reference.mjb")
        assert ours.read_bytes() == expected, f"{option} at scaling {scaling}, height {height}"


# ---- Alignment ----------------------------------------------------------------------------------

# Ids run at their registered time limit (the others at 120 steps, for time).
FULL_LENGTH_IDS = [
    "PointMaze_UMaze-v3",
    "PointMaze_MediumDense-v3",
    "PointMaze_Large_Diverse_GR-v3",
]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment(task_id):
    limit = registration(task_id).max_episode_steps if task_id in FULL_LENGTH_IDS else 120
    counts = run_aligned(task_id, 11, 2 * limit + 5, limit, policy=walker(task_id, seed=1))
    assert counts["truncated"] == 2 * NUM_ENVS  # continuing tasks: episodes end by truncation
    assert counts["terminated"] == 0


@pytest.mark.parametrize("task_id", ["PointMaze_UMaze-v3", "PointMaze_OpenDense-v3"])
def test_alignment_random_actions(task_id):
    counts = run_aligned(task_id, 5, 250, 100)
    assert counts["truncated"] == 2 * NUM_ENVS


def test_goals_are_reached():
    """The driver reaches goals (so success and the sparse reward's 1.0 are compared) in the
    small mazes within 120 steps, and in the large ones at their time limit."""
    for task_id in ("PointMaze_UMaze-v3", "PointMaze_Open_Diverse_GR-v3", "PointMaze_Large-v3"):
        counts = run_aligned(
            task_id, 11, 300, 800 if "Large" in task_id else 120, policy=walker(task_id, seed=1)
        )
        assert counts["successes"] > 0, task_id


class GoalChanges:
    """Wraps a policy, counting the steps whose desired goal differs from the one before while
    no episode ended (time limits past the run): each is a goal redrawn by update_goal."""

    def __init__(self, policy):
        self.policy, self.previous, self.count = policy, None, 0

    def __call__(self, obs, t):
        if self.previous is not None:
            self.count += int(np.any(obs["desired_goal"] != self.previous, axis=1).sum())
        self.previous = obs["desired_goal"].copy()
        return self.policy(obs, t)


@pytest.mark.parametrize(
    "task_id", ["PointMaze_UMaze-v3", "PointMaze_OpenDense-v3", "PointMaze_Medium_Diverse_GR-v3"]
)
def test_reset_target_draws_new_goals(task_id):
    policy = GoalChanges(walker(task_id, seed=2))
    counts = run_aligned(task_id, 3, 400, 1000, policy=policy, reset_target=True)
    assert counts["truncated"] == 0 and counts["terminated"] == 0
    assert policy.count > 0  # goals were reached and redrawn, on both sides alike


@pytest.mark.parametrize("task_id", ["PointMaze_UMazeDense-v3", "PointMaze_Open_Diverse_G-v3"])
def test_episodic_tasks_end_at_the_goal(task_id):
    # continuing_task=False terminates at the goal (reset_target then does nothing).
    counts = run_aligned(
        task_id,
        8,
        300,
        150,
        policy=walker(task_id, seed=3),
        continuing_task=False,
        reset_target=True,
    )
    assert counts["terminated"] > 0


# ---- Options ------------------------------------------------------------------------------------


@contextlib.contextmanager
def maze_arguments(**arguments):
    """Makes the reference's PointMazeEnv pass these arguments to MazeEnv (maze_size_scaling,
    maze_height, position_noise_range), which its constructor fixes (1, 0.4, 0.25) and would
    refuse from its caller: how the options that EnvPool (and envfleet) add are compared."""
    original = maze_v4.MazeEnv.__init__

    def init(env, agent_xml_path, **kwargs):
        original(env, agent_xml_path, **{**kwargs, **arguments})

    with mock.patch.object(maze_v4.MazeEnv, "__init__", init):
        yield


def option_reference(task_id, frame_skip=1, maze_map=None, **arguments):
    """A maker of reference vector envs built with MazeEnv ``arguments``, PointEnv's
    ``frame_skip`` (set after construction: its constructor fixes 1 and MujocoEnv asserts its
    render_fps against it) and the reference's own list-of-lists ``maze_map``."""

    def make(num_envs, **kwargs):
        # run_aligned passes the pool's options on: those the reference's constructor refuses
        # are given above instead.
        for name in (*arguments, "frame_skip", "maze_map"):
            kwargs.pop(name, None)
        if maze_map is not None:
            kwargs["maze_map"] = maze_map
        with maze_arguments(**arguments):
            ref = make_reference_vec(task_id, num_envs, **kwargs)
        for env in ref.envs:
            env.unwrapped.point_env.frame_skip = frame_skip
        return ref

    return make


OPTION_CASES = {
    "scaled": ("PointMaze_Medium-v3", dict(maze_size_scaling=1.7, maze_height=0.9), 1.7),
    "noise": ("PointMaze_UMazeDense-v3", dict(position_noise_range=0.1), 1.0),
    "frame_skip": ("PointMaze_Open_Diverse_GR-v3", dict(frame_skip=3), 1.0),
    "small": (
        "PointMaze_Large_Diverse_G-v3",
        dict(maze_size_scaling=0.6, position_noise_range=0.4, maze_height=0.2),
        0.6,
    ),
}


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_options_the_reference_fixes(case):
    task_id, options, scaling = OPTION_CASES[case]
    reference = option_reference(task_id, **options)
    policy = MazeWalker(map_of(task_id), scaling=scaling, seed=4)
    counts = run_aligned(
        task_id, 6, 300, 140, policy=policy, reference=reference, reset_target=True, **options
    )
    assert counts["truncated"] == 2 * NUM_ENVS


@pytest.mark.parametrize(
    "options",
    [
        dict(reward_type="dense"),
        dict(reward_type="sparse", continuing_task=False),
        dict(continuing_task=True, reset_target=True),
        dict(continuing_task=False, reset_target=False),
    ],
)
def test_options_the_reference_takes(options):
    task_id = "PointMaze_Open-v3"
    counts = run_aligned(task_id, 9, 260, 120, policy=walker(task_id, seed=5), **options)
    assert counts["truncated"] + counts["terminated"] > 0


CUSTOM_MAPS = {
    # goals and resets apart; only free cells (every one both); g cells only (resets: the 0s).
    "apart": [[1, 1, 1, 1, 1, 1], [1, "r", 0, 1, "g", 1], [1, 0, 0, 0, "c", 1], [1, 1, 1, 1, 1, 1]],
    "free": [[1, 1, 1, 1], [1, 0, 0, 1], [1, 0, 0, 1], [1, 0, 1, 1], [1, 1, 1, 1]],
    "goals": [[1, 1, 1, 1, 1], [1, "g", 0, 0, 1], [1, 1, 1, "g", 1], [1, 1, 1, 1, 1]],
}


@pytest.mark.parametrize("name", sorted(CUSTOM_MAPS))
def test_custom_maps(name):
    maze_map = CUSTOM_MAPS[name]
    for option in (rows_of(maze_map), "\n".join(" ".join(str(c) for c in row) for row in maze_map)):
        policy = MazeWalker(maze_map, seed=6)
        reference = option_reference("PointMaze_UMaze-v3", maze_map=maze_map)
        counts = run_aligned(
            "PointMaze_UMaze-v3",
            4,
            150,
            60,
            policy=policy,
            reference=reference,
            maze_map=option,
            reset_target=True,
        )
        assert counts["truncated"] == 2 * NUM_ENVS


def test_named_maps_are_maps_py():
    """Every name the maze_map option takes is its map of maps.py: goal and reset cells
    included, which the model check does not see (EMPTY_MAZE is no id's)."""
    for name in MAP_NAMES:
        reference = option_reference("PointMaze_UMaze-v3", maze_map=getattr(maps, name))
        run_aligned("PointMaze_UMaze-v3", 2, 60, 25, reference=reference, maze_map=name)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"reward_type": "shaped"}, "reward_type"),
        ({"maze_map": "TINY_MAZE"}, "maze_map must name a maze"),
        ({"maze_map": "111/10g1/111"}, "maze_map: every row"),
        ({"maze_map": "111/111"}, "maze_map must have a goal cell"),
        ({"maze_map": "111/101/111"}, "maze_map: every goal cell needs a reset cell"),
        ({"maze_map": "1111/1gr1/1111", "position_noise_range": 0.6}, "maze_map: every goal"),
        (
            {"maze_map": "11111/1gg01/11111", "maze_size_scaling": 0.5, "reset_target": True},
            "some two goal cells",
        ),
        ({"maze_size_scaling": 0.0}, "maze_size_scaling"),
        ({"maze_height": -1.0}, "maze_height"),
        ({"position_noise_range": -0.1}, "position_noise_range"),
        ({"frame_skip": 0}, "frame_skip"),
        ({"xml_file": "point/nothing.xml"}, "xml_file"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        envfleet.make("PointMaze_UMaze-v3", num_envs=1, **options)


# ---- Goal functions -----------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", ["PointMaze_UMaze-v3", "PointMaze_LargeDense-v3"])
@pytest.mark.parametrize("continuing_task", [True, False])
def test_goal_functions_take_batches(task_id, continuing_task):
    env, _, _ = robotics_reference.make(task_id, seed=0, continuing_task=continuing_task)
    ref = env.unwrapped
    spec = envfleet.make_spec(task_id, continuing_task=continuing_task)
    rng = np.random.default_rng(1)
    achieved = rng.uniform(-4, 4, (1000, 2))
    desired = achieved + rng.normal(0.0, 0.5, (1000, 2))
    desired[::10] = achieved[::10]  # distance 0
    desired[5::10] = achieved[5::10] + [0.45, 0.0]  # at the radius
    expected = np.array(
        [ref.compute_reward(a, d, {}) for a, d in zip(achieved, desired, strict=True)]
    )
    rewards = spec.compute_reward(achieved, desired, {})
    assert rewards.dtype == expected.dtype == np.float64
    np.testing.assert_array_equal(rewards, expected)
    grid = spec.compute_reward(achieved.reshape(10, 100, 2), desired.reshape(10, 100, 2))
    np.testing.assert_array_equal(grid.ravel(), expected)
    terminated = np.array(
        [ref.compute_terminated(a, d, {}) for a, d in zip(achieved, desired, strict=True)]
    )
    ours = spec.compute_terminated(achieved, desired, {})
    assert ours.dtype == np.bool_
    np.testing.assert_array_equal(ours, terminated)
    assert terminated.any() != continuing_task
    truncated = spec.compute_truncated(achieved, desired, {})
    assert truncated.shape == (1000,) and not truncated.any()
    assert ref.compute_truncated(achieved[0], desired[0], {}) is False
    with pytest.raises(ValueError, match="same shape"):
        spec.compute_reward(achieved, desired[:, :1])
    env.close()


@pytest.mark.parametrize("task_id", ["PointMaze_Open-v3", "PointMaze_OpenDense-v3"])
def test_step_reward_is_compute_reward_of_its_goals(task_id):
    env = envfleet.make(
        task_id, num_envs=3, seed=2, conventions="gymnasium", max_episode_steps=1000
    )
    policy = walker(task_id, seed=7)
    obs, _ = env.reset()
    seen = set()
    for t in range(300):
        obs, reward, terminated, _, info = env.step(policy(obs, t))
        again = env.spec.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
        np.testing.assert_array_equal(reward, again)
        np.testing.assert_array_equal(
            terminated, env.spec.compute_terminated(obs["achieved_goal"], obs["desired_goal"])
        )
        seen.update(info["success"].tolist())
    assert seen == {False, True}
    env.close()


# ---- Frames -------------------------------------------------------------------------------------

WIDTH, HEIGHT = 64, 48  # not square, so that a swapped width and height cannot pass


def test_frames_match_the_reference():
    """PointMazeEnv's free view (its camera distance for the maze) and the goal marker (the
    target site, which update_target_site_pos moves in the model: drawn where the last
    kinematics put it, so a goal redrawn by a step shows from the next step on), pixel for
    pixel: after the reset, after a step and around a redrawn goal."""
    task_id = "PointMaze_UMaze-v3"
    kwargs = dict(reset_target=True, max_episode_steps=1000)
    ours = envfleet.make(
        task_id,
        num_envs=1,
        seed=3,
        render_mode="rgb_array",
        render_width=WIDTH,
        render_height=HEIGHT,
        conventions="gymnasium",
        **kwargs,
    )
    ref, ref_obs, _ = robotics_reference.make(
        task_id, 3, render_mode="rgb_array", width=WIDTH, height=HEIGHT, **kwargs
    )
    policy = walker(task_id, seed=2, random_share=0.0)

    def same_frame(when):
        frame = ours.render(env_ids=[0])[0]
        assert frame.shape == (HEIGHT, WIDTH, 3)
        same = np.all(frame == ref.render(), axis=-1)
        assert same.all(), f"{when}: {same.mean():.2%} of pixels equal"

    try:
        obs, _ = ours.reset()
        same_frame("reset")
        redrawn = None
        for t in range(300):
            action = policy(obs, t)
            obs, _, _, _, info = ours.step(action)
            ref.step(action[0])
            if t == 0:
                same_frame("step 0")
            if info["success"][0]:  # the goal was redrawn: the old marker still shows
                same_frame(f"step {t}, goal redrawn")
                redrawn = t
            if redrawn is not None and t == redrawn + 1:
                same_frame(f"step {t}, the new goal shown")
                break
        assert redrawn is not None, "the driver reached no goal"
    finally:
        ours.close()
        ref.close()


def test_from_pixels_observes_the_frames():
    env = envfleet.make(
        "PointMaze_UMaze-v3",
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
        assert info["success"].shape == (2,)
        obs, reward, _, _, info = env.step(np.ones((2, 2), np.float32))
        assert obs.std() > 0 and reward.shape == (2,)
    finally:
        env.close()
