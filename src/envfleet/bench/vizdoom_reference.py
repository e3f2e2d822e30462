"""The ViZDoom family's reference in Python: vizdoom 1.3.2's own ``DoomGame`` (its Python
extension and engine) configured as envfleet configures its engines, with EnvPool's reward,
preprocessing and action set written out in NumPy and OpenCV. The bench runs it under
Gymnasium's vector envs; the alignment tests compare envfleet with it step for step.

It follows ``cpp/families/vizdoom/vizdoom_env.h`` (EnvPool 1.2.5's ``vizdoom_env.h``): the
scenario's cfg, then window hidden, PLAYER mode, the engine's episode timeout off, the
scenario WAD and map, the seed, the 16 info game variables added; a step holds the action for
``frame_skip`` tics; the reward is computed from the game variables in float32; each channel
plane is resized with ``cv2.resize`` (INTER_AREA, or INTER_LINEAR) and stacked. OpenCV comes
with the test extra.

The engine writes an ini file and a ``./_vizdoom`` folder in its working directory: the env
starts its engine from a temporary folder of its own, removed on ``close()``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import gymnasium
import numpy as np

# EnvPool's info keys (vizdoom_env.h kInfoVariables), in its order.
INFO_VARIABLES = (
    "AMMO2 AMMO3 AMMO4 AMMO5 AMMO6 AMMO7 ARMOR DAMAGECOUNT DEATHCOUNT FRAGCOUNT HEALTH "
    "HITCOUNT KILLCOUNT SELECTED_WEAPON SELECTED_WEAPON_AMMO USER2"
).split()

# Opposite button pairs of EnvPool's combined action set (by ViZDoom button number): when both
# are available, neither, the first or the second is pressed.
_PAIR_STARTS = (10, 12, 14, 16, 18, 31, 35)
_FIRST_WEAPON, _LAST_WEAPON, _SPEED, _FIRST_DELTA, _END = 21, 30, 8, 38, 43


def combined_actions(
    buttons: list[int], force_speed: bool, delta: dict[int, tuple[int, float, float]]
) -> list[list[float]]:
    """EnvPool's enumeration of button combinations (its ``BuildActionSet``), in its order:
    ``buttons`` are the available buttons' numbers, ``delta`` maps a delta button's number to
    ``(n, lo, hi)`` (n values from lo to hi in float32 steps)."""
    slot = dict.fromkeys(range(_END), -1)
    for i, button in enumerate(buttons):
        slot[int(button)] = i
    current = [0.0] * _END
    result: list[list[float]] = []

    def put(button: int, value: float) -> None:
        current[slot[button]] = value

    def walk(b: int) -> None:
        if b == _END:
            result.append(current[: len(buttons)])
            return
        if b >= _FIRST_DELTA:
            n, lo, hi = delta.get(b, (0, 0.0, 0.0))
            if slot[b] == -1 or n <= 1:
                return walk(b + 1)
            step = (np.float32(hi) - np.float32(lo)) / np.float32(n - 1)
            value = np.float32(lo)
            for _ in range(n):
                put(b, float(value))
                walk(b + 1)
                value = np.float32(value + step)
            return None
        if _FIRST_WEAPON <= b <= _LAST_WEAPON:
            walk(_LAST_WEAPON + 1)
            for w in range(_FIRST_WEAPON, _LAST_WEAPON + 1):
                if slot[w] != -1:
                    put(w, 1.0)
                    walk(_LAST_WEAPON + 1)
                    put(w, 0.0)
            return None
        if b in _PAIR_STARTS and slot[b] != -1 and slot[b + 1] != -1:
            walk(b + 2)
            put(b, 1.0)
            walk(b + 2)
            put(b, 0.0)
            put(b + 1, 1.0)
            walk(b + 2)
            put(b + 1, 0.0)
            return None
        if slot[b] == -1:
            return walk(b + 1)
        if b == _SPEED and force_speed:
            put(b, 1.0)
            return walk(b + 1)
        walk(b + 1)
        put(b, 1.0)
        walk(b + 1)
        put(b, 0.0)
        return None

    walk(0)
    return result


class VizdoomReference(gymnasium.Env):
    """One envfleet ViZDoom task (``task_id`` with envfleet's env ``options``) run by vizdoom's
    own ``DoomGame``. Observations, rewards, terminations and the info's game variables are
    envfleet's (EnvPool's); ``self.game`` is the DoomGame, ``self.state`` its last state."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, task_id: str, render_mode: str | None = None, **options: Any):
        import cv2
        import vizdoom as vzd

        import envfleet

        spec = envfleet.make_spec(task_id, **options)
        self.options = o = dict(spec.config.env_options)
        self.observation_space = spec.observation_space
        self.action_space = spec.action_space
        self.render_mode = render_mode
        self._cv2, self._vzd = cv2, vzd
        self.stack_num, self.frame_skip = o["stack_num"], o["frame_skip"]
        self.size = (o["img_width"], o["img_height"])
        self.interpolation = cv2.INTER_AREA if o["use_inter_area_resize"] else cv2.INTER_LINEAR
        self.episodic_life = o["episodic_life"]
        self.folder = tempfile.mkdtemp(prefix="envfleet-vizdoom-reference-")
        game = self.game = vzd.DoomGame()
        if o["cfg_path"]:
            game.load_config(os.path.abspath(o["cfg_path"]))
        game.set_vizdoom_path(o["vzd_path"])
        game.set_doom_game_path(o["iwad_path"])
        game.set_window_visible(False)
        if o["game_args"]:
            game.add_game_args(o["game_args"])
        game.set_mode(vzd.Mode.PLAYER)
        game.set_episode_timeout(0)
        if o["wad_path"]:
            game.set_doom_scenario_path(os.path.abspath(o["wad_path"]))
        game.set_doom_map(o["map_id"])
        game.set_doom_config_path(os.path.join(self.folder, "vizdoom.ini"))
        for name in INFO_VARIABLES:
            game.add_available_game_variable(getattr(vzd.GameVariable, name))
        self.variables = [v.name for v in game.get_available_game_variables()]
        self.info_index = [self.variables.index(name) for name in INFO_VARIABLES]
        self.positive = np.zeros(len(self.variables), np.float64)
        self.negative = np.zeros(len(self.variables), np.float64)
        for name, (pos, neg) in o["reward_config"].items():
            if name.upper() in self.variables:
                i = self.variables.index(name.upper())
                self.positive[i] = float(np.float32(pos))
                self.negative[i] = float(np.float32(neg))
        self.weapon_reward = np.zeros(10, np.float64)
        for slot, (weight,) in o["selected_weapon_reward_config"].items():
            self.weapon_reward[int(slot)] = float(np.float32(weight))
        self.buttons = [int(b) for b in game.get_available_buttons()]
        delta = {
            int(getattr(vzd.Button, name.upper())): (int(n), lo, hi)
            for name, (n, lo, hi) in o["delta_button_config"].items()
        }
        self.action_set = (
            combined_actions(self.buttons, o["force_speed"], delta)
            if o["use_combined_action"]
            else None
        )
        self.started = False
        self.state = None
        self.frames: list[np.ndarray] = []
        self.values = np.zeros(len(self.variables))
        self.bases = {"HITCOUNT": 0.0, "DAMAGECOUNT": 0.0, "DEATHCOUNT": 0.0}
        self.weapon, self.weapon_count = -1, 0

    # ---- Gymnasium ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.game.set_seed(int(seed))
        if not self.started:
            cwd = os.getcwd()
            os.chdir(self.folder)  # the engine inherits it: its ./_vizdoom goes there
            try:
                self.game.init()
            finally:
                os.chdir(cwd)
            self.started = True
        else:
            self.game.new_episode()
        reward = self._observe(new_episode=True)
        assert reward == 0.0
        return self._obs(), self._info()

    def step(self, action):
        if self.action_set is not None:
            buttons = self.action_set[int(action)]
        else:
            buttons = [float(a) for a in np.asarray(action, np.float64).reshape(-1)]
        self.game.set_action(buttons)
        self.game.advance_action(self.frame_skip, True)
        terminated = self.game.is_episode_finished() or (
            self.episodic_life and self.game.is_player_dead()
        )
        reward = self._observe(new_episode=False)
        return self._obs(), reward, terminated, False, self._info()

    def render(self):
        if self.state is None:
            return None
        screen = self.state.screen_buffer
        if screen.ndim == 2:
            return np.repeat(screen[:, :, None], 3, axis=2)
        if screen.shape[0] in (1, 3, 4) and screen.shape[0] < screen.shape[-1]:
            screen = np.moveaxis(screen, 0, -1)
        return np.ascontiguousarray(screen[:, :, :3])

    def close(self):
        self.game.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # ---- EnvPool's semantics -----------------------------------------------------------------

    def _obs(self) -> np.ndarray:
        return np.concatenate(self.frames, axis=0)

    def _info(self) -> dict[str, float]:
        return {
            name: float(self.values[i])
            for name, i in zip(INFO_VARIABLES, self.info_index, strict=True)
        }

    def _observe(self, new_episode: bool) -> float:
        """EnvPool's GetState: game variables, reward, the next stacked frame (vizdoom_env.h
        Observe); a finished episode has no state: reward 0, the last observation kept."""
        self.state = state = self.game.get_state()
        if state is None:
            return 0.0
        now = np.array(state.game_variables, np.float64)
        last = now.copy() if new_episode else self.values.copy()
        values = now.copy()
        if new_episode:
            self.weapon, self.weapon_count = -1, 0
        for name in self.bases:
            if name in self.variables:
                i = self.variables.index(name)
                if new_episode:
                    self.bases[name] = values[i]
                    last[i] = 0.0
                values[i] -= self.bases[name]
        weapon, ammo = -1, 0
        reward = np.float32(0.0)
        for i, name in enumerate(self.variables):
            delta = values[i] - last[i]
            if name == "DAMAGECOUNT" and delta >= 200:
                delta = 200.0
            elif name == "HITCOUNT" and delta >= 5:
                delta = 5.0
            elif name == "SELECTED_WEAPON":
                weapon = int(values[i])
            elif name == "SELECTED_WEAPON_AMMO":
                ammo = int(values[i])
            elif name == "HEALTH":
                if last[i] < 0 and values[i] < 0:
                    last[i] = values[i] = 100.0
                elif values[i] < 0:
                    values[i] = last[i]
                elif last[i] < 0:
                    last[i] = values[i]
                delta = values[i] - last[i]
            if delta >= 0:
                reward = np.float32(reward + np.float32(delta * self.positive[i]))
            else:
                reward = np.float32(reward - np.float32(delta * self.negative[i]))
        if weapon == self.weapon:
            self.weapon_count += 1
        else:
            self.weapon, self.weapon_count = weapon, 1
        if 0 <= weapon < 10 and self.weapon_count >= self.options["weapon_duration"] and ammo > 0:
            reward = np.float32(reward + np.float32(self.weapon_reward[weapon]))
        self.values = values
        frame = self._resize(state.screen_buffer)
        self.frames = [frame] * self.stack_num if new_episode else [*self.frames[1:], frame]
        return float(reward)

    def _resize(self, screen: np.ndarray) -> np.ndarray:
        """(channels, h, w) of the screen buffer, each plane resized as EnvPool does."""
        planes = screen[None] if screen.ndim == 2 else screen
        if planes.shape[-1] in (3, 4) and planes.shape[0] not in (1, 3):  # interleaved
            planes = np.moveaxis(planes, -1, 0)
        return np.stack(
            [
                self._cv2.resize(
                    np.ascontiguousarray(p), self.size, interpolation=self.interpolation
                )
                for p in planes
            ]
        )
