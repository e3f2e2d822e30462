"""The reference for the Meta-World tests: metaworld 3.1.1 itself, installed alone for the
tests (``envfleet.bench.references.import_metaworld``: ``pip install --no-deps`` into
envfleet's cache folder, once, with its one-line fix for MuJoCo 4.0.0), and lockstep runs of
its task classes next to envfleet's pools.

A reference env is the task class as Meta-World's benchmarks make it: ``_set_task_called``,
``_partially_observable`` as given, and its positions (``_get_state_rand_vec``) either drawn
at every reset from ``np_random`` seeded by ``env.seed(seed)`` (``seeded_rand_vec``, unfrozen:
envfleet's default) or fixed (``_freeze_rand_vec`` with ``_last_rand_vec``: envfleet's
``rand_vec`` option, as ``set_task`` fixes them).
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
from envfleet.families import metaworld as family  # noqa: E402

INFO_KEYS = (
    "success", "near_object", "grasp_success", "grasp_reward", "in_place_reward",
    "obj_to_target", "unscaled_reward",
)  # fmt: skip

_metaworld = None


def import_metaworld():
    """metaworld 3.1.1; fails the calling test when it cannot be had (never skips)."""
    global _metaworld
    if _metaworld is None:
        try:
            _metaworld = references.import_metaworld()
        except Exception as exc:
            pytest.fail(f"the reference metaworld {references.METAWORLD[1]} is not available: "
                        f"{exc}", pytrace=False)  # fmt: skip
    return _metaworld


def make_reference(task_name: str, seed: int, partially_observable: bool = True,
                   rand_vec=None, **kwargs):  # fmt: skip
    """The reference env (``envfleet.bench.references.metaworld_env``, which the bench's
    Gymnasium executors make too), seeded with ``env.seed(seed)``."""
    import_metaworld()
    return references.metaworld_env(task_name, seed, partially_observable, rand_vec, **kwargs)


def policy(task_name: str):
    """Meta-World's scripted expert of the task (it reads the goal: fully observable obs)."""
    import_metaworld()
    from metaworld.policies import ENV_POLICY_MAP

    return ENV_POLICY_MAP[task_name]()


@dataclasses.dataclass
class Mismatch:
    step: int
    what: str
    ours: object
    theirs: object


@dataclasses.dataclass
class Run:
    mismatch: Mismatch | None  # the first difference, or None
    successes: int  # steps whose info["success"] was 1 (on both sides, when equal)


def run_aligned(
    task_name: str,
    seed: int,
    steps: int,
    *,
    partially_observable: bool = True,
    rand_vec=None,
    actions: str = "policy",
    resets: int = 1,
):
    """Steps the reference and a one-env envfleet pool of the task with the same seed, options
    and actions (Meta-World's expert policy, on the reference's observation, with its goal;
    or uniform random actions), ``resets`` episodes of ``steps`` steps each, and returns the
    first difference (or None) and the number of successful steps. Observations and episode
    ends, rewards and info values must be equal (bit for bit; NaN equals NaN)."""
    env = make_reference(task_name, seed, partially_observable, rand_vec)
    options = {"partially_observable": partially_observable}
    if rand_vec is not None:
        options["rand_vec"] = [float(x) for x in rand_vec]
    ours = envfleet.make(
        family.task_id(task_name), num_envs=1, seed=seed, conventions="gymnasium", **options
    )  # float64 rewards
    expert = policy(task_name) if actions == "policy" else None
    rng = np.random.default_rng(seed)
    count = successes = 0
    try:
        for _ in range(resets):
            theirs_obs, _ = env.reset()
            our_obs, _ = ours.reset()
            if not np.array_equal(our_obs[0], theirs_obs):
                return Run(Mismatch(count, "reset obs", our_obs[0], theirs_obs), successes)
            policy_obs = theirs_obs
            for _ in range(steps):
                if expert is not None:
                    # the expert reads the goal: fully observable when the env hides it
                    if partially_observable:
                        policy_obs = policy_obs.copy()
                        policy_obs[-3:] = env._get_pos_goal()
                    action = np.asarray(expert.get_action(policy_obs), dtype=np.float32)
                    action = np.clip(action, -1, 1)
                else:
                    action = rng.uniform(-1, 1, size=4).astype(np.float32)
                theirs_obs, reward, terminated, truncated, info = env.step(action)
                policy_obs = theirs_obs
                our_obs, our_reward, our_term, our_trunc, our_info = ours.step(action[None])
                count += 1
                if not np.array_equal(our_obs[0], theirs_obs):
                    return Run(Mismatch(count, "obs", our_obs[0], theirs_obs), successes)
                if (bool(our_term[0]), bool(our_trunc[0])) != (bool(terminated), bool(truncated)):
                    ends = ((our_term[0], our_trunc[0]), (terminated, truncated))
                    return Run(Mismatch(count, "terminated/truncated", *ends), successes)
                pairs = [("reward", our_reward[0], reward)]
                pairs += [(k, our_info[k][0], info[k]) for k in INFO_KEYS]
                for what, a, b in pairs:
                    if not _same(float(a), float(b)):
                        return Run(Mismatch(count, what, float(a), float(b)), successes)
                successes += int(info["success"])
                if truncated:
                    break
    finally:
        env.close()
        ours.close()
    return Run(None, successes)


def _same(a: float, b: float) -> bool:
    return a == b or (np.isnan(a) and np.isnan(b))
