"""The pre-0.26 gym API, for old training scripts: ``make_gym(..., legacy_api=True)``.

Without ``legacy_api``, ``make_gym`` returns what ``make_gymnasium`` does, as in EnvPool 1.2.5
(whose gym pools are its Gymnasium pools). With it, ``reset() -> obs`` and
``step() -> (obs, reward, done, info)`` with ``info["TimeLimit.truncated"]`` True when the
episode was cut by the time limit rather than ended by the env. Such a pool is a
``gymnasium.Env`` but never a ``VectorEnv``: Gymnasium's vector wrappers expect the 5-tuple.
"""

from __future__ import annotations

from typing import Any

from envfleet.base import TERMINATED, TRUNCATED
from envfleet.gymnasium_env import GymnasiumEnvPool


class GymEnvPool(GymnasiumEnvPool):
    """A pool of envs behind the pre-0.26 gym API."""

    legacy_api = True

    def reset(self, env_id: Any = None, **kwargs: Any):
        obs, _ = GymnasiumEnvPool.reset(self, env_id, **kwargs)
        return obs

    def recv(self, reset: bool = False, return_info: bool = True):
        if reset:
            return GymnasiumEnvPool.recv(self, reset=True)[0]
        return GymnasiumEnvPool.recv(self)

    def _format(self, out: tuple, full_in_order: bool = False):
        obs, reward, terminated, truncated, info = GymnasiumEnvPool._format(
            self, out, full_in_order
        )
        info["TimeLimit.truncated"] = truncated & ~terminated
        return obs, reward, out[TERMINATED] | out[TRUNCATED], info
