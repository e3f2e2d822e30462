"""Atari task ids (ALE 0.12.1, built from the ale-py sdist into envfleet._atari, GPL-2.0):
``<Game>-v5`` for every ROM that ale-py 0.12.1 ships, named as EnvPool names them (the CamelCase
of the ROM id: ``pong`` -> ``Pong-v5``, ``tic_tac_toe_3d`` -> ``TicTacToe3d-v5``), with
EnvPool's options and defaults.

The ROMs are read from the installed ``ale-py`` wheel. Its directory is found with
``importlib.util.find_spec``, which does not import ``ale_py``: importing it would load a
second copy of ALE (ale-py's own extension) into the process for nothing.
"""

from __future__ import annotations

import importlib.util
import os

from envfleet.registry import Family, register

# ALE is linked into envfleet._atari; the ROMs come from the ale-py wheel (envfleet[atari]).
ATARI = Family(
    "atari",
    module="envfleet._atari",
    extra="atari",
    requires=("ale_py",),
    envpool_package="envpool.atari",
)

# Every ROM that ale-py 0.12.1 ships (ale_py/roms/*.bin) and that ALE can run single-player:
# the 104 games of ale-py's ALE/<Game>-v5 ids and of EnvPool. The wheel's four two-player ROMs
# (combat, joust, maze_craze, warlords) are left out: ALE 0.12.1's single-agent interface has
# no game wrapper for them (loading one fails).
GAMES = (
    "adventure air_raid alien amidar assault asterix asteroids atlantis atlantis2 backgammon "
    "bank_heist basic_math battle_zone beam_rider berzerk blackjack bowling boxing breakout "
    "carnival casino centipede chopper_command crazy_climber crossbow darkchambers "
    "defender demon_attack donkey_kong double_dunk earthworld elevator_action enduro entombed "
    "et fishing_derby flag_capture freeway frogger frostbite galaxian gopher gravitar hangman "
    "haunted_house hero human_cannonball ice_hockey jamesbond journey_escape kaboom "
    "kangaroo keystone_kapers king_kong klax koolaid krull kung_fu_master laser_gates "
    "lost_luggage mario_bros miniature_golf montezuma_revenge mr_do ms_pacman "
    "name_this_game othello pacman phoenix pitfall pitfall2 pong pooyan private_eye qbert "
    "riverraid road_runner robotank seaquest sir_lancelot skiing solaris space_invaders "
    "space_war star_gunner superman surround tennis tetris tic_tac_toe_3d time_pilot trondead "
    "turmoil tutankham up_n_down venture video_checkers video_chess video_cube video_pinball "
    "wizard_of_wor word_zapper yars_revenge zaxxon"
).split()


def task_name(game: str) -> str:
    """EnvPool's task name of a ROM id: ``montezuma_revenge`` -> ``MontezumaRevenge``."""
    return "".join(part.capitalize() for part in game.split("_"))


def rom_dir() -> str:
    """The installed ale-py's ROM directory, or "" if ale-py is not installed."""
    try:
        spec = importlib.util.find_spec("ale_py")
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(list(spec.submodule_search_locations)[0], "roms")


_ROM_DIR = rom_dir()

for _game in GAMES:
    # 27000 steps = 108,000 frames, as EnvPool and ale-py's v5 ids.
    register(
        f"{task_name(_game)}-v5",
        "Atari",
        family=ATARI,
        max_episode_steps=27000,
        game=_game,
        rom_dir=_ROM_DIR,
        # EnvPool 1.2.5 always returns the 128 bytes of RAM as info["ram"]; ale-py's envs
        # (and so Gymnasium's conventions) do not.
        envpool_options={"include_ram": True},
    )
