"""Which pools are ``gymnasium.vector.VectorEnv``s, and Gymnasium's vector wrappers over them
(issue #30, item 3).

A pool under Gymnasium's conventions (``gymnasium.make_vec("envfleet/<id>")``,
``conventions="gymnasium"``) is a ``VectorEnv`` and keeps its contract: each of Gymnasium's
vector wrappers over it, driven by batches sampled from the wrapper's own ``action_space`` as
Gymnasium code does, gives exactly what the same wrapper gives over Gymnasium's
``SyncVectorEnv`` of the reference task with the same seed. A pool under EnvPool's conventions
(one env's spaces) is not a ``VectorEnv``, and each wrapper refuses it at once with a message
that says which call gives one.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from gymnasium.wrappers import vector as vw

import envfleet

NUM_ENVS = 3
STEPS = 120


def _wrappers():
    """(id, task, wrap): ``wrap(env)`` puts one of Gymnasium's vector wrappers (or a stack)
    over a vector env of ``task`` (a task id, or (id, its options))."""
    return [
        ("RecordEpisodeStatistics", "CartPole-v1", vw.RecordEpisodeStatistics),
        ("NormalizeObservation", "Pendulum-v1", vw.NormalizeObservation),
        ("NormalizeReward", "MountainCarContinuous-v0", vw.NormalizeReward),
        ("ClipAction", "Pendulum-v1", vw.ClipAction),
        ("RescaleAction", "Pendulum-v1", lambda e: vw.RescaleAction(e, -1.0, 1.0)),
        # Not slippery: SyncVectorEnv batches info["prob"] in the dtype of the first env's
        # value, so the int 1 of one env rounds another's 1/3 to 0 (tests/gymnasium_reference.py).
        ("FlattenObservation", ("FrozenLake-v1", {"is_slippery": False}), vw.FlattenObservation),
        ("DtypeObservation", "CartPole-v1", lambda e: vw.DtypeObservation(e, np.float64)),
        ("TransformReward", "Acrobot-v1", lambda e: vw.TransformReward(e, lambda r: 2 * r + 1)),
        ("ClipReward", "Pendulum-v1", lambda e: vw.ClipReward(e, min_reward=-1.0)),
        ("DictInfoToList", "CartPole-v1", vw.DictInfoToList),
        (
            "stack",
            "MountainCarContinuous-v0",
            lambda e: vw.NormalizeObservation(
                vw.RecordEpisodeStatistics(vw.ClipAction(vw.RescaleAction(e, -2.0, 2.0)))
            ),
        ),
    ]


WRAPPERS = {name: (task, wrap) for name, task, wrap in _wrappers()}


def task_and_options(task):
    return (task, {}) if isinstance(task, str) else task


def assert_same(ours, theirs, where: str) -> None:
    """Nested results (arrays, dicts, lists of dicts) equal, key for key."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        # envfleet's infos carry its own keys (env_id, elapsed_step) beside Gymnasium's.
        for key in theirs:
            if where.endswith("['episode']") and key == "t":
                continue  # RecordEpisodeStatistics' wall-clock time of the episode
            assert key in ours, f"{where}: info key {key!r} missing"
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, list | tuple):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        a, b = np.asarray(ours), np.asarray(theirs)
        assert a.shape == b.shape, f"{where}: shape {a.shape} vs {b.shape}"
        np.testing.assert_array_equal(a, b.astype(a.dtype, copy=False), err_msg=where)


@pytest.mark.parametrize("name", WRAPPERS)
def test_a_vector_wrapper_over_a_gymnasium_pool_runs_as_over_sync_vector_env(name):
    (task, options), wrap = task_and_options(WRAPPERS[name][0]), WRAPPERS[name][1]
    ours = wrap(gymnasium.make_vec(f"envfleet/{task}", num_envs=NUM_ENVS, **options))
    theirs = wrap(gymnasium.make_vec(task, num_envs=NUM_ENVS, vectorization_mode="sync", **options))
    try:
        assert isinstance(ours.unwrapped, VectorEnv)
        assert ours.action_space == theirs.action_space
        assert ours.observation_space == theirs.observation_space
        assert ours.single_action_space == theirs.single_action_space
        assert_same(ours.reset(seed=7), theirs.reset(seed=7), f"{name} reset")
        ours.action_space.seed(3)
        for t in range(STEPS):
            actions = ours.action_space.sample()  # what Gymnasium code does
            assert_same(ours.step(actions), theirs.step(actions), f"{name} step {t}")
    finally:
        ours.close()
        theirs.close()


