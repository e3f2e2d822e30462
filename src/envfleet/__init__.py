"""envfleet: many reinforcement-learning environments at once, from a C++ thread pool.

A drop-in for EnvPool's documented interface (``import envfleet as envpool``) whose
Gymnasium front end is a real ``gymnasium.vector.VectorEnv``.
"""

from envfleet import families as _families  # noqa: F401  (registers the task ids)
from envfleet.dm import DmEnvPool
from envfleet.errors import EngineNotInstalledError, EnvError
from envfleet.gym_env import GymEnvPool
from envfleet.gymnasium_env import GymnasiumEnvPool
from envfleet.make import make, make_dm, make_gym, make_gymnasium
from envfleet.python_env import EnvDefinitionError, PythonEnv, register_python_env
from envfleet.registry import list_all_envs, make_spec, register
from envfleet.spec import AutoresetMode, EnvSpec

__version__ = "0.1.0"

__all__ = [
    "AutoresetMode",
    "DmEnvPool",
    "EngineNotInstalledError",
    "EnvDefinitionError",
    "EnvError",
    "EnvSpec",
    "GymEnvPool",
    "GymnasiumEnvPool",
    "PythonEnv",
    "list_all_envs",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
    "register",
    "register_python_env",
]
