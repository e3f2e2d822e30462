"""MiniGrid's spec against EnvPool 1.2.5 (every id), EnvPool's mission_id (measured against
envpool's own pools), the env options (minigrid's constructor arguments and EnvPool's names,
each compared with minigrid 3.2.0 step by step), bad options, and the env's own truncation
(``max_steps``, Env::kTruncates) as the pool reports it.
"""

from __future__ import annotations

import envpool
import numpy as np
import pytest
from minigrid_reference import (
    check_async_pool,
    curious,
    import_minigrid,
    mission_text,
    run_aligned,
)
from sampling import first_of_each

import envfleet
from envfleet import registry

IDS = sorted(
    tid for tid in envfleet.list_all_envs() if registry.registration(tid).family.name == "minigrid"
)
# BabyAI's mission_id is EnvPool's -1 throughout (test_babyai_spec.py).
MINIGRID_IDS = [tid for tid in IDS if not tid.startswith("BabyAI-")]

pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")


@pytest.fixture(scope="module")
def reference():
    return import_minigrid()


# ---- EnvPool's spec ---------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", IDS)
def test_spec_is_envpools(task_id):
    """Spaces, time limit, info keys and dtypes as EnvPool 1.2.5 states them (a time limit of
    0, BabyAI's, is none: envfleet's None). One deliberate difference
    (docs/families/minigrid.md): ``direction`` is ``Discrete(4, dtype=int32)``, the dtype of
    its arrays, where EnvPool's space says int64 and its arrays are int32."""
    ours, theirs = envfleet.make_spec(task_id), envpool.make_spec(task_id)
    assert (ours.max_episode_steps or 0) == theirs.config.max_episode_steps
    assert ours.action_space == theirs.action_space
    assert set(ours.observation_space) == set(theirs.observation_space)
    for key in ("image", "mission"):
        assert ours.observation_space[key] == theirs.observation_space[key], key
    direction, their_direction = (
        ours.observation_space["direction"],
        theirs.observation_space["direction"],
    )
    assert (direction.n, direction.start) == (their_direction.n, their_direction.start)
    assert direction.dtype == np.int32
    assert [k.name for k in ours.info_keys] == ["agent_pos", "mission_id"]
    env = envpool.make_gymnasium(task_id, num_envs=1)
    try:
        obs, info = env.reset()
    finally:
        env.close()
    for key in ours.obs_keys:
        assert obs[key.name].dtype == key.dtype and obs[key.name].shape[1:] == key.shape, key
    for key in ours.info_keys:
        assert info[key.name].dtype == key.dtype and info[key.name].shape[1:] == key.shape, key


@pytest.mark.parametrize("task_id", [tid for tid in IDS if tid.startswith("MiniGrid-WFC-")])
def test_wfc_levels_are_configured_as_envpools(task_id):
    """EnvPool registers each WFC id with its preset (wfc_preset), size 25 and
    ensure_connected True: the same as the id's wfc_config and WFCEnv's defaults here."""
    theirs, ours = envpool.make_spec(task_id).config, envfleet.make_spec(task_id).config
    assert ours.wfc_config == theirs.wfc_preset == task_id.split("-")[2]
    assert ours.wfc_preset == ""  # not given: wfc_config decides
    assert ours.size == theirs.size == 25
    assert ours.ensure_connected is theirs.ensure_connected is True


def mission_ids(module, task_id: str, rounds: int) -> dict[str, set[int]]:
    """{mission text: the mission_ids seen with it} over `rounds` resets of 16 envs."""
    seen: dict[str, set[int]] = {}
    env = module.make_gymnasium(task_id, num_envs=16, seed=3)
    try:
        for _ in range(rounds):
            obs, info = env.reset()
            for row, mission_id in zip(obs["mission"], info["mission_id"], strict=True):
                seen.setdefault(mission_text(row), set()).add(int(mission_id))
    finally:
        env.close()
    return seen


