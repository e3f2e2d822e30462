"""What runs inside each fresh benchmark process: ``python -m envfleet.bench._cell '<json>'``.

Every measurement gets a process of its own so that no executor inherits another's threads,
allocator state, warmed caches or forked workers, and a crash or hang costs one cell only.
The JSON argument names a ``kind``:

- ``probe``: which executors can run the task here, library versions, CPU model, affinity;
- ``raw``: the physical limit over several windows: for CartPole-v1, an independent plain-C
  loop over ``plain_envs`` envs (``_core.plain_cartpole_rate``); for other tasks
  ``raw_step_rate`` of the task's extension module (one env, one thread, a bare C++ loop);
- ``throughput``: build one executor, warm it up, then time ``windows`` windows of about
  ``window_s`` seconds each (the number of calls per window is fixed from the warm-up rate, so
  no clock is read inside a window);
- ``rss``: resident memory before and after making (resetting and stepping) a pool;
- ``startup``: seconds taken by ``make()`` and by the first reset.

Every kind first imports the run's ``imports`` (modules or ``.py`` files that register
Python-written envs), so that their tasks exist in each process. The result is printed as one
line, ``RESULT_MARKER`` followed by JSON, so that anything the
libraries print on stdout cannot be mistaken for it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

RESULT_MARKER = "ENVFLEET_BENCH_RESULT "
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def affinity() -> list[int]:
    """The CPUs this process may run on (all of them where the OS cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of this process (all threads) plus that of the worker processes ``pids``.

    Workers' times come from ``/proc/<pid>/stat`` in clock ticks (10 ms): coarse, but windows
    are long enough for it, and it is the only way to see a forked worker's work as it runs.
    """
    total = time.process_time()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        except (OSError, IndexError, ValueError):
            pass
    return total


def rss_bytes() -> tuple[int, str]:
    """Resident memory now, and how it was read (``statm``, or peak ``maxrss`` off Linux)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE"), "statm"
    except (OSError, ValueError, AttributeError):
        import resource

        scale = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale, "maxrss"


def time_windows(
    run: Callable[[int], int],
    warmup_s: float,
    window_s: float,
    windows: int,
    pids: list[int],
    min_calls: int = 16,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Warms ``run`` up for ``warmup_s``, then times ``windows`` windows of about ``window_s``.

    The warm-up doubles the number of calls until it has run ``warmup_s`` seconds in all and
    its last batch lasted long enough to give a rate; the calls per window follow from that
    rate, and are at least ``min_calls``: an async pool holds finished batches in reserve, so
    a window of a call or two (a warm-up slowed by a neighbour's job can suggest one) would
    time results that were ready before it began. Each window records steps, wall seconds,
    CPU seconds (so ``cores_busy`` = CPU/wall) and the 1-minute load average, which flags
    windows taken on a busy machine.
    """
    calls, spent, warm_steps = 1, 0.0, 0
    while True:
        start = time.perf_counter()
        warm_steps += run(calls)
        elapsed = time.perf_counter() - start
        spent += elapsed
        if spent >= warmup_s and elapsed >= min(warmup_s, window_s) / 8:
            break
        calls *= 2
    per_window = max(min_calls, round(calls / max(elapsed, 1e-9) * window_s))
    results = []
    for index in range(windows):
        load = _loadavg()
        cpu0 = cpu_seconds(pids)
        start = time.perf_counter()
        steps = run(per_window)
        seconds = time.perf_counter() - start
        cpu = cpu_seconds(pids) - cpu0
        results.append(
            {
                "window": index,
                "calls": per_window,
                "steps": steps,
                "seconds": seconds,
                "steps_per_s": steps / seconds,
                "cpu_s": cpu,
                "cores_busy": cpu / seconds,
                "loadavg1": load,
            }
        )
    return results, {"warmup_s": spent, "warmup_steps": warm_steps}


# ---- kinds ---------------------------------------------------------------------------------


def probe(args: dict[str, Any]) -> dict[str, Any]:
    import numpy

    import envfleet
    from envfleet.bench.executors import EXECUTORS, peer_versions, unavailable_reason
    from envfleet.bench.plan import parse_executor

    task, reference = args["task"], args.get("reference_task")
    known = envfleet.list_all_envs()
    if task not in known:
        return {"error": f"unknown task {task!r}; envfleet has {known}"}
    unavailable = {}
    for text in args["executors"]:
        name, cell_task, _ = parse_executor(text, task)
        if cell_task not in known:
            unavailable[text] = f"envfleet has no task {cell_task!r}"
        else:
            unavailable[text] = unavailable_reason(
                name, cell_task, reference, args.get("options") or {}
            )
    versions = {"envfleet": envfleet.__version__, "numpy": numpy.__version__}
    for name in ("gymnasium", "envpool", "ale_py", "dm_control"):
        try:
            versions[name] = __import__(name).__version__
        except Exception:
            versions[name] = None
    # The peers (PufferLib, gymnax) only where the run has their executors: importing them
    # costs seconds (gymnax brings JAX).
    libraries = {EXECUTORS[parse_executor(text, task)[0]].library for text in args["executors"]}
    versions.update(peer_versions(libraries))
    cpu_model = None
    try:
        with open("/proc/cpuinfo") as f:
            cpu_model = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return {
        "unavailable": unavailable,
        "versions": versions,
        "python": sys.version.split()[0],
        "cpu_model": cpu_model,
        "cpu_count": os.cpu_count(),
        "affinity": affinity(),
    }


def raw(args: dict[str, Any]) -> dict[str, Any]:
    import envfleet

    spec = envfleet.make_spec(args["task"], **(args.get("options") or {}))
    config = spec.config
    seed = args.get("seed", 0)
    plain_envs = args.get("plain_envs")
    plain = _plain_loop(spec) if plain_envs else None

    def loop(num_steps: int) -> tuple[int, float]:
        if plain is not None:
            steps, seconds, _ = plain(plain_envs, num_steps, seed)
            return steps, seconds
        steps, seconds, _ = spec.module.raw_step_rate(
            spec.env_type, config.env_options, num_steps, config.max_episode_steps, seed
        )
        return steps, seconds

    # Timed on the C++ loop's own clock: each call also builds the env (an ALE ROM load, a
    # MuJoCo model), which is not stepping and must not count against the limit.
    num_steps, spent, warm_steps = 64, 0.0, 0
    while True:
        steps, seconds = loop(num_steps)
        spent += seconds
        warm_steps += steps
        if spent >= args["warmup_s"] and seconds >= min(args["warmup_s"], args["window_s"]) / 8:
            break
        num_steps *= 2
    per_window = max(1, round(num_steps / max(seconds, 1e-9) * args["window_s"]))
    windows = []
    for index in range(args["windows"]):
        load = _loadavg()
        steps, seconds = loop(per_window)
        windows.append(
            {
                "window": index,
                "calls": per_window,
                "steps": steps,
                "seconds": seconds,
                "steps_per_s": steps / seconds,
                "cpu_s": seconds,  # one thread, busy for the whole loop
                "cores_busy": 1.0,
                "loadavg1": load,
            }
        )
    return {
        "windows": windows,
        "warmup_s": spent,
        "warmup_steps": warm_steps,
        "env_type": spec.env_type,
        "options": config.env_options,
        "plain_envs": plain_envs if plain is not None else None,
    }


def _plain_loop(spec: Any):
    """The independent plain-C loop of a task, if the bench has one (CartPole-v1 only: its
    dynamics in ``cpp/bench/plain_cartpole.h``), else None (the limit is raw_step_rate)."""
    from envfleet import _core

    if (
        spec.env_type == "CartPole"
        and spec.config.max_episode_steps == 500
        and not spec.config.env_options.get("sutton_barto_reward")
    ):
        return _core.plain_cartpole_rate
    return None


def throughput(args: dict[str, Any]) -> dict[str, Any]:
    from envfleet.bench.executors import build, descendant_pids, make_actions

    options = args.get("options") or {}
    actions = make_actions(
        args["task"], args["batch_size"], args["action_batches"], args.get("seed", 0), options
    )
    start = time.perf_counter()
    executor = build(
        args["executor"],
        args["task"],
        args["num_envs"],
        args["batch_size"],
        args["num_threads"],
        args.get("seed", 0),
        actions,
        args.get("reference_task"),
        options,
    )
    make_s = time.perf_counter() - start
    try:
        pids = executor.worker_pids or descendant_pids()
        # Up to num_envs / batch_size batches can be ready when a window starts.
        reserve = -(-args["num_envs"] // args["batch_size"])
        windows, warm = time_windows(
            executor.run,
            args["warmup_s"],
            args["window_s"],
            args["windows"],
            pids,
            min_calls=16 * reserve,
        )
    finally:
        executor.close()
    return {"windows": windows, "make_s": make_s, "workers": len(pids), **warm, **executor.setup}


def _make_library_pool(library: str, args: dict[str, Any]):
    from envfleet.bench.tasks import library_task

    task = library_task(library, args["task"], args.get("reference_task"))
    num_envs, num_threads = args["num_envs"], args["num_threads"]
    options = args.get("options") or {}
    if library == "envpool":
        from envfleet.bench.executors import envpool_make

        return envpool_make(task, options, num_envs=num_envs, num_threads=num_threads, seed=0)
    import envfleet

    return envfleet.make(task, num_envs=num_envs, num_threads=num_threads, seed=0, **options)


def rss(args: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    from envfleet.bench.executors import make_actions

    library, task, num_envs = args["library"], args["task"], args["num_envs"]
    if library == "envpool":
        import envpool  # noqa: F401  (imported before the baseline reading)
    actions = make_actions(task, num_envs, 4, 0, args.get("options") or {})
    if library == "envpool" and actions.dtype.kind in "iu":
        actions = actions.astype(np.int32)
    before, how = rss_bytes()
    env = _make_library_pool(library, args)
    env.reset()
    for batch in actions:  # touch every env's state and the output buffers
        env.step(batch)
    after, _ = rss_bytes()
    getattr(env, "close", lambda: None)()
    return {"rss_before": before, "rss_after": after, "how": how}


def startup(args: dict[str, Any]) -> dict[str, Any]:
    library = args["library"]
    if library == "envpool":
        import envpool  # noqa: F401  (import time is not make() time)
    start = time.perf_counter()
    env = _make_library_pool(library, args)
    made = time.perf_counter()
    env.reset()
    reset = time.perf_counter()
    getattr(env, "close", lambda: None)()
    return {"make_s": made - start, "reset_s": reset - made}


KINDS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "probe": probe,
    "raw": raw,
    "throughput": throughput,
    "rss": rss,
    "startup": startup,
}


def import_all(imports: list[str]) -> None:
    """Imports each module name or ``.py`` file path (``--import``), for its registrations."""
    import importlib
    import importlib.util

    for index, what in enumerate(imports):
        if what.endswith(".py") or os.sep in what:
            name = f"_envfleet_bench_import_{index}"
            spec = importlib.util.spec_from_file_location(name, os.path.abspath(what))
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {what!r}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            importlib.import_module(what)


def main(argv: list[str] | None = None) -> int:
    args = json.loads((sys.argv[1:] if argv is None else argv)[0])
    import_all(args.get("imports") or [])
    result = KINDS[args["kind"]](args)
    result.setdefault("pid", os.getpid())
    result.setdefault("affinity", affinity())
    sys.stdout.write("\n" + RESULT_MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
