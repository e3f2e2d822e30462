"""A grid world written in Python: walls drawn anew each episode, a goal to reach.

The agent moves up/right/down/left on a SIZE x SIZE grid. Each episode ``reset`` draws a new
maze from the env's rng: every cell is a wall with probability ``wall_probability``, then the
agent and the goal are placed on distinct free cells, and a breadth-first search (an njit
helper working on arrays kept in the state) redraws the maze until the goal is reachable.
Reaching the goal ends the episode with reward 1; every other step costs ``step_penalty``.
With probability ``slip_probability`` a move goes in a random direction instead.

The observation is a dict (the wall map, the agent's and the goal's positions) and
``info["shortest_path"]`` is the number of moves still needed. Run this file for a demo::

    python examples/grid_world.py
"""

from __future__ import annotations

import numba
import numpy as np
from gymnasium import spaces

import envfleet

SIZE = 8
# Moves of actions 0..3: up, right, down, left (row, column).
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], dtype=np.int64)


@numba.njit
def distances_to(walls, goal_row, goal_col, distance, queue):
    """Breadth-first search from the goal: distance[r, c] = moves from (r, c), -1 if cut off.

    ``distance`` and ``queue`` are arrays of the env's state, used as scratch space, so the
    search allocates nothing.
    """
    for row in range(SIZE):  # loops rather than slices (distance[:, :] = -1): they compile
        for col in range(SIZE):  # several times faster in Numba and run as fast
            distance[row, col] = -1
    distance[goal_row, goal_col] = 0
    queue[0, 0] = goal_row
    queue[0, 1] = goal_col
    head, tail = 0, 1
    while head < tail:
        row, col = queue[head, 0], queue[head, 1]
        head += 1
        for move in range(4):
            r, c = row + MOVES[move, 0], col + MOVES[move, 1]
            if 0 <= r < SIZE and 0 <= c < SIZE and not walls[r, c] and distance[r, c] < 0:
                distance[r, c] = distance[row, col] + 1
                queue[tail, 0] = r
                queue[tail, 1] = c
                tail += 1


class GridWorld(envfleet.PythonEnv):
    observation_space = spaces.Dict(
        {
            "walls": spaces.MultiBinary((SIZE, SIZE)),
            "agent": spaces.Box(0, SIZE - 1, (2,), np.int64),
            "goal": spaces.Box(0, SIZE - 1, (2,), np.int64),
        }
    )
    action_space = spaces.Discrete(4)
    state = {
        "walls": (np.uint8, (SIZE, SIZE)),  # 1: a wall (Numba records hold no bool arrays)
        "agent": (np.int64, 2),
        "goal": (np.int64, 2),
        "distance": (np.int32, (SIZE, SIZE)),  # moves to the goal from each cell
        "queue": (np.int64, (SIZE * SIZE, 2)),  # scratch space of the search
    }
    info = {"shortest_path": np.int64}
    options = {"wall_probability": 0.3, "step_penalty": 0.01, "slip_probability": 0.0}
    max_episode_steps = 100

    @staticmethod
    def reset(state, rng, options):
        while True:
            for row in range(SIZE):
                for col in range(SIZE):
                    state.walls[row, col] = rng.random() < options.wall_probability
            agent = rng.integers(0, SIZE * SIZE)
            goal = rng.integers(0, SIZE * SIZE - 1)
            if goal >= agent:  # a uniform draw among the other cells
                goal += 1
            state.agent[0], state.agent[1] = agent // SIZE, agent % SIZE
            state.goal[0], state.goal[1] = goal // SIZE, goal % SIZE
            state.walls[state.agent[0], state.agent[1]] = False
            state.walls[state.goal[0], state.goal[1]] = False
            distances_to(state.walls, state.goal[0], state.goal[1], state.distance, state.queue)
            if state.distance[state.agent[0], state.agent[1]] > 0:
                return

    @staticmethod
    def step(state, action, rng, options):
        if options.slip_probability > 0.0 and rng.random() < options.slip_probability:
            action = rng.integers(0, 4)
        row = state.agent[0] + MOVES[action, 0]
        col = state.agent[1] + MOVES[action, 1]
        if 0 <= row < SIZE and 0 <= col < SIZE and not state.walls[row, col]:
            state.agent[0], state.agent[1] = row, col
        if row == state.goal[0] and col == state.goal[1]:
            return 1.0, True
        return -options.step_penalty, False

    @staticmethod
    def observe(state, obs, info):
        for row in range(SIZE):
            for col in range(SIZE):
                obs.walls[row, col] = state.walls[row, col]
        for i in range(2):
            obs.agent[i] = state.agent[i]
            obs.goal[i] = state.goal[i]
        info.shortest_path[()] = state.distance[state.agent[0], state.agent[1]]


envfleet.register_python_env("PyGridWorld-v0", GridWorld)


if __name__ == "__main__":
    env = envfleet.make("PyGridWorld-v0", num_envs=4, seed=0, slip_probability=0.1)
    obs, info = env.reset()
    walls, agent, goal = obs["walls"][0], obs["agent"][0], obs["goal"][0]
    for row in range(SIZE):
        cells = ["#" if walls[row, col] else "." for col in range(SIZE)]
        if agent[0] == row:
            cells[agent[1]] = "A"
        if goal[0] == row:
            cells[goal[1]] = "G"
        print(" ".join(cells))
    print("shortest paths:", info["shortest_path"])
    # A greedy policy on the distance map is not observable; random moves it is.
    rng = np.random.default_rng(0)
    returns, episodes = np.zeros(4), []
    for _ in range(2000):
        obs, reward, terminated, truncated, info = env.step(rng.integers(0, 4, 4))
        returns += reward
        for i in np.flatnonzero(terminated | truncated):
            episodes.append(returns[i])
            returns[i] = 0.0
    print(f"{len(episodes)} episodes, mean return {np.mean(episodes):.3f} (random policy)")
