"""ViZDoom envs (ViZDoom 1.3.2 engine driven by envfleet._vizdoom) against the family's
reference (envfleet.bench.vizdoom_reference: EnvPool 1.2.5's semantics on vizdoom's own Python
DoomGame, the env the bench runs under Gymnasium's vector envs).

Both run the same scenario with the same seed (ViZDoom's set_seed seeds the instance RNG that
draws each episode's doom seed, so both engines play the same episodes) and the same random
actions; every observation, reward (float32), terminated/truncated flag and the 16 info game
variables must be exactly equal at every step, across the autoreset into later episodes.
"""

from __future__ import annotations

import numpy as np
import pytest

import envfleet
from envfleet.families.vizdoom import (
    ENVPOOL_SCENARIOS,
    MAX_EPISODE_STEPS,
    VIZDOOM_SCENARIOS,
    task_name,
)

pytest.importorskip("vizdoom")
pytest.importorskip("cv2")

from envfleet.bench.vizdoom_reference import INFO_VARIABLES, VizdoomReference  # noqa: E402

# Every scenario id (VizdoomCustom-v1 has no scenario of its own).
ALL_IDS = [f"{task_name(s)}-v1" for s in (*VIZDOOM_SCENARIOS, *ENVPOOL_SCENARIOS)]

# Steps per scenario: 600 crosses at least one episode end (terminated, or the 525-step time
# limit) and the autoreset into the next episode for every scenario.
STEPS = MAX_EPISODE_STEPS + 75


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """Neither engine may write into the working directory (the reference starts its engine
    from a folder of its own, envfleet from the env's scratch folder): checked after each
    test."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    assert not list(tmp_path.iterdir()), "an engine wrote into the working directory"


def random_actions(env, rng, steps):
    space = env.single_action_space if hasattr(env, "single_action_space") else env.action_space
    if hasattr(space, "n"):
        return rng.integers(0, space.n, size=steps)
    return rng.integers(0, 2, size=(steps,) + space.shape[-1:]).astype(np.float64)


def check_step(t, got, want):
    obs, reward, terminated, truncated, info = got
    robs, rreward, rterminated, rtruncated, rinfo = want
    np.testing.assert_array_equal(obs[0], robs, err_msg=f"obs at step {t}")
    assert np.float32(reward[0]) == rreward, (t, reward[0], rreward)
    assert float(reward[0]) == float(rreward), (t, reward[0], rreward)
    assert bool(terminated[0]) == rterminated, (t, terminated[0], rterminated)
    assert bool(truncated[0]) == rtruncated, (t, truncated[0], rtruncated)
    for k in INFO_VARIABLES:
        assert info[k][0] == rinfo[k], (t, k, info[k][0], rinfo[k])


def run_aligned(task_id, seed, steps, workdir, use_combined_action=False, **options):
    """Steps envfleet and the reference side by side; returns (episodes ended, terminations)."""
    rng = np.random.default_rng(seed)
    env = envfleet.make_gymnasium(
        task_id, num_envs=1, seed=seed, use_combined_action=use_combined_action, **options
    )
    ended = terminations = 0
    ref = VizdoomReference(task_id, use_combined_action=use_combined_action, **options)
    try:
        actions = random_actions(env, rng, steps)
        obs, info = env.reset()
        robs, rinfo = ref.reset(seed=seed)
        check_step(-1, (obs, np.zeros(1), [False], [False], info), (robs, 0.0, False, False, rinfo))
        elapsed, done = 0, False
        for t in range(steps):
            a = actions[t]
            got = env.step(np.asarray([a]))
            if done:  # the pool's autoreset (a new episode): the action is not played
                (robs, rinfo), rreward, rterm = ref.reset(), 0.0, False
                elapsed, rtrunc = 0, False
            else:
                robs, rreward, rterm, _, rinfo = ref.step(a)
                elapsed += 1
                rtrunc = elapsed >= MAX_EPISODE_STEPS and not rterm
            check_step(t, got, (robs, rreward, rterm, rtrunc, rinfo))
            done = rterm or rtrunc
            ended += done
            terminations += rterm
    finally:
        env.close()
        ref.close()
    return ended, terminations


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_alignment_buttons(task_id, workdir):
    ended, _ = run_aligned(task_id, seed=7, steps=STEPS, workdir=workdir)
    assert ended >= 1  # an autoreset was compared


@pytest.mark.parametrize(
    "task_id", ["Basic-v1", "DefendTheCenter-v1", "HealthGathering-v1", "D3Battle-v1"]
)
def test_alignment_combined_action(task_id, workdir):
    ended, _ = run_aligned(task_id, seed=11, steps=STEPS, workdir=workdir, use_combined_action=True)
    assert ended >= 1


def test_alignment_options(workdir):
    """Non-default image size, stack and frame skip, and a custom reward config."""
    run_aligned(
        "DefendTheCenter-v1",
        seed=3,
        steps=300,
        workdir=workdir,
        img_height=60,
        img_width=100,
        stack_num=2,
        frame_skip=2,
        reward_config={"KILLCOUNT": (2.5, 0), "HEALTH": (0.1, -0.3), "AMMO2": (0.01, -0.07)},
    )


def test_render_matches_reference_screen(workdir):
    """render() is the engine's full screen as RGB: the reference state's screen, HWC."""
    seed = 5
    rng = np.random.default_rng(seed)
    env = envfleet.make_gymnasium(
        "DefendTheCenter-v1", num_envs=1, seed=seed, render_mode="rgb_array"
    )
    ref = VizdoomReference("DefendTheCenter-v1")
    try:
        env.reset()
        ref.reset(seed=seed)
        for t in range(8):
            frame = env.render()
            want = ref.render()
            assert frame.shape == (1,) + want.shape
            np.testing.assert_array_equal(frame[0], want, err_msg=f"screen at step {t}")
            a = rng.integers(0, 2, size=env.single_action_space.shape).astype(np.float64)
            env.step(a[None])
            ref.step(a)
    finally:
        env.close()
        ref.close()
