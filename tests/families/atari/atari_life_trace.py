"""Episodic-life traces of Breakout-v5 from EnvPool or envfleet, for test_atari.py.

Run as a script in its own process (``python atari_life_trace.py envpool|envfleet``; EnvPool
brings its own ALE), it prints one JSON object of traces that depend only on the semantics
compared, not on the no-op streams (EnvPool's and envfleet's differ): with NOOP or FIRE on
every step, Breakout loses a life a fixed number of steps after its FIRE reset launches the
ball, whatever the no-ops before it.

  gym_limit_<n>        per step [elapsed_step, lives, terminated, truncated, stack all one
                       frame]: episodic_life, max_episode_steps=n, NOOP
  gym_explicit_resets  reset() right after a life loss, later in a life, reset(env_id) of one
                       env, async_reset()
  dm_episodic_<b>_zero_<b>  per step [step_type, discount, lives], FIRE
"""

from __future__ import annotations

import json
import sys

import numpy as np

LIB = sys.argv[1]
if LIB == "envpool":
    import envpool

    make_gym, make_dm = envpool.make_gymnasium, envpool.make_dm
else:
    import envfleet

    make_gym, make_dm = envfleet.make, envfleet.make_dm
TASK = "Breakout-v5"
NOOP, FIRE = 0, 1
NO = np.zeros(2, bool)


def row(info, term, trunc, i=0):
    return [int(info["elapsed_step"][i]), int(info["lives"][i]), bool(term[i]), bool(trunc[i])]


def one_frame(obs, i=0):
    """Whether every stacked frame equals the first (a hard reset fills the stack)."""
    return bool((obs[i] == obs[i, :1]).all())


def main() -> None:
    out = {}
    for limit in (60, 27000):
        env = make_gym(TASK, num_envs=1, seed=3, episodic_life=True, max_episode_steps=limit)
        obs, info = env.reset()
        trace = [row(info, NO, NO) + [one_frame(obs)]]
        for _ in range(140):
            obs, _, term, trunc, info = env.step(np.full(1, NOOP))
            trace.append(row(info, term, trunc) + [one_frame(obs)])
        out[f"gym_limit_{limit}"] = trace
        env.close()

    env = make_gym(TASK, num_envs=2, seed=3, episodic_life=True)
    obs, info = env.reset()
    events = []
    term = trunc = NO
    while not term.any():
        obs, _, term, trunc, info = env.step(np.full(2, NOOP))
    events.append(["lost", row(info, term, trunc, 0), row(info, term, trunc, 1)])
    obs, info = env.reset()
    events.append(["reset", row(info, NO, NO, 0), row(info, NO, NO, 1), one_frame(obs, 0)])
    for steps in (30, 10):
        for _ in range(steps):
            obs, _, term, trunc, info = env.step(np.full(2, NOOP))
        events.append(["stepped", row(info, term, trunc, 0), row(info, term, trunc, 1)])
    obs, info = env.reset(np.array([1]))
    events.append(["reset 1", info["env_id"].tolist(), row(info, NO, NO, 0), one_frame(obs, 0)])
    obs, _, term, trunc, info = env.step(np.full(2, NOOP))
    events.append(["stepped", row(info, term, trunc, 0), row(info, term, trunc, 1)])
    env.async_reset()
    obs, _, term, trunc, info = env.recv()
    events.append(["async_reset", sorted([row(info, term, trunc, i) for i in range(2)])])
    out["gym_explicit_resets"] = events
    env.close()

    for episodic in (True, False):
        for zero in (True, False):
            env = make_dm(
                TASK, num_envs=1, seed=3, episodic_life=episodic, zero_discount_on_life_loss=zero
            )
            ts = env.reset()
            trace = []
            for _ in range(160):
                trace.append(
                    [int(ts.step_type[0]), float(ts.discount[0]), int(ts.observation.lives[0])]
                )
                ts = env.step(np.full(1, FIRE))
            out[f"dm_episodic_{episodic}_zero_{zero}"] = trace
            env.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
