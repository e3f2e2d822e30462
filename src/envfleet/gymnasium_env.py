"""The Gymnasium front end: a ``gymnasium.Env`` that steps a batch, and (under Gymnasium's
conventions) a ``gymnasium.vector.VectorEnv``.

Under EnvPool's conventions (the default, see :class:`~envfleet.spec.Conventions`)
``observation_space`` / ``action_space`` describe ONE env, as EnvPool 1.2.5's pools (and
everything written for them: SB3's and Tianshou's adapters, CleanRL) have it; under
``conventions="gymnasium"`` (``gymnasium.make_vec("envfleet/...")``) they are the batch's, as
Gymnasium's ``VectorEnv`` contract has it. ``single_observation_space`` /
``single_action_space`` are one env's under both.

Only a pool under Gymnasium's conventions is a ``VectorEnv`` (:class:`GymnasiumVectorEnvPool`,
sync mode only). A ``VectorEnv`` promises batched spaces: Gymnasium's vector wrappers and any
code written for them sample ``env.action_space`` for a batch of actions and check observations
against ``env.observation_space``, which EnvPool's one-env spaces break far from the cause
("action has a batch of 1 but env_id was not given" at the first step of
``ClipReward(pool)``). So a pool under EnvPool's conventions is a ``gymnasium.Env`` (as
EnvPool's, and with its ``is_vector_env`` flag) but not a ``VectorEnv``: wrapping it in one of
Gymnasium's vector wrappers fails at once with Gymnasium's ``TypeError``, whose text names the
class, and the class's name says which call gives a ``VectorEnv`` (:class:`_PoolClass`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from envfleet.base import TERMINATED, TRUNCATED, PoolBase, render_metadata
from envfleet.spec import Conventions, EnvSpec


class _PoolClass(type):
    """The metaclass of the Gymnasium front end's pools, for one message: Gymnasium's vector
    wrappers refuse a pool that is not a ``VectorEnv`` with ``TypeError: Expected env to be a
    `gymnasium.vector.VectorEnv` but got {type(env)}``, so the class's repr is where envfleet
    can say which call gives a ``VectorEnv``. Classes whose ``_not_a_vector_env`` is True (the
    pools under EnvPool's conventions) add that hint to their repr; the others keep type's."""

    def __repr__(cls) -> str:
        plain = type.__repr__(cls)
        if not getattr(cls, "_not_a_vector_env", False):
            return plain
        return (
            f"{plain}, a pool under EnvPool's conventions (one env's observation_space and "
            "action_space), which is not a gymnasium.vector.VectorEnv: for one, make the pool "
            'with gymnasium.make_vec("envfleet/<task id>", num_envs=n) or '
            'envfleet.make(<task id>, num_envs=n, conventions="gymnasium") (sync mode)'
        )


class GymnasiumEnvPool(PoolBase, gymnasium.Env, metaclass=_PoolClass):
    """A pool of envs behind the Gymnasium API (plus EnvPool's send/recv): the pools of
    EnvPool's conventions (sync and async), a ``gymnasium.Env`` but not a ``VectorEnv``; under
    Gymnasium's conventions, :class:`GymnasiumVectorEnvPool`."""

    _not_a_vector_env = True

    # Gymnasium's vector-aware wrappers of the 0.2x era test this flag; EnvPool sets it too.
    is_vector_env = True

    def __init__(self, spec: EnvSpec, pool: Any = None):
        PoolBase.__init__(self, spec, pool)
        config = spec.config
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        if config.conventions is Conventions.GYMNASIUM:
            self.observation_space = batch_space(spec.observation_space, config.num_envs)
            self.action_space = batch_space(spec.action_space, config.num_envs)
        else:
            self.observation_space = spec.observation_space
            self.action_space = spec.action_space
        self.metadata = {
            "autoreset_mode": config.autoreset_mode.to_gymnasium(),
            **render_metadata(spec),
        }
        self.render_mode = config.render_mode
        self.closed = False
        self._last_obs = None
        self._gymnasium_conventions = config.conventions is Conventions.GYMNASIUM
        self._every_row: dict[int, np.ndarray] = {}  # batch size -> all-True info mask

    def render(self, env_ids: Any = None, camera_id: int | None = None):
        """EnvPool's :meth:`PoolBase.render`: a ``(B, H, W, 3)`` array of envs ``env_ids``
        (default ``[render_env_id]``). Under ``conventions="gymnasium"`` with no ``env_ids``,
        Gymnasium's ``VectorEnv.render()``: a tuple of one (H, W, 3) frame per env, what its
        vector wrappers (RecordVideo, HumanRendering) expect.
        """
        if (
            env_ids is None
            and self.render_mode == "rgb_array"
            and self._spec.config.conventions is Conventions.GYMNASIUM
        ):
            return tuple(self._render_frames(self.all_env_ids, camera_id))
        return PoolBase.render(self, env_ids, camera_id)

    def reset(
        self,
        env_id: Any = None,
        *,
        seed: int | list[int] | None = None,
        options: dict[str, Any] | None = None,
    ):
        """Resets envs ``env_id`` (all if None) and returns ``(obs, info)``.

        ``seed`` re-seeds them as Gymnasium does (an int s gives env i the seed s + i; EnvPool
        ignores it with a warning). ``options={"reset_mask": mask}`` resets the envs where
        mask is True and, as Gymnasium's vector envs do, returns the whole batch: the other
        envs keep their last observations, and each info array has a ``_key`` mask of the
        rows that were reset (sync mode only).
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
        obs, info = self._observation(out), self._vector_info(out)
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

    def recv(self, reset: bool = False, return_info: bool = True):
        """EnvPool's ``recv``: the next batch, as ``step`` returns it, or as ``reset`` does
        (``(obs, info)``) with ``reset=True``. ``return_info`` is accepted for EnvPool's
        calls; results always carry their info."""
        out = self._pool.recv()
        if reset:
            obs, info = self._observation(out), self._vector_info(out)
            self._remember(obs, info["env_id"], full_in_order=False)
            return obs, info
        return self._format(out)

    def _format(self, out: tuple, full_in_order: bool = False):
        obs, info = self._observation(out), self._vector_info(out)
        self._remember(obs, info["env_id"], full_in_order)
        return obs, self._reward(out), out[TERMINATED], out[TRUNCATED], info

    def _vector_info(self, out: tuple) -> dict[str, Any]:
        """The batch's info; under Gymnasium's conventions with the ``_key`` mask of each key
        that Gymnasium's vector envs give (which rows hold the entry: every row here, since
        every env reports every key; SAME_STEP's ``_final_obs`` / ``_final_info`` are the
        real masks). The all-True masks are one read-only array per batch size."""
        info = self._info(out)
        if not self._gymnasium_conventions:
            return info
        rows = len(out[TERMINATED])
        every_row = self._every_row.get(rows)
        if every_row is None:
            every_row = np.ones(rows, dtype=np.bool_)
            every_row.flags.writeable = False
            self._every_row[rows] = every_row
        for key in [k for k in info if not k.startswith("_") and f"_{k}" not in info]:
            info[f"_{key}"] = every_row
        return info

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
        if self._pool.pending:
            # Their results would come back inside this reset's batch, where the mask hides
            # them: their rewards and ends would be lost.
            raise ValueError(
                "options['reset_mask'] needs every env idle, but some have actions in flight "
                "(send() without recv()): recv() their results first"
            )
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
        self._scatter(last, obs, env_ids)
        self._last_obs = last

    @staticmethod
    def _scatter(full: Any, part: Any, env_ids: np.ndarray) -> None:
        """Writes the batch ``part`` into rows ``env_ids`` of ``full`` (arrays, or tuples and
        dicts of them, dicts nested in FrankaKitchen's observation)."""
        if isinstance(part, tuple):
            for full_value, part_value in zip(full, part, strict=True):
                GymnasiumEnvPool._scatter(full_value, part_value, env_ids)
        elif isinstance(part, dict):
            for key, part_value in part.items():
                GymnasiumEnvPool._scatter(full[key], part_value, env_ids)
        else:
            full[env_ids] = part

    @staticmethod
    def _copy(obs: Any) -> Any:
        if isinstance(obs, tuple):
            return tuple(GymnasiumEnvPool._copy(a) for a in obs)
        if isinstance(obs, dict):
            return {k: GymnasiumEnvPool._copy(v) for k, v in obs.items()}
        return np.array(obs, copy=True)

    def _masked_info(self, info: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
        """Spreads the reset envs' info over num_envs rows, with Gymnasium's _key masks."""
        rows = info["env_id"]
        full: dict[str, Any] = {}
        for key, value in info.items():
            if key == "players":  # EnvPool's {"env_id": ...}: every env's own id
                full[key] = {"env_id": np.arange(self.num_envs, dtype=np.int32)}
                continue
            full[key] = self._spread(value, rows)
            if not key.startswith("_"):  # SAME_STEP's _final_obs is already a mask
                full[f"_{key}"] = mask.copy()
        full["env_id"] = np.arange(self.num_envs, dtype=np.int32)
        return full

    def _spread(self, value: Any, rows: np.ndarray) -> Any:
        """``value``'s rows at ``rows`` of num_envs zero rows; SAME_STEP's ``final_obs`` and
        ``final_info`` hold tuples or dicts of arrays, spread one by one."""
        if isinstance(value, dict):
            return {k: self._spread(v, rows) for k, v in value.items()}
        if isinstance(value, tuple):
            return tuple(self._spread(v, rows) for v in value)
        spread = np.zeros((self.num_envs, *value.shape[1:]), dtype=value.dtype)
        spread[rows] = value
        return spread

    def close(self, **kwargs: Any) -> None:
        """Stops the worker threads and frees the envs; a second call does nothing."""
        if not self.closed:
            self._close_pool()
            self._last_obs = None
            self.closed = True

    def __repr__(self) -> str:
        c = self._spec.config
        return (
            f"{type(self).__name__}({c.task_id}, num_envs={c.num_envs}, "
            f"batch_size={c.batch_size}, num_threads={c.num_threads}, "
            f"conventions={c.conventions.value!r})"
        )

    def __str__(self) -> str:
        return repr(self)


class GymnasiumVectorEnvPool(GymnasiumEnvPool, VectorEnv):
    """A pool under Gymnasium's conventions (``gymnasium.make_vec("envfleet/<id>")``,
    ``conventions="gymnasium"``; sync mode only): a ``gymnasium.vector.VectorEnv`` with
    batched ``observation_space`` / ``action_space``, so that Gymnasium's vector wrappers and
    code written for them take it."""

    _not_a_vector_env = False
