"""Lockstep runs of an envfleet pool next to Gymnasium 1.4.0, shared by the Box2D tests.

``run_aligned`` pairs ``envfleet.make(task_id, num_envs=n, seed=s)`` with
``gymnasium.make_vec(task_id, num_envs=n, vectorization_mode="sync")`` reset with ``seed=s``
(env i seeded with s + i on both sides, NEXT_STEP autoreset on both sides), feeds both the same
actions, chosen by a policy from Gymnasium's observations, and requires obs, reward, terminated
and truncated to be exactly equal at every step. ``run_rendered`` does the same with one env
and ``render_mode="rgb_array"``, comparing every frame with Gymnasium's pixel for pixel.

No tolerance anywhere: Box2D is compiled from the same C++ source as pybox2d's extension
(float32 throughout, no FMA contraction on either side, the same libm), the ports reproduce
Gymnasium's float64 arithmetic and NumPy's dtype promotions, and the frames repeat pygame's
and SDL_gfx's integer arithmetic (cpp/common/render2d).
"""

from __future__ import annotations

import os
from collections.abc import Callable

# Gymnasium's render() calls pygame.display.init() lazily in human mode only, but pygame
# itself needs a video driver on a headless machine.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import envfleet  # noqa: E402

# policy(t, reference observations, reference vector env) -> actions for every env
Policy = Callable[[int, np.ndarray, object], np.ndarray]


def run_aligned(
    task_id: str, seed: int, steps: int, policy: Policy, num_envs: int = 3, **kwargs
) -> dict[str, int]:
    """Steps both vector envs in lockstep; returns how many episodes ended and how."""
    ours = envfleet.make(task_id, num_envs=num_envs, seed=seed, conventions="gymnasium", **kwargs)
    # make_vec hands **kwargs to gymnasium.make for each env: options and max_episode_steps.
    ref = gymnasium.make_vec(task_id, num_envs=num_envs, vectorization_mode="sync", **kwargs)
    try:
        obs, _ = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"{task_id} seed={seed}: reset")
        assert obs.dtype == ref_obs.dtype == np.float32
        counts = {"terminated": 0, "truncated": 0, "reward_min": 0, "reward_max": 0}
        for t in range(steps):
            action = policy(t, ref_obs, ref)
            obs, reward, terminated, truncated, _ = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"{task_id} seed={seed} {kwargs} step {t}, action {action.tolist()}"
            np.testing.assert_array_equal(obs, ref_obs, err_msg=f"obs, {where}")
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            counts["terminated"] += int(terminated.sum())
            counts["truncated"] += int(truncated.sum())
            counts["reward_min"] = min(counts["reward_min"], float(reward.min()))
            counts["reward_max"] = max(counts["reward_max"], float(reward.max()))
        # A second seeded reset re-seeds every env the same way on both sides.
        obs, _ = ours.reset(seed=seed + 1000)
        ref_obs, _ = ref.reset(seed=seed + 1000)
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"{task_id}: reseeded reset")
        return counts
    finally:
        ours.close()
        ref.close()


def assert_frame_equal(ours: np.ndarray, ref: np.ndarray, where: str) -> None:
    assert ours.shape == ref.shape and ours.dtype == ref.dtype == np.uint8, where
    if np.array_equal(ours, ref):
        return
    differ = np.any(ours != ref, axis=-1)
    y, x = np.argwhere(differ)[0]
    raise AssertionError(
        f"{where}: {differ.mean():.4%} of pixels differ ({differ.sum()}), first at row {y} "
        f"column {x}: ours {ours[y, x].tolist()}, Gymnasium's {ref[y, x].tolist()}"
    )


def run_rendered(
    task_id: str, seed: int, steps: int, policy: Policy, episodes: int = 1, **kwargs
) -> int:
    """One env on each side with frames; compares obs and every frame. Returns frames compared."""
    ours = envfleet.make(
        task_id, num_envs=1, seed=seed, render_mode="rgb_array", conventions="gymnasium", **kwargs
    )
    ref = gymnasium.make(task_id, render_mode="rgb_array", **kwargs)
    frames = 0
    try:
        for episode in range(episodes):
            obs, _ = ours.reset()
            ref_obs, _ = ref.reset(seed=seed if episode == 0 else None)
            np.testing.assert_array_equal(obs[0], ref_obs)
            for t in range(steps):
                where = f"{task_id} seed={seed} {kwargs} episode {episode} step {t}"
                assert_frame_equal(ours.render()[0], ref.render(), where)
                frames += 1
                action = policy(t, ref_obs[None], ref)[0]
                obs, _, terminated, truncated, _ = ours.step(action[None])
                ref_obs, _, ref_terminated, ref_truncated, _ = ref.step(action)
                np.testing.assert_array_equal(obs[0], ref_obs, err_msg=where)
                assert (terminated[0], truncated[0]) == (ref_terminated, ref_truncated), where
                if ref_terminated or ref_truncated:
                    break
        return frames
    finally:
        ours.close()
        ref.close()
