"""The Atari env's resize (cpp/common/image/resize.h) against OpenCV, bit for bit.

Random images come from the ``AtariResizeCheck`` fixture type of the test-only module
_envfleet_testing (tests/cpp/testing_module/atari_resize_check.h; no ALE needed), which returns
each image it draws (uniform noise, Atari-like runs of a few levels with repeated rows, 0/255
extremes) together with its resize by the C++ code; real frames come from the Atari env itself,
asked for full-size frames (img 210x160, an exact copy) next to the same run resized.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import envfleet
from envfleet import registry
from envfleet.registry import Family, register


@pytest.fixture(scope="module")
def resize_check(testing_module):
    """AtariResizeCheck-v0, served by the test module's own Pool; registered for this module's
    tests only (no other test sees a task id of the test-only module)."""
    task_id = "AtariResizeCheck-v0"
    register(task_id, "AtariResizeCheck", family=Family("testing", module=testing_module.__name__))
    yield task_id
    registry._registry.pop(task_id, None)
    registry._family_of_type.pop("AtariResizeCheck", None)


SIZES = [
    # (src h, src w, dst h, dst w)
    (210, 160, 84, 84),  # the default: general area weights in both directions
    (250, 160, 84, 84),  # the tall screens of 13 games
    (214, 160, 84, 84),
    (220, 160, 84, 84),
    (230, 160, 84, 84),
    (210, 160, 105, 80),  # 2x2: the integer fast path with (a+b+c+d+2)>>2
    (210, 160, 70, 80),  # 3x2: integer fast path with a float scale
    (210, 160, 42, 32),  # 5x5
    (210, 160, 210, 80),  # 1x2
    (210, 160, 64, 64),
    (210, 160, 100, 120),
    (210, 160, 84, 160),  # vertical only
    (210, 160, 209, 159),
    (210, 160, 1, 1),
    (210, 160, 210, 160),  # same size: a copy
    (97, 61, 13, 29),
]


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("inter_area", [True, False], ids=["area", "linear"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
def test_resize_matches_opencv(resize_check, size, inter_area, channels):
    sh, sw, dh, dw = size
    env = envfleet.make(
        resize_check,
        num_envs=3,
        seed=size[2] * 1000 + size[3],
        src_height=sh,
        src_width=sw,
        dst_height=dh,
        dst_width=dw,
        channels=channels,
        inter_area=inter_area,
        conventions="gymnasium",
    )
    interpolation = cv2.INTER_AREA if inter_area else cv2.INTER_LINEAR
    obs, _ = env.reset()
    for step in range(4):  # 15 images per case, every pattern several times
        for src, dst in zip(obs["src"], obs["dst"], strict=True):
            img = src if channels == 3 else src[..., 0]
            ref = cv2.resize(img, (dw, dh), interpolation=interpolation)
            if channels == 1:
                ref = ref[..., None]
            np.testing.assert_array_equal(dst, ref, err_msg=f"{size} step {step}")
        obs, *_ = env.step(np.zeros(3, dtype=np.int64))


@pytest.mark.parametrize("game", ["Pong-v5", "Breakout-v5", "MsPacman-v5", "Seaquest-v5"])
@pytest.mark.parametrize("gray_scale", [True, False], ids=["gray", "rgb"])
def test_real_frames(game, gray_scale):
    """The same run, once with full-size frames and once resized to 84x84 (and 64x48)."""
    kwargs = dict(num_envs=2, seed=5, stack_num=1, gray_scale=gray_scale)
    full = envfleet.make(game, img_height=210, img_width=160, conventions="gymnasium", **kwargs)
    small = envfleet.make(game, conventions="gymnasium", **kwargs)
    other = envfleet.make(game, img_height=64, img_width=48, conventions="gymnasium", **kwargs)
    rng = np.random.default_rng(0)
    n = full.single_action_space.n
    a, _ = full.reset()
    b, _ = small.reset()
    c, _ = other.reset()
    for _ in range(60):
        for x, y, z in zip(a, b, c, strict=True):
            img = x[0] if gray_scale else x.transpose(1, 2, 0)  # (C, H, W) -> (H, W[, 3])
            ry = cv2.resize(img, (84, 84), interpolation=cv2.INTER_AREA)
            rz = cv2.resize(img, (48, 64), interpolation=cv2.INTER_AREA)
            if gray_scale:
                ry, rz = ry[None], rz[None]
            else:
                ry, rz = ry.transpose(2, 0, 1), rz.transpose(2, 0, 1)
            np.testing.assert_array_equal(y, ry)
            np.testing.assert_array_equal(z, rz)
        actions = rng.integers(0, n, 2)
        a = full.step(actions)[0]
        b = small.step(actions)[0]
        c = other.step(actions)[0]
