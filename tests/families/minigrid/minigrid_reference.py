"""The reference for the MiniGrid tests: minigrid 3.2.0 itself, installed for the tests, and
lockstep runs of it next to envfleet's pools.

minigrid 3.2.0 requires ``pygame-ce``, which cannot be installed beside the ``pygame`` 2.6.1 the
test extra needs (classic control's frames are pygame's arithmetic). So the test extra does not
list it: ``import_minigrid()`` imports an installed minigrid, or installs minigrid 3.2.0 alone
(``pip install --no-deps --target build/reference-minigrid``, once per checkout, under a file
lock: ``envfleet.bench.references``, which the bench shares) and imports that. minigrid
needs only gymnasium, numpy and, at import, pygame, which
pygame 2.6.1 satisfies for what the tests use (no window); its WFC envs also need networkx and
imageio (both in the test extra) and pattern images its packages lack (see "WFC's pattern
images" below). A failed install fails the tests that need the reference; it never skips them.

``run_aligned`` steps ``num_envs`` minigrid envs (``gymnasium.make(task_id, **options)``, env i
reset with ``seed + i``, an ended episode reset on the next step, as a NEXT_STEP vector env)
next to an envfleet pool of the same id, seed and options, with the same actions, and requires
every step to be equal: the observation (image, direction, mission), reward, terminated,
truncated, the agent's position, and the whole grid (a second pool with
``obs_wrapper="FullyObsWrapper"`` against ``grid.encode()`` of the reference, the agent on it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

# pygame (imported by minigrid) needs a video driver on a headless machine; nothing opens a
# window here.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import gymnasium  # noqa: E402
import imageio  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import envfleet  # noqa: E402
from envfleet.bench import references  # noqa: E402

VERSION = references.MINIGRID[1]
REPO = Path(__file__).resolve().parents[3]
# build/reference-minigrid in the checkout, or (a read-only checkout) in the temp directory.
TARGET = (
    REPO / "build" / "reference-minigrid"
    if os.access(REPO / "build" if (REPO / "build").is_dir() else REPO, os.W_OK)
    else Path(tempfile.gettempdir()) / f"envfleet-reference-minigrid-{VERSION}"
)


_minigrid = None


def import_minigrid():
    """minigrid VERSION: the installed one, else installed alone into TARGET
    (envfleet.bench.references, which the bench shares). Fails the calling test when it cannot
    be had: a missing reference never skips a test."""
    global _minigrid
    if _minigrid is None:
        try:
            _minigrid = references.import_minigrid(TARGET)
        except Exception as exc:
            pytest.fail(f"the reference minigrid {VERSION} is not available: {exc}", pytrace=False)
    return _minigrid


# ---- WFC's pattern images ----------------------------------------------------------------------

# minigrid 3.2.0's WFC presets read PNG files from minigrid/envs/wfc/patterns/, which neither its
# wheel nor its sdist ships (only its repository has them:
# https://github.com/Farama-Foundation/Minigrid/tree/e726259e86d555c7055fb48bd5842cf37af78bfd/minigrid/envs/wfc/patterns,
# unchanged since): made from a wheel, its WFC envs fail at reset. The reference gets the six
# images WFC_PRESETS uses from here: each file's SHA-256 and its pixels as rows ('#' (0, 0, 0),
# '.' (255, 255, 255), ',' (254, 254, 254)), written as PNG files (imageio, lossless) that the
# env's WFCConfig points at, so that minigrid's own wfc_kwargs reads them. Where the installed
# minigrid has the files, they are used instead, after checking that they are these. envfleet's
# C++ holds its own copy (cpp/families/minigrid/wfc_presets.h): a pixel of difference between
# the two changes the levels, which the tests compare cell by cell.
WFC_PATTERN_IMAGES: dict[str, tuple[str, list[str]]] = {
    "SimpleMaze.png": (
        "756ced4e03db22a941d4c2c05347398e5d1a01e9bad76817a75f132f732b9059",
        ["....", ".###", ".#.#", ".###"],
    ),
    "ScaledMaze.png": (
        "ec7e9b6c1598a40e0f25c6a91e6c6031656486748e994b82b213bba0465054ff",
        ["........", "........"] + ["..######"] * 2 + ["..##..##"] * 2 + ["..######"] * 2,
    ),
    "Fabric.png": (
        "c7c9edda700a446a23c6853266a9562e00268a912f5a9b293753ea17190d163c",
        ["..#..", "..,..", "#####", "..,..", "..#.."],
    ),
    "Blackdots.png": (
        "14d8771e40bd3b7e7919d00484fbfc7e0dc083aa5dfba0db0a2ae62c581c7951",
        ["...", ".#.", "..."],
    ),
    "Angular.png": (
        "0fa8106234ee17c7a94e29427dce005bc92f329e823f81075ec8520a361076ba",
        ["..........."] + [".....#####."] * 4 + [".#########."] * 5 + ["..........."],
    ),
    "Hogs.png": (
        "b5b5181f301c4177f5c923bd8dd083458053d995ae75db62bd041ec589be81a5",
        [
            ".................",
            ".......#....#....",
            "..#...###..###...",
            ".###...#....#....",
            "..#..............",
            ".........#.......",
            "....#...###...#..",
            "...###...#...###.",
            "....#.........#..",
            ".................",
            ".......#....#....",
            "..#...###..###...",
            ".###...#....#....",
            "..#..#...#....#..",
            "....###.###..###.",
            ".....#...#....#..",
            ".................",
        ],
    ),
}
_WFC_PIXELS = {"#": (0, 0, 0), ".": (255, 255, 255), ",": (254, 254, 254)}
_wfc_pattern_dir: tempfile.TemporaryDirectory | None = None


def wfc_pattern_image(name: str) -> np.ndarray:
    """The pixels of minigrid's pattern image ``name`` (uint8, rows x columns x 3)."""
    rows = WFC_PATTERN_IMAGES[name][1]
    return np.array([[_WFC_PIXELS[p] for p in row] for row in rows], dtype=np.uint8)


