"""``python -m envfleet.bench``: the side-by-side benchmark's command line.

    python -m envfleet.bench --quick                 # a short grid, about 2-3 minutes
    python -m envfleet.bench --task Pendulum-v1      # the full grid (about 10 minutes on 2 cores)
    python -m envfleet.bench --num-envs 16 64 --num-threads 2 --executors envfleet-sync,envpool-sync
    python -m envfleet.bench --task Pong-v5 --num-envs 16 32 --num-threads 2   # + AtariVectorEnv
    python -m envfleet.bench --import examples/cartpole.py --task PyCartPole-v1 \
        --reference-task CartPole-v1 \
        --executors envfleet-sync,envfleet-sync@CartPole-v1,gymnasium-sync

Writes ``results.json``, ``windows.csv``, ``summary.csv``, ``table.txt`` and
``steps_per_s.png`` to ``--out`` (default ``bench-out/``) and prints the table.
``benchmarks/README.md`` describes the method.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from envfleet.bench.executors import EXECUTORS
from envfleet.bench.plan import default_batches, default_threads, parse_executor
from envfleet.bench.runner import BenchConfig, CellError, run

# Full-run timing defaults, and the quick run's (which must finish in ~2-3 min on 2 cores).
_FULL = {"rounds": 3, "windows": 5, "window_s": 0.5, "warmup_s": 0.5}
_QUICK = {"rounds": 3, "windows": 3, "window_s": 0.2, "warmup_s": 0.2}


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def _flatten(groups: list[list[int]] | None) -> list[int] | None:
    return None if groups is None else [v for group in groups for v in group]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m envfleet.bench",
        description="envfleet side by side with EnvPool, Gymnasium and a Python loop, against "
        "the physical limit (one env in a bare C++ loop x usable cores).",
    )
    parser.add_argument("--task", default="CartPole-v1", help="any envfleet.list_all_envs() id")
    parser.add_argument(
        "--num-envs",
        type=_int_list,
        nargs="+",
        help="batch sizes: env steps per call (sync: num_envs; async: batch_size) "
        "[1 4 16 64 256; quick: 1 16 256]",
    )
    parser.add_argument(
        "--num-threads", type=_int_list, nargs="+", help="pool threads [1 and cores; quick: cores]"
    )
    parser.add_argument(
        "--executors",
        default=None,
        help=f"comma-separated, from {', '.join(EXECUTORS)} [all that can run the task]; "
        "NAME@TASK runs another envfleet task beside the main one",
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE_OR_FILE",
        help="import this module or .py file in every process first (it registers "
        "Python-written envs); repeatable",
    )
    parser.add_argument(
        "--reference-task",
        help="the id EnvPool and Gymnasium run where they lack --task (e.g. CartPole-v1 for "
        "a Python-written CartPole)",
    )
    parser.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an env option every executor's envs get, e.g. from_pixels=true (pixel "
        "observations, 84x84 unless render_width/render_height say otherwise); repeatable",
    )
    parser.add_argument(
        "--async-factor", type=int, default=2, help="async pools hold this many x batch_size envs"
    )
    parser.add_argument("--quick", action="store_true", help="a short grid (~2-3 min on 2 cores)")
    parser.add_argument("--rounds", type=int, help="fresh processes per cell, interleaved [3]")
    parser.add_argument("--windows", type=int, help="timed windows per process [5; 3]")
    parser.add_argument("--window", type=float, help="seconds per window [0.5; 0.2]")
    parser.add_argument("--warmup", type=float, help="warm-up seconds per process [0.5; 0.2]")
    parser.add_argument(
        "--extras",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure memory per env and make() time (envfleet vs envpool) [on]",
    )
    parser.add_argument(
        "--rss-envs",
        type=int,
        nargs=2,
        default=[1024, 8192],
        metavar=("SMALL", "LARGE"),
        help="memory per env = RSS growth difference of these two pool sizes / their "
        "difference [1024 8192]",
    )
    parser.add_argument("--startup-envs", type=int, default=64, help="pool size for make() time")
    parser.add_argument(
        "--gymnasium-async-max-envs",
        type=int,
        default=64,
        help="skip gymnasium-async above this many envs (it forks one process per env)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the actions and the envs")
    parser.add_argument("--out", default="bench-out", help="output directory [bench-out]")
    parser.add_argument("--no-plot", action="store_true", help="do not draw the PNG")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return parser.parse_args(argv)


def default_executors(task: str, quick: bool = False) -> list[str]:
    """Every executor, but AtariVectorEnv only for Atari tasks, dm_control's loop only for
    dm_control tasks, procgen's own (procgen-gym3*) only for Procgen tasks (they run nothing
    else), gymnax only for CartPole-v1, the JAX loops
    (``*-xla*``) only when named, and with ``quick`` not the peers that fork workers or
    compile in every cell (PufferLib, gymnax): the quick grid stays a couple of minutes."""
    from envfleet.bench.tasks import atari_options, dm_control_task, procgen_task

    only_for = {
        "ale_py": atari_options(task) is not None,
        "dm_control": dm_control_task(task) is not None,
        "gymnax": task == "CartPole-v1",
        "procgen": procgen_task(task),
    }
    return [
        name
        for name, info in EXECUTORS.items()
        if only_for.get(info.library, True) and not info.xla and (info.quick or not quick)
    ]


def parse_options(texts: list[str]) -> dict[str, Any]:
    """``["from_pixels=true", "render_width=64"]`` -> ``{"from_pixels": True, ...}``: each
    value is read as JSON (true, 3, 0.5, "x"), else kept as a string."""
    options = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--option takes NAME=VALUE, got {text!r}")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value
    return options


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    """The run's configuration; raises ValueError naming a bad task or executor."""
    import envfleet
    from envfleet.bench._cell import import_all

    try:
        import_all(args.imports)
    except Exception as exc:
        raise ValueError(f"--import failed: {type(exc).__name__}: {exc}") from None
    known = envfleet.list_all_envs()
    if args.task not in known:
        raise ValueError(f"unknown task {args.task!r}; choose from {', '.join(known)}")
    if args.executors is None:
        executors = default_executors(args.task, args.quick)
    else:
        executors = [e.strip() for e in args.executors.split(",") if e.strip()]
    if not executors:
        raise ValueError(f"no executors; choose from {', '.join(EXECUTORS)}")
    for text in executors:
        _, task, _ = parse_executor(text, args.task)  # raises on an unknown name
        if task not in known:
            raise ValueError(f"unknown task {task!r} in --executors {text!r}")
    options = parse_options(args.options)
    try:
        envfleet.make_spec(args.task, **options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"--option: {exc}") from None
    if len(set(args.rss_envs)) != 2 or min(args.rss_envs) < 1:
        raise ValueError("--rss-envs takes two different positive pool sizes")
    if args.async_factor < 2:
        raise ValueError("--async-factor must be at least 2 (an async pool needs spare envs)")
    timing = dict(_QUICK if args.quick else _FULL)
    for key, value in (
        ("rounds", args.rounds),
        ("windows", args.windows),
        ("window_s", args.window),
        ("warmup_s", args.warmup),
    ):
        if value is not None:
            if value <= 0:
                raise ValueError(f"--{key.removesuffix('_s')} must be positive")
            timing[key] = value
    config = BenchConfig(
        task=args.task,
        executors=executors,
        batches=[],
        threads=[],
        async_factor=args.async_factor,
        extras=args.extras,
        rss_envs=(min(args.rss_envs), max(args.rss_envs)),
        startup_envs=args.startup_envs,
        gymnasium_async_max_envs=args.gymnasium_async_max_envs,
        seed=args.seed,
        quick=args.quick,
        reference_task=args.reference_task,
        imports=args.imports,
        options=options,
        **timing,
    )
    config.batches = _flatten(args.num_envs) or default_batches(args.quick, _is_tiny(config.task))
    config.threads = _flatten(args.num_threads) or default_threads(config.cores, args.quick)
    return config


def _is_tiny(task: str) -> bool:
    """Whether ``task`` is stepped by the engine-free module ``envfleet._core`` (see
    :func:`default_batches`); False for a task this process does not know (one that --import
    registers in the cells gets the ordinary grid; the probe reports an unknown one)."""
    import envfleet
    from envfleet import _core

    try:
        return envfleet.make_spec(task).module is _core
    except Exception:
        return False


def main(argv: list[str] | None = None) -> int:
    """Runs the benchmark, writes the files, prints the table; 0 unless nothing was measured."""
    from envfleet.bench import report

    args = parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        results = run(config, show_progress=not args.no_progress)
    except CellError as exc:  # only the probe is fatal: without it nothing can be planned
        print(f"error: could not probe the task and libraries: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # during the probe; later, the runner keeps partial results
        return 130
    written = report.write(results, args.out, make_plot=not args.no_plot)
    print(written["table"])
    print(f"\nwrote {', '.join(written['paths'].values())}")
    print(f"total {time.monotonic() - started:.0f} s")
    return 0 if written["summary"] else 1


if __name__ == "__main__":
    sys.exit(main())
