"""Task ids of the built-in env families, registered on import of ``envfleet``."""

from envfleet.envs import classic_control, example, toy_text  # noqa: F401
