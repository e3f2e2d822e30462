"""Heterogeneous pools: ``make(..., per_env_options=[...])`` gives each env its own options.

Env i of such a pool must behave exactly as env 0 of a homogeneous pool made with env i's
options and seed, and as the Gymnasium reference env made with them (same seeds, same
actions, every step compared exactly). Options that would give an env other spaces than env 0's,
pool options, unknown options and a list of the wrong length are refused before any env is
built, with messages naming the entry and the option.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from dm_env import StepType

import envfleet
from envfleet import registry

# Gymnasium warns about wind_power / turbulence_power outside their recommended range.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PENDULUM_G = [9.81, 1.62, 24.79, 3.72]


def pendulum_action(env_id: int, t: int) -> np.ndarray:
    """A deterministic action per (env, step), so pools of any layout get the same ones."""
    return np.array([np.sin(0.7 * t + env_id) * 2.0], dtype=np.float32)


def trajectories(env, steps: int, action_of) -> dict[int, list[tuple]]:
    """Each env's (obs, reward, terminated, truncated) after its reset and ``steps`` actions,
    through send/recv, so sync and async pools alike give every env its own sequence. Envs
    done early keep stepping, so that an async batch always fills."""
    out: dict[int, list[tuple]] = {i: [] for i in range(env.num_envs)}
    env.async_reset()
    while any(len(rows) <= steps for rows in out.values()):
        obs, reward, terminated, truncated, info = env.recv()
        ids = [int(i) for i in info["env_id"]]
        for row, env_id in enumerate(ids):
            out[env_id].append(
                (obs_row(obs, row), float(reward[row]), bool(terminated[row]), bool(truncated[row]))
            )
        actions = np.stack([action_of(i, len(out[i]) - 1) for i in ids])
        env.send(actions, np.array(ids, dtype=np.int32))
    for rows in out.values():
        del rows[steps + 1 :]
    return out


def obs_row(obs, row: int) -> tuple[np.ndarray, ...]:
    """One env's observation as a tuple of arrays, whatever the layout (array, tuple, dict)."""
    arrays = obs.values() if isinstance(obs, dict) else obs if isinstance(obs, tuple) else [obs]
    return tuple(np.array(a[row]) for a in arrays)


def same_obs(a, b) -> bool:
    """Equal observations, each a tuple of arrays (obs_row) or one array."""
    a, b = (x if isinstance(x, tuple) else (x,) for x in (a, b))
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def assert_same(got: list[tuple], want: list[tuple], what: str) -> None:
    assert len(got) == len(want)
    for t, (a, b) in enumerate(zip(got, want, strict=True)):
        assert same_obs(a[0], b[0]), f"{what}: observation differs at step {t}"
        assert a[1:] == b[1:], f"{what}: reward or flags differ at step {t}"


@pytest.mark.parametrize(
    "layout",
    [
        dict(num_threads=1),
        dict(num_threads=2),
        dict(num_threads=2, batch_size=2),
        dict(num_threads=1, batch_size=1),
    ],
    ids=["sync-1-thread", "sync-2-threads", "async-batch-2", "async-batch-1"],
)
def test_pendulum_each_env_matches_gymnasium_with_its_own_g(layout):
    seeds = [3, 1, 4, 1]
    env = envfleet.make(
        "Pendulum-v1",
        num_envs=4,
        seed=seeds,
        per_env_options=[{"g": g} for g in PENDULUM_G],
        **layout,
    )
    got = trajectories(env, 60, pendulum_action)
    env.close()
    for i, g in enumerate(PENDULUM_G):
        ref = gymnasium.make("Pendulum-v1", g=g)
        obs, _ = ref.reset(seed=seeds[i])
        want = [(obs, 0.0, False, False)]
        for t in range(60):
            obs, reward, terminated, truncated, _ = ref.step(pendulum_action(i, t))
            # EnvPool's conventions: float32 rewards (Gymnasium's are float64).
            want.append((obs, float(np.float32(reward)), terminated, truncated))
        assert_same(got[i], want, f"env {i} (g={g})")


def test_each_env_matches_a_homogeneous_pool_of_its_options():
    own = [{"g": 2.0}, {}, {"g": 15.0}]
    seeds = [10, 20, 30]
    env = envfleet.make("Pendulum-v1", num_envs=3, seed=seeds, g=7.5, per_env_options=own)
    got = trajectories(env, 40, pendulum_action)
    for i, options in enumerate(own):
        alone = envfleet.make("Pendulum-v1", num_envs=1, seed=seeds[i], **{"g": 7.5, **options})
        # Env 0 of the lone pool gets env i's actions.
        want = trajectories(alone, 40, lambda _, t, i=i: pendulum_action(i, t))
        assert_same(got[i], want[0], f"env {i} ({options})")
    # The options are really applied: env 0 and env 2 share seeds with nothing, but a pool
    # with the common g everywhere differs from env 0's g=2.0.
    common = envfleet.make("Pendulum-v1", num_envs=1, seed=seeds[0], g=7.5)
    base = trajectories(common, 40, pendulum_action)[0]
    assert not all(same_obs(a[0], b[0]) for a, b in zip(got[0], base, strict=True))


