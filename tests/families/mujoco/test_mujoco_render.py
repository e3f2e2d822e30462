"""MuJoCo frames against Gymnasium 1.4.0's own (``render_mode="rgb_array"``), pixel for pixel.

Both sides draw with libmujoco 4.0.0's renderer through the same GL backend (MUJOCO_GL, egl
unless the run sets it; Mesa's llvmpipe where there is no GPU), so the frames are compared for
equality: same seeds and actions, same size and camera, every id, several states each. Also:
the model's cameras, camera id errors, the free camera fixed on the first render (as
Gymnasium's viewer fixes it), trajectories unchanged by rendering, pools of two worker threads
(one GL context each), make/close cycles that leak no thread, file or context, and the
MUJOCO_GL and render_fast settings.

Frames are small (Mesa draws MuJoCo's 4096x4096 shadow map on every frame, whatever the size).
"""

from __future__ import annotations

import os

# Gymnasium and envfleet read MUJOCO_GL when they make their first GL context.
os.environ.setdefault("MUJOCO_GL", "egl")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from conftest import assert_isolated_ok  # noqa: E402

import envfleet  # noqa: E402
from envfleet import _mujoco  # noqa: E402, F401  (the engine: no skip when it is missing)
from envfleet.families.mujoco import ROBOTS, VERSIONS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")

# Every MuJoCo id, as the family registers them (test_mujoco.py pins that list).
TASK_IDS = [f"{robot}-v{version}" for robot in ROBOTS for version in VERSIONS]

# Not square, so that a swapped width and height cannot pass.
WIDTH, HEIGHT = 72, 56
SEED = 11


@pytest.fixture
def allow_pusher_v4(monkeypatch):
    """Gymnasium's Pusher-v4 refuses mujoco >= 3 (see test_mujoco.py); its code runs as is."""
    import mujoco

    monkeypatch.setattr(mujoco, "__version__", "2.3.7")


def make_pair(task_id, num_envs=2, width=WIDTH, height=HEIGHT, gym_kwargs=None, **ours_kwargs):
    """envfleet's pool and Gymnasium's envs 0..num_envs-1, each reset with seed SEED + i."""
    ours = envfleet.make(
        task_id,
        num_envs=num_envs,
        seed=SEED,
        render_mode="rgb_array",
        render_width=width,
        render_height=height,
        **ours_kwargs,
        conventions="gymnasium",
    )
    refs = [
        gym.make(task_id, render_mode="rgb_array", width=width, height=height, **(gym_kwargs or {}))
        for _ in range(num_envs)
    ]
    obs, _ = ours.reset()
    for i, ref in enumerate(refs):
        ref_obs, _ = ref.reset(seed=SEED + i)
        np.testing.assert_array_equal(obs[i], ref_obs)
    return ours, refs


def small_actions(space, steps, num_envs, scale):
    """Actions within `scale` of the box's half-width around its middle (the pendulums fall
    within a few steps of full-range random actions)."""
    rng = np.random.default_rng(SEED)
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    mid, half = (low + high) / 2, (high - low) / 2
    a = rng.uniform(mid - scale * half, mid + scale * half, (steps, num_envs, len(low)))
    return a.astype(np.float32)


def step_pair(ours, refs, action):
    """One step on both sides; False once any env's episode ended (we stop there)."""
    obs, _, terminated, truncated, _ = ours.step(action)
    done = False
    for i, ref in enumerate(refs):
        ref_obs, _, ref_terminated, ref_truncated, _ = ref.step(action[i])
        np.testing.assert_array_equal(obs[i], ref_obs)
        assert (terminated[i], truncated[i]) == (ref_terminated, ref_truncated)
        done = done or ref_terminated or ref_truncated
    return not done


def assert_frames_equal(where, ours, refs, camera_id=None):
    frames = ours.render(env_ids=list(range(len(refs))), camera_id=camera_id)
    assert frames.dtype == np.uint8 and frames.shape[0] == len(refs), where
    for i, ref in enumerate(refs):
        want = ref.render()
        assert frames[i].shape == want.shape, where
        same = np.all(frames[i] == want, axis=-1)
        assert same.all(), (
            f"{where}, env {i}: {same.mean():.2%} of pixels equal "
            f"(first difference at row, col {np.argwhere(~same)[0].tolist()})"
        )


