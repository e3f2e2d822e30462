"""Frames of the dm_control family against dm_control 1.0.50's own ``physics.render``.

Both sides draw with libmujoco 4.0.0's renderer through the same GL backend (MUJOCO_GL, egl
unless set) in this process: envfleet on its worker threads (cpp/common/mujoco/render.h),
dm_control through its Camera (a fresh free camera from mjv_defaultFreeCamera per call, its
scene budget, rangefinder rays hidden). The reference is the task from dm_control_reference,
whose physics matches envfleet's bit for bit (test_dm_control.py), so the frames are compared
exactly: no tolerance.

Frames are drawn small (FRAME_SIZE) where every id is covered, to keep the software rasteriser's
time in check; the default 320x240 and from_pixels' 84x84 are compared on a few tasks.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

# dm_control picks its GL backend when first imported, envfleet when it makes its first context.
os.environ.setdefault("MUJOCO_GL", "egl")

import envfleet  # noqa: E402
from envfleet import registry  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import dm_control_reference  # noqa: E402
from sampling import first_of_each  # noqa: E402
from test_dm_control import TASKS  # noqa: E402

FRAME_SIZE = (48, 64)  # (height, width) for the every-id sweep
STEPS = 5  # steps taken (random actions) before the second compared frame


def reference(task_id: str, seed: int):
    domain, task = TASKS[task_id]
    return dm_control_reference.load(domain, task, seed, render=True)


def random_actions(spec, count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, size=(count, *spec.shape))


def assert_frame_equal(got: np.ndarray, want: np.ndarray, where: str) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype == np.uint8, where
    differ = (got != want).any(axis=-1)
    assert not differ.any(), f"{where}: {differ.mean():.2%} of pixels differ"


# A task per domain by default (its model and cameras); the others' targets and props extended.
@pytest.mark.parametrize("task_id", first_of_each(sorted(TASKS), group=lambda t: TASKS[t][0]))
def test_frames_match_physics_render(task_id):
    # Every camera of every task, after the reset and after a few steps.
    height, width = FRAME_SIZE
    env = envfleet.make_dm(
        task_id,
        num_envs=1,
        seed=4,
        render_mode="rgb_array",
        render_width=width,
        render_height=height,
        conventions="dm_env",
    )
    ref = reference(task_id, 4)
    ref.reset()
    env.reset()
    cameras = range(-1, ref.physics.model.ncam)
    assert env.spec.render.num_cameras == ref.physics.model.ncam
    actions = random_actions(ref.action_spec(), STEPS, seed=1)
    for t in range(STEPS + 1):
        if t in (0, STEPS):
            for camera in cameras:
                want = ref.physics.render(height, width, camera_id=camera)
                got = env.render(env_ids=[0], camera_id=camera)[0]
                assert_frame_equal(got, want, f"{task_id} camera {camera} step {t}")
        if t < STEPS:
            env.step(actions[t][None])
            ref.step(actions[t])
    env.close()


@pytest.mark.parametrize("task_id", ["CheetahRun-v1", "QuadrupedEscape-v1", "FishSwim-v1"])
def test_default_size_is_physics_renders(task_id):
    # physics.render()'s defaults: 320x240 from the free camera. Escape draws a new terrain
    # every episode (uploaded before each frame), fish a target whose visibility is per task.
    env = envfleet.make_dm(
        task_id, num_envs=1, seed=9, render_mode="rgb_array", conventions="dm_env"
    )
    spec = env.spec.render
    assert (spec.width, spec.height, spec.resizable) == (320, 240, True)
    ref = reference(task_id, 9)
    for episode in range(2):
        ref.reset()
        env.reset()
        assert_frame_equal(env.render()[0], ref.physics.render(), f"{task_id} episode {episode}")
    env.close()


def test_render_fps_is_the_control_rate():
    # One frame per control step: round(1 / control_timestep), or the physics timestep where
    # the task steps the physics once per control step.
    for task_id, (domain, task) in TASKS.items():
        if task_id not in ("CheetahRun-v1", "WalkerWalk-v1", "DogRun-v1", "FishSwim-v1"):
            continue
        ref = dm_control_reference.load(domain, task, 0)
        want = round(1 / ref.control_timestep())
        assert envfleet.make_spec(task_id).render.fps == want, task_id


@pytest.mark.parametrize(
    ("task_id", "camera", "stack"),
    [("WalkerWalk-v1", 0, 3), ("QuadrupedRun-v1", 2, 1), ("ReacherHard-v1", -1, 2)],
)
def test_from_pixels_matches_the_pixels_wrapper(task_id, camera, stack):
    # dm_control's pixels wrapper (pixels_only=True) gives {"pixels": physics.render(84, 84,
    # camera_id)} as (H, W, 3); envfleet gives (3 * frame_stack, H, W), the last frame_stack
    # frames oldest first, a reset filling the stack (the layout of every envfleet pixel task).
    num_envs = 2
    env = envfleet.make_dm(
        task_id,
        num_envs=num_envs,
        seed=3,
        from_pixels=True,
        render_camera_id=camera,
        frame_stack=stack,
        conventions="dm_env",
    )
    assert list(env.observation_spec()._fields) == ["pixels", "env_id"]
    assert env.observation_spec().pixels.shape == (3 * stack, 84, 84)
    refs = [reference(task_id, 3 + i) for i in range(num_envs)]
    history = []
    for ref in refs:
        ref.reset()
        history.append([ref.physics.render(84, 84, camera_id=camera)] * stack)
    actions = random_actions(refs[0].action_spec(), 8, seed=2)
    ts = env.reset()
    for t in range(9):
        for i in range(num_envs):
            want = np.concatenate([frame.transpose(2, 0, 1) for frame in history[i]])
            got = ts.observation.pixels[i]
            assert got.shape == want.shape, task_id
            assert (got == want).all(), f"{task_id} env {i} step {t}"
        if t == 8:
            break
        ts = env.step(np.repeat(actions[t][None], num_envs, axis=0))
        for i, ref in enumerate(refs):
            ref_ts = ref.step(actions[t])
            # The pixel env keeps the task's reward, discount and step type.
            assert ts.reward[i] == ref_ts.reward, f"{task_id} env {i} step {t}"
            history[i] = [*history[i][1:], ref.physics.render(84, 84, camera_id=camera)]
    env.close()


def test_gymnasium_front_end_pixels():
    env = envfleet.make(
        "CheetahRun-v1",
        num_envs=2,
        from_pixels=True,
        render_width=32,
        render_height=24,
        conventions="gymnasium",
    )
    space = env.single_observation_space
    assert list(space.spaces) == ["pixels"] and space["pixels"].shape == (3, 24, 32)
    obs, _ = env.reset()
    assert obs["pixels"].shape == (2, 3, 24, 32) and obs["pixels"].dtype == np.uint8
    env.close()
    # EnvPool's conventions (the default): its one entry is the observation, as in EnvPool; the
    # dm_env front end keeps the field.
    pool = envfleet.make(
        "CheetahRun-v1", num_envs=2, from_pixels=True, render_width=32, render_height=24
    )
    assert (
        pool.observation_space
        == envfleet.make_spec(
            "CheetahRun-v1", from_pixels=True, render_width=32, render_height=24
        ).gymnasium_observation_space
    )
    assert pool.observation_space.shape == (3, 24, 32)
    pixels, _ = pool.reset()
    assert pixels.shape == (2, 3, 24, 32)
    np.testing.assert_array_equal(pixels, obs["pixels"])  # the same seed, the same frames
    pool.close()
    assert envfleet.make_dm("CheetahRun-v1", from_pixels=True).reset().observation.pixels.shape == (
        1,
        3,
        84,
        84,
    )


def test_bad_pixel_options_and_cameras():
    with pytest.raises(ValueError, match="render_camera_id must be -1.*0..1"):
        envfleet.make(
            "CheetahRun-v1", from_pixels=True, render_camera_id=2, conventions="gymnasium"
        )
    with pytest.raises(ValueError, match="frame_stack must be in 1..64"):
        envfleet.make("CheetahRun-v1", from_pixels=True, frame_stack=0, conventions="gymnasium")
    env = envfleet.make_dm(
        "CheetahRun-v1", num_envs=1, render_mode="rgb_array", conventions="dm_env"
    )
    env.reset()
    with pytest.raises(ValueError, match="camera"):
        env.render(camera_id=5)
    env.close()


def test_every_id_is_swept():
    ids = [t for t, reg in registry._registry.items() if reg.family.name == "dm_control"]
    assert sorted(ids) == sorted(TASKS)
