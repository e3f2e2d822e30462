"""Pendulum-v0 (EnvPool's id; option version=0 of the Pendulum type) against its references.

Pendulum-v0 is gym <= 0.20's pendulum: the angle moves by the new angular velocity before it
is clipped to max_speed (gym PR #2423 made v1 move it by the clipped one). Two checks:

- Bit for bit, whole episodes, several seeds: against Gymnasium 1.4.0's PendulumEnv with its
  step in v0's order (``PendulumV0`` below: Gymnasium's own step with that one line moved),
  which is what envfleet's Pendulum-v1 matches exactly with v1's order.
- Against EnvPool 1.2.5's Pendulum-v0 itself. EnvPool seeds another generator
  (``std::mt19937(seed)``): the test computes EnvPool's initial states from the same seed
  (``initial_states``) and starts ``PendulumV0`` there, then feeds both the same actions over
  two whole episodes (the second starts from EnvPool's autoreset). EnvPool computes in another
  order (it keeps the angle wrapped to [-pi, pi), adds the torque before multiplying by 3,
  squares the torque in float64 and returns a float32 reward), so values agree to rounding:
  observations to 1e-6 absolute (float32 values up to 8, whose spacing there is 4.8e-7;
  measured: one such step at most, over 400 steps of five seeds), rewards to 1e-6 relative
  (EnvPool's are float32, 6e-8 relative rounding; measured 1.1e-7 at most).
"""

from __future__ import annotations

import envpool
import gymnasium
import numpy as np
import pytest
from gymnasium.envs.classic_control.pendulum import PendulumEnv, angle_normalize
from gymnasium.wrappers import TimeLimit

import envfleet

NUM_ENVS = 4
MAX_SPEED = 8.0


class PendulumV0(PendulumEnv):
    """Gymnasium 1.4.0's PendulumEnv in gym <= 0.20's integration order."""

    def step(self, u):
        th, thdot = self.state
        g, m, length, dt = self.g, self.m, self.l, self.dt
        u = np.clip(u, -self.max_torque, self.max_torque)[0]
        self.last_u = u
        costs = angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2)
        newthdot = thdot + (3 * g / (2 * length) * np.sin(th) + 3.0 / (m * length**2) * u) * dt
        newth = th + newthdot * dt  # v0: before the clip
        newthdot = np.clip(newthdot, -self.max_speed, self.max_speed)
        self.state = np.array([newth, newthdot])
        return self._get_obs(), -costs, False, False, {}


def policy(rng: np.random.Generator, obs: np.ndarray) -> np.ndarray:
    """Full torque along the angular velocity (swings up to max_speed, where v0 and v1 differ),
    30% of the time a random torque in [-3, 3] (beyond the bounds half the time)."""
    pump = np.where(obs[:, 2] >= 0, 2.0, -2.0)
    random = rng.uniform(-3.0, 3.0, len(obs))
    return np.where(rng.random(len(obs)) < 0.3, random, pump).astype(np.float32)[:, None]


@pytest.mark.parametrize("seed", [0, 123, 2**32 + 5])
def test_matches_gymnasium_pendulum_in_v0_order(seed):
    ours = envfleet.make("Pendulum-v0", num_envs=NUM_ENVS, seed=seed, conventions="gymnasium")
    ref = gymnasium.vector.SyncVectorEnv(
        [lambda: TimeLimit(PendulumV0(), max_episode_steps=200) for _ in range(NUM_ENVS)]
    )
    try:
        obs, _ = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        np.testing.assert_array_equal(obs, ref_obs)
        rng = np.random.default_rng(seed)
        truncations = clipped = 0
        for t in range(650):  # three episodes and a quarter
            action = policy(rng, ref_obs)
            obs, reward, terminated, truncated, _ = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"seed {seed} step {t}"
            np.testing.assert_array_equal(obs, ref_obs, err_msg=f"obs, {where}")
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            truncations += int(truncated.sum())
            clipped += int((np.abs(obs[:, 2]) == MAX_SPEED).sum())
        assert truncations == 3 * NUM_ENVS
        assert clipped > 100, "the swing never reached max_speed: v0's order went untested"
    finally:
        ours.close()
        ref.close()


