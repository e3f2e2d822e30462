"""Task ids of the built-in env families, registered on import of ``envfleet``.

A family whose engine this build lacks still registers its ids; ``list_all_envs`` leaves them
out and ``make`` says the family is not built.
"""

from envfleet.envs import atari, classic_control, example, mujoco, toy_text  # noqa: F401
