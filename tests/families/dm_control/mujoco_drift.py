"""How far dm_control 1.0.50 on its own MuJoCo (3.17.0) drifts from envfleet on MuJoCo 4.0.0.

Not a test (pytest does not collect it): the measurement behind the table in
docs/families/dm_control.md, in two steps and two environments, since one process holds one
MuJoCo:

    # 1. envfleet (this venv): seed 0, one env, 1000 uniform actions in [-1, 1] per task
    python tests/families/dm_control/mujoco_drift.py record drift.npz
    # 2. a venv with `pip install mujoco==3.17.0 dm_control==1.0.50` (no patch needed there)
    python tests/families/dm_control/mujoco_drift.py compare drift.npz

`compare` prints, per task id: the largest absolute observation difference at the reset, at
step 100 and over the episode, the largest reward difference, and the first step where an
observation differs by more than 1e-6 (-1: never).
"""

from __future__ import annotations

import argparse

import numpy as np

STEPS = 1000


def _flat(observation) -> np.ndarray:
    return np.concatenate([np.ravel(v) for v in observation])


def record(path: str) -> None:
    from test_dm_control import TASKS  # task id -> (domain, task), beside this file

    import envfleet

    out = {}
    for task_id, (domain, task) in sorted(TASKS.items()):
        env = envfleet.make_dm(
            task_id, num_envs=1, seed=0, max_episode_steps=0, conventions="dm_env"
        )
        actions = np.random.default_rng(0).uniform(-1, 1, size=(STEPS, *env.action_spec().shape))
        ts = env.reset()
        keys = [k for k in ts.observation._fields if k != "env_id"]
        obs, rewards = [_flat(getattr(ts.observation, k)[0] for k in keys)], []
        for action in actions:
            ts = env.step(action[None])
            obs.append(_flat(getattr(ts.observation, k)[0] for k in keys))
            rewards.append(float(ts.reward[0]))
        env.close()
        out[f"{task_id}/domain"] = np.array(f"{domain}/{task}")
        out[f"{task_id}/obs"] = np.array(obs)
        out[f"{task_id}/reward"] = np.array(rewards)
        out[f"{task_id}/actions"] = actions
    np.savez(path, **out)


def compare(path: str) -> None:
    from dm_control import suite

    data = np.load(path)
    for task_id in sorted({key.split("/")[0] for key in data.files}):
        domain, task = str(data[f"{task_id}/domain"]).split("/")
        env = suite.load(domain, task, task_kwargs={"random": 0})
        if domain == "quadruped":  # no rendering contexts (see dm_control_reference.py)
            type(env.physics).contexts = property(lambda self: None)
        ts = env.reset()
        obs, rewards = [_flat(ts.observation.values())], []
        for action in data[f"{task_id}/actions"]:
            ts = env.step(action)
            obs.append(_flat(ts.observation.values()))
            rewards.append(ts.reward)
        d_obs = np.abs(np.array(obs) - data[f"{task_id}/obs"]).max(axis=1)
        d_reward = np.abs(np.array(rewards, dtype=np.float64) - data[f"{task_id}/reward"])
        far = np.flatnonzero(d_obs > 1e-6)
        first = int(far[0]) if far.size else -1
        print(
            f"{task_id} {d_obs[0]:.1e} {d_obs[100]:.1e} {d_obs.max():.1e} "
            f"{d_reward.max():.1e} {first}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("record", "compare"))
    parser.add_argument("path")
    args = parser.parse_args()
    record(args.path) if args.step == "record" else compare(args.path)
