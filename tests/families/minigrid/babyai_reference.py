"""A planner for BabyAI's instructions, for the alignment tests (test_babyai.py): it reads the
reference env's state, including its verifier (``env.instrs``), and acts toward the instruction
minigrid is waiting for, so that episodes reach the verifiers' rewarded ends (go to, open, pick
up, put next to, in sequence) and the tests compare them step by step.

Each step, per env: the action instructions still to do (a ``Before``'s first part until it is
done, then its second; an ``After``'s second part first; both parts of an ``And``), the first
that the planner can act on: the cells to face (``GoTo``: the description's ``obj_poss``, as the
verifier reads them; ``Open``: its doors; ``Pickup``: its objects; ``PutNext``: the object to
move, then once carried the empty cells next to the fixed object) and the action to take there.
A breadth-first search over empty cells and doors (closed ones are toggled open on the way,
locked ones only with their key) finds the nearest. Where nothing is reachable it deals with
what blocks: a locked door on the way needs its key (picked up, or a box toggled open where
the key may hide), an object in the way is picked up and dropped out of the way. What the agent
carries and does not need is dropped on open floor first. A random action now and then keeps it
from looping forever.
"""

from __future__ import annotations

import heapq
import importlib

import numpy as np
from minigrid_reference import ReferencePool, forward_biased, open_floor

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE, DONE = range(7)
_DIRS = [(1, 0), (0, 1), (-1, 0), (0, -1)]


def _verifier():
    return importlib.import_module("minigrid.envs.babyai.core.verifier")


def active_actions(instr) -> list:
    """The action instructions minigrid's verifier is waiting for, in the order to try them."""
    v = _verifier()
    if isinstance(instr, v.BeforeInstr):
        return active_actions(instr.instr_b if instr.a_done == "success" else instr.instr_a)
    if isinstance(instr, v.AfterInstr):
        return active_actions(instr.instr_a if instr.b_done == "success" else instr.instr_b)
    if isinstance(instr, v.AndInstr):
        out = []
        if instr.a_done != "success":
            out += active_actions(instr.instr_a)
        if instr.b_done != "success":
            out += active_actions(instr.instr_b)
        return out
    return [instr]


def _cells(env):
    """(x, y, cell) of every non-empty cell."""
    for y in range(env.height):
        for x in range(env.width):
            cell = env.grid.get(x, y)
            if cell is not None:
                yield x, y, cell


def _positions_of(env, objs) -> set[tuple[int, int]]:
    """Where the objects of `objs` (by identity) are on the grid now."""
    return {(x, y) for x, y, cell in _cells(env) if any(cell is o for o in objs)}


def _walkable(env, cell, with_key: bool) -> bool:
    if cell is None:
        return True
    if cell.type != "door":
        return False
    if cell.is_open or not cell.is_locked:
        return True
    carrying = env.carrying
    return (
        with_key
        and carrying is not None
        and carrying.type == "key"
        and carrying.color == cell.color
    )


def _reach(env, with_key: bool = True):
    """Breadth-first search from the agent over walkable cells (locked doors with their key
    in hand, unless not `with_key`): {cell: previous cell}."""
    start = tuple(int(v) for v in env.agent_pos)
    prev = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for x, y in frontier:
            for dx, dy in _DIRS:
                nxt = (x + dx, y + dy)
                if nxt in prev or not (0 <= nxt[0] < env.width and 0 <= nxt[1] < env.height):
                    continue
                if _walkable(env, env.grid.get(*nxt), with_key):
                    prev[nxt] = (x, y)
                    following.append(nxt)
        frontier = following
    return prev


def _turn_to(env, d: int) -> int:
    return RIGHT if d == (env.agent_dir + 1) % 4 else LEFT


def navigate(env, targets: set, action: int | None, reach=None) -> int | None:
    """The next action toward facing one of `targets` (the nearest) and then `action` there
    (None: facing it is the goal, GoTo's), or None if none is reachable."""
    if not targets:
        return None
    reach = _reach(env) if reach is None else reach
    start = tuple(int(v) for v in env.agent_pos)
    # reach's insertion order is breadth-first: the first stand cell found is the nearest
    best = None
    for stand in reach:
        for d, (dx, dy) in enumerate(_DIRS):
            if (stand[0] + dx, stand[1] + dy) in targets:
                best = (stand, d)
                break
        if best is not None:
            break
    if best is None:
        return None
    stand, d = best
    if stand == start:
        if env.agent_dir != d:
            return _turn_to(env, d)
        return DONE if action is None else action
    step = stand
    while reach[step] != start:
        step = reach[step]
    d = _DIRS.index((step[0] - start[0], step[1] - start[1]))
    if env.agent_dir != d:
        return _turn_to(env, d)
    cell = env.grid.get(*step)
    return TOGGLE if cell is not None and cell.type == "door" and not cell.is_open else FORWARD


def _open_floor(env, pos) -> bool:
    """Whether dropping something at `pos` leaves the ways free: an empty cell inside the grid
    (minigrid_reference.open_floor checks the doors)."""
    if not (0 <= pos[0] < env.width and 0 <= pos[1] < env.height):
        return False
    return env.grid.get(*pos) is None and open_floor(env, pos)