def close_all(ours, refs):
    ours.close()
    for ref in refs:
        ref.close()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_frames_match_gymnasium(task_id, allow_pusher_v4):
    """Two envs of each id at the reset state and two later states: identical frames."""
    scale = 0.2 if "Pendulum" in task_id else 1.0
    ours, refs = make_pair(task_id)
    try:
        compared = 0
        actions = small_actions(ours.single_action_space, 12, 2, scale)
        for t in range(12):
            if t in (0, 4, 11):
                assert_frames_equal(f"{task_id} step {t}", ours, refs)
                compared += 1
            if not step_pair(ours, refs, actions[t]):
                break
        assert compared >= 2, f"{task_id}: an episode ended before two states were compared"
    finally:
        close_all(ours, refs)


def test_spec_render_fields_are_gymnasiums(allow_pusher_v4):
    for task_id in TASK_IDS:
        render = envfleet.make_spec(task_id).render
        ref = gym.make(task_id)
        try:
            model = ref.unwrapped.model
            assert (render.width, render.height) == (480, 480), task_id
            assert render.resizable, task_id
            assert render.fps == ref.unwrapped.metadata["render_fps"], task_id
            assert render.num_cameras == model.ncam, task_id
        finally:
            ref.close()


@pytest.mark.parametrize(
    "task_id, width, height",
    [("HalfCheetah-v5", 480, 480), ("Humanoid-v4", 480, 480), ("Hopper-v5", 700, 500)],
)
def test_default_and_large_sizes(task_id, width, height):
    """Gymnasium's default size, and one past the XML's 640x480 offscreen buffer (both grow
    it to the frame)."""
    ours, refs = make_pair(task_id, num_envs=1, width=width, height=height)
    try:
        assert_frames_equal(f"{task_id} {width}x{height}", ours, refs)
    finally:
        close_all(ours, refs)


@pytest.mark.parametrize(
    "task_id, camera_id, gym_kwargs",
    [
        ("Ant-v5", 0, {"camera_name": "track"}),
        ("Walker2d-v4", 0, {"camera_id": 0}),
        ("Humanoid-v5", 1, {"camera_id": 1}),  # unnamed
    ],
)
def test_model_cameras(task_id, camera_id, gym_kwargs):
    ours, refs = make_pair(task_id, gym_kwargs=gym_kwargs)
    try:
        assert_frames_equal(f"{task_id} camera {camera_id}", ours, refs, camera_id=camera_id)
        actions = small_actions(ours.single_action_space, 5, 2, 1.0)
        for t in range(5):
            assert step_pair(ours, refs, actions[t])
        assert_frames_equal(f"{task_id} camera {camera_id}", ours, refs, camera_id=camera_id)
        # A free-view frame in between leaves the camera frames as they were.
        ours.render(env_ids=[0, 1], camera_id=-1)
        assert_frames_equal(f"{task_id} camera {camera_id}", ours, refs, camera_id=camera_id)
    finally:
        close_all(ours, refs)


def test_camera_from_make_option():
    ours = envfleet.make(
        "Ant-v5",
        render_mode="rgb_array",
        render_width=40,
        render_height=40,
        render_camera_id=0,
        conventions="gymnasium",
    )
    ref = gym.make("Ant-v5", render_mode="rgb_array", width=40, height=40, camera_id=0)
    try:
        ours.reset(seed=3)
        ref.reset(seed=3)
        np.testing.assert_array_equal(ours.render()[0], ref.render())
    finally:
        ours.close()
        ref.close()


def test_bad_camera_ids():
    env = envfleet.make(
        "HalfCheetah-v5",
        render_mode="rgb_array",
        render_width=32,
        render_height=32,
        conventions="gymnasium",
    )
    pendulum = envfleet.make(
        "InvertedPendulum-v5",
        render_mode="rgb_array",
        render_width=32,
        render_height=32,
        conventions="gymnasium",
    )
    try:
        env.reset()
        pendulum.reset()
        for bad in (1, -2, 99):
            with pytest.raises(ValueError, match="camera"):
                env.render(camera_id=bad)
        with pytest.raises(ValueError, match="camera"):
            pendulum.render(camera_id=0)  # it has no camera: only -1
        with pytest.raises(TypeError, match="camera_id"):
            env.render(camera_id="track")
        # The pool is still usable.
        assert env.render(env_ids=[0], camera_id=0).shape == (1, 32, 32, 3)
        assert pendulum.render()[0].shape == (32, 32, 3)
    finally:
        env.close()
        pendulum.close()


