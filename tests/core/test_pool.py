"""Engine semantics of the pool (cpp/core/pool.h), pinned with Counting-v0 and CartPole-v1.

Counting-v0 (cpp/families/example/counting.h): obs = int64 [steps in this episode, episodes
started], reward = the action (0..9), terminated after ``episode_length`` steps,
``fail_at_step`` makes Step throw, and with ``continue_episodes`` the autoreset after a
termination continues the ended episode's clock (Env::ResetAfterTermination returns true, as
Atari's ``episodic_life`` does across lives). Every expectation below is derived from that
definition and from EnvPool's / Gymnasium's documented semantics, never from a recorded run.
"""

from __future__ import annotations

import contextlib

import gymnasium
import numpy as np
import pytest
from conftest import assert_isolated_ok

import envfleet

# ---------------------------------------------------------------------------------------------
# Autoreset: NEXT_STEP (default)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_envs", [1, 3])
def test_next_step_autoreset_table(counting, num_envs):
    env = counting(num_envs=num_envs, episode_length=3)
    obs, info = env.reset()
    assert obs.dtype == np.int64
    assert obs.tolist() == [[0, 1]] * num_envs
    assert info["elapsed_step"].tolist() == [0] * num_envs
    assert info["env_id"].tolist() == list(range(num_envs))

    for t, action in zip([1, 2, 3], [4, 7, 2], strict=True):
        obs, rew, term, trunc, info = env.step(np.full(num_envs, action))
        assert obs.tolist() == [[t, 1]] * num_envs, f"step {t}"
        assert rew.dtype == np.float32 and rew.tolist() == [action] * num_envs  # EnvPool's
        assert term.dtype == np.bool_ and term.tolist() == [t == 3] * num_envs
        assert trunc.dtype == np.bool_ and trunc.tolist() == [False] * num_envs
        assert info["elapsed_step"].tolist() == [t] * num_envs

    # The step after the end is a reset: action ignored, reward 0, flags False, elapsed 0.
    obs, rew, term, trunc, info = env.step(np.full(num_envs, 9))
    assert obs.tolist() == [[0, 2]] * num_envs
    assert rew.tolist() == [0.0] * num_envs
    assert term.tolist() == [False] * num_envs
    assert trunc.tolist() == [False] * num_envs
    assert info["elapsed_step"].tolist() == [0] * num_envs

    # ... and the episode after it runs normally.
    obs, rew, term, trunc, info = env.step(np.full(num_envs, 5))
    assert obs.tolist() == [[1, 2]] * num_envs
    assert rew.tolist() == [5.0] * num_envs
    assert info["elapsed_step"].tolist() == [1] * num_envs


def test_next_step_truncation_by_max_episode_steps(counting):
    env = counting(num_envs=2, episode_length=5, max_episode_steps=2)
    env.reset()
    _, _, term, trunc, info = env.step(np.array([1, 1]))
    assert term.tolist() == [False, False] and trunc.tolist() == [False, False]
    obs, rew, term, trunc, info = env.step(np.array([3, 4]))
    assert obs.tolist() == [[2, 1], [2, 1]]
    assert rew.tolist() == [3.0, 4.0]
    assert term.tolist() == [False, False]
    assert trunc.tolist() == [True, True]
    assert info["elapsed_step"].tolist() == [2, 2]
    obs, rew, term, trunc, info = env.step(np.array([6, 6]))
    assert obs.tolist() == [[0, 2], [0, 2]]
    assert rew.tolist() == [0.0, 0.0]
    assert not term.any() and not trunc.any()
    assert info["elapsed_step"].tolist() == [0, 0]


def test_terminating_exactly_at_the_time_limit_sets_both_flags(counting):
    # Gymnasium's TimeLimit: truncated = elapsed >= max_episode_steps, whatever the env says.
    env = counting(num_envs=1, episode_length=2, max_episode_steps=2)
    env.reset()
    env.step(np.array([0]))
    _, _, term, trunc, _ = env.step(np.array([0]))
    assert term.tolist() == [True]
    assert trunc.tolist() == [True]


def test_explicit_reset_after_done_does_not_reset_twice(counting):
    env = counting(num_envs=1, episode_length=1)
    env.reset()
    _, _, term, _, _ = env.step(np.array([1]))
    assert term.tolist() == [True]
    obs, _ = env.reset()
    assert obs.tolist() == [[0, 2]]
    obs, rew, _, _, info = env.step(np.array([8]))
    assert obs.tolist() == [[1, 2]], "the step after an explicit reset must be a real step"
    assert rew.tolist() == [8.0]
    assert info["elapsed_step"].tolist() == [1]


def test_first_step_without_reset_resets(counting):
    # EnvPool: an env that never started begins with a reset, whatever the action.
    env = counting(num_envs=2)
    obs, rew, term, trunc, info = env.step(np.array([7, 7]))
    assert obs.tolist() == [[0, 1], [0, 1]]
    assert rew.tolist() == [0.0, 0.0]
    assert info["elapsed_step"].tolist() == [0, 0]


# ---------------------------------------------------------------------------------------------
# Autoreset: SAME_STEP and DISABLED
# ---------------------------------------------------------------------------------------------


