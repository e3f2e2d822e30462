"""Faults injected into envs (issue #17 item 6): an env that throws in Reset, in Step, or
after n steps, in sync and async pools, must surface as ``envfleet.EnvError`` naming the env
and the cause; the other envs' results must stay exact, and the pool usable, as README.md
("Errors") says. Counting-v0's ``fail_at_reset`` and ``fail_at_step`` inject the faults, on
one env of the pool through ``per_env_options``. (tests/core/test_pool.py pins the basic cases
of a failing Step; the faults of real families, missing files and absurd sizes, are in
tests/test_faults_families.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import envfleet


def _faulty(num_envs, env, batch_size=None, num_threads=1, env_type="gymnasium", **fault):
    """A Counting pool whose env `env` alone has the fault options `fault`."""
    own = [{} for _ in range(num_envs)]
    own[env] = fault
    return envfleet.make(
        "Counting-v0",
        env_type=env_type,
        num_envs=num_envs,
        batch_size=batch_size or num_envs,
        num_threads=num_threads,
        episode_length=1000,
        per_env_options=own,
    )


# ---- Reset --------------------------------------------------------------------------------


@pytest.mark.parametrize("num_threads", [1, 2])
def test_a_failing_first_reset_names_the_env_and_the_pool_goes_on(num_threads):
    env = _faulty(3, 1, num_threads=num_threads, fail_at_reset=1)
    try:
        with pytest.raises(envfleet.EnvError, match=r"env 1 raised: failing at reset 1") as e:
            env.reset()
        assert e.value.env_id == 1
        assert sorted(e.value.env_ids.tolist()) == [0, 1, 2]
        # The batch was dropped; every env is idle. Env 1 never started: its reset is retried.
        obs, info = env.reset()
        assert info["env_id"].tolist() == [0, 1, 2]
        assert info["elapsed_step"].tolist() == [0, 0, 0]
        # Envs 0 and 2 did reset in the dropped batch (their 2nd episode now); env 1 did not.
        assert obs.tolist() == [[0, 2], [0, 1], [0, 2]]
        obs, rew, *_ = env.step(np.array([4, 5, 6]))
        assert obs.tolist() == [[1, 2], [1, 1], [1, 2]] and rew.tolist() == [4, 5, 6]
    finally:
        env.close()


def test_a_failing_autoreset_raises_from_step_and_the_next_step_resets():
    # episode_length 2: the 2nd call of Reset is the autoreset after the first episode.
    env = envfleet.make("Counting-v0", num_envs=2, episode_length=2, fail_at_reset=2)
    try:
        env.reset()
        env.step(np.array([1, 1]))
        _, _, term, _, _ = env.step(np.array([1, 1]))
        assert term.tolist() == [True, True]
        with pytest.raises(envfleet.EnvError, match=r"failing at reset 2") as e:
            env.step(np.array([1, 1]))
        assert e.value.env_id in (0, 1)
        obs, rew, term, trunc, info = env.step(np.array([3, 3]))
        # Both envs failed (each on its own 2nd Reset call; the error names the first): both
        # retry the reset now, which succeeds (3rd call), and start their 2nd episode.
        assert info["elapsed_step"].tolist() == [0, 0] and rew.tolist() == [0, 0]
        assert obs.tolist() == [[0, 2], [0, 2]]
        assert not term.any() and not trunc.any()
        obs, rew, *_ = env.step(np.array([7, 8]))
        assert rew.tolist() == [7, 8]
    finally:
        env.close()


@pytest.mark.parametrize("env_type", ["gym", "dm"])
def test_a_failing_reset_on_every_front_end(env_type):
    env = _faulty(2, 0, env_type=env_type, fail_at_reset=1)
    try:
        with pytest.raises(envfleet.EnvError, match=r"env 0 raised: failing at reset 1"):
            env.reset()
        out = env.reset()
        if env_type == "dm":
            assert out.step_type.tolist() == [0, 0]  # FIRST
            assert out.observation.env_id.tolist() == [0, 1]
        else:
            assert out[1]["elapsed_step"].tolist() == [0, 0]
    finally:
        env.close()


# ---- Step after n steps: the other envs' results stay exact -----------------------------------


@pytest.mark.parametrize(
    "num_envs,batch_size,num_threads",
    [(4, 4, 1), (4, 4, 3), (6, 2, 1), (6, 3, 2), (5, 1, 2)],
    ids=["sync-1t", "sync-3t", "async-b2-1t", "async-b3-2t", "async-b1-2t"],
)
def test_an_env_failing_every_third_step_leaves_the_others_exact(num_envs, batch_size, num_threads):
    # Env 2 throws at the 3rd step of each of its episodes; episodes last 1000 steps, so the
    # other envs never end one: each one's obs[0] must equal the steps it was sent (those
    # whose results a dropped batch lost included) and its reward the action it was sent.
    fail = 2
    env = _faulty(num_envs, fail, batch_size, num_threads, fail_at_step=3)
    rng = np.random.default_rng(0)
    steps = [0] * num_envs  # steps each env has taken in its current episode
    restart = [False] * num_envs  # its next step is a reset (it failed)
    sent = {}
    errors = 0
    try:
        env.async_reset()
        for _ in range(300):
            try:
                obs, rew, term, trunc, info = env.recv()
            except envfleet.EnvError as err:
                errors += 1
                assert err.env_id == fail and "failing at step 3" in str(err)
                assert f"env {fail}" in str(err)
                restart[fail] = True
                ids = err.env_ids.tolist()
                assert fail in ids and len(ids) == batch_size
                for i in ids:
                    if i != fail:
                        steps[i] += 1  # the step ran; only its result was dropped
                action = rng.integers(0, 10, len(ids))
                sent.update(zip(ids, action.tolist(), strict=True))
                env.send(action, ids)
                continue
            ids = info["env_id"].tolist()
            assert len(ids) == batch_size and len(set(ids)) == len(ids)
            for row, i in enumerate(ids):
                if i not in sent:  # the first reset
                    assert obs[row].tolist() == [0, 1] and rew[row] == 0
                elif restart[i]:
                    assert obs[row, 0] == 0 and rew[row] == 0, (i, obs[row])
                    restart[i] = False
                    steps[i] = 0
                else:
                    steps[i] += 1
                    assert obs[row, 0] == steps[i], (i, obs[row], steps[i])
                    assert rew[row] == sent[i], (i, rew[row], sent[i])
                assert info["elapsed_step"][row] == obs[row, 0]
                assert not term[row] and not trunc[row]
            action = rng.integers(0, 10, len(ids))
            sent.update(zip(ids, action.tolist(), strict=True))
            env.send(action, ids)
        assert errors >= 5
        assert min(steps[i] for i in range(num_envs) if i != fail) > 10
    finally:
        env.close()


def test_an_env_failing_in_step_and_in_reset_in_turn():
    # fail_at_step 1 and fail_at_reset 3: the first step throws, the retried reset succeeds
    # (2nd call), the next first step throws again, then the 3rd Reset call throws: every
    # call raises an EnvError naming env 0 with its own cause, and the pool keeps going.
    env = envfleet.make("Counting-v0", num_envs=1, fail_at_step=1, fail_at_reset=3)
    try:
        env.reset()  # Reset call 1
        causes = []
        for _ in range(6):
            try:
                obs, rew, *_ = env.step(np.array([1]))
                causes.append(f"ok {obs.tolist()}")
            except envfleet.EnvError as err:
                assert err.env_id == 0 and err.env_ids.tolist() == [0]
                causes.append(str(err))
        assert causes == [
            "env 0 raised: failing at step 1",
            "ok [[0, 2]]",  # Reset call 2
            "env 0 raised: failing at step 1",
            "env 0 raised: failing at reset 3",
            "ok [[0, 3]]",  # Reset call 4
            "env 0 raised: failing at step 1",
        ]
    finally:
        env.close()