@pytest.mark.parametrize("task_id", first_of_each(MINIGRID_IDS))  # per env type: sampling.py
def test_mission_id_is_envpools(task_id):
    """EnvPool's mission_id for the same mission text (measured: its envs are not seeded as
    minigrid's, so the missions are matched, not the seeds): 0 for the envs whose mission_id
    never varies, an index of the mission's placeholders for Fetch, GoToDoor, GoToObject,
    PutNear and UnlockPickup."""
    # A WFC id has one mission and makes a level per reset (96 would take 15 s): one round.
    rounds = 1 if task_id.startswith("MiniGrid-WFC-") else 6
    ours = mission_ids(envfleet, task_id, rounds)
    theirs = mission_ids(envpool, task_id, rounds)
    assert all(len(ids) == 1 for ids in ours.values()), ours
    common = set(ours) & set(theirs)
    assert common, (sorted(ours)[:3], sorted(theirs)[:3])
    for mission in common:
        assert ours[mission] == theirs[mission], (mission, ours[mission], theirs[mission])


# ---- options ----------------------------------------------------------------------------------

# (id, options): minigrid's constructor arguments under their own names (and EnvPool's), values
# other than the registered ones; each run is compared with minigrid's env made with them.
OPTION_CASES = [
    ("MiniGrid-Empty-5x5-v0", {"size": 7, "agent_start_pos": (2, 3), "agent_start_dir": 2}),
    ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": (-1, -1), "agent_start_dir": -1}),  # EnvPool's
    ("MiniGrid-Empty-8x8-v0", {"agent_view_size": 5, "see_through_walls": False}),
    ("MiniGrid-DoorKey-5x5-v0", {"size": 7, "agent_view_size": 9}),
    ("MiniGrid-DistShift1-v0", {"width": 11, "height": 8, "strip2_row": 4}),
    ("MiniGrid-DistShift2-v0", {"agent_start_pos": None}),
    ("MiniGrid-LavaCrossingS9N1-v0", {"size": 13, "num_crossings": 4, "obstacle_type": "Wall"}),
    ("MiniGrid-SimpleCrossingS9N1-v0", {"obstacle_type": "lava", "see_through_walls": True}),
    ("MiniGrid-LavaGapS5-v0", {"size": 8, "obstacle_type": "wall"}),
    ("MiniGrid-Dynamic-Obstacles-5x5-v0", {"size": 7, "n_obstacles": 9}),  # capped to 3
    ("MiniGrid-Dynamic-Obstacles-6x6-v0", {"agent_start_pos": None, "n_obstacles": 4}),
    ("MiniGrid-Fetch-5x5-N2-v0", {"numObjs": 5}),
    ("MiniGrid-Fetch-5x5-N2-v0", {"num_objs": 4}),  # EnvPool's name, over the registered numObjs
    ("MiniGrid-FourRooms-v0", {"agent_pos": (2, 3), "goal_pos": (15, 16)}),
    ("MiniGrid-GoToDoor-5x5-v0", {"size": 9}),
    ("MiniGrid-GoToObject-6x6-N2-v0", {"numObjs": 5, "size": 7}),
    ("MiniGrid-KeyCorridorS3R1-v0", {"obj_type": "key", "room_size": 5, "num_rows": 2}),
    ("MiniGrid-KeyCorridorS3R3-v0", {"obj_type": "box"}),
    ("MiniGrid-LockedRoom-v0", {"size": 13}),
    ("MiniGrid-MemoryS7-v0", {"size": 9, "random_length": True}),
    ("MiniGrid-MultiRoom-N2-S4-v0", {"minNumRooms": 2, "maxNumRooms": 4, "maxRoomSize": 6}),
    ("MiniGrid-MultiRoom-N6-v0", {"min_num_rooms": 3, "max_num_rooms": 3, "max_room_size": 5}),
    ("MiniGrid-MultiRoom-N2-S4-v0", {"width": 17, "height": 17}),
    ("MiniGrid-ObstructedMaze-Full-v0", {"agent_room": (0, 1), "num_quarters": 3}),
    ("MiniGrid-ObstructedMaze-Full-v1", {"agent_room": (2, 2), "num_quarters": 2}),
    ("MiniGrid-ObstructedMaze-1Dlhb-v0", {"key_in_box": False, "blocked": True}),
    ("MiniGrid-PutNear-8x8-N3-v0", {"numObjs": 4, "size": 9}),
    ("MiniGrid-RedBlueDoors-6x6-v0", {"size": 5}),
    ("MiniGrid-Unlock-v0", {"max_steps": 30, "agent_view_size": 3}),
    # WFC (issue #32): WFCEnv's arguments, and EnvPool's wfc_preset over the registered
    # wfc_config.
    ("MiniGrid-WFC-MazeSimple-v0", {"size": 11, "ensure_connected": False}),
    ("MiniGrid-WFC-MazeSimple-v0", {"wfc_preset": "ObstaclesHogs3", "size": 9}),
    (
        "MiniGrid-WFC-RoomsFabric-v0",
        {
            "wfc_config": "ObstaclesAngular",
            "size": 15,
            "max_steps": 30,
            "see_through_walls": True,
            "agent_view_size": 5,
        },
    ),
]


