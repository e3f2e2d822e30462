"""Tianshou's EnvPool factories, building envfleet pools.

Tianshou's ``Collector`` takes an envfleet pool as it takes an EnvPool one (``len(pool)``,
``step(actions, env_ids)``, ``reset(env_id=...)``, one env's ``action_space`` and dict
infos are what it reads), so the low-level path needs nothing from here. Its high-level API
does: ``EnvFactoryRegistered(envpool_factory=EnvPoolFactory())`` builds its pools with
``import envpool`` inside Tianshou, so an ``import envfleet as envpool`` in the user's script
does not reach it. :class:`EnvfleetFactory` is that factory building envfleet pools, with
the same hooks (``_transform_task``, ``_transform_kwargs``) for subclasses.

Usage::

    from tianshou.highlevel.env import EnvFactoryRegistered, VectorEnvType
    from envfleet.integrations.tianshou import EnvfleetFactory

    factory = EnvFactoryRegistered(
        task="CartPole-v1", venv_type=VectorEnvType.DUMMY, envpool_factory=EnvfleetFactory()
    )
    envs = factory.create_envs(num_training_envs=8, num_test_envs=4, seed=0)
"""

from __future__ import annotations

from typing import Any

try:
    from tianshou.highlevel.env import EnvMode, EnvPoolFactory
except ImportError as error:  # pragma: no cover - the test extra installs Tianshou
    raise ImportError(
        "envfleet.integrations.tianshou needs Tianshou: pip install tianshou"
    ) from error

import envfleet
from envfleet.gymnasium_env import GymnasiumEnvPool

__all__ = ["EnvfleetFactory"]


class EnvfleetFactory(EnvPoolFactory):
    """Tianshou's ``EnvPoolFactory``, building envfleet pools (EnvPool's conventions, as
    Tianshou expects: one env's spaces, dict infos)."""

    def create_venv(
        self, task: str, num_envs: int, mode: EnvMode, seed: int, kwargs: dict[str, Any]
    ) -> GymnasiumEnvPool:
        return envfleet.make_gymnasium(
            self._transform_task(task),
            num_envs=num_envs,
            seed=seed,
            **self._transform_kwargs(kwargs, mode),
        )
