"""The dm_env front end: ``reset`` and ``step`` return batched ``dm_env.TimeStep``s.

``step_type`` is FIRST on the step that starts an episode, LAST on the step that ends it
(terminated or truncated), MID otherwise. ``discount`` is 0 when the episode terminated and 1
otherwise, truncation included (the dm_env convention). ``observation`` is a namedtuple of
the env's obs keys, its info keys and ``env_id``.
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
    REWARD,
    TERMINATED,
    TRUNCATED,
    PoolBase,
)
from envfleet.spec import EnvSpec


class DmEnvPool(PoolBase, dm_env.Environment):
    """A pool of envs behind the dm_env API (plus EnvPool's send/recv)."""

    def __init__(self, spec: EnvSpec):
        PoolBase.__init__(self, spec)
        names = [k.name for k in spec.obs_keys + spec.info_keys] + ["env_id"]
        self._State = collections.namedtuple("State", names)  # noqa: N806
        self._num_keys = len(spec.obs_keys) + len(spec.info_keys)

    @property
    def spec(self) -> EnvSpec:
        return self._spec

    @property
    def num_envs(self) -> int:
        return self._spec.config.num_envs

    def observation_spec(self):
        return self._spec.observation_spec()

    def action_spec(self):
        return self._spec.action_spec()

    def reward_spec(self):
        return self._spec.reward_spec()

    def discount_spec(self):
        return self._spec.discount_spec()

    def reset(self, env_id: Any = None) -> dm_env.TimeStep:
        return self._format(self._pool.reset(env_id))

    def step(self, action: Any, env_id: Any = None) -> dm_env.TimeStep:
        action, env_id = self._split_action(action, env_id)
        return self._format(self._pool.step(self._action_array(action), env_id))

    def _format(self, out: tuple) -> dm_env.TimeStep:
        terminated, truncated = out[TERMINATED], out[TRUNCATED]
        step_type = np.where(
            out[ELAPSED_STEP] == 0,
            dm_env.StepType.FIRST,
            np.where(terminated | truncated, dm_env.StepType.LAST, dm_env.StepType.MID),
        ).astype(np.int32)
        discount = np.where(terminated, 0.0, 1.0)
        keys = out[FIRST_ENV_KEY : FIRST_ENV_KEY + self._num_keys]
        observation = self._State(*keys, out[ENV_ID])
        return dm_env.TimeStep(step_type, out[REWARD], discount, observation)

    def close(self) -> None:
        self._close_pool()

    def __repr__(self) -> str:
        c = self._spec.config
        return f"DmEnvPool({c.task_id}, num_envs={c.num_envs}, batch_size={c.batch_size})"
