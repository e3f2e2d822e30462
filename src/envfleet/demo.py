"""A short throughput demo: envfleet beside Gymnasium's SyncVectorEnv (and EnvPool if present).

    python -m envfleet.demo [--task CartPole-v1] [--num-envs 16] [--seconds 2]

Steps the same task through each executor with pre-generated random actions and prints
environment steps per second. Each executor runs its windows interleaved with the others,
so drift on a shared machine hits them alike. (The full benchmark is a separate tool.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np


def _actions(space, num_envs: int, count: int, seed: int) -> list[np.ndarray]:
    space.seed(seed)
    return [np.stack([space.sample() for _ in range(num_envs)]) for _ in range(count)]


def _envfleet_sync(task: str, num_envs: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    import envfleet

    env = envfleet.make(task, num_envs=num_envs)
    actions = _actions(env.single_action_space, num_envs, 64, 0)
    env.reset()

    def run(steps: int) -> int:
        for i in range(steps):
            env.step(actions[i & 63])
        return steps * num_envs

    return run, env.close


def _envfleet_async(task: str, num_envs: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    import envfleet

    env = envfleet.make(task, num_envs=2 * num_envs, batch_size=num_envs)
    actions = _actions(env.single_action_space, num_envs, 64, 0)
    env.async_reset()

    def run(steps: int) -> int:
        for i in range(steps):
            info = env.recv()[-1]
            env.send(actions[i & 63], info["env_id"])
        return steps * num_envs

    return run, env.close


def _gymnasium_sync(task: str, num_envs: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    import gymnasium

    env = gymnasium.make_vec(task, num_envs=num_envs, vectorization_mode="sync")
    actions = _actions(env.single_action_space, num_envs, 64, 0)
    env.reset(seed=0)

    def run(steps: int) -> int:
        for i in range(steps):
            env.step(actions[i & 63])
        return steps * num_envs

    return run, env.close


def _envpool_sync(task: str, num_envs: int) -> tuple[Callable[[int], int], Callable[[], None]]:
    import envpool

    env = envpool.make_gymnasium(task, num_envs=num_envs)
    actions = _actions(env.action_space, num_envs, 64, 0)
    env.reset()

    def run(steps: int) -> int:
        for i in range(steps):
            env.step(actions[i & 63])
        return steps * num_envs

    return run, env.close


def _rate(run: Callable[[int], int], seconds: float) -> float:
    steps = 16
    while True:  # grow the window until it lasts long enough to time
        start = time.perf_counter()
        done = run(steps)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds / 4 or steps > 1 << 24:
            return done / elapsed
        steps *= 2


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per executor")
    args = parser.parse_args(argv)

    executors = {
        "envfleet sync (step)": _envfleet_sync,
        "envfleet async (send/recv)": _envfleet_async,
        "gymnasium SyncVectorEnv": _gymnasium_sync,
    }
    try:
        import envpool  # noqa: F401

        executors["envpool sync (step)"] = _envpool_sync
    except ImportError:
        print("envpool is not installed: pip install 'envfleet[bench]' to compare with it")

    made = {name: factory(args.task, args.num_envs) for name, factory in executors.items()}
    rates: dict[str, list[float]] = {name: [] for name in made}
    for _ in range(3):  # interleaved rounds
        for name, (run, _) in made.items():
            rates[name].append(_rate(run, args.seconds / 3))
    for _, close in made.values():
        close()

    baseline = statistics.median(rates["gymnasium SyncVectorEnv"])
    print(
        f"\n{args.task}, num_envs={args.num_envs} (async: {2 * args.num_envs} envs, batches of "
        f"{args.num_envs}), {os.cpu_count()} cores, median of 3 interleaved windows\n"
    )
    print(f"{'executor':<30}{'steps/s':>14}{'vs gymnasium sync':>20}")
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"{name:<30}{rate:>14,.0f}{rate / baseline:>19.1f}x")


if __name__ == "__main__":
    main()