def minigrid_options(options: dict) -> dict:
    """The arguments minigrid takes for envfleet's ``options``: EnvPool's names renamed, its
    (-1, -1) start as None (LavaGap's obstacle name becomes its class in reference_env)."""
    renamed = {"num_objs": "numObjs", "min_num_rooms": "minNumRooms"}
    renamed |= {"max_num_rooms": "maxNumRooms", "max_room_size": "maxRoomSize"}
    out = {renamed.get(k, k): v for k, v in options.items()}
    if out.get("agent_start_pos") == (-1, -1):
        out["agent_start_pos"] = None
        out.pop("agent_start_dir")
    return out


@pytest.mark.parametrize(("task_id", "options"), OPTION_CASES, ids=str)
def test_options_match_minigrids_arguments(reference, task_id, options):
    run_aligned(
        task_id,
        seed=31,
        steps=150,
        num_envs=2,
        policy=curious,
        reference_options=minigrid_options(options),
        **options,
    )


@pytest.mark.parametrize(
    ("task_id", "options", "words"),
    [
        ("MiniGrid-LavaCrossingS9N1-v0", {"obstacle_type": "mud"}, ["'mud'", "'lava', 'wall'"]),
        ("MiniGrid-LavaGapS5-v0", {"obstacle_type": "Door"}, ["obstacle_type"]),
        ("MiniGrid-LavaCrossingS9N1-v0", {"size": 10}, ["size must be odd"]),
        ("MiniGrid-MemoryS7-v0", {"size": 8}, ["size must be odd"]),
        ("MiniGrid-KeyCorridorS3R1-v0", {"obj_type": "door"}, ["obj_type", "'key', 'ball'"]),
        ("MiniGrid-Empty-5x5-v0", {"agent_view_size": 4}, ["agent_view_size must be odd"]),
        ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": (5, 1)}, ["agent_start_pos"]),
        ("MiniGrid-Empty-5x5-v0", {"agent_start_pos": (1, 1, 1)}, ["agent_start_pos"]),
        ("MiniGrid-FourRooms-v0", {"goal_pos": (1.5, 2)}, ["goal_pos"]),
        ("MiniGrid-ObstructedMaze-2Q-v0", {"agent_room": (3, 1)}, ["agent_room"]),
        ("MiniGrid-MultiRoom-N6-v0", {"maxNumRooms": 2}, ["maxNumRooms must be >= minNumRooms"]),
        ("MiniGrid-Fetch-5x5-N2-v0", {"numObjs": 9}, ["numObjs (9) leaves no room"]),
        ("MiniGrid-GoToObject-6x6-N2-v0", {"num_objs": 19}, ["num_objs must be at most"]),
        ("MiniGrid-Empty-5x5-v0", {"obs_wrapper": "ImgObsWrapper"}, ["obs_wrapper", "FullyObs"]),
        ("MiniGrid-Empty-16x16-v0", {"tile_size": 1025}, ["tile_size"]),
        ("MiniGrid-FourRooms-v0", {"tile_size": 1000}, ["tile_size 1000 makes frames"]),
        ("MiniGrid-Empty-16x16-v0", {"obs_wrapper": "RGBImgObsWrapper", "obs_tile_size": 1025},
         ["obs_tile_size"]),
        ("MiniGrid-Empty-5x5-v0", {"max_steps": 0}, ["max_steps"]),
        ("MiniGrid-WFC-MazeSimple-v0", {"wfc_config": "Maze"},
         ["wfc_config 'Maze'", "'MazeSimple', 'DungeonMazeScaled'", "'ObstaclesHogs3'"]),
        ("MiniGrid-WFC-MazeSimple-v0", {"wfc_preset": "Spirals"}, ["wfc_preset 'Spirals'"]),
        ("MiniGrid-WFC-MazeSimple-v0", {"size": 2}, ["size"]),
    ],
)  # fmt: skip
def test_bad_options_raise_naming_them(task_id, options, words):
    with pytest.raises(ValueError) as err:
        envfleet.make_spec(task_id, **options)
    for word in words:
        assert word in str(err.value), str(err.value)


