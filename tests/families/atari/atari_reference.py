"""Reference trajectories for the Atari alignment tests, from ale-py 0.12.1 and Gymnasium 1.4.0.

Run as a script in its own process (``python atari_reference.py request.json out.npz``), so
that ale-py's copy of ALE is never loaded next to envfleet's. For each seed in the request it
builds the reference pipeline

    gymnasium.make("ALE/<Game>-v5", frameskip=1, repeat_action_probability=p, ...)
      -> [EnvPoolReset]                                   only with a FIRE reset
      -> AtariPreprocessing(frame_skip, screen_size, noop_max, terminal_on_life_loss, ...)
      -> FrameStackObservation(stack_num)

resets it with ``seed``, and replays the given actions with NEXT_STEP autoreset (the step
after an episode ends returns the next episode's first observation, reward 0, and ignores
its action), which is how envfleet's pool reports episodes. Without a FIRE reset the no-ops
are AtariPreprocessing's own. With one, EnvPool's order applies: the same draw
n = np_random.integers(1, noop_max + 1) (0 if noop_max == 0), then n - 1 no-ops and FIRE,
done by the EnvPoolReset wrapper under AtariPreprocessing(noop_max=0).

Three EnvPool behaviours that Gymnasium's wrappers lack are added on top, on the wrappers'
own state: a life loss counts only while lives remain (in games that play on after the lives
counter reaches 0, Atlantis and WizardOfWor, the last life is played to ALE's game over
within the episode), episodic life (after a life loss that is not the end of the game, the
next step is a soft reset: no-ops and FIRE on the running game, the frame pushed onto the
stack) and
EnvPool's time limit, counted in steps since the last hard reset: a soft reset keeps the
elapsed-step count (it reports the count the life ended at), and a truncation, also one on a
life-losing step, is followed by a hard reset.
"""

from __future__ import annotations

import json
import sys

import ale_py
import cv2
import gymnasium
import numpy as np
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

gymnasium.register_envs(ale_py)
FIRE = 1  # ale_py.Action.FIRE


def noop(unwrapped) -> None:
    """One NOOP frame. ALE's NOOP, not action index 0: in a few minimal action sets
    (Backgammon's) index 0 is FIRE; EnvPool's no-ops are ALE's NOOP."""
    unwrapped.ale.act(ale_py.Action.NOOP)


class EnvPoolReset(gymnasium.Wrapper):
    """EnvPool's reset: n - 1 no-ops then FIRE (n drawn as AtariPreprocessing draws it)."""

    def __init__(self, env, noop_max: int):
        super().__init__(env)
        self.noop_max = noop_max
        self.fire_index = [a.value for a in env.unwrapped._action_set].index(FIRE)

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        obs, info = self.noops_and_fire(obs, info)
        return obs, info

    def noops_and_fire(self, obs, info, base_reset=True):
        unwrapped = self.env.unwrapped
        n = unwrapped.np_random.integers(1, self.noop_max + 1) if self.noop_max > 0 else 0
        self.hard = base_reset
        for _ in range(max(n - 1, 0)):
            noop(unwrapped)
            if unwrapped.ale.game_over():
                obs, info = self.env.reset()
                self.hard = True
        obs, _, _, _, info = self.env.step(self.fire_index)
        return obs, info


class LastLifeLives:
    """ALE's interface as AtariPreprocessing sees it, but for lives(): once the counter has
    reached 0 while the game goes on, it reports the count before, so the loss of the last
    life is no life loss (EnvPool: ``episodic_life && 0 < lives && lives < lives_before``)."""

    def __init__(self, ale, pre):
        self._ale, self._pre = ale, pre

    def __getattr__(self, name):
        return getattr(self._ale, name)

    def lives(self) -> int:
        lives = self._ale.lives()
        return lives if lives > 0 or self._ale.game_over() else self._pre.lives


class EnvPoolLifeLoss(AtariPreprocessing):
    """AtariPreprocessing whose terminal_on_life_loss counts a loss only while lives remain."""

    @property
    def ale(self):
        return LastLifeLives(self.env.unwrapped.ale, self)