def test_same_step_autoreset(counting):
    env = counting(num_envs=3, episode_length=3, autoreset_mode="same_step")
    assert env.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = env.reset()
    assert obs.tolist() == [[0, 1]] * 3
    # Put env 0 one step ahead so envs finish on different steps.
    env.step(np.array([1]), env_id=[0])
    steps = [1, 0, 0]
    episodes = [1, 1, 1]
    for k in range(10):
        actions = np.array([(k + i) % 10 for i in range(3)])
        obs, rew, term, trunc, info = env.step(actions)
        assert rew.tolist() == actions.astype(float).tolist(), "SAME_STEP never ignores actions"
        assert not trunc.any()
        for i in range(3):
            steps[i] += 1
            done = steps[i] == 3
            assert term[i] == done
            assert bool(info["_final_obs"][i]) == done
            if done:
                assert info["final_obs"][i].tolist() == [3, episodes[i]], f"env {i}, step {k}"
                episodes[i] += 1
                steps[i] = 0
            assert obs[i].tolist() == [steps[i], episodes[i]], f"env {i}, step {k}"


def test_same_step_truncation_reports_final_obs(counting):
    env = counting(num_envs=1, episode_length=10, max_episode_steps=2, autoreset_mode="same_step")
    env.reset()
    env.step(np.array([1]))
    obs, rew, term, trunc, info = env.step(np.array([2]))
    assert trunc.tolist() == [True] and term.tolist() == [False]
    assert rew.tolist() == [2.0]
    assert obs.tolist() == [[0, 2]]
    assert info["_final_obs"].tolist() == [True]
    assert info["final_obs"][0].tolist() == [2, 1]
    obs, rew, _, trunc, info = env.step(np.array([3]))
    assert obs.tolist() == [[1, 2]] and rew.tolist() == [3.0] and trunc.tolist() == [False]
    assert info["_final_obs"].tolist() == [False]


def test_disabled_autoreset_requires_explicit_reset(counting):
    env = counting(num_envs=2, episode_length=2, autoreset_mode="disabled")
    assert env.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.DISABLED
    env.reset()
    env.step(np.array([1]), env_id=[0])
    _, _, term, _, _ = env.step(np.array([1, 1]))
    assert term.tolist() == [True, False]
    with pytest.raises(ValueError, match=r"env_id 0\b") as excinfo:
        env.step(np.array([1, 1]))
    assert "reset" in str(excinfo.value)
    # env 1 is still running and may be stepped alone.
    _, _, term, _, _ = env.step(np.array([2]), env_id=[1])
    assert term.tolist() == [True]
    with pytest.raises(ValueError, match=r"env_id 1\b"):
        env.step(np.array([2]), env_id=[1])
    obs, info = env.reset(env_id=[1, 0])
    assert info["env_id"].tolist() == [1, 0]
    assert obs.tolist() == [[0, 2], [0, 2]]
    obs, rew, _, _, _ = env.step(np.array([4, 5]))
    assert obs.tolist() == [[1, 2], [1, 2]]
    assert rew.tolist() == [4.0, 5.0]


@pytest.mark.parametrize("mode", list(gymnasium.vector.AutoresetMode), ids=lambda m: m.name)
def test_gymnasium_autoreset_mode_values_are_accepted(mode):
    env = envfleet.make("Counting-v0", num_envs=1, autoreset_mode=mode)
    try:
        assert env.metadata["autoreset_mode"] is mode
        assert env.spec.config.autoreset_mode.name == mode.name
    finally:
        env.close()


@pytest.mark.parametrize("value", ["same_step", "SAME_STEP", envfleet.AutoresetMode.SAME_STEP])
def test_autoreset_mode_spellings(value):
    spec = envfleet.make_spec("Counting-v0", autoreset_mode=value)
    assert spec.config.autoreset_mode is envfleet.AutoresetMode.SAME_STEP


def test_unknown_autoreset_mode_raises():
    with pytest.raises(ValueError, match="autoreset_mode"):
        envfleet.make_spec("Counting-v0", autoreset_mode="sometimes")


# ---------------------------------------------------------------------------------------------
# Episodes that continue the ended one's clock (Env::ResetAfterTermination)
# ---------------------------------------------------------------------------------------------


def rows(env, action, num_envs=1):
    """One step: (obs, reward, terminated, truncated, elapsed_step) as lists."""
    obs, rew, term, trunc, info = env.step(np.full(num_envs, action))
    return obs.tolist(), rew.tolist(), term.tolist(), trunc.tolist(), info["elapsed_step"].tolist()


