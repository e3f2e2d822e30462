"""render(): the API every family shares (cpp/core/pool.h Render, cpp/bind/env_module.h, the
front ends), pinned on Counting-v0, whose frames say which env and camera drew them: every
pixel is (steps, episodes, camera_id + 1). Each family's tests compare its frames with its
reference renderer; the contract suite renders every id that can draw.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_isolated_ok

import envfleet
from envfleet.errors import EnvError


def pixel(frame: np.ndarray) -> tuple[int, int, int]:
    """The one colour of a Counting frame (steps, episodes, camera_id + 1)."""
    colours = np.unique(frame.reshape(-1, 3), axis=0)
    assert len(colours) == 1, colours
    return tuple(int(c) for c in colours[0])


def test_metadata_and_defaults(counting):
    env = counting(num_envs=2, render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array", "human"]
    assert env.metadata["render_fps"] == 50
    config = env.spec.config
    assert (config.render_width, config.render_height) == (16, 8)  # the env's own size
    assert (config.render_env_id, config.render_camera_id) == (0, -1)
    plain = counting()
    assert plain.render_mode is None and plain.metadata["render_modes"] == ["rgb_array", "human"]


def test_front_ends(counting):
    """Under Gymnasium's conventions, VectorEnv.render(): one frame per env, in a tuple; with
    env_ids, and under EnvPool's conventions (every front end's default), EnvPool's
    (B, H, W, 3) array of [render_env_id] by default."""
    env = counting(num_envs=3, render_mode="rgb_array", render_env_id=2, conventions="gymnasium")
    env.reset()
    env.step(np.array([1, 1, 1]))
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert all(f.shape == (8, 16, 3) and f.dtype == np.uint8 for f in frames)
    assert [pixel(f) for f in frames] == [(1, 1, 0)] * 3
    picked = env.render(env_ids=[2, 0])
    assert picked.shape == (2, 8, 16, 3)
    assert env.render(env_ids=1).shape == (1, 8, 16, 3)
    for env_type in ("gymnasium", "gym", "dm"):
        other = envfleet.make(
            "Counting-v0", env_type=env_type, num_envs=3, render_mode="rgb_array", render_env_id=2
        )
        other.reset()
        frames = other.render()
        assert isinstance(frames, np.ndarray) and frames.shape == (1, 8, 16, 3), env_type
        other.close()


def test_frames_follow_env_ids_cameras_and_sizes(counting):
    env = counting(num_envs=3, render_mode="rgb_array", render_width=5, render_height=7)
    env.reset()
    env.step(np.array([0, 0, 0]))
    env.step(np.array([0]), env_id=np.array([2]))  # env 2 is a step ahead
    frames = env.render(env_ids=[2, 0, 1])
    assert frames.shape == (3, 7, 5, 3)
    assert [pixel(f) for f in frames] == [(2, 1, 0), (1, 1, 0), (1, 1, 0)]
    assert pixel(env.render(env_ids=[0], camera_id=0)[0]) == (1, 1, 1)
    default_camera = counting(render_mode="rgb_array", render_camera_id=0)
    default_camera.reset()
    assert pixel(default_camera.render(env_ids=[0])[0]) == (0, 1, 1)


def test_rendering_never_changes_the_episode(counting):
    plain, drawn = counting(num_envs=2), counting(num_envs=2, render_mode="rgb_array")
    for env in (plain, drawn):
        env.reset()
    for t in range(8):
        drawn.render()
        a, b = plain.step(np.array([t % 10, 3])), drawn.step(np.array([t % 10, 3]))
        for x, y in zip(a[:4], b[:4], strict=True):
            np.testing.assert_array_equal(x, y)


def test_async_pools_render_idle_envs_only(counting):
    env = counting(num_envs=4, batch_size=2, render_mode="rgb_array")
    env.async_reset()
    info = env.recv()[-1]
    idle = info["env_id"]
    busy = sorted(set(range(4)) - set(idle.tolist()))
    assert env.render(env_ids=idle).shape == (2, 8, 16, 3)
    with pytest.raises(ValueError, match=f"env_id {busy[0]} has a step in flight: recv"):
        env.render(env_ids=[busy[0]])
    env.recv()


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(render_mode="rgb"), ValueError, "render_mode must be one of"),
        (
            dict(render_mode="rgb_array", render_env_id=3),
            ValueError,
            r"render_env_id must be in \[0, 1\]",
        ),
        (
            dict(render_mode="rgb_array", render_camera_id=1),
            ValueError,
            r"render_camera_id must be in \[-1, 0\]",
        ),
        (dict(render_mode="rgb_array", render_width=0), ValueError, "render_width must be in"),
        (
            dict(render_mode="rgb_array", render_height=2.5),
            TypeError,
            "render_height must be an int",
        ),
    ],
)
def test_bad_render_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        envfleet.make("Counting-v0", num_envs=2, **kwargs)


def test_bad_render_calls(counting):
    env = counting(num_envs=2, render_mode="rgb_array")
    with pytest.raises(ValueError, match="env_id 0 has not been reset yet"):
        env.render(env_ids=[0])
    env.reset()
    with pytest.raises(ValueError, match="camera_id 1 is out of range: valid ids are -1"):
        env.render(camera_id=1)
    with pytest.raises(TypeError, match="camera_id must be an int"):
        env.render(camera_id=0.5)
    with pytest.raises(ValueError, match="env_id 2 is out of range"):
        env.render(env_ids=[2])
    with pytest.raises(ValueError, match="appears twice"):
        env.render(env_ids=[1, 1])
    with pytest.raises(TypeError, match="env_id must be an integer"):
        env.render(env_ids=["a"])
    plain = counting()
    with pytest.raises(RuntimeError, match="render\\(\\) needs a render_mode"):
        plain.render()
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.render(env_ids=[0])


def test_from_pixels_outside_mujoco_says_where_it_is():
    with pytest.raises(TypeError, match="CartPole-v1 has no pixel observations"):
        envfleet.make("CartPole-v1", from_pixels=True)


@pytest.mark.parametrize(
    "task_id, size",
    [
        ("CartPole-v1", (300, 200)),
        ("LunarLander-v3", (64, 48)),
        ("Pong-v5", (80, 105)),
        ("FrozenLake-v1", (100, 37)),
    ],
)
def test_fixed_size_envs_shrink_their_frames_as_pygame_smoothscale(task_id, size):
    """A reference that draws one size (pygame, ALE): a smaller render_width / render_height
    gives its frame shrunk by pygame.transform.smoothscale, to the byte (EnvPool resizes such
    frames too); larger sizes are refused, here and by the pool itself."""
    pygame = pytest.importorskip("pygame")
    width, height = size
    native = envfleet.make(task_id, num_envs=2, seed=3, render_mode="rgb_array")
    small = envfleet.make(
        task_id,
        num_envs=2,
        seed=3,
        render_mode="rgb_array",
        render_width=width,
        render_height=height,
    )
    native.reset()
    small.reset()
    for _ in range(3):
        frames, shrunk = native.render(env_ids=[0, 1]), small.render(env_ids=[0, 1])
        assert shrunk.shape == (2, height, width, 3)
        for big, got in zip(frames, shrunk, strict=True):
            surface = pygame.surfarray.make_surface(big.transpose(1, 0, 2))
            want = pygame.surfarray.array3d(pygame.transform.smoothscale(surface, size))
            np.testing.assert_array_equal(got, want.transpose(1, 0, 2))
        action = np.stack([native.action_space.sample() for _ in range(2)])
        native.step(action)
        small.step(action)
    spec = native.spec.render
    with pytest.raises(ValueError, match="never enlarged: render_width must be <= "):
        envfleet.make_spec(task_id, render_mode="rgb_array", render_width=spec.width + 1)
    with pytest.raises(ValueError, match="shrunk to smaller sizes, never enlarged"):
        native._pool.render([0], -1, spec.width, spec.height + 1)
    native.close()
    small.close()


def test_a_render_error_names_the_env(counting):
    """An env's exception in Render() comes back as EnvError naming it; the pool goes on."""
    env = counting(num_envs=2, render_mode="rgb_array", fail_render=True)
    env.reset()
    with pytest.raises(EnvError, match="env 1 failed to render: failing to render"):
        env.render(env_ids=[1])
    obs, *_ = env.step(np.array([2, 2]))
    assert obs[:, 0].tolist() == [1, 1]


