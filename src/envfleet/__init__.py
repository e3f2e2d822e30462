"""envfleet: many reinforcement-learning environments at once, from a C++ thread pool.

A drop-in for EnvPool's documented interface (``import envfleet as envpool``, EnvPool's module
paths included; :func:`alias_as_envpool` for libraries that import envpool themselves): its
pools follow EnvPool 1.2.5's conventions. ``gymnasium.make_vec("envfleet/<task id>", ...)`` (or
``conventions="gymnasium"``) gives pools that are real ``gymnasium.vector.VectorEnv``s, with
Gymnasium's own conventions.
"""

from envfleet import families as _families  # noqa: F401  (registers the task ids)
from envfleet.base import PoolBase
from envfleet.dm import DmEnvPool
from envfleet.envpool_alias import alias_as_envpool
from envfleet.errors import EngineNotInstalledError, EnvError
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool, GymnasiumVectorEnvPool
from envfleet.make import make, make_dm, make_gym, make_gymnasium
from envfleet.python_env import EnvDefinitionError, PythonEnv, register_python_env
from envfleet.registry import list_all_envs, make_spec, register
from envfleet.spec import AutoresetMode, Conventions, EnvSpec

# EnvPool's names: its dm pool class, and the base of every pool.
DMEnvPool = DmEnvPool
EnvPool = PoolBase

# EnvPool's module paths (envpool.python.protocol, envpool.registration, envpool.minigrid's
# decode_mission, ...), loaded with the
# package so that attribute chains such as envpool.python.envpool.EnvPoolMixin resolve, as
# they do after EnvPool's own import. They only name objects defined above.
from envfleet import minigrid, python, registration  # noqa: E402, F401

__version__ = "0.1.0"

# EnvPool 1.2.5's __all__ first, in its order (code written for EnvPool may check it), then
# envfleet's own names.
__all__ = [
    "register",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
    "list_all_envs",
    "EnvSpec",
    "EnvPool",
    "DMEnvPool",
    "GymnasiumEnvPool",
    "AutoresetMode",
    "Conventions",
    "alias_as_envpool",
    "DmEnvPool",
    "EngineNotInstalledError",
    "EnvDefinitionError",
    "EnvError",
    "GymEnvPool",
    "GymnasiumVectorEnvPool",
    "PythonEnv",
    "register_python_env",
]