@pytest.mark.parametrize("continuous", [False, True], ids=["discrete", "continuous"])
def test_lunar_lander_gravity_and_wind_per_env_match_gymnasium(continuous):
    own = [
        {"gravity": -10.0},
        {"gravity": -3.5},
        {"gravity": -11.5, "enable_wind": True, "wind_power": 18.0, "turbulence_power": 2.0},
        {"enable_wind": True},
    ]
    seeds = [0, 5, 7, 11]
    steps = 250
    rng = np.random.default_rng(0)
    if continuous:
        actions = rng.uniform(-1.0, 1.0, (steps, len(own), 2)).astype(np.float32)
    else:
        actions = rng.integers(0, 4, (steps, len(own)))
    env = envfleet.make(
        "LunarLander-v3",
        num_envs=len(own),
        seed=seeds,
        continuous=continuous,
        per_env_options=own,
        conventions="gymnasium",
    )
    refs = gymnasium.vector.SyncVectorEnv(
        [lambda o=o: gymnasium.make("LunarLander-v3", continuous=continuous, **o) for o in own]
    )
    obs, _ = env.reset()
    ref_obs, _ = refs.reset(seed=seeds)
    np.testing.assert_array_equal(obs, ref_obs)
    for t in range(steps):
        out = env.step(actions[t])
        ref = refs.step(actions[t])
        names = ["obs", "reward", "terminated", "truncated"]
        for got, want, name in zip(out[:4], ref[:4], names, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} at step {t}")
    env.close()
    refs.close()


def test_config_and_spec_report_each_envs_options():
    env = envfleet.make(
        "Pendulum-v1", num_envs=3, g=7.0, per_env_options=[{"g": 1.0}, {}, {"g": 3.0}]
    )
    config = env.config
    assert config["g"] == 7.0 and config.g == 7.0, "the common value"
    assert config.per_env_options == ({"g": 1.0}, {}, {"g": 3.0})
    assert config["per_env_options"] == config.per_env_options
    assert [config.env_options_of(i)["g"] for i in range(3)] == [1.0, 7.0, 3.0]
    assert env.spec.config is config
    with pytest.raises(ValueError, match=r"env_id must be in \[0, 2\]"):
        config.env_options_of(3)
    with pytest.raises(TypeError, match="env_id must be an int"):
        config.env_options_of("1")
    plain = envfleet.make("Pendulum-v1", num_envs=2, g=4.0).config
    assert plain.per_env_options == ()
    assert plain.env_options_of(1)["g"] == 4.0


def test_values_are_converted_like_keyword_options():
    env = envfleet.make("Pendulum-v1", num_envs=2, per_env_options=[{"g": 3}, {"g": np.float32(2)}])
    assert env.config.per_env_options == ({"g": 3.0}, {"g": 2.0})
    assert all(type(o["g"]) is float for o in env.config.per_env_options)
    # A list-valued option takes its list in an entry, as it does as a keyword: an entry is
    # always one env's value, never split across envs.
    rows = ["SFFF", "FHFH", "FFFH", "HFFG"]
    lake = envfleet.make("FrozenLake-v1", num_envs=2, per_env_options=[{}, {"desc": rows}])
    assert lake.config.env_options_of(1)["desc"] == rows


@pytest.mark.parametrize(
    ("per_env_options", "error", "message"),
    [
        ([{}], ValueError, r"per_env_options has 1 entries but num_envs is 3"),
        ([{}] * 4, ValueError, r"per_env_options has 4 entries but num_envs is 3"),
        ({"g": 1.0}, TypeError, r"per_env_options must be a sequence of num_envs dicts"),
        ("g", TypeError, r"per_env_options must be a sequence"),
        ([{}, 5.0, {}], TypeError, r"per_env_options\[1\] must be a dict of env options"),
        ([{}, {}, {"gg": 1.0}], TypeError, r"per_env_options\[2\] sets unknown option 'gg'"),
        ([{}, {"g": "x"}, {}], TypeError, r"per_env_options\[1\]: option 'g' must be a number"),
        ([{"seed": 3}, {}, {}], TypeError, r"per_env_options\[0\] sets 'seed': pool options"),
        ([{}, {"num_envs": 2}, {}], TypeError, r"per_env_options\[1\] sets 'num_envs'"),
        ([{}, {"max_episode_steps": 9}, {}], TypeError, r"sets 'max_episode_steps'"),
        ([{}, {"render_mode": "rgb_array"}, {}], TypeError, r"sets 'render_mode'"),
        ([{}, {"per_env_options": []}, {}], TypeError, r"sets 'per_env_options'"),
    ],
)
def test_bad_per_env_options_are_refused(per_env_options, error, message):
    with pytest.raises(error, match=message):
        envfleet.make("Pendulum-v1", num_envs=3, per_env_options=per_env_options)


