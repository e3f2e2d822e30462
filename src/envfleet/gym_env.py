"""The pre-0.26 gym API, for old training scripts: ``make_gym(..., legacy_api=True)``.

Without ``legacy_api``, ``make_gym`` returns what ``make_gymnasium`` does, as in EnvPool 1.2.5
(whose gym pools are its Gymnasium pools). With it, ``reset() -> obs`` and
``step() -> (obs, reward, done, info)`` with ``info["TimeLimit.truncated"]`` True when the
episode was cut by the time limit rather than ended by the env. Such a pool is a
``gymnasium.Env`` but never a ``VectorEnv``: Gymnasium's vector wrappers expect the 5-tuple.

Scripts of that era also test ``isinstance(env.action_space, gym.spaces.Discrete)`` against
the old ``gym`` package, whose spaces EnvPool before 1.0 returned (CleanRL's
``ppo_atari_envpool.py`` does). Where ``gym`` is installed, a legacy pool's spaces are
therefore instances of both libraries' classes: Gymnasium's space with old gym's class of the
same name as a second base (:func:`with_old_gym_class`). They compare equal to the spec's
Gymnasium spaces and behave as them; only ``isinstance`` sees the difference.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from envfleet.base import TERMINATED, TRUNCATED
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.spec import EnvSpec


class GymEnvPool(GymnasiumEnvPool):
    """A pool of envs behind the pre-0.26 gym API."""

    legacy_api = True

    def __init__(self, spec: EnvSpec, pool: Any = None):
        GymnasiumEnvPool.__init__(self, spec, pool)
        self.observation_space = self.single_observation_space = with_old_gym_class(
            spec.observation_space
        )
        self.action_space = self.single_action_space = with_old_gym_class(spec.action_space)

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


# Gymnasium space class -> its subclass that also derives from old gym's class of that name.
_TWIN_CLASSES: dict[type, type] = {}


def with_old_gym_class(space: gymnasium.Space) -> gymnasium.Space:
    """``space`` as an instance of old gym's class of the same name too, where ``gym`` is
    installed (``space`` itself otherwise, or where gym has no such class).

    Only the simple spaces (Box, Discrete, MultiDiscrete, MultiBinary) get a twin class: the
    containers (Dict, Tuple) mix in different ``typing`` bases in the two libraries, so no
    class can derive from both; they keep Gymnasium's class and hold twins.
    """
    try:
        import gym
    except ImportError:
        return space

    if isinstance(space, gymnasium.spaces.Dict):
        return gymnasium.spaces.Dict({k: with_old_gym_class(v) for k, v in space.items()})
    if isinstance(space, gymnasium.spaces.Tuple):
        return gymnasium.spaces.Tuple([with_old_gym_class(v) for v in space])
    space_class = type(space)
    old_class = getattr(gym.spaces, space_class.__name__, None)
    if space_class.__module__.split(".")[0] != "gymnasium" or not isinstance(old_class, type):
        return space
    twin_class = _TWIN_CLASSES.get(space_class)
    if twin_class is None:
        twin_class = type(
            space_class.__name__,
            (space_class, old_class),
            # A pickled twin is rebuilt through this function, as a twin where gym is.
            {"__module__": __name__, "__reduce__": _reduce_twin},
        )
        _TWIN_CLASSES[space_class] = twin_class
    # Gymnasium's state as it is: its methods come first in the twin's MRO and read only it.
    twin = object.__new__(twin_class)
    twin.__dict__.update(space.__dict__)
    return twin


def _reduce_twin(twin: gymnasium.Space):
    gymnasium_class = type(twin).__mro__[1]
    space = object.__new__(gymnasium_class)
    space.__dict__.update(twin.__dict__)
    return with_old_gym_class, (space,)