def test_a_type_without_its_required_option_says_which(monkeypatch):
    """LavaGapEnv and MultiRoomEnv have required arguments (size; minNumRooms, maxNumRooms):
    an id registered without them is refused, naming them."""
    monkeypatch.setattr(registry, "_registry", dict(registry._registry))
    registry.register("MyLavaGap-v0", "MiniGridLavaGap")
    registry.register("MyMultiRoom-v0", "MiniGridMultiRoom", maxNumRooms=3)
    with pytest.raises(ValueError, match="needs the option size"):
        envfleet.make_spec("MyLavaGap-v0")
    with pytest.raises(ValueError, match="needs the option minNumRooms"):
        envfleet.make_spec("MyMultiRoom-v0")
    assert envfleet.make_spec("MyLavaGap-v0", size=9).max_episode_steps == 4 * 81


# ---- the env's own truncation -----------------------------------------------------------------


def turning(env, steps: int):
    """(truncated, elapsed_step) of env 0 over `steps` left turns (no episode can end but by
    its time limit)."""
    out = []
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(np.zeros(env.config.num_envs, np.int64))
        assert not terminated.any()
        out.append((bool(truncated[0]), int(info["elapsed_step"][0])))
    return out


def test_the_time_limit_follows_the_options():
    """minigrid registers no time limit: its envs truncate at max_steps, whose default follows
    the options (4 * size**2 for Empty); so does the pool's max_episode_steps."""
    assert envfleet.make_spec("MiniGrid-Empty-5x5-v0").max_episode_steps == 100
    assert envfleet.make_spec("MiniGrid-Empty-5x5-v0", size=10).max_episode_steps == 400
    assert envfleet.make_spec("MiniGrid-Empty-5x5-v0", max_steps=7).max_episode_steps == 7
    spec = envfleet.make_spec("MiniGrid-Empty-5x5-v0", max_episode_steps=3)
    assert spec.max_episode_steps == 3  # the caller's limit, below the env's own
    spec = envfleet.make_spec(
        "MiniGrid-Empty-5x5-v0", num_envs=2, per_env_options=[{}, {"max_steps": 300}]
    )
    assert spec.max_episode_steps == 300  # the largest of the envs' own


def test_the_env_truncates_itself_whatever_the_pools_limit():
    env = envfleet.make("MiniGrid-Empty-5x5-v0", num_envs=1, max_steps=4, max_episode_steps=0)
    try:
        env.reset()
        assert turning(env, 6) == [(False, 1), (False, 2), (False, 3), (True, 4), (False, 0),
                                   (False, 1)]  # fmt: skip
    finally:
        env.close()
    env = envfleet.make("MiniGrid-Empty-5x5-v0", num_envs=1, max_steps=10, max_episode_steps=2)
    try:
        env.reset()
        assert turning(env, 3) == [(False, 1), (True, 2), (False, 0)]
    finally:
        env.close()


def test_envs_with_their_own_limits_share_a_pool():
    env = envfleet.make(
        "MiniGrid-Empty-5x5-v0",
        num_envs=2,
        per_env_options=[{"max_steps": 2}, {"max_steps": 3}],
        conventions="gymnasium",
    )
    try:
        env.reset()
        flags = [tuple(env.step(np.zeros(2, np.int64))[3].tolist()) for _ in range(4)]
        assert flags == [(False, False), (True, False), (False, True), (False, False)]
    finally:
        env.close()


def test_async_pools_match_minigrid_per_env(reference):
    """Async mode (batch_size < num_envs, two threads): each env's results are the reference's
    for its seed and its own actions, whichever batch they come back in."""
    for task_id in ("MiniGrid-DoorKey-6x6-v0", "MiniGrid-Dynamic-Obstacles-6x6-v0"):
        check_async_pool(task_id, 300, {"max_steps": 15})