def drop_somewhere(env, rng) -> int:
    """Drop what is carried on open floor in front, else turn or walk until there is some."""
    front = tuple(int(v) for v in env.front_pos)
    if _open_floor(env, front):
        return DROP
    if env.grid.get(*front) is None and rng.random() < 0.5:
        return FORWARD
    return LEFT if rng.random() < 0.5 else RIGHT


def _fetch_key(env, colors: set, rng, depth: int) -> int | None:
    """Toward a key of one of `colors`, else toward opening a box that may hold one."""
    keys = {(x, y) for x, y, c in _cells(env) if c.type == "key" and c.color in colors}
    step = _pick_up(env, keys, rng, depth + 1) if keys else None
    if step is None:
        boxes = {(x, y) for x, y, c in _cells(env) if c.type == "box"}
        step = _pursue(env, boxes, TOGGLE, rng, depth + 1)
    return step


def _way_through(env, targets: set) -> list:
    """The cheapest way from the agent to a cell facing one of `targets` where objects and
    locked doors may be passed at a high price: the cells along it, the agent's excluded."""
    start = tuple(int(v) for v in env.agent_pos)
    cost = {start: 0}
    prev = {start: None}
    heap = [(0, start)]
    while heap:
        c, pos = heapq.heappop(heap)
        if c > cost[pos]:
            continue
        if any((pos[0] + dx, pos[1] + dy) in targets for dx, dy in _DIRS):
            way = []
            while pos != start:
                way.append(pos)
                pos = prev[pos]
            return way[::-1]
        for dx, dy in _DIRS:
            nxt = (pos[0] + dx, pos[1] + dy)
            if not (0 <= nxt[0] < env.width and 0 <= nxt[1] < env.height):
                continue
            cell = env.grid.get(*nxt)
            if cell is not None and cell.type == "wall":
                continue
            step = 1 if _walkable(env, cell, True) else 100
            if c + step < cost.get(nxt, 1 << 30):
                cost[nxt] = c + step
                prev[nxt] = pos
                heapq.heappush(heap, (c + step, nxt))
    return []


def _unblock(env, targets: set, rng, depth: int) -> int | None:
    """Where `targets` are out of reach: the first thing on the cheapest way through, a locked
    door (its key fetched) or an object (picked up, to be dropped out of the way)."""
    if depth > 2:
        return None
    for pos in _way_through(env, targets):
        cell = env.grid.get(*pos)
        if _walkable(env, cell, True):
            continue
        if cell.type == "door":
            return _fetch_key(env, {cell.color}, rng, depth)
        if env.carrying is not None:
            return drop_somewhere(env, rng)
        return navigate(env, {pos}, PICKUP)
    return None


def _pursue(env, targets, action, rng, depth: int = 0) -> int | None:
    """Toward facing one of `targets` and taking `action` there, unblocking the way."""
    step = navigate(env, targets, action)
    if step is not None:
        return step
    return _unblock(env, targets, rng, depth)


def _pick_up(env, targets, rng, depth: int = 0) -> int | None:
    """Toward picking up one of `targets`: with something in hand, on with it while it is the
    key that opens the way, else dropped first."""
    carrying = env.carrying
    if carrying is not None and targets:
        if carrying.type != "key" or navigate(env, targets, PICKUP, _reach(env, False)):
            return drop_somewhere(env, rng)
    return _pursue(env, targets, PICKUP, rng, depth)


def _plan_action(env, instr, rng) -> int | None:
    """The planner's action toward the action instruction `instr`, or None."""
    v = _verifier()
    carrying = env.carrying
    if isinstance(instr, v.GoToInstr):
        targets = {tuple(int(c) for c in p) for p in instr.desc.obj_poss}
        return _pursue(env, targets, None, rng)
    if isinstance(instr, v.OpenInstr):
        doors = [d for d in instr.desc.obj_set if _positions_of(env, [d])]
        colors = {d.color for d in doors if d.is_locked}
        has_key = carrying is not None and carrying.type == "key" and carrying.color in colors
        if doors and all(d.is_locked for d in doors) and not has_key:
            return _fetch_key(env, colors, rng, 0)
        return _pursue(env, _positions_of(env, doors), TOGGLE, rng)
    if isinstance(instr, v.PickupInstr):
        return _pick_up(env, _positions_of(env, instr.desc.obj_set), rng)
    move, fixed = instr.desc_move.obj_set, instr.desc_fixed.obj_set
    if any(carrying is o for o in move):
        spots = set()
        for x, y in _positions_of(env, fixed):
            for dx, dy in _DIRS:
                pos = (x + dx, y + dy)
                if 0 <= pos[0] < env.width and 0 <= pos[1] < env.height:
                    if env.grid.get(*pos) is None:
                        spots.add(pos)
        return _pursue(env, spots, DROP, rng)
    return _pick_up(env, _positions_of(env, move), rng)


def plan(env, rng) -> int | None:
    """The planner's action for minigrid's BabyAI env `env`, or None (no idea)."""
    for instr in active_actions(env.instrs):
        step = _plan_action(env, instr, rng)
        if step is not None:
            return step
    return None


def babyai_planner(rng: np.random.Generator, num_actions: int, ref: ReferencePool) -> np.ndarray:
    """The planner's actions (a random one time in ten), per env of the reference."""
    actions = forward_biased(rng, num_actions, ref)
    for i, env in enumerate(ref.envs):
        env = env.unwrapped
        if ref.done[i] or rng.random() < 0.1:
            continue
        action = plan(env, rng)
        if action is not None:
            actions[i] = action
    return actions
