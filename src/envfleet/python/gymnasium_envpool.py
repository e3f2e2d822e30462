"""``envpool.python.gymnasium_envpool``: EnvPool's Gymnasium pool class."""

from envfleet.gymnasium_env import GymnasiumEnvPool as GymnasiumEnvPoolMixin

__all__ = ["GymnasiumEnvPoolMixin"]
