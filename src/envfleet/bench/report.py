"""Turns a run's windows into statistics, the terminal table, and the JSON / CSV / PNG files.

Per cell: the median of every window from every round (robust to the odd window that a
neighbour's job slowed down), the spread (min / max and the quartiles), the cores busy (CPU
seconds over wall seconds, worker processes included), the *limit* (the median raw C++ rate
of one env on one thread, times the cell's usable cores) and the fraction of it reached, and
ratios to EnvPool in the same mode and to Gymnasium's async vector env at the same batch.

Ratios are taken between medians of the same run, whose windows were interleaved, so they
are far steadier than the absolute rates on a shared machine.
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import statistics
from typing import Any

from envfleet.bench.executors import EXECUTORS
from envfleet.bench.runner import BenchResults

WINDOW_COLUMNS = [
    "kind", "label", "executor", "task", "mode", "batch_size", "num_envs", "num_threads",
    "usable_cores", "round", "window", "calls", "steps", "seconds", "steps_per_s", "cpu_s",
    "cores_busy", "loadavg1", "pid", "make_s", "workers", "compile_s", "plain_envs",
]  # fmt: skip
SUMMARY_COLUMNS = [
    "label", "executor", "task", "mode", "batch_size", "num_envs", "num_threads",
    "usable_cores", "windows", "median", "min", "max", "q1", "q3", "cores_busy", "limit",
    "fraction_of_limit", "per_cpu_of_limit", "vs_envpool", "vs_envpool_ref",
    "vs_gymnasium_async", "compile_s",
]  # fmt: skip
FILES = {
    "json": "results.json",
    "windows_csv": "windows.csv",
    "summary_csv": "summary.csv",
    "table": "table.txt",
    "plot": "steps_per_s.png",
}


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def physical_limit(results: BenchResults, task: str | None = None) -> dict[str, Any] | None:
    """The median raw single-thread rate (steps/s) of ``task`` (the run's by default)."""
    task = task or results.config.task
    rates = [
        w["steps_per_s"]
        for w in results.windows
        if w["kind"] == "raw" and w.get("task", results.config.task) == task
    ]
    if not rates:
        return None
    plain_envs = next(
        (
            w.get("plain_envs")
            for w in results.windows
            if w["kind"] == "raw" and w.get("task", results.config.task) == task
        ),
        None,
    )
    what = (
        f"Gymnasium's CartPole dynamics in a plain C loop over {plain_envs} envs writing batch "
        "arrays (cpp/bench/plain_cartpole.h; no envfleet code)"
        if plain_envs
        else "raw C++ loop, one env"
    )
    return {
        "task": task,
        "steps_per_s_per_thread": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "windows": len(rates),
        "plain_envs": plain_envs,
        "what": what,
    }


def physical_limits(results: BenchResults) -> dict[str, dict[str, Any]]:
    """:func:`physical_limit` of every task the run measured, the run's task first."""
    tasks = [results.config.task] + [c.task for c in results.cells]
    limits = {task: physical_limit(results, task) for task in dict.fromkeys(tasks)}
    return {task: limit for task, limit in limits.items() if limit}


def summarize(results: BenchResults) -> list[dict[str, Any]]:
    """One row per measured cell, in grid order, with statistics, limit and ratios."""
    limits = physical_limits(results)
    by_key: dict[str, list[dict[str, Any]]] = {}
    for w in results.windows:
        if w["kind"] == "throughput":
            by_key.setdefault(_key(w), []).append(w)
    rows = []
    for cell in results.cells:
        windows = by_key.get(cell.key)
        if not windows:
            continue
        rates = [w["steps_per_s"] for w in windows]
        q1, q3 = _quartiles(rates)
        median = statistics.median(rates)
        limit = limits.get(cell.task)
        cell_limit = limit["steps_per_s_per_thread"] * cell.usable_cores if limit else None
        busy = statistics.median(w["cores_busy"] for w in windows)
        # Steps per CPU second used (workers, caller and spinning included) against one
        # thread's limit: what the pool's own work costs, whatever the number of threads.
        per_cpu = median / busy / limit["steps_per_s_per_thread"] if limit and busy > 0 else None
        rows.append(
            {
                **cell.as_dict(),
                "windows": len(rates),
                "median": median,
                "min": min(rates),
                "max": max(rates),
                "q1": q1,
                "q3": q3,
                "cores_busy": busy,
                "limit": cell_limit,
                "fraction_of_limit": median / cell_limit if cell_limit else None,
                "per_cpu_of_limit": per_cpu,
                "compile_s": _median_compile_s(windows),
            }
        )
    _add_ratios(rows)
    return rows


def _median_compile_s(windows: list[dict[str, Any]]) -> float | None:
    """The median jit compilation time of a JAX peer's cell over its processes (one value per
    process, repeated on its windows), or None for executors that compile nothing."""
    per_process = {w["pid"]: w["compile_s"] for w in windows if w.get("compile_s") is not None}
    return statistics.median(per_process.values()) if per_process else None


def best_per_executor(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each executor's fastest cell (by median), in first-appearance order."""
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["label"] not in best or row["median"] > best[row["label"]]["median"]:
            best[row["label"]] = row
    return list(best.values())


def _key(w: dict[str, Any]) -> str:
    threads = "-" if w["num_threads"] is None else str(w["num_threads"])
    return f"{w['label']} b={w['batch_size']} n={w['num_envs']} t={threads}"


def _add_ratios(rows: list[dict[str, Any]]) -> None:
    """``vs_envpool``: against EnvPool in the same mode at the same batch and threads (the JAX
    loops against EnvPool's JAX loop).

    Executors without a thread option (Gymnasium, the Python loop) are set against the best
    configured EnvPool sync cell at their batch (the most threads); ``vs_envpool_ref`` names
    the cell each ratio used. ``vs_gymnasium_async``: against Gymnasium's async vector env at
    the same batch.
    """
    for row in rows:
        pool = f"envpool-{row['mode']}"
        if EXECUTORS[row["executor"]].xla:  # a JAX loop against EnvPool's JAX loop
            pool = "envpool-xla" if row["mode"] == "sync" else "envpool-xla-async"
        if row["num_threads"] is not None:
            refs = [
                r
                for r in rows
                if r["label"] == pool
                and r["batch_size"] == row["batch_size"]
                and r["num_threads"] == row["num_threads"]
            ]
        else:
            refs = sorted(
                (r for r in rows if r["label"] == pool and r["batch_size"] == row["batch_size"]),
                key=lambda r: r["num_threads"],
            )[-1:]
        ref = refs[0] if refs else None
        row["vs_envpool"] = row["median"] / ref["median"] if ref else None
        row["vs_envpool_ref"] = _key(ref) if ref else None
        gym = [
            r
            for r in rows
            if r["label"] == "gymnasium-async" and r["batch_size"] == row["batch_size"]
        ]
        row["vs_gymnasium_async"] = row["median"] / gym[0]["median"] if gym else None


def summarize_extras(results: BenchResults) -> dict[str, Any]:
    """Memory per env and ``make()`` time per library, medians over rounds.

    Memory per env is a slope: round by round, the RSS growth of the larger pool of
    ``rss_envs`` minus that of the smaller (each against its own post-import baseline, in its
    own process), over the difference in envs. The fixed costs (threads, buffers) cancel, and
    so does the free heap the imports leave behind, which a pool of 1 would not use up: a
    small pool's first allocations land in it without growing RSS, so "1024 envs vs 1"
    understates a light env (envfleet's CartPole showed 0.07 KiB/env that way, against about
    0.55 KiB/env as a slope between larger pools).
    """
    config = results.config
    out: dict[str, Any] = {}
    memory: dict[str, list[float]] = {}
    startup: dict[str, dict[str, list[float]]] = {}
    by_round: dict[tuple[str, int, int], int] = {}
    for record in results.extras:
        library = record["library"]
        if record["kind"] == "rss":
            growth = record["rss_after"] - record["rss_before"]
            by_round[(library, record["round"], record["num_envs"])] = growth
        else:
            times = startup.setdefault(library, {"make_s": [], "reset_s": []})
            times["make_s"].append(record["make_s"])
            times["reset_s"].append(record["reset_s"])
    small, large = config.rss_envs
    for (library, round_index, num_envs), growth in by_round.items():
        base = by_round.get((library, round_index, small))
        if num_envs == large and base is not None:
            memory.setdefault(library, []).append((growth - base) / (large - small))
    if memory:
        out["memory_per_env_bytes"] = {
            lib: {"median": statistics.median(v), "min": min(v), "max": max(v), "rounds": len(v)}
            for lib, v in memory.items()
        }
        out["memory_method"] = (
            f"(RSS growth of make+reset+4 steps at num_envs={large} minus that at "
            f"num_envs={small}) / {large - small}, a fresh process each"
        )
    if startup:
        out["startup_seconds"] = {
            lib: {k: statistics.median(v) for k, v in times.items()}
            | {"rounds": len(times["make_s"])}
            for lib, times in startup.items()
        }
        out["startup_num_envs"] = config.startup_envs
    return out


# ---- the table -----------------------------------------------------------------------------


def _rate(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:,.2f}M"
    if value >= 1e3:
        return f"{value / 1e3:,.1f}k"
    return f"{value:,.0f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}x" if value >= 10 else f"{value:.2f}x"


def _best_lines(task: str, rows: list[dict[str, Any]], width: int) -> list[str]:
    """Best against best: each executor's fastest cell, and envfleet's best over it."""
    best = best_per_executor(rows)
    ours = [r for r in best if r["executor"].startswith("envfleet") and r["task"] == task]
    if not best:
        return []
    top = max(ours, key=lambda r: r["median"]) if ours else None
    lines = ["", "best of each executor (its fastest cell; envfleet's best over it):"]
    for row in best:
        threads = "-" if row["num_threads"] is None else str(row["num_threads"])
        where = f"b={row['batch_size']} n={row['num_envs']} t={threads}"
        fraction = row["fraction_of_limit"]
        note = "-" if fraction is None else f"{fraction:.1%} of limit"
        if top is not None and row is not top:
            note = f"envfleet {_ratio(top['median'] / row['median'])}; {note}"
        lines.append(f"  {row['label']:<{width}}{_rate(row['median']):>10}  {where:<18}{note}")
    return lines


def format_table(results: BenchResults, rows: list[dict[str, Any]], extras: dict[str, Any]) -> str:
    """The terminal table: one block per batch size, then the limit, the extras and the notes."""
    config, meta = results.config, results.meta
    lines = []
    affinity = meta.get("affinity") or []
    cpu = meta.get("cpu_model") or "unknown CPU"
    lines.append(
        f"{config.task} on {cpu}: {config.cores} usable cores (affinity {affinity}, "
        f"os.cpu_count() {meta.get('cpu_count')})"
    )
    per_cell = config.rounds * config.windows
    lines.append(
        f"per cell: {config.rounds} rounds x {config.windows} windows of ~{config.window_s:g} s "
        f"(median of {per_cell}), a fresh process per round; spread = min/max vs the median"
    )
    if config.reference_task:
        lines.append(
            f"libraries without {config.task} run {config.reference_task} (--reference-task)"
        )
    if config.options:
        given = ", ".join(f"{k}={v!r}" for k, v in config.options.items())
        lines.append(f"every env made with {given} (--option)")
    for task, limit in physical_limits(results).items():
        name = "" if task == config.task else f" of {task}"
        lines.append(
            f"limit{name} = {_rate(limit['steps_per_s_per_thread'])} steps/s per thread "
            f"({limit['what']}; {_rate(limit['min'])}-{_rate(limit['max'])}) x usable cores"
        )
    width = max([16] + [len(row["label"]) + 1 for row in rows])
    header = (
        f"{'batch':>5}  {'executor':<{width}}{'envs':>5}{'thr':>4}{'steps/s':>10}{'spread':>13}"
        f"{'vs envpool':>11}{'vs gym-async':>13}{'of limit':>9}{'busy':>6}{'per CPU':>8}"
    )
    lines += ["", header, "-" * len(header)]
    batch = None
    for row in rows:
        if batch is not None and row["batch_size"] != batch:
            lines.append("")
        batch = row["batch_size"]
        med = row["median"]
        spread = f"-{(1 - row['min'] / med) * 100:.0f}%/+{(row['max'] / med - 1) * 100:.0f}%"
        threads = "-" if row["num_threads"] is None else str(row["num_threads"])
        fraction = row["fraction_of_limit"]
        lines.append(
            f"{row['batch_size']:>5}  {row['label']:<{width}}{row['num_envs']:>5}{threads:>4}"
            f"{_rate(med):>10}{spread:>13}{_ratio(row['vs_envpool']):>11}"
            f"{_ratio(row['vs_gymnasium_async']):>13}"
            f"{('-' if fraction is None else f'{fraction:.1%}'):>9}{row['cores_busy']:>6.2f}"
            f"{_percent(row['per_cpu_of_limit']):>8}"
        )
    lines += _best_lines(config.task, rows, width)
    lines.append("")
    lines += [
        f"batch: env steps per call (async: batch_size, the pool has {config.async_factor}x the "
        "envs); thr: num_threads (-: none;",
        "  gymnasium-async runs one process per env); busy: CPU s / wall s, workers included;",
        "  per CPU: steps/s / busy, of one thread's limit (the pool's own cost per CPU second);",
        "  vs envpool: same mode, batch and threads (Gymnasium and the loop: envpool-sync with the "
        "most threads;",
        "  the *-xla JAX loops: EnvPool's JAX loop)",
    ]
    compiled = [row for row in rows if row.get("compile_s") is not None]
    if compiled:
        parts = [
            f"{row['label']} b={row['batch_size']} {row['compile_s']:.2f} s" for row in compiled
        ]
        lines.append("")
        lines.append(
            "jit compile time (trace + lower + compile, before timing; median over processes): "
            + ", ".join(parts)
        )
    if extras.get("memory_per_env_bytes"):
        mem = extras["memory_per_env_bytes"]
        parts = [f"{lib} {v['median'] / 1024:,.2f} KiB" for lib, v in mem.items()]
        lines.append("")
        lines.append(
            f"memory per env (RSS growth, num_envs={config.rss_envs[1]} vs {config.rss_envs[0]}, "
            "median of "
            f"{max(v['rounds'] for v in mem.values())}): " + ", ".join(parts)
        )
    if extras.get("startup_seconds"):
        times = extras["startup_seconds"]
        parts = [
            f"{lib} {t['make_s'] * 1e3:,.1f} ms (first reset {t['reset_s'] * 1e3:,.2f} ms)"
            for lib, t in times.items()
        ]
        lines.append(
            f"make() with num_envs={config.startup_envs}, fresh process, median of "
            f"{max(t['rounds'] for t in times.values())}: " + ", ".join(parts)
        )
    if results.notes:
        lines.append("")
        lines += [f"note: {note}" for note in results.notes]
    return "\n".join(lines)


# ---- files ---------------------------------------------------------------------------------


def _write_csv(path: str, columns: list[str], records: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for record in records:
            writer.writerow({c: record.get(c) for c in columns})


def plot(results: BenchResults, rows: list[dict[str, Any]], path: str) -> str | None:
    """Steps/s against batch size per executor (log axes), with the limits; None if written.

    Returns a note instead when matplotlib is missing: it is an optional dependency.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "matplotlib is not installed: the plot was skipped (pip install matplotlib)"
    limit = physical_limit(results)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.get_cmap("tab10")
    names = list(dict.fromkeys(r["label"] for r in rows))
    grid_threads = sorted(set(results.config.threads))
    for name in names:
        mine = [r for r in rows if r["label"] == name]
        # One line per --num-threads value; a pool gets at most num_envs threads, so the
        # cell of a small batch may be shared by several lines.
        per_line: dict[int | None, list[dict[str, Any]]] = {None: mine}
        if mine[0]["num_threads"] is not None:
            per_line = {
                t: [r for r in mine if r["num_threads"] == min(t, r["num_envs"])]
                for t in grid_threads
            }
        for threads, members in per_line.items():
            if not members:
                continue
            members.sort(key=lambda r: r["batch_size"])
            x = [r["batch_size"] for r in members]
            y = [r["median"] for r in members]
            err = [
                [r["median"] - r["min"] for r in members],
                [r["max"] - r["median"] for r in members],
            ]
            dashed = threads is not None and threads < grid_threads[-1]
            label = name if threads is None else f"{name}, {threads} thr"
            ax.errorbar(
                x,
                y,
                yerr=err,
                label=label,
                color=colors(names.index(name) % 10),
                linestyle="--" if dashed else "-",
                marker="o",
                markersize=4,
                capsize=3,
            )
    if limit:
        per_thread = limit["steps_per_s_per_thread"]
        for cores, style in sorted({(1, ":"), (results.config.cores, "-.")}):
            kind = "plain C" if limit.get("plain_envs") else "raw C++"
            label = f"limit: {kind} x {cores} core{'s' if cores > 1 else ''}"
            ax.axhline(per_thread * cores, color="gray", linestyle=style, linewidth=1, label=label)
    ax.set_xscale("log", base=2)
    batches = sorted({r["batch_size"] for r in rows})
    ax.set_xticks(batches, [str(b) for b in batches])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_yscale("log")
    ax.set_xlabel("batch size (env steps per call; sync: num_envs)")
    ax.set_ylabel("env steps per second (median, min-max bars)")
    meta = results.meta
    ax.set_title(
        f"{results.config.task}, {results.config.cores} cores ({meta.get('cpu_model') or '?'}), "
        f"{datetime.date.today().isoformat()}"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write(results: BenchResults, out_dir: str, make_plot: bool = True) -> dict[str, Any]:
    """Writes every file into ``out_dir``; returns the summary, extras, table and paths."""
    os.makedirs(out_dir, exist_ok=True)
    rows = summarize(results)
    extras = summarize_extras(results)
    paths = {name: os.path.join(out_dir, file) for name, file in FILES.items()}
    if make_plot and rows:
        note = plot(results, rows, paths["plot"])
        if note:
            results.notes.append(note)
            paths.pop("plot")
    else:
        paths.pop("plot")
        results.notes.append("plot not written (--no-plot, or nothing was measured)")
    table = format_table(results, rows, extras)
    document = {
        **results.as_dict(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "limit": physical_limit(results),
        "limits": physical_limits(results),
        "summary": rows,
        "extras": {**extras, "records": results.extras},
        "windows": results.windows,
        "files": {name: os.path.basename(p) for name, p in paths.items()},
    }
    with open(paths["json"], "w") as f:
        json.dump(document, f, indent=1)
    _write_csv(paths["windows_csv"], WINDOW_COLUMNS, results.windows)
    _write_csv(paths["summary_csv"], SUMMARY_COLUMNS, rows)
    with open(paths["table"], "w") as f:
        f.write(table + "\n")
    return {"summary": rows, "extras": extras, "table": table, "paths": paths}
