"""The many-core table of issue #37: envfleet and EnvPool 1.2.5 side by side at 1, 2, 4, ...
threads, against the limit, in one run.

    python benchmarks/scaling.py                      # the issue's tasks, threads up to nproc
    python benchmarks/scaling.py --threads 1 2 --heavy Pong-v5 --tiny-envs 4096

Heavy tasks (Pong-v5, Breakout-v5, Ant-v5, HalfCheetah-v5 by default) run in the issue's
shapes: at t threads, sync pools hold num_envs = 4t, async pools batch_size = 4t and
num_envs = 8t. The tiny task (CartPole-v1) runs sync at fixed pool sizes (4096 and 65536 envs)
over the same thread counts, where what matters is that adding threads never lowers the
rate, and what each CPU-second buys. Every cell is one `python -m envfleet.bench` run (fresh
processes, rounds interleaved, the limit measured in the same run: one env in a bare C++ loop,
times the usable cores), whose results.json stays under --out; the table goes to stdout and
to <out>/scaling.md. A last table sets what a user gets without tuning (num_threads left to
its default) against the best thread count for the same pool. The short windows keep the
default grid to a few minutes on 16 cores; --rounds/--windows/--window lengthen them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("Pong-v5", "Breakout-v5", "Ant-v5", "HalfCheetah-v5")
TINY = "CartPole-v1"
TINY_ENVS = (4096, 65536)


def default_threads() -> list[int]:
    cores = len(os.sched_getaffinity(0))
    threads = [t for t in (1, 2, 4, 8, 16, 32, 64) if t < cores]
    return threads + [cores]


def bench(args, out: Path, task: str, num_envs: int, threads: int, executors: str) -> list[dict]:
    """One bench run; its summary rows (one per executor)."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "envfleet.bench", "--task", task, "--num-envs", str(num_envs),
        "--num-threads", str(threads), "--executors", executors, "--rounds", str(args.rounds),
        "--windows", str(args.windows), "--window", str(args.window), "--warmup",
        str(args.window), "--no-extras", "--no-plot", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads((out / "results.json").read_text())["summary"]


def cell(rows: list[dict], executor: str) -> dict | None:
    return next((r for r in rows if r["executor"] == executor), None)


def rate(row: dict | None) -> str:
    if not row or not row.get("median"):
        return "-"
    value = row["median"]
    text = f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"
    parts = [text]
    if row.get("fraction_of_limit") is not None:
        parts.append(f"{row['fraction_of_limit']:.2f} of limit")
    if row.get("cores_busy") is not None:
        parts.append(f"busy {row['cores_busy']:.1f}")
    return f"{parts[0]} ({', '.join(parts[1:])})" if len(parts) > 1 else parts[0]


def ratio(ours: dict | None, theirs: dict | None) -> str:
    if not ours or not theirs or not ours.get("median") or not theirs.get("median"):
        return "-"
    return f"{ours['median'] / theirs['median']:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=default_threads())
    parser.add_argument("--heavy", nargs="*", default=list(HEAVY))
    parser.add_argument("--tiny-envs", type=int, nargs="*", default=list(TINY_ENVS))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--window", type=float, default=0.3)
    parser.add_argument("--out", type=Path, default=Path("bench-out/scaling"))
    parser.add_argument(
        "--defaults",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also compare the untuned default thread count with the best one",
    )
    args = parser.parse_args()

    lines = [
        f"# Scaling: envfleet vs EnvPool on {len(os.sched_getaffinity(0))} usable cores",
        "",
        "Heavy tasks: sync num_envs = 4 x threads; async batch_size = 4 x threads, num_envs ="
        " 2 x batch. Limit: one env in a bare C++ loop x usable cores, measured in each run.",
        "",
        "| task | threads | envfleet sync | EnvPool sync | sync ratio | envfleet async |"
        " EnvPool async | async ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    executors = "envfleet-sync,envfleet-async,envpool-sync,envpool-async"
    for task in args.heavy:
        for threads in args.threads:
            rows = bench(args, args.out / f"{task}-t{threads}", task, 4 * threads, threads,
                         executors)  # fmt: skip
            es, ps = cell(rows, "envfleet-sync"), cell(rows, "envpool-sync")
            ea, pa = cell(rows, "envfleet-async"), cell(rows, "envpool-async")
            lines.append(
                f"| {task} | {threads} | {rate(es)} | {rate(ps)} | {ratio(es, ps)} | {rate(ea)} |"
                f" {rate(pa)} | {ratio(ea, pa)} |"
            )
    if args.tiny_envs:
        lines += [
            "",
            f"{TINY}, sync, fixed pool sizes: per CPU is steps/s per busy core, of one thread's"
            " limit.",
            "",
            "| envs | threads | envfleet sync | per CPU | EnvPool sync | ratio |",
            "|---|---|---|---|---|---|",
        ]
        for envs in args.tiny_envs:
            for threads in args.threads:
                rows = bench(args, args.out / f"{TINY}-{envs}-t{threads}", TINY, envs, threads,
                             "envfleet-sync,envpool-sync")  # fmt: skip
                es, ps = cell(rows, "envfleet-sync"), cell(rows, "envpool-sync")
                per_cpu = es.get("per_cpu_of_limit") if es else None
                per_cpu_text = f"{per_cpu:.2f}" if per_cpu is not None else "-"
                lines.append(
                    f"| {envs} | {threads} | {rate(es)} | {per_cpu_text} | {rate(ps)} |"
                    f" {ratio(es, ps)} |"
                )
    if args.defaults:
        # A user who does not tune: make(task, num_envs=n) takes num_threads = min(n, cores).
        # Against the best thread count for the same pool, sync and async.
        cores = len(os.sched_getaffinity(0))
        lines += [
            "",
            f"Defaults: the pool a user gets without tuning (num_threads = min(batch, cores) ="
            f" {cores} here) against the best thread count for the same pool (sync num_envs ="
            f" async batch_size = 4 x cores = {4 * cores}).",
            "",
            "| task | mode | default | best (threads) | default / best |",
            "|---|---|---|---|---|",
        ]
        thread_list = sorted(set(args.threads) | {cores})
        for task in args.heavy + [TINY]:
            rows = []
            for threads in thread_list:
                rows += bench(args, args.out / f"defaults-{task}-t{threads}", task, 4 * cores,
                              threads, "envfleet-sync,envfleet-async")  # fmt: skip
            for executor in ("envfleet-sync", "envfleet-async"):
                mine = [r for r in rows if r["executor"] == executor and r.get("median")]
                if not mine:
                    continue
                best = max(mine, key=lambda r: r["median"])
                # make()'s default, min(batch_size, cores), is all the cores for these pools
                default = next((r for r in mine if r["num_threads"] == cores), None)
                lines.append(
                    f"| {task} | {executor.split('-')[1]} | {rate(default)} |"
                    f" {rate(best)} ({best['num_threads']}) | {ratio(default, best)} |"
                )
    table = "\n".join(lines) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scaling.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
