"""ViZDoom task ids (EnvPool 1.2.5's 21 Doom scenarios), run by envfleet._vizdoom: one ViZDoom
1.3.2 engine process per env, driven by ViZDoom's client library compiled into the module.

Each id is a scenario, ``<Scenario>-v1`` with the CamelCase of its file name
(``health_gathering`` -> ``HealthGathering-v1``), as EnvPool names them: the .cfg and .wad of the
16 scenarios ViZDoom ships are read from the installed ``vizdoom`` package (its
``scenarios/``), those of EnvPool's four D1-D4 scenarios (from the Direct Future Prediction
paper; ViZDoom does not ship them) from the installed ``envpool-assets`` package. The engine
and the IWAD (freedoom2.wad) come from the ``vizdoom`` package too. ``VizdoomCustom-v1`` runs
the scenario its ``cfg_path`` / ``wad_path`` options name. Every id has EnvPool's time limit
of 525 steps (2100 tics at frame_skip 4) and its options and defaults.

The packages are located without being imported: importing ``vizdoom`` would load its own
copy of the client library for nothing.
"""

from __future__ import annotations

import os

from envfleet.families._assets import package_dir
from envfleet.registry import Family, register

VIZDOOM = Family(
    "vizdoom",
    module="envfleet._vizdoom",
    extra="vizdoom",
    requires=("vizdoom",),
    envpool_package="envpool.vizdoom",
    build_note=(
        "envfleet._vizdoom is built only where Boost is found at build time (Debian: apt-get "
        "install libboost-dev libboost-filesystem-dev libboost-thread-dev libboost-chrono-dev), "
        "then reinstall envfleet"
    ),
)

# The scenarios of vizdoom 1.3.2's scenarios/ that EnvPool 1.2.5 lists (every .cfg with a .wad
# of the same name).
VIZDOOM_SCENARIOS = (
    "basic basic_audio basic_notifications cig deadly_corridor deathmatch defend_the_center "
    "defend_the_line health_gathering health_gathering_supreme multi_duel my_way_home "
    "predict_position rocket_basic simpler_basic take_cover"
).split()
# EnvPool's own scenarios, from envpool-assets' vizdoom/maps/.
ENVPOOL_SCENARIOS = ("D1_basic", "D2_navigation", "D3_battle", "D4_battle2")
# EnvPool's time limit for every id (steps of frame_skip tics).
MAX_EPISODE_STEPS = 525


def task_name(scenario: str) -> str:
    """EnvPool's task name of a scenario file: ``health_gathering`` -> ``HealthGathering``."""
    return "".join(part.capitalize() for part in scenario.split("_"))


def engine_path() -> str:
    """The installed vizdoom package's engine executable, or "" without the package."""
    folder = package_dir("vizdoom")
    return os.path.join(folder, "vizdoom") if folder else ""


_ENGINE = engine_path()
_IWAD = os.path.join(os.path.dirname(_ENGINE), "freedoom2.wad") if _ENGINE else ""
_FOLDERS = {
    **dict.fromkeys(VIZDOOM_SCENARIOS, package_dir("vizdoom", "scenarios")),
    **dict.fromkeys(ENVPOOL_SCENARIOS, package_dir("envpool_assets", "vizdoom", "maps")),
}

for _scenario, _folder in _FOLDERS.items():
    register(
        f"{task_name(_scenario)}-v1",
        "Vizdoom",
        family=VIZDOOM,
        max_episode_steps=MAX_EPISODE_STEPS,
        cfg_path=os.path.join(_folder, f"{_scenario}.cfg") if _folder else "",
        wad_path=os.path.join(_folder, f"{_scenario}.wad") if _folder else "",
        vzd_path=_ENGINE,
        iwad_path=_IWAD,
        # These arenas have deathmatch starts and no single-player start: the engine refuses
        # them without -deathmatch (EnvPool registers them so since its 1.2.5 release).
        game_args="-deathmatch" if _scenario in ("cig", "multi_duel") else "",
    )
register(
    "VizdoomCustom-v1",
    "Vizdoom",
    family=VIZDOOM,
    max_episode_steps=MAX_EPISODE_STEPS,
    vzd_path=_ENGINE,
    iwad_path=_IWAD,
)
