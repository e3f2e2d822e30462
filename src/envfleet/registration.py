"""``envpool.registration``: EnvPool's registry module, over envfleet's registry.

EnvPool's tests and examples import ``make``, ``make_gym``, ``make_dm``, ``make_gymnasium``,
``make_spec``, ``list_all_envs`` and ``register`` from here, and its registry object as
``registry``. They are envfleet's functions; ``registry`` offers them as methods, as EnvPool's
``EnvRegistry`` does. ``register`` is envfleet's (``register(task_id, env_type,
max_episode_steps=None, **options)``): EnvPool's takes the import paths of its own C++ classes,
which envfleet has not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from envfleet.make import make, make_dm, make_gym, make_gymnasium
from envfleet.registry import list_all_envs, make_spec, register, registration


class EnvRegistry:
    """EnvPool's registry object: every task id, and the calls that make them."""

    register = staticmethod(register)
    make = staticmethod(make)
    make_dm = staticmethod(make_dm)
    make_gym = staticmethod(make_gym)
    make_gymnasium = staticmethod(make_gymnasium)
    make_spec = staticmethod(make_spec)
    list_all_envs = staticmethod(list_all_envs)

    @property
    def specs(self) -> Mapping[str, tuple[str, str, dict[str, Any]]]:
        """``{task id: (import path, env type, options)}``, the shape of EnvPool's
        ``registry.specs`` (``(import path, spec class, options)``): EnvPool's import path for
        the id's family (``envpool.mujoco.gym``, which code written for EnvPool groups ids
        by; envfleet's module for a family EnvPool lacks), the env type's name, and the id's
        registered options."""
        out = {}
        for task_id in list_all_envs():
            reg = registration(task_id)
            path = reg.family.envpool_package or reg.family.module
            out[task_id] = (path, reg.env_type, dict(reg.options))
        return out

    def __repr__(self) -> str:
        return f"EnvRegistry({len(list_all_envs())} task ids)"


registry = EnvRegistry()

__all__ = [
    "EnvRegistry",
    "list_all_envs",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
    "register",
    "registry",
]
