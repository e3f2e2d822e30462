"""MiniGrid task ids (minigrid 3.2.0's grid worlds, EnvPool 1.2.5's ids for them), built by
envfleet._minigrid (C++ ports in cpp/families/minigrid/, no engine).

Each id is registered with the constructor arguments minigrid 3.2.0 registers it with
(``minigrid/__init__.py``), under minigrid's names (``numObjs``, ``minNumRooms``...; the
envs also accept EnvPool's names, ``num_objs``, ``min_num_rooms``..., which win when given).
minigrid registers no time limit: its envs truncate themselves when ``step_count`` reaches
``max_steps``, an option whose default is each class's own formula (``4 * size**2`` for
Empty). So do the ports (``Env::kTruncates``), and the ids here are registered without
``max_episode_steps``: a pool's limit is the env's own ``max_steps`` for the options it is
made with (the spec's ``time_limit``), which for the registered options is EnvPool's
``max_episode_steps``. ``MiniGrid-MultiRoom-N4-S5-v0`` has six rooms, as minigrid 3.2.0 keeps
it ("legacy ID"; EnvPool the same).
"""

from __future__ import annotations

import numpy as np

from envfleet.registry import Family, register

# The envs are compiled into the module: nothing to install beyond envfleet itself.
MINIGRID = Family("minigrid", module="envfleet._minigrid", envpool_package="envpool.minigrid")


def _maze_options(agent_room, key_in_box, blocked, num_quarters, num_rooms_visited) -> dict:
    """ObstructedMaze_Full's arguments, as minigrid/__init__.py registers them."""
    return {
        "agent_room": agent_room,
        "key_in_box": key_in_box,
        "blocked": blocked,
        "num_quarters": num_quarters,
        "num_rooms_visited": num_rooms_visited,
    }


