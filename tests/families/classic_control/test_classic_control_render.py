"""Classic control frames against Gymnasium 1.4.0's ``render_mode="rgb_array"``, pixel for pixel.

Three levels:

* the primitives of ``cpp/common/render2d`` (pygame.gfxdraw's SDL_gfx routines, pygame.draw's
  lines and anti-aliased lines, the vertical flip) drawn by the test-only hook
  ``_envfleet_testing.render2d_draw`` on random scenes, against pygame drawing the same calls;
* every classic control env type, driven without a pool through
  ``_envfleet_testing.ClassicControlEnv`` (reset, step, ``Env::Render``), against Gymnasium's
  env in the same state (same seed, same actions), frame by frame over whole episodes steered
  into extreme states: the cart off the screen's edge and the pole spinning, the car against
  the left wall and parked at the goal, the pendulum spinning with every arrow size and both
  arrow directions, the acrobot swinging over the top;
* the pool: ``envfleet.make(task_id, render_mode="rgb_array").render(env_ids)`` against
  ``gymnasium.make_vec(task_id, render_mode="rgb_array").render()`` through autoresets.

Tolerance: none on x86-64, where every frame is equal to Gymnasium's. The rasteriser repeats
SDL_gfx's and pygame's integer and float arithmetic and pygame's x86-64 smoothscale (the SSE
filter); the env geometry repeats each render() in NumPy's dtypes. On other machines pygame
scales the Pendulum arrow with another filter (generic C or NEON), so there the floor is the
issue's 99.5% of equal pixels per frame (EnvPool's CartPole frames reach 99.0%).
"""

from __future__ import annotations

import os
import platform
import random

# The references call pygame.display.init(), which needs no window for rgb_array but fails
# without a video driver on a headless machine.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import pygame  # noqa: E402
import pytest  # noqa: E402
from pygame import gfxdraw  # noqa: E402

import envfleet  # noqa: E402

# Stepping Gymnasium's envs past a termination (to reach extreme states) makes them warn.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

EXACT = platform.machine().lower() in ("x86_64", "amd64")
REQUIRED_MATCH = 1.0 if EXACT else 0.995

ASSETS_DIR = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "classic_control", "assets")

TYPES = {
    "CartPole-v1": "CartPole",
    "MountainCar-v0": "MountainCar",
    "MountainCarContinuous-v0": "MountainCarContinuous",
    "Pendulum-v1": "Pendulum",
    "Acrobot-v1": "Acrobot",
}
# Pendulum draws Gymnasium's arrow sprite from this directory (its option assets_dir).
OPTIONS = {"Pendulum-v1": {"assets_dir": ASSETS_DIR}}


# --------------------------------------------------------------------------------------------
# Primitives
# --------------------------------------------------------------------------------------------

W, H = 120, 90


def pygame_scene(ops, flip_y: bool) -> np.ndarray:
    surf = pygame.Surface((W, H))  # 32-bit, no alpha: what Gymnasium draws on
    for kind, *args in ops:
        if kind == "fill":
            surf.fill(args[0])
        elif kind == "flip":
            surf = pygame.transform.flip(surf, False, True)
        elif kind.startswith("draw_"):  # (start, end, color) or (closed, points, color)
            getattr(pygame.draw, kind[5:])(surf, args[2], args[0], args[1])
        else:
            getattr(gfxdraw, kind)(surf, *args)
    if flip_y:
        surf = pygame.transform.flip(surf, False, True)
    return np.transpose(pygame.surfarray.array3d(surf), (1, 0, 2))


def random_op(rng: random.Random, kind: str):
    def color(alpha: bool = True):
        c = tuple(rng.randrange(256) for _ in range(3))
        return c + (rng.randrange(256),) if alpha and rng.random() < 0.5 else c

    def point(margin: int = 20):  # floats, partly off the surface
        return (rng.uniform(-margin, W + margin), rng.uniform(-margin, H + margin))

    def ipoint(margin: int = 20):
        return (rng.randint(-margin, W + margin), rng.randint(-margin, H + margin))

    if kind == "pixel":
        return (kind, *ipoint(), color())
    if kind == "hline":
        x1, x2, y = rng.randint(-20, W + 20), rng.randint(-20, W + 20), rng.randint(-5, H + 5)
        return (kind, x1, x2, y, color())
    if kind == "vline":
        x, y1, y2 = rng.randint(-5, W + 5), rng.randint(-20, H + 20), rng.randint(-20, H + 20)
        return (kind, x, y1, y2, color())
    if kind == "line":
        return (kind, *ipoint(), *ipoint(), color())
    if kind in ("aapolygon", "filled_polygon"):
        if rng.random() < 0.3:  # integer corners with 45-degree and axis-parallel edges
            x, y, d = rng.randint(-10, W), rng.randint(-10, H), rng.randint(0, 40)
            pts = [(x, y), (x + d, y + d), (x + d, y + 2 * d), (x - d, y + d), (x - d, y)]
        else:
            pts = [point() for _ in range(rng.randint(3, 7))]
        return (kind, pts, color())
    if kind in ("aacircle", "filled_circle"):
        return (kind, *ipoint(), rng.randint(0, 40), color())
    if kind == "aaellipse":
        return (kind, *ipoint(), rng.randint(0, 40), rng.randint(0, 40), color())
    if kind in ("draw_line", "draw_aaline"):
        return (kind, point(), point(), color(alpha=False))
    if kind in ("draw_lines", "draw_aalines"):
        pts = [point() for _ in range(rng.randint(2, 6))]
        return (kind, rng.random() < 0.5, pts, color(alpha=False))
    raise AssertionError(kind)


