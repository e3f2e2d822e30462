"""Procgen envs (procgen 0.10.7's engine driven by envfleet._procgen) against procgen's own
``ProcgenGym3Env`` (envfleet.bench.procgen_reference, run under the Python of procgen's
reference venv: procgen needs numpy<2).

A pool of envfleet envs seeded s plays what ``ProcgenGym3Env(num=1, rand_seed=s + i)`` plays
for env i, given the same actions: every 64x64 observation (channel order included), every
reward (float32, exactly), the done flags (envfleet's terminated | truncated against gym3's
``first`` of the next observation; truncated exactly where the game's own time limit ended the
episode), the info keys level_seed, prev_level_seed and prev_level_complete, and the 512x512
render frames at a sample of steps (step 0, every ``render_every``-th step and each episode's
first frame; rendering is slow) must be equal, over whole episodes and the level switches
between them. The autoreset step envfleet takes after an episode's end (procgen has none: its
step that ends an episode already shows the next level) is checked to return the same frame
with reward 0 and to play nothing.

The reference runs every selected case in one process (an interpreter and procgen's import
cost about a second each) and stops each env a few steps after its ``episodes``-th episode end;
envfleet then replays the actions procgen played. Images are compared through BLAKE2b digests
of their bytes (every pixel counts; the arrays would weigh gigabytes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import describe, engine_built, run_isolated

import envfleet
from envfleet.families.procgen import GAMES, MODES

pytestmark = pytest.mark.skipif(
    not engine_built("CoinrunHard-v0"), reason="envfleet._procgen is not built here"
)

ALL_IDS = [f"{game.capitalize()}{mode}-v0" for game, modes in GAMES.items() for mode in modes]

# Each game's own time limit (procgen/src/game.cpp's Game::timeout, set by bigfish.cpp,
# bossfight.cpp, plunder.cpp, leaper.cpp, maze.cpp and jumper.cpp's memory mode).
TIMEOUTS = {"bigfish": 6000, "bossfight": 4000, "plunder": 4000, "leaper": 500, "maze": 500}


def game_timeout(game: str, mode: str) -> int:
    return 2000 if (game, mode) == ("jumper", "Memory") else TIMEOUTS.get(game, 1000)


# procgen/env.py's EXPLORATION_LEVEL_SEEDS: exploration mode plays this one level.
EXPLORATION_LEVELS = {
    "coinrun": 1949448038,
    "caveflyer": 1259048185,
    "leaper": 1318677581,
    "jumper": 1434825276,
    "maze": 158988835,
    "heist": 876640971,
    "climber": 1561126160,
    "ninja": 1123500215,
}

# ProcgenGym3Env's keyword arguments (use_easy_jump goes in its option dict, see the driver).
REFERENCE_OPTIONS = (
    "num_levels",
    "start_level",
    "use_sequential_levels",
    "center_agent",
    "use_backgrounds",
    "use_monochrome_assets",
    "restrict_themes",
    "use_generated_assets",
    "paint_vel_info",
    "use_easy_jump",
)
NOOP = 4  # procgen's action 4: no key pressed
INFO_KEYS = ("level_seed", "prev_level_seed", "prev_level_complete")


def split_id(task_id: str) -> tuple[str, str]:
    name = task_id.removesuffix("-v0")
    for mode in MODES:
        if name.endswith(mode):
            return name[: -len(mode)].lower(), mode
    raise AssertionError(task_id)


@dataclasses.dataclass(frozen=True)
class Case:
    """One pool of envfleet envs and the ProcgenGym3Env runs it is compared with."""

    name: str
    task_id: str
    seed: int | tuple[int, ...] = 7  # envfleet's: s (env i seeded s + i) or one per env
    num_envs: int = 2
    options: tuple = ()  # envfleet's env options, (name, value) pairs
    pool: tuple = ()  # num_threads, batch_size, ...: (name, value) pairs
    episodes: int = 2  # each env runs until this many episodes have ended, then extra_steps
    extra_steps: int = 20
    render_every: int = 0  # 0: no frames compared
    policy: str = "random"  # or "noop": never press a key
    resets: tuple = ()  # (env, k): an explicit reset of env as its k-th action (0-based)
    reset_at_end: tuple = ()  # envs that call reset() at each episode end (no autoreset step)
    # and reset twice at each explicit reset (the second one must change nothing)
    max_episode_steps: int = 0  # the pool's time limit, where shorter than the game's
    rand_seeds: tuple | None = None  # procgen's rand_seed per env, where not seed + i

    def __str__(self) -> str:
        return self.name

    @property
    def game(self) -> str:
        return dict(self.options).get("env_name", split_id(self.task_id)[0])

    @property
    def timeout(self) -> int:
        return game_timeout(self.game, split_id(self.task_id)[1])

    def rand_seed(self, i: int) -> int:
        if self.rand_seeds is not None:
            return self.rand_seeds[i]
        return self.seed[i] if isinstance(self.seed, tuple) else self.seed + i

    def reference_args(self, i: int) -> dict:
        options = dict(self.options)
        steps = self.episodes * self.timeout + self.extra_steps + 10
        if self.policy == "noop":
            actions = [NOOP] * steps
        else:
            # The same actions for the same game and rand_seed, whatever the options.
            rng = np.random.default_rng(
                [zlib.crc32(self.task_id.encode()), self.rand_seed(i) % 2**32]
            )
            actions = rng.integers(0, 15, steps).tolist()
        for env, k in sorted(self.resets, key=lambda r: r[1]):
            if env == i:
                actions.insert(k, -1)
        return {
            "env_name": self.game,
            "rand_seed": self.rand_seed(i),
            "distribution_mode": split_id(self.task_id)[1].lower(),
            "options": {k: v for k, v in options.items() if k in REFERENCE_OPTIONS},
            "actions": actions,
            "stop_after_episodes": self.episodes,
            "extra_steps": self.extra_steps,
            "render_every": self.render_every,
            "max_episode_steps": self.max_episode_steps,
        }


def main_case(task_id: str) -> Case:
    index = ALL_IDS.index(task_id)
    return Case(task_id, task_id, seed=1000 + 10 * index, render_every=150)


MAIN = [main_case(t) for t in ALL_IDS]


def option_case(task_id: str, *, episodes: int = 2, **options) -> Case:
    """``task_id`` with ``options``, from the seed of its main case (whose frames the options
    must change)."""
    label = ",".join(f"{k}={v}" for k, v in options.items())
    return dataclasses.replace(
        main_case(task_id),
        name=f"{task_id}[{label}]",
        options=tuple(options.items()),
        episodes=episodes,
        render_every=100,
    )


# Options that change what is drawn, each on a game where it shows in the frames.
DRAWING_OPTIONS = [
    option_case("CoinrunHard-v0", center_agent=False),
    option_case("BigfishEasy-v0", use_backgrounds=False, channel_first=False),
    option_case("StarpilotHard-v0", use_monochrome_assets=True),
    option_case("NinjaEasy-v0", restrict_themes=True, channel_first=False),
    option_case("ClimberHard-v0", paint_vel_info=True),
    option_case("ChaserEasy-v0", use_generated_assets=True),
]
EASY_JUMP = option_case("JumperHard-v0", use_easy_jump=True)
LEVELS = option_case("StarpilotEasy-v0", episodes=5, num_levels=3, start_level=100)
# A seed whose random play completes levels and plays on past 500 steps in one episode.
SEQUENTIAL = Case(
    "MazeEasy-v0[use_sequential_levels=True]",
    "MazeEasy-v0",
    seed=1310,
    options=(("use_sequential_levels", True),),
    render_every=100,
)
CHANNEL_LAST = option_case("DodgeballHard-v0", channel_first=False)
OTHER_GAME = option_case("BigfishHard-v0", env_name="fruitbot")
NOOP_MAZE = [
    Case("MazeEasy-v0[noop]", "MazeEasy-v0", seed=3, policy="noop", extra_steps=5),
    # A pool time limit past the game's does not lengthen its episodes.
    Case(
        "MazeEasy-v0[noop,max_episode_steps=2000]",
        "MazeEasy-v0",
        seed=3,
        policy="noop",
        extra_steps=5,
        max_episode_steps=2000,
    ),
]
RESETS = Case(
    "CoinrunHard-v0[resets]",
    "CoinrunHard-v0",
    seed=21,
    episodes=3,
    resets=((0, 30), (1, 45), (0, 200)),
    reset_at_end=(1,),
    render_every=40,
)
TIME_LIMIT = Case(
    "CaveflyerHard-v0[max_episode_steps=60]",
    "CaveflyerHard-v0",
    seed=5,
    episodes=4,
    max_episode_steps=60,
)
SEED_LIST = Case("FruitbotEasy-v0[seed=(11,5)]", "FruitbotEasy-v0", seed=(11, 5))
BIG_SEEDS = [
    Case("ChaserHard-v0[seed=2**32+7]", "ChaserHard-v0", seed=2**32 + 7, rand_seeds=(7, 8)),
    Case(
        "ChaserHard-v0[seed=2**31+3]",
        "ChaserHard-v0",
        seed=2**31 + 3,
        rand_seeds=(3 - 2**31, 4 - 2**31),
    ),
]
RESEEDED = Case("HeistEasy-v0[reset(seed=77)]", "HeistEasy-v0", seed=77, episodes=1)
LAYOUTS = [
    Case(
        f"BossfightHard-v0[{label}]",
        "BossfightHard-v0",
        seed=40,
        num_envs=4,
        pool=tuple(pool.items()),
    )
    for label, pool in (
        ("num_threads=1", dict(num_threads=1)),
        ("num_threads=2", dict(num_threads=2)),
        ("num_threads=2,batch_size=2", dict(num_threads=2, batch_size=2)),
        ("num_threads=1,batch_size=3", dict(num_threads=1, batch_size=3)),
    )
]


# -- the reference ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(request, tmp_path_factory):
    """``reference(case)``: procgen's arrays for each env of ``case``. The first call runs
    every case of this module's selected tests, in one process."""
    from envfleet.bench import references

    cases = []
    for item in request.session.items:
        case = getattr(item, "callspec", None) and item.callspec.params.get("case")
        if isinstance(case, Case) and item.module is request.module and case not in cases:
            cases.append(case)
    results: dict = {}

    def get(case: Case) -> list[dict]:
        if case.name not in results:
            todo = [c for c in cases if c.name not in results]
            todo += [] if case in todo else [case]
            folder = tmp_path_factory.mktemp("procgen")
            results.update(run_reference(references, todo, folder))
        return results[case.name]

    return get