@pytest.mark.parametrize("num_envs", [1, 2])
def test_continued_episode_keeps_elapsed_step_and_time_limit(counting, num_envs):
    env = counting(num_envs=num_envs, episode_length=2, continue_episodes=True, max_episode_steps=5)
    n = num_envs
    _, info = env.reset()
    assert info["elapsed_step"].tolist() == [0] * n
    assert rows(env, 1, n) == ([[1, 1]] * n, [1.0] * n, [False] * n, [False] * n, [1] * n)
    assert rows(env, 2, n) == ([[2, 1]] * n, [2.0] * n, [True] * n, [False] * n, [2] * n)
    # The autoreset starts episode 2 on the running clock: it reports the count the ended
    # episode reached, and the next step adds one.
    assert rows(env, 9, n) == ([[0, 2]] * n, [0.0] * n, [False] * n, [False] * n, [2] * n)
    assert rows(env, 3, n) == ([[1, 2]] * n, [3.0] * n, [False] * n, [False] * n, [3] * n)
    assert rows(env, 4, n) == ([[2, 2]] * n, [4.0] * n, [True] * n, [False] * n, [4] * n)
    assert rows(env, 9, n) == ([[0, 3]] * n, [0.0] * n, [False] * n, [False] * n, [4] * n)
    # max_episode_steps counts across the continued episodes ...
    assert rows(env, 5, n) == ([[1, 3]] * n, [5.0] * n, [False] * n, [True] * n, [5] * n)
    # ... and a truncation is followed by a fresh episode: elapsed_step 0.
    assert rows(env, 9, n) == ([[0, 4]] * n, [0.0] * n, [False] * n, [False] * n, [0] * n)
    assert rows(env, 6, n)[4] == [1] * n


def test_termination_at_the_time_limit_does_not_continue(counting):
    env = counting(num_envs=1, episode_length=2, continue_episodes=True, max_episode_steps=4)
    env.reset()
    rows(env, 1)
    assert rows(env, 1)[2:] == ([True], [False], [2])
    assert rows(env, 1)[4] == [2]  # continued
    rows(env, 1)
    assert rows(env, 1)[2:] == ([True], [True], [4])  # terminated and truncated
    assert rows(env, 1)[4] == [0], "a truncation, even with a termination, starts afresh"


def test_explicit_reset_never_continues(counting):
    env = counting(num_envs=2, episode_length=2, continue_episodes=True)
    env.reset()
    rows(env, 1, 2)
    assert rows(env, 1, 2)[2] == [True, True]
    _, info = env.reset()  # right after the termination
    assert info["elapsed_step"].tolist() == [0, 0]
    assert rows(env, 1, 2)[4] == [1, 1]
    _, info = env.reset(env_id=[1])  # in the middle of an episode
    assert info["elapsed_step"].tolist() == [0]
    assert rows(env, 1, 2)[4] == [2, 1]


def test_continued_episode_after_an_env_error_starts_afresh(counting):
    env = counting(num_envs=1, episode_length=1, continue_episodes=True, fail_at_step=1)
    env.reset()
    with pytest.raises(envfleet.EnvError):
        env.step(np.array([1]))
    assert rows(env, 1)[4] == [0]


def test_same_step_autoreset_continues_the_clock(counting):
    env = counting(
        num_envs=1,
        episode_length=2,
        continue_episodes=True,
        max_episode_steps=5,
        autoreset_mode="same_step",
    )
    env.reset()
    expected = [  # (obs, terminated, truncated, elapsed_step) per step
        ([[1, 1]], [False], [False], [1]),
        ([[0, 2]], [True], [False], [2]),
        ([[1, 2]], [False], [False], [3]),
        ([[0, 3]], [True], [False], [4]),
        ([[0, 4]], [False], [True], [5]),  # the time limit across both: a fresh episode
        ([[1, 4]], [False], [False], [1]),
    ]
    for t, (obs, term, trunc, elapsed) in enumerate(expected):
        got = rows(env, 1)
        assert (got[0], got[2], got[3], got[4]) == (obs, term, trunc, elapsed), f"step {t}"


# ---------------------------------------------------------------------------------------------
# Ordering: sync and async
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_threads", [1, 2, 4])
def test_sync_mode_returns_rows_in_send_order(counting, num_threads):
    n = 8
    env = counting(num_envs=n, num_threads=num_threads, episode_length=1000)
    obs, info = env.reset()
    assert info["env_id"].tolist() == list(range(n))
    rng = np.random.default_rng(1)
    steps = np.zeros(n, dtype=int)
    for k in range(50):
        actions = rng.integers(0, 10, n)
        if k % 3 == 2:
            # a permutation of all envs, or a subset, in a chosen order
            ids = rng.permutation(n)[: rng.integers(1, n + 1)]
            obs, rew, _, _, info = env.step(actions[: len(ids)], env_id=ids)
            assert info["env_id"].tolist() == ids.tolist()
            assert rew.tolist() == actions[: len(ids)].astype(float).tolist()
            steps[ids] += 1
            assert obs[:, 0].tolist() == steps[ids].tolist()
        else:
            obs, rew, _, _, info = env.step(actions)
            assert info["env_id"].tolist() == list(range(n))
            assert rew.tolist() == actions.astype(float).tolist()
            steps += 1
            assert obs[:, 0].tolist() == steps.tolist()


def test_step_with_env_ids_returns_those_envs_in_that_order(counting):
    env = counting(num_envs=5, episode_length=10)
    env.reset()
    obs, rew, term, trunc, info = env.step(np.array([6, 2]), env_id=[3, 1])
    assert info["env_id"].tolist() == [3, 1]
    assert rew.tolist() == [6.0, 2.0]
    assert obs.tolist() == [[1, 1], [1, 1]]
    assert len(term) == len(trunc) == len(info["elapsed_step"]) == 2
    obs, rew, _, _, info = env.step(np.arange(5))
    assert info["env_id"].tolist() == [0, 1, 2, 3, 4]
    assert obs[:, 0].tolist() == [1, 2, 1, 2, 1]