def wfc_pattern_path(installed: Path) -> Path:
    """The pattern file for a WFCConfig whose pattern_path is ``installed``: that file if the
    installed minigrid has it (checked to be the one above), else the image written as a PNG."""
    global _wfc_pattern_dir
    want_sha256 = WFC_PATTERN_IMAGES[installed.name][0]
    if installed.is_file():
        assert hashlib.sha256(installed.read_bytes()).hexdigest() == want_sha256, installed
        return installed
    if _wfc_pattern_dir is None:
        _wfc_pattern_dir = tempfile.TemporaryDirectory(prefix="envfleet-wfc-patterns-")
    path = Path(_wfc_pattern_dir.name) / installed.name
    if not path.is_file():
        imageio.v2.imwrite(path, wfc_pattern_image(installed.name))
    return path


def give_wfc_its_patterns(env) -> None:
    """Points a minigrid WFC env's config at its pattern image (see above); other envs are
    left alone. minigrid's presets are shared objects: the env gets a copy."""
    unwrapped = env.unwrapped
    config = getattr(unwrapped, "config", None)
    if config is None or not hasattr(config, "pattern_path"):
        return
    unwrapped.config = dataclasses.replace(
        config, pattern_path=wfc_pattern_path(Path(config.pattern_path))
    )


# ---- lockstep runs --------------------------------------------------------------------------

# Options of envfleet's alone (the reference has no such arguments).
OURS_ONLY = {"obs_wrapper", "obs_tile_size", "mission_bytes"}


