"""``python -m envfleet.bench``: envfleet side by side with EnvPool, Gymnasium and a Python loop.

Every executor does the same work (same task, same pre-generated action stream, env steps
counted as batch rows) in a fresh process per measurement, and every rate is set against the
physical limit: one env stepped in a bare C++ loop, times the cores a cell can use.

Modules: :mod:`~envfleet.bench.executors` (the contestants), :mod:`~envfleet.bench.plan`
(the grid of cells), :mod:`~envfleet.bench._cell` (what runs inside each fresh process),
:mod:`~envfleet.bench.runner` (schedules the processes, round-robin over executors),
:mod:`~envfleet.bench.report` (statistics, the table, JSON / CSV / PNG),
:mod:`~envfleet.bench.progress` (the progress bar), :mod:`~envfleet.bench.procgen_gym3_cell`
(the peers that run under procgen's own venv) and :mod:`~envfleet.bench.markdown` (runs'
tables as benchmarks/RESULTS.md has them). The method is described in
``benchmarks/README.md``.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The console entry point (see :func:`envfleet.bench.__main__.main`)."""
    from envfleet.bench.__main__ import main as _main

    return _main(argv)
