"""The contract every registered task id meets (design.md sections 3 and 6).

Every test here is parametrized over ``envfleet.list_all_envs()`` (the pool's machinery over
one id per env type, POOL_MACHINERY_TESTS; the other ids' runs are marked ``extended``), so a
new family or task id is checked without a line written for it: spaces and spec keys against
what the pool returns, observations inside the spaces, rewards and flags, seeding and
determinism across ``num_threads`` and sync/async, full and partial resets, the three autoreset
modes, the three front ends (Gymnasium, gym with and without ``legacy_api``, dm_env) and
``close()``.

One reference run per id (the ``reference`` fixture: the Gymnasium front end, sync, one
thread) is recorded once and shared by all the tests of that id; every other pool is compared
with it step by step, for exact equality: the same seed and the same actions must give the
same trajectory whatever the pool's shape, autoreset mode or front end. Each pool also serves
one front end, so that no pool is made twice:

    reference                            Gymnasium, sync, 2 envs, 1 thread, NEXT_STEP
    test_two_threads_and_partial_resets  Gymnasium, sync, 2 envs, 2 threads
    test_async_mode_through_the_dm_...   dm_env, async (2 envs, batch_size 1), 2 threads
    test_same_step_autoreset             Gymnasium, 1 env, SAME_STEP
    test_disabled_autoreset_through_...  gym, 1 env, DISABLED
    test_gym_legacy_api                  gym with legacy_api=True, 1 env, NEXT_STEP

Cost. Two envs per id and seven more per id of MACHINERY_IDS, and episodes cut by
``max_episode_steps=LIMIT`` so that every family reaches an episode end (a truncation at the
latest) within a few steps: building an env is what costs (an Atari env loads its ROM, about
0.13 s; a MuJoCo one compiles its model), so the suite stays within a few minutes on two cores.
Actions come from the action space's own seeded ``sample()``.

An id whose family's engine is not installed here is skipped with the
``EngineNotInstalledError`` message (CI installs every engine).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

import dm_env
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector.utils import batch_space
from sampling import env_type, first_ids

import envfleet
from envfleet.errors import EngineNotInstalledError
from envfleet.spec import NEST_SEPARATOR

# Families whose ids are variants of fewer tasks: MyoSuite's ids are each base task again
# with a muscle condition (myoSarc*, myoFati*, myoReaf*) and again as EnvPool's MyoSuite/<id>
# alias. The contract runs every base task, one id per (env type, condition) of the variants,
# and no alias: the conditions are options of one env type, and tests/test_id_parity.py runs
# every alias against its id; tests/families/myosuite/ steps every id against the reference.
SAMPLED_VARIANT_FAMILIES = frozenset({"myosuite"})


def _sampled(every: list[str]) -> list[str]:
    """``every`` without the variants SAMPLED_VARIANT_FAMILIES leave out (see above)."""
    kept, seen = [], set()
    for task_id in every:
        reg = envfleet.registry.registration(task_id)
        if reg.family.name not in SAMPLED_VARIANT_FAMILIES:
            kept.append(task_id)
            continue
        if reg.alias_of is not None:
            continue
        condition = reg.options.get("muscle_condition", "")
        if condition and (reg.env_type, condition) in seen:
            continue
        seen.add((reg.env_type, condition))
        kept.append(task_id)
    return kept


def _task_ids() -> list[str]:
    """Every registered id (variants sampled, above); ENVFLEET_CONTRACT_IDS="A,B" narrows the
    run to those (the binary wheel's smoke run, .ci/wheel.sh, takes one id per family)."""
    every = envfleet.list_all_envs()
    chosen = [i for i in os.environ.get("ENVFLEET_CONTRACT_IDS", "").split(",") if i]
    unknown = sorted(set(chosen) - set(every))
    if unknown:
        raise ValueError(f"ENVFLEET_CONTRACT_IDS names ids that are not registered: {unknown}")
    return chosen or _sampled(every)


TASK_IDS = _task_ids()

SEED = 7  # env i of a pool is seeded SEED + i
NUM_ENVS = 2  # envs of the reference pool (and of the other multi-env pools)
LIMIT = 3  # max_episode_steps of every pool here: an episode ends within LIMIT steps
STEPS = 3 * LIMIT  # steps compared across pool shapes: two autoresets at least
REF_STEPS = STEPS + 3  # steps of the reference run (partial resets continue past STEPS)
ACTION_ROWS = 4 * STEPS  # actions drawn per env (async runs need a few beyond STEPS)


# ---- data of one env's step ---------------------------------------------------------------


class Step(NamedTuple):
    """One env's result of a reset or a step (copies). ``reward``, ``terminated`` and
    ``truncated`` are None for a result of ``reset()``, which returns none."""

    obs: tuple[np.ndarray, ...]  # one array per spec.obs_keys entry
    info: tuple[np.ndarray, ...]  # one array per spec.info_keys entry
    elapsed: int
    reward: float | None = None
    terminated: bool | None = None
    truncated: bool | None = None

    @property
    def done(self) -> bool:
        return bool(self.terminated or self.truncated)


def obs_arrays(spec, obs) -> list[np.ndarray]:
    """The batched observation as one array per obs key, in ``spec.obs_keys`` order."""
    if spec.obs_layout == "single":
        assert isinstance(obs, np.ndarray), f"obs is a {type(obs).__name__}, not an array"
        return [obs]
    if spec.obs_layout == "tuple":
        assert isinstance(obs, tuple) and len(obs) == len(spec.obs_keys), type(obs)
        return list(obs)
    assert isinstance(obs, dict), f"obs is a {type(obs).__name__}, not a dict"
    if spec.obs_nesting is not None:  # dicts in the dict: keys "outer:inner"
        assert list(obs) == spec.obs_nesting.names
        return [_entry(obs, key.name) for key in spec.obs_keys]
    assert list(obs) == [key.name for key in spec.obs_keys]
    return [obs[key.name] for key in spec.obs_keys]


def _entry(obs: dict, name: str) -> np.ndarray:
    """obs["outer"]["inner"] for the obs key "outer:inner" (obs[name] for a plain name)."""
    for part in name.split(NEST_SEPARATOR):
        obs = obs[part]
    return obs


def single_obs(spec, arrays: list[np.ndarray] | tuple[np.ndarray, ...], row: int | None):
    """Row ``row`` of a batch (``row=None``: ``arrays`` is one env's already) shaped as
    ``spec.observation_space`` wants it."""
    values = [a if row is None else a[row] for a in arrays]
    if spec.obs_layout == "single":
        return values[0]
    if spec.obs_layout == "tuple":
        return tuple(values)
    if spec.obs_nesting is not None:
        return spec.obs_nesting.dict(values)
    return {key.name: v for key, v in zip(spec.obs_keys, values, strict=True)}


def rows(spec, obs, info, reward=None, terminated=None, truncated=None) -> dict[int, Step]:
    """Splits a batch into one :class:`Step` per env, keyed by ``info["env_id"]``."""
    arrays = obs_arrays(spec, obs)
    infos = [info[key.name] for key in spec.info_keys]
    out = {}
    for r, env_id in enumerate(info["env_id"].tolist()):
        out[env_id] = Step(
            obs=tuple(np.array(a[r], copy=True) for a in arrays),
            info=tuple(np.array(a[r], copy=True) for a in infos),
            elapsed=int(info["elapsed_step"][r]),
            reward=None if reward is None else reward[r],  # a NumPy scalar: keeps its dtype
            terminated=None if terminated is None else bool(terminated[r]),
            truncated=None if truncated is None else bool(truncated[r]),
        )
    return out


def assert_same_step(spec, got: Step, want: Step, where: str, *, env_keys: bool = True) -> None:
    """Exact equality of two results of one env (NaNs compare equal); a field that one side
    lacks (a reset has no reward) is not compared. ``env_keys=False`` skips the env's info
    keys (for a result whose info is not the step's own, such as a same-step autoreset)."""
    for key, g, w in zip(spec.obs_keys, got.obs, want.obs, strict=True):
        np.testing.assert_array_equal(g, w, err_msg=f"{where}: obs key {key.name!r} differs")
    if env_keys:
        for key, g, w in zip(spec.info_keys, got.info, want.info, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=f"{where}: info[{key.name!r}] differs")
    assert got.elapsed == want.elapsed, f"{where}: elapsed_step {got.elapsed} != {want.elapsed}"
    for field in ("reward", "terminated", "truncated"):
        g, w = getattr(got, field), getattr(want, field)
        if g is not None and w is not None:
            if field == "reward":  # EnvPool's float32 rewards: the reference's, rounded
                w = np.asarray(w).astype(np.asarray(g).dtype)
            assert g == w, f"{where}: {field} {g} != {w}"


# ---- checks of one batch against the spec -------------------------------------------------


def check_batch(
    spec, obs, info, batch: int, *, reward=None, terminated=None, truncated=None, extra=()
):
    """A batch of ``batch`` rows has the spec's keys, dtypes and shapes, every observation is
    in the space, rewards are finite floats in ``spec.reward_range``, the flags bool arrays
    and ``info`` holds env_id (int32), elapsed_step and the spec's info keys (plus ``extra``)."""
    for key, array in zip(spec.obs_keys, obs_arrays(spec, obs), strict=True):
        assert isinstance(array, np.ndarray), f"obs key {key.name!r}: {type(array).__name__}"
        assert array.dtype == key.dtype, f"obs key {key.name!r}: dtype {array.dtype}"
        assert array.shape == (batch, *key.shape), f"obs key {key.name!r}: shape {array.shape}"
    arrays = obs_arrays(spec, obs)
    for r in range(batch):
        row = single_obs(spec, arrays, r)
        assert spec.observation_space.contains(row), (
            f"row {r} (env {info['env_id'][r]}, elapsed_step {info['elapsed_step'][r]}): "
            f"{row!r} not in {spec.observation_space}"
        )

    envpool = spec.config.conventions == "envpool"
    expected_keys = {"env_id", "elapsed_step", *(key.name for key in spec.info_keys), *extra}
    expected_keys |= {"players"} if envpool else set()
    if spec.config.conventions == "gymnasium":
        # Gymnasium's vector infos: a `_key` mask beside each key (every row: every env reports
        # every key; SAME_STEP's _final_obs / _final_info are the real masks).
        masks = {f"_{key}" for key in expected_keys if not key.startswith("_")}
        for mask in masks - expected_keys:
            assert info[mask].dtype == np.bool_ and info[mask].shape == (batch,), mask
            assert info[mask].all(), mask
        expected_keys |= masks
    assert set(info) == expected_keys, f"info keys {sorted(info)} != {sorted(expected_keys)}"
    env_id, elapsed = info["env_id"], info["elapsed_step"]
    if envpool:  # one player per env
        np.testing.assert_array_equal(info["players"]["env_id"], env_id)
    assert env_id.dtype == np.int32 and env_id.shape == (batch,), (env_id.dtype, env_id.shape)
    assert len(set(env_id.tolist())) == batch, f"repeated env ids {env_id}"
    assert ((env_id >= 0) & (env_id < spec.config.num_envs)).all(), env_id
    assert elapsed.dtype.kind == "i" and elapsed.shape == (batch,), (elapsed.dtype, elapsed.shape)
    assert (elapsed >= 0).all(), elapsed
    for key in spec.info_keys:
        value = info[key.name]
        assert isinstance(value, np.ndarray), f"info[{key.name!r}]: {type(value).__name__}"
        assert value.dtype == key.dtype, f"info[{key.name!r}]: dtype {value.dtype}"
        assert value.shape == (batch, *key.shape), f"info[{key.name!r}]: shape {value.shape}"

    if reward is not None:
        assert isinstance(reward, np.ndarray), reward
        assert reward.dtype == spec.config.conventions.reward_dtype, reward.dtype
        assert reward.shape == (batch,), reward.shape
        assert np.isfinite(reward).all(), f"rewards {reward} are not finite"
        low, high = spec.reward_range
        assert ((reward >= low) & (reward <= high)).all(), f"{reward} not in [{low}, {high}]"
    for name, flags in (("terminated", terminated), ("truncated", truncated)):
        if flags is not None:
            assert isinstance(flags, np.ndarray), f"{name}: {type(flags).__name__}"
            assert flags.dtype == np.bool_ and flags.shape == (batch,), (flags.dtype, flags.shape)


def check_after_close(env, action, env_ids=None) -> None:
    """``close()`` twice is fine; then each call raises a RuntimeError saying it is closed."""
    env.close()
    env.close()
    calls = {
        "reset": lambda: env.reset(),
        "step": lambda: env.step(action, env_ids),
        "send": lambda: env.send(action, env_ids),
        "recv": lambda: env.recv(),
        "async_reset": lambda: env.async_reset(),
    }
    for name, call in calls.items():
        try:
            call()
        except RuntimeError as exc:
            assert "closed" in str(exc), f"{name}() after close(): {exc}"
        except Exception as exc:
            pytest.fail(f"{name}() after close() raised {type(exc).__name__}: {exc}")
        else:
            pytest.fail(f"{name}() after close() did not raise")


# ---- the reference run, once per id ---------------------------------------------------------


@dataclass
class Reference:
    """One id's reference run: the Gymnasium front end, sync, ``NUM_ENVS`` envs, one thread,
    ``max_episode_steps=LIMIT``, seeded ``SEED``: a reset, then ``REF_STEPS`` steps with
    ``actions[t]`` (t = 1 .. REF_STEPS). ``batches`` holds every raw result (copies),
    ``trajectories[i]`` env i's results (index 0: the reset). ``env`` is the pool, closed once
    the run is recorded (its spaces stay readable)."""

    task: str
    spec: Any
    env: Any
    actions: np.ndarray  # (ACTION_ROWS, NUM_ENVS, *action shape); row 0 unused
    batches: list[tuple]  # (obs, info) for the reset, then (obs, reward, term, trunc, info)
    trajectories: list[list[Step]]


def deep_copy(value):
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(deep_copy(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def draw_actions(spec, rows_: int, num_envs: int) -> np.ndarray:
    """``rows_`` actions per env from the action space's own ``sample()``, env i's sampler
    seeded ``1000 + i``; shape (rows_, num_envs, *action shape), the action's dtype."""
    per_env = []
    for i in range(num_envs):
        space = copy.deepcopy(spec.action_space)
        space.seed(1000 + i)
        per_env.append([space.sample() for _ in range(rows_)])
    actions = np.asarray(per_env, dtype=spec.action_key.dtype)
    return np.ascontiguousarray(np.swapaxes(actions, 0, 1))


def make(task, env_type="gymnasium", **kwargs):
    """``envfleet.make`` with the contract's seed and time limit unless told otherwise, and
    the front end's own conventions (Gymnasium's VectorEnv, dm_env's float64) for the
    gymnasium and dm front ends; the gym front end keeps EnvPool's (the default)."""
    kwargs.setdefault("seed", SEED)
    kwargs.setdefault("conventions", {"gymnasium": "gymnasium", "dm": "dm_env"}.get(env_type))
    if kwargs["conventions"] is None:
        del kwargs["conventions"]
    kwargs.setdefault("max_episode_steps", LIMIT)
    return envfleet.make(task, env_type=env_type, **kwargs)


# The tests of the pool's machinery run on one id per (family, env type, muscle condition):
# pool shapes (two threads, partial resets, async batches), the autoreset modes and the gym and
# dm_env front ends. The ids of one env type differ only in options (a game's ROM, a task's
# goal, sizes, reward weights), none of which the pool or a front end reads: it moves the same
# arrays of the same spec, whichever id fills them. The spec and a rollout against it
# (test_spec_describes_one_env, test_rollout_matches_the_spec) run on every id, and each
# family's alignment suite steps every id against its reference. This is what keeps the suite
# inside CI's time: run on every id, the five took 710 s of the 970 s the contract used. The
# other two run on every id, those beyond MACHINERY_IDS in the extended run (see below).
POOL_MACHINERY_TESTS = frozenset(
    {
        "test_two_threads_and_partial_resets",
        "test_async_mode_through_the_dm_front_end",
        "test_same_step_autoreset",
        "test_disabled_autoreset_through_the_gym_front_end",
        "test_gym_legacy_api",
    }
)


def _env_type_and_condition(task_id: str) -> tuple[str, str, str]:
    """(family, env type, muscle condition): MyoSuite's conditions are options of one env type
    that the pool's steps run differently (fatigue, reafferentation)."""
    condition = envfleet.registry.registration(task_id).options.get("muscle_condition", "")
    return (*env_type(task_id), str(condition))


def _one_id_per_env_type(task_ids: list[str]) -> list[str]:
    """The first id (in sorted order) of each env type and condition, in ``task_ids``' order."""
    chosen = first_ids(task_ids, _env_type_and_condition)
    return [t for t in task_ids if t in chosen]


# ENVFLEET_CONTRACT_IDS, where set, names the ids to run: every test runs on each of them.
MACHINERY_IDS = (
    TASK_IDS if os.environ.get("ENVFLEET_CONTRACT_IDS") else _one_id_per_env_type(TASK_IDS)
)


def pytest_generate_tests(metafunc):
    """Every test runs on TASK_IDS but POOL_MACHINERY_TESTS, which run on MACHINERY_IDS. The
    ``task`` fixture is module-scoped, so an id's tests share its reference run. The ids beyond
    MACHINERY_IDS are marked ``extended`` (pyproject.toml): the default run, which CI runs,
    checks the spec and a rollout of one id per env type, and the families' alignment suites
    step every id against its reference."""
    if "task" in metafunc.fixturenames:
        machinery = metafunc.function.__name__ in POOL_MACHINERY_TESTS
        ids = MACHINERY_IDS if machinery else TASK_IDS
        chosen = set(MACHINERY_IDS)
        params = [
            task_id if task_id in chosen else pytest.param(task_id, marks=pytest.mark.extended)
            for task_id in ids
        ]
        metafunc.parametrize("task", params, indirect=True, scope="module")


@pytest.fixture(scope="module")
def task(request):
    """The task id; skips it where its family's engine is not installed here. Module scope,
    so pytest runs all the tests of one id before the next id (and its reference)."""
    try:
        envfleet.make_spec(request.param)
    except EngineNotInstalledError as exc:
        pytest.skip(f"{request.param}: {exc}")
    return request.param


@pytest.fixture(scope="module")
def reference(task):
    env = make(task, num_envs=NUM_ENVS, num_threads=1)
    try:
        spec = env.spec
        actions = draw_actions(spec, ACTION_ROWS, NUM_ENVS)
        obs, info = env.reset()
        batches = [deep_copy((obs, info))]
        trajectories = [[step] for _, step in sorted(rows(spec, obs, info).items())]
        for t in range(1, REF_STEPS + 1):
            out = env.step(actions[t])
            batches.append(deep_copy(out))
            obs, reward, terminated, truncated, info = out
            for i, step in rows(spec, obs, info, reward, terminated, truncated).items():
                trajectories[i].append(step)
    finally:
        env.close()
    return Reference(task, spec, env, actions, batches, trajectories)


# ---- the contract ---------------------------------------------------------------------------


def _dm_names(spec) -> list[str]:
    """The dm_env observation's own fields before env_id: the obs keys (the nested dicts'
    names where the observation nests), then the info keys."""
    obs = (
        spec.obs_nesting.names if spec.obs_nesting is not None else [k.name for k in spec.obs_keys]
    )
    return [*obs, *(key.name for key in spec.info_keys)]


def _leaves(fields) -> list:
    """A dm_env observation's values (or specs), nested namedtuples (FrankaKitchen's dicts of
    goals) flattened in order: one per obs key, then the rest."""
    out = []
    for value in fields:
        out.extend(_leaves(value) if isinstance(value, tuple) else [value])
    return out


def _subspace(space, name: str):
    """The space of obs key ``name`` in a Dict space (of "outer:inner", space["outer"]["inner"])."""
    return _entry(space, name)


def test_spec_describes_one_env(task):
    spec = envfleet.make_spec(task, num_envs=4, batch_size=2)
    one = envfleet.make_spec(task)
    assert spec.task_id == task and spec.config.task_id == task
    assert (spec.config.num_envs, spec.config.batch_size) == (4, 2)
    # observation_space / action_space describe ONE env, whatever the pool's shape.
    assert spec.observation_space == one.observation_space
    assert spec.action_space == one.action_space
    assert spec.action_space == spec.action_key.space()
    if spec.obs_layout == "single":
        assert len(spec.obs_keys) == 1
        subspaces = [spec.observation_space]
    elif spec.obs_layout == "tuple":
        subspaces = list(spec.observation_space.spaces)
    else:
        assert spec.obs_layout == "dict", spec.obs_layout
        subspaces = [_subspace(spec.observation_space, key.name) for key in spec.obs_keys]
    for key, space in zip(spec.obs_keys, subspaces, strict=True):
        assert space == key.space(), key.name
        assert space.shape == key.shape, (key.name, space.shape, key.shape)
        if not isinstance(space, spaces.MultiBinary):  # Gymnasium's MultiBinary is always int8
            assert space.dtype == key.dtype, (key.name, space.dtype, key.dtype)
    assert spec.action_space.shape == spec.action_key.shape
    low, high = spec.reward_range
    assert low <= high
    assert spec.max_episode_steps == (spec.config.max_episode_steps or None)
    assert envfleet.make_spec(task, max_episode_steps=LIMIT).max_episode_steps == LIMIT
    names = [key.name for key in spec.obs_keys + spec.info_keys]
    assert len(set(names)) == len(names), f"obs and info keys share a name: {names}"
    assert not {"env_id", "elapsed_step"} & set(names), names
    # dm_env specs: one field per obs and info key, then env_id (and, under EnvPool's
    # conventions, players.env_id).
    fields = spec.observation_spec()
    assert fields._fields == (*_dm_names(spec), "env_id", "players")
    assert fields.players.env_id == fields.env_id
    for key, field in zip(spec.obs_keys + spec.info_keys, _leaves(fields[:-2]), strict=True):
        assert field.shape == key.shape and field.dtype == key.dtype, key.name
    assert spec.action_spec().shape == spec.action_key.shape
    assert spec.action_spec().dtype == spec.action_key.dtype
    # Rendering: the reference's frame size and fps, or nothing at all.
    render = spec.render
    if render.available:
        assert render.width > 0 and render.height > 0 and render.fps > 0, render
        assert render.num_cameras >= 0, render
        assert (spec.config.render_width, spec.config.render_height) == (
            render.width,
            render.height,
        )
    else:
        assert (render.width, render.height, render.num_cameras) == (0, 0, 0), render
        with pytest.raises(ValueError, match="has no renderer"):
            envfleet.make_spec(task, render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        envfleet.make_spec(task, render_mode="rgb")


def test_rollout_matches_the_spec(reference):
    """Shapes, dtypes and spaces of every batch of the reference run; rewards and flags;
    NEXT_STEP autoreset and truncation at max_episode_steps on every env."""
    spec, env, n = reference.spec, reference.env, NUM_ENVS
    assert env.num_envs == n
    assert env.single_observation_space == spec.observation_space
    assert env.single_action_space == spec.action_space
    assert env.observation_space == batch_space(spec.observation_space, n)
    assert env.action_space == batch_space(spec.action_space, n)
    for t in range(1, REF_STEPS + 1):
        for i in range(n):
            assert spec.action_space.contains(reference.actions[t, i])

    obs, info = reference.batches[0]
    check_batch(spec, obs, info, n)
    assert env.observation_space.contains(obs)
    assert info["env_id"].tolist() == list(range(n))
    assert info["elapsed_step"].tolist() == [0] * n
    for t, (obs, reward, terminated, truncated, info) in enumerate(reference.batches[1:], 1):
        check_batch(spec, obs, info, n, reward=reward, terminated=terminated, truncated=truncated)
        assert env.observation_space.contains(obs), f"step {t}"
        assert info["env_id"].tolist() == list(range(n)), f"step {t}: sync order"

    for i, trajectory in enumerate(reference.trajectories):
        ends = 0
        for t in range(1, len(trajectory)):
            prev, step = trajectory[t - 1], trajectory[t]
            where = f"env {i}, step {t}"
            if prev.done:  # NEXT_STEP: the step after an episode end resets, ignoring its action
                assert step.reward == 0.0, f"{where}: autoreset step has reward {step.reward}"
                assert not step.terminated and not step.truncated, f"{where}: autoreset step"
                assert step.elapsed == 0, f"{where}: autoreset step has elapsed {step.elapsed}"
                continue
            assert step.elapsed == prev.elapsed + 1, f"{where}: elapsed_step {step.elapsed}"
            # Gymnasium's TimeLimit: truncated exactly when the limit is reached.
            assert step.truncated == (step.elapsed >= LIMIT), f"{where}: {step}"
            ends += step.done
        assert ends >= 2, f"env {i}: {ends} episode ends in {REF_STEPS} steps (limit {LIMIT})"


# Frames for the contract: small where the env allows any size (software GL is slow).
RENDER_SIDE = 48
# The steps after which test_two_threads_and_partial_resets draws (0: the reset): the first of
# the run and the autoreset step that starts each env's second episode, each followed by steps
# compared with the reference. Not every step: a MuJoCo frame takes about 0.2 s on llvmpipe
# whatever its size, and drawing at all ten steps was most of the suite's running time.
RENDERED_STEPS = (0, LIMIT + 1)


# Families whose env types (one per task) share one scene and camera setup, so that one id
# shows the pool's frames: Meta-World's 50 tasks are one Sawyer scene, and
# tests/families/metaworld/test_metaworld_spec.py compares every task's frame with the
# reference's (its 50 ids were a third of this suite's rendering time).
ONE_RENDERED_ID_FAMILIES = frozenset({"metaworld"})


def _one_id_per_renderer(task_ids: list[str]) -> set[str]:
    """One id per (family, env type), or per family for ONE_RENDERED_ID_FAMILIES: the first in
    sorted order."""

    def renderer(task_id: str) -> tuple[str, str]:
        family, kind = env_type(task_id)
        return family, "" if family in ONE_RENDERED_ID_FAMILIES else kind

    return first_ids(task_ids, renderer)


# The ids that test_two_threads_and_partial_resets renders: one per env type (of the ids it
# runs on). Ids of one env type differ in options (reward shaping, touch sensors, goals, sizes)
# and share its renderer, whose frames the families' own tests compare with the reference's.
RENDERED_IDS = _one_id_per_renderer(MACHINERY_IDS)


def render_options(spec) -> dict:
    """render_mode="rgb_array" for an env that can draw (at RENDER_SIDE where resizable), if
    its id is one of RENDERED_IDS."""
    if not spec.render.available or spec.task_id not in RENDERED_IDS:
        return {}
    if spec.render.resizable:
        return dict(render_mode="rgb_array", render_width=RENDER_SIDE, render_height=RENDER_SIDE)
    return dict(render_mode="rgb_array")


# Env types whose reference draws one state differently when it draws it again, and which
# envfleet reproduces frame for frame: HandReach's _render_callback places its goal and
# fingertip markers from the site positions the previous frame left (docs/families/robotics.md;
# tests/families/robotics/test_hand.py compares its frame sequences with the reference's).
REDRAWN_DIFFERENTLY = {"HandReach"}


def check_render(env, spec, where: str) -> None:
    """Renders every env (the Gymnasium front end's render(): one frame per env) between the
    steps of a pool whose trajectory is compared with the reference run, which never renders:
    so rendering must leave the simulation as it was. Frames have the configured size, are
    the same when drawn again (but where the reference's are not: REDRAWN_DIFFERENTLY), and
    env_ids picks frames out of the same set."""
    if not render_options(spec):
        return
    config = env.spec.config  # the pool's own: its render size may not be the reference's
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array", "human"], where
    assert env.metadata["render_fps"] == spec.render.render_fps, where
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == config.num_envs, where
    for frame in frames:
        assert frame.shape == (config.render_height, config.render_width, 3), where
        assert frame.dtype == np.uint8, where
    again = env.render(env_ids=[1, 0])
    assert again.shape == (2, config.render_height, config.render_width, 3), where
    if spec.env_type in REDRAWN_DIFFERENTLY:
        return
    np.testing.assert_array_equal(again[0], frames[1], err_msg=f"{where}: render again, env 1")
    np.testing.assert_array_equal(again[1], frames[0], err_msg=f"{where}: render again, env 0")


def _reorder(out):
    """(obs, reward, terminated, truncated, info) -> (obs, info, reward, terminated, truncated),
    the argument order of :func:`rows`."""
    obs, reward, terminated, truncated, info = out
    return obs, info, reward, terminated, truncated


def test_two_threads_and_partial_resets(reference):
    """Sync mode with two threads gives the reference trajectory. Then partial resets: env 1
    through ``reset(env_id=[1], seed=SEED)`` (re-seeded SEED + 1, as at make(): it starts its
    reference trajectory again) and through Gymnasium's ``reset_mask`` option, while env 0's
    episode goes on exactly as in the reference run; a full ``reset()`` resets both."""
    spec, ref, actions, n = reference.spec, reference.trajectories, reference.actions, NUM_ENVS
    env = make(reference.task, num_envs=n, num_threads=2, **render_options(spec))
    try:
        obs, info = env.reset()
        check_render(env, spec, "reset")  # RENDERED_STEPS[0]
        check_batch(spec, obs, info, n)
        assert info["env_id"].tolist() == list(range(n))
        assert info["elapsed_step"].tolist() == [0] * n
        for i, step in rows(spec, obs, info).items():
            assert_same_step(spec, step, ref[i][0], f"num_threads=2: env {i}, reset")
        for t in range(1, STEPS + 1):
            out = env.step(actions[t])
            if t in RENDERED_STEPS:
                check_render(env, spec, f"step {t}")
            assert out[4]["env_id"].tolist() == list(range(n)), f"step {t}: sync order"
            for i, step in rows(spec, *_reorder(out)).items():
                assert_same_step(spec, step, ref[i][t], f"num_threads=2: env {i}, step {t}")

        # reset(env_id): a batch of env 1 alone.
        obs, info = env.reset(env_id=np.array([1], dtype=np.int32), seed=SEED)
        check_batch(spec, obs, info, 1)
        assert info["env_id"].tolist() == [1] and info["elapsed_step"].tolist() == [0]
        where = f"reset(env_id=[1], seed={SEED}) re-seeds env 1 with {SEED + 1}"
        assert_same_step(spec, rows(spec, obs, info)[1], ref[1][0], where)
        for k in (1, 2):
            out = rows(spec, *_reorder(env.step(np.stack([actions[STEPS + k, 0], actions[k, 1]]))))
            assert_same_step(spec, out[0], ref[0][STEPS + k], f"env 0 (env 1 was reset), {k}")
            assert_same_step(spec, out[1], ref[1][k], f"env 1, step {k} after its reset")

        # Gymnasium's reset_mask: the whole batch comes back, env 0's row holding its last
        # observation, with _key masks in info.
        mask = np.array([False, True])
        obs, info = env.reset(options={"reset_mask": mask})
        arrays = obs_arrays(spec, obs)
        for key, array, last in zip(spec.obs_keys, arrays, out[0].obs, strict=True):
            assert array.shape == (n, *key.shape) and array.dtype == key.dtype, key.name
            np.testing.assert_array_equal(array[0], last, err_msg=f"reset_mask: row 0, {key.name}")
        assert spec.observation_space.contains(single_obs(spec, arrays, 1))
        assert info["env_id"].tolist() == list(range(n))
        assert info["_elapsed_step"].tolist() == mask.tolist()
        assert info["elapsed_step"][1] == 0
        out = rows(spec, *_reorder(env.step(actions[STEPS + 3])))
        assert_same_step(spec, out[0], ref[0][STEPS + 3], "env 0 (env 1 was reset by the mask)")
        assert out[1].elapsed == 1 and not out[1].truncated, f"env 1 after the mask: {out[1]}"

        obs, info = env.reset()
        check_batch(spec, obs, info, n)
        assert info["env_id"].tolist() == list(range(n))
        assert info["elapsed_step"].tolist() == [0] * n
    finally:
        env.close()


def test_async_mode_through_the_dm_front_end(reference):
    """Async mode (batch_size < num_envs, two threads) behind the dm_env front end. Actions go
    only to the envs a batch returned, and each env's own sequence of TimeSteps is the
    reference's: the observation fields (the obs keys, the info keys, env_id) and the reward,
    and step_type / discount, which say how each episode ended: FIRST on a reset and on the
    step after a LAST (NEXT_STEP autoreset), LAST on an episode end, MID otherwise; discount 0
    on termination and 1 otherwise, truncation included, or the env's own float ``discount``
    info where it has one (dm.py: Atari's ``zero_discount_on_life_loss``)."""
    spec, ref, n, batch = reference.spec, reference.trajectories, NUM_ENVS, NUM_ENVS - 1
    env = make(reference.task, "dm", num_envs=n, batch_size=batch, num_threads=2)
    info_names = [key.name for key in spec.info_keys]
    own_discount = "discount" in info_names and (
        spec.info_keys[info_names.index("discount")].dtype.kind == "f"
    )
    k = len(spec.obs_keys)
    counts = [0] * n  # results received per env
    try:
        assert isinstance(env, dm_env.Environment) and env.is_async
        fields = env.observation_spec()
        assert fields._fields == (*_dm_names(spec), "env_id")
        action_spec = env.action_spec()
        env.async_reset()
        for _ in range(10 * STEPS):
            ts = env.recv()
            assert isinstance(ts, dm_env.TimeStep)
            assert ts.observation._fields == fields._fields
            for value, field in zip(_leaves(ts.observation), _leaves(fields), strict=True):
                assert isinstance(value, np.ndarray), field.name
                assert value.shape == (batch, *field.shape), (field.name, value.shape)
                assert value.dtype == field.dtype, (field.name, value.dtype)
            for name in ("step_type", "reward", "discount"):
                assert getattr(ts, name).shape == (batch,), name
            ids = ts.observation.env_id.copy()
            assert len(set(ids.tolist())) == batch and ((ids >= 0) & (ids < n)).all(), ids
            for r, e in enumerate(ids.tolist()):
                t, counts[e] = counts[e], counts[e] + 1
                if t >= len(ref[e]):
                    continue
                want, where = ref[e][t], f"dm async: env {e}, result {t}"
                values = _leaves(ts.observation)
                for value, field in zip(values, _leaves(fields), strict=True):
                    field.validate(value[r])
                env.reward_spec().validate(ts.reward[r])
                env.discount_spec().validate(ts.discount[r])
                got = Step(
                    obs=tuple(v[r] for v in values[:k]),
                    info=tuple(v[r] for v in values[k:-1]),
                    elapsed=want.elapsed,  # not a dm_env field
                    reward=float(ts.reward[r]),
                )
                assert_same_step(spec, got, want._replace(reward=want.reward or 0.0), where)
                if t == 0 or ref[e][t - 1].done:
                    step_type = dm_env.StepType.FIRST
                else:
                    step_type = dm_env.StepType.LAST if want.done else dm_env.StepType.MID
                if want.terminated:
                    discount = 0.0
                elif own_discount:
                    discount = float(want.info[info_names.index("discount")])
                else:
                    discount = 1.0  # truncation included
                assert ts.step_type[r] == step_type, f"{where}: {ts.step_type[r]} ({want})"
                assert ts.discount[r] == discount, f"{where}: discount {ts.discount[r]} ({want})"
            if min(counts) > STEPS:
                break
            # env e's t-th result (t = 0: its reset) is followed by reference.actions[t + 1]
            actions = reference.actions[[min(counts[e], ACTION_ROWS - 1) for e in ids], ids]
            for action in actions:
                action_spec.validate(action)
            env.send(actions, ids)
        assert min(counts) > STEPS, f"results per env: {counts} (starved?)"
    finally:
        check_after_close(env, reference.actions[1, :batch], np.arange(batch, dtype=np.int32))


def test_same_step_autoreset(reference):
    """SAME_STEP: the ending step returns the next episode's first observation (and info),
    the ended one's in info["final_obs"] / info["final_info"]; the reward, flags and
    elapsed_step are the ending step's. Env 0 replays the reference with the NEXT_STEP reset
    steps folded into the steps that end an episode."""
    spec, ref, actions = reference.spec, reference.trajectories[0], reference.actions
    env = make(reference.task, num_envs=1, autoreset_mode="same_step")
    extra = ("final_obs", "_final_obs", "final_info", "_final_info")
    try:
        assert env.metadata["autoreset_mode"].name == "SAME_STEP"
        obs, info = env.reset()
        check_batch(spec, obs, info, 1, extra=extra)
        assert info["_final_obs"].tolist() == [False] and info["_final_info"].tolist() == [False]
        assert_same_step(spec, rows(spec, obs, info)[0], ref[0], "same_step: reset")
        ends = 0
        for t in range(1, len(ref) - 1):
            if ref[t - 1].done:
                continue  # the reference's reset step: part of the previous step here
            obs, reward, terminated, truncated, info = env.step(actions[t, :1])
            check_batch(
                spec,
                obs,
                info,
                1,
                reward=reward,
                terminated=terminated,
                truncated=truncated,
                extra=extra,
            )
            step = rows(spec, obs, info, reward, terminated, truncated)[0]
            where = f"same_step: step {t}"
            done = ref[t].done
            assert info["_final_obs"].tolist() == [done], where
            assert info["_final_info"].tolist() == [done], where
            final_arrays = obs_arrays(spec, info["final_obs"])
            for key, array in zip(spec.obs_keys, final_arrays, strict=True):
                assert array.dtype == key.dtype and array.shape == (1, *key.shape), key.name
            assert set(info["final_info"]) == {key.name for key in spec.info_keys}
            if not done:
                assert_same_step(spec, step, ref[t], where)
                continue
            ends += 1
            # flags, reward and elapsed_step of the ending step; obs and info of the next reset
            assert_same_step(spec, step._replace(obs=ref[t].obs), ref[t], where, env_keys=False)
            new_episode = step._replace(
                elapsed=ref[t + 1].elapsed, reward=None, terminated=None, truncated=None
            )
            assert_same_step(spec, new_episode, ref[t + 1], where + " (new episode)")
            final = Step(
                obs=tuple(a[0] for a in final_arrays),
                info=tuple(info["final_info"][key.name][0] for key in spec.info_keys),
                elapsed=ref[t].elapsed,
            )
            assert spec.observation_space.contains(single_obs(spec, final.obs, None)), where
            assert_same_step(spec, final, ref[t], where + " (final_obs / final_info)")
        assert ends >= 1, "no episode ended"
    finally:
        check_after_close(env, actions[1, :1])


def test_disabled_autoreset_through_the_gym_front_end(reference):
    """The gym front end (EnvPool's: spaces of ONE env, Gymnasium's reset/step tuples) with
    DISABLED autoreset: stepping an env whose episode ended raises a ValueError saying to
    reset it; the pool stays usable, and an explicit ``reset(env_id)`` starts the next episode
    as the reference's autoreset did."""
    spec, ref, actions = reference.spec, reference.trajectories[0], reference.actions
    env = make(reference.task, "gym", num_envs=1, autoreset_mode="disabled")
    try:
        assert env.observation_space == spec.observation_space
        assert env.action_space == spec.action_space
        assert env.metadata["autoreset_mode"].name == "DISABLED"
        obs, info = env.reset()
        check_batch(env.spec, obs, info, 1)
        assert_same_step(spec, rows(spec, obs, info)[0], ref[0], "gym, disabled: reset")
        t = 0
        while not ref[t].done:
            t += 1
            out = env.step(actions[t, :1])
            assert len(out) == 5, "gym step: (obs, reward, terminated, truncated, info)"
            obs, reward, terminated, truncated, info = out
            check_batch(
                env.spec, obs, info, 1, reward=reward, terminated=terminated, truncated=truncated
            )
            step = rows(spec, *_reorder(out))[0]
            assert_same_step(spec, step, ref[t], f"gym, disabled: step {t}")
        with pytest.raises(ValueError, match="reset"):
            env.step(actions[t + 1, :1])
        obs, info = env.reset(env_id=np.array([0], dtype=np.int32))
        check_batch(env.spec, obs, info, 1)
        assert_same_step(spec, rows(spec, obs, info)[0], ref[t + 1], "gym: explicit reset")
        out = env.step(actions[t + 2, :1])
        assert_same_step(spec, rows(spec, *_reorder(out))[0], ref[t + 2], f"step {t + 2}")
    finally:
        check_after_close(env, actions[1, :1])


FRONT_END_STEPS = LIMIT + 2  # through the first episode end and its autoreset


def test_gym_legacy_api(reference):
    """``legacy_api=True``: ``reset() -> obs``, ``step() -> (obs, reward, done, info)`` with
    ``done = terminated | truncated`` and ``info["TimeLimit.truncated"]`` True where the time
    limit, not the env, ended the episode; NEXT_STEP autoreset as in the reference."""
    spec, ref, actions = reference.spec, reference.trajectories[0], reference.actions
    env = make(reference.task, "gym", num_envs=1, legacy_api=True)
    try:
        assert env.observation_space == spec.observation_space
        assert env.action_space == spec.action_space
        obs = env.reset()  # the observation alone
        for key, array, want in zip(spec.obs_keys, obs_arrays(spec, obs), ref[0].obs, strict=True):
            assert array.shape == (1, *key.shape) and array.dtype == key.dtype, key.name
            np.testing.assert_array_equal(array[0], want, err_msg=f"legacy: reset, {key.name}")
        for t in range(1, FRONT_END_STEPS + 1):
            out = env.step(actions[t, :1])
            assert len(out) == 4, "legacy step: (obs, reward, done, info)"
            obs, reward, done, info = out
            check_batch(env.spec, obs, info, 1, reward=reward, extra=("TimeLimit.truncated",))
            want, where = ref[t], f"legacy: step {t}"
            assert done.dtype == np.bool_ and done.tolist() == [want.done], where
            time_limit = want.truncated and not want.terminated
            assert info["TimeLimit.truncated"].tolist() == [time_limit], where
            assert_same_step(spec, rows(spec, obs, info, reward)[0], want, where)
    finally:
        check_after_close(env, actions[1, :1])
