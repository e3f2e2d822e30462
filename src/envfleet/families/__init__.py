"""The built-in env families, registered on ``import envfleet``.

A family is one name: ``cpp/families/<name>/`` (its C++ envs and, for an engine family, its
module and CMake fragment), ``src/envfleet/families/<name>.py`` (its task ids, time limits,
thresholds and options: the one place these facts live), ``tests/families/<name>/`` and
``docs/families/<name>.md``. Registering imports no extension module: a family's module is
loaded on the first ``make`` of one of its ids. Adding a family adds one line below.
"""

import importlib

FAMILIES = (
    "example",
    "classic_control",
    "toy_text",
    "atari",
    "mujoco",
    "dm_control",
    "box2d",
    "minigrid",
    "robotics",
    "metaworld",
    "myosuite",
    "vizdoom",
    "procgen",
)

for _name in FAMILIES:
    importlib.import_module(f"envfleet.families.{_name}")
