"""``envpool.python.dm_envpool``: EnvPool's dm_env pool class."""

from envfleet.dm import DmEnvPool as DMEnvPoolMixin

__all__ = ["DMEnvPoolMixin"]
