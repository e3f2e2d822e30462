"""BabyAI's options (minigrid's level arguments, each set compared with minigrid 3.2.0 made with
them, step by step), bad options, the time limit (per episode from the instructions, or fixed),
EnvPool's mission_id (-1), and async pools. The spec against EnvPool is in
test_minigrid_spec.py, with the MiniGrid ids'.
"""

from __future__ import annotations

import envpool
import numpy as np
import pytest
from minigrid_reference import (
    ReferencePool,
    check_async_pool,
    curious,
    import_minigrid,
    run_aligned,
)

import envfleet
from envfleet import registry

IDS = sorted(tid for tid in envfleet.list_all_envs() if tid.startswith("BabyAI-"))


@pytest.fixture(scope="module")
def reference():
    return import_minigrid()


# (id, options, minigrid's arguments where they differ): arguments other than the registered
# ones, compared with minigrid's level made with them.
OPTION_CASES = [
    ("BabyAI-GoToLocal-v0", {"room_size": 6, "num_dists": 3}, None),
    ("BabyAI-GoToRedBallGrey-v0", {"room_size": 7, "num_dists": 5}, None),
    ("BabyAI-GoTo-v0", {"num_rows": 2, "num_cols": 3, "num_dists": 5, "doors_open": True}, None),
    ("BabyAI-GoTo-v0", {"agent_view_size": 5, "max_steps": 40}, None),
    ("BabyAI-GoToImpUnlock-v0", {"room_size": 6, "num_rows": 2, "num_cols": 2}, None),
    ("BabyAI-GoToDoor-v0", {"num_rows": 4, "num_cols": 3}, None),
    ("BabyAI-BossLevel-v0", {"room_size": 6, "num_dists": 10, "locked_room_prob": 0.9,
                             "action_kinds": ["goto", "open"], "instr_kinds": ["seq"]}, None),
    # EnvPool's comma-separated kinds, minigrid's tuple
    ("BabyAI-BossLevel-v0", {"action_kinds": ["pickup,putnext"], "instr_kinds": ["and,action"]},
     {"action_kinds": ("pickup", "putnext"), "instr_kinds": ("and", "action")}),
    ("BabyAI-SynthSeq-v0", {"num_rows": 2, "num_cols": 2, "num_dists": 6}, None),
    ("BabyAI-GoToSeqS5R2-v0", {"num_dists": 6}, None),
    ("BabyAI-Open-v0", {"room_size": 7, "num_cols": 2}, None),
    ("BabyAI-OpenDoor-v0", {"select_by": "loc", "debug": True}, None),
    ("BabyAI-OpenTwoDoors-v0", {"first_color": "green", "strict": True}, None),
    ("BabyAI-OpenDoorsOrderN2-v0", {"num_doors": 3, "debug": True}, None),
    ("BabyAI-PickupAbove-v0", {"num_rows": 2, "num_cols": 2, "max_steps": 50}, None),
    ("BabyAI-PutNextLocal-v0", {"room_size": 7, "num_objs": 5}, None),
    ("BabyAI-PutNextS5N1-v0", {"room_size": 6, "objs_per_room": 3, "start_carrying": True}, None),
    ("BabyAI-MoveTwoAcrossS5N2-v0", {"room_size": 6, "objs_per_room": 4}, None),
    ("BabyAI-UnlockLocal-v0", {"room_size": 6, "distractors": True}, None),
    ("BabyAI-UnlockPickup-v0", {"distractors": True, "max_steps": 100}, None),
    ("BabyAI-KeyCorridor-v0", {"obj_type": "key", "room_size": 5, "num_rows": 2}, None),
    ("BabyAI-FindObjS5-v0", {"room_size": 6, "num_rows": 2, "num_cols": 2}, None),
    ("BabyAI-OneRoomS8-v0", {"room_size": 10, "see_through_walls": True}, None),
]  # fmt: skip


@pytest.mark.parametrize(("task_id", "options", "theirs"), OPTION_CASES, ids=str)
def test_options_match_minigrids_arguments(reference, task_id, options, theirs):
    reference_options = dict(options, **(theirs or {}))
    run_aligned(task_id, seed=31, steps=150, num_envs=2, policy=curious,
                reference_options=reference_options, **options)  # fmt: skip