def _check_counting_async_loop(env, num_envs, batch_size, rounds, episode_length, use_step):
    """Runs EnvPool's async loop and checks every result against a per-env model."""
    steps = [None] * num_envs  # steps in the current episode; None = a reset is due
    episodes = [0] * num_envs
    last_action = [None] * num_envs
    seen = np.zeros(num_envs, dtype=int)
    env.async_reset()
    out = env.recv()
    for k in range(rounds):
        obs, rew, term, trunc, info = out
        ids = info["env_id"]
        assert ids.dtype == np.int32
        assert len(ids) == batch_size == len(obs) == len(rew)
        assert len(set(ids.tolist())) == batch_size, f"duplicate env ids in a batch: {ids}"
        for row, e in enumerate(ids.tolist()):
            seen[e] += 1
            if steps[e] is None or steps[e] == episode_length:  # this result is a reset
                episodes[e] += 1
                steps[e] = 0
                assert rew[row] == 0.0, f"round {k}, env {e}"
            else:
                steps[e] += 1
                assert rew[row] == last_action[e], f"round {k}, env {e}: wrong action routed"
            assert obs[row].tolist() == [steps[e], episodes[e]], f"round {k}, env {e}"
            assert info["elapsed_step"][row] == steps[e]
            assert term[row] == (steps[e] == episode_length)
            assert not trunc[row]
        actions = (ids.astype(np.int64) * 3 + k) % 10
        for e, a in zip(ids.tolist(), actions.tolist(), strict=True):
            last_action[e] = a
        if use_step:
            out = env.step(actions, ids)
        else:
            env.send(actions, ids)
            out = env.recv()
    return seen


@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_async_loop_reaches_every_env_consistently(counting, num_threads):
    n, b, rounds = 8, 3, 400
    env = counting(num_envs=n, batch_size=b, num_threads=num_threads, episode_length=4)
    assert env.is_async
    seen = _check_counting_async_loop(env, n, b, rounds, 4, use_step=False)
    assert (seen > 0).all(), f"envs never reached: {np.flatnonzero(seen == 0)}"
    # Nothing is starved: every env gets a fair fraction of the results. (The queue's home
    # lanes keep an env at about half the pace of the others at worst, when a thread gets no
    # core: see cpp/core/action_queue.h; a quarter leaves room for a loaded machine.)
    assert seen.min() >= rounds * b / n / 4, f"results per env: {seen}"


def test_async_loop_with_step_and_env_ids(counting):
    # EnvPool's step(action, env_id) in async mode = send + recv.
    n, b = 6, 2
    env = counting(num_envs=n, batch_size=b, num_threads=2, episode_length=3)
    seen = _check_counting_async_loop(env, n, b, 300, 3, use_step=True)
    assert (seen > 0).all(), f"envs never reached: {np.flatnonzero(seen == 0)}"


def test_async_pools_keep_one_envs_spaces_and_refuse_vector_wrappers(counting):
    # An async batch holds the first batch_size envs to finish, which Gymnasium's vector
    # wrappers (one row per env, all num_envs at once) would misread: they refuse such a pool
    # at construction, and Gymnasium's conventions are refused for it.
    env = counting(num_envs=6, batch_size=2)
    assert env.num_envs == 6
    assert env.observation_space.shape == env.single_observation_space.shape == (2,)
    assert isinstance(env, gymnasium.Env)
    assert not isinstance(env, gymnasium.vector.VectorEnv)
    with pytest.raises(TypeError, match="VectorEnv"):
        gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    with pytest.raises(ValueError, match="batch_size"):
        counting(num_envs=6, batch_size=2, conventions="gymnasium")


# ---------------------------------------------------------------------------------------------
# Partial reset
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def stepped_counting(counting):
    """Four Counting envs (episode_length 10), reset, then stepped once with actions 0-3."""
    env = counting(num_envs=4, episode_length=10)
    env.reset()
    env.step(np.arange(4))
    return env


def test_partial_reset_returns_only_those_envs(stepped_counting):
    env = stepped_counting
    obs, info = env.reset(env_id=[1, 3])
    assert info["env_id"].tolist() == [1, 3]
    assert obs.tolist() == [[0, 2], [0, 2]]
    assert info["elapsed_step"].tolist() == [0, 0]
    obs, rew, _, _, info = env.step(np.array([1, 2, 3, 4]))
    assert info["env_id"].tolist() == [0, 1, 2, 3]
    assert obs.tolist() == [[2, 1], [1, 2], [2, 1], [1, 2]]
    assert rew.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_reset_mask_returns_the_full_batch(stepped_counting):
    env = stepped_counting
    mask = np.array([True, False, True, False])
    obs, info = env.reset(options={"reset_mask": mask})
    assert obs.shape == (4, 2)
    assert obs.tolist() == [[0, 2], [1, 1], [0, 2], [1, 1]]
    obs, rew, _, _, info = env.step(np.array([5, 6, 7, 8]))
    assert obs.tolist() == [[1, 2], [2, 1], [1, 2], [2, 1]]
    assert rew.tolist() == [5.0, 6.0, 7.0, 8.0]


