"""A training loop's sync ``step()`` calls on one pool, timed with the CPU they use.

    python benchmarks/sync_step_loop.py --task CartPole-v1 --num-envs 2048 --num-threads 1

Makes the pool (Gymnasium front end, EnvPool's conventions, as ``envfleet.make`` does), warms
it up, then calls ``step()`` with pre-drawn random actions for ``--seconds`` and prints env
steps per second, the process's CPU seconds per wall second (``busy``: every thread, the
caller's and the workers' polling included), steps per CPU second and microseconds per call.
It is the loop the profiles in benchmarks/RESULTS.md ("Where the time goes") were taken on;
`python -m envfleet.bench` is the side-by-side benchmark.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import envfleet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="CartPole-v1", help="a task with discrete actions")
    parser.add_argument("--num-envs", type=int, default=2048)
    parser.add_argument("--num-threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    n = args.num_envs
    env = envfleet.make(args.task, num_envs=n, batch_size=n, num_threads=args.num_threads)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, env.single_action_space.n, n) for _ in range(64)]
    for i in range(200):
        env.step(actions[i % 64])
    calls = 0
    start, cpu_start = time.perf_counter(), os.times()
    while time.perf_counter() - start < args.seconds:
        for action in actions:
            env.step(action)
        calls += len(actions)
    wall, cpu_end = time.perf_counter() - start, os.times()
    cpu = (cpu_end.user - cpu_start.user) + (cpu_end.system - cpu_start.system)
    rate = calls * n / wall
    print(
        f"{args.task} num_envs={n} num_threads={args.num_threads}: {rate / 1e6:.2f}M steps/s, "
        f"busy {cpu / wall:.2f}, {rate / (cpu / wall) / 1e6:.2f}M steps per CPU second, "
        f"{wall / calls * 1e6:.1f} us per call"
    )
    env.close()


if __name__ == "__main__":
    main()
