"""End-to-end training throughput: the CleanRL-style PPO examples on envfleet, EnvPool and
Gymnasium's AsyncVectorEnv, interleaved in one run.

    python benchmarks/training_throughput.py --rounds 2

Each cell runs ``examples/ppo_cartpole_cleanrl.py`` or ``examples/ppo_atari_cleanrl.py`` in a
fresh process with ``--backend`` set and a fixed budget, and reads the training steps/s the
script reports (env steps, policy forward passes and PPO updates together; torch on one
thread, as the scripts set it). Backends alternate within each round, in a rotated order, so
slow drifts of the machine spread over all of them. The table gives each backend's median
steps/s over rounds and its ratio to envfleet's. Nothing else should run on the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BACKENDS = ["envfleet", "envpool", "gymnasium"]
# (label, script, budget in env steps): budgets long enough for a steady rate, short enough
# for a run of a few minutes per round.
SCRIPTS = [
    ("CartPole-v1 (MLP)", "ppo_cartpole_cleanrl.py", 49_152),
    ("RoadRunner-v5 (Nature CNN)", "ppo_atari_cleanrl.py", 8_192),
]
RATE = re.compile(r"(\d+) steps/s")


def run(script: str, backend: str, budget: int) -> float:
    result = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / script),
            "--backend",
            backend,
            "--total-timesteps",
            str(budget),
            *(["--quiet"] if "atari" in script else []),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
    )
    return float(RATE.findall(result.stdout)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    args = parser.parse_args()
    backends = args.backends.split(",")
    rates: dict[tuple[str, str], list[float]] = {}
    for round_index in range(args.rounds):
        for label, script, budget in SCRIPTS:
            shift = round_index % len(backends)
            for backend in backends[shift:] + backends[:shift]:
                rate = run(script, backend, budget)
                rates.setdefault((label, backend), []).append(rate)
                print(f"round {round_index + 1}  {label:<26} {backend:<10} {rate:8.0f} steps/s")
    print()
    print(
        "| task (policy) | "
        + " | ".join(backends)
        + " | "
        + " | ".join(f"{b} / envfleet" for b in backends if b != "envfleet")
        + " |"
    )
    print("|---" * (1 + 2 * len(backends) - 1) + "|")
    for label, _, _ in SCRIPTS:
        medians = {b: statistics.median(rates[(label, b)]) for b in backends}
        base = medians.get("envfleet")
        cells = [f"{medians[b]:,.0f}" for b in backends]
        ratios = [f"{medians[b] / base:.2f}" for b in backends if b != "envfleet" and base]
        print(f"| {label} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
