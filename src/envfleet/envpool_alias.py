"""``envfleet.alias_as_envpool()``: ``import envpool`` gives envfleet, for libraries that import
EnvPool themselves.

Code of one's own switches with ``import envfleet as envpool``. A library (TorchRL's
``MultiThreadedEnvWrapper``, a training framework's EnvPool adapter) runs ``import envpool``
itself and reads EnvPool's paths (``envpool.python.envpool.EnvPoolMixin``,
``envpool.registration.registry``). This puts envfleet and its EnvPool paths into
``sys.modules`` under EnvPool's names, so those imports find envfleet's objects.
"""

from __future__ import annotations

import importlib
import sys

# EnvPool's module paths that envfleet provides, and the envfleet module behind each.
ENVPOOL_PATHS = {
    "envpool": "envfleet",
    "envpool.registration": "envfleet.registration",
    "envpool.python": "envfleet.python",
    "envpool.python.protocol": "envfleet.python.protocol",
    "envpool.python.envpool": "envfleet.python.envpool",
    "envpool.python.env_spec": "envfleet.python.env_spec",
    "envpool.python.dm_envpool": "envfleet.python.dm_envpool",
    "envpool.python.gymnasium_envpool": "envfleet.python.gymnasium_envpool",
    "envpool.python.lax": "envfleet.python.lax",
    "envpool.minigrid": "envfleet.minigrid",
}


def alias_as_envpool() -> None:
    """Makes ``import envpool`` and ``import envpool.<path>`` (the paths in
    ``ENVPOOL_PATHS``) give envfleet's modules in this process. Call it before anything imports
    envpool; a second call does nothing. Raises ``RuntimeError`` if EnvPool itself is already
    imported: objects taken from it would stay EnvPool's."""
    loaded = sys.modules.get("envpool")
    envfleet = importlib.import_module("envfleet")
    if loaded is envfleet:
        return
    if loaded is not None:
        raise RuntimeError(
            "alias_as_envpool(): EnvPool itself is already imported in this process "
            f"({getattr(loaded, '__file__', loaded)!r}); call alias_as_envpool() before "
            "anything imports envpool"
        )
    for alias, target in ENVPOOL_PATHS.items():
        sys.modules[alias] = importlib.import_module(target)
