"""envfleet's task ids in Gymnasium's registry, as ``envfleet/<task id>``.

``import envfleet`` registers every id (and ``envfleet.register`` each new one), the scheme
ale-py uses for ``ALE/...``: ``gymnasium.make_vec("envfleet/CartPole-v1", num_envs=8)`` then
returns an envfleet pool that follows Gymnasium's VectorEnv conventions
(``conventions="gymnasium"``): the path of code written for Gymnasium's vector API, RLlib's
included. ``gymnasium.make`` of one env is refused with a pointer to ``make_vec``: envfleet's
envs run in pools.

Gymnasium's ids have one namespace at most ("[namespace/]name-vN"), so an id that holds a "/"
itself is registered with its "/" made a "-" (:func:`gymnasium_id`:
``envfleet/MetaWorld-PickPlace-v3`` for ``MetaWorld/PickPlace-v3``), except aliases
(EnvPool's ``phys2d/`` and ``tabular/`` names), which ``make_vec`` takes by the id they alias.
"""

from __future__ import annotations

from typing import Any

import gymnasium

NAMESPACE = "envfleet"


def make_vector_env(task_id: str, num_envs: int = 1, **kwargs: Any):
    """``gymnasium.make_vec``'s vector entry point: ``envfleet.make`` with Gymnasium's
    conventions."""
    from envfleet.make import make

    conventions = kwargs.pop("conventions", "gymnasium")
    if conventions != "gymnasium":
        raise ValueError(
            f"gymnasium.make_vec('{gymnasium_id(task_id)}') follows Gymnasium's VectorEnv "
            f"conventions; got conventions={conventions!r}: use envfleet.make for EnvPool's"
        )
    return make(task_id, "gymnasium", num_envs=num_envs, conventions="gymnasium", **kwargs)


def refuse_single_env(task_id: str, **kwargs: Any):
    """``gymnasium.make``'s entry point: envfleet has no single-env class."""
    raise gymnasium.error.Error(
        f"envfleet runs environments in pools: use gymnasium.make_vec('{gymnasium_id(task_id)}', "
        "num_envs=...) with its default vectorization_mode ('vector_entry_point'), or "
        "envfleet.make; gymnasium.make of one env, and make_vec's 'sync'/'async' modes (which "
        "wrap single envs in Gymnasium's own vector envs), are not offered"
    )


def gymnasium_id(task_id: str) -> str:
    """The Gymnasium id of an envfleet task: ``envfleet/<task id>``, a "/" in it made a "-"."""
    return f"{NAMESPACE}/{task_id.replace('/', '-')}"


def register_with_gymnasium(
    task_id: str,
    max_episode_steps: int | None,
    reward_threshold: float | None,
    alias: bool = False,
) -> None:
    """Registers :func:`gymnasium_id` of ``task_id`` in Gymnasium's registry (again when the
    task is re-registered, without Gymnasium's override warning). Aliases with a "/" are left
    out (``make_vec`` takes the id they alias)."""
    if alias and "/" in task_id:
        return
    gymnasium.registry.pop(gymnasium_id(task_id), None)
    gymnasium.register(
        id=gymnasium_id(task_id),
        entry_point=f"{__name__}:refuse_single_env",
        vector_entry_point=f"{__name__}:make_vector_env",
        max_episode_steps=max_episode_steps or None,
        reward_threshold=reward_threshold,
        kwargs={"task_id": task_id},
        # envfleet's pools enforce their own time limit and order; no Gymnasium wrapper.
        order_enforce=False,
        disable_env_checker=True,
    )
