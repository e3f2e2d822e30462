"""EnvPool's ``envpool.python`` paths, for code written for EnvPool that imports them.

Libraries and scripts reach EnvPool's classes through these paths: TorchRL checks its pools
against ``envpool.python.envpool.EnvPoolMixin``, EnvPool's own SB3 example annotates with
``envpool.python.protocol.EnvPool``. Each name here is envfleet's own class under EnvPool's
name (``EnvPool`` is every pool's base, ``EnvSpec`` the spec), so ``isinstance`` and type
annotations hold for envfleet's pools. The modules hold nothing else: with
``import envfleet as envpool`` (or :func:`envfleet.alias_as_envpool` for libraries that run
``import envpool`` themselves) the paths resolve to the same objects.
"""

from envfleet.python import dm_envpool, env_spec, envpool, gymnasium_envpool, lax, protocol
from envfleet.python.protocol import DMEnvPool, EnvPool, EnvSpec, GymnasiumEnvPool

__all__ = [
    "DMEnvPool",
    "EnvPool",
    "EnvSpec",
    "GymnasiumEnvPool",
    "dm_envpool",
    "env_spec",
    "envpool",
    "gymnasium_envpool",
    "lax",
    "protocol",
]
