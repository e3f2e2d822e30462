"""The Gymnasium front end: a real ``gymnasium.vector.VectorEnv``.

Spaces follow Gymnasium's VectorEnv contract, because Gymnasium's vector wrappers rely on it:
``single_observation_space`` / ``single_action_space`` describe one env, and
``observation_space`` / ``action_space`` the batch that ``step`` returns (batch_size rows).
EnvPool instead calls one env's space ``observation_space``: that is
``env.single_observation_space`` here (also ``env.spec.observation_space``), and the ``gym``
front end (``envfleet.make_gym``) keeps EnvPool's meaning.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from envfleet.base import REWARD, TERMINATED, TRUNCATED, PoolBase, render_metadata
from envfleet.spec import EnvSpec


class GymnasiumEnvPool(PoolBase, VectorEnv):
    """A pool of envs behind Gymnasium's ``VectorEnv`` API (plus EnvPool's send/recv)."""

    def __init__(self, spec: EnvSpec):
        PoolBase.__init__(self, spec)
        config = spec.config
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        self.observation_space = batch_space(spec.observation_space, config.batch_size)
        self.action_space = batch_space(spec.action_space, config.batch_size)
        self.metadata = {
            "autoreset_mode": config.autoreset_mode.to_gymnasium(),
            **render_metadata(spec),
        }
        self.render_mode = config.render_mode
        self.closed = False
        self._last_obs = None

    def render(self, env_ids: Any = None, camera_id: int | None = None):
        """Gymnasium's ``VectorEnv.render()``: with no ``env_ids``, a tuple of one (H, W, 3)
        frame per env (what Gymnasium's vector wrappers, RecordVideo and HumanRendering,
        expect; ``render()[0]`` is env 0's frame, as in EnvPool with ``render_env_id=0``).
        With ``env_ids``, or in ``"human"`` mode, EnvPool's :meth:`PoolBase.render`.
        """
        if env_ids is None and self.render_mode == "rgb_array":
            return tuple(self._render_frames(self.all_env_ids, camera_id))
        return PoolBase.render(self, env_ids, camera_id)

    @PoolBase.spec.setter
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
        Gymnasium's vector envs do, returns the whole batch: the other envs keep their last
        observations, and each info array has a ``_key`` mask of the rows that were reset
        (sync mode only).
        """
        mask = None
        if options:
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(f"unknown reset options {sorted(unknown)}; only 'reset_mask'")
            mask = self._check_reset_mask(options["reset_mask"])
            if env_id is not None:
                raise ValueError("give either env_id or options['reset_mask'], not both")
            env_id = np.flatnonzero(mask).astype(np.int32)
        if seed is not None:
            self._reseed(seed, env_id)
        out = self._pool.reset(env_id)
        obs, info = self._observation(out), self._info(out)
        self._remember(obs, info["env_id"], full_in_order=env_id is None)
        if mask is not None:
            obs = self._copy(self._last_obs)
            info = self._masked_info(info, mask)
        return obs, info

    def step(self, actions: Any, env_id: Any = None):
        """Steps envs ``env_id`` (all if None) and returns their results.

        Returns ``(obs, reward, terminated, truncated, info)``; ``info["env_id"]`` names the
        env of each row (in async mode the first ``batch_size`` envs to finish).
        """
        actions, env_id = self._split_action(actions, env_id)
        out = self._pool.step(self._action_array(actions), env_id)
        return self._format(out, full_in_order=env_id is None)

    def _format(self, out: tuple, full_in_order: bool = False):
        obs, info = self._observation(out), self._info(out)
        self._remember(obs, info["env_id"], full_in_order)
        return obs, out[REWARD], out[TERMINATED], out[TRUNCATED], info

    # ---- reset_mask support ---------------------------------------------------------------

    def _check_reset_mask(self, mask: Any) -> np.ndarray:
        # The checks and messages of Gymnasium's SyncVectorEnv.reset.
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask)}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"options['reset_mask'] must have shape ({self.num_envs},), got {mask.shape}"
            )
        if mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
        if not mask.any():
            raise ValueError("options['reset_mask'] must contain at least one True value")
        if self.is_async:
            raise ValueError("options['reset_mask'] needs sync mode (batch_size == num_envs)")
        return mask

    def _remember(self, obs: Any, env_ids: np.ndarray, full_in_order: bool) -> None:
        """Keeps every env's latest observation, for reset_mask (sync mode only).

        A full batch in env order is kept by reference (no copy on the hot path); a partial
        or reordered batch is scattered into a copy of the previous one.
        """
        if self.is_async:
            return
        if full_in_order or self._last_obs is None:
            if full_in_order:
                self._last_obs = obs
            return
        last = self._copy(self._last_obs)
        if isinstance(obs, tuple):
            for full, part in zip(last, obs, strict=True):
                full[env_ids] = part
        elif isinstance(obs, dict):
            for key, part in obs.items():
                last[key][env_ids] = part
        else:
            last[env_ids] = obs
        self._last_obs = last

    @staticmethod
    def _copy(obs: Any) -> Any:
        if isinstance(obs, tuple):
            return tuple(np.array(a, copy=True) for a in obs)
        if isinstance(obs, dict):
            return {k: np.array(v, copy=True) for k, v in obs.items()}
        return np.array(obs, copy=True)

    def _masked_info(self, info: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
        """Spreads the reset envs' info over num_envs rows, with Gymnasium's _key masks."""
        rows = info["env_id"]
        full: dict[str, Any] = {}
        for key, value in info.items():
            spread = np.zeros((self.num_envs, *value.shape[1:]), dtype=value.dtype)
            spread[rows] = value
            full[key] = spread
            full[f"_{key}"] = mask.copy()
        full["env_id"] = np.arange(self.num_envs, dtype=np.int32)
        return full

    def _reseed(self, seed: Any, env_id: Any) -> None:
        ids = self._all_env_ids if env_id is None else np.asarray(env_id).reshape(-1)
        if isinstance(seed, numbers.Integral) and not isinstance(seed, bool | np.bool_):
            if seed < 0:
                raise ValueError(f"seed must be >= 0, got {seed}")
            seeds = [int(seed) + int(i) for i in ids]
        elif isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str | bytes):
            seeds = list(seed)
            if len(seeds) != len(ids):
                raise ValueError(f"seed has {len(seeds)} entries for {len(ids)} envs being reset")
            for i, s in enumerate(seeds):
                if isinstance(s, bool | np.bool_) or not isinstance(s, numbers.Integral) or s < 0:
                    raise ValueError(f"seed[{i}] must be an int >= 0, got {s!r}")
            seeds = [int(s) for s in seeds]
        else:
            raise TypeError(f"seed must be an int or a sequence of ints, got {seed!r}")
        if max(seeds) > 2**63 - 1:
            raise ValueError(f"seeds must be < 2**63, got {max(seeds)}")
        self._pool.reseed(np.ascontiguousarray(ids, dtype=np.int32), seeds)

    def close_extras(self, **kwargs: Any) -> None:
        self._close_pool()
        self._last_obs = None

    def __repr__(self) -> str:
        c = self._spec.config
        return (
            f"GymnasiumEnvPool({c.task_id}, num_envs={c.num_envs}, batch_size={c.batch_size}, "
            f"num_threads={c.num_threads})"
        )