def test_free_camera_is_fixed_by_the_first_render():
    """Gymnasium makes its viewer on the first render() and aims the free camera at the median
    geom position of that moment, for good (HalfCheetah's config sets no lookat)."""
    ours, refs = make_pair("HalfCheetah-v5")
    try:
        actions = small_actions(ours.single_action_space, 40, 2, 1.0)
        for t in range(20):
            assert step_pair(ours, refs, actions[t])
        assert_frames_equal("first render after 20 steps", ours, refs)
        # A new episode keeps the viewer, and its camera, on both sides.
        ours.reset(seed=SEED + 100)
        for i, ref in enumerate(refs):
            ref.reset(seed=SEED + 100 + i)
        for t in range(20, 40):
            assert step_pair(ours, refs, actions[t])
        assert_frames_equal("after a reset and 20 more steps", ours, refs)
    finally:
        close_all(ours, refs)


def rollout(task_id, render_every_step, num_threads=1, steps=12, **options):
    env = envfleet.make(
        task_id,
        num_envs=3,
        num_threads=num_threads,
        seed=5,
        render_mode="rgb_array",
        render_width=24,
        render_height=24,
        **options,
        conventions="gymnasium",
    )
    try:
        obs, _ = env.reset()
        actions = small_actions(env.single_action_space, steps, 3, 1.0)
        out = [obs]
        for t in range(steps):
            if render_every_step:
                env.render(env_ids=[0, 1, 2])
            obs, reward, terminated, truncated, _ = env.step(actions[t])
            out += [obs, reward, terminated, truncated]
        return out
    finally:
        env.close()


@pytest.mark.parametrize("task_id", ["Hopper-v5", "Ant-v4"])
def test_rendering_does_not_change_trajectories(task_id):
    plain = rollout(task_id, render_every_step=False)
    rendered = rollout(task_id, render_every_step=True)
    for a, b in zip(plain, rendered, strict=True):
        np.testing.assert_array_equal(a, b)


def test_two_worker_threads():
    """Four envs on two workers (a GL context each) draw what one worker draws."""
    frames = {}
    for threads in (1, 2):
        env = envfleet.make(
            "Walker2d-v5",
            num_envs=4,
            num_threads=threads,
            seed=3,
            render_mode="rgb_array",
            render_width=40,
            render_height=32,
            conventions="gymnasium",
        )
        try:
            env.reset()
            shots = [env.render(env_ids=[0, 1, 2, 3])]
            actions = small_actions(env.single_action_space, 6, 4, 1.0)
            for t in range(6):
                env.step(actions[t])
            shots.append(env.render(env_ids=[3, 2, 1, 0])[::-1])
            shots.append(env.render(env_ids=[1, 2], camera_id=0))
            frames[threads] = shots
        finally:
            env.close()
    for one, two in zip(frames[1], frames[2], strict=True):
        np.testing.assert_array_equal(one, two)
    # Distinct envs, distinct frames: each row is its own env's.
    assert not np.array_equal(frames[1][1][0], frames[1][1][1])


@pytest.mark.parametrize("renderer", ["per-thread", "service"])
def test_make_close_cycles_leak_nothing(renderer):
    """Each pool's workers make GL contexts (and llvmpipe its rasterizer threads), or start the
    render service (ENVFLEET_MUJOCO_RENDERER=service: its thread, context and the models'
    contexts); closing the pool ends the workers, which free them or release the service, whose
    last release stops it: threads, files and memory stay flat."""
    out = assert_isolated_ok(
        f"""
        import os
        os.environ["ENVFLEET_MUJOCO_RENDERER"] = {renderer!r}
        import envfleet

        def counts():
            rss = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            return len(os.listdir("/proc/self/task")), len(os.listdir("/proc/self/fd")), rss

        def cycle():
            env = envfleet.make("Ant-v5", num_envs=2, num_threads=2, render_mode="rgb_array",
                                render_width=32, render_height=32)
            env.reset()
            env.render(env_ids=[0, 1])
            env.close()

        cycle()  # the first one loads libEGL and opens the display, once per process
        before = counts()
        for _ in range(10):
            cycle()
        after = counts()
        print(before, after)
        assert after[0] == before[0], ("threads", before, after)
        assert after[1] == before[1], ("fds", before, after)
        # Each leaked context would keep its 4096x4096 shadow map (64 MiB) and buffers: 640 MiB
        # over ten cycles. What is allowed is malloc's: each cycle's new threads take over
        # arenas of the ended ones, and an arena keeps some of what a context freed; that stops
        # growing once the arenas are all in use (measured: steps of ~40 MiB, three at most).
        assert after[2] - before[2] < 192 << 20, ("rss", before, after)
        """,
        timeout=240,
    )
    assert out


