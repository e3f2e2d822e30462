"""Gymnasium's side of the family alignment tests: a sync vector env of a task whose sub-envs
keep their own info dicts."""

from __future__ import annotations

import gymnasium as gym


class RawInfo(gym.Wrapper):
    """Keeps the info dict of its env's last reset or step as ``self.raw``. SyncVectorEnv
    batches an info key with the dtype of the first env that reports it, so an int there (toy
    text's reset ``prob=1``, HumanoidStandup-v4's impact cost 10) would round the other envs'
    floats (1/3 -> 0); the tests compare the values Gymnasium's envs themselves returned."""

    def reset(self, **kwargs):
        obs, self.raw = self.env.reset(**kwargs)
        return obs, self.raw

    def step(self, action):
        *out, self.raw = self.env.step(action)
        return (*out, self.raw)


def make_reference(task_id: str, num_envs: int, **kwargs) -> gym.vector.SyncVectorEnv:
    """``gym.make_vec(task_id, num_envs, vectorization_mode="sync")``, each env in RawInfo."""
    return gym.make_vec(
        task_id, num_envs=num_envs, vectorization_mode="sync", wrappers=[RawInfo], **kwargs
    )
