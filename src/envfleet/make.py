"""``make`` and its front-end-specific variants (EnvPool's names and arguments)."""

from __future__ import annotations

from typing import Any

from envfleet.dm import DmEnvPool
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.registry import make_spec

ENV_TYPES = ("gymnasium", "gym", "dm")


def make(task_id: str, env_type: str = "gymnasium", **kwargs: Any):
    """Makes a pool of ``num_envs`` envs of ``task_id``.

    Pool options: ``num_envs=1``, ``batch_size=num_envs`` (smaller: async mode),
    ``num_threads=min(batch_size, cores)``, ``seed=42`` (env i uses seed + i) or one seed per
    env, ``max_episode_steps`` (the task's default), ``thread_affinity_offset=-1`` (>= 0 pins
    worker t to core offset + t), ``autoreset_mode="next_step" | "same_step" | "disabled"``.
    Any other keyword is an option of the env itself (``envfleet.make_spec`` lists them).
    ``env_type="gym"`` also takes ``legacy_api=True`` for the pre-0.26 gym API.
    """
    if env_type not in ENV_TYPES:
        raise ValueError(f"env_type must be one of {ENV_TYPES}, got {env_type!r}")
    legacy_api = kwargs.pop("legacy_api", False)
    if legacy_api and env_type != "gym":
        raise ValueError("legacy_api=True is an option of env_type='gym' only")
    spec = make_spec(task_id, **kwargs)
    if env_type == "gymnasium":
        return GymnasiumEnvPool(spec)
    if env_type == "gym":
        return GymEnvPool(spec, legacy_api=legacy_api)
    return DmEnvPool(spec)


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, env_type="gymnasium", **kwargs)``."""
    return make(task_id, env_type="gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any) -> GymEnvPool:
    """``make(task_id, env_type="gym", **kwargs)``."""
    return make(task_id, env_type="gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DmEnvPool:
    """``make(task_id, env_type="dm", **kwargs)``."""
    return make(task_id, env_type="dm", **kwargs)
