"""MuJoCo tasks (Gymnasium 1.4.0, v4 and v5) against Gymnasium itself, step by step.

Each alignment test runs ``envfleet.make(task_id, num_envs=3, seed=s)`` next to
``gymnasium.make_vec(task_id, 3, vectorization_mode="sync")`` reset with ``seed=s`` (env i
seeded with s + i on both sides, NEXT_STEP autoreset on both sides), feeds both the same
float32 actions (some beyond the ctrlrange, which MuJoCo clamps while the control costs see
them raw) and compares obs, reward, terminated, truncated and every info entry Gymnasium
returns, at every step, across many episodes (terminations and time-limit truncations).

Tolerance: none, the comparison is bit for bit. Both sides run the same libmujoco 4.0.0 with
the same call sequence, and the ports replicate the NumPy arithmetic around it: the reset
noise (our np_random twin, including standard_normal's ziggurat), NumPy's pairwise summation
order in the costs, float32 control costs on float32 actions (NEP 50), einsum's order in
Humanoid's mass centre, libm pow for scalar ``** 2``, libm sin/cos and BLAS ddot for norms.
The last two are what NumPy does on this kind of machine; ``NUMPY_IS_LIBM`` checks it, and
where a machine's NumPy uses its own float64 sin/cos or a fused ddot kernel (AVX-512 builds)
the few values they produce (observations and info entries only, never fed back into the
physics) are compared to 1e-12 relative instead. The check says which.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import os
import sys

import envpool
import gymnasium as gym
import numpy as np
import pytest
from conftest import run_isolated
from gymnasium_reference import RawInfo, make_reference

import envfleet
from envfleet import _mujoco  # the test extra installs the engine: no skip if it is missing

NUM_ENVS = 3

# Gymnasium warns that every v4 task is out of date; they are still registered.
pytestmark = pytest.mark.filterwarnings("ignore:.*is out of date")

NAMES = [
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Walker2d",
    "Humanoid",
    "HumanoidStandup",
    "InvertedPendulum",
    "InvertedDoublePendulum",
    "Reacher",
    "Pusher",
    "Swimmer",
]
TASK_IDS = [f"{name}-v{v}" for name in NAMES for v in (4, 5)]


def _numpy_is_libm() -> bool:
    """NumPy's float64 sin/cos are libm's, and its norms of 2- and 3-vectors (BLAS ddot) are
    left-to-right sums of separately rounded squares, on this machine."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, 20000)
    if not np.array_equal(np.sin(x), [math.sin(v) for v in x]):
        return False
    if not np.array_equal(np.cos(x), [math.cos(v) for v in x]):
        return False
    for v in rng.normal(size=(2000, 3)):
        if np.linalg.norm(v[:2]) != math.sqrt(v[0] * v[0] + v[1] * v[1]):
            return False
        if np.linalg.norm(v) != math.sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]):
            return False
    return True


NUMPY_IS_LIBM = _numpy_is_libm()


def assert_same(what, ours, ref):
    ours, ref = np.asarray(ours, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} != {ref.shape}"
    if NUMPY_IS_LIBM:
        np.testing.assert_array_equal(ours, ref, err_msg=what)
    else:
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-300, err_msg=what)


@pytest.fixture
def allow_pusher_v4(monkeypatch):
    """Gymnasium's Pusher-v4 refuses mujoco >= 3 (its published results came from mujoco 2;
    Gymnasium issue #950). Its code runs unchanged on mujoco 4, which is what we compare."""
    import mujoco

    monkeypatch.setattr(mujoco, "__version__", "2.3.7")


def assert_info_same(where, info, ref_envs, step_keys):
    """Every key each of Gymnasium's envs returned, equal; ours has exactly the step keys (and,
    as a pool under Gymnasium's conventions, their `_key` masks: every row)."""
    keys = step_keys | {"env_id", "elapsed_step"}
    assert set(info) == keys | {f"_{key}" for key in keys}, where
    assert all(info[f"_{key}"].all() for key in keys), where
    for i, env in enumerate(ref_envs):
        for key, value in env.raw.items():
            assert_same(f"info[{key!r}] env {i}, {where}", info[key][i], value)