def test_render_fast_option():
    """render_fast=True: no shadows or reflections (a different frame), same dynamics."""
    spec = envfleet.make_spec("Hopper-v4")
    assert spec.config.env_options["render_fast"] is False
    assert envfleet.make_spec("HumanoidStandup-v4").config.env_options["render_fast"] is False
    shots = {}
    for fast in (False, True):
        env = envfleet.make(
            "Hopper-v5",
            seed=1,
            render_mode="rgb_array",
            render_width=48,
            render_height=48,
            render_fast=fast,
            conventions="gymnasium",
        )
        try:
            env.reset()
            shots[fast] = env.render()[0]
        finally:
            env.close()
    assert shots[True].shape == shots[False].shape
    assert not np.array_equal(shots[True], shots[False])
    np.testing.assert_array_equal(
        rollout("Hopper-v5", True, render_fast=True)[-4], rollout("Hopper-v5", False)[-4]
    )


def test_bad_mujoco_gl_value():
    assert_isolated_ok(
        """
        import os
        os.environ["MUJOCO_GL"] = "glfw"
        import envfleet, pytest
        env = envfleet.make("Swimmer-v5", render_mode="rgb_array", render_width=16,
                            render_height=16)
        env.reset()
        with pytest.raises(RuntimeError, match="MUJOCO_GL must be 'egl' or 'osmesa'.*glfw"):
            env.render()
        env.close()
        """
    )


def _osmesa_available() -> bool:
    import ctypes.util

    return ctypes.util.find_library("OSMesa") is not None


@pytest.mark.skipif(not _osmesa_available(), reason="libOSMesa is not installed")
def test_osmesa_frames_match_gymnasium():
    """MUJOCO_GL=osmesa on both sides (a process renders through one backend: isolated)."""
    assert_isolated_ok(
        """
        import os
        os.environ["MUJOCO_GL"] = "osmesa"
        os.environ.pop("PYOPENGL_PLATFORM", None)  # mujoco.egl set it in the parent
        import gymnasium as gym, numpy as np, envfleet
        for task_id in ("Ant-v5", "Reacher-v4"):
            ours = envfleet.make(task_id, seed=2, render_mode="rgb_array", render_width=40,
                                 render_height=30)
            ref = gym.make(task_id, render_mode="rgb_array", width=40, height=30)
            ours.reset()
            ref.reset(seed=2)
            a, b = ours.render()[0], ref.render()
            assert np.array_equal(a, b), (task_id, np.all(a == b, axis=-1).mean())
            ours.close()
            ref.close()
        """,
        timeout=240,
    )


# ---- from_pixels ------------------------------------------------------------------------------


def test_from_pixels_observations_are_gymnasiums_frames():
    """The observation is the frame Gymnasium renders for that state, as (3, H, W) planes,
    drawn inside reset and step; dynamics, rewards and info are the task's own."""
    kwargs = dict(num_envs=2, seed=SEED, render_width=48, render_height=40)
    ours = envfleet.make(
        "Hopper-v5", from_pixels=True, render_mode="rgb_array", conventions="gymnasium", **kwargs
    )
    states = envfleet.make("Hopper-v5", conventions="gymnasium", **kwargs)
    refs = [gym.make("Hopper-v5", render_mode="rgb_array", width=48, height=40) for _ in range(2)]
    try:
        assert ours.single_observation_space == gym.spaces.Box(0, 255, (3, 40, 48), np.uint8)
        obs, _ = ours.reset()
        states.reset()
        for i, ref in enumerate(refs):
            ref.reset(seed=SEED + i)
        actions = small_actions(ours.single_action_space, 6, 2, 1.0)
        for t in range(7):
            assert obs.shape == (2, 3, 40, 48) and obs.dtype == np.uint8
            for i, ref in enumerate(refs):
                np.testing.assert_array_equal(obs[i], ref.render().transpose(2, 0, 1))
            if t == 6:
                break
            obs, reward, terminated, truncated, info = ours.step(actions[t])
            _, ref_reward, ref_terminated, ref_truncated, ref_info = states.step(actions[t])
            np.testing.assert_array_equal(reward, ref_reward)
            np.testing.assert_array_equal(terminated, ref_terminated)
            np.testing.assert_array_equal(truncated, ref_truncated)
            for key in ref_info:
                np.testing.assert_array_equal(info[key], ref_info[key])
            for i, ref in enumerate(refs):
                ref.step(actions[t][i])
        # render() draws the same frames (render_width/height are the pixels' size).
        frames = ours.render(env_ids=[0, 1])
        np.testing.assert_array_equal(frames.transpose(0, 3, 1, 2), obs)
    finally:
        for env in (ours, states, *refs):
            env.close()


