"""API fuzzing: random sequences of make/send/recv/step/reset/render/close calls with random
shapes, dtypes, values (NaN, infinity, huge ints), env ids and batch sizes, over every family.

The property: every call either succeeds with results that match the spec, or raises one of the
documented exception types (README.md, "Semantics", "Errors"): TypeError or ValueError for bad
input, RuntimeError for a closed pool, envfleet.EnvError when an env itself raised. Never a
crash, a hang or silently wrong data. A model of the pool (``PoolModel``) predicts which calls
must fail and checks every delivered batch against what the calls so far imply:

- each env's result comes back exactly once per action sent (no result lost or delivered
  twice): a delivered env had an action in flight, and the pool's count of envs in flight
  equals the model's;
- ``info["elapsed_step"]`` goes 0 on a reset, +1 on a step; ``truncated`` exactly when it
  reaches ``max_episode_steps`` (or the env's own limit, MiniGrid's ``max_steps``); the step
  after an episode's end autoresets (``next_step``), or the end resets in place
  (``same_step``), or stepping is refused (``disabled``);
- a send made with no env in flight fixes the rows in send order (sync order); a batch has
  ``batch_size`` rows, or exactly the envs of a partial step/reset made with none in flight;
- shapes and dtypes are the spec's; float observations and rewards hold no NaN;
- Counting-v0 (the example family) is checked to the value: its reward is the action the env
  was sent, its observation counts the episode's steps, its frames show its state.

Calls time out after ``CALL_LIMIT_S`` (a hang ends the run with every thread's stack). The
Hypothesis profile (``ENVFLEET_FUZZ_PROFILE``, below) sets the number of
examples; the expensive families (Atari, MuJoCo, dm_control, Box2D) get few.
"""

from __future__ import annotations

import faulthandler
import functools
import os
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import envfleet
from envfleet.families.procgen import GAMES as PROCGEN_GAMES
from envfleet.families.procgen import MODES as PROCGEN_MODES

# ---- Hypothesis profiles ----
# ENVFLEET_FUZZ_PROFILE=short (the default) runs in the normal test suite: few examples per
# family, derandomized, so that a run is reproducible and takes seconds. =long explores: random
# seeds and hundreds of examples per family, more than 10^5 API calls in all (`-s` prints the
# count). Neither keeps a Hypothesis database; a failure prints the example that reproduces it.
# ENVFLEET_FUZZ_NO_SHRINK=1 reports a failure as found: shrinking a long sequence of calls can
# take many minutes.
PROFILE = os.environ.get("ENVFLEET_FUZZ_PROFILE", "short")
if PROFILE not in ("short", "long"):
    raise ValueError(f"ENVFLEET_FUZZ_PROFILE must be 'short' or 'long', got {PROFILE!r}")
# Calls take from microseconds (Counting) to tens of milliseconds (making an Atari or MuJoCo
# pool): Hypothesis's deadline and speed checks would only measure the machine.
_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate]
    if os.environ.get("ENVFLEET_FUZZ_NO_SHRINK")
    else list(Phase),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile("envfleet-short", derandomize=True, **_COMMON)
settings.register_profile("envfleet-long", derandomize=False, **_COMMON)
_PROFILE_SETTINGS = settings.get_profile(f"envfleet-{PROFILE}")

# A single call takes milliseconds; one that runs this long is a hang (the whole run stops
# with every thread's stack, as the test suite's watchdog does).
CALL_LIMIT_S = 60
_WATCHDOG_S = float(os.environ.get("ENVFLEET_TEST_WATCHDOG", "300"))

BAD_INPUT = (TypeError, ValueError)
CALLS = {"count": 0}


class _Watchdog:
    """Arms faulthandler for one call, then re-arms the test suite's per-test watchdog."""

    def __enter__(self):
        CALLS["count"] += 1
        faulthandler.dump_traceback_later(CALL_LIMIT_S, exit=True)

    def __exit__(self, *exc):
        faulthandler.dump_traceback_later(_WATCHDOG_S, exit=True)
        return False


def call(fn, *args, **kwargs):
    with _Watchdog():
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# The tasks fuzzed, per family
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    task_id: str
    # Env options the fuzz draws for it (name -> strategy), beyond the task's defaults.
    options: dict[str, Any] = field(default_factory=dict)
    max_envs: int = 6
    # The env may continue an ended episode's clock across an autoreset (Counting's
    # continue_episodes, Atari's episodic_life): elapsed_step then goes on.
    may_continue: bool = False
    # The env's own time limit (MiniGrid's max_steps, Env::kTruncates): it truncates there
    # whatever max_episode_steps says. 0: none.
    own_limit: int = 0


def _counting_options() -> dict[str, Any]:
    options = {
        "episode_length": st.integers(1, 6),
        "continue_episodes": st.booleans(),
        "fail_at_step": st.sampled_from([-1, -1, -1, 1, 2, 5]),
        "fail_render": st.sampled_from([False, False, False, True]),
    }
    # fail_at_reset is the newest fault of the example family: fuzzed where the build has it.
    if "fail_at_reset" in envfleet._core.env_types()["Counting"]:
        options["fail_at_reset"] = st.sampled_from([-1, -1, -1, 1, 2, 4])
    return options


# Procgen: the options procgen's engine takes, which envfleet checks before the engine sees
# them (it calls exit() on a bad one). The machines draw valid values only (exploration mode,
# one fixed level, takes no level range); test_make_procgen_with_random_options draws any.
PROCGEN_FLAGS = (
    "channel_first",
    "use_sequential_levels",
    "center_agent",
    "use_backgrounds",
    "use_monochrome_assets",
    "restrict_themes",
    "use_generated_assets",
    "paint_vel_info",
    "use_easy_jump",
)
INT32_MAX = 2**31 - 1


def procgen_time_limit(game: str, mode: int) -> int:
    """The game's own time limit (procgen's Game::timeout), the id's max_episode_steps."""
    if game == "jumper" and mode == PROCGEN_MODES["Memory"]:
        return 2000
    return {"bigfish": 6000, "bossfight": 4000, "plunder": 4000, "leaper": 500, "maze": 500}.get(
        game, 1000
    )


def _procgen_tasks() -> list[Task]:
    """Every Procgen id, with valid values of its options. Its own limit is the game's, per
    level: with use_sequential_levels a completed level restarts the env's clock but not
    elapsed_step, which no run here takes near the shortest limit (500 steps)."""
    tasks = []
    for game, modes in PROCGEN_GAMES.items():
        for mode in modes:
            options = {flag: st.booleans() for flag in PROCGEN_FLAGS}
            if mode != "Exploration":
                options["num_levels"] = st.sampled_from([0, 1, 3, 500])
                options["start_level"] = st.sampled_from([0, 1, 7, INT32_MAX - 500])
            tasks.append(
                Task(
                    f"{game.capitalize()}{mode}-v0",
                    options,
                    max_envs=4,
                    own_limit=procgen_time_limit(game, PROCGEN_MODES[mode]),
                )
            )
    return tasks


