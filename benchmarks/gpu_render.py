"""MuJoCo pixels at scale (issue #38): steps/s of from_pixels pools against threads, for each of
envfleet's two renderers (ENVFLEET_MUJOCO_RENDERER=per-thread / service) at default quality and
with render_fast, EnvPool 1.2.5 beside where it is installed, and the ceiling of P independent
processes each stepping one env (no batching at all), in one run.

    python benchmarks/gpu_render.py                        # the issue's grid (a GPU machine)
    python benchmarks/gpu_render.py --threads 1 2 --secs 1 # what a 2-core machine can run

Every cell is a fresh process (the renderer and the GL backend are chosen once per process),
sync pools of max(envs-per-thread x threads, --min-envs) envs, random actions, a short warm-up
then --secs of stepping; busy = CPU seconds per second of the whole process. Also timed: dm
_control's CheetahRun-v1 from_pixels, and render(env_ids=all) of a whole batch (video logging)
through each renderer. MUJOCO_GL is left as set (unset: EGL, which is the GPU where there is
one). The table goes to stdout and, with the cells' JSON, to --out.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

RENDERERS = ("per-thread", "service")


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _make(lib: str, task: str, num_envs: int, threads: int, options: dict):
    if lib == "envpool":
        # EnvPool links its own libEGL privately: MuJoCo finds GL only once one is loaded
        # globally and a context is current (design.md 6d).
        import ctypes

        for library in ("libEGL.so.1", "libOpenGL.so.0"):
            ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        from mujoco.egl import GLContext

        global _CONTEXT
        _CONTEXT = GLContext(1, 1)
        _CONTEXT.make_current()
        import envpool as module
    else:
        import envfleet as module
    return module.make_gymnasium(task, num_envs=num_envs, num_threads=threads, seed=0, **options)


def run_cell(cell: dict) -> dict:
    """One pool stepped (or rendered) for cell["secs"]: steps (frames) per second and busy."""
    import numpy as np

    n, t = cell["num_envs"], cell["threads"]
    options = dict(cell.get("options", {}))
    render = cell.get("render_batch", False)
    if render:
        options.update(render_mode="rgb_array")
    start = time.perf_counter()
    env = _make(cell["lib"], cell["task"], n, t, options)
    env.reset()
    made = time.perf_counter() - start
    space = env.action_space
    rng = np.random.default_rng(0)
    actions = rng.uniform(space.low, space.high, (16, n) + space.shape).astype(np.float32)
    ids = list(range(n))

    def one(i: int) -> None:
        if render:
            env.render(env_ids=ids)
        else:
            env.step(actions[i & 15])

    i = 0
    warm_end = time.perf_counter() + min(0.5, cell["secs"] / 3)
    while time.perf_counter() < warm_end:
        one(i)
        i += 1
    c0, w0, i0 = _cpu_s(), time.perf_counter(), i
    while time.perf_counter() < w0 + cell["secs"]:
        one(i)
        i += 1
    w1, c1 = time.perf_counter(), _cpu_s()
    env.close()
    return {
        **cell,
        "steps_per_s": (i - i0) * n / (w1 - w0),
        "busy": (c1 - c0) / (w1 - w0),
        "make_s": made,
    }


def _one_env_rate(args: tuple) -> float:
    """One env in the bare C++ loop: the bench's own limit cell (envfleet.bench._cell.raw)."""
    task, secs, options = args
    from envfleet.bench import _cell

    measured = _cell.raw(
        {"task": task, "options": options, "warmup_s": 0.2, "window_s": secs, "windows": 1}
    )
    return measured["windows"][0]["steps_per_s"]


def process_ceiling(task: str, procs: int, secs: float, options: dict) -> dict:
    """P processes each stepping one env through the bare C++ loop, at once: summed steps/s."""
    with mp.get_context("spawn").Pool(procs) as pool:
        rates = pool.map(_one_env_rate, [(task, secs, options)] * procs)
    return {"task": task, "procs": procs, "options": options, "steps_per_s": sum(rates)}


