"""CarRacing against Gymnasium 1.4.0 (box2d 2.3.10, pygame 2.6.1), step by step.

Each alignment test runs ``envfleet.make(task_id, num_envs=2, seed=s)`` next to
``gymnasium.make_vec(task_id, num_envs=2, vectorization_mode="sync")`` reset with ``seed=s``
(env i seeded with s + i on both sides, NEXT_STEP autoreset on both sides), feeds both the
same actions and requires rewards, terminated, truncated and the 96x96 observation frames to be
exactly equal at every step, over whole episodes: lap finished (terminated), off the playfield
(terminated, reward -100) and the 1000-step time limit (truncated), in both action modes and
with domain_randomize.

What equal frames and rewards prove. The track is random (checkpoints, retries, kerbs,
colours) and is not exposed; a tile pays 1000 / (number of tiles), so equal rewards at every
step mean the same tile count and the same tiles visited at the same steps, and equal frames
mean the same road, kerbs and colours wherever the camera has looked. The car's state is not
exposed either; the frames draw it at 1000x800 before the shrink, and the indicator bar shows
its speed, wheel speeds, steering angle and spin, so a drifting state shows up within steps.

The one thing we do not draw is the score the reference prints with pygame.font (FreeType
rendering freesansbold.ttf) at the left of the indicator bar; cpp/families/box2d/car_racing.h
says why. The alignment tests therefore blank that text in the reference (its font renders an
empty black surface, which on the black bar changes nothing else) and then need no
tolerance at all; test_score_text_is_the_only_difference measures the real difference.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import pygame  # noqa: E402
import pytest  # noqa: E402

import envfleet  # noqa: E402

NUM_ENVS = 2
TASK_ID = "CarRacing-v3"


class _BlankFont:
    """Stands in for pygame.font.Font in the reference: every text is an empty black 1x1
    surface, which CarRacing blits (black on its black indicator bar) in place of the score."""

    def __init__(self, *args, **kwargs):
        pass

    def render(self, text, antialias, color, background=None):
        surface = pygame.Surface((1, 1))
        surface.fill((0, 0, 0))
        return surface


@pytest.fixture
def blank_score(monkeypatch):
    monkeypatch.setattr(pygame.font, "Font", _BlankFont)


# --------------------------------------------------------------------------------------------
# Policies: policy(t, reference vector env) -> actions. Random ones are pre-generated; the
# driver steers towards the track a few tiles ahead of the car, reading the reference's state
# (both sides get the same actions, so it needs nothing from ours).
# --------------------------------------------------------------------------------------------


def random_continuous(seed: int, steps: int):
    rng = np.random.default_rng(seed)
    actions = rng.uniform([-1, 0, 0], [1, 1, 1], (steps, NUM_ENVS, 3)).astype(np.float32)
    return lambda t, ref: actions[t]


def random_discrete(seed: int, steps: int):
    actions = np.random.default_rng(seed).integers(0, 5, (steps, NUM_ENVS))
    return lambda t, ref: actions[t]


def full_throttle(t, ref):
    """Straight ahead at full gas: the car leaves the playfield."""
    return np.tile(np.array([0.0, 1.0, 0.0], np.float32), (NUM_ENVS, 1))


def _drive(env) -> tuple[float, float]:
    """(steering error towards the track 5 points ahead, speed) for one reference env."""
    car, track = env.unwrapped.car, env.unwrapped.track
    x, y = car.hull.position
    nearest = int(np.argmin([(p[2] - x) ** 2 + (p[3] - y) ** 2 for p in track]))
    tx, ty = track[(nearest + 5) % len(track)][2:4]
    hx, hy = -math.sin(car.hull.angle), math.cos(car.hull.angle)  # the hull's forward axis
    err = math.atan2(hx * (ty - y) - hy * (tx - x), hx * (tx - x) + hy * (ty - y))
    vx, vy = car.hull.linearVelocity
    return err, math.hypot(vx, vy)


def driver_continuous(t, ref):
    actions = []
    for env in ref.envs:
        err, speed = _drive(env)
        actions.append(
            [np.clip(-2.0 * err, -1, 1), 0.8 if speed < 55 else 0.0, 0.3 if speed > 75 else 0.0]
        )
    return np.array(actions, np.float32)


def driver_discrete(t, ref):
    actions = []
    for env in ref.envs:
        err, speed = _drive(env)
        if err < -0.1:
            actions.append(1)  # steer right
        elif err > 0.1:
            actions.append(2)  # steer left
        elif speed < 40:
            actions.append(3)  # gas
        elif speed > 60:
            actions.append(4)  # brake
        else:
            actions.append(0)
    return np.array(actions, np.int64)


def run_aligned(seed: int, steps: int, policy, **kwargs) -> dict[str, int]:
    """Steps both vector envs in lockstep, comparing everything at every step; returns how
    the episodes ended."""
    ours = envfleet.make(TASK_ID, num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **kwargs)
    ref = gymnasium.make_vec(TASK_ID, num_envs=NUM_ENVS, vectorization_mode="sync", **kwargs)
    counts = {"lap": 0, "off_playfield": 0, "truncated": 0}
    try:
        obs, _ = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        assert obs.dtype == ref_obs.dtype == np.uint8
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"seed={seed} {kwargs}: reset")
        for t in range(steps):
            action = policy(t, ref)
            obs, reward, terminated, truncated, _ = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"seed={seed} {kwargs} step {t}, action {action.tolist()}"
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            np.testing.assert_array_equal(obs, ref_obs, err_msg=f"obs, {where}")
            counts["lap"] += int((terminated & (reward != -100)).sum())
            counts["off_playfield"] += int((terminated & (reward == -100)).sum())
            counts["truncated"] += int(truncated.sum())
    finally:
        ours.close()
        ref.close()
    return counts


@pytest.mark.usefixtures("blank_score")
def test_lap_finished_continuous():
    # Seed 1 (envs 1 and 2) has tracks the driver completes within the time limit.
    counts = run_aligned(1, 1000, driver_continuous)
    assert counts["lap"] >= 1, counts


@pytest.mark.extended  # discrete actions: test_random_discrete_domain_randomize runs by default
@pytest.mark.usefixtures("blank_score")
def test_driver_discrete():
    counts = run_aligned(5, 1010, driver_discrete, continuous=False)
    assert counts["lap"] + counts["truncated"] >= NUM_ENVS, counts


@pytest.mark.usefixtures("blank_score")
def test_off_playfield_and_autoreset():
    counts = run_aligned(11, 700, full_throttle)
    assert counts["off_playfield"] >= NUM_ENVS, counts


@pytest.mark.usefixtures("blank_score")
def test_random_continuous_time_limit():
    counts = run_aligned(7, 1005, random_continuous(7, 1005))
    assert counts["truncated"] == NUM_ENVS, counts


@pytest.mark.usefixtures("blank_score")
def test_random_discrete_domain_randomize():
    # Two episodes per env (a short time limit), so each reset draws new colours.
    counts = run_aligned(
        21,
        420,
        random_discrete(21, 420),
        continuous=False,
        domain_randomize=True,
        max_episode_steps=200,
    )
    assert counts["truncated"] == 2 * NUM_ENVS, counts


@pytest.mark.extended
@pytest.mark.usefixtures("blank_score")
def test_domain_randomize_driver_lap_percent():
    counts = run_aligned(3, 300, driver_continuous, domain_randomize=True, lap_complete_percent=0.5)
    assert counts == {"lap": 0, "off_playfield": 0, "truncated": 0}


@pytest.mark.usefixtures("blank_score")
def test_render_frames():
    """render() (600x400, with skid marks) equals Gymnasium's rgb_array frames."""
    seed = 4
    ours = envfleet.make(
        TASK_ID, num_envs=1, seed=seed, render_mode="rgb_array", conventions="gymnasium"
    )
    ref = gymnasium.make(TASK_ID, render_mode="rgb_array")
    try:
        ours.reset()
        ref.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for t in range(160):
            # Full gas with hard steering and braking makes the wheels skid (skid marks).
            action = np.array([rng.uniform(-1, 1), 1.0, 0.0 if t % 40 < 30 else 0.9], np.float32)
            ours.step(action[None])
            ref.step(action)
            if t % 8 == 0:
                frame = np.asarray(ours.render()[0])
                ref_frame = ref.render()
                assert frame.shape == ref_frame.shape == (400, 600, 3)
                np.testing.assert_array_equal(frame, ref_frame, err_msg=f"frame at step {t}")
        assert len(ref.unwrapped.car.particles) > 0  # skid marks were drawn and compared
    finally:
        ours.close()
        ref.close()