class Actions:
    """Pre-drawn float32 actions: uniform over 1.2x the action box, so about a sixth of the
    values lie outside the ctrlrange, plus exact bounds and zeros now and then."""

    def __init__(self, space, steps, seed, num_envs=NUM_ENVS):
        rng = np.random.default_rng(seed)
        low, high = space.low.astype(np.float64), space.high.astype(np.float64)
        mid, half = (low + high) / 2, (high - low) / 2
        a = rng.uniform(mid - 1.2 * half, mid + 1.2 * half, (steps, num_envs, len(low)))
        pick = rng.random(a.shape) < 0.05
        bound = np.broadcast_to(high, a.shape)[pick]
        a[pick] = rng.choice([0.0, -0.0, 1.0, -1.0], pick.sum()) * bound
        self.values = a.astype(np.float32)

    def __getitem__(self, t):
        return self.values[t]


def run_aligned(task_id, seed, steps, max_episode_steps=None, reference=make_reference, **options):
    """``reference(task_id, num_envs, **kwargs)`` makes Gymnasium's side (default: the same
    task id, each env in RawInfo)."""
    kwargs = dict(options)
    if max_episode_steps is not None:
        kwargs["max_episode_steps"] = max_episode_steps
    ours = envfleet.make(task_id, num_envs=NUM_ENVS, seed=seed, conventions="gymnasium", **kwargs)
    ref = reference(task_id, NUM_ENVS, **kwargs)
    counts = {"terminated": 0, "truncated": 0}
    try:
        assert ours.single_observation_space == ref.single_observation_space
        assert ours.single_action_space == ref.single_action_space
        step_keys = {key.name for key in ours.spec.info_keys}
        obs, info = ours.reset()
        ref_obs, _ = ref.reset(seed=seed)
        assert obs.dtype == ref_obs.dtype == np.float64
        assert_same(f"{task_id}: first reset obs", obs, ref_obs)
        assert_info_same(f"{task_id}: first reset", info, ref.envs, step_keys)
        actions = Actions(ref.single_action_space, steps, seed + 1)
        seen_step_keys = set()
        for t in range(steps):
            action = actions[t]
            obs, reward, terminated, truncated, info = ours.step(action)
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = ref.step(action)
            where = f"{task_id} seed={seed} step {t}"
            assert_same(f"obs, {where}", obs, ref_obs)
            assert reward.dtype == np.float64
            np.testing.assert_array_equal(reward, ref_reward, err_msg=f"reward, {where}")
            np.testing.assert_array_equal(terminated, ref_terminated, err_msg=where)
            np.testing.assert_array_equal(truncated, ref_truncated, err_msg=where)
            assert_info_same(where, info, ref.envs, step_keys)
            for env in ref.envs:
                if len(env.raw) > len(seen_step_keys):
                    seen_step_keys = set(env.raw)
            counts["terminated"] += int(terminated.sum())
            counts["truncated"] += int(truncated.sum())
        # Our info keys are exactly the keys Gymnasium's step returns.
        assert seen_step_keys == step_keys, (seen_step_keys, step_keys)

        # A second seeded reset re-seeds every env the same way on both sides.
        obs, _ = ours.reset(seed=seed + 1000)
        ref_obs, _ = ref.reset(seed=seed + 1000)
        assert_same(f"{task_id}: reseeded reset", obs, ref_obs)
        return counts
    finally:
        ours.close()
        ref.close()


# ---- 1. Every task id, with its registered defaults -----------------------------------------

# name -> (steps, max_episode_steps or None (registered), fewest terminations). The limits
# are short enough that episodes also end by truncation (with random actions Hopper falls
# after 8 to 30 steps, Humanoid after 16 to 40, the pendulums after 3 to 10).
ALIGNMENT = {
    "Ant": (400, 40, 3),
    "HalfCheetah": (300, 60, 0),
    "Hopper": (300, 12, 5),
    "Walker2d": (300, 13, 5),
    "Humanoid": (250, 19, 3),
    "HumanoidStandup": (200, 40, 0),
    "InvertedPendulum": (300, 6, 10),
    "InvertedDoublePendulum": (300, 5, 10),
    "Reacher": (200, None, 0),
    "Pusher": (300, None, 0),
    "Swimmer": (300, 60, 0),
}


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_alignment(task_id, allow_pusher_v4):
    steps, max_episode_steps, min_terminated = ALIGNMENT[task_id.split("-")[0]]
    counts = run_aligned(task_id, 11, steps, max_episode_steps)
    assert counts["terminated"] >= min_terminated, counts
    assert counts["truncated"] >= NUM_ENVS, counts


