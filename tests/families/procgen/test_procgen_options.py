"""Procgen specs and options against EnvPool 1.2.5 (envpool.make_spec starts no engine), and
the errors of bad options.

Each id's observation (uint8, channel-first (3, 64, 64) or, with channel_first=False,
(64, 64, 3)), action space (Discrete(15)), info keys and their arrays, option names and
defaults, and time limit are EnvPool's; the one difference is JumperMemory-v0's time limit:
procgen's engine ends its episodes at 2000 steps (jumper.cpp's memory mode), EnvPool registers
1000. A bad option must raise a ValueError or TypeError that names it: procgen's engine calls
exit() on a bad option, so the checks run in a child process, where a crash fails the
cases it reaches instead of ending the test run.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import describe, engine_built, run_isolated

import envfleet
from envfleet.families.procgen import GAMES, MODES

envpool = pytest.importorskip("envpool")

pytestmark = pytest.mark.skipif(
    not engine_built("CoinrunHard-v0"), reason="envfleet._procgen is not built here"
)

ALL_IDS = [f"{game.capitalize()}{mode}-v0" for game, modes in GAMES.items() for mode in modes]
# EnvPool's Procgen config keys that are no options of the env: its internals and the pool's.
NOT_ENV_OPTIONS = {
    "base_path",
    "env_seed",
    "gym_reset_return_info",
    "max_num_players",
    "num_envs",
    "batch_size",
    "num_threads",
    "thread_affinity_offset",
    "seed",
    "max_episode_steps",
}
INFO_KEYS = {"prev_level_seed", "prev_level_complete", "level_seed"}


def test_ids_match_envpool():
    from envpool.procgen.registration import distribution, procgen_game_config

    theirs = {
        f"{game.capitalize()}{distribution[mode]}-v0"
        for game, _, modes in procgen_game_config
        for mode in modes
    }
    family = {t: envfleet.registry.registration(t).family for t in envfleet.list_all_envs()}
    ours = {t for t, f in family.items() if f is not None and f.name == "procgen"}
    assert ours == set(ALL_IDS) == theirs
    assert len(ALL_IDS) == 50


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_spec_matches_envpool(task_id):
    for channel_first, shape in ((True, (3, 64, 64)), (False, (64, 64, 3))):
        ref = envpool.make_spec(task_id, channel_first=channel_first)
        spec = envfleet.make_spec(task_id, channel_first=channel_first)
        assert spec.observation_space.shape == ref.observation_space.shape == shape
        assert spec.observation_space.dtype == ref.observation_space.dtype == np.uint8
        assert (spec.observation_space.low.min(), spec.observation_space.high.max()) == (0, 255)
    assert spec.action_space.n == ref.action_space.n == 15
    ours = {k: v for k, v in spec.state_array_spec.items() if k.startswith("info:")}
    theirs = {k: v for k, v in ref.state_array_spec.items() if k.startswith("info:")}
    assert (
        set(ours)
        == set(theirs)
        == {"info:env_id", "info:players.env_id"} | {f"info:{k}" for k in INFO_KEYS}
    )
    for key in INFO_KEYS:
        assert ours[f"info:{key}"].dtype == theirs[f"info:{key}"].dtype == np.int32
    if task_id == "JumperMemory-v0":
        assert (spec.max_episode_steps, ref.config.max_episode_steps) == (2000, 1000)
    else:
        assert spec.max_episode_steps == ref.config.max_episode_steps


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_options_and_defaults_match_envpool(task_id):
    ref = envpool.make_spec(task_id).config
    theirs = {k: getattr(ref, k) for k in ref._fields if k not in NOT_ENV_OPTIONS}
    ours = envfleet.make_spec(task_id).config.env_options
    assert ours == theirs


def test_info_arrays_of_a_pool():
    env = envfleet.make("CaveflyerMemory-v0", num_envs=3, seed=1, channel_first=False)
    try:
        obs, info = env.reset()
        assert obs.shape == (3, 64, 64, 3) and obs.dtype == np.uint8
        for key in INFO_KEYS:
            assert info[key].dtype == np.int32 and info[key].shape == (3,)
        obs, reward, terminated, truncated, info = env.step(np.arange(3))
        assert reward.shape == (3,) and set(INFO_KEYS) <= set(info)
    finally:
        env.close()


# -- bad options ---------------------------------------------------------------------------

MAX = 2**31 - 1
UNSUPPORTED_MODES = [
    (game, mode)
    for game, modes in GAMES.items()
    for mode in MODES
    if mode not in modes  # the modes procgen's parse_options (or env.py) refuses
]


def bad(task_id: str, needle: str, error: type = ValueError, **options) -> tuple:
    """A bad option: making ``task_id`` with ``options`` raises ``error`` naming ``needle``."""
    return task_id, options, error, needle


BAD = {
    "unknown env_name": bad("CoinrunHard-v0", "env_name", env_name="mario"),
    "capitalized env_name": bad("CoinrunHard-v0", "env_name", env_name="Coinrun"),
    "empty env_name": bad("CoinrunHard-v0", "env_name", env_name=""),
    **{
        f"{game} in {mode} mode": bad(
            f"{game.capitalize()}Hard-v0", "distribution_mode", distribution_mode=MODES[mode]
        )
        for game, mode in UNSUPPORTED_MODES
    },
    "distribution_mode 3": bad("CoinrunHard-v0", "distribution_mode", distribution_mode=3),
    "distribution_mode -1": bad("ChaserHard-v0", "distribution_mode", distribution_mode=-1),
    "exploration with num_levels": bad("CoinrunExploration-v0", "num_levels", num_levels=5),
    "exploration with start_level": bad("MazeExploration-v0", "start_level", start_level=5),
    "negative num_levels": bad("CoinrunHard-v0", "num_levels", num_levels=-1),
    "negative start_level": bad("CoinrunHard-v0", "start_level", start_level=-3),
    "num_levels past int32": bad("CoinrunHard-v0", "num_levels", num_levels=MAX + 1),
    "start_level past int32": bad("CoinrunHard-v0", "start_level", start_level=2**40),
    "start_level + num_levels past int32": bad(
        "CoinrunHard-v0", "start_level + num_levels", start_level=MAX - 10, num_levels=11
    ),
    "num_levels a str": bad("CoinrunHard-v0", "num_levels", TypeError, num_levels="3"),
    "start_level a float": bad("CoinrunHard-v0", "start_level", TypeError, start_level=1.5),
    "distribution_mode a name": bad(
        "CoinrunHard-v0", "distribution_mode", TypeError, distribution_mode="hard"
    ),
    "env_name an int": bad("CoinrunHard-v0", "env_name", TypeError, env_name=3),
    "center_agent a str": bad("CoinrunHard-v0", "center_agent", TypeError, center_agent="yes"),
    "use_easy_jump None": bad("JumperHard-v0", "use_easy_jump", TypeError, use_easy_jump=None),
    "channel_first an int": bad("CoinrunHard-v0", "channel_first", TypeError, channel_first=2),
    "unknown option": bad("CoinrunHard-v0", "difficulty", TypeError, difficulty=1),
}
# Edge values that are fine: the largest level range, and the largest start of one level.
GOOD = {
    "all int32 levels": ("CoinrunHard-v0", dict(start_level=0, num_levels=MAX)),
    "last level": ("CoinrunHard-v0", dict(start_level=MAX - 1, num_levels=1)),
    "start_level without num_levels": ("BigfishEasy-v0", dict(start_level=MAX)),
}


@pytest.fixture(scope="module")
def outcomes():
    """Each case of BAD and GOOD given to envfleet.make_spec, and to envfleet.make (then a
    reset and a step), in one child process, which prints one JSON line per case: for each
    call, the exception's type and message, or None."""
    cases = {name: case[:2] for name, case in {**BAD, **GOOD}.items()}
    code = f"""
        import json, numpy as np, envfleet

        def run(call):
            try:
                call()
            except Exception as err:
                return [type(err).__name__, str(err)]

        def play(task_id, options):
            env = envfleet.make(task_id, num_envs=1, **options)
            env.reset()
            env.step(np.zeros(1, np.int64))
            env.close()

        for name, (task_id, options) in {cases!r}.items():
            spec = run(lambda: envfleet.make_spec(task_id, **options))
            print(json.dumps([name, [spec, run(lambda: play(task_id, options))]]), flush=True)
    """
    rc, out, err = run_isolated(code, timeout=120)
    lines = dict(json.loads(line) for line in out.splitlines() if line.startswith("["))
    return lines, describe(rc, out, err)


@pytest.mark.parametrize("name", list(BAD))
def test_bad_option_raises(name, outcomes):
    results, run = outcomes
    assert name in results, f"the child process never finished this case: {run}"
    _, _, error, needle = BAD[name]
    for call, result in zip(("make_spec", "make"), results[name], strict=True):
        assert result is not None, f"{call}: no error"
        kind, message = result
        assert kind == error.__name__ and needle in message, (call, kind, message)


@pytest.mark.parametrize("name", list(GOOD))
def test_edge_options_work(name, outcomes):
    results, run = outcomes
    assert name in results, f"the child process never finished this case: {run}"
    assert results[name] == [None, None], results[name]