PRIMITIVES = [
    "pixel",
    "hline",
    "vline",
    "line",
    "aapolygon",
    "filled_polygon",
    "aacircle",
    "aaellipse",
    "filled_circle",
    "draw_line",
    "draw_lines",
    "draw_aaline",
    "draw_aalines",
]


@pytest.mark.parametrize("kind", PRIMITIVES)
def test_primitive_matches_pygame(testing_module, kind):
    """Random scenes of one primitive (several calls over a random background, colours with and
    without alpha, shapes partly off the surface) equal pygame's, pixel for pixel."""
    rng = random.Random(f"render2d-{kind}")
    for scene in range(150):
        ops = [("fill", tuple(rng.randrange(256) for _ in range(3)))]
        ops += [random_op(rng, kind) for _ in range(3)]
        flip_y = scene % 3 == 0
        if scene % 5 == 1 and not flip_y:
            ops.append(("flip",))
        expected = pygame_scene(ops, flip_y)
        got = np.frombuffer(testing_module.render2d_draw(W, H, ops, flip_y), np.uint8)
        got = got.reshape(H, W, 3)
        where = np.argwhere((expected != got).any(-1))
        assert where.size == 0, (
            f"{len(where)} pixels differ, first at (y, x) {where[0].tolist()}: "
            f"pygame {expected[tuple(where[0])]}, ours {got[tuple(where[0])]}; scene {ops}"
        )


# --------------------------------------------------------------------------------------------
# Env frames
# --------------------------------------------------------------------------------------------


def cartpole_policy(kind: str, rng: np.random.Generator):
    if kind == "right":  # the cart leaves the screen on the right, the pole falls and spins
        return lambda obs: 1
    if kind == "left":
        return lambda obs: 0
    if kind == "balance":  # keeps the pole up for a while; the cart drifts
        return lambda obs: int(obs[2] + 0.5 * obs[3] > 0)
    return lambda obs: int(rng.integers(2))


def mountain_car_policy(kind: str, rng: np.random.Generator):
    if kind == "pump":  # swings up to the goal, then parks against the right end
        return lambda obs: 2 if obs[1] >= 0 else 0
    if kind == "left":  # against the left wall
        return lambda obs: 0
    return lambda obs: int(rng.integers(3))


def continuous_mountain_car_policy(kind: str, rng: np.random.Generator):
    if kind == "pump":
        return lambda obs: 1.5 if obs[1] >= 0 else -1.5  # beyond the bounds: clipped
    if kind == "left":
        return lambda obs: -1.0
    return lambda obs: float(rng.uniform(-2.0, 2.0))


def pendulum_policy(kind: str, rng: np.random.Generator):
    if kind == "swing":  # spins round and round at full torque
        return lambda obs: 2.0 if obs[2] >= 0 else -2.0
    if kind == "sweep":  # every arrow size in both directions, and the degenerate ones
        torques = iter(np.concatenate([np.linspace(-2.2, 2.2, 441), [0.0, -0.0, 1e-6, 3.0]]))
        return lambda obs: float(next(torques))
    return lambda obs: float(rng.uniform(-3.0, 3.0))


def acrobot_policy(kind: str, rng: np.random.Generator):
    if kind == "pump":  # energy pumping: swings the links over the top
        return lambda obs: 2 if obs[4] >= 0 else 0
    return lambda obs: int(rng.integers(3))


