"""``make`` and its front-end-specific variants (EnvPool's names and arguments)."""

from __future__ import annotations

from typing import Any

from envfleet.dm import DmEnvPool
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool, GymnasiumVectorEnvPool
from envfleet.registry import make_spec
from envfleet.spec import Conventions

ENV_TYPES = ("gymnasium", "gym", "dm")
# The conventions each front end can follow besides EnvPool's (see spec.Conventions).
_OWN_CONVENTIONS = {
    "gymnasium": Conventions.GYMNASIUM,
    "gym": None,
    "dm": Conventions.DM_ENV,
}


def make(task_id: str, env_type: str = "gymnasium", **kwargs: Any):
    """Makes a pool of ``num_envs`` envs of ``task_id``.

    Pool options: ``num_envs=1``, ``batch_size=num_envs`` (smaller: async mode),
    ``num_threads=min(batch_size, cores)``, ``seed=42`` (env i uses seed + i) or one seed per
    env, ``max_episode_steps`` (the task's default), ``thread_affinity_offset=-1`` (>= 0 pins
    worker t to the (offset + t)-th CPU this thread may use),
    ``autoreset_mode="next_step" | "same_step" | "disabled"``,
    ``conventions="envpool"`` (EnvPool 1.2.5's; ``"gymnasium"`` for Gymnasium's VectorEnv
    contract with ``env_type="gymnasium"``, ``"dm_env"`` for float64 rewards and discounts
    with ``env_type="dm"``: see :class:`envfleet.spec.Conventions`). Any other keyword is an
    option of the env itself (``envfleet.make_spec`` lists them), given to every env;
    ``per_env_options=[{...}, ...]`` (one dict per env) changes env options for single envs
    (env i gets the keywords updated with ``per_env_options[i]``), provided every env keeps
    env 0's spaces.
    ``env_type="gym"`` also takes ``legacy_api=True`` for the pre-0.26 gym API.
    """
    return make_front_end(task_id, env_type, kwargs)


def make_front_end(task_id: str, env_type: str, kwargs: dict[str, Any], build_pool: Any = None):
    """``make``'s work: checks the arguments, makes the spec, and puts the front end of
    ``env_type`` over the core pool ``build_pool(spec)`` (None: a local C++ pool).
    envfleet.ray makes its pools spread over Ray actors through here."""
    kwargs = dict(kwargs)
    if env_type not in ENV_TYPES:
        raise ValueError(f"env_type must be one of {ENV_TYPES}, got {env_type!r}")
    legacy_api = kwargs.pop("legacy_api", False)
    if not isinstance(legacy_api, bool):
        raise TypeError(f"legacy_api must be a bool, got {legacy_api!r}")
    if legacy_api and env_type != "gym":
        raise ValueError("legacy_api=True is an option of env_type='gym' only")
    conventions = Conventions.parse(kwargs.get("conventions", Conventions.ENVPOOL))
    if conventions not in (Conventions.ENVPOOL, _OWN_CONVENTIONS[env_type]):
        valid = [c.value for c in (Conventions.ENVPOOL, _OWN_CONVENTIONS[env_type]) if c]
        raise ValueError(
            f"conventions={conventions.value!r} does not apply to env_type={env_type!r}; "
            f"valid: {valid}"
        )
    if legacy_api and conventions is not Conventions.ENVPOOL:
        raise ValueError("legacy_api=True follows EnvPool's conventions only")
    spec = make_spec(task_id, **kwargs)
    try:
        pool = None if build_pool is None else build_pool(spec)
        if env_type == "dm":
            return DmEnvPool(spec, pool)
        if legacy_api:
            return GymEnvPool(spec, pool)
        if spec.config.conventions is Conventions.GYMNASIUM:  # sync only (make_spec checks)
            return GymnasiumVectorEnvPool(spec, pool)
        return GymnasiumEnvPool(spec, pool)  # not a VectorEnv (see gymnasium_env.py)
    except (MemoryError, RuntimeError, ValueError) as exc:
        if type(exc) not in (MemoryError, RuntimeError, ValueError):
            raise
        # Building the envs failed (an engine's error, memory running out): say for which task.
        raise type(exc)(f"{task_id} (num_envs={spec.config.num_envs}): {exc}") from exc


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, env_type="gymnasium", **kwargs)``."""
    return make(task_id, env_type="gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, env_type="gym", **kwargs)``: the Gymnasium pool, as in EnvPool 1.2.5
    (``legacy_api=True``: the pre-0.26 gym API)."""
    return make(task_id, env_type="gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DmEnvPool:
    """``make(task_id, env_type="dm", **kwargs)``."""
    return make(task_id, env_type="dm", **kwargs)
