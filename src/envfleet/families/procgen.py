"""Procgen task ids (EnvPool 1.2.5's 50: OpenAI Procgen 0.10.7's 16 games in each of their
distribution modes), run by envfleet._procgen on procgen's own engine library.

An id is ``<Game><Mode>-v0`` (``CoinrunHard-v0``, ``CaveflyerMemory-v0``), as EnvPool names
them; the game and the mode are its options ``env_name`` and ``distribution_mode`` (0 easy, 1
hard, 2 extreme, 10 memory, 20 exploration). The engine (procgen's compiled ``libenv.so``, Qt 5
linked in, and the game assets, from OpenAI's procgen 0.10.7 wheel) is unpacked into envfleet
at build time (cpp/families/procgen/procgen.cmake), so nothing is installed at run time. Time
limits are each game's own (the engine's ``Game::timeout``), which the spec reports.
"""

from envfleet.registry import Family, register

PROCGEN = Family(
    "procgen",
    module="envfleet._procgen",
    extra="procgen",
    envpool_package="envpool.procgen",
    build_note=(
        "envfleet._procgen is built only where the procgen 0.10.7 wheel (its engine) could be "
        "downloaded at build time (or given with -Ccmake.define.ENVFLEET_PROCGEN_WHEEL=<path>), "
        "then reinstall envfleet"
    ),
)

# procgen's games and the distribution modes each accepts (procgen/src/game.cpp's
# parse_options; exploration: procgen/env.py's EXPLORATION_LEVEL_SEEDS), as EnvPool lists them.
MODES = {"Easy": 0, "Hard": 1, "Extreme": 2, "Memory": 10, "Exploration": 20}
GAMES = {
    "bigfish": ("Easy", "Hard"),
    "bossfight": ("Easy", "Hard"),
    "caveflyer": ("Easy", "Hard", "Memory", "Exploration"),
    "chaser": ("Easy", "Hard", "Extreme"),
    "climber": ("Easy", "Hard", "Exploration"),
    "coinrun": ("Easy", "Hard", "Exploration"),
    "dodgeball": ("Easy", "Hard", "Extreme", "Memory"),
    "fruitbot": ("Easy", "Hard"),
    "heist": ("Easy", "Hard", "Memory", "Exploration"),
    "jumper": ("Easy", "Hard", "Memory", "Exploration"),
    "leaper": ("Easy", "Hard", "Extreme", "Exploration"),
    "maze": ("Easy", "Hard", "Memory", "Exploration"),
    "miner": ("Easy", "Hard", "Memory"),
    "ninja": ("Easy", "Hard", "Exploration"),
    "plunder": ("Easy", "Hard"),
    "starpilot": ("Easy", "Hard", "Extreme"),
}

for _game, _modes in GAMES.items():
    for _mode in _modes:
        register(
            f"{_game.capitalize()}{_mode}-v0",
            "Procgen",
            family=PROCGEN,
            env_name=_game,
            distribution_mode=MODES[_mode],
        )
