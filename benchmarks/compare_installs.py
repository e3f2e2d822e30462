"""Before/after: the same envfleet workloads under two Python environments, interleaved.

A refactor that must not slow anything down (a new layout, a new build) is checked by
installing the old and the new tree into two venvs and running this with each venv's python:

    python benchmarks/compare_installs.py --before /path/old/bin/python \\
        --after /path/new/bin/python --rounds 7

Each cell (task, num_envs, batch_size, num_threads) runs in a fresh process of one venv, then
of the other, alternating which goes first, ``--rounds`` times; a process warms up, then times
``--windows`` windows of ``--window`` seconds of ``step`` calls with random valid actions and
reports the median steps/s. The table gives the median over rounds for each side and the
after/before ratio with its min-max over rounds (each round's ratio pairs neighbouring runs, so
slow drifts of the machine cancel). Nothing else should run on the machine meanwhile.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

# (task, num_envs, batch_size, num_threads)
CELLS = [
    ("CartPole-v1", 1, 1, 1),
    ("CartPole-v1", 16, 16, 2),
    ("CartPole-v1", 256, 256, 2),
    ("CartPole-v1", 512, 256, 2),
    ("CartPole-v1", 2048, 2048, 1),
    ("CartPole-v1", 2048, 2048, 2),
    ("CartPole-v1", 4096, 2048, 2),
    ("Pong-v5", 8, 8, 1),
    ("Pong-v5", 16, 16, 2),
    ("Pong-v5", 32, 16, 2),
    ("Ant-v5", 16, 16, 2),
    ("Ant-v5", 64, 32, 2),
    ("Ant-v5", 128, 64, 2),
]
# MuJoCo pixels (--pixels): from_pixels pools, whose steps are mostly rendering (llvmpipe here).
PIXEL_CELLS = [
    ("HalfCheetah-v5", 4, 4, 2, {"from_pixels": True}),
    ("HalfCheetah-v5", 4, 4, 2, {"from_pixels": True, "render_fast": True}),
    ("CheetahRun-v1", 4, 4, 2, {"from_pixels": True}),
]

CELL_CODE = """
import json, sys, time
import numpy as np
import envfleet
task, num_envs, batch, threads, options, windows, window = json.loads(sys.argv[1])
env = envfleet.make(task, num_envs=num_envs, batch_size=batch, num_threads=threads, seed=0,
                    **options)
space = env.single_action_space
rng = np.random.default_rng(0)
actions = [np.stack([space.sample() for _ in range(batch)]) for _ in range(64)]
env.async_reset()
obs, rew, term, trunc, info = env.recv()
def run(calls):
    global info
    for i in range(calls):
        env.send(actions[i % 64], info["env_id"])
        _, _, _, _, info = env.recv()
calls = 8
while True:  # warm-up: grow until one run takes a quarter window
    start = time.perf_counter(); run(calls); spent = time.perf_counter() - start
    if spent > window / 4:
        break
    calls *= 2
calls = max(1, int(calls * window / spent))
rates = []
for _ in range(windows):
    start = time.perf_counter(); run(calls); spent = time.perf_counter() - start
    rates.append(calls * batch / spent)
env.close()
print(json.dumps(sorted(rates)[len(rates) // 2]))
"""


def _options(cell: tuple) -> dict:
    return cell[4] if len(cell) > 4 else {}


def _label(cell: tuple) -> str:
    flags = "+".join(k for k, v in _options(cell).items() if v is True)
    return cell[0] + (f" {flags}" if flags else "")


def measure(python: str, cell: tuple, windows: int, window: float) -> float:
    out = subprocess.run(
        [python, "-c", CELL_CODE, json.dumps([*cell[:4], _options(cell), windows, window])],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # never import envfleet from a source tree by accident
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="python of the venv with the old tree")
    parser.add_argument("--after", required=True, help="python of the venv with the new tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--window", type=float, default=0.3)
    parser.add_argument("--tasks", nargs="*", help="only these task ids")
    parser.add_argument(
        "--pixels", action="store_true", help="the MuJoCo from_pixels cells instead"
    )
    args = parser.parse_args()
    grid = PIXEL_CELLS if args.pixels else CELLS
    cells = [c for c in grid if not args.tasks or c[0] in args.tasks]
    width = max(13, *(len(_label(c)) + 1 for c in cells))
    print(
        f"{'task':<{width}}{'envs':>6}{'batch':>6}{'thr':>4}{'before':>12}{'after':>12}"
        "  after/before"
    )
    for cell in cells:
        before, after, ratios = [], [], []
        for r in range(args.rounds):
            order = [("before", args.before), ("after", args.after)]
            if r % 2:
                order.reverse()
            got = {name: measure(py, cell, args.windows, args.window) for name, py in order}
            before.append(got["before"])
            after.append(got["after"])
            ratios.append(got["after"] / got["before"])
        b, a = statistics.median(before), statistics.median(after)
        print(
            f"{_label(cell):<{width}}{cell[1]:>6}{cell[2]:>6}{cell[3]:>4}{b:>12,.0f}{a:>12,.0f}"
            f"  {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f})",
            flush=True,
        )
    print(f"rounds={args.rounds} windows={args.windows} window={args.window}s", file=sys.stderr)


if __name__ == "__main__":
    main()