@pytest.mark.parametrize(
    ("task_id", "own", "message"),
    [
        (
            "LunarLander-v3",
            [{}, {"continuous": True}],
            r"per_env_options\[1\] gives env 1 another action space \(Box\(-1.0, 1.0, \(2,\), "
            r"float32\) where env 0 has Discrete\(4\)\), through 'continuous' \(True for env 1, "
            r"False for env 0\)",
        ),
        (
            "LunarLander-v3",
            [{"continuous": True}, {"gravity": -5.0}],
            r"per_env_options\[1\] gives env 1 another action space .* through 'continuous' "
            r"\(False for env 1, True for env 0\)",
        ),
        (
            "FrozenLake-v1",
            [{}, {"map_name": "8x8", "is_slippery": False}],
            r"another observation space \(Discrete\(64\) where env 0 has Discrete\(16\)\), "
            r"through 'map_name' \('8x8' for env 1, '4x4' for env 0\): all envs",
        ),
    ],
)
def test_options_that_change_the_spaces_are_refused(task_id, own, message):
    with pytest.raises(ValueError, match=message):
        envfleet.make(task_id, num_envs=2, per_env_options=own)
    with pytest.raises(ValueError, match=message):
        envfleet.make_spec(task_id, num_envs=2, per_env_options=own)


def test_the_core_refuses_mismatched_specs_when_called_directly():
    """The binding's own guard, for callers of the module's Pool that skip make()."""
    spec = envfleet.make_spec("FrozenLake-v1", num_envs=2)
    config = spec.config

    def pool(per_env_options):
        return spec.module.Pool(
            spec.env_type,
            config.env_options,
            2,
            2,
            1,
            [0, 1],
            -1,
            0,
            100,
            per_env_options=per_env_options,
        )

    with pytest.raises(ValueError, match="the options of env 1 change its spec"):
        pool([{}, {"map_name": "8x8"}])
    with pytest.raises(ValueError, match="one dict per env"):
        pool([{}])
    pool([{"is_slippery": False}, {}]).close()


def test_dm_front_end():
    seeds = [2, 3]
    own = [{"g": 4.0}, {"g": 12.0}]
    env = envfleet.make_dm("Pendulum-v1", num_envs=2, seed=seeds, per_env_options=own)
    ts = env.reset()
    assert ts.step_type.tolist() == [StepType.FIRST] * 2
    refs = [gymnasium.make("Pendulum-v1", **o) for o in own]
    for ref, seed, obs in zip(refs, seeds, ts.observation.obs, strict=True):
        np.testing.assert_array_equal(ref.reset(seed=seed)[0], obs)
    for t in range(30):
        action = np.stack([pendulum_action(i, t) for i in range(2)])
        ts = env.step(action)
        for i, ref in enumerate(refs):
            obs, reward, *_ = ref.step(action[i])
            np.testing.assert_array_equal(ts.observation.obs[i], obs)
            assert ts.reward[i] == np.float32(reward)
    assert env.config.env_options_of(1)["g"] == 12.0


def test_gym_front_ends_and_gymnasium_make_vec():
    own = [{"g": 4.0}, {"g": 12.0}]
    action = np.zeros((2, 1), dtype=np.float32)
    want_obs = []
    for i, options in enumerate(own):  # make's default seed: env i uses 42 + i
        ref = gymnasium.make("Pendulum-v1", **options)
        ref.reset(seed=42 + i)
        want_obs.append(ref.step(action[i])[0])
    legacy = envfleet.make_gym("Pendulum-v1", num_envs=2, per_env_options=own, legacy_api=True)
    legacy.reset()
    np.testing.assert_array_equal(legacy.step(action)[0], want_obs)
    vec = gymnasium.make_vec("envfleet/Pendulum-v1", num_envs=2, per_env_options=own)
    vec.reset(seed=42)
    np.testing.assert_array_equal(vec.step(action)[0], want_obs)
    assert vec.unwrapped.config.env_options_of(0)["g"] == 4.0


