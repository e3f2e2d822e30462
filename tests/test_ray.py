"""envfleet.ray: pools spread over Ray actors give what a local pool of the same size gives.

One Ray cluster of two simulated nodes (``ray.cluster_utils.Cluster``: two raylets, each with
its own object store, on this machine) serves the whole module, since starting one takes
seconds. The workers are separate processes, so results cross Ray's object stores as they
would between machines.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

import envfleet

ray = pytest.importorskip("ray")
from envfleet.ray import RayPool, WorkerLostError, make_distributed, workers  # noqa: E402

ATARI = "Pong-v5" in envfleet.list_all_envs()


@pytest.fixture(scope="module", autouse=True)
def ray_cluster():
    from ray.cluster_utils import Cluster

    # Logical CPUs: each worker asks for one, and the fault tests need room for a restart.
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=2)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def assert_same_results(got: tuple, want: tuple, where: str) -> None:
    """Gymnasium 5-tuples: obs, reward, terminated, truncated and every info entry equal."""
    for name, a, b in zip(("obs", "reward", "terminated", "truncated"), got, want, strict=False):
        np.testing.assert_array_equal(a, b, err_msg=f"{where}: {name}")
        assert np.asarray(a).dtype == np.asarray(b).dtype, f"{where}: {name} dtype"
    info, want_info = got[-1], want[-1]
    assert info.keys() == want_info.keys(), where
    for key in info:
        if isinstance(info[key], dict):
            for sub in info[key]:
                np.testing.assert_array_equal(info[key][sub], want_info[key][sub], err_msg=where)
        else:
            np.testing.assert_array_equal(info[key], want_info[key], err_msg=f"{where}: {key}")


def test_sync_cartpole_matches_local_pool():
    # 5 envs over 2 workers: ranges of 3 and 2, so the split is uneven on purpose.
    dist = make_distributed(
        "CartPole-v1", num_workers=2, num_envs=5, seed=3, render_mode="rgb_array"
    )
    local = envfleet.make("CartPole-v1", num_envs=5, seed=3, render_mode="rgb_array")
    try:
        assert isinstance(dist, envfleet.GymnasiumEnvPool)  # EnvPool's conventions
        assert isinstance(dist._pool, RayPool)
        assert [list(w["env_ids"]) for w in workers(dist)] == [[0, 1, 2], [3, 4]]
        assert dist.single_observation_space == local.single_observation_space
        got, want = dist.reset(), local.reset()
        np.testing.assert_array_equal(got[0], want[0])
        rng = np.random.default_rng(0)
        for t in range(150):  # CartPole episodes end (autoreset) well within this
            action = rng.integers(0, 2, 5)
            assert_same_results(dist.step(action), local.step(action), f"step {t}")
        # A subset, out of order and across both workers: rows in the order asked.
        ids = np.array([4, 0, 2])
        assert_same_results(
            dist.step(np.ones(3, int), ids), local.step(np.ones(3, int), ids), "ids"
        )
        # send/recv in sync mode, in a scrambled order.
        order = np.array([3, 1, 4, 0, 2])
        dist.send(np.zeros(5, int), order)
        local.send(np.zeros(5, int), order)
        assert_same_results(dist.recv(), local.recv(), "send/recv")
        # Re-seeding and partial resets reach the right envs.
        got, want = dist.reset(seed=123), local.reset(seed=123)
        np.testing.assert_array_equal(got[0], want[0])
        got = dist.reset(env_id=np.array([3, 1]))
        want = local.reset(env_id=np.array([3, 1]))
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1]["env_id"], [3, 1])
        # Frames are drawn on the workers and come back in the order asked.
        np.testing.assert_array_equal(dist.render([4, 0, 3]), local.render([4, 0, 3]))
    finally:
        dist.close()
        local.close()


@pytest.mark.skipif(not ATARI, reason="no Atari family")
def test_sync_pong_matches_local_pool():
    from ray.util.placement_group import placement_group, remove_placement_group

    # A worker on each simulated node, so that the batches cross between object stores.
    group = placement_group([{"CPU": 1}] * 2, strategy="STRICT_SPREAD")
    ray.get(group.ready())
    dist = make_distributed("Pong-v5", num_workers=2, num_envs=4, seed=7, placement_group=group)
    local = envfleet.make("Pong-v5", num_envs=4, seed=7)
    try:
        assert len({w["node_id"] for w in workers(dist)}) == 2
        got, want = dist.reset(), local.reset()
        np.testing.assert_array_equal(got[0], want[0])
        assert got[0].shape == (4, 4, 84, 84)
        rng = np.random.default_rng(1)
        for t in range(60):
            action = rng.integers(0, 6, 4)
            assert_same_results(dist.step(action), local.step(action), f"step {t}")
    finally:
        dist.close()
        local.close()
        remove_placement_group(group)


def test_async_trajectories_match_local_pool():
    """Async batches come from whichever worker is first, so the order differs from run to
    run; each env's own sequence of results must still be the local pool's."""
    num_envs, batch = 8, 4
    dist = make_distributed(
        "CartPole-v1", num_workers=2, num_envs=num_envs, batch_size=batch, seed=11
    )

    def policy(env_id: np.ndarray, elapsed: np.ndarray) -> np.ndarray:
        return (env_id * 7 + elapsed // 3) % 2

    per_env: list[list] = [[] for _ in range(num_envs)]
    try:
        assert not isinstance(dist, envfleet.GymnasiumVectorEnvPool)  # async: not a VectorEnv
        dist.async_reset()
        for _ in range(120):
            obs, reward, terminated, truncated, info = dist.recv()
            ids = info["env_id"]
            assert len(ids) == batch and len(set(ids.tolist())) == batch
            for row, env in enumerate(ids):
                per_env[env].append((obs[row].copy(), reward[row], terminated[row]))
            dist.send(policy(ids, info["elapsed_step"]), ids)
    finally:
        dist.close()
    assert all(per_env), "every env delivered results"

    local = envfleet.make("CartPole-v1", num_envs=num_envs, seed=11)
    obs, info = local.reset()
    want: list[list] = [[(obs[i], 0.0, False)] for i in range(num_envs)]
    reward = np.zeros(num_envs)
    while min(len(w) for w in want) < max(len(p) for p in per_env):
        obs, reward, terminated, _, info = local.step(policy(info["env_id"], info["elapsed_step"]))
        for i in range(num_envs):
            want[i].append((obs[i], reward[i], terminated[i]))
    local.close()
    for env in range(num_envs):
        for t, (got_row, want_row) in enumerate(zip(per_env[env], want[env], strict=False)):
            np.testing.assert_array_equal(got_row[0], want_row[0], err_msg=f"env {env} t {t}")
            assert got_row[1:] == want_row[1:], f"env {env} t {t}"


def test_dm_front_end_matches_local_pool():
    dist = make_distributed("CartPole-v1", num_workers=2, env_type="dm", num_envs=4, seed=5)
    local = envfleet.make_dm("CartPole-v1", num_envs=4, seed=5)
    try:
        for t in range(30):
            got = dist.reset() if t == 0 else dist.step(np.full(4, t % 2))
            want = local.reset() if t == 0 else local.step(np.full(4, t % 2))
            for field in ("step_type", "reward", "discount"):
                np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
            np.testing.assert_array_equal(got.observation.obs, want.observation.obs)
            np.testing.assert_array_equal(got.observation.env_id, want.observation.env_id)
    finally:
        dist.close()
        local.close()


def test_legacy_gym_front_end_matches_local_pool():
    dist = make_distributed(
        "CartPole-v1", num_workers=2, env_type="gym", legacy_api=True, num_envs=4
    )
    local = envfleet.make_gym("CartPole-v1", legacy_api=True, num_envs=4)
    try:
        assert isinstance(dist, envfleet.GymEnvPool)
        np.testing.assert_array_equal(dist.reset(), local.reset())
        for t in range(30):
            got, want = dist.step(np.full(4, t % 2)), local.step(np.full(4, t % 2))
            for a, b in zip(got[:3], want[:3], strict=True):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(
                got[3]["TimeLimit.truncated"], want[3]["TimeLimit.truncated"]
            )
    finally:
        dist.close()
        local.close()


def test_worker_death_names_the_lost_envs_and_does_not_hang():
    env = make_distributed("CartPole-v1", num_workers=2, num_envs=4)
    try:
        env.reset()
        os.kill(workers(env)[1]["pid"], signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(WorkerLostError, match=r"worker 1 .*died: envs 2\.\.3") as err:
            env.step(np.zeros(4, int))
        assert time.monotonic() - start < 30
        np.testing.assert_array_equal(err.value.env_ids, [2, 3])
        assert err.value.worker == 1 and not err.value.restarted
        # The pool stays broken, and says why, on every later call.
        with pytest.raises(WorkerLostError, match="envs 2..3"):
            env.reset()
    finally:
        env.close()
    assert env._pool.closed


def test_restarted_worker_continues_with_new_episodes():
    env = make_distributed(
        "CartPole-v1", num_workers=2, num_envs=4, batch_size=2, max_restarts=1, seed=0
    )
    try:
        env.async_reset()
        info = env.recv()[-1]
        env.send(np.zeros(2, int), info["env_id"])
        os.kill(workers(env)[0]["pid"], signal.SIGKILL)
        # A batch is any two worker batches, so worker 1 alone serves recv() until Ray
        # notices worker 0's death, which takes longer on a loaded machine: go on until the
        # restarted worker's envs are back (or a deadline), not for a fixed count of batches.
        seen, losses = set(), 0
        deadline = time.monotonic() + 120
        while not {0, 1} <= seen and time.monotonic() < deadline:
            try:
                obs, _, _, _, info = env.recv()
            except WorkerLostError as err:
                assert err.restarted and err.worker == 0
                np.testing.assert_array_equal(err.env_ids, [0, 1])
                losses += 1
                continue
            if losses:
                # Only episodes begun after the loss: worker 0's first batch (its envs' resets,
                # elapsed_step 0) may still be on its way when the first recv() returned worker
                # 1's, and arrive after the kill.
                seen.update(info["env_id"][info["elapsed_step"] == 0].tolist())
            env.send(np.zeros(2, int), info["env_id"])
        assert losses == 1, "the lost worker is reported once"
        assert {0, 1} <= seen, "the restarted worker's envs came back with new episodes"
    finally:
        env.close()


def test_placement_group_and_close_ends_every_worker():
    from ray.util.placement_group import placement_group, remove_placement_group

    # One bundle per node, never two on one: the cluster recipe of docs/integrations/ray.md.
    group = placement_group([{"CPU": 1}] * 2, strategy="STRICT_SPREAD")
    ray.get(group.ready())
    env = make_distributed("CartPole-v1", num_workers=2, num_envs=2, placement_group=group)
    handles = list(env._pool._workers)
    assert len({w["node_id"] for w in workers(env)}) == 2
    env.reset()
    env.close()
    env.close()  # a second close does nothing
    remove_placement_group(group)
    with pytest.raises(TypeError, match="made by make_distributed"):
        workers(envfleet.make("CartPole-v1"))
    for worker in handles:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(worker.ready.remote(), timeout=30)
    with pytest.raises(RuntimeError, match="closed"):
        env._pool.step(np.zeros(2, np.int64), None)


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="num_workers must be >= 1"):
        make_distributed("CartPole-v1", num_workers=0, num_envs=2)
    with pytest.raises(TypeError, match="num_workers must be an int"):
        make_distributed("CartPole-v1", num_workers=1.5, num_envs=2)
    with pytest.raises(ValueError, match="cpus_per_worker must be > 0"):
        make_distributed("CartPole-v1", num_envs=2, cpus_per_worker=0)
    with pytest.raises(ValueError, match=r"num_workers \(3\) must be <= num_envs \(2\)"):
        make_distributed("CartPole-v1", num_workers=3, num_envs=2)
    with pytest.raises(ValueError, match="multiples of num_workers"):
        make_distributed("CartPole-v1", num_workers=2, num_envs=6, batch_size=3)
    from ray.util.placement_group import placement_group, remove_placement_group

    group = placement_group([{"CPU": 1}])
    with pytest.raises(ValueError, match="placement_group has 1 bundles for 2 workers"):
        make_distributed("CartPole-v1", num_envs=2, placement_group=group)
    remove_placement_group(group)
    with pytest.raises(ValueError, match="env_type must be one of"):
        make_distributed("CartPole-v1", env_type="gym3", num_envs=2)
    with pytest.raises(ValueError, match="unknown task_id"):
        make_distributed("NoSuchTask-v0", num_envs=2)
    env = make_distributed("CartPole-v1", num_workers=2, num_envs=4, batch_size=2)
    try:
        with pytest.raises(TypeError, match="needs a local pool"):
            env.xla()
        env.async_reset()
        with pytest.raises(ValueError, match=r"env_id must be in \[0, 4\)"):
            env.send(np.zeros(1, int), np.array([4]))
        with pytest.raises(ValueError, match="resets all its envs at once"):
            env.reset(env_id=np.array([0]))
        with pytest.raises(ValueError, match="actions in flight"):
            env.send(np.zeros(2, int), np.array([0, 3]))
        with pytest.raises(ValueError, match="action has shape"):
            env._pool.send(np.zeros(3, np.int64), np.array([0, 3]))
    finally:
        env.close()
    env = make_distributed("CartPole-v1", num_workers=2, num_envs=4)
    try:
        env.reset()
        env.send(np.zeros(2, int), np.array([0, 3]))
        with pytest.raises(ValueError, match="would wait forever"):
            env.recv()
    finally:
        env.close()