@pytest.mark.parametrize(
    ("task_id", "options", "words"),
    [
        ("BabyAI-OpenDoorsOrderN2-v0", {"num_doors": 5}, ["num_doors"]),
        ("BabyAI-OpenDoor-v0", {"select_by": "size"}, ["select_by", "'color' or 'loc'"]),
        ("BabyAI-OpenTwoDoors-v0", {"first_color": "pink"}, ["first_color", "'grey'"]),
        ("BabyAI-BossLevel-v0", {"action_kinds": ["jump"]}, ["action_kinds", "'putnext'"]),
        ("BabyAI-BossLevel-v0", {"instr_kinds": ["action,"]}, ["instr_kinds"]),
        ("BabyAI-BossLevel-v0", {"instr_kinds": []}, ["instr_kinds"]),
        ("BabyAI-PickupLoc-v0", {"locked_room_prob": 0.5}, ["locked_room_prob"]),
        ("BabyAI-PutNextS4N1-v0", {"objs_per_room": 10}, ["objs_per_room"]),
        ("BabyAI-PutNextS4N1-v0", {"room_size": 3}, ["room_size"]),
        ("BabyAI-PutNextS4N1-v0", {"objs_per_room": 2}, ["objs_per_room:", "room for 1"]),
        ("BabyAI-PutNextLocal-v0", {"num_objs": 19}, ["num_objs"]),
        ("BabyAI-GoToDoor-v0", {"num_rows": 2}, ["num_rows >= 3"]),
        ("BabyAI-GoToLocal-v0", {"num_dists": 0}, ["num_dists"]),
        ("BabyAI-GoToLocal-v0", {"room_size": 4, "num_dists": 5}, ["num_dists"]),
        ("BabyAI-GoTo-v0", {"room_size": 2}, ["room_size"]),
        ("BabyAI-GoTo-v0", {"num_rows": 65}, ["num_rows"]),
        ("BabyAI-Open-v0", {"num_rows": 1, "num_cols": 1}, ["two rooms"]),
        ("BabyAI-KeyCorridor-v0", {"obj_type": "door"}, ["obj_type"]),
        ("BabyAI-GoToLocal-v0", {"max_steps": 0}, ["max_steps"]),
        ("BabyAI-GoToLocal-v0", {"agent_view_size": 4}, ["agent_view_size"]),
    ],
)
def test_bad_options_raise_naming_them(task_id, options, words):
    with pytest.raises(ValueError) as err:
        envfleet.make_spec(task_id, **options)
    for word in words:
        assert word in str(err.value), str(err.value)


def test_a_level_without_its_required_arguments_says_which(monkeypatch):
    """OpenDoorsOrder, PutNext and MoveTwoAcross have required arguments (num_doors;
    room_size, objs_per_room): an id registered without them is refused, naming them."""
    monkeypatch.setattr(registry, "_registry", dict(registry._registry))
    registry.register("MyOpenDoorsOrder-v0", "BabyAIOpenDoorsOrder")
    registry.register("MyPutNext-v0", "BabyAIPutNext", room_size=5)
    with pytest.raises(ValueError, match="needs the option num_doors"):
        envfleet.make_spec("MyOpenDoorsOrder-v0")
    with pytest.raises(ValueError, match="needs the option objs_per_room"):
        envfleet.make_spec("MyPutNext-v0")
    assert envfleet.make_spec("MyOpenDoorsOrder-v0", num_doors=3).max_episode_steps is None


# ---- the time limit ---------------------------------------------------------------------------


def test_the_levels_have_no_pool_time_limit_unless_max_steps_is_given():
    """EnvPool registers every BabyAI id with max_episode_steps 0: the envs end their episodes
    themselves. max_steps fixes the limit (as minigrid's argument), which the pool then knows."""
    for task_id in IDS:
        assert envfleet.make_spec(task_id).max_episode_steps is None, task_id
    assert envfleet.make_spec("BabyAI-BossLevel-v0", max_steps=77).max_episode_steps == 77
    assert envfleet.make_spec("BabyAI-OpenTwoDoors-v0", max_steps=5).max_episode_steps == 5


