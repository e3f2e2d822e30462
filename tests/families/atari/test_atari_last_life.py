"""Episodic life in games that play on after their lives counter reaches 0.

In Atlantis and WizardOfWor ALE's lives counter drops to 0 while the game goes on: the last
life is played until ALE reports the game over. EnvPool counts a life loss only while lives
remain (``0 < lives < lives_before``), so with ``episodic_life`` the last life belongs to the
episode that ends at the game over. Checked frame for frame against ale-py (the reference
pipeline of test_atari.py, whose life-loss rule is EnvPool's), and the episode structure
against EnvPool 1.2.5 itself.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_isolated
from test_atari import check_alignment

# (game, steps): enough random-action steps (seeded, so fixed) for the first game over, which
# comes at step 1271 in Atlantis and 1398 in WizardOfWor.
GAMES = [("atlantis", 1300), ("wizard_of_wor", 1420)]


@pytest.mark.parametrize("game,steps", GAMES, ids=[g for g, _ in GAMES])
def test_last_life_is_played_to_the_game_over(tmp_path, game, steps):
    for ours in check_alignment(tmp_path, game, steps, num_envs=1, episodic_life=True):
        game_overs = np.flatnonzero(ours["game_over"])
        assert len(game_overs) >= 1
        first_game = slice(0, game_overs[0] + 1)
        lives = ours["lives"][first_game]
        terminated = ours["terminated"][first_game]
        # Steps on the last life, lives counter at 0, none of them ends the episode...
        playing_on = (lives == 0) & ~terminated
        assert playing_on.sum() >= 2
        # ...and every episode end before the game over is a life lost with lives left (the
        # game goes on: a soft reset). (Atlantis gains lives too: no count of the losses.)
        losses = np.flatnonzero(terminated[:-1])
        assert len(losses) >= 2
        assert (lives[losses] > 0).all()
        assert not ours["game_over"][losses].any()


EPISODE_ENDS = """
import json, sys
import numpy as np
lib = sys.argv[1]
if lib == "envpool":
    import envpool
    env = envpool.make_gymnasium("{task}", num_envs=1, seed=1, episodic_life=True)
else:
    import envfleet
    env = envfleet.make("{task}", num_envs=1, seed=1, episodic_life=True)
env.reset()
rng = np.random.default_rng(5)
ends, zero_lives_steps = [], 0
while True:
    _, _, term, trunc, info = env.step(rng.integers(0, env.action_space.n, 1))
    lives, game_over = int(info["lives"][0]), bool(info["terminated"][0])
    zero_lives_steps += int(lives == 0 and not term[0])
    if term[0] or trunc[0]:
        ends.append([lives, game_over, bool(trunc[0])])
        if game_over or trunc[0]:
            break
print(json.dumps(dict(ends=ends, zero_lives_steps=zero_lives_steps)))
"""


def episode_ends(lib: str, task: str) -> dict:
    code = f"import sys; sys.argv = ['-', {lib!r}]\n" + EPISODE_ENDS.format(task=task)
    rc, out, err = run_isolated(code, timeout=300)
    assert rc == 0, err[-3000:]
    return json.loads(out)


def structure(ends: list) -> list:
    """Episode ends as [lives left, game over, truncated], the lives count made a yes/no."""
    return [[lives > 0, game_over, truncated] for lives, game_over, truncated in ends]


@pytest.mark.parametrize("task", ["Atlantis-v5", "WizardOfWor-v5"])
def test_episode_ends_match_envpool(task):
    """One game's episode ends as EnvPool 1.2.5 structures them: each life lost while lives
    remain ends an episode, then the game over ends the last one, after steps played with the
    counter at 0. The games themselves differ (EnvPool's no-op stream is its own, and it plays
    a life-losing step to its end), so the number of lives lost may differ, not the pattern."""
    rc, _, _ = run_isolated("import envpool")
    if rc != 0:
        pytest.skip("envpool is not installed")
    ours, theirs = episode_ends("envfleet", task), episode_ends("envpool", task)
    for result in (ours, theirs):
        pattern = structure(result["ends"])
        assert pattern[:-1] == [[True, False, False]] * (len(pattern) - 1), result
        assert result["ends"][-1] == [0, True, False], result
        assert result["zero_lives_steps"] > 0, result