def test_gymnasium_wrappers_see_every_episode_end_of_a_gymnasium_pool():
    """RecordEpisodeStatistics over CartPole crosses autoresets: the comparison above then
    covers the reset steps too."""
    env = vw.RecordEpisodeStatistics(gymnasium.make_vec("envfleet/CartPole-v1", num_envs=4))
    try:
        env.reset(seed=0)
        env.action_space.seed(0)
        episodes = 0
        for _ in range(200):
            *_, info = env.step(env.action_space.sample())
            episodes += int(info.get("_episode", np.zeros(4, bool)).sum())
        assert episodes >= 4
    finally:
        env.close()


def test_record_video_records_the_frames_sync_vector_env_records(tmp_path):
    """Gymnasium's vector RecordVideo gets every env's frame from render() and tiles them: the
    same frames as over SyncVectorEnv (classic control draws pygame's pixels exactly)."""
    kwargs = {"num_envs": 2, "render_mode": "rgb_array"}
    ours = vw.RecordVideo(
        gymnasium.make_vec("envfleet/CartPole-v1", **kwargs),
        str(tmp_path / "ours"),
        step_trigger=lambda step: step == 0,
        video_length=40,
    )
    theirs = vw.RecordVideo(
        gymnasium.make_vec("CartPole-v1", vectorization_mode="sync", **kwargs),
        str(tmp_path / "theirs"),
        step_trigger=lambda step: step == 0,
        video_length=40,
    )
    try:
        ours.reset(seed=1)
        theirs.reset(seed=1)
        for t in range(20):
            actions = np.array([t % 2, (t // 3) % 2])
            ours.step(actions)
            theirs.step(actions)
        assert len(ours.recorded_frames) == len(theirs.recorded_frames) >= 20
        for t, (a, b) in enumerate(zip(ours.recorded_frames, theirs.recorded_frames, strict=True)):
            np.testing.assert_array_equal(a, b, err_msg=f"frame {t}")
    finally:
        ours.close()
        theirs.close()
    assert (tmp_path / "ours" / "rl-video-step-0.mp4").stat().st_size > 0


@pytest.mark.parametrize("name", WRAPPERS)
def test_a_vector_wrapper_refuses_an_envpool_pool_saying_which_call_gives_a_vector_env(name):
    (task, options), wrap = task_and_options(WRAPPERS[name][0]), WRAPPERS[name][1]
    pool = envfleet.make(task, num_envs=NUM_ENVS, **options)  # EnvPool's: one env's spaces
    try:
        assert isinstance(pool, gymnasium.Env) and not isinstance(pool, VectorEnv)
        assert pool.is_vector_env  # EnvPool's flag, kept
        with pytest.raises(TypeError, match="VectorEnv") as caught:
            wrap(pool)
        message = str(caught.value)
        assert 'gymnasium.make_vec("envfleet/<task id>"' in message
        assert 'conventions="gymnasium"' in message
    finally:
        pool.close()


@pytest.mark.parametrize(
    "make",
    [
        lambda: envfleet.make("CartPole-v1", num_envs=2),
        lambda: envfleet.make_gymnasium("CartPole-v1", num_envs=2),
        lambda: envfleet.make_gym("CartPole-v1", num_envs=2),
        lambda: envfleet.make_gym("CartPole-v1", num_envs=2, legacy_api=True),
        lambda: envfleet.make("CartPole-v1", num_envs=4, batch_size=2),
        lambda: envfleet.make_dm("CartPole-v1", num_envs=2),
    ],
    ids=["make", "make_gymnasium", "make_gym", "legacy_api", "async", "make_dm"],
)
def test_only_gymnasium_convention_pools_are_vector_envs(make):
    pool = make()
    try:
        assert not isinstance(pool, VectorEnv)
    finally:
        pool.close()
    for pool in (
        envfleet.make("CartPole-v1", num_envs=2, conventions="gymnasium"),
        gymnasium.make_vec("envfleet/CartPole-v1", num_envs=2),
    ):
        assert isinstance(pool, VectorEnv) and isinstance(pool, envfleet.GymnasiumVectorEnvPool)
        pool.close()


def test_the_hint_is_only_in_the_class_repr_of_pools_that_are_not_vector_envs():
    assert "make_vec" in repr(envfleet.GymnasiumEnvPool)
    assert "make_vec" in repr(envfleet.GymEnvPool)
    assert repr(envfleet.GymnasiumVectorEnvPool) == (
        "<class 'envfleet.gymnasium_env.GymnasiumVectorEnvPool'>"
    )
