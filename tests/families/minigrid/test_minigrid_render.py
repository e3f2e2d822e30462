"""MiniGrid frames pixel for pixel: ``render_mode="rgb_array"`` against minigrid 3.2.0's
``env.render()`` (``get_frame``: tile_size 32, the agent's view highlighted, 3x supersampling),
for every id, through episodes of random actions; the frame options (tile_size, highlight,
agent_pov, agent_view_size) and the observation wrappers (``obs_wrapper``: minigrid's
FullyObsWrapper, RGBImgObsWrapper and RGBImgPartialObsWrapper) on ids with every kind of
object. No tolerance: render.h repeats NumPy's arithmetic.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from minigrid_reference import ReferencePool, curious, import_minigrid

import envfleet
from envfleet import registry

IDS = sorted(
    tid for tid in envfleet.list_all_envs() if registry.registration(tid).family.name == "minigrid"
)
FRAMES = 12

# minigrid's ObstructedMaze v0 ids warn that v1 exists.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")


@pytest.fixture(scope="module", autouse=True)
def reference():
    return import_minigrid()


def assert_frame_equal(ours: np.ndarray, ref: np.ndarray, where: str) -> None:
    assert ours.shape == ref.shape and ours.dtype == ref.dtype == np.uint8, (
        where,
        ours.shape,
        ref.shape,
    )
    if np.array_equal(ours, ref):
        return
    differ = np.any(ours != ref, axis=-1)
    y, x = np.argwhere(differ)[0]
    raise AssertionError(
        f"{where}: {differ.mean():.4%} of pixels differ ({differ.sum()}), first at row {y} "
        f"column {x}: ours {ours[y, x].tolist()}, minigrid's {ref[y, x].tolist()}"
    )


def run_frames(task_id: str, seed: int, steps: int, options: dict, check) -> None:
    """One env of ours and of minigrid's in lockstep; check(ours_obs, ours_frame, ref_env,
    where) after the reset and every step."""
    render_mode = "rgb_array"
    ours = envfleet.make(
        task_id, num_envs=1, seed=seed, conventions="gymnasium", render_mode=render_mode,
        **options,
    )  # fmt: skip
    ref = ReferencePool(task_id, 1, options, render_mode=render_mode)
    try:
        rng = np.random.default_rng(seed)
        obs, _ = ours.reset()
        ref.reset(seed)
        check(obs, ours.render()[0], ref.envs[0], f"{task_id} {options} reset")
        num_actions = int(ours.single_action_space.n)
        for t in range(steps):
            actions = curious(rng, num_actions, ref)
            obs = ours.step(actions)[0]
            ref.step(actions)
            check(obs, ours.render()[0], ref.envs[0], f"{task_id} {options} step {t}")
    finally:
        ours.close()
        ref.close()


def check_render(obs, frame, ref_env, where):
    assert_frame_equal(frame, ref_env.render(), where)


@pytest.mark.parametrize("task_id", IDS)
def test_frames_match_minigrid(task_id):
    run_frames(task_id, seed=3, steps=FRAMES, options={}, check=check_render)


# Ids with every kind of object: lava, doors in every state, keys, balls, boxes, walls
# (DoorKey: a locked door opened by its key; Playground: doors, keys, balls, boxes).
OBJECT_IDS = [tid for tid in ("MiniGrid-DoorKey-6x6-v0", "MiniGrid-Playground-v0",
                              "MiniGrid-LavaCrossingS9N2-v0", "MiniGrid-Empty-Random-5x5-v0")
              if tid in IDS]  # fmt: skip

FRAME_OPTIONS = [
    {"tile_size": 8},
    {"tile_size": 13, "highlight": False},
    {"agent_pov": True},
    {"agent_view_size": 5, "tile_size": 16},
    {"agent_view_size": 9, "see_through_walls": True, "tile_size": 12},
]


@pytest.mark.parametrize("options", FRAME_OPTIONS, ids=str)
@pytest.mark.parametrize("task_id", OBJECT_IDS)
def test_frame_options_match_minigrid(task_id, options):
    run_frames(task_id, seed=8, steps=30, options=options, check=check_render)


def wrapper_check(name: str, tile_size: int):
    wrappers = importlib.import_module("minigrid.wrappers")

    def check(obs, frame, ref_env, where):
        wrapper = getattr(wrappers, name)
        wrapped = wrapper(ref_env) if name == "FullyObsWrapper" else wrapper(ref_env, tile_size)
        want = wrapped.observation(ref_env.unwrapped.gen_obs())
        image = obs["image"][0]
        assert wrapped.observation_space["image"].shape == image.shape, where
        if name == "FullyObsWrapper":
            np.testing.assert_array_equal(image, want["image"], err_msg=where)
        else:
            assert_frame_equal(image, want["image"], f"{where}, {name} image")

    return check


@pytest.mark.parametrize(
    ("wrapper", "tile_size"),
    [("FullyObsWrapper", 8), ("RGBImgObsWrapper", 8), ("RGBImgPartialObsWrapper", 8),
     ("RGBImgObsWrapper", 5), ("RGBImgPartialObsWrapper", 11)],
)  # fmt: skip
@pytest.mark.parametrize("task_id", OBJECT_IDS)
def test_observation_wrappers_match_minigrids(task_id, wrapper, tile_size):
    options = {"obs_wrapper": wrapper, "obs_tile_size": tile_size}
    run_frames(task_id, seed=4, steps=30, options=options, check=wrapper_check(wrapper, tile_size))
