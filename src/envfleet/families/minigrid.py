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

from envfleet.registry import Family, register

# The envs are compiled into the module: nothing to install beyond envfleet itself.
MINIGRID = Family("minigrid", module="envfleet._minigrid")

# id: (env type, options), as minigrid/__init__.py registers them.
TASKS: dict[str, tuple[str, dict]] = {
    "MiniGrid-Empty-5x5-v0": ("MiniGridEmpty", {"size": 5}),
    "MiniGrid-Empty-Random-5x5-v0": ("MiniGridEmpty", {"size": 5, "agent_start_pos": None}),
    "MiniGrid-Empty-6x6-v0": ("MiniGridEmpty", {"size": 6}),
    "MiniGrid-Empty-Random-6x6-v0": ("MiniGridEmpty", {"size": 6, "agent_start_pos": None}),
    "MiniGrid-Empty-8x8-v0": ("MiniGridEmpty", {}),
    "MiniGrid-Empty-16x16-v0": ("MiniGridEmpty", {"size": 16}),
}

for _task_id, (_type, _options) in TASKS.items():
    register(_task_id, _type, family=MINIGRID, **_options)
