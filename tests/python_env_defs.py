"""Small Python envs for tests/test_python_env.py (classes only: tests register them).

They live in a module of their own so that the isolated snippets (``run_isolated``) can
import them too.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from gymnasium import spaces

import envfleet


class RngProbe(envfleet.PythonEnv):
    """Each reset draws one of every rng helper; obs holds the draws, to compare with NumPy."""

    observation_space = spaces.Box(-np.inf, np.inf, (13,), np.float64)
    action_space = spaces.Discrete(2)
    state = {"draws": (np.float64, 13)}

    @staticmethod
    def reset(state, rng, options):
        state.draws[0] = rng.random()
        state.draws[1] = rng.uniform()
        state.draws[2] = rng.uniform(2.0, 5.0)
        state.draws[3] = rng.integers(10)
        state.draws[4] = rng.integers(-3, 3)
        state.draws[5] = rng.integers(0, 2**40)
        state.draws[6] = rng.integers(0, 2)
        state.draws[7] = rng.uniform(-1, 1)
        state.draws[8] = rng.integers(7, 1000)
        state.draws[9] = rng.standard_normal()
        state.draws[10] = rng.normal()
        state.draws[11] = rng.normal(3.0, 0.5)
        state.draws[12] = rng.normal(-1, 2)

    @staticmethod
    def step(state, action, rng, options):
        return 0.0, True  # every step ends the episode: the next one resets and draws again

    @staticmethod
    def observe(state, obs):
        obs[:] = state.draws


def rng_probe_reference(seed: int, episodes: int) -> np.ndarray:
    """What RngProbe observes over ``episodes`` resets, drawn by NumPy itself."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    rows = []
    for _ in range(episodes):
        rows.append(
            [
                rng.random(),
                rng.uniform(),
                rng.uniform(2.0, 5.0),
                rng.integers(10),
                rng.integers(-3, 3),
                rng.integers(0, 2**40),
                rng.integers(0, 2),
                rng.uniform(-1, 1),
                rng.integers(7, 1000),
                rng.standard_normal(),
                rng.normal(),
                rng.normal(3.0, 0.5),
                rng.normal(-1, 2),
            ]
        )
    return np.array(rows, dtype=np.float64)


class PointMass(envfleet.PythonEnv):
    """Continuous (Box) actions, a Tuple observation with a Discrete part, int and bool
    options, an info array: the layouts CartPole and GridWorld do not cover."""

    observation_space = spaces.Tuple(
        (spaces.Box(-10.0, 10.0, (2,), np.float32), spaces.Discrete(4, start=-1))
    )
    action_space = spaces.Box(-1.0, 1.0, (2,), np.float32)
    state = {"position": (np.float64, 2), "velocity": (np.float64, 2), "bumps": np.int64}
    info = {"speed": np.float32, "position": (np.float64, (2,))}
    options = {"friction": 0.1, "max_bumps": 3, "walls": True}
    max_episode_steps = 50

    @staticmethod
    def reset(state, rng, options):
        for i in range(2):
            state.position[i] = rng.uniform(-5.0, 5.0)
            state.velocity[i] = 0.0
        state.bumps = 0

    @staticmethod
    def step(state, action, rng, options):
        reward = 0.0
        for i in range(2):
            force = min(max(action[i], -1.0), 1.0)
            state.velocity[i] = (1.0 - options.friction) * state.velocity[i] + force
            state.position[i] += 0.1 * state.velocity[i]
            if options.walls and abs(state.position[i]) > 9.0:
                state.position[i] = math.copysign(9.0, state.position[i])
                state.velocity[i] = 0.0
                state.bumps += 1
            reward -= abs(state.position[i])
        return reward, state.bumps >= options.max_bumps

    @staticmethod
    def observe(state, obs, info):
        obs[0][0] = state.position[0]
        obs[0][1] = state.position[1]
        obs[1][()] = min(state.bumps, 2)
        info.speed[()] = math.hypot(state.velocity[0], state.velocity[1])
        info.position[0] = state.position[0]
        info.position[1] = state.position[1]


class Flaky(envfleet.PythonEnv):
    """Raises in step, observe or reset (``fail_in`` 0, 1, 2) once an episode reaches
    ``fail_at`` steps (-1: never)."""

    observation_space = spaces.Box(0, 1000, (), np.int64)
    action_space = spaces.Discrete(2)
    state = {"t": np.int64, "fail_observe_at": np.int64}
    options = {"fail_at": -1, "fail_in": 0}

    @staticmethod
    def reset(state, rng, options):
        if options.fail_in == 2 and options.fail_at >= 0 and state.t >= options.fail_at:
            raise RuntimeError("reset failed on purpose")
        state.t = 0
        state.fail_observe_at = options.fail_at if options.fail_in == 1 else -1

    @staticmethod
    def step(state, action, rng, options):
        state.t += 1
        if options.fail_in == 0 and state.t == options.fail_at:
            raise ValueError("step failed on purpose")
        return 1.0, state.t >= 10

    @staticmethod
    def observe(state, obs):
        if is_failure_step(state.t, state.fail_observe_at):
            raise ValueError("observe failed on purpose")
        obs[()] = state.t


@numba.njit
def is_failure_step(t, fail_at):
    return t == fail_at


class OutOfBounds(envfleet.PythonEnv):
    """observe writes obs[4] of a (4,) observation: an index error (or, without the bounds
    check, a write past the end of the output row)."""

    observation_space = spaces.Box(-1.0, 1.0, (4,), np.float32)
    action_space = spaces.Discrete(2)
    state = {"n": np.int64}

    @staticmethod
    def reset(state, rng, options):
        state.n = 5

    @staticmethod
    def step(state, action, rng, options):
        return 0.0, False

    @staticmethod
    def observe(state, obs):
        for i in range(state.n):
            obs[i] = 0.5


class Busy(envfleet.PythonEnv):
    """Each step computes for a while (``spin`` dependent multiply-adds): a slow env, for the
    tests of waiting calls (Ctrl-C, shutdown, threads). obs counts the env's steps."""

    observation_space = spaces.Box(0, np.inf, (), np.float64)
    action_space = spaces.Discrete(2)
    state = {"t": np.float64, "x": np.float64}
    options = {"spin": 0}
    max_episode_steps = 10_000

    @staticmethod
    def reset(state, rng, options):
        state.t = 0.0
        state.x = 0.0

    @staticmethod
    def step(state, action, rng, options):
        x = state.x
        for _ in range(options.spin):
            x = x * 0.9999999 + 1e-9  # a dependency chain: the compiler cannot skip it
        state.x = x
        state.t += 1.0
        return 0.0, False

    @staticmethod
    def observe(state, obs):
        obs[()] = state.t
