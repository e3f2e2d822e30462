"""The dm_env front end: ``reset`` and ``step`` return batched ``dm_env.TimeStep``s.

``step_type`` is FIRST on the step that starts an episode (a reset, ``elapsed_step`` 0, or
the autoreset right after a LAST, which under Atari's ``episodic_life`` continues the ended
episode's ``elapsed_step``), LAST on the step that ends it (terminated or truncated), MID
otherwise. ``discount`` is 0 when the episode terminated and 1 otherwise, truncation included
(the dm_env convention); an env that writes a float ``discount`` info entry (Atari with
``zero_discount_on_life_loss``: 0 on a life loss, even one that does not end the episode)
gives its own discount on the steps that did not terminate. ``observation`` is a namedtuple of
the env's obs keys, its info keys and ``env_id`` (and, under EnvPool's conventions,
``players.env_id``). Rewards and discounts are float32 under EnvPool's conventions, float64
(the reference envs' own values) under ``conventions="dm_env"``.
"""

from __future__ import annotations

import collections
from typing import Any

import dm_env
import numpy as np

from envfleet.base import (
    ELAPSED_STEP,
    ENV_ID,
    FIRST_ENV_KEY,
    TERMINATED,
    TRUNCATED,
    PoolBase,
)
from envfleet.errors import EnvError
from envfleet.spec import PLAYERS, AutoresetMode, EnvSpec


class DmEnvPool(PoolBase, dm_env.Environment):
    """A pool of envs behind the dm_env API (plus EnvPool's send/recv)."""

    def __init__(self, spec: EnvSpec, pool: Any = None):
        PoolBase.__init__(self, spec, pool)
        # Dicts inside the observation (keys "outer:inner") are namedtuples of their own.
        self._obs_nesting = spec.obs_nesting
        obs_names = [k.name for k in spec.obs_keys]
        if self._obs_nesting is not None:
            obs_names = self._obs_nesting.names
        names = obs_names + [k.name for k in spec.info_keys] + ["env_id"]
        if self._envpool_conventions:
            names.append("players")
        self._State = collections.namedtuple("State", names)  # noqa: N806
        self._num_obs_keys = len(spec.obs_keys)
        self._num_keys = len(spec.obs_keys) + len(spec.info_keys)
        info_names = [k.name for k in spec.info_keys]
        self._discount_key = None
        if (
            "discount" in info_names
            and spec.info_keys[info_names.index("discount")].dtype.kind == "f"
        ):
            self._discount_key = FIRST_ENV_KEY + len(spec.obs_keys) + info_names.index("discount")
        # NEXT_STEP autoreset: whether each env's last delivered step was LAST, so that its next
        # result (the autoreset) is FIRST even where it continues the episode's elapsed_step.
        self._track_ends = spec.config.autoreset_mode is AutoresetMode.NEXT_STEP
        self._ended = np.zeros(spec.config.num_envs, dtype=bool)

    def observation_spec(self):
        return self._spec.observation_spec()

    def action_spec(self):
        return self._spec.action_spec()

    def reward_spec(self):
        return self._spec.reward_spec()

    def discount_spec(self):
        return self._spec.discount_spec()

    def reset(self, env_id: Any = None) -> dm_env.TimeStep:
        return self._format(self._run(self._pool.reset, env_id))

    def step(self, action: Any, env_id: Any = None) -> dm_env.TimeStep:
        action, env_id = self._split_action(action, env_id)
        return self._format(self._run(self._pool.step, self._action_array(action), env_id))

    def recv(self, reset: bool = False, return_info: bool = True) -> dm_env.TimeStep:
        """EnvPool's ``recv``: the next batch as a TimeStep (its arguments change nothing
        for dm pools, as in EnvPool)."""
        return self._format(self._run(self._pool.recv))

    def _run(self, call, *args: Any) -> tuple:
        try:
            return call(*args)
        except EnvError as err:
            # The dropped batch's LASTs were never seen: ask the pool which episodes ended.
            for env_id in np.asarray(err.env_ids).tolist():
                self._ended[env_id] = self._pool.episode_over(env_id)
            raise

    def _format(self, out: tuple) -> dm_env.TimeStep:
        first = out[ELAPSED_STEP] == 0
        if self._track_ends:
            env_id = out[ENV_ID]
            first |= self._ended[env_id]
            self._ended[env_id] = out[TERMINATED] | out[TRUNCATED]
        return self._time_step(out, first, self._reward(out), np)

    def _time_step(self, out: tuple, first: Any, reward: Any, xp: Any) -> dm_env.TimeStep:
        """The TimeStep of a batch: ``out`` the pool's arrays, ``first`` which rows start an
        episode, ``reward`` in the conventions' dtype; ``xp`` is the array module (NumPy here,
        jax.numpy for env.xla()'s results, src/envfleet/xla.py)."""
        terminated, truncated = out[TERMINATED], out[TRUNCATED]
        step_type = xp.where(
            first,
            int(dm_env.StepType.FIRST),
            xp.where(terminated | truncated, int(dm_env.StepType.LAST), int(dm_env.StepType.MID)),
        ).astype(xp.int32)
        one = xp.ones((), reward.dtype)
        if self._discount_key is None:
            discount = xp.where(terminated, 0, one)
        else:
            discount = xp.where(terminated, 0, out[self._discount_key].astype(reward.dtype))
        keys = out[FIRST_ENV_KEY : FIRST_ENV_KEY + self._num_keys]
        if self._obs_nesting is not None:
            obs = self._obs_nesting.tuple_values(keys[: self._num_obs_keys])
            keys = (*obs, *keys[self._num_obs_keys :])
        if self._envpool_conventions:
            observation = self._State(*keys, out[ENV_ID], PLAYERS(out[ENV_ID]))
        else:
            observation = self._State(*keys, out[ENV_ID])
        return dm_env.TimeStep(step_type, reward, discount, observation)

    def close(self) -> None:
        self._close_pool()

    def __repr__(self) -> str:
        c = self._spec.config
        return f"DmEnvPool({c.task_id}, num_envs={c.num_envs}, batch_size={c.batch_size})"
