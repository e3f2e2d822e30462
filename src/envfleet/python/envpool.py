"""``envpool.python.envpool``: EnvPool's base of every pool (TorchRL's
``MultiThreadedEnvWrapper`` checks its pools against ``EnvPoolMixin``)."""

from envfleet.base import PoolBase as EnvPoolMixin

__all__ = ["EnvPoolMixin"]
