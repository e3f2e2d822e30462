"""The Gymnasium front end: a real ``gymnasium.vector.VectorEnv``.

Spaces follow Gymnasium's VectorEnv contract, because Gymnasium's vector wrappers rely on it:
``single_observation_space`` / ``single_action_space`` describe one env, and
``observation_space`` / ``action_space`` the batch that ``step`` returns (batch_size rows).
EnvPool instead calls one env's space ``observation_space``: that is
``env.single_observation_space`` here (also ``env.spec.observation_space``), and the ``gym``
front end (``envfleet.make_gym``) keeps EnvPool's meaning.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from envfleet.base import REWARD, TERMINATED, TRUNCATED, PoolBase
from envfleet.spec import EnvSpec


class GymnasiumEnvPool(PoolBase, VectorEnv):
    """A pool of envs behind Gymnasium's ``VectorEnv`` API (plus EnvPool's send/recv)."""

    def __init__(self, spec: EnvSpec):
        PoolBase.__init__(self, spec)
        config = spec.config
        self.num_envs = config.num_envs
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        self.observation_space = batch_space(spec.observation_space, config.batch_size)
        self.action_space = batch_space(spec.action_space, config.batch_size)
        self.metadata = {
            "autoreset_mode": config.autoreset_mode.to_gymnasium(),
            "render_modes": [],
        }
        self.render_mode = None
        self.closed = False
        self._last_obs = None

    @property
    def spec(self) -> EnvSpec:
        return self._spec

    @spec.setter
    def spec(self, value: Any) -> None:  # VectorEnv's base class assigns None
        pass

    def reset(
        self,
        env_id: Any = None,
        *,
        seed: int | list[int] | None = None,
        options: dict[str, Any] | None = None,
    ):
        """Resets envs ``env_id`` (all if None) and returns ``(obs, info)``.

        ``seed`` re-seeds them as Gymnasium does (an int s gives env i the seed s + i).
        ``options={"reset_mask": mask}`` resets the envs where mask is True and, as
        Gymnasium's vector envs do, returns the whole batch with the other envs' last
        observations (sync mode only).
        """
        mask = None
        if options:
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(f"unknown reset options {sorted(unknown)}; only 'reset_mask'")
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise ValueError(
                    f"reset_mask must be a bool array of shape ({self.num_envs},), "
                    f"got {mask.dtype} {mask.shape}"
                )
            if env_id is not None:
                raise ValueError("give either env_id or options['reset_mask'], not both")
            env_id = np.flatnonzero(mask).astype(np.int32)
        if seed is not None:
            self._reseed(seed, env_id)
        out = self._pool.reset(env_id)
        obs, info = self._observation(out), self._info(out)
        if mask is not None and not mask.all():
            obs = self._merge_with_last(obs, env_id)
        self._last_obs = obs
        return obs, info

    def step(self, actions: Any, env_id: Any = None):
        """Steps envs ``env_id`` (all if None) and returns their results.

        Returns ``(obs, reward, terminated, truncated, info)``; ``info["env_id"]`` names the
        env of each row (in async mode the first ``batch_size`` envs to finish).
        """
        actions, env_id = self._split_action(actions, env_id)
        return self._format(self._pool.step(self._action_array(actions), env_id))

    def _format(self, out: tuple):
        obs = self._observation(out)
        self._last_obs = obs
        return obs, out[REWARD], out[TERMINATED], out[TRUNCATED], self._info(out)

    def _reseed(self, seed: Any, env_id: Any) -> None:
        ids = self._all_env_ids if env_id is None else np.asarray(env_id).reshape(-1)
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            seeds = [int(seed) + int(i) for i in ids]
        else:
            seeds = [int(s) for s in seed]
            if len(seeds) != len(ids):
                raise ValueError(f"seed has {len(seeds)} entries for {len(ids)} envs being reset")
        self._pool.reseed(np.ascontiguousarray(ids, dtype=np.int32), seeds)

    def _merge_with_last(self, obs: Any, env_id: np.ndarray) -> Any:
        if self._last_obs is None or self.is_async:
            raise ValueError(
                "a partial reset_mask needs the previous full batch (sync mode, after reset())"
            )

        def merge(last, new):
            full = np.array(last, copy=True)
            full[env_id] = new
            return full

        if isinstance(obs, tuple):
            return tuple(merge(a, b) for a, b in zip(self._last_obs, obs, strict=True))
        if isinstance(obs, dict):
            return {k: merge(self._last_obs[k], v) for k, v in obs.items()}
        return merge(self._last_obs, obs)

    def close_extras(self, **kwargs: Any) -> None:
        self._close_pool()
        self._last_obs = None

    def __repr__(self) -> str:
        c = self._spec.config
        return (
            f"GymnasiumEnvPool({c.task_id}, num_envs={c.num_envs}, batch_size={c.batch_size}, "
            f"num_threads={c.num_threads})"
        )