def reference_env(task_id: str, options: dict, render_mode: str | None = None):
    """minigrid's env for ``task_id`` with ``options`` (envfleet's names and values, translated
    where minigrid takes others), unwrapped of Gymnasium's checkers."""
    minigrid = import_minigrid()
    world_object = importlib.import_module("minigrid.core.world_object")
    kwargs = {k: v for k, v in options.items() if k not in OURS_ONLY}
    see_through_walls = kwargs.pop("see_through_walls", None)
    if envfleet.registry.registration(task_id).env_type == "MiniGridLavaGap":
        if isinstance(kwargs.get("obstacle_type"), str):  # LavaGapEnv takes the class only
            kwargs["obstacle_type"] = {"lava": world_object.Lava, "wall": world_object.Wall}[
                kwargs["obstacle_type"].lower()
            ]
    del minigrid
    if "wfc_preset" in kwargs:  # EnvPool's name for WFCEnv's wfc_config
        kwargs["wfc_config"] = kwargs.pop("wfc_preset")
    env = gymnasium.make(task_id, disable_env_checker=True, render_mode=render_mode, **kwargs)
    give_wfc_its_patterns(env)
    if see_through_walls is not None:  # most classes fix it in __init__, so set it after
        env.unwrapped.see_through_walls = see_through_walls
    return env


def full_grid(env) -> np.ndarray:
    """FullyObsWrapper's image of a minigrid env: grid.encode() with the agent on it."""
    env = env.unwrapped
    grid = env.grid.encode()
    grid[env.agent_pos[0]][env.agent_pos[1]] = np.array([10, 0, env.agent_dir])
    return grid


class ReferencePool:
    """``num_envs`` minigrid envs stepped as a sync vector env with NEXT_STEP autoreset."""

    def __init__(self, task_id: str, num_envs: int, options: dict, render_mode=None):
        self.envs = [reference_env(task_id, options, render_mode) for _ in range(num_envs)]
        self.done = [False] * num_envs

    def reset(self, seed: int) -> list[dict]:
        self.done = [False] * len(self.envs)
        return [self._result(env, env.reset(seed=seed + i)[0]) for i, env in enumerate(self.envs)]

    def step(self, actions) -> list[dict]:
        out = []
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            if self.done[i]:
                result = self._result(env, env.reset()[0], 0.0, False, False)
            else:
                obs, reward, terminated, truncated, _ = env.step(int(action))
                result = self._result(env, obs, float(reward), terminated, truncated)
            self.done[i] = bool(result["terminated"] or result["truncated"])
            out.append(result)
        return out

    @staticmethod
    def _result(env, obs, reward=None, terminated=None, truncated=None) -> dict:
        return {
            "image": obs["image"],
            "direction": obs["direction"],
            "mission": obs["mission"],
            "agent_pos": tuple(int(v) for v in env.unwrapped.agent_pos),
            "grid": full_grid(env),
            "reward": reward,
            "terminated": terminated,
            "truncated": truncated,
        }

    def close(self):
        for env in self.envs:
            env.close()


def mission_text(row: np.ndarray) -> str:
    return bytes(row).rstrip(b"\0").decode()


def assert_same(ours, full_obs, ref: list[dict], where: str) -> None:
    """Our batch (``reset()``'s (obs, info) or ``step()``'s five) and our full-grid pool's
    observation against the reference's results, env by env."""
    reset = len(ours) == 2
    if reset:
        obs, info = ours
        reward = terminated = truncated = None
    else:
        obs, reward, terminated, truncated, info = ours
    for i, want in enumerate(ref):
        at = f"{where}, env {i}"
        np.testing.assert_array_equal(obs["image"][i], want["image"], err_msg=f"image, {at}")
        assert obs["direction"][i] == want["direction"], f"direction, {at}"
        assert mission_text(obs["mission"][i]) == want["mission"], f"mission, {at}"
        assert tuple(info["agent_pos"][i].tolist()) == want["agent_pos"], f"agent_pos, {at}"
        np.testing.assert_array_equal(full_obs["image"][i], want["grid"], err_msg=f"grid, {at}")
        if reset:
            continue
        assert reward[i] == want["reward"], f"reward {reward[i]} != {want['reward']}, {at}"
        assert terminated[i] == want["terminated"], f"terminated, {at}"
        assert truncated[i] == want["truncated"], f"truncated, {at}"