def test_reset_mask_after_a_partial_reset(stepped_counting):
    # The envs not in the mask keep their latest observation, whichever call produced it.
    env = stepped_counting
    env.reset(env_id=[1, 3])
    obs, info = env.reset(options={"reset_mask": np.array([True, False, False, False])})
    assert obs.shape == (4, 2)
    assert obs.tolist() == [[0, 2], [0, 2], [1, 1], [0, 2]]


def test_reset_mask_info_rows_align_with_obs(stepped_counting):
    # Gymnasium's vector envs give every info array one row per env (with a `_key` mask);
    # a row-aligned info is what wrappers and users index with obs rows.
    env = stepped_counting
    obs, info = env.reset(options={"reset_mask": np.array([False, True, False, True])})
    for key in ("env_id", "elapsed_step"):
        assert len(info[key]) == len(obs), (
            f"info[{key!r}] has {len(info[key])} rows for an obs batch of {len(obs)}"
        )


def test_reset_mask_with_same_step_autoreset_spreads_final_obs_and_info(counting):
    # SAME_STEP infos hold final_obs (an array, or a tuple/dict of them) and final_info (a
    # dict): reset_mask spreads each of their arrays over num_envs rows (found by the fuzz).
    env = counting(num_envs=3, episode_length=10, autoreset_mode="same_step")
    env.reset()
    mask = np.array([False, True, False])
    obs, info = env.reset(options={"reset_mask": mask})
    assert obs.shape == (3, 2)
    assert info["final_obs"].shape == (3, 2)
    assert isinstance(info["final_info"], dict)
    # No episode ended in a reset: no row holds a final observation.
    assert info["_final_obs"].tolist() == [False] * 3
    assert "__final_obs" not in info


def test_reset_mask_refuses_while_steps_are_in_flight(counting):
    # A step in flight would come back inside the reset's batch, where the mask hides its
    # reward and flags; the reset is refused before anything runs, and the pool goes on.
    env = counting(num_envs=4, episode_length=10)
    env.reset()
    env.send(np.array([1, 2]), env_id=[0, 1])
    with pytest.raises(ValueError, match="in flight"):
        env.reset(options={"reset_mask": np.array([False, False, True, True])})
    env.send(np.array([3, 4]), env_id=[2, 3])
    obs, rew, *_ = env.recv()
    assert sorted(rew.tolist()) == [1.0, 2.0, 3.0, 4.0]


# ---------------------------------------------------------------------------------------------
# Zero-copy safety
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["Counting-v0", "CartPole-v1"])
@pytest.mark.parametrize("batch_size", [4, 2], ids=["sync", "async"])
def test_held_arrays_are_never_overwritten(task, batch_size):
    env = envfleet.make(task, num_envs=4, batch_size=batch_size, num_threads=2)
    try:
        rng = np.random.default_rng(0)
        env.async_reset()
        for _ in range(5):
            obs, rew, term, trunc, info = env.recv()
            env.send(rng.integers(0, 2, batch_size), info["env_id"])
        kept = env.recv()
        obs, rew, term, trunc, info = kept
        copies = [np.array(a, copy=True) for a in (obs, rew, term, trunc)]
        info_copy = {k: np.array(v, copy=True) for k, v in info.items()}
        env.send(rng.integers(0, 2, batch_size), info["env_id"])
        for _ in range(200):
            out = env.recv()
            env.send(rng.integers(0, 2, batch_size), out[4]["env_id"])
        del out
        for held, copy in zip((obs, rew, term, trunc), copies, strict=True):
            np.testing.assert_array_equal(held, copy)
        for k, v in info.items():
            np.testing.assert_array_equal(v, info_copy[k], err_msg=k)
        env.recv()
    finally:
        env.close()


def test_many_held_batches_keep_their_values(counting):
    env = counting(num_envs=3, episode_length=1000)
    env.reset()
    held = []
    for k in range(100):
        obs, rew, *_ = env.step(np.full(3, k % 10))
        held.append((obs, rew, k))
    for obs, rew, k in held:
        assert obs.tolist() == [[k + 1, 1]] * 3, f"batch {k} was overwritten"
        assert rew.tolist() == [float(k % 10)] * 3, f"batch {k} was overwritten"


def test_consecutive_batches_do_not_share_memory(counting):
    env = counting(num_envs=2)
    env.reset()
    a = env.step(np.zeros(2, np.int64))
    b = env.step(np.zeros(2, np.int64))
    for x, y in zip(a[:4], b[:4], strict=True):
        assert not np.shares_memory(x, y)


@pytest.mark.parametrize("num_envs,batch_size", [(4, 4), (8, 3)], ids=["sync", "async"])
def test_block_count_stays_bounded_when_arrays_are_dropped(num_envs, batch_size):
    env = envfleet.make("Counting-v0", num_envs=num_envs, batch_size=batch_size, num_threads=2)
    try:
        env.async_reset()
        actions = np.zeros(batch_size, np.int64)
        most = 0
        for _ in range(10_000):
            out = env.recv()
            env.send(actions, out[4]["env_id"])
            most = max(most, env._pool.num_blocks)
        assert most <= 8, f"{most} output blocks allocated: dropped blocks are not recycled"
        env.recv()
    finally:
        env.close()


