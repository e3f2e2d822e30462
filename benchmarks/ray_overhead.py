"""The cost of envfleet.ray's path against a local pool (docs/integrations/ray.md).

For each task and batch size, times sync ``step()`` on a local pool of batch-size envs and
on ``make_distributed`` pools of the same size over 1 and 2 workers (Ray actors on this
machine, with 2 stepping threads in all, as the local pool has), async send/recv loops (twice
the envs, batches of the batch size) on a local pool and over 2 workers, and a bare Ray round
trip carrying the same bytes (an actor method that returns a preallocated batch): steps/s and
the median latency of one call. Usage:

    python benchmarks/ray_overhead.py [--tasks CartPole-v1 Pong-v5] [--batches 8 64 256]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import ray

import envfleet
from envfleet.ray import make_distributed


@ray.remote(num_cpus=1)
class Echo:
    """Returns a batch of the pool's size: Ray's own cost of moving it, without the envs."""

    def __init__(self, nbytes: int):
        self._batch = np.zeros(nbytes, dtype=np.uint8)

    def step(self, action: np.ndarray) -> np.ndarray:
        return self._batch


def time_calls(call, seconds: float) -> tuple[float, float, int]:
    """(calls/s, median latency in s, calls) of ``call()`` repeated for about ``seconds``."""
    call()  # warm up
    laps = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(laps) < 5:
        start = time.perf_counter()
        call()
        laps.append(time.perf_counter() - start)
    return len(laps) / sum(laps), float(np.median(laps)), len(laps)


def bench(task: str, batch: int, seconds: float) -> list[dict]:
    rows = []
    spec = envfleet.make_spec(task, num_envs=batch)
    space = spec.action_space
    actions = [np.asarray([space.sample() for _ in range(batch)]) for _ in range(16)]
    obs_bytes = sum(int(np.prod(k.shape)) * k.dtype.itemsize for k in spec.obs_keys)
    cases = [("local", None)] + [(f"ray x{w}", w) for w in (1, 2) if w <= batch]
    for name, workers in cases:
        if workers is None:
            env = envfleet.make(task, num_envs=batch, num_threads=min(batch, 2), seed=0)
        else:
            # The same two stepping threads as the local pool: 2 x 1 or 1 x 2.
            env = make_distributed(
                task, num_workers=workers, cpus_per_worker=2 // workers, num_envs=batch, seed=0
            )
        env.reset()
        i = iter(range(10**9))
        rate, latency, calls = time_calls(
            lambda env=env, i=i: env.step(actions[next(i) % 16]), seconds
        )
        env.close()
        rows.append(
            dict(
                task=task,
                batch=batch,
                path=name,
                steps_per_s=rate * batch,
                latency_ms=latency * 1e3,
                calls=calls,
            )
        )
    # Async: twice the envs, batches of `batch`; each recv'd batch is sent straight back.
    for name, workers in (("local async", None), ("ray x2 async", 2)):
        if workers is None:
            env = envfleet.make(task, num_envs=2 * batch, batch_size=batch, num_threads=2, seed=0)
        else:
            env = make_distributed(
                task,
                num_workers=workers,
                cpus_per_worker=2 // workers,
                num_envs=2 * batch,
                batch_size=batch,
                seed=0,
            )
        env.async_reset()

        def round_trip(env=env):
            info = env.recv()[-1]
            env.send(actions[0], info["env_id"])

        rate, latency, calls = time_calls(round_trip, seconds)
        env.close()
        rows.append(
            dict(
                task=task,
                batch=batch,
                path=name,
                steps_per_s=rate * batch,
                latency_ms=latency * 1e3,
                calls=calls,
            )
        )
    echo = Echo.remote(batch * obs_bytes)
    rate, latency, calls = time_calls(lambda: ray.get(echo.step.remote(actions[0])), seconds)
    ray.kill(echo)
    rows.append(
        dict(
            task=task,
            batch=batch,
            path="ray echo",
            steps_per_s=rate * batch,
            latency_ms=latency * 1e3,
            calls=calls,
            bytes_per_call=batch * obs_bytes,
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["CartPole-v1", "Pong-v5"])
    parser.add_argument("--batches", nargs="+", type=int, default=[8, 64, 256])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--json", help="write the rows here too")
    args = parser.parse_args()
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores")
    rows = []
    print(f"{'task':12} {'batch':>5}  {'path':13} {'steps/s':>10} {'latency ms':>10}")
    for task in args.tasks:
        for batch in args.batches:
            for row in bench(task, batch, args.seconds):
                rows.append(row)
                print(
                    f"{task:12} {batch:5}  {row['path']:13} {row['steps_per_s']:10.0f} "
                    f"{row['latency_ms']:10.3f}",
                    flush=True,
                )
    print(f"load average {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    ray.shutdown()


if __name__ == "__main__":
    main()
