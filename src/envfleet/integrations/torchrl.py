"""TorchRL's ``MultiThreadedEnv`` over an envfleet pool.

TorchRL 0.14.1's ``MultiThreadedEnv`` and ``MultiThreadedEnvWrapper``
(``torchrl.envs.libs.envpool``) were written for EnvPool releases before 1.0. They fail on
EnvPool 1.2.5 itself, and on a plain ``import envfleet as envpool`` swap, at three points:

- They find their library by the name ``envpool``: a check at import that the package is
  installed, ``import envpool`` when building the pool, and an ``isinstance`` check against
  EnvPool's own pool class.
- They convert the pool's spaces under TorchRL's ``gym`` backend, which needs the old ``gym``
  package (``ModuleNotFoundError: No module named 'gym'``) and, where it is installed, has no
  converter for the Gymnasium spaces that EnvPool 1.x and envfleet declare
  (``KeyError: No conversion tool ... gymnasium Discrete``).
- They read reset observations through ``treevalue``, a package EnvPool no longer depends on.

The two subclasses here replace those three points and keep the rest of TorchRL's classes:
their specs, their ``step_and_maybe_reset`` (which relies on the pool's next-step autoreset,
envfleet's default and EnvPool's), and their seeding by rebuilding the pool.

Usage::

    from envfleet.integrations.torchrl import MultiThreadedEnv

    env = MultiThreadedEnv(8, "CartPole-v1", create_env_kwargs={"seed": 0})
    rollout = env.rollout(100, break_when_any_done=False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import torch
    from torchrl.data import Unbounded
    from torchrl.envs.common import _EnvWrapper
    from torchrl.envs.libs.envpool import MultiThreadedEnv as _TorchRLMultiThreadedEnv
    from torchrl.envs.libs.envpool import MultiThreadedEnvWrapper as _TorchRLWrapper
    from torchrl.envs.libs.gym import set_gym_backend
    from torchrl.envs.utils import _classproperty
except ImportError as error:  # pragma: no cover - the test extra installs TorchRL
    raise ImportError("envfleet.integrations.torchrl needs TorchRL: pip install torchrl") from error

import envfleet
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.spec import AutoresetMode

__all__ = ["MultiThreadedEnv", "MultiThreadedEnvWrapper"]


def _check_pool(pool: Any) -> None:
    """Raises unless ``pool`` is one TorchRL's classes can drive: they step every env at once
    (a sync pool), read ``(obs, info)`` from ``reset`` (not the pre-0.26 API), and skip the
    reset of a finished env because the pool resets it on its next step."""
    if not isinstance(pool, GymnasiumEnvPool) or isinstance(pool, GymEnvPool):
        raise TypeError(
            "env must be a pool of envfleet's Gymnasium front end "
            f"(envfleet.make(task_id, num_envs=n, ...)), got {pool!r}"
        )
    config = pool.config
    if pool.is_async:
        raise ValueError(
            "env must be a sync pool (batch_size == num_envs): TorchRL steps every env at "
            f"once, got batch_size={config.batch_size} for num_envs={config.num_envs}"
        )
    if config.autoreset_mode is not AutoresetMode.NEXT_STEP:
        raise ValueError(
            "env must use autoreset_mode='next_step': TorchRL lets the pool reset a finished "
            f"env on its next step, got {config.autoreset_mode.value!r}"
        )


class MultiThreadedEnvWrapper(_TorchRLWrapper):
    """TorchRL's ``MultiThreadedEnvWrapper`` around an existing envfleet pool ``env``.

    ``env`` is a sync pool of the Gymnasium front end with next-step autoreset (the defaults of
    ``envfleet.make``); the other keyword arguments are TorchRL's (``device``,
    ``frame_skip``, ...).
    """

    @_classproperty
    def lib(cls):
        return envfleet

    def __init__(self, env: GymnasiumEnvPool | None = None, **kwargs: Any):
        # TorchRL's __init__, less its check that the envpool package is installed.
        if env is not None:
            _check_pool(env)
            kwargs["env"] = env
            self.num_workers = env.config.num_envs
            self.batch_size = torch.Size([self.num_workers])
        _EnvWrapper.__init__(self, **kwargs)
        self.obs = self.observation_spec.zero()

    def _check_kwargs(self, kwargs: dict) -> None:
        if "env" not in kwargs:
            raise TypeError("MultiThreadedEnvWrapper needs an envfleet pool as env=")
        _check_pool(kwargs["env"])

    def _make_specs(self, env: GymnasiumEnvPool) -> None:
        # The pool's spaces are Gymnasium spaces: convert them with TorchRL's Gymnasium tools.
        with set_gym_backend("gymnasium"):
            self.action_spec = self._get_action_spec()
            output_spec = self._get_output_spec()
            self.observation_spec = output_spec["full_observation_spec"]
            self.reward_spec = output_spec["full_reward_spec"]
            self.done_spec = output_spec["full_done_spec"]

    def _get_reward_spec(self) -> Unbounded:
        # The pool's conventions set its reward dtype: float32 (EnvPool's) or float64.
        dtype = torch.as_tensor(np.zeros(0, self._env.config.conventions.reward_dtype)).dtype
        return Unbounded(device=self.device, shape=self.batch_size, dtype=dtype)

    def _transform_reset_output(self, envpool_output: tuple, reset_workers: Any):
        observation = self._treevalue_or_numpy_to_tensor_or_dict(envpool_output[0])
        if reset_workers is None:
            self.obs = self.observation_spec.zero()
            self.obs.update(observation)
        else:
            # self.obs may view the arrays of the last step's result, which the caller may
            # still hold: write the reset rows into a copy.
            self.obs = self.obs.clone()
            self.obs[reset_workers] = observation
        obs = self.obs.clone(False)
        obs.update(self.full_done_spec.zero())
        return obs

    def _treevalue_or_numpy_to_tensor_or_dict(self, x: Any) -> dict[str, torch.Tensor]:
        # A pool returns one array, or a dict of arrays for a Dict observation space.
        # torch.as_tensor shares the array's memory and keeps it alive, so the pool's output
        # block is not reused while the tensor lives.
        if isinstance(x, dict):
            return {key: torch.as_tensor(np.asarray(value)) for key, value in x.items()}
        return {"observation": torch.as_tensor(x)}


class MultiThreadedEnv(MultiThreadedEnvWrapper, _TorchRLMultiThreadedEnv):
    """TorchRL's ``MultiThreadedEnv`` running ``num_workers`` envs of envfleet's ``env_name``.

    ``create_env_kwargs`` go to ``envfleet.make`` (``seed``, ``max_episode_steps``, env
    options, ...); ``seed=`` of TorchRL's ``set_seed`` rebuilds the pool with that seed, as
    TorchRL does for EnvPool. ``ALE/`` prefixes are dropped as TorchRL drops them
    (``ALE/Pong-v5`` is envfleet's ``Pong-v5``).
    """

    def __init__(
        self,
        num_workers: int,
        env_name: str,
        *,
        create_env_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        self.env_name = env_name.replace("ALE/", "")
        self.num_workers = num_workers
        self.batch_size = torch.Size([num_workers])
        self.create_env_kwargs = dict(create_env_kwargs or {})
        MultiThreadedEnvWrapper.__init__(
            self,
            num_workers=num_workers,
            env_name=self.env_name,
            create_env_kwargs=self.create_env_kwargs,
            **kwargs,
        )

    def _check_kwargs(self, kwargs: dict) -> None:
        _TorchRLMultiThreadedEnv._check_kwargs(self, kwargs)

    def _build_env(
        self, env_name: str, num_workers: int, create_env_kwargs: dict[str, Any] | None
    ) -> GymnasiumEnvPool:
        pool = envfleet.make(env_name, num_envs=num_workers, **(create_env_kwargs or {}))
        try:
            _check_pool(pool)
        except (TypeError, ValueError):
            pool.close()
            raise
        return pool

    def _set_seed(self, seed: int | None) -> None:
        # TorchRL rebuilds the pool with the new seed; the old one's threads end first.
        if seed is not None:
            self._env.close()
        _TorchRLMultiThreadedEnv._set_seed(self, seed)