def test_human_mode_without_a_display_says_why():
    out = assert_isolated_ok(
        """
        import os
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
            os.environ.pop(name, None)
        import envfleet
        try:
            envfleet.make("Counting-v0", render_mode="human")
        except RuntimeError as exc:
            print(exc)
        """
    )
    assert "render_mode='human' needs a display" in out
    assert "render_mode='rgb_array'" in out


def test_human_mode_shows_frames_in_a_window():
    """With a display (SDL's dummy video driver stands in for one here) render() shows the
    frames in a pygame window and returns None, as EnvPool's human mode does."""
    out = assert_isolated_ok(
        """
        import os
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        import numpy as np
        import pygame
        import envfleet
        env = envfleet.make("Counting-v0", num_envs=2, render_mode="human")
        assert env.metadata["render_modes"] == ["rgb_array", "human"]
        env.reset()
        env.step(np.array([1, 1]))
        assert env.render() is None
        assert env.render(env_ids=[0, 1]) is None  # side by side
        surface = pygame.display.get_surface()
        print(surface.get_size(), surface.get_at((0, 0))[:3], surface.get_at((31, 7))[:3])
        env.close()
        """
    )
    assert out.split("\n")[0] == "(32, 8) (1, 1, 0) (1, 1, 0)"


def test_gymnasium_record_video_wrapper(tmp_path):
    """Gymnasium's vector RecordVideo takes one frame per env from render() and writes them."""
    from gymnasium.wrappers.vector import RecordVideo

    env = envfleet.make(
        "Counting-v0",
        num_envs=2,
        render_mode="rgb_array",
        render_width=32,
        render_height=16,
        conventions="gymnasium",
    )
    folder = tmp_path / "videos"  # a new folder: RecordVideo warns about an existing one
    recorder = RecordVideo(env, str(folder), episode_trigger=lambda episode: True)
    recorder.reset(seed=1)
    for _ in range(12):
        recorder.step(np.zeros(2, dtype=np.int64))
    recorder.close()
    videos = sorted(p.name for p in folder.iterdir())
    assert videos[:2] == ["rl-video-episode-0.mp4", "rl-video-episode-1.mp4"], videos
    assert all((folder / name).stat().st_size > 0 for name in videos)


def test_gymnasium_human_rendering_wrapper():
    out = assert_isolated_ok(
        """
        import os
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        import numpy as np
        from gymnasium.wrappers.vector import HumanRendering
        import envfleet
        pool = envfleet.make(
            "Counting-v0", num_envs=4, render_mode="rgb_array", conventions="gymnasium"
        )
        env = HumanRendering(pool)
        env.reset(seed=0)
        for _ in range(3):
            env.step(np.zeros(4, dtype=np.int64))
        print(env.window is not None)
        env.close()
        """
    )
    assert out.strip() == "True"