def test_v0_and_v1_differ_only_past_max_speed():
    def run(task_id):
        env = envfleet.make(task_id, num_envs=NUM_ENVS, seed=5, conventions="gymnasium")
        obs, _ = env.reset()
        rng, trajectory = np.random.default_rng(5), []
        for _ in range(200):
            obs, *_ = env.step(policy(rng, obs))
            trajectory.append(obs)
        env.close()
        return np.array(trajectory)

    v0, v1 = run("Pendulum-v0"), run("Pendulum-v1")
    # Identical until an env first reaches max_speed, different after.
    first_clip = np.argmax(np.abs(v1[:, :, 2]) == MAX_SPEED, axis=0)
    for i in range(NUM_ENVS):
        np.testing.assert_array_equal(v0[: first_clip[i], i], v1[: first_clip[i], i])
    assert not np.array_equal(v0, v1)


def test_registration_and_version_option():
    v0, v1 = envfleet.make_spec("Pendulum-v0"), envfleet.make_spec("Pendulum-v1")
    assert v0.config.env_options["version"] == 0 and v1.config.env_options["version"] == 1
    assert v0.max_episode_steps == 200 and v0.reward_threshold is None
    assert v0.observation_space == v1.observation_space
    assert v0.action_space == v1.action_space
    assert v0.render == v1.render
    with pytest.raises(ValueError, match="version must be 0"):
        envfleet.make_spec("Pendulum-v1", version=2)


# ---- EnvPool 1.2.5's Pendulum-v0 --------------------------------------------------------------


def canonical_doubles(words: np.ndarray) -> np.ndarray:
    """std::generate_canonical<double, 53>(std::mt19937) of libstdc++ over pairs of 32-bit
    words: (w0 + w1 * 2**32) / 2**64, summed in double; a result of 1 becomes the largest
    double below 1."""
    sums = words[0::2].astype(np.float64) + words[1::2].astype(np.float64) * 2.0**32
    return np.minimum(sums / 2.0**64, np.nextafter(1.0, 0.0))


def initial_states(seed: int, episodes: int) -> np.ndarray:
    """EnvPool's PendulumEnv::Reset() draws, episode after episode, for env seed `seed`: theta
    from uniform_real_distribution(-pi, pi), then theta_dot from (-1, 1), i.e.
    canonical * (b - a) + a, from std::mt19937(seed). NumPy's RandomState(seed) is the same
    MT19937 seeded the same way (init_genrand), and randint over [0, 2**32) returns its raw
    32-bit words."""
    words = np.random.RandomState(seed).randint(0, 2**32, size=4 * episodes, dtype=np.uint64)
    canon = canonical_doubles(words).reshape(episodes, 2)
    theta = canon[:, 0] * (np.pi - -np.pi) + -np.pi
    theta_dot = canon[:, 1] * (1.0 - -1.0) + -1.0
    return np.stack([theta, theta_dot], axis=1)


def test_initial_states_are_envpools():
    for seed in (0, 3, 1000):
        env = envpool.make_gymnasium("Pendulum-v0", num_envs=1, seed=seed)
        obs, _ = env.reset()
        env.close()
        theta, theta_dot = initial_states(seed, 1)[0]
        expected = np.array([np.cos(theta), np.sin(theta), theta_dot], dtype=np.float32)
        np.testing.assert_array_equal(obs[0], expected)


@pytest.mark.parametrize("seed", [0, 42, 99])
def test_matches_envpool_from_its_initial_states(seed):
    env = envpool.make_gymnasium("Pendulum-v0", num_envs=1, seed=seed)
    ref = PendulumV0()
    ref.reset(seed=0)
    starts = initial_states(seed, 2)
    rng = np.random.default_rng(seed)
    try:
        obs, _ = env.reset()
        ref.state = starts[0].copy()
        clipped = 0
        for t in range(400):
            if t == 200:  # EnvPool's autoreset after the truncation at step 200
                obs, *_ = env.step(np.zeros((1, 1), np.float32))
                ref.state = starts[1].copy()
            ref_obs = ref._get_obs()
            np.testing.assert_allclose(obs[0], ref_obs, atol=1e-6, err_msg=f"obs, step {t}")
            action = policy(rng, ref_obs[None])
            obs, reward, terminated, truncated, _ = env.step(action)
            ref_obs, ref_reward, *_ = ref.step(action[0])
            assert not terminated[0] and truncated[0] == (t % 200 == 199), t
            np.testing.assert_allclose(reward[0], ref_reward, rtol=1e-6, err_msg=f"step {t}")
            clipped += int(abs(ref.state[1]) == MAX_SPEED)
        assert clipped > 20
    finally:
        env.close()