# policy(rng, num_actions, reference pool) -> one action per env
Policy = Callable[[np.random.Generator, int, "ReferencePool"], np.ndarray]


def forward_biased(rng: np.random.Generator, num_actions: int, ref: ReferencePool) -> np.ndarray:
    """Random actions, forward (2) half the time so that episodes reach goals and lava."""
    p = np.full(num_actions, 0.5 / (num_actions - 1))
    p[2] = 0.5
    return rng.choice(num_actions, size=len(ref.envs), p=p)


def forward_shy(rng: np.random.Generator, num_actions: int, ref: ReferencePool) -> np.ndarray:
    """Random actions, forward 10% of the time: episodes that run into their time limit even
    where a step forward is often the last (DynamicObstacles)."""
    p = np.full(num_actions, 0.9 / (num_actions - 1))
    p[2] = 0.1
    return rng.choice(num_actions, size=len(ref.envs), p=p)


def curious(rng: np.random.Generator, num_actions: int, ref: ReferencePool) -> np.ndarray:
    """Random actions that often use what is in front, looked up in minigrid's env: pick up
    keys, balls and boxes, toggle doors and boxes, drop what is carried on an empty cell, say
    done next to things. Episodes then open doors, unlock them, open boxes and reach the
    rewarded ends (KeyCorridor's pickup, PutNear's drop, GoToDoor's done...), which random
    actions seldom do."""
    actions = forward_biased(rng, num_actions, ref)
    if num_actions < 7:
        return actions
    for i, env in enumerate(ref.envs):
        env = env.unwrapped
        if ref.done[i]:
            continue
        x, y = env.front_pos
        cell = env.grid.get(x, y)
        u = rng.random()
        if cell is None:
            if env.carrying is not None and u < 0.2:
                actions[i] = 4  # drop
        elif cell.type in ("key", "ball", "box") and u < 0.5:
            actions[i] = 3 if (cell.type != "box" or u < 0.3) else 5  # pickup, or open a box
        elif cell.type == "door" and u < 0.5:
            actions[i] = 5  # toggle
        elif cell.type != "wall" and u < 0.1:
            actions[i] = 6  # done
    return actions


def run_aligned(
    task_id: str,
    seed: int,
    steps: int,
    num_envs: int = 3,
    policy: Policy = forward_biased,
    reseed_at: int | None = None,
    reference_options: dict | None = None,
    **options,
) -> dict[str, int]:
    """Steps envfleet and minigrid in lockstep (see the top); a ``reset(seed=seed + 1000)`` of
    both after step ``reseed_at``. minigrid's env gets ``reference_options`` where given (its
    names for options envfleet also takes under EnvPool's), else ``options``. Returns how many
    episodes ended and how."""
    ours = envfleet.make(task_id, num_envs=num_envs, seed=seed, conventions="gymnasium", **options)
    full = envfleet.make(
        task_id,
        num_envs=num_envs,
        seed=seed,
        conventions="gymnasium",
        **{**options, "obs_wrapper": "FullyObsWrapper"},
    )
    ref = ReferencePool(
        task_id, num_envs, options if reference_options is None else reference_options
    )
    counts = {"terminated": 0, "truncated": 0, "rewarded": 0, "successes": 0, "episodes": 0}
    try:
        num_actions = int(ours.single_action_space.n)
        rng = np.random.default_rng(seed)
        where = f"{task_id} {options} seed={seed}"
        assert_same(ours.reset(), full.reset()[0], ref.reset(seed), where)
        for t in range(steps):
            actions = policy(rng, num_actions, ref)
            result = ours.step(actions)
            full_obs = full.step(actions)[0]
            want = ref.step(actions)
            assert_same(result, full_obs, want, f"{where} step {t}, actions {actions.tolist()}")
            counts["terminated"] += int(result[2].sum())
            counts["truncated"] += int(result[3].sum())
            counts["rewarded"] += int((result[1] != 0).sum())
            counts["successes"] += int((result[1] > 0).sum())
            counts["episodes"] += int((result[2] | result[3]).sum())
            if reseed_at == t:
                again = seed + 1000
                assert_same(
                    ours.reset(seed=again),
                    full.reset(seed=again)[0],
                    ref.reset(again),
                    f"{where} reset(seed={again})",
                )
        return counts
    finally:
        ours.close()
        full.close()
        ref.close()


