"""``envpool.python.env_spec``: EnvPool's base of every spec."""

from envfleet.spec import EnvSpec as EnvSpecMixin

__all__ = ["EnvSpecMixin"]