# id: (env type, options), as minigrid/__init__.py registers them.
TASKS: dict[str, tuple[str, dict]] = {
    "MiniGrid-Empty-5x5-v0": ("MiniGridEmpty", {"size": 5}),
    "MiniGrid-Empty-6x6-v0": ("MiniGridEmpty", {"size": 6}),
    "MiniGrid-Empty-8x8-v0": ("MiniGridEmpty", {}),
    "MiniGrid-Empty-16x16-v0": ("MiniGridEmpty", {"size": 16}),
    "MiniGrid-Empty-Random-5x5-v0": ("MiniGridEmpty", {"size": 5, "agent_start_pos": None}),
    "MiniGrid-Empty-Random-6x6-v0": ("MiniGridEmpty", {"size": 6, "agent_start_pos": None}),
    "MiniGrid-DoorKey-5x5-v0": ("MiniGridDoorKey", {"size": 5}),
    "MiniGrid-DoorKey-6x6-v0": ("MiniGridDoorKey", {"size": 6}),
    "MiniGrid-DoorKey-8x8-v0": ("MiniGridDoorKey", {"size": 8}),
    "MiniGrid-DoorKey-16x16-v0": ("MiniGridDoorKey", {"size": 16}),
    "MiniGrid-DistShift1-v0": ("MiniGridDistShift", {"strip2_row": 2}),
    "MiniGrid-DistShift2-v0": ("MiniGridDistShift", {"strip2_row": 5}),
    "MiniGrid-LavaCrossingS9N1-v0": ("MiniGridCrossing", {"size": 9, "num_crossings": 1}),
    "MiniGrid-LavaCrossingS9N2-v0": ("MiniGridCrossing", {"size": 9, "num_crossings": 2}),
    "MiniGrid-LavaCrossingS9N3-v0": ("MiniGridCrossing", {"size": 9, "num_crossings": 3}),
    "MiniGrid-LavaCrossingS11N5-v0": ("MiniGridCrossing", {"size": 11, "num_crossings": 5}),
    **{
        f"MiniGrid-SimpleCrossingS{size}N{n}-v0": (
            "MiniGridCrossing",
            {"size": size, "num_crossings": n, "obstacle_type": "wall"},
        )
        for size, n in ((9, 1), (9, 2), (9, 3), (11, 5))
    },
    "MiniGrid-LavaGapS5-v0": ("MiniGridLavaGap", {"size": 5}),
    "MiniGrid-LavaGapS6-v0": ("MiniGridLavaGap", {"size": 6}),
    "MiniGrid-LavaGapS7-v0": ("MiniGridLavaGap", {"size": 7}),
    "MiniGrid-Dynamic-Obstacles-5x5-v0": (
        "MiniGridDynamicObstacles",
        {"size": 5, "n_obstacles": 2},
    ),
    "MiniGrid-Dynamic-Obstacles-Random-5x5-v0": (
        "MiniGridDynamicObstacles",
        {"size": 5, "agent_start_pos": None, "n_obstacles": 2},
    ),
    "MiniGrid-Dynamic-Obstacles-6x6-v0": (
        "MiniGridDynamicObstacles",
        {"size": 6, "n_obstacles": 3},
    ),
    "MiniGrid-Dynamic-Obstacles-Random-6x6-v0": (
        "MiniGridDynamicObstacles",
        {"size": 6, "agent_start_pos": None, "n_obstacles": 3},
    ),
    "MiniGrid-Dynamic-Obstacles-8x8-v0": ("MiniGridDynamicObstacles", {}),
    "MiniGrid-Dynamic-Obstacles-16x16-v0": (
        "MiniGridDynamicObstacles",
        {"size": 16, "n_obstacles": 8},
    ),
    "MiniGrid-Fetch-5x5-N2-v0": ("MiniGridFetch", {"size": 5, "numObjs": 2}),
    "MiniGrid-Fetch-6x6-N2-v0": ("MiniGridFetch", {"size": 6, "numObjs": 2}),
    "MiniGrid-Fetch-8x8-N3-v0": ("MiniGridFetch", {}),
    "MiniGrid-FourRooms-v0": ("MiniGridFourRooms", {}),
    "MiniGrid-GoToDoor-5x5-v0": ("MiniGridGoToDoor", {}),
    "MiniGrid-GoToDoor-6x6-v0": ("MiniGridGoToDoor", {"size": 6}),
    "MiniGrid-GoToDoor-8x8-v0": ("MiniGridGoToDoor", {"size": 8}),
    "MiniGrid-GoToObject-6x6-N2-v0": ("MiniGridGoToObject", {}),
    "MiniGrid-GoToObject-8x8-N2-v0": ("MiniGridGoToObject", {"size": 8, "numObjs": 2}),
    **{
        f"MiniGrid-KeyCorridorS{room_size}R{rows}-v0": (
            "MiniGridKeyCorridor",
            {"room_size": room_size, "num_rows": rows},
        )
        for room_size, rows in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))
    },
    "MiniGrid-LockedRoom-v0": ("MiniGridLockedRoom", {}),
    "MiniGrid-MemoryS17Random-v0": ("MiniGridMemory", {"size": 17, "random_length": True}),
    "MiniGrid-MemoryS13Random-v0": ("MiniGridMemory", {"size": 13, "random_length": True}),
    "MiniGrid-MemoryS13-v0": ("MiniGridMemory", {"size": 13}),
    "MiniGrid-MemoryS11-v0": ("MiniGridMemory", {"size": 11}),
    "MiniGrid-MemoryS9-v0": ("MiniGridMemory", {"size": 9}),
    "MiniGrid-MemoryS7-v0": ("MiniGridMemory", {"size": 7}),
    "MiniGrid-MultiRoom-N2-S4-v0": (
        "MiniGridMultiRoom",
        {"minNumRooms": 2, "maxNumRooms": 2, "maxRoomSize": 4},
    ),
    # minigrid 3.2.0: "kept for backwards compatibility; this legacy ID is configured for 6
    # rooms" (EnvPool 1.2.5 registers it so too).
    "MiniGrid-MultiRoom-N4-S5-v0": (
        "MiniGridMultiRoom",
        {"minNumRooms": 6, "maxNumRooms": 6, "maxRoomSize": 5},
    ),
    "MiniGrid-MultiRoom-N6-v0": ("MiniGridMultiRoom", {"minNumRooms": 6, "maxNumRooms": 6}),
    "MiniGrid-ObstructedMaze-1Dl-v0": (
        "MiniGridObstructedMaze1Dlhb",
        {"key_in_box": False, "blocked": False},
    ),
    "MiniGrid-ObstructedMaze-1Dlh-v0": (
        "MiniGridObstructedMaze1Dlhb",
        {"key_in_box": True, "blocked": False},
    ),
    "MiniGrid-ObstructedMaze-1Dlhb-v0": ("MiniGridObstructedMaze1Dlhb", {}),
    **{
        task_id: (env_type, _maze)
        for env_type, suffix in (
            ("MiniGridObstructedMazeFull", "v0"),
            ("MiniGridObstructedMazeFullV1", "v1"),
        )
        for name, _maze in {
            "2Dl": _maze_options((2, 1), False, False, 1, 4),
            "2Dlh": _maze_options((2, 1), True, False, 1, 4),
            "2Dlhb": _maze_options((2, 1), True, True, 1, 4),
            "1Q": _maze_options((1, 1), True, True, 1, 5),
            "2Q": _maze_options((2, 1), True, True, 2, 11),
            "Full": {},
        }.items()
        if suffix == "v0" or name in ("2Dlhb", "1Q", "2Q", "Full")
        for task_id in [f"MiniGrid-ObstructedMaze-{name}-{suffix}"]
    },
    "MiniGrid-Playground-v0": ("MiniGridPlayground", {}),
    "MiniGrid-PutNear-6x6-N2-v0": ("MiniGridPutNear", {}),
    "MiniGrid-PutNear-8x8-N3-v0": ("MiniGridPutNear", {"size": 8, "numObjs": 3}),
    "MiniGrid-RedBlueDoors-6x6-v0": ("MiniGridRedBlueDoors", {"size": 6}),
    "MiniGrid-RedBlueDoors-8x8-v0": ("MiniGridRedBlueDoors", {}),
    "MiniGrid-Unlock-v0": ("MiniGridUnlock", {}),
    "MiniGrid-UnlockPickup-v0": ("MiniGridUnlockPickup", {}),
    "MiniGrid-BlockedUnlockPickup-v0": ("MiniGridBlockedUnlockPickup", {}),
}