# task -> (policy factory, [(policy kind, seed, steps)])
EPISODES = {
    "CartPole-v1": (
        cartpole_policy,
        [("right", 0, 120), ("left", 1, 120), ("balance", 2, 150), ("random", 3, 60)],
    ),
    "MountainCar-v0": (
        mountain_car_policy,
        [("pump", 0, 200), ("left", 1, 60), ("random", 2, 60)],
    ),
    "MountainCarContinuous-v0": (
        continuous_mountain_car_policy,
        [("pump", 0, 200), ("left", 1, 60), ("random", 2, 60)],
    ),
    "Pendulum-v1": (
        pendulum_policy,
        [("sweep", 0, 445), ("swing", 1, 100), ("random", 2, 100)],
    ),
    "Acrobot-v1": (acrobot_policy, [("pump", 0, 150), ("random", 1, 60)]),
}


def frame_match(expected: np.ndarray, got: np.ndarray) -> float:
    return float((expected == got).all(-1).mean())


@pytest.mark.parametrize("task_id", sorted(EPISODES))
def test_frames_match_gymnasium(testing_module, task_id):
    """Reset and every step of each episode: our frame against Gymnasium's render()."""
    make_policy, episodes = EPISODES[task_id]
    for kind, seed, steps in episodes:
        ref = gymnasium.make(task_id, render_mode="rgb_array").unwrapped
        ours = testing_module.ClassicControlEnv(TYPES[task_id], seed, OPTIONS.get(task_id, {}))
        obs, _ = ref.reset(seed=seed)
        ours.reset()
        policy = make_policy(kind, np.random.default_rng(seed))
        for t in range(steps + 1):
            if t:
                action = policy(obs)
                ref_action = np.array([action], np.float32) if isinstance(action, float) else action
                obs, *_ = ref.step(ref_action)
                ours.step(action)
            expected = ref.render()
            got = np.frombuffer(ours.render(), np.uint8).reshape(expected.shape)
            match = frame_match(expected, got)
            assert match >= REQUIRED_MATCH, (
                f"{task_id} ({kind} policy, seed {seed}) step {t}: {match:.5f} of the pixels "
                f"equal, {np.count_nonzero((expected != got).any(-1))} differ"
            )
        ref.close()


@pytest.mark.parametrize("task_id", sorted(TYPES))
def test_render_spec_is_gymnasiums(testing_module, task_id):
    ref = gymnasium.make(task_id, render_mode="rgb_array")
    ref.reset(seed=0)
    height, width, _ = ref.render().shape
    ours = testing_module.ClassicControlEnv(TYPES[task_id], 0, OPTIONS.get(task_id, {}))
    assert ours.render_spec == (width, height, False, ref.metadata["render_fps"], 0)
    ref.close()


def test_pendulum_without_assets_dir_draws_until_it_needs_the_arrow(testing_module):
    env = testing_module.ClassicControlEnv("Pendulum", 0)
    env.reset()
    env.render()  # after a reset there is no torque yet, so no arrow
    env.step(1.0)
    with pytest.raises(RuntimeError, match="assets_dir is empty"):
        env.render()


def test_rendering_changes_nothing(testing_module):
    """The same episode with and without frames drawn between the steps ends in the same frame
    (Render reads the state and draws from no rng)."""
    last = []
    for draw_every_step in (False, True):
        env = testing_module.ClassicControlEnv("Pendulum", 7, {"assets_dir": ASSETS_DIR})
        env.reset()
        for t in range(50):
            env.step(float(np.sin(t)))
            if draw_every_step:
                env.render()
        last.append(env.render())
    assert last[0] == last[1]


@pytest.mark.parametrize("task_id", sorted(TYPES))
def test_pool_frames_match_gymnasium_vector_env(task_id):
    """The pool's render(env_ids) on its worker threads, next to Gymnasium's sync vector env
    from the same seed and actions (env i seeded s + i on both sides), across autoresets."""
    num_envs, seed = 3, 11
    ours = envfleet.make(
        task_id,
        num_envs=num_envs,
        seed=seed,
        render_mode="rgb_array",
        **OPTIONS.get(task_id, {}),
        conventions="gymnasium",
    )
    ref = gymnasium.make_vec(
        task_id, num_envs=num_envs, vectorization_mode="sync", render_mode="rgb_array"
    )
    ours.reset()
    ref.reset(seed=seed)
    ref.action_space.seed(seed)
    for t in range(80):
        if t:
            action = ref.action_space.sample()
            ours.step(action)
            ref.step(action)
        expected = np.stack(ref.render())
        got = ours.render(env_ids=list(range(num_envs)))
        assert got.shape == expected.shape and got.dtype == np.uint8
        for i in range(num_envs):
            match = frame_match(expected[i], got[i])
            assert match >= REQUIRED_MATCH, f"{task_id} env {i} step {t}: {match:.5f} equal"
    ours.close()
    ref.close()
