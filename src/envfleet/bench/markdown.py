"""``python -m envfleet.bench.markdown OUT_DIR...``: runs' tables as benchmarks/RESULTS.md has them.

Each ``OUT_DIR`` holds a ``results.json`` written by ``python -m envfleet.bench``. For each,
this prints a heading with the task and its limit (one env, one thread), then a table with
one row per executor and thread count and one column per batch: steps/s (the median of the
run's windows), and for envfleet's cells, in brackets, envfleet over the *best peer* of that
cell. Under it: the lowest of those ratios per envfleet mode and thread count, and envfleet's
best cell against the limit of every core.

The best peer of an envfleet cell (mode, batch, threads) is the fastest cell of any other
executor at the same batch, where

- a library with cells in the envfleet cell's mode (EnvPool: sync and async) counts with
  those only, one without (procgen's own vectorized env, Gymnasium, the Python loop: sync
  only) with the cells it has;
- a pool with a thread option counts at the same thread count, except the executors named in
  ``--best-threads`` (by default those of procgen's own interface, ``procgen-gym3*``): they count
  at whichever thread count was fastest at that batch, every count the run measured.

Only ratios within one run mean much on a shared machine: the run's cells were interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from envfleet.bench.report import _rate

DEFAULT_BEST_THREADS = ("procgen-gym3", "procgen-gym3-serial")


def _threads(row: dict[str, Any]) -> str:
    return "-" if row["num_threads"] is None else str(row["num_threads"])


def best_peer(
    row: dict[str, Any], rows: list[dict[str, Any]], best_threads: tuple[str, ...]
) -> dict[str, Any] | None:
    """The fastest peer cell that envfleet's cell ``row`` is set against (see the module doc)."""
    peers = [r for r in rows if not r["executor"].startswith("envfleet")]
    peers = [r for r in peers if r["batch_size"] == row["batch_size"]]
    libraries: dict[str, set[str]] = {}
    for r in peers:
        libraries.setdefault(_library(r), set()).add(r["mode"])
    found = []
    for r in peers:
        if row["mode"] in libraries[_library(r)] and r["mode"] != row["mode"]:
            continue  # the library has this mode: only those cells count
        same_threads = r["num_threads"] is None or r["num_threads"] == row["num_threads"]
        if same_threads or r["executor"] in best_threads:
            found.append(r)
    return max(found, key=lambda r: r["median"], default=None)


def _library(row: dict[str, Any]) -> str:
    from envfleet.bench.executors import EXECUTORS

    return EXECUTORS[row["executor"]].library


def task_table(doc: dict[str, Any], best_threads: tuple[str, ...] = DEFAULT_BEST_THREADS) -> str:
    """One run's heading, table and ratio lines (see the module doc)."""
    config, rows = doc["config"], doc["summary"]
    task = config["task"]
    limit = (doc.get("limits") or {}).get(task) or doc.get("limit")
    batches = sorted({r["batch_size"] for r in rows})
    heading = f"#### {task}"
    if limit:
        heading += f" (limit {_rate(limit['steps_per_s_per_thread'])} steps/s per thread)"
    lines = [heading, ""]
    lines.append("| executor | threads | " + " | ".join(f"b={b}" for b in batches) + " |")
    lines.append("|---|---|" + "---|" * len(batches))
    order = {label: i for i, label in enumerate(dict.fromkeys(r["label"] for r in rows))}
    keys = sorted(
        {(r["label"], r["num_threads"]) for r in rows},
        key=lambda k: (order[k[0]], -1 if k[1] is None else k[1]),
    )
    ratios: dict[tuple[str, str], list[float]] = {}
    for label, threads in keys:
        cells = []
        for b in batches:
            row = next(
                (
                    r
                    for r in rows
                    if r["label"] == label and r["num_threads"] == threads and r["batch_size"] == b
                ),
                None,
            )
            if row is None:
                cells.append("-")
                continue
            text = _rate(row["median"])
            if row["executor"].startswith("envfleet") and row["task"] == task:
                peer = best_peer(row, rows, best_threads)
                if peer is not None:
                    ratio = row["median"] / peer["median"]
                    ratios.setdefault((row["mode"], _threads(row)), []).append(ratio)
                    text += f" ({ratio:.2f}x {_short(peer)})"
            cells.append(text)
        shown = "-" if threads is None else str(threads)
        lines.append(f"| {label} | {shown} | " + " | ".join(cells) + " |")
    lines.append("")
    for (mode, threads), values in sorted(ratios.items()):
        lines.append(
            f"- envfleet {mode}, {threads} thread{'s' if threads != '1' else ''}: "
            f"{min(values):.2f}x-{max(values):.2f}x the best peer"
        )
    ours = [r for r in rows if r["executor"].startswith("envfleet") and r["task"] == task]
    if ours and limit:
        top = max(ours, key=lambda r: r["median"])
        cores = config["cores"]
        fraction = top["median"] / (limit["steps_per_s_per_thread"] * cores)
        lines.append(
            f"- envfleet's best cell: {top['label']} b={top['batch_size']} t={_threads(top)}, "
            f"{_rate(top['median'])} = {fraction:.1%} of the {cores}-core limit"
        )
    return "\n".join(lines)


def _short(peer: dict[str, Any]) -> str:
    """The best peer, briefly: its executor and, for a pool with threads, the count."""
    name = peer["label"].replace("procgen-gym3-serial", "procgen-gym3 t=0")
    if peer["num_threads"] is not None:
        name += f" t={peer['num_threads']}"
    return f"vs {name}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envfleet.bench.markdown", description=__doc__)
    parser.add_argument("out_dirs", nargs="+", help="folders holding a results.json")
    parser.add_argument(
        "--best-threads",
        default=",".join(DEFAULT_BEST_THREADS),
        help="executors whose fastest thread count counts against every envfleet cell "
        f"[{','.join(DEFAULT_BEST_THREADS)}]",
    )
    args = parser.parse_args(argv)
    best_threads = tuple(n.strip() for n in args.best_threads.split(",") if n.strip())
    parts = []
    for folder in args.out_dirs:
        with open(os.path.join(folder, "results.json")) as f:
            parts.append(task_table(json.load(f), best_threads))
    print("\n\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