FAMILIES: dict[str, list[Task]] = {
    "example": [Task("Counting-v0", _counting_options(), max_envs=8, may_continue=True)],
    "classic_control": [
        Task("CartPole-v1"),
        Task("Pendulum-v1"),
        Task("MountainCarContinuous-v0"),
        Task("Acrobot-v1"),
    ],
    "toy_text": [
        Task("FrozenLake-v1", {"is_slippery": st.booleans()}),
        Task("Taxi-v3"),
        Task("Blackjack-v1"),
        Task("CliffWalking-v1"),
    ],
    "atari": [
        Task(
            "Pong-v5",
            {"episodic_life": st.booleans(), "img_height": st.sampled_from([84, 20])},
            max_envs=3,
            may_continue=True,
        ),
        Task("Breakout-v5", {"episodic_life": st.booleans()}, max_envs=3, may_continue=True),
    ],
    "mujoco": [
        Task("HalfCheetah-v5", max_envs=4),
        Task("Ant-v5", max_envs=4),
        Task("Hopper-v5", max_envs=4),
    ],
    "box2d": [
        Task("LunarLander-v3", max_envs=4),
        Task("LunarLanderContinuous-v3", max_envs=4),
        Task("BipedalWalker-v3", max_envs=3),
    ],
    "dm_control": [Task("CartpoleSwingup-v1", max_envs=4), Task("ReacherEasy-v1", max_envs=4)],
    "minigrid": [
        Task(
            "MiniGrid-DoorKey-5x5-v0",
            {
                "max_steps": st.sampled_from([-1, 3, 7]),
                "agent_view_size": st.sampled_from([3, 5, 7]),
                "see_through_walls": st.booleans(),
                "obs_wrapper": st.sampled_from(["", "FullyObsWrapper", "RGBImgPartialObsWrapper"]),
            },
            own_limit=250,
        ),
        Task("MiniGrid-Dynamic-Obstacles-5x5-v0", own_limit=100),
        Task(
            "MiniGrid-ObstructedMaze-1Dlhb-v0",
            {"max_steps": st.sampled_from([-1, 5])},
            own_limit=288,
        ),
        Task("MiniGrid-MultiRoom-N2-S4-v0", own_limit=40),
        # BabyAI: a level's own limit comes from its instructions, per episode (GoToLocal's is
        # always 64, PutNext's fixed, BossLevel's varies: the fuzz gives it max_steps).
        Task(
            "BabyAI-GoToLocal-v0",
            {
                "max_steps": st.sampled_from([-1, 3, 7]),
                "obs_wrapper": st.sampled_from(["", "FullyObsWrapper"]),
            },
            own_limit=64,
        ),
        Task("BabyAI-BossLevel-v0", {"max_steps": st.sampled_from([3, 7, 20])}),
        Task(
            "BabyAI-PutNextS5N2Carrying-v0",
            {"max_steps": st.sampled_from([-1, 4])},
            own_limit=8 * 5**2,
        ),
    ],
    # MiniGrid's WFC mazes (a solver runs at every reset): a machine of their own, so that
    # `-k WFC` selects it. size stays 25, for the own limit of 500 (size * 20).
    "minigrid_wfc": [
        Task(
            "MiniGrid-WFC-MazeSimple-v0",
            {
                "max_steps": st.sampled_from([-1, 4]),
                "wfc_preset": st.sampled_from(["", "ObstaclesHogs3", "RoomsFabric"]),
                "ensure_connected": st.booleans(),
            },
            own_limit=500,
        ),
    ],
    # Gymnasium-Robotics: goal envs (dict observations) of each robot.
    "robotics": [
        Task(
            "FetchPush-v4",
            {
                "reward_type": st.sampled_from(["sparse", "dense"]),
                "block_gripper": st.booleans(),
            },
            max_envs=4,
        ),
        Task("FetchReach-v4", {"distance_threshold": st.sampled_from([0.0, 0.05, 1.0])}),
        Task(
            "PointMaze_UMaze-v3",
            {
                "continuing_task": st.booleans(),
                "reset_target": st.booleans(),
                "reward_type": st.sampled_from(["sparse", "dense"]),
            },
        ),
        Task("AdroitHandDoor-v1", {"reward_type": st.sampled_from(["sparse", "dense"])}),
        Task(
            "HandManipulateEgg_BooleanTouchSensors-v1",
            {"target_rotation": st.sampled_from(["xyz", "z"]), "relative_control": st.booleans()},
            max_envs=4,
        ),
        Task("HandReach-v3", {"distance_threshold": st.sampled_from([0.0, 0.01, 1.0])}),
        # A nested observation (dicts of tasks in the dict).
        Task(
            "FrankaKitchen-v1",
            {
                "tasks_to_complete": st.sampled_from([["microwave", "kettle"], ["light switch"]]),
                "remove_task_when_completed": st.booleans(),
            },
            max_envs=3,
        ),
    ],
    # Meta-World: the Sawyer arm, one object (pick-place), two (stick-pull), an articulated
    # one (door-open); the task's own 500-step limit truncates whatever max_episode_steps is.
    "metaworld": [
        Task(
            "MetaWorld/PickPlace-v3",
            {"partially_observable": st.booleans(), "frame_skip": st.sampled_from([1, 5])},
            max_envs=4,
            own_limit=500,
        ),
        Task(
            "MetaWorld/StickPull-v3",
            {"partially_observable": st.booleans()},
            max_envs=3,
            own_limit=500,
        ),
        Task("MetaWorld/DoorOpen-v3", {"partially_observable": st.booleans()}, own_limit=500),
    ],
    # MyoSuite: muscles through the sigmoid, fatigue's state carried across steps and reset,
    # sarcopenia's model shared by the pool, the workspace table of the random reach targets;
    # a far_th small enough that reach episodes end by termination too.
    "myosuite": [
        Task(
            "myoFatiFingerReachRandom-v0",
            {"far_th": st.sampled_from([0.35, 0.02]), "frame_skip": st.sampled_from([1, 10])},
            max_envs=4,
        ),
        Task(
            "myoSarcElbowPose1D6MRandom-v0",
            {"reset_type": st.sampled_from(["init", "random"]), "normalize_act": st.booleans()},
            max_envs=4,
        ),
    ],
    # ViZDoom: an engine process per env; episodic_life may continue a game after a death.
    "vizdoom": [
        Task(
            "Basic-v1",
            {
                "use_combined_action": st.booleans(),
                "frame_skip": st.sampled_from([1, 4]),
                "img_height": st.sampled_from([84, 30]),
            },
            max_envs=3,
        ),
        Task(
            "DefendTheCenter-v1",
            {"episodic_life": st.booleans(), "stack_num": st.sampled_from([1, 4])},
            max_envs=3,
            may_continue=True,
        ),
        Task("D3Battle-v1", {"use_combined_action": st.booleans()}, max_envs=2),
    ],
    # Procgen: an engine instance per env (procgen's libenv), every id.
    "procgen": _procgen_tasks(),
}

