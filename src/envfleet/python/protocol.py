"""``envpool.python.protocol``: EnvPool's interface classes, as envfleet's classes.

``EnvPool`` is the base of every pool (any front end), ``DMEnvPool`` the dm_env front end,
``GymnasiumEnvPool`` the Gymnasium one (its ``VectorEnv`` and legacy-gym pools included),
``EnvSpec`` what ``make_spec`` returns and ``ArraySpec`` an entry of its
``state_array_spec`` / ``action_array_spec``.
"""

from envfleet.base import PoolBase as EnvPool
from envfleet.dm import DmEnvPool as DMEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.spec import ArraySpec, EnvSpec

__all__ = ["ArraySpec", "DMEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool"]
