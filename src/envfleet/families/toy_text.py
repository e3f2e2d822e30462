"""Toy text (C++ ports in cpp/families/toy_text/, built into envfleet._core), registered as
Gymnasium 1.4.0 registers them: ids, options, time limits and reward thresholds; and the ids
EnvPool 1.2.5 adds: NChain-v0 (gym 0.20's), Catch-v0 (bsuite's) and other names of
Gymnasium's tasks.

Frames (``render_mode="rgb_array"``) are drawn from the sprites of the installed gymnasium
package, which envfleet depends on: every id of Gymnasium's tasks gets
``assets_dir=ASSETS_DIR``, the package's ``envs/toy_text/img`` directory (found without
importing gymnasium). The C++ envs read the files the first time one of them renders. NChain
and Catch draw nothing, as their originals.
"""

from __future__ import annotations

from typing import Any

from envfleet import registry
from envfleet.families._assets import package_dir
from envfleet.registry import Family, register_alias

ASSETS_DIR = package_dir("gymnasium", "envs", "toy_text", "img")
TOY_TEXT = Family("toy_text", envpool_package="envpool.toy_text")


def register(task_id: str, env_type: str, max_episode_steps: int | None = None, **kwargs: Any):
    """:func:`envfleet.registry.register`, with the family and the sprite directory the id
    draws from."""
    registry.register(
        task_id, env_type, max_episode_steps, family=TOY_TEXT, assets_dir=ASSETS_DIR, **kwargs
    )


register(
    "FrozenLake-v1", "FrozenLake", max_episode_steps=100, reward_threshold=0.70, map_name="4x4"
)
register(
    "FrozenLake8x8-v1", "FrozenLake", max_episode_steps=200, reward_threshold=0.85, map_name="8x8"
)
register("Taxi-v4", "Taxi", max_episode_steps=200, reward_threshold=8)
# EnvPool's id. Gymnasium's v3 and v4 differ only in the is_rainy / fickle_passenger options
# (off by default), which v4 fixed; here both ids use v4's implementation.
register("Taxi-v3", "Taxi", max_episode_steps=200, reward_threshold=8)
register("CliffWalking-v1", "CliffWalking")
register("CliffWalkingSlippery-v1", "CliffWalking", is_slippery=True)
register("Blackjack-v1", "Blackjack", natural=False, sab=True)

# EnvPool's ids of tasks outside Gymnasium 1.4.0 (gym 0.20's NChain, bsuite's Catch), with
# EnvPool's time limits.
registry.register("NChain-v0", "NChain", max_episode_steps=1000)
registry.register("Catch-v0", "Catch")  # every episode ends after height - 1 steps

# EnvPool's other names of Gymnasium's tasks: CliffWalking-v1 only added the is_slippery option
# to v0, and in Gymnasium tabular/ names its JAX ports.
register_alias("CliffWalking-v0", "CliffWalking-v1")
register_alias("tabular/CliffWalking-v0", "CliffWalking-v1")
register_alias("tabular/Blackjack-v0", "Blackjack-v1")