@pytest.mark.parametrize("task_id", ["Ant-v5", "HalfCheetah-v5", "Hopper-v5", "Humanoid-v5"])
def test_alignment_other_seed(task_id):
    steps, max_episode_steps, _ = ALIGNMENT[task_id.split("-")[0]]
    run_aligned(task_id, 2**32 + 5, steps // 2, max_episode_steps)


# ---- 1b. Ant-v3 and Humanoid-v3 (EnvPool's ids): gym 0.23.1's v3 ------------------------------
#
# gym's ant_v3.py and humanoid_v3.py are the code Gymnasium's v4 kept, but for the contact terms;
# gym ran them on mujoco-py, which no longer installs. The reference is Gymnasium's v4 on the
# same libmujoco with v3's terms put back by the wrappers below; the comparison stays bit for
# bit. (The other v2/v3 ids are v4's under other names: tests/test_id_parity.py.)


class AntV3Terms(gym.Wrapper):
    """Ant-v4 with use_contact_forces=True observes and charges the contact forces as
    ant_v3.py does, but reports the contact cost as info["reward_ctrl"]; v3 reports it as
    info["reward_contact"], and the control cost as info["reward_ctrl"]."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = {**info, "reward_contact": info["reward_ctrl"]}
        info["reward_ctrl"] = -self.env.unwrapped.control_cost(action)
        return obs, reward, terminated, truncated, info


class HumanoidV3Terms(gym.Wrapper):
    """Humanoid-v4 plus humanoid_v3.py's contact cost: contact_cost_weight * sum(cfrc_ext**2),
    clipped to contact_cost_range, taken from the reward as rewards - (ctrl_cost +
    contact_cost) and reported as info["reward_impact"]."""

    def __init__(self, env, contact_cost_weight=5e-7, contact_cost_range=(-np.inf, 10.0)):
        super().__init__(env)
        self.weight, self.range = contact_cost_weight, contact_cost_range

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        contact_cost = self.weight * np.sum(np.square(self.env.unwrapped.data.cfrc_ext))
        contact_cost = np.clip(contact_cost, *self.range)
        rewards = info["reward_linvel"] + info["reward_alive"]
        reward = rewards - (-info["reward_quadctrl"] + contact_cost)
        return obs, reward, terminated, truncated, {**info, "reward_impact": -contact_cost}


def ant_v3_reference(task_id, num_envs, **kwargs):
    return gym.make_vec(
        "Ant-v4",
        num_envs=num_envs,
        vectorization_mode="sync",
        wrappers=[AntV3Terms, RawInfo],
        use_contact_forces=True,
        **kwargs,
    )


def humanoid_v3_reference(task_id, num_envs, **kwargs):
    # v3's own options go to the wrapper: Humanoid-v4 does not take them.
    terms = {k: kwargs.pop(k) for k in ("contact_cost_weight", "contact_cost_range") if k in kwargs}
    return gym.make_vec(
        "Humanoid-v4",
        num_envs=num_envs,
        vectorization_mode="sync",
        wrappers=[functools.partial(HumanoidV3Terms, **terms), RawInfo],
        **kwargs,
    )


V3_REFERENCES = {"Ant-v3": ant_v3_reference, "Humanoid-v3": humanoid_v3_reference}
V3_OPTION_CASES = [
    ("Ant-v3", {}),
    (
        "Ant-v3",
        {
            "contact_cost_weight": 1e-2,
            "contact_force_range": (-0.5, 0.25),
            "healthy_z_range": (0.3, 0.9),
            "exclude_current_positions_from_observation": False,
        },
    ),
    ("Humanoid-v3", {}),
    (
        "Humanoid-v3",
        {
            "contact_cost_weight": 1e-4,
            "contact_cost_range": (-np.inf, 1e-3),
            "healthy_reward": 1.0,
            "terminate_when_unhealthy": False,
        },
    ),
]


@pytest.mark.parametrize(("task_id", "options"), V3_OPTION_CASES)
@pytest.mark.parametrize("seed", [11, 2**32 + 5])
def test_v3_alignment(task_id, options, seed):
    steps, max_episode_steps, min_terminated = ALIGNMENT[task_id.split("-")[0]]
    reference = V3_REFERENCES[task_id]
    counts = run_aligned(task_id, seed, steps, max_episode_steps, reference=reference, **options)
    assert counts["truncated"] >= NUM_ENVS, counts
    if not options:
        assert counts["terminated"] >= min_terminated, counts


def test_v3_differs_from_v4_by_its_contact_terms():
    """The v3 terms are not vacuous: MuJoCo's contact forces are not zero, so Ant-v3 observes
    more than Ant-v4 and Humanoid-v3 earns less than Humanoid-v4, from the same states."""

    def rollout(task_id):
        env = envfleet.make(task_id, num_envs=2, seed=3, conventions="gymnasium")
        actions = Actions(env.single_action_space, 30, 4, num_envs=2)
        out = [env.reset()[0]]
        rewards = []
        for t in range(30):
            obs, reward, *_ = env.step(actions[t])
            out.append(obs)
            rewards.append(reward)
        env.close()
        return np.array(out), np.array(rewards)

    ant_v3, ant_v3_rewards = rollout("Ant-v3")
    ant_v4, ant_v4_rewards = rollout("Ant-v4")
    assert ant_v3.shape[-1] == ant_v4.shape[-1] + 6 * 14
    np.testing.assert_array_equal(ant_v3[..., : ant_v4.shape[-1]], ant_v4)
    assert np.any(ant_v3[..., ant_v4.shape[-1] :] != 0)
    assert np.all(ant_v3_rewards <= ant_v4_rewards) and np.any(ant_v3_rewards < ant_v4_rewards)
    humanoid_v3, humanoid_v3_rewards = rollout("Humanoid-v3")
    humanoid_v4, humanoid_v4_rewards = rollout("Humanoid-v4")
    np.testing.assert_array_equal(humanoid_v3, humanoid_v4)
    assert np.all(humanoid_v3_rewards <= humanoid_v4_rewards)
    assert np.any(humanoid_v3_rewards < humanoid_v4_rewards)


def test_v3_registration_and_options():
    gym_v3_options = {  # the keyword arguments of gym 0.23.1's AntEnv / HumanoidEnv (v3)
        "Ant-v3": {
            "xml_file",
            "ctrl_cost_weight",
            "contact_cost_weight",
            "healthy_reward",
            "terminate_when_unhealthy",
            "healthy_z_range",
            "contact_force_range",
            "reset_noise_scale",
            "exclude_current_positions_from_observation",
        },
        "Humanoid-v3": {
            "xml_file",
            "forward_reward_weight",
            "ctrl_cost_weight",
            "contact_cost_weight",
            "contact_cost_range",
            "healthy_reward",
            "terminate_when_unhealthy",
            "healthy_z_range",
            "reset_noise_scale",
            "exclude_current_positions_from_observation",
        },
    }
    own = {"assets_dir", "render_fast", "from_pixels", "frame_stack", "render_width",
           "render_height", "render_camera_id", "render_device"}  # fmt: skip
    for task_id, options in gym_v3_options.items():
        spec = envfleet.make_spec(task_id)
        assert set(spec.config.env_options) - own == options, task_id
        v4 = envfleet.make_spec(task_id.replace("-v3", "-v4"))
        assert (spec.max_episode_steps, spec.reward_threshold) == (
            v4.max_episode_steps,
            v4.reward_threshold,
        )
        assert spec.action_space == v4.action_space
        # EnvPool's spaces (float64 observations of the same size; float32 actions).
        theirs = envpool.make_spec(task_id)
        assert spec.observation_space.shape == theirs.observation_space.shape, task_id
        assert spec.action_space.shape == theirs.action_space.shape, task_id
    with pytest.raises(TypeError, match="use_contact_forces"):
        envfleet.make_spec("Ant-v3", use_contact_forces=False)


def test_envpools_v3_contact_forces_are_zero():
    """A known difference (docs/families/mujoco.md): EnvPool 1.2.5 never computes cfrc_ext for
    its v3 and v4 ids, so Ant-v3's 84 contact-force observations are always 0 there and the
    contact costs 0; here they are MuJoCo's, as in Gymnasium's v4 and gym's v3."""
    env = envpool.make_gymnasium("Ant-v3", num_envs=2, seed=3)
    try:
        env.reset()
        actions = Actions(env.action_space, 30, 4, num_envs=2)
        for t in range(30):
            obs, _, _, _, info = env.step(actions[t])
            assert not obs[:, 27:].any() and not info["reward_contact"].any()
    finally:
        env.close()


# ---- 2. Options -------------------------------------------------------------------------------

OPTION_CASES = [
    (
        "HalfCheetah-v5",
        {
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 0.3,
            "reset_noise_scale": 0.2,
            "frame_skip": 3,
            "exclude_current_positions_from_observation": False,
        },
    ),
    (
        "HalfCheetah-v4",
        {"ctrl_cost_weight": 1, "exclude_current_positions_from_observation": False},
    ),
    (
        "Ant-v5",
        {
            "include_cfrc_ext_in_observation": False,
            "healthy_z_range": (0.3, 0.9),
            "contact_force_range": (-0.5, 0.25),
            "contact_cost_weight": 1e-2,
            "healthy_reward": 2.0,
            "exclude_current_positions_from_observation": False,
        },
    ),
    (
        "Ant-v5",
        {
            "terminate_when_unhealthy": False,
            "main_body": 2,
            "healthy_reward": -1.0,
            "forward_reward_weight": 0.5,
            "xml_file": "ant.xml",
            "frame_skip": 4,
        },
    ),
    ("Ant-v4", {"use_contact_forces": True, "healthy_z_range": (0.3, 0.9)}),
    ("Ant-v4", {"terminate_when_unhealthy": False, "ctrl_cost_weight": 0.1}),
    (
        "Hopper-v5",
        {
            "healthy_angle_range": (-0.1, 0.1),
            "healthy_state_range": (-5.0, 5.0),
            "healthy_z_range": (0.9, 1.5),
            "reset_noise_scale": 0.05,
        },
    ),
    ("Hopper-v4", {"terminate_when_unhealthy": False, "healthy_reward": 0.5}),
    (
        "Walker2d-v5",
        {
            "xml_file": "walker2d.xml",
            "healthy_z_range": (1.0, 1.5),
            "exclude_current_positions_from_observation": False,
        },
    ),
    ("Walker2d-v4", {"terminate_when_unhealthy": False, "forward_reward_weight": 3.0}),
    (
        "Swimmer-v5",
        {
            "exclude_current_positions_from_observation": False,
            "ctrl_cost_weight": 0.5,
            "frame_skip": 2,
        },
    ),
    (
        "Humanoid-v5",
        {
            "include_cinert_in_observation": False,
            "include_cvel_in_observation": False,
            "contact_cost_range": (-np.inf, 1e-3),
            "contact_cost_weight": 1e-4,
        },
    ),
    (
        "Humanoid-v5",
        {
            "include_qfrc_actuator_in_observation": False,
            "include_cfrc_ext_in_observation": False,
            "terminate_when_unhealthy": False,
            "healthy_z_range": (1.1, 1.3),
        },
    ),
    ("Humanoid-v4", {"terminate_when_unhealthy": False, "healthy_reward": 1.0}),
    (
        "HumanoidStandup-v5",
        {
            "include_cinert_in_observation": False,
            "impact_cost_range": (-np.inf, 1e-4),
            "impact_cost_weight": 1e-3,
            "exclude_current_positions_from_observation": False,
        },
    ),
    ("InvertedPendulum-v5", {"reset_noise_scale": 0.15, "frame_skip": 3}),
    ("InvertedDoublePendulum-v5", {"healthy_reward": -2.0, "reset_noise_scale": 0.3}),
    ("Reacher-v5", {"reward_dist_weight": 0.5, "reward_control_weight": 2.5}),
    (
        "Pusher-v5",
        {
            "reward_near_weight": 0.1,
            "reward_dist_weight": 2.0,
            "reward_control_weight": 1,
            "xml_file": "pusher.xml",
        },
    ),
]


def _case_id(case):
    task_id, options = case
    return f"{task_id}[{','.join(options)}]"


@pytest.mark.parametrize("case", OPTION_CASES, ids=[_case_id(c) for c in OPTION_CASES])
def test_option_alignment(case):
    task_id, options = case
    steps, max_episode_steps, _ = ALIGNMENT[task_id.split("-")[0]]
    counts = run_aligned(task_id, 5, min(steps, 150), max_episode_steps, **options)
    assert counts["terminated"] + counts["truncated"] >= NUM_ENVS, counts


def _gymnasium_constructor_options(task_id):
    """The keyword arguments of Gymnasium's env class for this id, with their defaults."""
    module, cls = gym.spec(task_id).entry_point.split(":")
    init = getattr(importlib.import_module(module), cls).__init__
    skip = {"self", "kwargs", "default_camera_config"}
    return {
        name: p.default
        for name, p in inspect.signature(init).parameters.items()
        if name not in skip
    }


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_options_are_gymnasiums(task_id):
    """Each task takes exactly its Gymnasium constructor's options, with the same defaults
    (tuples as lists of floats), plus assets_dir, where Gymnasium's XML files are, and
    envfleet's own rendering options (test_mujoco_render.py)."""
    spec = envfleet.make_spec(task_id)
    ours = dict(spec.config.env_options)
    assert ours.pop("assets_dir") == os.path.join(
        os.path.dirname(gym.__file__), "envs", "mujoco", "assets"
    )
    envfleets = {
        "render_fast": False,
        "from_pixels": False,
        "frame_stack": 1,
        "render_width": 84,
        "render_height": 84,
        "render_camera_id": -1,
        "render_device": -1,
    }
    assert {name: ours.pop(name) for name in envfleets} == envfleets
    want = _gymnasium_constructor_options(task_id)
    assert set(ours) == set(want)
    for name, default in want.items():
        if isinstance(default, tuple):
            default = [float(v) for v in default]
        assert ours[name] == default, name


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_registration_and_spaces_match_gymnasium(task_id, allow_pusher_v4):
    assert task_id in envfleet.list_all_envs()
    spec = envfleet.make_spec(task_id)
    assert spec.config.max_episode_steps == gym.spec(task_id).max_episode_steps
    ref = gym.make(task_id)
    try:
        assert spec.observation_space == ref.observation_space
        assert spec.action_space == ref.action_space
        assert spec.observation_space.dtype == np.float64
        assert spec.action_space.dtype == np.float32
    finally:
        ref.close()


def test_bad_options():
    with pytest.raises(TypeError, match="xml_file"):
        envfleet.make(
            "HalfCheetah-v4", xml_file="half_cheetah.xml", conventions="gymnasium"
        )  # v4 has no xml_file
    with pytest.raises(ValueError, match="no_such_model.xml. does not exist"):
        envfleet.make("Ant-v5", xml_file="no_such_model.xml", conventions="gymnasium")
    with pytest.raises(ValueError, match="healthy_z_range"):
        envfleet.make("Ant-v5", healthy_z_range=(0.2,), conventions="gymnasium")
    with pytest.raises(ValueError, match="main_body"):
        envfleet.make("Ant-v5", main_body=99, conventions="gymnasium")
    with pytest.raises(ValueError, match="frame_skip"):
        envfleet.make("Hopper-v5", frame_skip=0, conventions="gymnasium")


# ---- 3. Pool behaviour: threads, async, determinism -------------------------------------------


def _sync_rollout(task_id, num_threads, steps, seed=3):
    env = envfleet.make(
        task_id,
        num_envs=4,
        seed=seed,
        num_threads=num_threads,
        max_episode_steps=40,
        conventions="gymnasium",
    )
    actions = Actions(env.single_action_space, steps, seed, num_envs=4)
    out = [env.reset()[0]]
    for t in range(steps):
        obs, reward, terminated, truncated, _ = env.step(actions[t])
        out += [obs, reward, terminated, truncated]
    env.close()
    return out


@pytest.mark.parametrize("task_id", ["Ant-v5", "Hopper-v5"])
def test_deterministic_across_thread_counts(task_id):
    one = _sync_rollout(task_id, 1, 120)
    for threads in (2, 4):
        for a, b in zip(one, _sync_rollout(task_id, threads, 120), strict=True):
            np.testing.assert_array_equal(a, b)


def test_async_matches_sync_per_env():
    """Async batches (4 envs, batches of 2, 2 threads): each env's trajectory, given its own
    action sequence, is exactly its trajectory in a sync pool."""
    task_id, n, steps = "Hopper-v5", 4, 60
    space = envfleet.make_spec(task_id).action_space
    per_env = (
        np.random.default_rng(9)
        .uniform(space.low, space.high, (n, steps + 1, space.shape[0]))
        .astype(np.float32)
    )

    sync = envfleet.make(task_id, num_envs=n, seed=21, max_episode_steps=25)
    want = [[o] for o in sync.reset()[0]]
    for t in range(steps):
        obs, reward, *_ = sync.step(per_env[:, t])
        for i in range(n):
            want[i].append((obs[i], reward[i]))
    sync.close()

    env = envfleet.make(
        task_id, num_envs=n, batch_size=2, num_threads=2, seed=21, max_episode_steps=25
    )
    got = [[] for _ in range(n)]
    env.async_reset()
    counts = np.zeros(n, dtype=int)
    while min(len(g) for g in got) < steps + 1:
        obs, reward, _, _, info = env.recv()
        ids = info["env_id"]
        for k, i in enumerate(ids):
            got[i].append(obs[k] if counts[i] == 0 else (obs[k], reward[k]))
            counts[i] += 1
        env.send(np.stack([per_env[i, min(counts[i] - 1, steps)] for i in ids]), ids)
    env.close()
    for i in range(n):
        np.testing.assert_array_equal(got[i][0], want[i][0])
        for t in range(1, steps + 1):
            np.testing.assert_array_equal(got[i][t][0], want[i][t][0], err_msg=f"env {i} {t}")
            assert got[i][t][1] == want[i][t][1]


def test_frame_stack_stacks_the_state_observation():
    """frame_stack=k without from_pixels (EnvPool 1.2.5's option): the observation is the last k
    observations of the unstacked task, oldest first, (k, *shape); a reset, explicit or after a
    termination, fills the stack with its observation. Info and rewards are the task's."""
    task_id, n, k, steps = "Hopper-v5", 2, 3, 80  # Hopper falls within 80 random steps
    space = envfleet.make_spec(task_id).action_space
    actions = np.random.default_rng(4).uniform(space.low, space.high, (steps, n, *space.shape))
    plain = envfleet.make(task_id, num_envs=n, seed=3)
    stacked = envfleet.make(task_id, num_envs=n, seed=3, frame_stack=k)
    assert stacked.observation_space.shape == (k, *plain.observation_space.shape)
    assert envfleet.make_dm(task_id, frame_stack=k).observation_spec().obs.shape == (k, 11)
    obs, _ = plain.reset()
    got, _ = stacked.reset()
    history = [[o] * k for o in obs]
    resets = 0
    for t in range(steps):
        obs, reward, terminated, truncated, info = plain.step(actions[t].astype(np.float32))
        got, reward_s, terminated_s, truncated_s, info_s = stacked.step(
            actions[t].astype(np.float32)
        )
        for i in range(n):
            first = info["elapsed_step"][i] == 0  # the autoreset after an ended episode
            resets += first
            history[i] = [obs[i]] * k if first else history[i][1:] + [obs[i]]
            np.testing.assert_array_equal(got[i], np.stack(history[i]), err_msg=f"{t} {i}")
        np.testing.assert_array_equal(reward_s, reward)
        np.testing.assert_array_equal(terminated_s, terminated)
        for key in info:
            if key != "players":
                np.testing.assert_array_equal(info_s[key], info[key], err_msg=key)
    assert resets > 0
    assert envfleet.make_spec(task_id, frame_stack=1).observation_space.shape == (11,)
    with pytest.raises(ValueError, match="frame_stack must be in 1..64"):
        envfleet.make_spec(task_id, frame_stack=0)


def test_every_task_makes_resets_and_steps():
    for task_id in TASK_IDS:
        for env_type in ("gymnasium", "dm", "gym"):
            env = envfleet.make(task_id, env_type=env_type, num_envs=2, seed=1)
            env.reset()
            shape = envfleet.make_spec(task_id).action_space.shape
            env.step(np.zeros((2, *shape), dtype=np.float32))
            env.close()


def test_raw_step_rate():
    spec = envfleet.make_spec("Ant-v5")
    steps, seconds, episodes = _mujoco.raw_step_rate(
        spec.env_type, spec.config.env_options, 200, 50, 0
    )
    assert steps == 200 and seconds > 0 and episodes >= 4


# ---- 4. libmujoco: loading, handlers, errors ---------------------------------------------------


def test_loads_libmujoco_without_importing_mujoco(tmp_path):
    """The extension finds libmujoco through its RUNPATH (no `import mujoco` first), and
    MuJoCo's warnings (half_cheetah.xml's deprecated settotalmass) neither print nor append to
    MUJOCO_LOG.TXT in the working directory."""
    code = f"""
        import os, sys
        os.chdir({str(tmp_path)!r})
        import envfleet
        env = envfleet.make("HalfCheetah-v5", num_envs=2)
        env.reset()
        env.step([env.action_space.sample() for _ in range(2)])
        assert "mujoco" not in sys.modules, "envfleet imported the mujoco package"
        maps = open("/proc/self/maps").read()
        libs = {{line.split()[-1] for line in maps.splitlines() if "libmujoco.so" in line}}
        print(sorted(libs))
    """
    rc, out, err = run_isolated(code)
    assert rc == 0, err
    libs = eval(out.strip().splitlines()[-1])
    assert len(libs) == 1 and libs[0].endswith(os.path.join("mujoco", "libmujoco.so.4.0.0"))
    assert "WARNING" not in out + err and "settotalmass" not in out + err
    assert os.listdir(tmp_path) == []


# A model whose contacts overflow MuJoCo's small arena during the first mj_forward: MuJoCo
# calls mju_error ("stack overflow"), which becomes a C++ exception and then EnvError.
_OVERFLOW_XML = """<mujoco>
  <size memory="20K"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body name="cart"><joint name="slide" type="slide" axis="1 0 0"/>
      <geom type="box" size=".1 .1 .1" pos="0 0 3"/></body>
    {boxes}
  </worldbody>
  <actuator><motor joint="slide" ctrlrange="-1 1"/></actuator>
</mujoco>"""


def test_mujoco_error_becomes_env_error(tmp_path):
    boxes = "".join(
        f'<body pos="{(i % 3) * 0.15} {(i // 3 % 3) * 0.15} {0.2 + (i // 9) * 0.25}">'
        '<freejoint/><geom type="box" size=".1 .1 .1"/></body>'
        for i in range(27)
    )
    path = tmp_path / "overflow.xml"
    path.write_text(_OVERFLOW_XML.format(boxes=boxes))
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    code = f"""
        import os
        os.chdir({str(workdir)!r})
        import numpy as np
        import envfleet
        from envfleet import EnvError
        env = envfleet.make("HalfCheetah-v5", num_envs=2, xml_file={str(path)!r})
        for attempt in range(2):  # the pool stays usable after the error
            try:
                env.reset()
                raise AssertionError("no error")
            except EnvError as e:
                assert "MuJoCo error" in str(e) and "stack overflow" in str(e), str(e)
        ok = envfleet.make("HalfCheetah-v5", num_envs=2)
        ok.reset()
        ok.step(np.zeros((2, 6), dtype=np.float32))
        print("done")
    """
    rc, out, err = run_isolated(code)
    assert rc == 0 and "done" in out, err
    assert os.listdir(workdir) == []


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
