"""The ``gym`` front end, as EnvPool 1.x defines it, with an opt-in pre-0.26 API.

As in EnvPool, ``observation_space`` / ``action_space`` describe ONE env and results follow
Gymnasium's conventions: ``reset() -> (obs, info)``,
``step() -> (obs, reward, terminated, truncated, info)``. With ``legacy_api=True`` it speaks the
pre-0.26 gym API for old training scripts: ``reset() -> obs`` and
``step() -> (obs, reward, done, info)`` with ``info["TimeLimit.truncated"]`` True when the
episode was cut by the time limit rather than ended by the env.
"""

from __future__ import annotations

from typing import Any

from envfleet.base import REWARD, TERMINATED, TRUNCATED, PoolBase, render_metadata
from envfleet.spec import EnvSpec


class GymEnvPool(PoolBase):
    """A pool of envs behind EnvPool's ``gym`` interface."""

    def __init__(self, spec: EnvSpec, legacy_api: bool = False):
        PoolBase.__init__(self, spec)
        self.legacy_api = bool(legacy_api)
        self.observation_space = spec.observation_space
        self.action_space = spec.action_space
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        self.metadata = {
            "autoreset_mode": spec.config.autoreset_mode.to_gymnasium(),
            **render_metadata(spec),
        }
        self.render_mode = spec.config.render_mode

    def reset(self, env_id: Any = None):
        out = self._pool.reset(env_id)
        obs = self._observation(out)
        return obs if self.legacy_api else (obs, self._info(out))

    def step(self, action: Any, env_id: Any = None):
        action, env_id = self._split_action(action, env_id)
        return self._format(self._pool.step(self._action_array(action), env_id))

    def _format(self, out: tuple):
        obs, info = self._observation(out), self._info(out)
        terminated, truncated = out[TERMINATED], out[TRUNCATED]
        if self.legacy_api:
            info["TimeLimit.truncated"] = truncated & ~terminated
            return obs, out[REWARD], terminated | truncated, info
        return obs, out[REWARD], terminated, truncated, info

    def close(self) -> None:
        self._close_pool()

    def __repr__(self) -> str:
        c = self._spec.config
        return f"GymEnvPool({c.task_id}, num_envs={c.num_envs}, batch_size={c.batch_size})"