def test_arrays_outlive_a_closed_and_deleted_pool():
    assert_isolated_ok(
        """
        import gc
        import numpy as np
        import envfleet
        env = envfleet.make("Counting-v0", num_envs=3, episode_length=10)
        env.reset()
        obs, rew, term, trunc, info = env.step(np.array([1, 2, 3]))
        env.close()
        del env
        gc.collect()
        junk = [np.ones(10_000) for _ in range(100)]  # reuse freed memory, if any was freed
        assert obs.tolist() == [[1, 1]] * 3, obs
        assert rew.tolist() == [1.0, 2.0, 3.0], rew
        assert info["env_id"].tolist() == [0, 1, 2]
        del obs, rew, term, trunc, info
        gc.collect()
        print("ok")
        """
    )


# ---------------------------------------------------------------------------------------------
# Exceptions inside an env
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_env_exception_in_sync_mode(counting, num_threads):
    env = counting(num_envs=3, num_threads=num_threads, episode_length=5, fail_at_step=2)
    env.reset()
    env.step(np.array([1]), env_id=[0])  # env 0 is one step ahead: only it fails next
    with pytest.raises(envfleet.EnvError, match=r"\benv 0\b") as excinfo:
        env.step(np.array([1, 1, 1]))
    assert isinstance(excinfo.value, RuntimeError)
    assert "failing at step 2" in str(excinfo.value)
    # The pool is usable: env 0 restarts on its next step.
    obs, rew, term, trunc, info = env.step(np.array([7]), env_id=[0])
    assert obs.tolist() == [[0, 2]]
    assert rew.tolist() == [0.0]
    assert info["elapsed_step"].tolist() == [0]
    obs, rew, *_ = env.step(np.array([3]), env_id=[0])
    assert obs.tolist() == [[1, 2]] and rew.tolist() == [3.0]
    # Envs 1 and 2 were stepped in the failed batch (now at step 1) and are idle.
    obs, info = env.reset(env_id=[1, 2])
    assert obs.tolist() == [[0, 2], [0, 2]]
    obs, rew, *_ = env.step(np.array([4, 5]), env_id=[1, 2])
    assert obs.tolist() == [[1, 2], [1, 2]] and rew.tolist() == [4.0, 5.0]


def test_env_exception_from_recv_in_sync_send_recv():
    env = envfleet.make("Counting-v0", num_envs=2, episode_length=5, fail_at_step=1)
    try:
        env.reset()
        env.send(np.array([1, 1]))
        with pytest.raises(envfleet.EnvError, match=r"\benv [01]\b"):
            env.recv()
        env.send(np.array([1, 1]))  # every env is idle again: a full send is allowed
        obs, rew, *_ = env.recv()
        assert obs.tolist() == [[0, 2], [0, 2]]
        assert rew.tolist() == [0.0, 0.0]
    finally:
        env.close()


@pytest.mark.parametrize("num_threads", [1, 2])
def test_env_exception_in_async_mode_keeps_the_loop_going(num_threads):
    # After an EnvError naming env k, an async loop re-sends env k and carries on. The other
    # envs of the failed batch must not be silently dropped: every env keeps being reached.
    # (If the error lists the ids whose results were lost, as `env_ids`, those are re-sent.)
    out = assert_isolated_ok(
        f"""
        import re
        import numpy as np
        import envfleet
        n, b = 6, 2
        env = envfleet.make("Counting-v0", num_envs=n, batch_size=b, num_threads={num_threads},
                            episode_length=100, fail_at_step=4)
        env.async_reset()
        errors, restarts = 0, 0
        failed = set()
        last_seen = {{}}
        for k in range(300):
            try:
                obs, rew, term, trunc, info = env.recv()
            except ValueError as err:
                raise AssertionError(
                    f"round {{k}}, after {{errors}} EnvErrors: the loop cannot go on, results "
                    f"of envs other than the failed one were dropped (last round each env was "
                    f"seen: {{last_seen}}); recv() says: {{err}}"
                ) from None
            except envfleet.EnvError as err:
                errors += 1
                m = re.search(r"env (\\d+)", str(err))
                assert m and int(m.group(1)) == err.env_id, f"EnvError names no env: {{err}}"
                # Every env of the dropped batch waits for an action again; only the env that
                # raised starts a new episode (the others just lost that one result).
                ids = [int(i) for i in np.asarray(err.env_ids).reshape(-1)]
                assert err.env_id in ids
                failed.difference_update(ids)  # their awaited rows were dropped, restarts too
                failed.add(int(err.env_id))
                env.send(np.zeros(len(ids), np.int64), ids)
                continue
            for row, e in enumerate(info["env_id"].tolist()):
                last_seen[e] = k
                if e in failed:
                    assert obs[row, 0] == 0, f"env {{e}} did not restart: {{obs[row]}}"
                    failed.discard(e)
                    restarts += 1
            env.send(np.zeros(b, np.int64), info["env_id"])
        assert errors > 0
        stale = {{e: last_seen.get(e) for e in range(n) if last_seen.get(e, -1) < 300 - 60}}
        assert not stale, f"envs no longer reached after EnvErrors (last round seen): {{stale}}"
        print("errors", errors, "restarts", restarts)
        """
    )
    assert "errors" in out