def test_atari_modes_difficulties_and_sticky_actions_per_env():
    """Envs of one Atari pool in other game modes, difficulties and repeat_action_probability:
    each one plays exactly as a pool of its own options (spaces are those of the game)."""
    own = [
        {},
        {"mode": 1},
        {"difficulty": 1},
        {"mode": 1, "difficulty": 1, "repeat_action_probability": 0.9},
    ]
    seeds = [1, 2, 3, 4]
    steps = 120

    def action_of(env_id, t):
        return np.int64((env_id * 7 + t * 3) % 6)

    env = envfleet.make("Pong-v5", num_envs=4, seed=seeds, per_env_options=own, batch_size=2)
    assert env.observation_space.shape == (4, 84, 84)
    got = trajectories(env, steps, action_of)
    env.close()
    for i, options in enumerate(own):
        alone = envfleet.make("Pong-v5", num_envs=1, seed=seeds[i], **options)
        want = trajectories(alone, steps, lambda _, t, i=i: action_of(i, t))[0]
        alone.close()
        assert_same(got[i], want, f"env {i} ({options})")
        if options:  # the options really reach the env: the default game plays otherwise
            default = envfleet.make("Pong-v5", num_envs=1, seed=seeds[i])
            other = trajectories(default, steps, lambda _, t, i=i: action_of(i, t))[0]
            default.close()
            assert any(not same_obs(a[0], b[0]) for a, b in zip(got[i], other, strict=True))


def test_atari_games_differ_per_env_where_the_spaces_agree():
    """Different games in one pool: with the full action set every game has the same spaces."""
    own = [{"game": "pong"}, {"game": "breakout"}]
    env = envfleet.make(
        "Pong-v5", num_envs=2, seed=[5, 6], full_action_space=True, per_env_options=own
    )
    assert env.action_space.n == 18

    def action_of(env_id, t):
        return np.int64((t * 5 + env_id) % 18)

    got = trajectories(env, 60, action_of)
    env.close()
    for i, task_id in enumerate(["Pong-v5", "Breakout-v5"]):
        alone = envfleet.make(task_id, num_envs=1, seed=5 + i, full_action_space=True)
        want = trajectories(alone, 60, lambda _, t, i=i: action_of(i, t))[0]
        alone.close()
        assert_same(got[i], want, task_id)
    with pytest.raises(ValueError, match=r"another action space \(Discrete\(4\) where env 0 has "):
        envfleet.make("Pong-v5", num_envs=2, per_env_options=own)


def test_mujoco_frame_skip_and_reward_weights_per_env():
    """MuJoCo envs with their own control rate and reward weights: each plays exactly as a pool
    of its own options; the render rate (frame_skip sets it) is env 0's for the pool."""
    own = [{}, {"frame_skip": 2}, {"ctrl_cost_weight": 0.5, "reset_noise_scale": 0.3}]
    seeds = [0, 1, 2]

    def action_of(env_id, t):
        return np.sin(np.arange(6) * 0.9 + 0.3 * t + env_id).astype(np.float32)

    env = envfleet.make("HalfCheetah-v5", num_envs=3, seed=seeds, per_env_options=own)
    assert env.metadata["render_fps"] == envfleet.make_spec("HalfCheetah-v5").render.render_fps
    got = trajectories(env, 50, action_of)
    env.close()
    for i, options in enumerate(own):
        alone = envfleet.make("HalfCheetah-v5", num_envs=1, seed=seeds[i], **options)
        want = trajectories(alone, 50, lambda _, t, i=i: action_of(i, t))[0]
        alone.close()
        assert_same(got[i], want, f"env {i} ({options})")
    with pytest.raises(ValueError, match="through 'exclude_current_positions_from_observation'"):
        envfleet.make(
            "HalfCheetah-v5",
            num_envs=2,
            per_env_options=[{}, {"exclude_current_positions_from_observation": False}],
        )


def test_dm_control_tasks_of_one_domain_per_env():
    """WalkerWalk and WalkerRun share the walker's spaces: one pool may hold both."""
    own = [{}, {"task_name": "run"}]

    def action_of(env_id, t):
        return np.cos(np.arange(6) + 0.2 * t).astype(np.float32)

    env = envfleet.make("WalkerWalk-v1", num_envs=2, seed=[0, 0], per_env_options=own)
    got = trajectories(env, 30, action_of)
    env.close()
    for i, task_id in enumerate(["WalkerWalk-v1", "WalkerRun-v1"]):
        alone = envfleet.make(task_id, num_envs=1, seed=0)
        want = trajectories(alone, 30, action_of)[0]
        alone.close()
        assert_same(got[i], want, task_id)
    assert [row[1] for row in got[0]] != [row[1] for row in got[1]], "the tasks reward apart"


def test_registry_does_not_leak_the_argument_into_env_options():
    spec = envfleet.make_spec("Pendulum-v1", num_envs=2, per_env_options=[{}, {"g": 1.0}])
    assert "per_env_options" not in spec.config.env_options
    assert set(spec.config.env_options) == set(
        registry.registration("Pendulum-v1").family.engine().env_types()["Pendulum"]
    )