# ---- WFC (issue #32) ---------------------------------------------------------------------------
# minigrid's WFC_PRESETS (minigrid/envs/wfc/config.py), registered by register_wfc_presets with
# {"wfc_config": name}; the env's max_steps defaults to size * 20 (500, EnvPool's limit).
WFC_PRESETS = (
    "MazeSimple",
    "DungeonMazeScaled",
    "RoomsFabric",
    "ObstaclesBlackdots",
    "ObstaclesAngular",
    "ObstaclesHogs3",
)
TASKS.update(
    {f"MiniGrid-WFC-{name}-v0": ("MiniGridWFC", {"wfc_config": name}) for name in WFC_PRESETS}
)
# ---- end of WFC ---------------------------------------------------------------------------------

for _task_id, (_type, _options) in TASKS.items():
    register(_task_id, _type, family=MINIGRID, **_options)

# ---- BabyAI ----------------------------------------------------------------------------------
# minigrid 3.2.0's BabyAI levels (minigrid/envs/babyai/), EnvPool 1.2.5's BabyAI-* ids, ported in
# cpp/families/minigrid/babyai/ (one env type per level class, LevelGen for the levels that are
# its arguments). Registered with minigrid's arguments, as minigrid/__init__.py registers them;
# no max_episode_steps (EnvPool's 0): each episode's own max_steps ends it (the levels without
# a fixed limit draw it from their instructions).


def _levelgen(**options) -> tuple[str, dict]:
    """A LevelGen level: LevelGen's arguments as the level's class passes them."""
    return ("BabyAILevelGen", options)


