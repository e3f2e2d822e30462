"""Gymnasium's CartPole-v1, written in Python and run by envfleet's C++ pool.

A line-by-line port of ``gymnasium/envs/classic_control/cartpole.py`` (Gymnasium 1.4.0):
the same constants, the same arithmetic in the same order, the same random draws, so
``envfleet.make("PyCartPole-v1", num_envs=n, seed=s)`` reproduces
``gymnasium.make_vec("CartPole-v1", n).reset(seed=s)`` exactly (tests/test_python_env.py
checks it). Run this file to check that and to time it against the C++ CartPole-v1 and
Gymnasium's SyncVectorEnv::

    python examples/cartpole.py
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

import envfleet

GRAVITY = 9.8
MASSCART = 1.0
MASSPOLE = 0.1
TOTAL_MASS = MASSPOLE + MASSCART
LENGTH = 0.5  # actually half the pole's length
POLEMASS_LENGTH = MASSPOLE * LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds between state updates
THETA_THRESHOLD_RADIANS = 12 * 2 * math.pi / 360
X_THRESHOLD = 2.4

_HIGH = np.array([X_THRESHOLD * 2, np.inf, THETA_THRESHOLD_RADIANS * 2, np.inf], dtype=np.float32)


class CartPole(envfleet.PythonEnv):
    observation_space = spaces.Box(-_HIGH, _HIGH, dtype=np.float32)
    action_space = spaces.Discrete(2)
    state = {
        "x": np.float64,
        "x_dot": np.float64,
        "theta": np.float64,
        "theta_dot": np.float64,
        "steps_beyond_terminated": np.int64,  # -1: None
    }
    options = {"sutton_barto_reward": False}
    max_episode_steps = 500

    @staticmethod
    def reset(state, rng, options):
        # self.np_random.uniform(low=-0.05, high=0.05, size=(4,)): four draws, in order.
        state.x = rng.uniform(-0.05, 0.05)
        state.x_dot = rng.uniform(-0.05, 0.05)
        state.theta = rng.uniform(-0.05, 0.05)
        state.theta_dot = rng.uniform(-0.05, 0.05)
        state.steps_beyond_terminated = -1

    @staticmethod
    def step(state, action, rng, options):
        x, x_dot, theta, theta_dot = state.x, state.x_dot, state.theta, state.theta_dot
        force = FORCE_MAG if action == 1 else -FORCE_MAG
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        temp = (force + POLEMASS_LENGTH * (theta_dot * theta_dot) * sintheta) / TOTAL_MASS
        thetaacc = (GRAVITY * sintheta - costheta * temp) / (
            LENGTH * (4.0 / 3.0 - MASSPOLE * (costheta * costheta) / TOTAL_MASS)
        )
        xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS
        state.x = x + TAU * x_dot
        state.x_dot = x_dot + TAU * xacc
        state.theta = theta + TAU * theta_dot
        state.theta_dot = theta_dot + TAU * thetaacc

        terminated = (
            state.x < -X_THRESHOLD
            or state.x > X_THRESHOLD
            or state.theta < -THETA_THRESHOLD_RADIANS
            or state.theta > THETA_THRESHOLD_RADIANS
        )
        if not terminated:
            reward = 0.0 if options.sutton_barto_reward else 1.0
        elif state.steps_beyond_terminated == -1:  # the pole just fell
            state.steps_beyond_terminated = 0
            reward = -1.0 if options.sutton_barto_reward else 1.0
        else:
            state.steps_beyond_terminated += 1
            reward = -1.0 if options.sutton_barto_reward else 0.0
        return reward, terminated

    @staticmethod
    def observe(state, obs):
        obs[0] = state.x
        obs[1] = state.x_dot
        obs[2] = state.theta
        obs[3] = state.theta_dot


envfleet.register_python_env("PyCartPole-v1", CartPole)


def _alignment_check(n: int = 8, seed: int = 0, steps: int = 2000) -> None:
    import gymnasium

    ours = envfleet.make("PyCartPole-v1", num_envs=n, seed=seed)
    ref = gymnasium.make_vec("CartPole-v1", n, vectorization_mode="sync")
    obs, _ = ours.reset()
    ref_obs, _ = ref.reset(seed=seed)
    for action in np.random.default_rng(0).integers(0, 2, (steps, n)):
        assert np.array_equal(obs, ref_obs)
        obs, reward, terminated, truncated, _ = ours.step(action)
        ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
        assert np.array_equal(reward, ref_reward) and np.array_equal(terminated, ref_terminated)
        assert np.array_equal(truncated, ref_truncated)
    print(f"PyCartPole-v1 == Gymnasium's CartPole-v1: {steps} steps of {n} envs, exactly")


def _throughput(num_envs: int = 64, rounds: int = 7) -> None:
    """Steps/s of PyCartPole-v1, the C++ CartPole-v1 and Gymnasium's SyncVectorEnv over its
    CartPole-v1, measured in interleaved rounds (random actions; median of the rounds)."""
    import time

    import gymnasium

    pools = {
        "envfleet PyCartPole-v1 (Python)": envfleet.make("PyCartPole-v1", num_envs=num_envs),
        "envfleet CartPole-v1 (C++)": envfleet.make("CartPole-v1", num_envs=num_envs),
        "gymnasium SyncVectorEnv": gymnasium.make_vec(
            "CartPole-v1", num_envs, vectorization_mode="sync"
        ),
    }
    actions = np.random.default_rng(0).integers(0, 2, (4000, num_envs))
    rates: dict[str, list[float]] = {name: [] for name in pools}
    for env in pools.values():
        env.reset(seed=0)
    for _ in range(rounds):
        for name, env in pools.items():
            steps = 200 if name.startswith("gymnasium") else 4000
            start = time.perf_counter()
            for action in actions[:steps]:
                env.step(action)
            rates[name].append(steps * num_envs / (time.perf_counter() - start))
    median = {name: float(np.median(r)) for name, r in rates.items()}
    python, cpp = median["envfleet PyCartPole-v1 (Python)"], median["envfleet CartPole-v1 (C++)"]
    gym = median["gymnasium SyncVectorEnv"]
    print(f"num_envs={num_envs}, median of {rounds} interleaved rounds")
    for name, rate in median.items():
        print(f"{name:>32}: {rate:>12,.0f} steps/s")
    print(f"Python / C++: {python / cpp:.2f}x   Python / Gymnasium sync: {python / gym:.1f}x")


if __name__ == "__main__":
    _alignment_check()
    _throughput()
