"""The foundation issue's speed targets, measured side by side with EnvPool in one run.

    python benchmarks/foundation.py [--rounds 7] [--seconds 1.0]

1. CartPole-v1, num_envs=1, ``step()`` through the Gymnasium front end: microseconds per step.
2. CartPole-v1, num_envs=64, synchronous ``step()``: environment steps per second.

Every executor is made once, warmed up, then timed in rounds that interleave the executors, so
drift on a noisy shared machine hits all of them alike; the table gives the median and the
range over rounds. Actions are pre-generated. Gymnasium's SyncVectorEnv is shown for scale.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def make_runner(kind: str, num_envs: int):
    if kind == "envfleet":
        import envfleet

        env = envfleet.make("CartPole-v1", num_envs=num_envs, seed=0)
        dtype = np.int64
    elif kind == "envpool":
        import envpool

        env = envpool.make_gymnasium("CartPole-v1", num_envs=num_envs, seed=0)
        dtype = np.int32
    else:
        import gymnasium

        env = gymnasium.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="sync")
        dtype = np.int64
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, num_envs).astype(dtype) for _ in range(256)]
    env.reset()

    def run(steps: int) -> None:
        step = env.step
        for i in range(steps):
            step(actions[i & 255])

    return run, env.close


def time_window(run, seconds: float) -> tuple[int, float]:
    steps = 64
    while True:
        start = time.perf_counter()
        run(steps)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed
        # Aim just past the window length, growing at most 16x per try.
        steps = int(steps * min(16.0, 1.1 * seconds / max(elapsed, 1e-9))) + 1


def measure(num_envs: int, kinds: list[str], rounds: int, seconds: float) -> dict[str, list]:
    runners = {kind: make_runner(kind, num_envs) for kind in kinds}
    for run, _ in runners.values():
        run(2000)  # warm-up
    results: dict[str, list[tuple[int, float]]] = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind, (run, _) in runners.items():
            results[kind].append(time_window(run, seconds))
    for _, close in runners.values():
        close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    kinds = ["envfleet", "envpool", "gymnasium"]
    try:
        import envpool  # noqa: F401
    except ImportError:
        kinds.remove("envpool")
        print("envpool is not installed (pip install 'envfleet[bench]'): shown without it")

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    print(f"{cpu}, {os.cpu_count()} cores; median [min-max] of {args.rounds} interleaved rounds")

    one = measure(1, kinds, args.rounds, args.seconds)
    print_table(
        "CartPole-v1, num_envs=1, step() (Gymnasium front end): microseconds per step",
        {k: [t / s * 1e6 for s, t in v] for k, v in one.items()},
        (8, ".2f"),
        "envfleet takes {:.3f}x its time",
    )
    many = measure(64, kinds, args.rounds, args.seconds)
    print_table(
        "CartPole-v1, num_envs=64, sync step(): env steps per second",
        {k: [s * 64 / t for s, t in v] for k, v in many.items()},
        (12, ",.0f"),
        "envfleet is {:.1f}x",
    )


def print_table(title: str, values: dict, fmt: tuple[int, str], ratio: str) -> None:
    """Each kind's median [min-max] of ``values[kind]`` (width and format ``fmt``), and beside
    the others ``ratio`` formatted with envfleet's median over theirs."""
    width, spec = fmt
    print(f"\n{title}")
    ours = statistics.median(values["envfleet"])
    for kind, xs in values.items():
        mid = statistics.median(xs)
        note = "   " + ratio.format(ours / mid) if kind != "envfleet" else ""
        print(f"  {kind:<10} {mid:{width}{spec}} [{min(xs):{spec}}-{max(xs):{spec}}]{note}")


if __name__ == "__main__":
    main()
