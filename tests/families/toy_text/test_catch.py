"""Catch-v0 (EnvPool's id) against bsuite 0.3.6's Catch, its original, and EnvPool 1.2.5's.

- bsuite: env i of ``envfleet.make("Catch-v0", seed=s)`` is ``Catch(seed=s + i)``, whose
  RandomState draws the ball's column; both get the same actions over many whole episodes
  (each is height - 1 steps), and observation, reward and episode ends must be equal, bit for
  bit; ``reset(seed=...)`` re-seeds as ``Catch(seed=...)`` does.
- EnvPool: its Catch draws the column from ``std::mt19937(seed)`` with
  ``std::uniform_int_distribution``, another mapping of the same MT19937 words than NumPy's
  ``randint``. The test runs bsuite's Catch with that draw in place of its RandomState and
  requires EnvPool's episodes to be the same, bit for bit: the same dynamics as bsuite's, and
  so as ours.
"""

from __future__ import annotations

import envpool
import numpy as np
import pytest
from bsuite.environments.catch import Catch

import envfleet

NUM_ENVS = 3


def run_bsuite(envs: list[Catch], actions: np.ndarray, first) -> list:
    """Steps bsuite's envs with NEXT_STEP autoreset: the step after a last TimeStep resets."""
    out = []
    for i, env in enumerate(envs):
        if first[i].last():
            first[i] = env.reset()
        else:
            first[i] = env.step(int(actions[i]))
        out.append(first[i])
    return out


@pytest.mark.parametrize(
    ("seed", "options"),
    [(0, {}), (123, {}), (2**32 - 3, {}), (9, {"height": 6, "width": 8}), (4, {"width": 1})],
)
def test_matches_bsuite(seed, options):
    rows, columns = options.get("height", 10), options.get("width", 5)
    ours = envfleet.make(
        "Catch-v0", num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **options
    )
    refs = [Catch(rows=rows, columns=columns, seed=seed + i) for i in range(NUM_ENVS)]
    try:
        assert ours.single_observation_space.shape == (rows, columns)
        assert ours.single_observation_space.dtype == np.float32
        obs, _ = ours.reset()
        last = [env.reset() for env in refs]
        np.testing.assert_array_equal(obs, [ts.observation for ts in last])
        rng = np.random.default_rng(seed % 2**32)
        episodes = wins = 0
        for t in range(40 * rows):
            # Follow the ball 60% of the time, so that both rewards occur.
            ball = np.argmax(obs[:, :-1].max(axis=1), axis=1)
            paddle = np.argmax(obs[:, -1], axis=1)
            follow = np.sign(ball - paddle) + 1
            actions = np.where(rng.random(NUM_ENVS) < 0.6, follow, rng.integers(0, 3, NUM_ENVS))
            obs, reward, terminated, truncated, _ = ours.step(actions.astype(np.int64))
            ref = run_bsuite(refs, actions, last)
            where = f"seed {seed} step {t}"
            np.testing.assert_array_equal(obs, [ts.observation for ts in ref], err_msg=where)
            np.testing.assert_array_equal(reward, [ts.reward or 0.0 for ts in ref], err_msg=where)
            np.testing.assert_array_equal(terminated, [ts.last() for ts in ref], err_msg=where)
            assert not truncated.any()
            episodes += int(terminated.sum())
            wins += int((reward == 1).sum())
        assert episodes >= 30 * NUM_ENVS and 0 < wins and (columns == 1 or wins < episodes)

        # reset(seed=...) re-seeds each env as a new Catch(seed=...).
        obs, _ = ours.reset(seed=77)
        fresh = [Catch(rows=rows, columns=columns, seed=77 + i).reset() for i in range(NUM_ENVS)]
        np.testing.assert_array_equal(obs, [ts.observation for ts in fresh])
    finally:
        ours.close()


def test_spec_and_bad_options():
    spec = envfleet.make_spec("Catch-v0")
    assert spec.observation_space.shape == (10, 5) and spec.action_space.n == 3
    assert spec.reward_range == (-1.0, 1.0) and spec.max_episode_steps is None
    assert spec.observation_space == envpool.make_spec("Catch-v0").observation_space
    with pytest.raises(ValueError, match="height must be >= 2"):
        envfleet.make_spec("Catch-v0", height=1)
    with pytest.raises(ValueError, match="width must be >= 1"):
        envfleet.make_spec("Catch-v0", width=0)
    with pytest.raises(ValueError, match="2\\*\\*32 - 1"):
        envfleet.make("Catch-v0", seed=2**32)


# ---- EnvPool 1.2.5's Catch-v0 -----------------------------------------------------------------


class EnvpoolColumns:
    """EnvPool's draw of the ball's column, as a stand-in for bsuite's RandomState:
    std::uniform_int_distribution<int>(0, n - 1) over std::mt19937(seed) in libstdc++ (GCC 11
    and later), Lemire's multiply-and-shift with rejection. NumPy's RandomState(seed) is the
    same MT19937 seeded the same way; randint over [0, 2**32) returns its raw words."""

    def __init__(self, seed: int):
        self.words = iter(np.random.RandomState(seed).randint(0, 2**32, 10**5, dtype=np.uint64))

    def randint(self, n: int) -> int:
        product = int(next(self.words)) * n
        if product % 2**32 < n:
            threshold = (2**32 - n) % n
            while product % 2**32 < threshold:
                product = int(next(self.words)) * n
        return product >> 32


@pytest.mark.parametrize("seed", [0, 5, 31])
def test_envpool_is_bsuite_with_its_draws(seed):
    env = envpool.make_gymnasium("Catch-v0", num_envs=1, seed=seed)
    ref = Catch(seed=0)
    ref._rng = EnvpoolColumns(seed)
    rng = np.random.default_rng(seed)
    try:
        obs, _ = env.reset()
        last = [ref.reset()]
        np.testing.assert_array_equal(obs[0], last[0].observation)
        episodes = 0
        for t in range(300):
            action = rng.integers(0, 3, 1)
            obs, reward, terminated, truncated, _ = env.step(action.astype(np.int32))
            (ts,) = run_bsuite([ref], action, last)
            np.testing.assert_array_equal(obs[0], ts.observation, err_msg=f"step {t}")
            assert reward[0] == (ts.reward or 0.0) and terminated[0] == ts.last(), t
            episodes += int(terminated[0])
        assert episodes >= 30
    finally:
        env.close()