def make_reference(req: dict):
    game = req["game"]
    kwargs = dict(
        frameskip=1,
        repeat_action_probability=req.get("repeat_action_probability", 0.0),
        full_action_space=req.get("full_action_space", False),
    )
    if req.get("mode", -1) != -1:
        kwargs["mode"] = req["mode"]
    if req.get("difficulty", -1) != -1:
        kwargs["difficulty"] = req["difficulty"]
    name = ale_py.registration.rom_id_to_name(game)
    if req.get("screens"):
        kwargs["render_mode"] = "rgb_array"
    if f"ALE/{name}-v5" in gymnasium.registry:
        env = gymnasium.make(f"ALE/{name}-v5", **kwargs)
    else:  # the two-player ROMs ale-py does not register
        env = ale_py.env.AtariEnv(game=game, **kwargs)
    noop_max = req.get("noop_max", 30)
    fire = req.get("use_fire_reset", True) and FIRE in [a.value for a in env.unwrapped._action_set]
    reset_wrapper = None
    if fire:
        env = reset_wrapper = EnvPoolReset(env, noop_max)
    pre = EnvPoolLifeLoss(
        env,
        noop_max=0 if fire else noop_max,
        frame_skip=req.get("frame_skip", 4),
        screen_size=(req.get("img_width", 84), req.get("img_height", 84)),
        terminal_on_life_loss=req.get("episodic_life", False),
        grayscale_obs=req.get("gray_scale", True),
    )
    stack = FrameStackObservation(pre, req.get("stack_num", 4))
    return stack, pre, reset_wrapper, fire, noop_max


def soft_reset(stack, pre, reset_wrapper, fire, noop_max):
    """EnvPool's soft reset after a life loss: no-ops (and FIRE) on the running game."""
    unwrapped = pre.env.unwrapped
    ale = unwrapped.ale
    hard = False
    if fire:
        reset_wrapper.noops_and_fire(None, {}, base_reset=False)
        hard = reset_wrapper.hard
    else:
        n = unwrapped.np_random.integers(1, noop_max + 1) if noop_max > 0 else 0
        for _ in range(n):
            noop(unwrapped)
            if ale.game_over():
                pre.env.reset()
                hard = True
    pre.lives = ale.lives()
    if pre.grayscale_obs:
        ale.getScreenGrayscale(pre.obs_buffer[0])
    else:
        ale.getScreenRGB(pre.obs_buffer[0])
    pre.obs_buffer[1].fill(0)
    frame = pre._get_obs()
    for _ in range(stack.stack_size if hard else 1):
        stack.obs_queue.append(frame)
    return np.stack(list(stack.obs_queue))


def channel_first(obs: np.ndarray) -> np.ndarray:
    """(stack, H, W[, 3]) -> EnvPool's (stack * C, H, W)."""
    if obs.ndim == 4:
        obs = obs.transpose(0, 3, 1, 2)
        return obs.reshape(-1, *obs.shape[2:])
    return obs


def run(req: dict, seed: int, actions: np.ndarray) -> dict:
    if req.get("interpolation") == "linear":  # EnvPool's use_inter_area_resize=False
        resize = cv2.resize
        cv2.resize = lambda src, size, interpolation=None: resize(
            src, size, interpolation=cv2.INTER_LINEAR
        )
    stack, pre, reset_wrapper, fire, noop_max = make_reference(req)
    episodic = req.get("episodic_life", False)
    limit = req.get("max_episode_steps", 27000)
    ale = stack.unwrapped.ale
    keys = ("obs", "reward", "terminated", "truncated", "lives", "game_over", "ram", "elapsed")
    keys += ("screen",) if req.get("screens") else ()
    out = {k: [] for k in keys}

    def record(obs, reward, terminated, truncated, elapsed):
        out["obs"].append(channel_first(np.asarray(obs)))
        out["reward"].append(reward)
        out["terminated"].append(terminated)
        out["truncated"].append(truncated)
        out["lives"].append(ale.lives())
        out["game_over"].append(ale.game_over(with_truncation=False))
        out["ram"].append(ale.getRAM().copy())
        out["elapsed"].append(elapsed)
        if req.get("screens"):  # what ale-py's render() returns: the current screen in RGB
            out["screen"].append(stack.unwrapped.render())

    obs, _ = stack.reset(seed=seed)
    record(obs, 0.0, False, False, 0)
    elapsed, done, continue_game = 0, False, False
    for action in actions:
        if done:
            if continue_game:
                obs = soft_reset(stack, pre, reset_wrapper, fire, noop_max)
            else:
                obs, _ = stack.reset()
                elapsed = 0
            done = False
            record(obs, 0.0, False, False, elapsed)
            continue
        lives_before = pre.lives
        obs, reward, terminated, truncated, _ = stack.step(int(action))
        assert not truncated, "ALE's own frame limit is not expected in these short runs"
        elapsed += 1
        truncated = limit > 0 and elapsed >= limit
        game_over = ale.game_over(with_truncation=False)
        continue_game = (
            episodic
            and terminated
            and not truncated
            and not game_over
            and 0 < pre.lives < lives_before
        )
        done = terminated or truncated
        record(obs, reward, terminated, truncated, elapsed)
    return {k: np.asarray(v) for k, v in out.items()}


def main() -> None:
    with open(sys.argv[1]) as f:
        req = json.load(f)
    results = {}
    for i, seed in enumerate(req["seeds"]):
        actions = np.asarray(req["actions"][i], dtype=np.int64)
        for key, value in run(req, seed, actions).items():
            results[f"{key}_{i}"] = value
    np.savez(sys.argv[2], **results)


if __name__ == "__main__":
    main()
