"""The reference for the MyoSuite tests: myosuite 3.0.0 itself, installed alone for the tests
(``envfleet.bench.references.import_myosuite``: ``pip install --no-deps`` into envfleet's
cache folder, once, with its one-line fix for MuJoCo 4.0.0), its envs made by
``gymnasium.make(id)`` as its registration builds them (the muscle-condition wrappers, the
instability termination, the time limit), and lockstep runs of them next to envfleet's pools.
"""

from __future__ import annotations

import dataclasses
import os

# The reference's MujocoRenderer and envfleet read MUJOCO_GL when they make their first GL
# context (headless here: EGL unless the run says otherwise); set before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import envfleet  # noqa: E402
from envfleet.bench import references  # noqa: E402

_imported = False


def import_myosuite():
    """myosuite 3.0.0; fails the calling test when it cannot be had (never skips)."""
    global _imported
    if not _imported:
        try:
            references.import_myosuite()
        except Exception as exc:
            pytest.fail(f"the reference myosuite {references.MYOSUITE[1]} is not available: "
                        f"{exc}", pytrace=False)  # fmt: skip
        _imported = True


def make_reference(task_id: str, **kwargs):
    """``gymnasium.make(task_id)`` of the reference (its registered wrappers included)."""
    import_myosuite()
    import gymnasium

    return gymnasium.make(task_id, **kwargs)


def model_arrays(model) -> dict[str, np.ndarray]:
    """Every array of a compiled MuJoCo model, by name (to compare two models field by field)."""
    return {
        name: value
        for name in dir(model)
        if not name.startswith("_") and isinstance(value := getattr(model, name), np.ndarray)
    }


@dataclasses.dataclass
class Mismatch:
    step: int
    what: str
    ours: object
    theirs: object


@dataclasses.dataclass
class Run:
    mismatch: Mismatch | None  # the first difference, or None
    steps: int  # steps compared
    episodes: int  # episodes that ended (terminated or truncated)


def info_keys(env) -> list[str]:
    """The reward terms the reference's step info holds (its reward dict but dense and done)."""
    return [k for k in env.unwrapped.get_reward_dict(env.unwrapped.get_obs_dict()) if k not in
            ("dense", "done")]  # fmt: skip


def run_aligned(task_id: str, seed: int, steps: int, *, action_scale: float = 1.0) -> Run:
    """Steps the reference (``reset(seed=seed)``, then ``reset()`` after each episode) and a
    one-env envfleet pool of ``task_id`` made with ``seed`` for ``steps`` steps with the same
    uniform float32 actions in [-action_scale, action_scale] (beyond 1 they are clipped), and
    returns the first difference. The observation must be the reference's after its float32
    cast; rewards, episode ends and the info's reward terms equal (bit for bit)."""
    env = make_reference(task_id)
    ours = envfleet.make(task_id, num_envs=1, seed=seed, conventions="gymnasium")
    rng = np.random.default_rng(seed + 17)
    shape = env.action_space.shape
    episodes = 0
    try:
        theirs_obs, _ = env.reset(seed=seed)
        our_obs, _ = ours.reset()
        if not np.array_equal(our_obs[0].astype(np.float32), theirs_obs):
            return Run(Mismatch(0, "reset obs", our_obs[0], theirs_obs), 0, 0)
        keys = info_keys(env)
        for step in range(1, steps + 1):
            action = rng.uniform(-action_scale, action_scale, size=shape).astype(np.float32)
            theirs_obs, reward, terminated, truncated, info = env.step(action)
            our_obs, our_reward, our_term, our_trunc, our_info = ours.step(action[None])
            if not np.array_equal(our_obs[0].astype(np.float32), theirs_obs):
                return Run(Mismatch(step, "obs", our_obs[0], theirs_obs), step, episodes)
            if (bool(our_term[0]), bool(our_trunc[0])) != (bool(terminated), bool(truncated)):
                ends = ((our_term[0], our_trunc[0]), (terminated, truncated))
                return Run(Mismatch(step, "terminated/truncated", *ends), step, episodes)
            pairs = [("reward", our_reward[0], reward)]
            pairs += [(k, our_info[k][0], info[k]) for k in keys]
            for what, a, b in pairs:
                if not (float(a) == float(b) or (np.isnan(a) and np.isnan(b))):
                    return Run(Mismatch(step, what, float(a), float(b)), step, episodes)
            if terminated or truncated:
                episodes += 1
                theirs_obs, _ = env.reset()
                # envfleet's pool resets on the next step (autoreset): step it with any action
                # and compare the reset observation it returns.
                our_obs, *_ = ours.step(np.zeros((1, *shape), np.float32))
                if not np.array_equal(our_obs[0].astype(np.float32), theirs_obs):
                    return Run(Mismatch(step, "reset obs", our_obs[0], theirs_obs), step, episodes)
    finally:
        env.close()
        ours.close()
    return Run(None, steps, episodes)
