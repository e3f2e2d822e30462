"""The grid: which (executor, batch size, pool size, threads) cells a run measures.

The grid has two axes: ``batch`` (environment steps per call, the rows a learner gets back,
``--num-envs``) and ``threads`` (``--num-threads``). Each executor maps a grid point onto its
own configuration:

- ``*-sync`` pools: ``num_envs = batch_size = batch``, ``num_threads = threads``;
- ``*-async`` pools: ``batch_size = batch``, ``num_envs = async_factor * batch`` (2 or 3, so
  that a batch is ready while the previous one is being used), ``num_threads = threads``;
- Gymnasium and the Python loop have no thread option: they appear once per ``batch``
  (Gymnasium's async vector env uses one worker process per env instead);
- a peer whose best thread count is to be found (``ExecutorInfo.thread_sweep``: procgen's
  ``procgen-gym3``) also gets 2 and 4 threads per core.

An executor may also run another envfleet task than the run's (``--executors
envfleet-sync@CartPole-v1``: the C++ CartPole beside a Python-written one); its cells carry that
task and are labelled ``executor@task``.

A pool never gets more threads than envs (the extra threads could only idle), so grid points
that collapse to the same configuration are measured once. The *limit* of a cell is the raw
single-thread C++ rate times ``usable_cores``: the number of envs the cell can step at once,
``min(threads or workers, num_envs, cores)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from envfleet.bench.executors import EXECUTORS


@dataclass(frozen=True)
class Cell:
    """One configuration of one executor; measured in ``rounds`` fresh processes."""

    executor: str
    task: str  # the envfleet task whose work the cell does (its limit is that task's)
    label: str  # the executor's name in tables: ``executor``, or ``executor@task``
    mode: str
    batch_size: int
    num_envs: int
    num_threads: int | None  # the pool's num_threads option; None where there is none
    usable_cores: int  # how many envs the cell can step at once: the limit's multiplier

    @property
    def key(self) -> str:
        threads = "-" if self.num_threads is None else str(self.num_threads)
        return f"{self.label} b={self.batch_size} n={self.num_envs} t={threads}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_executor(text: str, run_task: str) -> tuple[str, str, str]:
    """``"name"`` or ``"name@task"`` -> (name, task, label); raises ValueError if unknown."""
    name, _, task = text.strip().partition("@")
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; choose from {', '.join(EXECUTORS)}")
    task = task.strip() or run_task
    return name, task, name if task == run_task else f"{name}@{task}"


def make_cells(
    executors: list[str],
    run_task: str,
    batches: list[int],
    threads: list[int],
    cores: int,
    async_factor: int = 2,
    gymnasium_async_max_envs: int = 64,
) -> tuple[list[Cell], list[str]]:
    """The cells of the grid, in a stable order, and notes on cells left out.

    ``executors`` holds names or ``name@task`` (see :func:`parse_executor`). Cells are ordered
    by batch, then threads, then executor (in ``executors`` order), which is the order the
    runner interleaves them in.
    """
    cells: list[Cell] = []
    notes: list[str] = []
    seen: set[Cell] = set()
    sweep = {2 * cores, 4 * cores}
    swept = any(EXECUTORS[parse_executor(t, run_task)[0]].thread_sweep for t in executors)
    for batch in sorted(set(batches)):
        for t in sorted(set(threads) | (sweep if swept else set())):
            for text in executors:
                name, task, label = parse_executor(text, run_task)
                info = EXECUTORS[name]
                if t not in threads and not info.thread_sweep:
                    continue
                num_envs = batch * async_factor if info.mode == "async" else batch
                if info.threaded and min(t, num_envs) < info.min_threads:
                    note = f"{name} skipped below {info.min_threads} threads (its async mode)"
                    if note not in notes:
                        notes.append(note)
                    continue
                if info.threaded:
                    num_threads: int | None = min(t, num_envs)
                    usable = min(num_threads, num_envs, cores)
                elif name == "gymnasium-async":
                    if num_envs > gymnasium_async_max_envs:
                        note = (
                            f"gymnasium-async skipped for num_envs > {gymnasium_async_max_envs} "
                            "(one process per env; --gymnasium-async-max-envs)"
                        )
                        if note not in notes:
                            notes.append(note)
                        continue
                    num_threads, usable = None, min(num_envs, cores)
                else:
                    num_threads, usable = None, 1
                cell = Cell(name, task, label, info.mode, batch, num_envs, num_threads, usable)
                if cell not in seen:
                    seen.add(cell)
                    cells.append(cell)
    return cells, notes


def default_batches(quick: bool, tiny: bool = False) -> list[int]:
    """``--num-envs`` default: 1 to 256 by 4x; the quick grid keeps the ends and the middle.

    ``tiny``: a task whose step costs tens of nanoseconds (the engine-free families of
    ``envfleet._core``: classic control, toy text, Python-written envs), whose users run
    thousands of envs per pool: the grid goes on to 4096 (the quick one to 2048), where the
    pool's own per-env work, not the per-call overhead, decides the rate.
    """
    if tiny:
        return [1, 16, 256, 2048] if quick else [1, 4, 16, 64, 256, 1024, 4096]
    return [1, 16, 256] if quick else [1, 4, 16, 64, 256]


def default_threads(cores: int, quick: bool) -> list[int]:
    """``--num-threads`` default: one thread and every core (only every core when quick)."""
    return [cores] if quick else sorted({1, cores})
