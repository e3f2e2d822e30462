"""The reference of the Gymnasium-Robotics family: gymnasium-robotics 1.4.2 on MuJoCo 4.0.0.

gymnasium-robotics 1.4.2 accepts mujoco 4.0.0 but its ``mujoco_utils`` checks joint types
with ``joint_type in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)``: MuJoCo 4.0's
enum objects no longer compare equal that way with the model's integer ``jnt_type`` entries, so
every env that sets a hinge or slide joint by name (Fetch at make) fails the assertion. The
tests give that module a ``mujoco`` whose ``mjtJoint`` holds MuJoCo's integer values; nothing
else of the reference is changed (``envfleet.bench.tasks.patch_gymnasium_robotics_for_mujoco_4``,
stated there once for the bench and the tests).

``make(task_id, seed)`` builds one reference env (``gymnasium.make``, so with its TimeLimit)
and resets it with ``seed``, which is how envfleet seeds env 0 of a pool made with that seed.
``run_aligned`` is the family's alignment harness: a pool of NUM_ENVS envs next to Gymnasium's
SyncVectorEnv of the reference (env i seeded s + i on both sides, NEXT_STEP autoreset on both),
the same float32 actions, and every observation, reward, termination, truncation and info value
compared bit for bit at every step, over whole episodes.
"""

from __future__ import annotations

import os

# The reference's MujocoRenderer and envfleet read MUJOCO_GL when they make their first GL
# context (headless here: EGL unless the run says otherwise); set before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

import warnings

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium_reference import RawInfo  # noqa: E402

import envfleet  # noqa: E402
from envfleet.bench.tasks import patch_gymnasium_robotics_for_mujoco_4  # noqa: E402

patch_gymnasium_robotics_for_mujoco_4()


def make(task_id: str, seed: int | None = None, **kwargs):
    """The reference env of ``task_id`` (unwrapped of nothing: gymnasium.make's wrappers stay),
    reset with ``seed`` when one is given; returns (env, obs, info)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(task_id, **kwargs)
    obs, info = env.reset(seed=seed)
    return env, obs, info


def flat(obs) -> np.ndarray:
    """A reference observation (an array or a dict of arrays, nested for FrankaKitchen) as one
    float64 vector in key order."""
    if isinstance(obs, dict):
        return np.concatenate([flat(v) for v in obs.values()]) if obs else np.zeros(0)
    return np.asarray(obs, dtype=np.float64).ravel()


# Envs of each side's pool: two (seeds s and s + 1) give each run a second seed and keep the
# family's tests, whose time the reference's Python stepping takes, within CI's budget.
NUM_ENVS = 2


def make_reference_vec(task_id: str, num_envs: int = NUM_ENVS, **kwargs):
    """Gymnasium's SyncVectorEnv of the reference, each env in RawInfo (its own info kept)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gymnasium.make_vec(
            task_id, num_envs=num_envs, vectorization_mode="sync", wrappers=[RawInfo], **kwargs
        )


def actions(space, steps: int, seed: int, num_envs: int = NUM_ENVS) -> np.ndarray:
    """Pre-drawn float32 actions: uniform over 1.2x the action box (about a sixth of the values
    outside it, which the envs clip), with exact bounds and zeros now and then."""
    rng = np.random.default_rng(seed)
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    mid, half = (low + high) / 2, (high - low) / 2
    a = rng.uniform(mid - 1.2 * half, mid + 1.2 * half, (steps, num_envs, len(low)))
    pick = rng.random(a.shape) < 0.05
    bound = np.broadcast_to(high, a.shape)[pick]
    a[pick] = rng.choice([0.0, -0.0, 1.0, -1.0], pick.sum()) * bound
    return a.astype(np.float32)


def assert_same(what: str, ours, ref) -> None:
    """Bit for bit: equal values, shapes and float64 dtype where the reference has one."""
    if isinstance(ref, dict):
        # The same keys; their order is the env's own on our side (observation,
        # achieved_goal, desired_goal, as the reference's _get_obs builds the dict and EnvPool
        # orders it) and the sorted order of Gymnasium's Dict space in a reference vector env.
        assert sorted(ours) == sorted(ref), f"{what}: keys {list(ours)} != {list(ref)}"
        for key in ref:
            assert_same(f"{what}[{key!r}]", ours[key], ref[key])
        return
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    np.testing.assert_array_equal(ours, ref, err_msg=what)