# ---- a goal-directed policy ---------------------------------------------------------------

_DIRS = [(1, 0), (0, 1), (-1, 0), (0, -1)]


def _passable(cell) -> bool:
    return cell is None or (cell.can_overlap() and cell.type != "lava")


def _locked_door_colors(env) -> set[str]:
    return {c.color for c in env.grid.grid if c is not None and c.type == "door" and c.is_locked}


def _wanted(env, cell) -> int | None:
    """How much the agent wants to stand before `cell` (lower first), None: not at all."""
    if cell is None:
        return None
    target = getattr(env, "obj", None)
    carrying = env.carrying
    if cell is target or cell.type == "goal":
        return 0
    if cell.type == "door" and cell.is_locked:
        has_key = carrying is not None and carrying.type == "key" and carrying.color == cell.color
        return 1 if has_key else None
    if carrying is not None:
        return None
    if cell.type == "key" and cell.color in _locked_door_colors(env):
        return 2
    if cell.type == "box":
        return 3
    if cell.type == "door" and not cell.is_open:
        return 4
    if cell.type == "ball":  # blocking a door, or a distraction: moved out of the way
        return 5
    return None


def _plan(env):
    """The action toward the most wanted cell the agent can reach the front of (breadth-first
    over passable cells), or None."""
    start = tuple(int(v) for v in env.agent_pos)
    best = None  # (want, path length, first step position, facing cell)
    seen = {start: None}
    frontier = [start]
    depth = 0
    while frontier and depth < 200:
        following = []
        for pos in frontier:
            for dx, dy in _DIRS:
                nxt = (pos[0] + dx, pos[1] + dy)
                if not (0 <= nxt[0] < env.width and 0 <= nxt[1] < env.height):
                    continue
                cell = env.grid.get(*nxt)
                want = _wanted(env, cell)
                if want is not None and cell is not None and cell.type != "goal":
                    if best is None or (want, depth) < best[:2]:
                        best = (want, depth, pos, nxt)
                if nxt in seen or not _passable(cell):
                    continue
                seen[nxt] = pos
                following.append(nxt)
                if cell is not None and cell.type == "goal" and (best is None or best[0] > 0):
                    best = (0, depth, nxt, None)
        frontier = following
        depth += 1
    if best is None:
        return None
    _, _, stand, face = best
    if stand == start and face is not None:  # turn to the wanted cell
        goal_dir = _DIRS.index((face[0] - start[0], face[1] - start[1]))
    else:
        step = stand
        while seen[step] != start and seen[step] is not None:
            step = seen[step]
        if step == start:
            return None
        goal_dir = _DIRS.index((step[0] - start[0], step[1] - start[1]))
    if goal_dir == env.agent_dir:
        return 2  # forward (or, facing the wanted cell, the interaction below)
    return 1 if goal_dir == (env.agent_dir + 1) % 4 else 0


def open_floor(env, pos) -> bool:
    """Whether an object dropped at `pos` leaves the doors free: the agent not on a door, and
    no door next to `pos`."""
    here = env.grid.get(*(int(v) for v in env.agent_pos))
    if here is not None and here.type == "door":
        return False
    for dx, dy in _DIRS:
        x, y = pos[0] + dx, pos[1] + dy
        if 0 <= x < env.width and 0 <= y < env.height:
            cell = env.grid.get(x, y)
            if cell is not None and cell.type == "door":
                return False
    return True


