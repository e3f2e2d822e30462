"""NChain-v0 (EnvPool's id) against gym 0.20.0's NChainEnv and EnvPool 1.2.5's NChain-v0.

gym 0.20's nchain.py was removed from later gym, and gym 0.20 cannot be installed next to the
gym 0.23.1 the tests use (CleanRL's), so its rules are restated below as ``NChainReference``
(the whole of its step), drawing each step's slip from a given uniform source. Two checks,
bit for bit over whole episodes (the 1000-step time limit, truncating twice) and several
seeds:

- envfleet: the source is Gymnasium's ``np_random`` seeded with s + i for env i
  (``Generator(PCG64(SeedSequence(s + i))).random()``), the stream every toy-text env of
  envfleet draws from.
- EnvPool: the source is EnvPool's own draw, ``std::uniform_real_distribution<double>(0, 1)``
  over ``std::mt19937(seed)``, computed from the same seed; EnvPool's episodes must follow
  the same rules exactly. The two implementations meet in the rules.
"""

from __future__ import annotations

from collections.abc import Callable

import envpool
import numpy as np
import pytest

import envfleet

NUM_ENVS = 3


class NChainReference:
    """gym 0.20.0's NChainEnv: n states, action 0 forward (the large payout, staying, at the
    end), action 1 back to the start with the small payout; with probability slip the other
    action is taken, decided by one uniform draw per step."""

    def __init__(self, uniform: Callable[[], float], n=5, slip=0.2, small=2, large=10):
        self.uniform, self.n, self.slip, self.small, self.large = uniform, n, slip, small, large
        self.state = 0

    def reset(self) -> int:
        self.state = 0
        return self.state

    def step(self, action: int) -> tuple[int, float]:
        if self.uniform() < self.slip:
            action = not action  # agent slipped, reverse action taken
        if action:  # 'backwards': go back to the beginning, get small reward
            reward = self.small
            self.state = 0
        elif self.state < self.n - 1:  # 'forwards': go up along the chain
            reward = 0
            self.state += 1
        else:  # 'forwards': stay at the end of the chain, collect large reward
            reward = self.large
        return self.state, reward


def run_aligned(ours, refs: list[NChainReference], steps: int, seed: int) -> dict[str, int]:
    obs, _ = ours.reset()
    assert obs.tolist() == [ref.reset() for ref in refs]
    rng = np.random.default_rng(seed + 1)
    counts = {"truncated": 0, "large": 0, "small": 0}
    done = [False] * len(refs)
    for t in range(steps):
        actions = (rng.random(len(refs)) < 0.25).astype(np.int64)  # mostly forward
        obs, reward, terminated, truncated, _ = ours.step(actions)
        for i, ref in enumerate(refs):
            if done[i]:  # NEXT_STEP autoreset: this step reset env i
                expected = (ref.reset(), 0.0)
            else:
                expected = ref.step(int(actions[i]))
            assert (int(obs[i]), float(reward[i])) == expected, (t, i)
        assert not terminated.any()
        done = list(truncated)
        counts["truncated"] += int(truncated.sum())
        counts["large"] += int((reward == refs[0].large).sum())
        counts["small"] += int((reward == refs[0].small).sum())
    return counts


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (0, {}),
        (77, {}),
        (2**40 + 1, {}),
        (5, {"n": 3, "slip": 0.5, "small": 1.5, "large": 7.0}),
        (6, {"slip": 0.0}),
    ],
)
def test_matches_gym_020_rules_with_gymnasiums_draws(seed, options):
    ours = envfleet.make(
        "NChain-v0", num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **options
    )
    refs = [
        NChainReference(np.random.default_rng(seed + i).random, **options) for i in range(NUM_ENVS)
    ]
    try:
        counts = run_aligned(ours, refs, 2100, seed)
    finally:
        ours.close()
    assert counts["truncated"] == 2 * NUM_ENVS  # at steps 1000 and 2001
    assert counts["large"] > 0 and counts["small"] > 0, counts


def test_spec_and_bad_options():
    spec = envfleet.make_spec("NChain-v0")
    assert spec.observation_space.n == 5 and spec.action_space.n == 2
    assert spec.max_episode_steps == 1000 and spec.reward_threshold is None
    theirs = envpool.make_spec("NChain-v0")
    assert theirs.observation_space.n == 5 and theirs.action_space.n == 2
    assert theirs.config.max_episode_steps == spec.max_episode_steps
    assert envfleet.make_spec("NChain-v0", n=9).observation_space.n == 9
    with pytest.raises(ValueError, match="n must be >= 1"):
        envfleet.make_spec("NChain-v0", n=0)
    with pytest.raises(ValueError, match="slip must be a probability"):
        envfleet.make_spec("NChain-v0", slip=1.5)


# ---- EnvPool 1.2.5's NChain-v0 ----------------------------------------------------------------


def envpool_uniform(seed: int) -> Callable[[], float]:
    """EnvPool's slip draws: std::uniform_real_distribution<double>(0, 1) over
    std::mt19937(seed), i.e. libstdc++'s generate_canonical<double, 53> of two 32-bit words,
    (w0 + w1 * 2**32) / 2**64 summed in double. NumPy's RandomState(seed) is the same MT19937
    seeded the same way; randint over [0, 2**32) returns its raw words."""
    words = np.random.RandomState(seed).randint(0, 2**32, 2 * 2100, dtype=np.uint64)
    canon = (words[0::2].astype(np.float64) + words[1::2].astype(np.float64) * 2.0**32) / 2.0**64
    draws = iter(np.minimum(canon, np.nextafter(1.0, 0.0)))
    return lambda: float(next(draws))


@pytest.mark.parametrize("seed", [0, 8, 1234])
def test_envpool_follows_the_same_rules_with_its_draws(seed):
    env = envpool.make_gymnasium("NChain-v0", num_envs=1, seed=seed)

    class EnvpoolOutput:  # EnvPool's results in the shapes run_aligned reads
        def reset(self):
            return env.reset()

        def step(self, actions):
            obs, reward, terminated, truncated, info = env.step(actions.astype(np.int32))
            return obs, reward, terminated, truncated, info

    try:
        counts = run_aligned(EnvpoolOutput(), [NChainReference(envpool_uniform(seed))], 2100, seed)
    finally:
        env.close()
    assert counts["truncated"] == 2 and counts["large"] > 0 and counts["small"] > 0