def run_aligned(
    task_id: str,
    seed: int,
    steps: int,
    max_episode_steps=None,
    *,
    policy=None,
    reference=None,
    **options,
) -> dict:
    """Runs ``task_id`` on both sides for ``steps`` steps; returns how many episodes ended by
    termination and by truncation (a test asks for both where the task has both), and the sum
    of the info values named ``is_success`` or ``success`` (for a test to ask that episodes
    also succeed).

    ``policy(obs, t)``, if given, returns the step's float32 actions from the (equal)
    observations instead of the pre-drawn random ones. ``reference(num_envs, **kwargs)``, if
    given, makes the reference vector env (default: ``gymnasium.make_vec`` of ``task_id`` with
    the same options)."""
    kwargs = dict(options)
    if max_episode_steps is not None:
        kwargs["max_episode_steps"] = max_episode_steps
    ours = envfleet.make(task_id, num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **kwargs)
    if reference is None:
        ref = make_reference_vec(task_id, NUM_ENVS, **kwargs)
    else:
        ref = reference(NUM_ENVS, **kwargs)
    counts = {"terminated": 0, "truncated": 0, "successes": 0.0}
    info_keys = {key.name for key in ours.spec.info_keys}
    try:
        assert ours.single_action_space == ref.single_action_space
        obs, info = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        assert_same(f"{task_id}: reset obs", obs, ref_obs)
        _assert_info(f"{task_id}: reset", info, ref.envs, info_keys)
        drawn = actions(ref.single_action_space, steps, seed + 1)
        for t in range(steps):
            action = drawn[t] if policy is None else np.asarray(policy(obs, t), np.float32)
            obs, reward, terminated, truncated, info = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"{task_id} seed={seed} step {t}"
            assert_same(f"obs, {where}", obs, ref_obs)
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            _assert_info(where, info, ref.envs, info_keys)
            counts["terminated"] += int(terminated.sum())
            counts["truncated"] += int(truncated.sum())
            for key in ("is_success", "success"):
                if key in info:
                    counts["successes"] += float(np.sum(info[key]))
        # A second seeded reset re-seeds every env the same way on both sides.
        obs, _ = ours.reset(seed=seed + 1000)
        ref_obs, _ = ref.reset(seed=seed + 1000)
        assert_same(f"{task_id}: reseeded reset", obs, ref_obs)
        return counts
    finally:
        ours.close()
        ref.close()


def _assert_info(where: str, info: dict, ref_envs, info_keys: set) -> None:
    """Every info value each reference env returned, equal (dtype included) in our batch."""
    for i, env in enumerate(ref_envs):
        for key, value in env.raw.items():
            if key.startswith("_"):
                continue
            assert key in info_keys, f"{where}: the reference reports info[{key!r}]"
            ref_value = np.asarray(value)
            ours = np.asarray(info[key][i])
            assert ours.dtype == ref_value.dtype, f"{where}: info[{key!r}] dtype"
            assert_same(f"{where}: info[{key!r}] env {i}", ours, ref_value)


def render_pair(task_id: str, seed: int, width: int, height: int, num_envs: int = 2, **options):
    """A pool of ``num_envs`` envs that renders ``width`` x ``height`` frames, and the reference
    envs 0..num_envs-1 that do (each reset with seed + i): (pool, [reference envs]). The pool is
    not reset yet."""
    ours = envfleet.make(
        task_id,
        num_envs=num_envs,
        seed=seed,
        render_mode="rgb_array",
        render_width=width,
        render_height=height,
        conventions="gymnasium",
        **options,
    )
    refs = [
        make(task_id, seed + i, render_mode="rgb_array", width=width, height=height, **options)[0]
        for i in range(num_envs)
    ]
    return ours, refs


def assert_frames_equal(where: str, frames: np.ndarray, refs) -> None:
    """Each reference env's render() equals its row of ``frames``, pixel for pixel."""
    assert frames.shape[0] == len(refs), where
    for i, ref in enumerate(refs):
        want = ref.render()
        assert frames[i].shape == want.shape, where
        same = np.all(frames[i] == want, axis=-1)
        assert same.all(), (
            f"{where}, env {i}: {same.mean():.2%} of pixels equal "
            f"(first difference at row, col {np.argwhere(~same)[0].tolist()})"
        )
