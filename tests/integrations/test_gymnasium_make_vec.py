"""``gymnasium.make_vec("envfleet/...")`` as RLlib calls it (docs/integrations/gymnasium.md).

RLlib's single-agent env runner builds its envs with ``gymnasium.make_vec(env,
num_envs=..., vectorization_mode=<gym_env_vectorize_mode>)`` inside ``DictInfoToList``, in
worker processes that have imported nothing of the user's. The ``envfleet:`` module prefix of
the id makes Gymnasium import envfleet (and so register its ids) first. The reference is
Gymnasium's own ``SyncVectorEnv`` of the same task and seed.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from conftest import describe, run_isolated
from gymnasium.wrappers.vector import DictInfoToList

NUM_ENVS = 3
STEPS = 300


def test_rllibs_call_matches_gymnasiums_sync_vector_env():
    ours = DictInfoToList(
        gymnasium.make_vec(
            "envfleet:envfleet/CartPole-v1",
            num_envs=NUM_ENVS,
            vectorization_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
        )
    )
    reference = gymnasium.make_vec("CartPole-v1", num_envs=NUM_ENVS, vectorization_mode="sync")
    assert ours.single_observation_space == reference.single_observation_space
    assert ours.action_space == reference.action_space
    assert ours.metadata["autoreset_mode"] == reference.metadata["autoreset_mode"]

    obs, infos = ours.reset(seed=5)
    ref_obs, _ = reference.reset(seed=5)
    np.testing.assert_array_equal(obs, ref_obs)
    assert isinstance(infos, list) and len(infos) == NUM_ENVS
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(STEPS):
        actions = rng.integers(0, 2, NUM_ENVS)
        obs, reward, terminated, truncated, infos = ours.step(actions)
        ref_obs, ref_reward, ref_terminated, ref_truncated, _ = reference.step(actions)
        np.testing.assert_array_equal(obs, ref_obs, err_msg=f"step {t}")
        np.testing.assert_array_equal(reward, ref_reward, err_msg=f"step {t}")
        np.testing.assert_array_equal(terminated, ref_terminated, err_msg=f"step {t}")
        np.testing.assert_array_equal(truncated, ref_truncated, err_msg=f"step {t}")
        assert [info["env_id"] for info in infos] == list(range(NUM_ENVS))
        ended += int(terminated.sum())
    assert ended > 0  # the comparison crossed autoresets
    ours.close()
    reference.close()


def test_the_module_prefix_registers_envfleet_in_a_fresh_process():
    returncode, stdout, stderr = run_isolated(
        """
        import sys
        import gymnasium
        assert "envfleet" not in sys.modules
        env = gymnasium.make_vec("envfleet:envfleet/Pendulum-v1", num_envs=2)
        print(type(env).__module__, env.observation_space.shape)
        """
    )
    assert returncode == 0, describe(returncode, stdout, stderr)
    assert stdout.split() == ["envfleet.gymnasium_env", "(2,", "3)"]