def test_from_pixels_frame_stack_and_defaults():
    env = envfleet.make(
        "InvertedPendulum-v4", num_envs=2, from_pixels=True, frame_stack=3, conventions="gymnasium"
    )
    try:
        assert env.single_observation_space.shape == (9, 84, 84)  # 84x84 by default
        assert envfleet.make_spec("InvertedPendulum-v4", from_pixels=True).render.width == 84
        obs, _ = env.reset()
        first = obs[:, 6:].copy()
        for k in range(3):  # a reset fills the stack with its frame
            np.testing.assert_array_equal(obs[:, 3 * k : 3 * k + 3], first)
        obs, *_ = env.step(np.full((2, 1), 0.5, np.float32))
        np.testing.assert_array_equal(obs[:, :6], np.concatenate([first, first], axis=1))
        second = obs[:, 6:].copy()
        assert not np.array_equal(second, first)
        obs, *_ = env.step(np.full((2, 1), 0.5, np.float32))
        np.testing.assert_array_equal(obs[:, :3], first)  # oldest first
        np.testing.assert_array_equal(obs[:, 3:6], second)
    finally:
        env.close()


def test_from_pixels_same_for_any_threads_and_batch():
    def run(**pool):
        env = envfleet.make(
            "Reacher-v5",
            num_envs=4,
            seed=2,
            from_pixels=True,
            render_width=32,
            render_height=32,
            render_fast=True,
            **pool,
        )
        try:
            env.async_reset()
            out = {}  # (env id, observation number) -> (pixels, reward)
            actions = small_actions(env.single_action_space, 8, 4, 1.0)
            count = [0] * 4
            while sum(count) < 4 * 9:  # the reset and 8 steps of each env
                obs, reward, *_, info = env.recv()
                ids = [int(i) for i in info["env_id"]]
                for row, env_id in enumerate(ids):
                    out[(env_id, count[env_id])] = (obs[row].copy(), reward[row])
                    count[env_id] += 1
                live = [i for i in ids if count[i] <= 8]
                if live:
                    env.send(np.stack([actions[count[i] - 1][i] for i in live]), live)
            return out
        finally:
            env.close()

    ref = run(num_threads=1)
    for pool in (dict(num_threads=2), dict(num_threads=2, batch_size=2)):
        got = run(**pool)
        assert got.keys() == ref.keys()
        for key in ref:
            np.testing.assert_array_equal(got[key][0], ref[key][0])
            assert got[key][1] == ref[key][1]


def test_from_pixels_dm_field_and_bad_options():
    env = envfleet.make(
        "Swimmer-v5",
        env_type="dm",
        from_pixels=True,
        render_width=16,
        render_height=16,
        conventions="dm_env",
    )
    try:
        step = env.reset()
        assert step.observation.pixels.shape == (1, 3, 16, 16)
    finally:
        env.close()
    with pytest.raises(ValueError, match="frame_stack"):
        envfleet.make_spec("Ant-v5", from_pixels=True, frame_stack=0)
    with pytest.raises(ValueError, match="render_camera_id"):
        envfleet.make_spec("Ant-v5", from_pixels=True, render_camera_id=1)
    with pytest.raises(ValueError, match="render_width"):
        envfleet.make_spec("Ant-v5", from_pixels=True, render_width=0)