def test_score_text_is_the_only_difference():
    """With the reference's real score text, frames differ exactly where that text is: the
    pixels where Gymnasium's own frames with and without the text differ."""
    seed = 2
    ours = envfleet.make(TASK_ID, num_envs=1, seed=seed, conventions="gymnasium")
    ref = gymnasium.make(TASK_ID)
    equal = []
    try:
        obs, _ = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for t in range(200):
            action = rng.uniform([-1, 0, 0], [1, 1, 1]).astype(np.float32)
            obs, *_ = ours.step(action[None])
            ref_obs, *_ = ref.step(action)
            text_free = _without_text(ref.unwrapped)
            text = (ref_obs != text_free).any(-1)
            np.testing.assert_array_equal(obs[0][~text], ref_obs[~text], err_msg=f"step {t}")
            equal.append((obs[0] == ref_obs).all(-1).mean())
    finally:
        ours.close()
        ref.close()
    # Measured: 99.4-99.6% of the 96x96 pixels are equal (the text covers about 50 pixels at
    # the bottom left of the observation).
    assert min(equal) > 0.99, min(equal)


def _without_text(env) -> np.ndarray:
    """The reference's state_pixels frame of its current state, drawn with a blank score."""
    real_font = pygame.font.Font
    pygame.font.Font = _BlankFont
    try:
        return env._render("state_pixels")
    finally:
        pygame.font.Font = real_font


def test_spaces_and_options():
    ours = envfleet.make(TASK_ID, num_envs=1, conventions="gymnasium")
    ref = gymnasium.make(TASK_ID)
    assert ours.single_observation_space == ref.observation_space
    assert ours.single_action_space == ref.action_space
    ours.close()
    ours = envfleet.make(TASK_ID, num_envs=1, continuous=False, conventions="gymnasium")
    assert ours.single_action_space == gymnasium.spaces.Discrete(5)
    ours.close()
    spec = envfleet.make_spec(TASK_ID)
    assert spec.max_episode_steps == 1000 and spec.reward_threshold == 900.0
    assert "CarRacing-v2" in envfleet.list_all_envs()
