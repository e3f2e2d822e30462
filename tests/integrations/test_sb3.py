"""envfleet.integrations.sb3: Stable-Baselines3's VecEnv over a pool.

The reference is SB3's own ``DummyVecEnv`` over Gymnasium's envs with the same seeds: every
observation, reward, done flag and info entry (``terminal_observation`` and
``TimeLimit.truncated`` included) must be equal, across terminations and time limits, also
under SB3's ``VecMonitor`` and ``VecNormalize``. SB3's own machinery (its NaN checker, an
algorithm's space checks, ``evaluate_policy``) must accept the VecEnv.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="the test extra installs stable-baselines3")
torch = pytest.importorskip("torch", reason="the test extra installs torch")

from stable_baselines3 import A2C  # noqa: E402
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    DummyVecEnv,
    VecCheckNan,
    VecMonitor,
    VecNormalize,
)

import envfleet  # noqa: E402
from envfleet.integrations.sb3 import EnvfleetVecEnv, make_vec_env  # noqa: E402

torch.set_num_threads(1)  # two cores, shared with the pool's workers


def dummy_vec_env(task_id: str, num_envs: int, **kwargs) -> DummyVecEnv:
    return DummyVecEnv([lambda: gymnasium.make(task_id, **kwargs) for _ in range(num_envs)])


def assert_same_value(ours, theirs, where: str) -> None:
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), where
        for key in theirs:
            assert_same_value(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same_value(a, b, f"{where}[{k}]")
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same_value(a, b, f"{where}[{k}]")
    else:
        a, b = np.asarray(ours), np.asarray(theirs)
        assert a.shape == b.shape and np.array_equal(a, b), f"{where}: {ours!r} != {theirs!r}"


def assert_same_step(ours, theirs, step: int) -> None:
    (obs, rewards, dones, infos), (ref_obs, ref_rewards, ref_dones, ref_infos) = ours, theirs
    assert_same_value(obs, ref_obs, f"step {step} obs")
    assert rewards.dtype == ref_rewards.dtype == np.float32
    assert_same_value(rewards, ref_rewards, f"step {step} rewards")
    assert dones.dtype == ref_dones.dtype == np.bool_
    assert_same_value(dones, ref_dones, f"step {step} dones")
    assert isinstance(infos, list) and len(infos) == len(ref_infos)
    for i, (info, ref_info) in enumerate(zip(infos, ref_infos, strict=True)):
        assert_same_value(info, ref_info, f"step {step} infos[{i}]")
        assert type(info["TimeLimit.truncated"]) is bool


def run_side_by_side(ours, theirs, actions, check=assert_same_step) -> tuple[int, int]:
    """Steps both VecEnvs with the same actions; returns (terminations, truncations) seen."""
    terminations = truncations = 0
    for step, action in enumerate(actions):
        result = ours.step(action)
        check(result, theirs.step(action), step)
        for done, info in zip(result[2], result[3], strict=True):
            truncations += bool(done and info["TimeLimit.truncated"])
            terminations += bool(done and not info["TimeLimit.truncated"])
    return terminations, truncations


def random_actions(space: gymnasium.Space, num_envs: int, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    if isinstance(space, gymnasium.spaces.Discrete):
        return [rng.integers(0, space.n, num_envs) for _ in range(steps)]
    # Beyond the bounds too: both sides clip the same way.
    low, high = 1.25 * space.low, 1.25 * space.high
    return [
        rng.uniform(low, high, (num_envs, *space.shape)).astype(space.dtype) for _ in range(steps)
    ]


# ---- trajectories equal DummyVecEnv's -------------------------------------------------------


@pytest.mark.parametrize("seeding", ["make", "seed()"])
def test_cartpole_trajectories_equal_dummy_vec_env(seeding):
    # max_episode_steps=20: episodes end both by the pole falling and by the time limit.
    if seeding == "make":
        ours = make_vec_env("CartPole-v1", num_envs=6, seed=11, max_episode_steps=20)
    else:
        ours = make_vec_env("CartPole-v1", num_envs=6, seed=999, max_episode_steps=20)
        assert ours.seed(11) == list(range(11, 17))
    theirs = dummy_vec_env("CartPole-v1", 6, max_episode_steps=20)
    theirs.seed(11)
    try:
        assert ours.observation_space == theirs.observation_space
        assert ours.action_space == theirs.action_space
        assert_same_value(ours.reset(), theirs.reset(), "reset obs")
        assert ours.reset_infos == theirs.reset_infos
        actions = random_actions(ours.action_space, 6, 400, seed=3)
        terminations, truncations = run_side_by_side(ours, theirs, actions)
        assert terminations > 10 and truncations > 10
        # A reset without new seeds continues each env's random stream, as Gymnasium's does.
        assert_same_value(ours.reset(), theirs.reset(), "second reset obs")
        run_side_by_side(ours, theirs, actions[:50])
    finally:
        ours.close()
        theirs.close()


def test_cartpole_truncates_at_500_as_dummy_vec_env():
    ours = make_vec_env("CartPole-v1", num_envs=2, seed=5)
    theirs = dummy_vec_env("CartPole-v1", 2)
    theirs.seed(5)
    try:
        ours.reset(), theirs.reset()
        # Push the cart toward where the pole is falling: a controller that keeps it up.
        for step in range(1000):
            obs = theirs.buf_obs[None]
            action = (obs[:, 2] + obs[:, 3] > 0).astype(np.int64)
            result = ours.step(action)
            ref = theirs.step(action)
            assert_same_step(result, ref, step)
            if result[2].any():
                break
        assert step == 499 and result[2].all()
        assert all(info["TimeLimit.truncated"] for info in result[3])
    finally:
        ours.close()
        theirs.close()


def test_pendulum_trajectories_equal_dummy_vec_env():
    ours = make_vec_env("Pendulum-v1", num_envs=3, seed=2, max_episode_steps=60)
    theirs = dummy_vec_env("Pendulum-v1", 3, max_episode_steps=60)
    theirs.seed(2)
    try:
        assert ours.observation_space == theirs.observation_space
        assert ours.action_space == theirs.action_space
        assert_same_value(ours.reset(), theirs.reset(), "reset obs")
        actions = random_actions(ours.action_space, 3, 200, seed=4)
        terminations, truncations = run_side_by_side(ours, theirs, actions)
        assert terminations == 0 and truncations == 9
    finally:
        ours.close()
        theirs.close()


def test_an_episode_ending_at_its_time_limit_by_itself_is_not_time_limit_truncated():
    # Counting-v0 terminates after episode_length steps: with the same time limit its last
    # step is both terminated and truncated, which SB3 (as DummyVecEnv's
    # `truncated and not terminated`) reports as a real end, not a cut.
    env = make_vec_env("Counting-v0", num_envs=2, episode_length=3, max_episode_steps=3)
    try:
        env.reset()
        for _ in range(2):
            _, _, dones, infos = env.step(np.array([1, 2]))
            assert not dones.any()
        obs, _, dones, infos = env.step(np.array([1, 2]))
        assert dones.tolist() == [True, True]
        assert [info["TimeLimit.truncated"] for info in infos] == [False, False]
        assert [info["terminal_observation"].tolist() for info in infos] == [[3, 1], [3, 1]]
        assert obs.tolist() == [[0, 2], [0, 2]]  # the next episode's first observation
    finally:
        env.close()


def test_infos_of_ending_steps_and_reset_infos_equal_dummy_vec_env():
    # Taxi's info has a scalar ("prob") and an array ("action_mask"); a done row must carry
    # the ending step's entries and the env's reset_infos the new episode's.
    ours = make_vec_env("Taxi-v4", num_envs=3, seed=8, max_episode_steps=7)
    theirs = dummy_vec_env("Taxi-v4", 3, max_episode_steps=7)
    theirs.seed(8)

    def check(result, ref, step):
        assert_same_step(result, ref, step)
        assert_same_value(ours.reset_infos, theirs.reset_infos, f"step {step} reset_infos")

    try:
        assert_same_value(ours.reset(), theirs.reset(), "reset obs")
        assert_same_value(ours.reset_infos, theirs.reset_infos, "reset_infos")
        _, truncations = run_side_by_side(
            ours, theirs, random_actions(ours.action_space, 3, 30, 1), check
        )
        assert truncations == 12
    finally:
        ours.close()
        theirs.close()


def test_tuple_observations_equal_dummy_vec_env():
    ours = make_vec_env("Blackjack-v1", num_envs=4, seed=0)
    theirs = dummy_vec_env("Blackjack-v1", 4)
    theirs.seed(0)
    try:
        assert ours.observation_space == theirs.observation_space
        assert_same_value(ours.reset(), theirs.reset(), "reset obs")
        terminations, _ = run_side_by_side(
            ours, theirs, random_actions(ours.action_space, 4, 40, 2)
        )
        assert terminations > 20
    finally:
        ours.close()
        theirs.close()


def test_dict_observations_and_their_terminal_observation():
    # No Gymnasium twin of a dm_control task: the terminal observations are compared with
    # the observations a next_step pool (which returns the last one on the ending step) gives.
    ours = make_vec_env("PendulumSwingup-v1", num_envs=2, seed=3, max_episode_steps=4)
    plain = envfleet.make("PendulumSwingup-v1", num_envs=2, seed=3, max_episode_steps=4)
    try:
        space = ours.observation_space
        assert isinstance(space, gymnasium.spaces.Dict)
        obs = ours.reset()
        assert_same_value(obs, plain.reset()[0], "reset obs")
        actions = random_actions(ours.action_space, 2, 9, seed=5)
        for step, action in enumerate(actions):
            obs, _, dones, infos = ours.step(action)
            plain_obs, *_ = plain.step(action)
            assert obs.keys() == space.spaces.keys()
            assert all(obs[k].shape == (2, *space[k].shape) for k in space.spaces)
            if step % 4 == 3:  # each episode's 4th step
                assert dones.all()
                for i, info in enumerate(infos):
                    assert info["TimeLimit.truncated"] and space.contains(
                        info["terminal_observation"]
                    )
                    assert_same_value(
                        info["terminal_observation"],
                        {k: v[i] for k, v in plain_obs.items()},
                        f"step {step} terminal obs {i}",
                    )
                plain.step(action)  # plain resets on the step after
            else:
                assert not dones.any()
                assert all("terminal_observation" not in info for info in infos)
    finally:
        ours.close()
        plain.close()


# ---- SB3's wrappers and machinery ---------------------------------------------------------


def test_vec_monitor_episodes_equal_dummy_vec_env():
    ours = VecMonitor(make_vec_env("CartPole-v1", num_envs=4, seed=1, max_episode_steps=30))
    theirs = VecMonitor(dummy_vec_env("CartPole-v1", 4, max_episode_steps=30))
    theirs.seed(1)

    def check(result, ref, step):
        for info, ref_info in zip(result[3], ref[3], strict=True):
            assert ("episode" in info) == ("episode" in ref_info)
            if "episode" in info:
                assert info["episode"]["r"] == ref_info["episode"]["r"]
                assert info["episode"]["l"] == ref_info["episode"]["l"]
                del info["episode"], ref_info["episode"]  # "t" is wall-clock time
        assert_same_step(result, ref, step)

    try:
        ours.reset(), theirs.reset()
        run_side_by_side(ours, theirs, random_actions(ours.action_space, 4, 200, 6), check)
        assert_same_value(ours.episode_returns, theirs.episode_returns, "episode_returns")
        assert ours.episode_count == theirs.episode_count > 20
    finally:
        ours.close()
        theirs.close()


def test_vec_normalize_equals_dummy_vec_env():
    ours = VecNormalize(make_vec_env("Pendulum-v1", num_envs=3, seed=4, max_episode_steps=50))
    theirs = VecNormalize(dummy_vec_env("Pendulum-v1", 3, max_episode_steps=50))
    theirs.seed(4)
    try:
        assert_same_value(ours.reset(), theirs.reset(), "reset obs")
        actions = random_actions(ours.action_space, 3, 120, seed=7)
        _, truncations = run_side_by_side(ours, theirs, actions)
        assert truncations == 6
        assert_same_value(ours.obs_rms.mean, theirs.obs_rms.mean, "obs_rms.mean")
        assert_same_value(ours.ret_rms.var, theirs.ret_rms.var, "ret_rms.var")
    finally:
        ours.close()
        theirs.close()


def test_sb3_machinery_accepts_it():
    env = VecCheckNan(make_vec_env("CartPole-v1", num_envs=4, seed=0), raise_exception=True)
    model = A2C("MlpPolicy", env, n_steps=5, seed=0, device="cpu")
    model.learn(total_timesteps=200)
    monitored = VecMonitor(make_vec_env("CartPole-v1", num_envs=2, seed=1, max_episode_steps=20))
    returns, lengths = evaluate_policy(
        model, monitored, n_eval_episodes=4, return_episode_rewards=True
    )
    assert len(returns) == 4 and all(1 <= n <= 20 for n in lengths)
    env.close()
    monitored.close()


def test_multi_input_policy_learns_on_dict_observations():
    env = make_vec_env("PendulumSwingup-v1", num_envs=2, max_episode_steps=10)
    try:
        A2C("MultiInputPolicy", env, n_steps=5, device="cpu").learn(total_timesteps=40)
    finally:
        env.close()


# ---- attributes, methods, rendering ----------------------------------------------------------


def test_get_attr_serves_what_the_envs_share():
    env = make_vec_env("Pendulum-v1", num_envs=3, g=9.81)
    try:
        assert env.get_attr("g") == [9.81] * 3
        assert env.get_attr("observation_space", indices=[0, -1]) == [env.observation_space] * 2
        assert env.get_attr("render_mode", indices=1) == [None]
        assert env.get_attr("spec")[0].id == "Pendulum-v1"
        assert env.env_method("get_wrapper_attr", "g", indices=[2]) == [9.81]
        assert env.has_attr("g") and not env.has_attr("dummy")
        assert env.env_is_wrapped(Monitor) == [False] * 3
        assert env.render_mode is None and env.metadata["render_fps"] == 30
    finally:
        env.close()


def test_render_tiles_every_env_and_env_method_renders_some():
    env = make_vec_env("CartPole-v1", num_envs=3, seed=0, render_mode="rgb_array")
    try:
        env.reset()
        frames = env.get_images()
        expected = env.pool.render(env_ids=[0, 1, 2])
        assert len(frames) == 3 and all(
            np.array_equal(f, e) for f, e in zip(frames, expected, strict=True)
        )
        tiled = env.render()
        assert tiled.shape == (2 * 400, 2 * 600, 3)
        assert np.array_equal(tiled[400:, :600], expected[2])
        (frame,) = env.env_method("render", indices=[1])
        assert np.array_equal(frame, expected[1])
        assert "human" in env.metadata["render_modes"]
    finally:
        env.close()


def test_render_without_render_mode_warns_as_sb3_does():
    env = make_vec_env("CartPole-v1", num_envs=2)
    try:
        env.reset()
        with pytest.warns(UserWarning, match="render_mode"):
            assert env.render() is None
    finally:
        env.close()


# ---- bad input -------------------------------------------------------------------------------


def test_pools_sb3_cannot_use_are_refused():
    with pytest.raises(TypeError, match="pool must be a pool of envfleet's Gymnasium"):
        EnvfleetVecEnv(dummy_vec_env("CartPole-v1", 2))
    bad_pools = [
        (dict(autoreset_mode="next_step"), "autoreset_mode='same_step'"),
        (dict(autoreset_mode="same_step", batch_size=1), "sync pool"),
        (dict(autoreset_mode="same_step", env_type="gym", legacy_api=True), "Gymnasium front"),
    ]
    for kwargs, message in bad_pools:
        pool = envfleet.make("CartPole-v1", num_envs=2, **kwargs)
        with pytest.raises((TypeError, ValueError), match=message):
            EnvfleetVecEnv(pool)
        pool.close()
    pool = envfleet.make("CartPole-v1", num_envs=2, autoreset_mode="same_step")
    pool.close()
    with pytest.raises(ValueError, match="pool is closed"):
        EnvfleetVecEnv(pool)


def test_make_vec_env_refuses_options_against_sb3s_semantics():
    with pytest.raises(ValueError, match="autoreset_mode must be 'same_step'"):
        make_vec_env("CartPole-v1", num_envs=2, autoreset_mode="next_step")
    with pytest.raises(ValueError, match="env_type"):
        make_vec_env("CartPole-v1", num_envs=2, env_type="dm")
    with pytest.raises(ValueError, match="batch_size"):
        make_vec_env("CartPole-v1", num_envs=4, batch_size=2)
    with pytest.raises(TypeError, match="unknown option 'gravity'"):
        make_vec_env("CartPole-v1", num_envs=2, gravity=3.0)


def test_bad_calls_raise_naming_the_argument():
    env = make_vec_env("CartPole-v1", num_envs=3)
    try:
        env.reset()
        with pytest.raises(RuntimeError, match="step_async"):
            env.step_wait()
        with pytest.raises(ValueError, match="one row per env"):
            env.step_async(np.zeros(2, dtype=np.int64))
        with pytest.raises(ValueError, match="one row per env"):
            env.step_async(0)
        with pytest.raises(TypeError, match="seed must be an int"):
            env.seed(1.5)
        with pytest.raises(ValueError, match="options: envfleet's envs take no reset options"):
            env.set_options({"low": -0.1})
        env.set_options({})  # nothing to apply: accepted
        with pytest.raises(IndexError, match="indices: env 3 is out of range"):
            env.get_attr("render_mode", indices=[0, 3])
        with pytest.raises(TypeError, match="indices must be"):
            env.get_attr("render_mode", indices="0")
        with pytest.raises(AttributeError, match="get_attr\\('dummy'\\)"):
            env.get_attr("dummy")
        with pytest.raises(AttributeError, match="set_attr\\('sutton_barto_reward'\\)"):
            env.set_attr("sutton_barto_reward", True)
        with pytest.raises(AttributeError, match="env_method\\('compute_reward'\\)"):
            env.env_method("compute_reward", 1, 2, {})
        with pytest.raises(RuntimeError, match="render_mode"):
            env.env_method("render")
        # The pool still steps after all of it.
        obs, *_ = env.step(np.zeros(3, dtype=np.int64))
        assert obs.shape == (3, 4)
    finally:
        env.close()


@pytest.mark.skipif("FetchReach-v4" not in envfleet.list_all_envs(), reason="no robotics family")
def test_her_relabels_goals_through_env_method():
    """SB3's HerReplayBuffer relabels sampled goals with ``env_method("compute_reward", ...,
    indices=[0])``: the goal env's batched compute_reward answers it, and SAC with HER trains
    on a FetchReach pool."""
    from stable_baselines3 import SAC, HerReplayBuffer

    env = make_vec_env("FetchReachDense-v4", num_envs=2, seed=0)
    achieved = np.random.default_rng(0).normal(1.0, 0.1, (64, 3))
    desired = achieved + 0.03
    (rewards,) = env.env_method("compute_reward", achieved, desired, [{}] * 64, indices=[0])
    expected = -np.linalg.norm(achieved - desired, axis=-1)
    np.testing.assert_array_equal(rewards, expected)
    model = SAC(
        "MultiInputPolicy",
        env,
        replay_buffer_class=HerReplayBuffer,
        replay_buffer_kwargs={"n_sampled_goal": 4, "goal_selection_strategy": "future"},
        learning_starts=100,
        batch_size=32,
        policy_kwargs={"net_arch": [16]},
        seed=0,
    )
    model.learn(300)
    env.close()
    with pytest.raises(AttributeError, match="compute_reward"):
        make_vec_env("CartPole-v1", num_envs=1).env_method("compute_reward", 0, 0, {})