def _spawn(cell: dict, renderer: str | None, timeout: float, flag: str = "--cell") -> dict:
    """Runs a cell (or, with flag="--ceiling", a process ceiling) in a fresh process."""
    env = dict(os.environ)
    if renderer is not None:
        env["ENVFLEET_MUJOCO_RENDERER"] = renderer
    proc = subprocess.run(
        [sys.executable, __file__, flag, json.dumps(cell)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {**cell, "renderer": renderer, "error": (proc.stderr or proc.stdout)[-400:]}
    return {**json.loads(lines[-1]), "renderer": renderer}


def _envpool_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("envpool") is not None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 16])
    p.add_argument("--envs-per-thread", type=int, default=2)
    p.add_argument("--min-envs", type=int, default=1)
    p.add_argument("--task", default="HalfCheetah-v5")
    p.add_argument("--dm-task", default="CheetahRun-v1")
    p.add_argument(
        "--procs",
        type=int,
        nargs="*",
        default=None,
        help="process ceilings to measure (default: the largest thread count)",
    )
    p.add_argument("--secs", type=float, default=1.5)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--cell", help=argparse.SUPPRESS)
    p.add_argument("--ceiling", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.cell:
        print(json.dumps(run_cell(json.loads(a.cell))), flush=True)
        return 0
    if a.ceiling:
        c = json.loads(a.ceiling)
        print(json.dumps(process_ceiling(c["task"], c["procs"], c["secs"], c["options"])))
        return 0

    timeout = 60 + 10 * a.secs
    rows: list[dict] = []

    def cell(task: str, threads: int, options: dict, lib: str = "envfleet", **extra) -> dict:
        n = max(a.envs_per_thread * threads, a.min_envs)
        return {
            "lib": lib,
            "task": task,
            "threads": threads,
            "num_envs": n,
            "options": options,
            "secs": a.secs,
            **extra,
        }

    def measure(cell_: dict, renderer: str | None, quality: str) -> None:
        rows.append({**_spawn(cell_, renderer, timeout), "quality": quality})

    pixels = {"from_pixels": True}
    fast = {"from_pixels": True, "render_fast": True}
    frame = {"render_width": 84, "render_height": 84}
    for threads in a.threads:
        for renderer in RENDERERS:
            measure(cell(a.task, threads, pixels), renderer, "default")
            measure(cell(a.task, threads, fast), renderer, "render_fast")
            measure(cell(a.dm_task, threads, pixels), renderer, "default")
            measure(
                cell("Ant-v5", threads, frame, render_batch=True), renderer, "render(env_ids=all)"
            )
        if _envpool_installed():
            measure(cell(a.task, threads, pixels, lib="envpool"), None, "default")
    ceilings = []
    for procs in a.procs if a.procs is not None else [max(a.threads)]:
        for quality, options in (("default", pixels), ("render_fast", fast)):
            ceiling = {"task": a.task, "procs": procs, "secs": a.secs, "options": options}
            ceilings.append({**_spawn(ceiling, None, timeout, "--ceiling"), "quality": quality})

    table = [
        "| lib | renderer | task | quality | threads | envs | steps/s | busy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rate = f"{r['steps_per_s']:,.0f}" if "steps_per_s" in r else "error"
        busy = f"{r['busy']:.2f}" if "busy" in r else "-"
        table.append(
            f"| {r['lib']} | {r.get('renderer') or '-'} | {r['task']} | {r['quality']} | "
            f"{r['threads']} | {r['num_envs']} | {rate} | {busy} |"
        )
    for c in ceilings:
        rate = f"{c['steps_per_s']:,.0f}" if "steps_per_s" in c else "error"
        table.append(
            f"| {c['procs']} processes x 1 env | - | {c['task']} | {c['quality']} | - | "
            f"{c['procs']} | {rate} | - |"
        )
    text = "\n".join(table)
    print(text)
    for r in rows + ceilings:
        if "error" in r:
            print(
                f"error in {r.get('lib', 'ceiling')} {r.get('renderer')} {r['task']}: {r['error']}",
                file=sys.stderr,
            )
    if a.out is not None:
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "gpu_render.md").write_text(text + "\n")
        (a.out / "gpu_render.json").write_text(
            json.dumps({"cells": rows, "ceilings": ceilings}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
