"""Runs the benchmark: one fresh process per measurement, repeats interleaved across executors.

The schedule is ``rounds`` passes over every cell of the grid. Each pass starts with a
measurement of the physical limit and then visits the cells in grid order (batch, threads,
executor), so executors compared with one another run back to back, and each cell's repeats
are spread across the whole run: drift on a shared machine (another job starting, thermal
throttling) hits every executor alike and shows up as spread instead of as a bias. The
extras (memory per env, ``make()`` time) follow, interleaved the same way.

The runner only schedules and collects; every number comes from :mod:`envfleet.bench._cell`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import envfleet
from envfleet.bench._cell import RESULT_MARKER, affinity
from envfleet.bench.executors import EXECUTORS
from envfleet.bench.plan import Cell, make_cells, parse_executor
from envfleet.bench.progress import Progress
from envfleet.bench.tasks import differences

# The columns of a physical-limit window, so that it sits in the same table as the cells.
_RAW_CELL = {
    "kind": "raw",
    "executor": "raw-limit",
    "mode": "raw",
    "batch_size": 1,
    "num_envs": 1,
    "num_threads": 1,
    "usable_cores": 1,
}
# The directory holding the imported envfleet package: children must import the same build.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(envfleet.__file__)))


@dataclass
class BenchConfig:
    """Everything that decides what a run measures (recorded verbatim in the JSON)."""

    task: str
    executors: list[str]  # names, or name@task to run another envfleet task (plan.py)
    batches: list[int]
    threads: list[int]
    async_factor: int = 2
    rounds: int = 3
    windows: int = 5
    window_s: float = 0.5
    warmup_s: float = 0.5
    extras: bool = True
    rss_envs: tuple[int, int] = (1024, 8192)  # memory per env: the slope between these sizes
    startup_envs: int = 64
    gymnasium_async_max_envs: int = 64
    seed: int = 0
    action_batches: int = 64
    cores: int = field(default_factory=lambda: len(affinity()))
    quick: bool = False
    # What other libraries run where they lack ``task`` (a Python-written env): see tasks.py.
    reference_task: str | None = None
    # Env options every executor's envs get (``--option``, e.g. from_pixels=True): see tasks.py.
    options: dict[str, Any] = field(default_factory=dict)
    # Modules or .py files every cell process imports first (they register Python envs).
    imports: list[str] = field(default_factory=list)

    def tasks(self) -> list[str]:
        """Every envfleet task the run measures: ``task`` first, then ``name@task`` ones."""
        found = [self.task]
        for text in self.executors:
            task = text.partition("@")[2].strip()
            if task and task not in found:
                found.append(task)
        return found


@dataclass
class BenchResults:
    """What a run produced: raw per-window records plus notes; :mod:`report` summarizes it."""

    config: BenchConfig
    meta: dict[str, Any] = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)
    windows: list[dict[str, Any]] = field(default_factory=list)  # every timed window
    extras: list[dict[str, Any]] = field(default_factory=list)  # rss / startup records
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": asdict(self.config),
            "meta": self.meta,
            "cells": [c.as_dict() for c in self.cells],
            "notes": self.notes,
            "seconds": self.seconds,
            "interrupted": self.interrupted,
        }


class CellError(RuntimeError):
    """A cell process failed, hung or printed no result; the message says which and why."""


def run_cell(args: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Runs one measurement in a fresh interpreter and returns its JSON result.

    The child gets its own session, so that on a timeout the whole process group (Gymnasium's
    async workers included) is killed, not only the interpreter we started.
    """
    env = dict(os.environ)
    # PYTHONPATH's entries come first, as in this process (where they precede the directory
    # envfleet came from); the package root after them, not before: it may be site-packages,
    # which must not shadow what PYTHONPATH puts ahead of it.
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [_PACKAGE_ROOT]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("PYTHONWARNINGS", "ignore")  # library warnings would only clutter stderr
    command = [sys.executable, "-m", "envfleet.bench._cell", json.dumps(args)]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except BaseException:  # a timeout, or Ctrl-C: take the child's process group down too
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.communicate()
        raise
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            result = json.loads(line[len(RESULT_MARKER) :])
            if "error" in result:
                raise CellError(result["error"])
            return result
    tail = (stderr.strip().splitlines() or ["(no output)"])[-1]
    raise CellError(f"exit code {proc.returncode}: {tail}")


def _job_timeout(config: BenchConfig) -> float:
    return 120.0 + 10.0 * (config.warmup_s + config.windows * config.window_s)


