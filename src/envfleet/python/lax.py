"""``envpool.python.lax``: EnvPool's class of pools with ``xla()``, which every envfleet pool
has (docs/xla.md)."""

from envfleet.base import PoolBase as XlaMixin

__all__ = ["XlaMixin"]