def truncation_step(task_id: str, seed: int, **options) -> int:
    """The step at which env 0's first episode truncates under left turns (nothing else can
    end it), as the pool reports it."""
    env = envfleet.make(task_id, num_envs=1, seed=seed, conventions="gymnasium", **options)
    try:
        env.reset()
        for t in range(1, 100000):
            _, _, terminated, truncated, _ = env.step(np.zeros(1, np.int64))
            if truncated[0] or terminated[0]:
                assert not terminated[0]
                return t
    finally:
        env.close()
    raise AssertionError("never truncated")


def test_each_episode_has_its_own_limit(reference):
    """Per episode, num_navs * room_size**2 * num_rows * num_cols (the navigations its
    instructions need: two for a PutNext); a class's own fixed limit; or max_steps."""
    assert truncation_step("BabyAI-GoToLocal-v0", 0) == 1 * 8**2
    assert truncation_step("BabyAI-PutNextLocal-v0", 0) == 2 * 8**2
    assert truncation_step("BabyAI-GoTo-v0", 0) == 1 * 8**2 * 9
    assert truncation_step("BabyAI-OpenTwoDoors-v0", 0) == 20 * 6**2
    assert truncation_step("BabyAI-UnlockPickup-v0", 0) == 1 * 6**2 * 2  # minigrid's `max` slip
    assert truncation_step("BabyAI-GoToLocal-v0", 0, max_steps=9) == 9
    # BossLevel's vary with their instructions: minigrid's env says how many steps each gets.
    for seed in range(3):
        ref = ReferencePool("BabyAI-BossLevel-v0", 1, {})
        try:
            ref.reset(seed)
            want = ref.envs[0].unwrapped.max_steps
        finally:
            ref.close()
        assert truncation_step("BabyAI-BossLevel-v0", seed) == want


# ---- EnvPool's mission_id ---------------------------------------------------------------------


def test_mission_id_is_envpools():
    """EnvPool 1.2.5 gives every BabyAI level the mission_id -1 (measured on some of its pools;
    some of its BabyAI pools hang in reset for some seeds, SynthS5R2's, so not all), and so
    does envfleet for every id."""
    for task_id in ("BabyAI-GoToLocal-v0", "BabyAI-BossLevel-v0", "BabyAI-PutNextLocal-v0",
                    "BabyAI-UnlockPickup-v0", "BabyAI-OpenDoorsOrderN4-v0"):  # fmt: skip
        env = envpool.make_gymnasium(task_id, num_envs=4, seed=1)
        try:
            for _ in range(3):
                assert (env.reset()[1]["mission_id"] == -1).all(), task_id
        finally:
            env.close()
    for task_id in IDS:
        env = envfleet.make(task_id, num_envs=2, seed=1)
        try:
            info = env.reset()[1]
            assert (info["mission_id"] == -1).all(), task_id
            assert env.observation_space["mission"].shape == (512,)
        finally:
            env.close()


# ---- async pools ------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", ["BabyAI-BossLevel-v0", "BabyAI-PutNextS5N2Carrying-v0"])
def test_async_pools_match_minigrid_per_env(reference, task_id):
    """Async mode (batch_size < num_envs, two threads): each env's results are the reference's
    for its seed and its own actions, whichever batch they come back in."""
    check_async_pool(task_id, 200, {"max_steps": 15})


def test_levels_minigrid_would_generate_forever_end_in_an_error():
    """Options the checks let through that still leave no level to make (one room whose only
    object cannot be put next to another: minigrid draws forever) end the reset with an
    EnvError after 10000 attempts, in a fraction of a second."""
    options = {"num_rows": 1, "num_cols": 1, "num_dists": 1, "locked_room_prob": 0.0}
    env = envfleet.make("BabyAI-BossLevel-v0", num_envs=1, action_kinds=["putnext"], **options)
    try:
        with pytest.raises(envfleet.errors.EnvError, match="no level generated in 10000 attempts"):
            env.reset()
        with pytest.raises(envfleet.errors.EnvError, match="no level generated"):
            env.step(np.zeros(1, np.int64))  # the env resets again, never steps half-made
    finally:
        env.close()