# Examples (pools made) and calls per pool, per profile: cheap families get many, the
# expensive ones (a pool of Atari or MuJoCo envs takes tens of milliseconds to make) few.
_CHEAP = ("example", "classic_control", "toy_text", "minigrid", "minigrid_wfc", "procgen")
EXAMPLES = {
    "short": {
        "example": 40,
        "classic_control": 12,
        "toy_text": 12,
        "minigrid": 12,
        "minigrid_wfc": 12,
        "procgen": 20,
        "other": 4,
    },
    "long": {
        "example": 1100,
        "classic_control": 250,
        "toy_text": 250,
        "minigrid": 250,
        "minigrid_wfc": 250,
        "procgen": 250,
        "other": 40,
    },
}
STEPS = {"short": 30, "long": 100}


# ---------------------------------------------------------------------------------------------
# Actions: valid ones in every accepted form, and invalid ones of every documented kind
# ---------------------------------------------------------------------------------------------


@st.composite
def actions(draw, key, count: int):
    """Returns (action, valid): a batch of `count` actions for the action array `key`, and
    whether the pool must accept it."""
    shape = (count, *key.shape)
    low = np.broadcast_to(key.low, key.shape).astype(np.float64)
    high = np.broadcast_to(key.high, key.shape).astype(np.float64)
    kind = draw(
        st.sampled_from(
            ["valid"] * 8
            + [
                "wrong_batch",
                "wrong_shape",
                "nan",
                "inf",
                "strings",
                "none",
                "object",
                "out_of_range",
                "huge",
            ]
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "valid":
        if key.discrete:
            values = rng.integers(low.astype(np.int64), high.astype(np.int64) + 1, size=shape)
            form = draw(st.sampled_from(["int64", "int32", "float", "list", "uint8"]))
            if form == "uint8" and (low.min() < 0 or high.max() > 255):
                form = "int64"
            if form == "float":
                # Floats are cast toward zero, as EnvPool casts them: x.y stays in range.
                frac = rng.uniform(0, 0.99, size=shape) * np.sign(values + 0.5)
                return (values + frac).astype(np.float64), True
            if form == "list":
                return values.tolist(), True
            return values.astype(form), True
        # Continuous: anything finite goes; the env clips what lies outside the box.
        finite_low = np.where(np.isfinite(low), low, -10.0)
        finite_high = np.where(np.isfinite(high), high, 10.0)
        values = rng.uniform(finite_low, finite_high, size=shape)
        form = draw(st.sampled_from(["float32", "float64", "outside", "extreme", "list"]))
        if form == "outside":
            values = values * 3.0 + 1.0
        if form == "extreme":
            values = np.where(rng.random(shape) < 0.5, 1e30, -1e30)
        if form == "list":
            return values.tolist(), True
        return values.astype(np.float32 if form != "float64" else np.float64), True
    base = np.zeros(shape, dtype=key.dtype) + np.asarray(low, dtype=key.dtype)
    if kind == "wrong_batch":
        return np.resize(base, (count + draw(st.sampled_from([-1, 1, 2])), *key.shape)), False
    if kind == "wrong_shape":
        return base.reshape(count, *key.shape, 1), False
    if kind == "strings":
        return np.full(shape, "a"), False
    if kind == "none":
        return None, False
    if kind == "object":
        return np.full(shape, 2**70, dtype=object), False
    if count == 0:
        return base, True
    bad = base.astype(np.float64)
    idx = tuple(rng.integers(0, s) for s in shape)
    if kind == "nan":
        bad[idx] = np.nan
        return bad, False
    if kind == "inf":
        bad[idx] = draw(st.sampled_from([np.inf, -np.inf]))
        return bad, False
    if not key.discrete:  # out-of-range and huge values of a box are clipped: valid
        bad[idx] = draw(st.sampled_from([1e30, -1e30, 2.0**63]))
        return bad.astype(key.dtype), True
    wide = base.astype(np.int64)
    element = idx[1:] if len(idx) > 1 else ()
    if kind == "out_of_range":
        wide[idx] = draw(st.sampled_from([int(high[element]) + 1, int(low[element]) - 1, -(2**31)]))
        return wide, False
    huge = draw(st.sampled_from(["int", "uint64", "float"]))
    if huge == "uint64":
        big = wide.astype(np.uint64)
        big[idx] = 2**63
        return big, False
    if huge == "float":
        bad[idx] = 1e30
        return bad, False
    wide[idx] = 2**40
    return wide, False


# ---------------------------------------------------------------------------------------------
# The model of a pool
# ---------------------------------------------------------------------------------------------


@dataclass
class EnvModel:
    started: bool | None = False  # None: unknown (its result was dropped)
    over: bool = True  # its next step item is processed as a reset
    elapsed: int | None = 0  # None: unknown (dm front end, after a dropped result)
    in_flight: str | None = None  # "step" or "reset" while an item is queued
    action: Any = None  # the action in flight (Counting checks its reward)
    uncertain: bool = False  # a result was dropped (EnvError): re-learn from the next one
    may_continue: bool = False  # the ended episode may go on across its autoreset
    obs: Any = None  # the last observation row (Counting's frames are checked against it)


class PoolModel:
    def __init__(self, env, task: Task, options: dict[str, Any]):
        config = env.config
        self.env = env
        self.task = task
        self.options = options
        self.n = config.num_envs
        self.b = config.batch_size
        self.mode = str(config.autoreset_mode.value)
        self.max_steps = config.max_episode_steps
        # An env that truncates itself does so at its max_steps option (-1: its own default).
        own = options.get("max_steps", -1)
        self.own_limit = task.own_limit if own == -1 else own
        self.envs = [EnvModel() for _ in range(self.n)]
        self.fixed: deque[int] = deque()  # envs whose rows are fixed in send order
        self.counting = task.task_id == "Counting-v0"
        self.faulty = self.counting and (
            options.get("fail_at_step", -1) > 0 or options.get("fail_at_reset", -1) > 0
        )
        self.continues = task.may_continue and bool(
            options.get("continue_episodes") or options.get("episodic_life")
        )

    # ---- predictions ----

    @property
    def pending(self) -> int:
        return sum(e.in_flight is not None for e in self.envs)

    def idle(self) -> list[int]:
        return [i for i, e in enumerate(self.envs) if e.in_flight is None]

    def ids_problem(self, ids: list[int] | None, reset: bool) -> bool:
        """Whether sending to `ids` (None: every env) must be refused."""
        ids = list(range(self.n)) if ids is None else ids
        if not ids or len(set(ids)) != len(ids) or len(ids) > self.n:
            return True
        if any(not 0 <= i < self.n for i in ids):
            return True
        if any(self.envs[i].in_flight is not None for i in ids):
            return True
        if not reset and self.mode == "disabled":
            return any(self.envs[i].over for i in ids)
        return False

    def fill_problem(self, count: int) -> bool:
        """Whether a step/reset of `count` envs could never complete its batch."""
        return self.pending > 0 and self.pending + count < self.b

    def expected_rows(self, count: int, sealed: bool) -> int:
        if sealed and self.pending == 0 and count < self.b:
            return count
        return self.b

    # ---- updates ----

    def queue(self, ids: list[int], kind: str, actions_: Any = None) -> None:
        if self.pending == 0:
            self.fixed = deque(ids)  # a send with nothing in flight fixes the rows' order
        for k, i in enumerate(ids):
            self.envs[i].in_flight = kind
            self.envs[i].action = None if actions_ is None else actions_[k]

    def deliver(self, rows: list[int], expected: int, batch: dict[str, Any]) -> None:
        assert len(rows) == expected, f"a batch of {len(rows)} rows, expected {expected}"
        assert len(set(rows)) == len(rows), f"an env delivered twice in one batch: {rows}"
        self._check_order(rows)
        for r, i in enumerate(rows):
            assert 0 <= i < self.n, f"env_id {i} out of range"
            env = self.envs[i]
            assert env.in_flight is not None, (
                f"env {i} delivered without an action in flight (delivered twice?)"
            )
            self._check_row(i, env, r, batch)
            env.in_flight = None

    def _check_order(self, rows: list[int]) -> None:
        k = min(len(self.fixed), len(rows))
        fixed = [self.fixed.popleft() for _ in range(k)]
        assert rows[:k] == fixed, f"rows {rows} do not start with the send order {fixed}"

    def _check_row(self, i: int, env: EnvModel, r: int, batch: dict[str, Any]) -> None:
        elapsed = int(batch["elapsed_step"][r])
        obs_row = batch["obs_row"](r)
        if batch["reward"] is None:  # a reset() batch: (obs, info) only
            if env.in_flight == "step" and not env.over and not env.uncertain:
                assert elapsed == env.elapsed + 1, f"env {i}: elapsed_step {elapsed} after step"
                # Its reward and flags are not in reset()'s result: learn them from the next.
                env.uncertain, env.obs = True, None
                env.over = self.env._pool.episode_over(i)
                return
            term = trunc = False
            reward = 0.0
        else:
            term, trunc = bool(batch["terminated"][r]), bool(batch["truncated"][r])
            reward = float(batch["reward"][r])
        env.obs = obs_row
        where = f"env {i} ({env.in_flight}, mode {self.mode})"
        if env.uncertain:
            # A result of this env was dropped with an EnvError: learn its state afresh.
            env.uncertain = False
            env.elapsed, env.started = elapsed, True
            env.over = self.mode != "same_step" and (term or trunc)
            env.may_continue = term and not trunc and self.continues
            return
        is_reset = env.in_flight == "reset" or env.over
        if is_reset:
            assert (reward, term, trunc) == (0.0, False, False), (
                f"{where}: a reset row has reward {reward}, terminated {term}, truncated {trunc}"
            )
            continued = env.in_flight == "step" and env.may_continue and elapsed == env.elapsed
            assert elapsed == 0 or continued, (
                f"{where}: a reset row has elapsed_step {elapsed}, expected 0"
                + (f" or {env.elapsed} (continued)" if env.may_continue else "")
            )
            if self.counting:
                assert obs_row[0] == 0, f"{where}: Counting's reset obs {obs_row}"
            env.started, env.over, env.elapsed = True, False, elapsed
            env.may_continue = False
            return
        assert elapsed == env.elapsed + 1, (
            f"{where}: elapsed_step {elapsed} after {env.elapsed} (a result lost or repeated?)"
        )
        limit = (self.max_steps > 0 and elapsed >= self.max_steps) or (
            self.own_limit > 0 and elapsed >= self.own_limit
        )
        assert trunc == limit, (
            f"{where}: truncated={trunc} at elapsed_step {elapsed}, "
            f"max_episode_steps {self.max_steps}, the env's own limit {self.own_limit}"
        )
        if self.counting:
            sent = int(np.trunc(env.action))
            assert reward == sent, f"{where}: reward {reward} but the action sent was {sent}"
        done = term or trunc
        env.elapsed = elapsed
        env.may_continue = term and not trunc and self.continues
        if self.mode == "same_step":
            if done:
                # The row reports the ended step; the env already started its next episode.
                env.elapsed = elapsed if env.may_continue else 0
                env.obs = None  # the row's obs is the next episode's: either clock is valid
                if env.may_continue:
                    env.uncertain = True  # whether it continued shows in the next row
            env.over = False
        else:
            env.over = done
        # Counting's obs counts the steps of its episode, which is the pool's count unless the
        # clock continues across episodes or the row already holds the next episode.
        if self.counting and not self.continues and not (done and self.mode == "same_step"):
            assert obs_row[0] == elapsed, f"{where}: Counting obs {obs_row}, elapsed {elapsed}"

    def fail(self, err: envfleet.EnvError, expected: int) -> None:
        """An env raised: the batch (err.env_ids) is dropped and its envs are idle again."""
        ids = [int(i) for i in np.asarray(err.env_ids).reshape(-1)]
        assert self.faulty, f"an EnvError from an env with no injected fault: {err}"
        assert f"env {err.env_id}" in str(err), f"the EnvError does not name its env: {err}"
        assert err.env_id in ids, f"err.env_id {err.env_id} not in err.env_ids {ids}"
        assert len(ids) == expected, f"err.env_ids {ids}: expected {expected} envs"
        assert len(set(ids)) == len(ids), f"err.env_ids repeats an env: {ids}"
        self._check_order(ids)
        for i in ids:
            env = self.envs[i]
            assert env.in_flight is not None, f"env {i} in err.env_ids was not in flight"
            env.in_flight = None
            env.uncertain, env.obs = True, None
            env.over = self.env._pool.episode_over(i)
            if not env.started and i != err.env_id:
                env.started = None  # its reset may have run, its result dropped
            if i == err.env_id:
                env.may_continue = False  # a failed env starts afresh


# ---------------------------------------------------------------------------------------------
# The state machine
# ---------------------------------------------------------------------------------------------


def _env_ids_arg(draw, ids: list[int]):
    """`ids` in one of the forms the API takes."""
    form = draw(st.sampled_from(["list", "int32", "int64", "uint8", "scalar"]))
    if form == "scalar" and len(ids) == 1:
        return ids[0]
    if form == "uint8" and all(0 <= i < 256 for i in ids):
        return np.array(ids, np.uint8)
    if form in ("int32", "int64"):
        return np.array(ids, form)
    return list(ids)


class PoolMachine(RuleBasedStateMachine):
    """One pool of one task of a family (FAMILY), driven by random calls."""

    FAMILY = "example"

    def __init__(self):
        super().__init__()
        self.env = None
        self.model: PoolModel | None = None
        self.closed = False

    # ---- make ----

    @initialize(data=st.data())
    def make_pool(self, data):
        task = data.draw(st.sampled_from(FAMILIES[self.FAMILY]), label="task")
        n = data.draw(st.integers(1, task.max_envs), label="num_envs")
        b = data.draw(st.integers(1, n), label="batch_size")
        kwargs: dict[str, Any] = {
            "num_envs": n,
            "batch_size": b,
            "num_threads": data.draw(st.integers(1, 3), label="num_threads"),
            # dm_control's tasks seed np.random.RandomState: seeds below 2**32 (documented).
            "seed": data.draw(
                st.integers(0, 2**32 - n if self.FAMILY == "dm_control" else 2**40), label="seed"
            ),
            "autoreset_mode": data.draw(
                st.sampled_from(["next_step", "same_step", "disabled"]), label="autoreset"
            ),
        }
        if data.draw(st.booleans(), label="short time limit"):
            kwargs["max_episode_steps"] = data.draw(st.integers(0, 8), label="max_episode_steps")
        options = {k: data.draw(s, label=k) for k, s in task.options.items()}
        spec = envfleet.make_spec(task.task_id)
        self.env_type = data.draw(st.sampled_from(["gymnasium", "gym", "dm"]), label="env_type")
        if self.env_type == "gymnasium" and b == n and data.draw(st.booleans(), label="gym conv"):
            kwargs["conventions"] = "gymnasium"
        if spec.render.available and data.draw(st.booleans(), label="render_mode"):
            kwargs["render_mode"] = "rgb_array"
            if spec.render.resizable:
                kwargs["render_width"] = data.draw(st.integers(1, 64), label="render_width")
                kwargs["render_height"] = data.draw(st.integers(1, 64), label="render_height")
        self.env = call(envfleet.make, task.task_id, env_type=self.env_type, **kwargs, **options)
        self.spec = self.env.spec
        self.model = PoolModel(self.env, task, options)
        self.obs_keys = self.spec.obs_keys
        self.gymnasium_conventions = kwargs.get("conventions") == "gymnasium"

    def teardown(self):
        if self.env is not None:
            call(self.env.close)
            call(self.env.close)  # a second close does nothing

    # ---- results ----

    def _batch(self, out, kind: str) -> dict[str, Any]:
        """The delivered batch in one form, whatever the front end; checks shapes/dtypes."""
        if self.env_type == "dm":
            obs = out.observation
            env_id = np.asarray(obs.env_id)
            rows = len(env_id)
            fields = [getattr(obs, k.name) for k in self.obs_keys]
            step_type = np.asarray(out.step_type)
            elapsed = None
            reward = np.asarray(out.reward)
            batch = {"step_type": step_type}
            terminated = np.asarray(out.discount) == 0
            truncated = None
        elif kind == "reset":
            # (obs, info): a step result in the batch (async mode) has no reward or flags here.
            obs, info = out
            reward = terminated = truncated = None
            batch = {}
        else:
            obs, reward, terminated, truncated, info = out
            batch = {}
        if self.env_type != "dm":
            env_id, elapsed = info["env_id"], info["elapsed_step"]
            rows = len(env_id)
            if self.spec.obs_layout == "single":
                fields = [obs]
            elif self.spec.obs_layout == "tuple":
                fields = list(obs)
            else:
                fields = [obs[k.name] for k in self.obs_keys]
            assert env_id.dtype == np.int32 and env_id.shape == (rows,)
            assert elapsed.dtype == np.int32 and elapsed.shape == (rows,)
        for key, value in zip(self.obs_keys, fields, strict=True):
            value = np.asarray(value)
            assert value.shape == (rows, *key.shape), (key.name, value.shape, key.shape)
            assert value.dtype == key.dtype, (key.name, value.dtype, key.dtype)
            if value.dtype.kind == "f":
                assert not np.isnan(value).any(), f"NaN in observation {key.name!r}"
        if reward is not None:
            reward = np.asarray(reward)
            assert reward.shape == (rows,), reward.shape
            reward_dtype = np.float64 if self.gymnasium_conventions else np.float32
            assert reward.dtype == reward_dtype, reward.dtype
            assert not np.isnan(reward).any(), "NaN reward"
        batch.update(
            env_id=[int(i) for i in env_id],
            reward=reward,
            terminated=terminated,
            truncated=truncated,
            elapsed_step=elapsed,
            obs_row=lambda r: fields[0][r] if len(fields) == 1 else None,
        )
        return batch

    def _deliver(self, out, kind: str, expected: int) -> None:
        batch = self._batch(out, kind)
        if self.env_type == "dm":
            self._deliver_dm(batch, expected)
        else:
            self.model.deliver(batch["env_id"], expected, batch)

    def _deliver_dm(self, batch, expected: int) -> None:
        """dm TimeSteps carry no elapsed_step: check their step types against the model."""
        import dm_env

        model = self.model
        rows = batch["env_id"]
        assert len(rows) == expected, f"a batch of {len(rows)} rows, expected {expected}"
        assert len(set(rows)) == len(rows)
        model._check_order(rows)
        for r, i in enumerate(rows):
            env = model.envs[i]
            assert env.in_flight is not None, f"env {i} delivered without an action in flight"
            step_type = int(batch["step_type"][r])
            if env.uncertain:
                # A dropped or continued result: the episode's clock is unknown until a reset.
                env.uncertain, env.elapsed = False, None
                env.over = model.mode != "same_step" and step_type == dm_env.StepType.LAST
                env.started = True
            elif env.in_flight == "reset" or env.over:
                assert step_type == dm_env.StepType.FIRST, f"env {i}: reset row is {step_type}"
                assert float(batch["reward"][r]) == 0.0
                env.started, env.over = True, False
                # An autoreset after a termination may continue the clock (dm has no
                # elapsed_step to tell): known again only after a fresh start.
                env.elapsed = None if env.in_flight == "step" and model.continues else 0
            else:
                assert step_type in (dm_env.StepType.MID, dm_env.StepType.LAST), step_type
                done = step_type == dm_env.StepType.LAST
                if env.elapsed is not None:
                    env.elapsed += 1
                    if (model.max_steps > 0 and env.elapsed >= model.max_steps) or (
                        model.own_limit > 0 and env.elapsed >= model.own_limit
                    ):
                        assert done, f"env {i}: no LAST at the time limit ({env.elapsed} steps)"
                if model.counting:
                    assert float(batch["reward"][r]) == int(np.trunc(env.action))
                if model.mode == "same_step":
                    env.over = False
                    if done:
                        env.elapsed = None if model.continues else 0
                else:
                    env.over = done
            env.in_flight = None
            env.obs = None

    def _expect(
        self, fn, *args, valid: bool, rows: int | None, kind: str, deliver: bool = True, **kwargs
    ):
        """Calls fn; a valid call must deliver `rows` rows (None: none), an invalid one raise a
        documented bad-input type; EnvError only where the task has injected faults. With
        `deliver` False the caller checks the result itself (reset_mask's whole batch)."""
        pending_before = self.model.pending
        try:
            out = call(fn, *args, **kwargs)
        except envfleet.EnvError as err:
            assert valid, f"an invalid call raised EnvError instead of bad input: {err}"
            assert rows is not None, f"EnvError from a call that delivers nothing: {err}"
            self.model.fail(err, rows)
            return None
        except BAD_INPUT as err:
            assert not valid, f"a valid call raised {type(err).__name__}: {err}"
            assert self.model.pending == pending_before
            return None
        assert valid, f"an invalid call succeeded: {fn.__name__}{args} {kwargs}"
        if rows is not None and deliver:
            self._deliver(out, kind, rows)
        return out

    # ---- rules ----

    def _draw_ids(self, data, reset: bool) -> tuple[list[int] | None, Any]:
        """(ids as the model sees them, env_id as passed); sometimes invalid."""
        model = self.model
        how = data.draw(
            st.sampled_from(
                ["all"] * 3 + ["idle"] * 6 + ["dup", "out", "busy", "empty", "float", "2d"]
            ),
            label="env_id kind",
        )
        idle = model.idle()
        if how == "all":
            return None, None
        if how == "idle" and idle:
            ids = data.draw(st.lists(st.sampled_from(idle), min_size=1, unique=True), label="ids")
            return ids, _env_ids_arg(data.draw, ids)
        if how == "dup" and idle:
            return [idle[0], idle[0]], [idle[0], idle[0]]
        if how == "out":
            bad = data.draw(st.sampled_from([model.n, -1, 2**31, 2**63 - 1]), label="bad id")
            return [bad], np.array([bad], np.int64)
        if how == "busy" and model.pending:
            busy = [i for i, e in enumerate(model.envs) if e.in_flight is not None]
            return busy[:1], busy[:1]
        if how == "float":
            return [], np.array([0.0])  # not integers: refused
        if how == "2d":
            return [], np.zeros((1, 1), np.int64)
        return [], np.zeros(0, np.int64)

    def _ids_valid(self, ids, env_id, reset: bool) -> bool:
        if env_id is not None and not ids:
            return False
        return not self.model.ids_problem(ids, reset)

    @precondition(lambda self: not self.closed)
    @rule(data=st.data())
    def step(self, data):
        model = self.model
        ids, env_id = self._draw_ids(data, reset=False)
        count = model.n if ids is None else len(ids)
        action, action_ok = data.draw(
            actions(self.spec.action_key, count if ids or env_id is None else 1), label="action"
        )
        valid = action_ok and self._ids_valid(ids, env_id, False)
        valid = valid and not model.fill_problem(count)
        rows = model.expected_rows(count, sealed=True)
        if valid:
            model.queue(
                list(range(model.n)) if ids is None else ids, "step", _first_elements(action)
            )
        self._expect(self.env.step, action, env_id, valid=valid, rows=rows, kind="step")

    @precondition(lambda self: not self.closed)
    @rule(data=st.data())
    def send(self, data):
        model = self.model
        ids, env_id = self._draw_ids(data, reset=False)
        count = model.n if ids is None else len(ids)
        action, action_ok = data.draw(
            actions(self.spec.action_key, count if ids or env_id is None else 1), label="action"
        )
        valid = action_ok and self._ids_valid(ids, env_id, False)
        if valid:
            model.queue(
                list(range(model.n)) if ids is None else ids, "step", _first_elements(action)
            )
        self._expect(self.env.send, action, env_id, valid=valid, rows=None, kind="step")

    @precondition(lambda self: not self.closed)
    @rule()
    def recv(self):
        model = self.model
        valid = model.pending >= model.b
        self._expect(self.env.recv, valid=valid, rows=model.b, kind="step")

    @precondition(lambda self: not self.closed)
    @rule(data=st.data())
    def reset(self, data):
        model = self.model
        ids, env_id = self._draw_ids(data, reset=True)
        count = model.n if ids is None else len(ids)
        valid = self._ids_valid(ids, env_id, True) and not model.fill_problem(count)
        rows = model.expected_rows(count, sealed=True)
        kwargs = {}
        if self.env_type == "gymnasium" and valid and data.draw(st.booleans(), label="seed"):
            kwargs["seed"] = data.draw(st.integers(0, 2**32 - 1 - model.n), label="reset seed")
        if valid:
            model.queue(list(range(model.n)) if ids is None else ids, "reset")
        out = self._expect(self.env.reset, env_id, valid=valid, rows=rows, kind="reset", **kwargs)
        if out is not None and "seed" in kwargs and model.counting:
            # Seed() restarts Counting's episode count: the reset starts its first episode.
            obs, info = out
            seeded = range(model.n) if ids is None else ids
            for row, i in enumerate(info["env_id"].tolist()):
                if i in seeded:
                    assert obs[row, 1] == 1, f"re-seeded Counting env {i} did not start over"

    @precondition(lambda self: not self.closed and self.env_type == "gymnasium")
    @rule(data=st.data())
    def reset_mask(self, data):
        """Gymnasium's reset(options={"reset_mask": m}) on a sync pool: the whole batch back."""
        model = self.model
        mask = np.array(data.draw(st.lists(st.booleans(), min_size=model.n, max_size=model.n)))
        ids = [int(i) for i in np.flatnonzero(mask)]
        valid = (
            model.b == model.n
            and bool(ids)
            and model.pending == 0  # a step in flight would come back inside a reset
            and not model.ids_problem(ids, True)
        )
        if valid:
            model.queue(ids, "reset")
        out = self._expect(
            self.env.reset,
            options={"reset_mask": mask},
            valid=valid,
            rows=len(ids),
            kind="reset",
            deliver=False,
        )
        if out is None:
            return
        obs, info = out
        assert info["env_id"].tolist() == list(range(model.n))
        assert info["_elapsed_step"].tolist() == mask.tolist()
        assert (info["elapsed_step"][mask] == 0).all()
        for i in ids:
            env = model.envs[i]
            env.in_flight = None
            env.started, env.over, env.elapsed, env.uncertain = True, False, 0, False
            env.may_continue, env.obs = False, None
        model.fixed.clear()

    @precondition(lambda self: not self.closed)
    @rule()
    def async_reset(self):
        model = self.model
        valid = model.pending == 0
        if valid:
            model.queue(list(range(model.n)), "reset")
        self._expect(self.env.async_reset, valid=valid, rows=None, kind="reset")

    @precondition(lambda self: not self.closed and self.env.config.render_mode is not None)
    @rule(data=st.data())
    def render(self, data):
        model = self.model
        ids, env_id = self._draw_ids(data, reset=True)
        if ids is None:
            # Gymnasium's VectorEnv.render() draws every env; EnvPool's, render_env_id.
            ids = (
                list(range(model.n))
                if self.gymnasium_conventions
                else [self.env.config.render_env_id]
            )
        envs = [model.envs[i] for i in ids if 0 <= i < model.n]
        valid = (
            bool(ids)
            and len(envs) == len(ids)
            and len(set(ids)) == len(ids)
            and all(e.in_flight is None for e in envs)
        )
        unknown = any(e.started is None for e in envs)  # a dropped batch may have reset it
        valid = valid and (unknown or all(e.started for e in envs))
        try:
            frames = call(self.env.render, env_id)
        except envfleet.EnvError as err:
            assert valid and model.options.get("fail_render"), f"render raised {err}"
            return
        except BAD_INPUT as err:
            assert unknown or not valid, f"a valid render raised {type(err).__name__}: {err}"
            return
        assert unknown or valid, f"render of envs {ids} succeeded"
        if isinstance(frames, tuple):
            frames = np.stack(frames)
        config = self.env.config
        assert frames.shape == (len(ids), config.render_height, config.render_width, 3)
        assert frames.dtype == np.uint8
        if model.counting:
            for frame, i in zip(frames, ids, strict=True):
                obs = model.envs[i].obs
                if obs is not None and not model.envs[i].uncertain:
                    pixel = frame[0, 0].tolist()
                    assert pixel[:2] == [obs[0] % 256, obs[1] % 256], (i, pixel, obs)

    @precondition(lambda self: not self.closed)
    @rule()
    def close(self):
        """close(), with or without envs in flight."""
        call(self.env.close)
        self.closed = True

    @precondition(lambda self: self.closed)
    @rule(data=st.data())
    def call_after_close(self, data):
        """Every call on a closed pool raises RuntimeError; close() again does nothing."""
        after = data.draw(
            st.sampled_from(["step", "send", "recv", "reset", "async_reset", "close"])
        )
        n = self.model.n
        action = np.zeros((n, *self.spec.action_key.shape), self.spec.action_key.dtype)
        args = {"step": (action,), "send": (action,)}.get(after, ())
        if after == "close":
            call(self.env.close)
            return
        with pytest.raises(RuntimeError, match="closed"):
            call(getattr(self.env, after), *args)

    @invariant()
    def pending_matches_the_model(self):
        if self.model is not None and not self.closed:
            assert self.env._pool.pending == self.model.pending, (
                f"the pool has {self.env._pool.pending} envs in flight, the model "
                f"{self.model.pending}"
            )


def _first_elements(action) -> list:
    """Each env's action's first element (Counting's whole action), as sent."""
    array = np.asarray(action)
    return list(array.reshape(len(array), -1)[:, 0])


def _machine(family: str):
    cheap = family in _CHEAP
    machine = type(f"{family}Machine", (PoolMachine,), {"FAMILY": family})
    machine.TestCase.settings = settings(
        _PROFILE_SETTINGS,
        max_examples=EXAMPLES[PROFILE][family if cheap else "other"],
        stateful_step_count=STEPS[PROFILE] if cheap else max(10, STEPS[PROFILE] // 2),
    )
    return machine.TestCase


TestExample = _machine("example")
TestClassicControl = _machine("classic_control")
TestToyText = _machine("toy_text")
TestAtari = _machine("atari")
TestMujoco = _machine("mujoco")
TestBox2d = _machine("box2d")
TestDmControl = _machine("dm_control")
TestMiniGrid = _machine("minigrid")
TestMiniGridWFC = _machine("minigrid_wfc")
TestRobotics = _machine("robotics")
TestMetaWorld = _machine("metaworld")
TestMyoSuite = _machine("myosuite")
TestVizdoom = _machine("vizdoom")
TestProcgen = _machine("procgen")


# ---------------------------------------------------------------------------------------------
# make() with random arguments: pool options and env options of every kind, valid or not
# ---------------------------------------------------------------------------------------------

_ANY_INT = st.one_of(
    st.integers(-3, 8),
    st.sampled_from([0, -1, 2**31 - 1, 2**31, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30]),
)
_ANY_VALUE = st.one_of(
    _ANY_INT,
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "%s%n%x", "../../etc/passwd", "/dev/zero", "\x00", "é", "a" * 4096]),
    st.lists(st.integers(-2, 2), max_size=3),
    st.lists(st.floats(allow_nan=True), max_size=3),
    st.lists(st.sampled_from(["SFFG", "SH", "", "\xff"]), max_size=3),
)
_POOL_ARGUMENTS = {
    "num_envs": _ANY_INT,
    "batch_size": st.one_of(st.none(), _ANY_INT),
    "num_threads": st.one_of(st.none(), _ANY_INT),
    "seed": st.one_of(_ANY_INT, st.lists(_ANY_INT, max_size=4)),
    "max_episode_steps": st.one_of(st.none(), _ANY_INT),
    "thread_affinity_offset": st.sampled_from([-2, -1, 0, 1, 2**31]),
    "autoreset_mode": st.sampled_from(["next_step", "same_step", "disabled", "never", "", 1]),
    "conventions": st.sampled_from(["envpool", "gymnasium", "dm_env", "bogus"]),
    "render_mode": st.sampled_from([None, "rgb_array", "human", "bogus"]),
    "render_width": st.one_of(st.none(), _ANY_INT),
    "render_camera_id": _ANY_INT,
    "render_env_id": _ANY_INT,
    "per_env_options": st.sampled_from([None, [], [{}], [{"num_envs": 2}], "x", [1]]),
}
# Options whose values are loop counts (noop_max: no-op frames on every reset, frame_skip:
# frames a step): accepted at any size, as in the references, so a pool with a huge one is made
# and closed but not stepped.
_LOOP_COUNTS = ("noop_max", "frame_skip", "episode_length")
_MAKE_TASKS = [
    "Counting-v0",
    "CartPole-v1",
    "Pendulum-v1",
    "FrozenLake-v1",
    "Blackjack-v1",
    "Pong-v5",
    "Ant-v5",
    "LunarLander-v3",
    "CartpoleSwingup-v1",
    "MiniGrid-DoorKey-5x5-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    # (BabyAI's LevelGen, BossLevel's class, takes options that make levels minigrid would
    # generate forever, which envfleet gives up on with an EnvError: fuzzed with its own.)
    "BabyAI-OpenDoorsOrderN2-v0",
    "BabyAI-PutNextS5N2Carrying-v0",
]


@settings(
    _PROFILE_SETTINGS,
    max_examples={"short": 60, "long": 3000}[PROFILE],
)
@given(data=st.data())
def test_make_with_random_arguments(data):
    """make() either builds a pool that steps, or raises TypeError, ValueError or (sizes past
    the machine's memory) MemoryError; never a crash, a hang or another exception."""
    task = data.draw(st.sampled_from(_MAKE_TASKS), label="task")
    defaults = envfleet.make_spec(task).module.env_types()[envfleet.make_spec(task).env_type]
    kwargs = {}
    for name in data.draw(st.lists(st.sampled_from(sorted(_POOL_ARGUMENTS)), max_size=4)):
        kwargs[name] = data.draw(_POOL_ARGUMENTS[name], label=name)
    names = sorted(set(defaults) - {"assets_dir", "rom_dir", "xml_file"})
    for name in data.draw(st.lists(st.sampled_from(names), max_size=3), label="options"):
        kwargs[name] = data.draw(_ANY_VALUE, label=name)
    if kwargs.get("render_mode") == "human":
        kwargs["render_mode"] = "rgb_array"  # no display here: the window is not the point
    try:
        env = call(envfleet.make, task, **kwargs)
    except (TypeError, ValueError, MemoryError):
        return
    try:
        small = all(
            abs(v) <= 1000 for k, v in kwargs.items() if k in _LOOP_COUNTS and isinstance(v, int)
        )
        if small and env.config.num_envs <= 64:
            call(env.reset)
            space = env.single_action_space  # the batch's is action_space under Gymnasium's
            action = np.stack([space.sample() for _ in range(env.config.batch_size)])
            try:
                call(env.step, action, env.all_env_ids[: env.config.batch_size])
            except ValueError as err:  # async pools: stepping envs still in flight
                assert "flight" in str(err) or "wait forever" in str(err), err
    finally:
        call(env.close)


# ---------------------------------------------------------------------------------------------
# make() of Procgen ids with random options: procgen's engine calls exit() on an option it
# rejects, so every value must be checked before it gets there
# ---------------------------------------------------------------------------------------------

PROCGEN_IDS = [_task.task_id for _task in FAMILIES["procgen"]]
_PROCGEN_INTS = st.one_of(
    st.integers(-2, 12),
    st.sampled_from([20, 21, INT32_MAX - 1, INT32_MAX, INT32_MAX + 1, 2**32, 2**63 - 1]),
    st.sampled_from([-(2**31), -(2**63), 2**63, 10**30]),
)
_PROCGEN_NAMES = st.one_of(
    st.sampled_from(sorted(PROCGEN_GAMES)),
    st.sampled_from(
        ["", "Coinrun", "coinrun ", "coinrun\x00", "coinrun\x00maze", "../coinrun", "%s%n", "é"]
    ),
)
# Values of the right kinds: procgen itself must judge them (game, mode, level range).
_PROCGEN_TYPED = {
    "env_name": st.one_of(_PROCGEN_NAMES, st.none()),
    "distribution_mode": st.one_of(st.sampled_from(sorted(PROCGEN_MODES.values())), _PROCGEN_INTS),
    "num_levels": _PROCGEN_INTS,
    "start_level": _PROCGEN_INTS,
    **dict.fromkeys(PROCGEN_FLAGS, st.booleans()),
}
# ... and values of any kind, which envfleet's option checks refuse before the env sees them.
_PROCGEN_ANY = {name: st.one_of(values, _ANY_VALUE) for name, values in _PROCGEN_TYPED.items()}
_PROCGEN_RANGE = ["env_name", "distribution_mode", "num_levels", "start_level"]


@functools.cache
def _procgen_defaults() -> dict[str, tuple[str, Any]]:
    """The Procgen env type's options: name -> (kind, default)."""
    return envfleet.make_spec(PROCGEN_IDS[0]).module.env_types()["Procgen"]


def _procgen_type_problems(options: dict[str, Any]) -> list[str]:
    """The options whose values are of the wrong kind (TypeError) or past int64 (ValueError),
    as envfleet's option checks (registry._coerce) refuse them before the env sees them."""
    problems = []
    for name, value in options.items():
        if name == "env_name":
            ok = value is None or isinstance(value, str)
        elif name in ("distribution_mode", "num_levels", "start_level"):
            ok = (
                isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
            )
        else:
            ok = isinstance(value, bool)
        if not ok:
            problems.append(name)
    return problems


def _procgen_value_problems(options: dict[str, Any]) -> list[str]:
    """What procgen would refuse in well-typed options (the id's merged with the given): the
    words an error for each must hold (procgen_env.h's EngineOptions)."""
    game = options["env_name"] or ""  # None is the empty string in the core
    mode, num, start = options["distribution_mode"], options["num_levels"], options["start_level"]
    problems = []
    if game not in PROCGEN_GAMES:
        return ["env_name must be one of procgen's games"]  # checked first, alone
    if not 0 <= num <= INT32_MAX:
        problems.append("num_levels must be in")
    if not 0 <= start <= INT32_MAX:
        problems.append("start_level must be in")
    elif num > 0 and start + num > INT32_MAX:
        problems.append("start_level + num_levels")
    if mode not in {PROCGEN_MODES[m] for m in PROCGEN_GAMES[game]}:
        problems.append(f"distribution_mode for {game} must be one of")
    elif mode == PROCGEN_MODES["Exploration"] and (num != 0 or start != 0):
        problems.append("exploration mode (distribution_mode 20) plays one fixed level")
    return problems


@settings(_PROFILE_SETTINGS, max_examples={"short": 60, "long": 3000}[PROFILE])
@given(data=st.data())
def test_make_procgen_with_random_options(data):
    """make() of a Procgen id with random values of its options (any game name, mode, level
    range, flag; of any type): it raises TypeError or ValueError naming what is wrong exactly
    where procgen would refuse the options, and otherwise builds a pool of the id's spec
    (its observation's layout, the game's time limit) that plays levels of the given range,
    steps and renders. Never a process exit: that would end the test run."""
    task = data.draw(st.sampled_from(PROCGEN_IDS), label="task")
    # Mostly the options that pick the game, mode and levels, with values of the right kinds;
    # at times values of any kind.
    values = data.draw(st.sampled_from([_PROCGEN_TYPED] * 2 + [_PROCGEN_ANY]), label="kinds")
    names = data.draw(st.lists(st.sampled_from(_PROCGEN_RANGE), max_size=4, unique=True))
    names += data.draw(st.lists(st.sampled_from(PROCGEN_FLAGS), max_size=3, unique=True))
    options = {name: data.draw(values[name], label=name) for name in names}
    n = data.draw(st.integers(1, 3), label="num_envs")
    render = data.draw(st.booleans(), label="render")
    kwargs = dict(num_envs=n, seed=data.draw(st.integers(0, 2**40), label="seed"), **options)
    if render:
        kwargs["render_mode"] = "rgb_array"
    expected = _procgen_type_problems(options)
    merged = {
        **{name: default for name, (_, default) in _procgen_defaults().items()},
        **envfleet.registry.registration(task).options,
        **options,
    }
    if not expected:
        expected = _procgen_value_problems(merged)
    try:
        env = call(envfleet.make, task, **kwargs)
    except (TypeError, ValueError) as err:
        event(f"refused: {type(err).__name__}")
        assert expected, f"{task} with {options}: valid options raised {err!r}"
        assert any(word in str(err) for word in expected), (
            f"{task} with {options}: {err!r} names none of {expected}"
        )
        return
    assert not expected, f"{task} with {options}: made a pool, but procgen refuses {expected}"
    event("made a pool")
    try:
        spec = env.spec
        shape = (3, 64, 64) if merged["channel_first"] else (64, 64, 3)
        assert spec.observation_space.shape == shape
        game, mode = merged["env_name"], merged["distribution_mode"]
        # The game's limit, but none for sequential levels (each level has its own clock).
        limit = None if merged["use_sequential_levels"] else procgen_time_limit(game, mode)
        assert spec.max_episode_steps == limit
        obs, info = call(env.reset)
        assert obs.shape == (n, *shape) and obs.dtype == np.uint8
        for _ in range(3):
            actions = np.array([env.single_action_space.sample() for _ in range(n)])
            obs, reward, terminated, truncated, info = call(env.step, actions)
            assert obs.shape == (n, *shape) and reward.shape == (n,)
        # With use_sequential_levels a completed level goes on to one past the range.
        if (
            merged["num_levels"] > 0
            and mode != PROCGEN_MODES["Exploration"]
            and not merged["use_sequential_levels"]
        ):
            start, end = merged["start_level"], merged["start_level"] + merged["num_levels"]
            assert ((info["level_seed"] >= start) & (info["level_seed"] < end)).all(), info
        if render:
            frames = call(env.render, env_ids=list(range(n)))
            assert frames.shape == (n, 512, 512, 3) and frames.dtype == np.uint8
    finally:
        call(env.close)


@pytest.fixture(scope="module", autouse=True)
def _report_calls():
    yield
    print(f"\nenvfleet API fuzz ({PROFILE} profile): {CALLS['count']} calls")