def run(config: BenchConfig, show_progress: bool = True) -> BenchResults:
    """Measures every cell ``config.rounds`` times, then the extras; never raises for a cell.

    A cell that fails or hangs becomes a note and the run goes on; Ctrl-C stops the run and
    returns what was measured so far (``interrupted`` is set). Only a failed probe (which
    says what can run at all) raises :class:`CellError`.
    """
    results = BenchResults(config)
    started = time.monotonic()
    timeout = _job_timeout(config)
    common = {
        "imports": config.imports,
        "reference_task": config.reference_task,
        "options": config.options,
    }
    try:
        probe_args = {"kind": "probe", "task": config.task, "executors": config.executors}
        probe = run_cell({**probe_args, **common}, 120)
    except subprocess.TimeoutExpired as exc:
        raise CellError(f"the probe hung: {exc}") from None
    unavailable = probe.pop("unavailable")
    results.meta = probe
    executors = []
    for name in config.executors:
        if unavailable.get(name):
            results.notes.append(f"{name} skipped: {unavailable[name]}")
        else:
            executors.append(name)
    libraries = {EXECUTORS[parse_executor(text, config.task)[0]].library for text in executors}
    results.notes += differences(config.task, libraries, config.options)
    cells, notes = make_cells(
        executors,
        config.task,
        config.batches,
        config.threads,
        config.cores,
        config.async_factor,
        config.gymnasium_async_max_envs,
    )
    results.cells = cells
    results.notes += notes
    extra_jobs = _extra_jobs(config, executors)
    limit_tasks = list(dict.fromkeys(cell.task for cell in cells)) or [config.task]
    progress = Progress(
        1 + config.rounds * (len(limit_tasks) + len(cells)) + len(extra_jobs),
        enabled=show_progress,
    )
    progress.advance("probe")
    failed: set[str] = set()
    timing = {
        **common,
        "seed": config.seed,
        "warmup_s": config.warmup_s,
        "window_s": config.window_s,
        "windows": config.windows,
    }
    try:
        for round_index in range(config.rounds):
            for task in limit_tasks:
                label = f"physical limit {task} (round {round_index + 1}/{config.rounds})"
                progress.show(label)
                try:
                    raw_args = {"kind": "raw", "task": task, "plain_envs": max(config.batches)}
                    out = run_cell({**raw_args, **timing}, timeout)
                    where = {**_RAW_CELL, "task": task, "round": round_index, "pid": out["pid"]}
                    where["plain_envs"] = out.get("plain_envs")
                    results.windows += [{**where, **w} for w in out["windows"]]
                except (CellError, subprocess.TimeoutExpired) as exc:
                    results.notes.append(f"{label} failed: {exc}")
                progress.advance(label)
            for cell in cells:
                label = f"{cell.key} (round {round_index + 1}/{config.rounds})"
                if cell.key in failed:
                    progress.advance(label)
                    continue
                progress.show(label)
                args = {
                    "kind": "throughput",
                    "executor": cell.executor,
                    "task": cell.task,
                    "num_envs": cell.num_envs,
                    "batch_size": cell.batch_size,
                    "num_threads": cell.num_threads,
                    "action_batches": config.action_batches,
                    **timing,
                }
                try:
                    out = run_cell(args, timeout)
                except (CellError, subprocess.TimeoutExpired) as exc:
                    failed.add(cell.key)  # a broken cell is not retried in later rounds
                    results.notes.append(f"{cell.key} failed: {exc}")
                else:
                    where = {"kind": "throughput", **cell.as_dict(), "round": round_index}
                    where.update(pid=out["pid"], make_s=out["make_s"], workers=out["workers"])
                    if "compile_s" in out:  # a JAX peer's one-off compilation (gymnax-jit)
                        where["compile_s"] = out["compile_s"]
                    results.windows += [{**where, **w} for w in out["windows"]]
                progress.advance(label)
        for label, args in extra_jobs:
            progress.show(label)
            try:
                out = run_cell(args, timeout)
                results.extras.append({**args, **out})
            except (CellError, subprocess.TimeoutExpired) as exc:
                results.notes.append(f"{label} failed: {exc}")
            progress.advance(label)
    except KeyboardInterrupt:
        results.interrupted = True
        results.notes.append("interrupted (Ctrl-C): the results cover what ran before it")
    progress.finish()
    results.seconds = time.monotonic() - started
    return results


def _extra_jobs(config: BenchConfig, executors: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The memory and start-up measurements: envfleet and EnvPool, alternating, in rounds.

    EnvPool takes part when an EnvPool executor survived the probe (it is importable and has
    the task). Memory per env compares pools of the two sizes ``rss_envs``, each in its own
    process, each against its own baseline taken after imports.
    """
    if not config.extras:
        return []
    libraries = ["envfleet"]
    if any(name.startswith("envpool") for name in executors):
        libraries.append("envpool")
    jobs = []

    def add(kind: str, library: str, num_envs: int, round_index: int) -> None:
        what = "memory" if kind == "rss" else "make()"
        label = f"{what}: {library} num_envs={num_envs} (round {round_index + 1})"
        args = {"kind": kind, "library": library, "task": config.task, "num_envs": num_envs}
        args.update(
            imports=config.imports, reference_task=config.reference_task, options=config.options
        )
        jobs.append((label, {**args, "num_threads": config.cores, "round": round_index}))

    for round_index in range(config.rounds):
        for library in libraries:
            for num_envs in config.rss_envs:
                add("rss", library, num_envs, round_index)
        for library in libraries:
            add("startup", library, config.startup_envs, round_index)
    return jobs