def run_reference(references, cases: list[Case], folder: Path) -> dict:
    # The reference is needed: a venv that cannot be made (no PyPI) fails, it does not skip.
    python = references.procgen_python()
    script = Path(references.__file__).with_name("procgen_reference.py")
    runs = [(case, i) for case in cases for i in range(case.num_envs)]
    (folder / "cases.json").write_text(json.dumps([c.reference_args(i) for c, i in runs]))
    proc = subprocess.run(
        [str(python), str(script), "rollouts", str(folder / "cases.json"), str(folder / "ref.npz")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, "the reference failed: " + describe(
        proc.returncode, proc.stdout, proc.stderr
    )
    out: dict = {}
    with np.load(folder / "ref.npz") as data:
        for j, (case, _) in enumerate(runs):
            arrays = {k.split("/", 1)[1]: data[k] for k in data.files if k.startswith(f"{j}/")}
            out.setdefault(case.name, []).append(arrays)
    return out


# -- envfleet, step by step against the reference ------------------------------------------


def digest(image: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(image).tobytes(), digest_size=16).digest()


class Track:
    """One env of the pool against its reference run: ``k`` counts the reference's actions
    played so far (the reference's observation k is the one to match)."""

    def __init__(self, case: Case, i: int, ref: dict, channel_first: bool):
        self.case, self.i, self.ref = case, i, ref
        self.channel_first = channel_first
        self.actions = ref["actions"]
        self.k = 0
        self.started = False
        self.pending = False  # the last step ended an episode: the next is the autoreset
        self.resets_at_end = i in case.reset_at_end
        self.reset_again = False  # a second reset is due (reset_at_end)
        self.clock = 0  # steps since the episode (or, sequential, the level) started
        self.ended = self.terminated = self.truncated = self.autoresets = 0
        self.forced_resets = self.idle_resets = 0  # explicit resets: procgen's -1, no-ops
        self.frames = 0
        self.last = None  # (obs digest, infos) of the last observation
        self.limit = case.max_episode_steps
        self.timeout = case.timeout
        self.sequential = dict(case.options).get("use_sequential_levels", False)
        render_steps = ref.get("render_steps", np.zeros(0, np.int64))
        self.frame_digests = dict(
            zip(render_steps.tolist(), ref.get("frame_digest", []), strict=True)
        )

    @property
    def finished(self) -> bool:
        return self.started and self.k >= len(self.actions) and not self.pending

    def where(self) -> str:
        return f"{self.case} env {self.i} (rand_seed {self.case.rand_seed(self.i)}) step {self.k}"

    def wants_reset(self) -> bool:
        """An explicit reset is due: the reference's forced reset (-1), or one that must
        change nothing (at an episode's end, or right after another reset)."""
        forced = not self.pending and self.k < len(self.actions) and self.actions[self.k] == -1
        return self.started and (
            forced or self.reset_again or (self.pending and self.resets_at_end)
        )

    def next_action(self) -> int:
        """The action to send: the reference's next (any action, for an autoreset step or
        once the run is over: it must not be played)."""
        if self.k < len(self.actions) and self.actions[self.k] >= 0:
            return int(self.actions[self.k])
        return NOOP

    def observed(self, obs, info, j: int) -> tuple[bytes, tuple]:
        """Row j's observation (as procgen's (64, 64, 3) digest) and info keys."""
        image = obs[j].transpose(1, 2, 0) if self.channel_first else obs[j]
        return digest(image), tuple(int(info[key][j]) for key in INFO_KEYS)

    def check_observation(self, obs, info, j: int) -> None:
        ref, k = self.ref, self.k
        seen, infos = self.last = self.observed(obs, info, j)
        assert seen == ref["obs_digest"][k].tobytes(), f"{self.where()}: observation differs"
        want = tuple(int(ref[key][k]) for key in INFO_KEYS)
        assert infos == want, f"{self.where()}: {INFO_KEYS} {infos} != procgen's {want}"

    def check_unchanged(self, obs, info, j: int, what: str) -> None:
        """Nothing was played: the last observation and info again."""
        assert self.observed(obs, info, j) == self.last, f"{self.where()}: {what} changed them"

    def on_reset(self, obs, info, j: int) -> None:
        """The pool's first reset, or an explicit one."""
        if self.started and (self.pending or self.reset_again):
            # At an episode's start (procgen drew the next level already): nothing changes.
            self.autoresets += self.pending
            self.idle_resets += 1
            self.pending = self.reset_again = False
            self.check_unchanged(obs, info, j, "a reset at an episode's start")
            return
        if self.started:  # procgen's forced reset, the reference's action -1
            assert self.actions[self.k] == -1, self.where()
            self.k += 1
            assert self.ref["first"][self.k], f"{self.where()}: procgen did not reset"
            self.reset_again = self.resets_at_end
            self.forced_resets += 1
        self.started = True
        self.clock = 0
        self.check_observation(obs, info, j)

    def on_step(self, obs, reward, terminated, truncated, info, j: int) -> None:
        if self.finished:
            return
        if self.pending:
            self.pending = False
            self.autoresets += 1
            got = (float(reward[j]), bool(terminated[j]), bool(truncated[j]))
            assert got == (0, False, False), f"{self.where()}: autoreset step {got}"
            if self.k < len(self.actions) and self.actions[self.k] == -1:
                # The pool's time limit ended the episode: the autoreset is procgen's forced
                # reset (the reference played -1 there).
                self.on_reset(obs, info, j)
                return
            # procgen already started the next level: the same frame and info, nothing played.
            self.check_unchanged(obs, info, j, "the autoreset step")
            return
        assert self.actions[self.k] >= 0, self.where()
        self.k += 1
        self.check_observation(obs, info, j)
        ref, k = self.ref, self.k
        assert np.float32(reward[j]) == ref["reward"][k], (
            f"{self.where()}: reward {reward[j]} != procgen's {ref['reward'][k]}"
        )
        self.clock += 1
        assert self.clock <= self.timeout, f"{self.where()}: longer than the game's time limit"
        game_ended = bool(ref["first"][k])
        limit_ended = bool(self.limit) and self.clock >= self.limit
        want_truncated = (game_ended and self.clock >= self.timeout) or limit_ended
        want_terminated = game_ended and not want_truncated
        got = (bool(terminated[j]), bool(truncated[j]))
        assert got == (want_terminated, want_truncated), (
            f"{self.where()}: (terminated, truncated) {got} != {(want_terminated, want_truncated)}"
            f" (procgen's first: {game_ended}, steps in the episode: {self.clock})"
        )
        if got != (False, False):
            self.pending = True
            self.ended += 1
            self.terminated += want_terminated
            self.truncated += want_truncated
            self.clock = 0
        elif self.sequential and ref["prev_level_complete"][k]:
            self.clock = 0  # procgen's clock restarts with each level

    def check_frame(self, frame: np.ndarray) -> None:
        assert frame.shape == (512, 512, 3)
        want = self.frame_digests[self.k].tobytes()
        assert digest(frame) == want, f"{self.where()}: render frame differs"
        self.frames += 1


def make_pool(case: Case, **kwargs):
    return envfleet.make(
        case.task_id,
        num_envs=case.num_envs,
        seed=list(case.seed) if isinstance(case.seed, tuple) else case.seed,
        render_mode="rgb_array" if case.render_every else None,
        **({"max_episode_steps": case.max_episode_steps} if case.max_episode_steps else {}),
        **dict(case.options),
        **dict(case.pool),
        **kwargs,
    )


def run_case(case: Case, refs: list[dict], env=None, first_reset=None) -> list[Track]:
    """Plays ``case`` in envfleet against the reference's runs ``refs``; returns the tracks.
    ``env``, ``first_reset``: a pool made already, and the call that starts it."""
    env = env if env is not None else make_pool(case)
    channel_first = dict(case.options).get("channel_first", True)
    tracks = [Track(case, i, refs[i], channel_first) for i in range(case.num_envs)]
    batch = dict(case.pool).get("batch_size", case.num_envs)
    try:
        if batch == case.num_envs:
            run_sync(env, tracks, first_reset)
        else:
            run_async(env, tracks)
    finally:
        env.close()
    for t in tracks:
        assert t.k == len(t.actions), f"{t.where()}: the run stopped early"
    return tracks


def check_frames(env, tracks: list[Track], stepped) -> None:
    for t in tracks:
        if t.i in stepped and t.k in t.frame_digests:
            t.check_frame(env.render(env_ids=[t.i])[0])


def run_sync(env, tracks: list[Track], first_reset) -> None:
    obs, info = first_reset(env) if first_reset else env.reset()
    for t in tracks:
        t.on_reset(obs, info, t.i)
    check_frames(env, tracks, range(len(tracks)))
    while not all(t.finished for t in tracks):
        ids = [t.i for t in tracks if t.wants_reset()]
        if ids:
            obs, info = env.reset(np.asarray(ids))
            for j, i in enumerate(ids):
                tracks[i].on_reset(obs, info, j)
            check_frames(env, tracks, ids)
            continue
        before = [t.k for t in tracks]
        actions = np.asarray([t.next_action() for t in tracks])
        obs, reward, terminated, truncated, info = env.step(actions)
        for t in tracks:
            t.on_step(obs, reward, terminated, truncated, info, t.i)
        check_frames(env, tracks, [t.i for t in tracks if t.k != before[t.i]])


def run_async(env, tracks: list[Track]) -> None:
    assert not any(t.case.resets or t.case.render_every for t in tracks)
    env.async_reset()
    while not all(t.finished for t in tracks):
        obs, reward, terminated, truncated, info = env.recv()
        ids = [int(i) for i in info["env_id"]]
        for j, i in enumerate(ids):
            if tracks[i].started:
                tracks[i].on_step(obs, reward, terminated, truncated, info, j)
            else:
                tracks[i].on_reset(obs, info, j)
        env.send(np.asarray([tracks[i].next_action() for i in ids]), np.asarray(ids))


# -- the tests -----------------------------------------------------------------------------


def by_name(cases):
    return pytest.mark.parametrize("case", cases, ids=str)


@by_name(MAIN)
def test_episodes_match_procgen(case, reference):
    """Random actions, two envs, until each has ended two episodes: frames, rewards, done
    flags and infos at every step, render frames at a sample, across the level switches."""
    tracks = run_case(case, reference(case))
    game, mode = split_id(case.task_id)
    for t in tracks:
        assert t.ended >= case.episodes and t.autoresets >= case.episodes, t.where()
        assert t.frames >= 2, t.where()
        levels = set(t.ref["level_seed"].tolist())
        if mode == "Exploration":
            assert levels == {EXPLORATION_LEVELS[game]}, t.where()
        else:
            assert len(levels) > case.episodes, f"{t.where()}: no new level at an episode end"


@by_name(NOOP_MAZE)
def test_standing_still_is_truncated_at_the_time_limit(case, reference):
    """Maze's 500 steps run out for an agent that never moves: truncated, not terminated."""
    tracks = run_case(case, reference(case))
    for t in tracks:
        assert (t.truncated, t.terminated) == (case.episodes, 0), t.where()
        starts = np.flatnonzero(t.ref["first"][1:]) + 1
        assert starts[:2].tolist() == [500, 1000], t.where()


@by_name([main_case("JumperMemory-v0")])
def test_jumper_memory_time_limit_is_2000(case, reference):
    """procgen's jumper sets a 2000-step limit in memory mode (EnvPool registers 1000):
    random play never finds the carrot there, so every episode runs the 2000 steps."""
    tracks = run_case(case, reference(case))
    assert envfleet.make_spec(case.task_id).config.max_episode_steps == 2000
    for t in tracks:
        assert t.truncated == case.episodes and t.terminated == 0, t.where()


@by_name(DRAWING_OPTIONS)
def test_drawing_options_match_procgen(case, reference):
    """Each option changes the frames (procgen's first frame differs from the defaults') and
    envfleet draws them as procgen does. use_generated_assets first in a child process:
    procgen's engine aborts the process where a game cannot do what is asked of it."""
    if dict(case.options).get("use_generated_assets"):
        code = f"""
            import numpy as np, envfleet
            env = envfleet.make({case.task_id!r}, num_envs=1, use_generated_assets=True)
            env.reset()
            env.step(np.zeros(1, np.int64))
        """
        rc, out, err = run_isolated(code)
        assert rc == 0, "use_generated_assets=True: " + describe(rc, out, err)
    refs = reference(case)
    defaults = reference(main_case(case.task_id))
    for ref, default in zip(refs, defaults, strict=True):
        n = min(len(ref["obs_digest"]), len(default["obs_digest"]))
        assert (ref["obs_digest"][:n] != default["obs_digest"][:n]).any(), "no frame changed"
    for t in run_case(case, refs):
        assert t.ended >= case.episodes, t.where()


@by_name([EASY_JUMP])
def test_use_easy_jump_is_passed_and_changes_nothing(case, reference):
    """use_easy_jump reaches the engine (procgen's Game::parse_options reads it), but no game
    of procgen 0.10.7 uses it: the runs equal the defaults'."""
    refs = reference(case)
    for ref, default in zip(refs, reference(main_case(case.task_id)), strict=True):
        n = min(len(ref["obs_digest"]), len(default["obs_digest"]))
        np.testing.assert_array_equal(ref["obs_digest"][:n], default["obs_digest"][:n])
    run_case(case, refs)


@by_name([LEVELS])
def test_num_levels_and_start_level(case, reference):
    """num_levels=3, start_level=100: every level is one of 100, 101, 102."""
    for t in run_case(case, reference(case)):
        levels = set(t.ref["level_seed"].tolist())
        assert levels <= {100, 101, 102} and len(levels) >= 2, (t.where(), levels)


@by_name([SEQUENTIAL])
def test_sequential_levels(case, reference):
    """use_sequential_levels: a completed level goes on to the level seed + 997 in the same
    episode (no done flag), with a clock of its own: the episode ends at a level's own time
    limit (or a death in other games), however many levels it took, as in procgen; no pool
    time limit cuts it (max_episode_steps is left at the id's)."""
    refs = reference(case)
    went_on = longest = 0
    for ref in refs:
        for k in np.flatnonzero(ref["prev_level_complete"][1:] & ~ref["first"][1:]) + 1:
            went_on += 1
            assert ref["level_seed"][k] == np.int32(ref["level_seed"][k - 1] + 997)
        starts = np.flatnonzero(ref["first"][1:]) + 1
        longest = max(longest, np.diff(starts, prepend=0).max())
    assert went_on >= 1, "no level was completed: the case shows nothing"
    assert longest > case.timeout, "no episode outlasted one level's time limit"
    run_case(case, refs)


@by_name([CHANNEL_LAST, OTHER_GAME, SEED_LIST, *BIG_SEEDS])
def test_layout_and_seed_options(case, reference):
    """channel_first=False (64, 64, 3); env_name overriding the id's game; a seed per env;
    seeds past 2**31 and 2**32 (procgen takes the seed modulo 2**32, as an int32)."""
    run_case(case, reference(case))


@by_name([RESETS])
def test_explicit_reset_is_procgens_forced_reset(case, reference):
    """reset(env_id) in mid-episode plays procgen's forced reset (action -1): twice in a row,
    on one env while the other plays on, and later again; then play goes on identically."""
    refs = reference(case)
    for env, k in case.resets:
        assert not refs[env]["first"][k], "the reset falls on an episode's end: move it"
    first, second = run_case(case, refs)
    assert (first.forced_resets, first.idle_resets) == (2, 0)
    # env 1: its forced reset and each episode end are followed by an idle reset
    assert (second.forced_resets, second.idle_resets) == (1, 1 + second.ended)
    assert second.ended >= 2  # the reference counts the forced reset as an episode's end


@by_name([TIME_LIMIT])
def test_pool_time_limit_resets_like_procgens_forced_reset(case, reference):
    """max_episode_steps shorter than the game's: truncated after 60 steps, and the
    autoreset that follows is procgen's forced reset (a new level)."""
    for t in run_case(case, reference(case)):
        assert t.truncated >= 2 and t.forced_resets >= 2, t.where()


@by_name([RESEEDED])
def test_reset_with_seed_is_a_fresh_procgen_env(case, reference):
    """reset(seed=k) after some play: env i plays ProcgenGym3Env(rand_seed=k + i) from its
    start."""
    env = make_pool(dataclasses.replace(case, seed=5))
    env.reset()
    for _ in range(30):
        env.step(np.full(case.num_envs, 7))
    run_case(case, reference(case), env=env, first_reset=lambda e: e.reset(seed=case.seed))


@by_name(LAYOUTS)
def test_pool_layouts_play_the_same_envs(case, reference):
    """One and two threads, and batch_size below num_envs (async recv/send by env_id): each
    env plays procgen's run for its seed, whatever the layout."""
    for t in run_case(case, reference(case)):
        assert t.ended >= case.episodes, t.where()
