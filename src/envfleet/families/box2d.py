"""Box2D task ids (Gymnasium 1.4.0's LunarLander and BipedalWalker, EnvPool 1.2.5's ids for
them), built by envfleet._box2d, which has Box2D 2.3 compiled in (cpp/families/box2d/box2d.cmake).

Gymnasium 1.4.0 registers the v3 ids; EnvPool 1.2.5 also lists ``LunarLander-v2`` and
``LunarLanderContinuous-v2``, which envfleet registers with the v3 dynamics (Gymnasium 1.4.0
no longer has v2: v3 builds a new world on every reset and widened the observation bounds).
``LunarLanderContinuous-v3`` and ``BipedalWalkerHardcore-v3`` are ``continuous=True`` and
``hardcore=True``, as Gymnasium registers them.
"""

from envfleet.registry import Family, register

# The engine is compiled into the module, so the extra installs nothing more: it exists so that
# a build without the family (ENVFLEET_BOX2D=OFF) names what is missing.
BOX2D = Family("box2d", module="envfleet._box2d", extra="box2d", envpool_package="envpool.box2d")

# id: (env type, max_episode_steps, reward_threshold, options), as gymnasium/envs/__init__.py
# registers them.
TASKS = {
    "LunarLander-v3": ("LunarLander", 1000, 200.0, {}),
    "LunarLanderContinuous-v3": ("LunarLander", 1000, 200.0, {"continuous": True}),
    "LunarLander-v2": ("LunarLander", 1000, 200.0, {}),
    "LunarLanderContinuous-v2": ("LunarLander", 1000, 200.0, {"continuous": True}),
    "BipedalWalker-v3": ("BipedalWalker", 1600, 300.0, {}),
    "BipedalWalkerHardcore-v3": ("BipedalWalker", 2000, 300.0, {"hardcore": True}),
    # CarRacing: Gymnasium 1.4.0 registers v3 only; EnvPool 1.2.5 also lists CarRacing-v2, which
    # runs the same v3 dynamics here (v3 ends a finished lap with terminated, not truncated).
    "CarRacing-v3": ("CarRacing", 1000, 900.0, {}),
    "CarRacing-v2": ("CarRacing", 1000, 900.0, {}),
}

for _task_id, (_type, _steps, _threshold, _options) in TASKS.items():
    register(
        _task_id,
        _type,
        family=BOX2D,
        max_episode_steps=_steps,
        reward_threshold=_threshold,
        **_options,
    )