# ---------------------------------------------------------------------------------------------
# Determinism and seeding (CartPole-v1)
# ---------------------------------------------------------------------------------------------

ACTION_TABLE = np.random.default_rng(12345).integers(0, 2, size=(16, 400))


def _sync_trajectory(num_envs=8, steps=150, **kwargs):
    env = envfleet.make("CartPole-v1", num_envs=num_envs, **kwargs)
    try:
        obs, _ = env.reset()
        rows = [(np.array(obs, copy=True), None, None, None)]
        for t in range(steps):
            obs, rew, term, trunc, _ = env.step(ACTION_TABLE[:num_envs, t])
            rows.append(tuple(np.array(a, copy=True) for a in (obs, rew, term, trunc)))
        return rows
    finally:
        env.close()


def _assert_same_trajectory(a, b, what):
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            if u is None:
                continue
            np.testing.assert_array_equal(u, v, err_msg=f"{what}: step {t}")


def test_sync_trajectories_do_not_depend_on_num_threads():
    reference = _sync_trajectory(num_threads=1, seed=7)
    # the trajectory must cross episode boundaries to test autoreset randomness too
    assert any(r[2] is not None and r[2].any() for r in reference)
    for num_threads in (2, 4):
        _assert_same_trajectory(
            reference,
            _sync_trajectory(num_threads=num_threads, seed=7),
            f"num_threads={num_threads}",
        )


def _per_env_trajectories(num_envs, batch_size, num_threads, seed=3, per_env=120):
    """EnvPool's async loop; each env's action depends only on its own step count."""
    env = envfleet.make(
        "CartPole-v1", num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, seed=seed
    )
    try:
        traj = {e: [] for e in range(num_envs)}
        count = np.zeros(num_envs, dtype=int)
        env.async_reset()
        while count.min() < per_env:
            obs, rew, term, trunc, info = env.recv()
            ids = info["env_id"]
            for row, e in enumerate(ids.tolist()):
                traj[e].append(
                    (obs[row].tolist(), float(rew[row]), bool(term[row]), bool(trunc[row]))
                )
            actions = ACTION_TABLE[ids, count[ids]]
            count[ids] += 1
            env.send(actions, ids)
        env.recv()
        return {e: t[:per_env] for e, t in traj.items()}
    finally:
        env.close()


def test_async_per_env_trajectories_do_not_depend_on_threads_or_batch_size():
    n = 8
    reference = _per_env_trajectories(n, n, 1)  # sync mode, one thread
    assert any(step[2] for step in reference[0]), "episodes must end to test autoreset too"
    for batch_size, num_threads in [(1, 1), (3, 2), (5, 4), (8, 4)]:
        got = _per_env_trajectories(n, batch_size, num_threads)
        for e in range(n):
            assert got[e] == reference[e], (
                f"env {e} differs with batch_size={batch_size}, num_threads={num_threads}"
            )


def test_different_seeds_differ():
    a = _sync_trajectory(num_envs=4, steps=10, seed=1)
    b = _sync_trajectory(num_envs=4, steps=10, seed=2)
    assert not np.array_equal(a[0][0], b[0][0])
    # and the envs of one pool differ from each other
    assert len({tuple(row) for row in a[0][0].tolist()}) == 4


def test_env_i_of_seed_s_is_env_0_of_seed_s_plus_i():
    s = 100
    pool = _sync_trajectory(num_envs=4, steps=100, seed=s)
    for i in range(4):
        env = envfleet.make("CartPole-v1", num_envs=1, seed=s + i)
        try:
            obs, _ = env.reset()
            np.testing.assert_array_equal(obs[0], pool[0][0][i], err_msg=f"env {i} reset")
            for t in range(100):
                obs, rew, term, trunc, _ = env.step(ACTION_TABLE[i : i + 1, t])
                np.testing.assert_array_equal(obs[0], pool[t + 1][0][i], err_msg=f"env {i} {t}")
                assert term[0] == pool[t + 1][2][i] and trunc[0] == pool[t + 1][3][i]
        finally:
            env.close()


def test_seed_list_gives_per_env_seeds():
    seeds = [5, 900, 2, 5]
    env = envfleet.make("CartPole-v1", num_envs=4, seed=seeds)
    try:
        assert env.spec.config.seed == tuple(seeds)
        obs, _ = env.reset()
        np.testing.assert_array_equal(obs[0], obs[3])  # same seed, same start
        for i, s in enumerate(seeds):
            single = envfleet.make("CartPole-v1", num_envs=1, seed=s)
            np.testing.assert_array_equal(single.reset()[0][0], obs[i], err_msg=f"env {i}")
            single.close()
    finally:
        env.close()


@contextlib.contextmanager
def _cartpole_and_reference(seed):
    """A 4-env CartPole-v1 pool made with ``seed`` and Gymnasium's sync vector env of the same
    task, both closed afterwards."""
    env = envfleet.make("CartPole-v1", num_envs=4, seed=seed)
    ref = gymnasium.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    try:
        yield env, ref
    finally:
        env.close()
        ref.close()