def _interaction(env) -> int | None:
    """What to do with the cell in front, if anything."""
    fx, fy = (int(v) for v in env.front_pos)
    cell = env.grid.get(fx, fy)
    carrying = env.carrying
    target = getattr(env, "obj", None)
    if carrying is not None and carrying is not target:
        useless = carrying.type != "key" or carrying.color not in _locked_door_colors(env)
        if cell is None and useless and open_floor(env, (fx, fy)):
            return 4  # drop it here, out of the way
        if cell is not None and cell.type == "door" and cell.is_locked:
            return 5 if carrying.type == "key" and carrying.color == cell.color else None
        return None
    if cell is None:
        return None
    if cell is target and carrying is None:
        return 3
    if cell.type == "box":
        return 5
    if cell.type == "door" and not cell.is_open:
        return 5
    if carrying is None and cell.type in ("key", "ball") and _wanted(env, cell) is not None:
        return 3
    return None


def goal_directed(rng: np.random.Generator, num_actions: int, ref: ReferencePool) -> np.ndarray:
    """Mostly the actions of a simple planner that reads minigrid's state: clear blocking
    balls, open boxes and doors, carry keys to their locked doors, drop what is useless, and
    pick up the env's own object (KeyCorridor's, the Unlock* boxes, ObstructedMaze's ball) or
    walk onto the goal; a random action one time in eight. Episodes then reach the rewarded
    ends that depend on object identity, which random actions all but never do."""
    actions = forward_biased(rng, num_actions, ref)
    if num_actions < 7:
        return actions
    for i, env in enumerate(ref.envs):
        env = env.unwrapped
        if ref.done[i] or rng.random() < 0.125:
            continue
        action = _interaction(env)
        if action is None:
            action = _plan(env)
        if action is None and env.carrying is not None:
            # Nothing reachable to do with what it carries (a key whose door is blocked):
            # put it down, out of the way, and deal with what blocks.
            front = tuple(int(v) for v in env.front_pos)
            if env.grid.get(*front) is None and open_floor(env, front):
                action = 4
        if action is not None:
            actions[i] = action
    return actions


def check_async_pool(task_id: str, recvs: int, options: dict, n: int = 6, seed: int = 13) -> None:
    """Async mode (batch_size 2 of ``n`` envs, two threads) against one reference env per env:
    each env's results are the reference's for its seed and its own actions, whichever batch
    they come back in. Forward-biased actions; ``options`` go to both."""
    ours = envfleet.make(task_id, num_envs=n, batch_size=2, num_threads=2, seed=seed, **options)
    refs = [ReferencePool(task_id, 1, options) for _ in range(n)]
    try:
        rng = np.random.default_rng(seed)
        ours.async_reset()
        want = {i: refs[i].reset(seed + i)[0] for i in range(n)}
        for t in range(recvs):
            obs, reward, terminated, truncated, info = ours.recv()
            ids = info["env_id"]
            for r, i in enumerate(ids.tolist()):
                where = f"{task_id} recv {t}, env {i}"
                assert mission_text(obs["mission"][r]) == want[i]["mission"], where
                np.testing.assert_array_equal(obs["image"][r], want[i]["image"], where)
                assert tuple(info["agent_pos"][r].tolist()) == want[i]["agent_pos"], where
                if want[i]["reward"] is not None:
                    assert reward[r] == np.float32(want[i]["reward"]), where
                    assert terminated[r] == want[i]["terminated"], where
                    assert truncated[r] == want[i]["truncated"], where
            num_actions = int(ours.action_space.n)
            actions = np.array([forward_biased(rng, num_actions, refs[i])[0] for i in ids.tolist()])
            for i, action in zip(ids.tolist(), actions, strict=True):
                want[i] = refs[i].step([action])[0]
            ours.send(actions, ids)
    finally:
        ours.close()
        for ref in refs:
            ref.close()