BABYAI_TASKS: dict[str, tuple[str, dict]] = {
    # goto.py
    "BabyAI-GoToRedBallGrey-v0": ("BabyAIGoToRedBallGrey", {}),
    "BabyAI-GoToRedBall-v0": ("BabyAIGoToRedBall", {}),
    "BabyAI-GoToRedBallNoDists-v0": ("BabyAIGoToRedBall", {"room_size": 8, "num_dists": 0}),
    "BabyAI-GoToObj-v0": ("BabyAIGoToObj", {}),
    "BabyAI-GoToObjS4-v0": ("BabyAIGoToObj", {"room_size": 4}),
    "BabyAI-GoToObjS6-v1": ("BabyAIGoToObj", {"room_size": 6}),
    "BabyAI-GoToLocal-v0": ("BabyAIGoToLocal", {}),
    **{
        f"BabyAI-GoToLocalS{size}N{n}-v0": ("BabyAIGoToLocal", {"room_size": size, "num_dists": n})
        for size, n in ((5, 2), (6, 2), (6, 3), (6, 4), (7, 4), (7, 5))
        + tuple((8, n) for n in range(2, 8))
    },
    "BabyAI-GoTo-v0": ("BabyAIGoTo", {}),
    "BabyAI-GoToOpen-v0": ("BabyAIGoTo", {"doors_open": True}),
    "BabyAI-GoToObjMaze-v0": ("BabyAIGoTo", {"num_dists": 1, "doors_open": False}),
    "BabyAI-GoToObjMazeOpen-v0": ("BabyAIGoTo", {"num_dists": 1, "doors_open": True}),
    "BabyAI-GoToObjMazeS4R2-v0": (
        "BabyAIGoTo",
        {"num_dists": 1, "room_size": 4, "num_rows": 2, "num_cols": 2},
    ),
    **{
        f"BabyAI-GoToObjMazeS{size}-v0": ("BabyAIGoTo", {"num_dists": 1, "room_size": size})
        for size in (4, 5, 6, 7)
    },
    "BabyAI-GoToImpUnlock-v0": ("BabyAIGoToImpUnlock", {}),
    "BabyAI-GoToSeq-v0": _levelgen(
        action_kinds=["goto"], locked_room_prob=0.0, locations=False, unblocking=False
    ),
    "BabyAI-GoToSeqS5R2-v0": _levelgen(
        room_size=5,
        num_rows=2,
        num_cols=2,
        num_dists=4,
        action_kinds=["goto"],
        locked_room_prob=0.0,
        locations=False,
        unblocking=False,
    ),
    "BabyAI-GoToRedBlueBall-v0": ("BabyAIGoToRedBlueBall", {}),
    "BabyAI-GoToDoor-v0": ("BabyAIGoToDoor", {}),
    "BabyAI-GoToObjDoor-v0": ("BabyAIGoToObjDoor", {}),
    # open.py
    "BabyAI-Open-v0": ("BabyAIOpen", {}),
    "BabyAI-OpenRedDoor-v0": ("BabyAIOpenRedDoor", {}),
    "BabyAI-OpenDoor-v0": ("BabyAIOpenDoor", {}),
    "BabyAI-OpenDoorDebug-v0": ("BabyAIOpenDoor", {"debug": True, "select_by": None}),
    "BabyAI-OpenDoorColor-v0": ("BabyAIOpenDoor", {"select_by": "color"}),
    "BabyAI-OpenDoorLoc-v0": ("BabyAIOpenDoor", {"select_by": "loc"}),
    "BabyAI-OpenTwoDoors-v0": ("BabyAIOpenTwoDoors", {}),
    "BabyAI-OpenRedBlueDoors-v0": (
        "BabyAIOpenTwoDoors",
        {"first_color": "red", "second_color": "blue"},
    ),
    "BabyAI-OpenRedBlueDoorsDebug-v0": (
        "BabyAIOpenTwoDoors",
        {"first_color": "red", "second_color": "blue", "strict": True},
    ),
    "BabyAI-OpenDoorsOrderN2-v0": ("BabyAIOpenDoorsOrder", {"num_doors": 2}),
    "BabyAI-OpenDoorsOrderN4-v0": ("BabyAIOpenDoorsOrder", {"num_doors": 4}),
    "BabyAI-OpenDoorsOrderN2Debug-v0": ("BabyAIOpenDoorsOrder", {"debug": True, "num_doors": 2}),
    "BabyAI-OpenDoorsOrderN4Debug-v0": ("BabyAIOpenDoorsOrder", {"debug": True, "num_doors": 4}),
    # pickup.py
    "BabyAI-Pickup-v0": ("BabyAIPickup", {}),
    "BabyAI-UnblockPickup-v0": ("BabyAIUnblockPickup", {}),
    "BabyAI-PickupLoc-v0": _levelgen(
        action_kinds=["pickup"],
        instr_kinds=["action"],
        num_rows=1,
        num_cols=1,
        num_dists=8,
        locked_room_prob=0.0,
        locations=True,
        unblocking=False,
    ),
    "BabyAI-PickupDist-v0": ("BabyAIPickupDist", {}),
    "BabyAI-PickupDistDebug-v0": ("BabyAIPickupDist", {"debug": True}),
    "BabyAI-PickupAbove-v0": ("BabyAIPickupAbove", {}),
    # putnext.py
    "BabyAI-PutNextLocal-v0": ("BabyAIPutNextLocal", {}),
    "BabyAI-PutNextLocalS5N3-v0": ("BabyAIPutNextLocal", {"room_size": 5, "num_objs": 3}),
    "BabyAI-PutNextLocalS6N4-v0": ("BabyAIPutNextLocal", {"room_size": 6, "num_objs": 4}),
    **{
        f"BabyAI-PutNextS{size}N{n}{'Carrying' if carrying else ''}-v0": (
            "BabyAIPutNext",
            {
                "room_size": size,
                "objs_per_room": n,
                **({"start_carrying": True} if carrying else {}),
            },
        )
        for size, n, carrying in (
            (4, 1, False),
            (5, 2, False),
            (5, 1, False),
            (6, 3, False),
            (7, 4, False),
            (5, 2, True),
            (6, 3, True),
            (7, 4, True),
        )
    },
    # unlock.py
    "BabyAI-Unlock-v0": ("BabyAIUnlock", {}),
    "BabyAI-UnlockLocal-v0": ("BabyAIUnlockLocal", {}),
    "BabyAI-UnlockLocalDist-v0": ("BabyAIUnlockLocal", {"distractors": True}),
    "BabyAI-KeyInBox-v0": ("BabyAIKeyInBox", {}),
    "BabyAI-UnlockPickup-v0": ("BabyAIUnlockPickup", {}),
    "BabyAI-UnlockPickupDist-v0": ("BabyAIUnlockPickup", {"distractors": True}),
    "BabyAI-BlockedUnlockPickup-v0": ("BabyAIBlockedUnlockPickup", {}),
    "BabyAI-UnlockToUnlock-v0": ("BabyAIUnlockToUnlock", {}),
    # other.py
    "BabyAI-ActionObjDoor-v0": ("BabyAIActionObjDoor", {}),
    "BabyAI-FindObjS5-v0": ("BabyAIFindObj", {}),
    "BabyAI-FindObjS6-v0": ("BabyAIFindObj", {"room_size": 6}),
    "BabyAI-FindObjS7-v0": ("BabyAIFindObj", {"room_size": 7}),
    "BabyAI-KeyCorridor-v0": ("BabyAIKeyCorridor", {}),
    **{
        f"BabyAI-KeyCorridorS{size}R{rows}-v0": (
            "BabyAIKeyCorridor",
            {"room_size": size, "num_rows": rows},
        )
        for size, rows in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))
    },
    **{
        f"BabyAI-OneRoomS{size}-v0": ("BabyAIOneRoom", {"room_size": size})
        for size in (8, 12, 16, 20)
    },
    "BabyAI-MoveTwoAcrossS5N2-v0": ("BabyAIMoveTwoAcross", {"room_size": 5, "objs_per_room": 2}),
    "BabyAI-MoveTwoAcrossS8N9-v0": ("BabyAIMoveTwoAcross", {"room_size": 8, "objs_per_room": 9}),
    # synth.py
    "BabyAI-Synth-v0": _levelgen(
        instr_kinds=["action"], locations=False, unblocking=True, implicit_unlock=False
    ),
    "BabyAI-SynthS5R2-v0": _levelgen(
        room_size=5,
        num_rows=2,
        instr_kinds=["action"],
        locations=False,
        unblocking=True,
        implicit_unlock=False,
    ),
    "BabyAI-SynthLoc-v0": _levelgen(
        instr_kinds=["action"], locations=True, unblocking=True, implicit_unlock=False
    ),
    "BabyAI-SynthSeq-v0": _levelgen(locations=True, unblocking=True, implicit_unlock=False),
    "BabyAI-MiniBossLevel-v0": _levelgen(
        num_cols=2, num_rows=2, room_size=5, num_dists=7, locked_room_prob=0.25
    ),
    "BabyAI-BossLevel-v0": _levelgen(),
    "BabyAI-BossLevelNoUnlock-v0": _levelgen(locked_room_prob=0.0, implicit_unlock=False),
}

for _task_id, (_type, _options) in BABYAI_TASKS.items():
    register(_task_id, _type, family=MINIGRID, **_options)


def decode_mission(mission: np.ndarray) -> str | np.ndarray:
    """The mission text of ``mission`` observations (uint8 bytes, zero-padded to
    ``mission_bytes``): one row gives a ``str``, a batch an object array of ``str`` of its
    leading shape. EnvPool's ``envpool.minigrid.decode_mission``, with the same results."""
    rows = np.asarray(mission, dtype=np.uint8)
    if rows.ndim == 0:
        raise ValueError("mission must be an array of bytes, one row per env, got a scalar")
    if rows.ndim == 1:
        return _decode_row(rows)
    texts = [_decode_row(row) for row in rows.reshape(-1, rows.shape[-1])]
    out = np.empty(len(texts), dtype=object)
    out[:] = texts
    return out.reshape(rows.shape[:-1])


def _decode_row(row: np.ndarray) -> str:
    ends = np.flatnonzero(row == 0)
    return row[: ends[0] if ends.size else row.size].tobytes().decode("utf-8")