@pytest.mark.parametrize("seed", [0, 7, 2**31 + 5])
def test_reset_with_seed_matches_gymnasium(seed):
    with _cartpole_and_reference(999) as (env, ref):
        obs, _ = env.reset(seed=seed)
        ref_obs, _ = ref.reset(seed=seed)
        np.testing.assert_array_equal(obs, ref_obs)
        # Re-seeding restarts each env's stream, so autoresets later match too.
        for t in range(250):
            actions = ACTION_TABLE[:4, t]
            got = env.step(actions)
            want = ref.step(actions)
            for name, u, v in zip(
                ("obs", "reward", "terminated", "truncated"), got[:4], want[:4], strict=True
            ):
                np.testing.assert_array_equal(u, v, err_msg=f"{name} at step {t}")
        # reset() without a seed continues the stream, as in Gymnasium.
        np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])
        again, _ = env.reset(seed=seed)
        np.testing.assert_array_equal(again, ref_obs)


def test_make_seed_equals_gymnasium_reset_seed():
    with _cartpole_and_reference(11) as (env, ref):
        np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=11)[0])


def test_partial_reset_with_seed_seeds_env_i_with_s_plus_i():
    with _cartpole_and_reference(999) as (env, ref):
        env.reset()
        ref_obs, _ = ref.reset(seed=21)
        obs, info = env.reset(env_id=[2, 0], seed=21)
        assert info["env_id"].tolist() == [2, 0]
        np.testing.assert_array_equal(obs, ref_obs[[2, 0]])


def test_env_error_is_a_runtime_error():
    assert issubclass(envfleet.EnvError, RuntimeError)


# ---------------------------------------------------------------------------------------------
# Odd but valid configurations, tuple observations, lifecycle
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "num_envs,batch_size,num_threads",
    [(1, 1, 4), (5, 1, 2), (3, 3, 8), (16, 4, 2)],
    ids=lambda v: str(v),
)
def test_odd_but_valid_pool_shapes(counting, num_envs, batch_size, num_threads):
    env = counting(
        num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, episode_length=3
    )
    seen = _check_counting_async_loop(env, num_envs, batch_size, 100, 3, use_step=False)
    assert (seen > 0).all()


def test_same_step_with_tuple_observations():
    # Blackjack: always hitting ends an episode only by going bust (player_sum > 21).
    env = envfleet.make("Blackjack-v1", num_envs=4, autoreset_mode="same_step")
    try:
        env.reset()
        done_rows = 0
        for _ in range(30):
            obs, rew, term, trunc, info = env.step(np.ones(4, np.int64))
            assert isinstance(obs, tuple) and isinstance(info["final_obs"], tuple)
            assert (obs[0] <= 21).all(), "the returned obs must be a live (new) episode"
            mask = info["_final_obs"]
            np.testing.assert_array_equal(mask, term | trunc)
            assert (info["final_obs"][0][mask] > 21).all(), info["final_obs"]
            assert (rew[mask] == -1.0).all()
            done_rows += int(mask.sum())
        assert done_rows > 0
    finally:
        env.close()


def _native_threads() -> int:
    import os

    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_closed_pools_leave_no_threads_behind():
    import gc

    before = _native_threads()
    for _ in range(30):
        env = envfleet.make("Counting-v0", num_envs=4, batch_size=2, num_threads=3)
        env.async_reset()
        env.recv()
        env.close()
    for _ in range(10):  # dropped without close(): the destructor must stop the workers
        env = envfleet.make("Counting-v0", num_envs=2, num_threads=2)
        env.reset()
    del env
    gc.collect()
    assert _native_threads() <= before, f"{_native_threads() - before} worker threads leaked"


def test_closing_async_pools_with_steps_still_queued_returns():
    # close() while sent steps wait in the queue's home lanes, for pool sizes and thread
    # counts that give one or two lanes and spare workers. (A first version of the lanes hung
    # here about once in a few thousand closes: a worker took two exit items.)
    assert_isolated_ok(
        """
        import numpy as np
        import envfleet
        for k in range(5000):
            n, t = [8, 64, 512, 4096][k % 4], 1 + k % 3
            env = envfleet.make("CartPole-v1", num_envs=n, batch_size=n // 2, num_threads=t)
            env.async_reset()
            for _ in range(k % 5):
                info = env.recv()[-1]
                env.send(np.zeros(n // 2, np.int64), info["env_id"])
            env.close()
            if k % 500 == 0:
                print("closed", k, flush=True)  # how far it got, if it is killed
        """,
        timeout=120,
    )


def test_pools_stepped_from_two_python_threads_at_once():
    # recv() releases the GIL: independent pools may run in parallel Python threads.
    import threading

    def run(seed, out):
        env = envfleet.make("CartPole-v1", num_envs=4, seed=seed, num_threads=1)
        obs, _ = env.reset()
        rows = [obs.copy()]
        for t in range(300):
            obs, *_ = env.step(ACTION_TABLE[:4, t])
            rows.append(obs.copy())
        env.close()
        out.extend(rows)

    serial = []
    run(1, serial)
    results = [[], []]
    threads = [threading.Thread(target=run, args=(1, results[i])) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not any(th.is_alive() for th in threads)
    for res in results:
        assert len(res) == len(serial)
        for a, b in zip(res, serial, strict=True):
            np.testing.assert_array_equal(a, b)
