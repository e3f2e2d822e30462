"""Soak test: many steps and many make/close cycles in one process, watching for leaks.

    python benchmarks/soak.py                       # the full soak (issue #17): ~1 h on 2 cores
    python benchmarks/soak.py --quick               # the scaled-down run tests/test_soak.py makes
    python benchmarks/soak.py --steps CartPole-v1=1e6 Pong-v5=2e4 --cycles CartPole-v1=500

Each phase makes one pool, runs its steps (sync: ``step()`` over every env; async:
``recv()``/``send()`` with ``num_envs = 2 x batch_size``), closes it, and samples the process at
regular intervals: RSS (``VmRSS``; ``RssAnon``, the heap alone, beside it), open file
descriptors (``/proc/self/fd``) and threads (``/proc/self/task``). A make/close phase makes,
resets, steps and closes a small pool over and over. Actions are drawn before the loop and
cycled, so the loop allocates nothing of its own.

Verdicts, per phase: after a warm-up (the first ``--warmup`` fraction of the phase's samples,
where allocator pools and the pool's output blocks settle; at least the first sample), RSS
must not grow beyond ``--tolerance`` (1%, at least ``RSS_JITTER_KIB``) over its value at the
end of the warm-up (a fall is the allocator returning memory, not a leak); the number of fds
and threads must be the same in every sample, and the same after the pool is closed as before
it was made (no worker thread or descriptor outlives its pool). The exit status is 1 if any
verdict fails; ``--json`` writes every sample and verdict.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

# The full soak of issue #17: >= 1e8 CartPole steps and >= 1e6 Pong and Ant steps, each through
# a sync and an async pool, and 1e4 make/close cycles.
FULL_STEPS = {"CartPole-v1": 100_000_000, "Pong-v5": 1_000_000, "Ant-v5": 1_000_000}
FULL_CYCLES = {"CartPole-v1": 10_000, "Pong-v5": 1_000, "Ant-v5": 1_000}
# --quick: a few seconds, enough samples after warm-up for each verdict to mean something.
QUICK_STEPS = {"CartPole-v1": 1_000_000, "Pong-v5": 2_000, "Ant-v5": 4_000}
QUICK_CYCLES = {"CartPole-v1": 500, "Pong-v5": 12, "Ant-v5": 40}
# Batch per call, per task: big enough that the pool, not Python, does most of the work.
BATCH = {"CartPole-v1": 256, "Pong-v5": 16, "Ant-v5": 32}
SAMPLES_PER_PHASE = 40
# RSS growth after warm-up that is the allocator's, not a leak: Pong-v5 make/close cycles (each
# loads and frees four emulators) move RSS up and down by up to 1.7 MiB with no trend (40
# cycles, six runs, 2026-11-26), which is 2-3% of a 50-70 MiB process. A leak of a pool's envs
# per cycle grows past this within a few cycles.
RSS_JITTER_KIB = 2048


def process_state() -> dict[str, int]:
    """RSS and anonymous RSS (KiB), open fds and threads of this process, now."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon"):
                fields[key] = int(value.split()[0])
    return {
        "rss_kib": fields["VmRSS"],
        "anon_kib": fields["RssAnon"],
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": thread_count(),
    }


def thread_count() -> int:
    """Threads of this process, once the ones that are exiting have left /proc/self/task.

    A joined thread can still be listed for a moment: pthread_join returns when the kernel
    clears the thread's tid, which it does before it removes the task. On a loaded machine
    (two test processes on two cores) that moment was long enough to count a closed pool's
    worker as alive. So a count above the last one is read again for up to 100 ms and the
    lowest is kept: a leaked thread stays listed and is still counted."""
    global _last_thread_count
    lowest = len(os.listdir("/proc/self/task"))
    for _ in range(20):
        if lowest <= _last_thread_count:
            break
        time.sleep(0.005)
        lowest = min(lowest, len(os.listdir("/proc/self/task")))
    _last_thread_count = lowest
    return lowest


_last_thread_count = 0


@dataclass
class Phase:
    name: str
    task: str
    kind: str  # "sync", "async" or "make-close"
    work: int  # steps, or cycles
    before: dict[str, int] = field(default_factory=dict)  # before the pool was made
    after: dict[str, int] = field(default_factory=dict)  # after it was closed
    samples: list[dict] = field(default_factory=list)  # {"done", "seconds", **process_state()}
    seconds: float = 0.0
    verdicts: dict[str, str] = field(default_factory=dict)  # check -> "" (passed) or why not

    @property
    def passed(self) -> bool:
        return not any(self.verdicts.values())


def _actions(env, count: int, seed: int) -> list[np.ndarray]:
    space = env.action_space  # one env's space (EnvPool's conventions)
    space.seed(seed)
    rows = env.config["batch_size"]
    dtype = space.dtype
    return [
        np.stack([np.asarray(space.sample(), dtype=dtype) for _ in range(rows)])
        for _ in range(count)
    ]


def run_steps(phase: Phase, num_threads: int) -> None:
    import envfleet

    batch = BATCH.get(phase.task, 16)
    num_envs = batch * 2 if phase.kind == "async" else batch
    calls = -(-phase.work // batch)  # each call steps `batch` envs
    every = max(1, calls // SAMPLES_PER_PHASE)
    phase.before = process_state()
    start = time.perf_counter()
    env = envfleet.make(
        phase.task, num_envs=num_envs, batch_size=batch, num_threads=num_threads, seed=0
    )
    actions = _actions(env, 64, seed=1)
    if phase.kind == "sync":
        env.reset()
        step = env.step
        for i in range(calls):
            step(actions[i & 63])
            if (i + 1) % every == 0:
                phase.samples.append(_sample((i + 1) * batch, start))
    else:
        env.async_reset()
        recv, send = env.recv, env.send
        for i in range(calls):
            info = recv()[-1]
            send(actions[i & 63], info["env_id"])
            if (i + 1) % every == 0:
                phase.samples.append(_sample((i + 1) * batch, start))
        recv()  # the last batch sent
    env.close()
    del env
    phase.seconds = time.perf_counter() - start
    phase.after = process_state()


def run_cycles(phase: Phase, num_threads: int) -> None:
    import envfleet

    every = max(1, phase.work // SAMPLES_PER_PHASE)
    phase.before = process_state()
    start = time.perf_counter()
    for i in range(phase.work):
        # A small async pool: make, reset, a few steps, close with results still in flight.
        env = envfleet.make(phase.task, num_envs=4, batch_size=2, num_threads=num_threads, seed=i)
        action = np.stack([env.action_space.sample() for _ in range(2)])
        env.async_reset()
        for _ in range(3):
            info = env.recv()[-1]
            env.send(action, info["env_id"])
        env.close()
        del env, info
        if (i + 1) % every == 0:
            phase.samples.append(_sample(i + 1, start))
    phase.seconds = time.perf_counter() - start
    phase.after = process_state()


def _sample(done: int, start: float) -> dict:
    return {"done": done, "seconds": round(time.perf_counter() - start, 3), **process_state()}


def judge(phase: Phase, warmup: float, tolerance: float) -> None:
    samples = phase.samples
    # At least the first sample is warm-up: the first pool of a phase fills the allocator's
    # pools (with 3 make/close cycles and no warm-up, the second cycle's RSS was 1.4% above
    # the first's in about one quick run in ten, the tree before and after alike).
    settled = samples[min(len(samples) - 1, max(1, int(len(samples) * warmup))) :]
    base = settled[0]["rss_kib"]
    top = max(s["rss_kib"] for s in settled)
    v = phase.verdicts
    # Only growth is a leak; RSS falling (the allocator returning memory) is not. Growth up to
    # the allocator's jitter is not either (see RSS_JITTER_KIB).
    allowed = max(base * tolerance, RSS_JITTER_KIB)
    v["rss"] = (
        ""
        if top <= base + allowed
        else f"RSS after warm-up went up to {top} KiB from {base} KiB (> {allowed:.0f} KiB)"
    )
    for what in ("fds", "threads"):
        seen = sorted({s[what] for s in samples})
        v[what] = "" if len(seen) == 1 else f"{what} changed during the phase: {seen}"
        if phase.after[what] != phase.before[what]:
            v[what + "_after_close"] = (
                f"{what}: {phase.before[what]} before the pool, {phase.after[what]} after close()"
            )
        else:
            v[what + "_after_close"] = ""


def parse_amounts(items: list[str] | None, default: dict[str, int]) -> dict[str, int]:
    if not items:
        return dict(default)
    out = {}
    for item in items:
        task, _, amount = item.partition("=")
        if not amount:
            raise SystemExit(f"expected TASK=AMOUNT, got {item!r}")
        out[task] = int(float(amount))
    return out


def commit() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.run(
            ["git", "-C", here, "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(phases: list[Phase], out=sys.stdout) -> None:
    print(
        f"\n{'phase':<28} {'work':>12} {'s':>8} {'RSS MiB: warm':>13} {'end':>7} {'max':>7}"
        f" {'anon end':>8} {'fds':>5} {'thr':>4}  verdict",
        file=out,
    )
    for p in phases:
        settled = p.samples[int(len(p.samples) * 0.25)]
        end = p.samples[-1]
        bad = "; ".join(why for why in p.verdicts.values() if why)
        print(
            f"{p.name:<28} {p.work:>12,} {p.seconds:>8.1f} {settled['rss_kib'] / 1024:>13.1f}"
            f" {end['rss_kib'] / 1024:>7.1f} {max(s['rss_kib'] for s in p.samples) / 1024:>7.1f}"
            f" {end['anon_kib'] / 1024:>8.1f} {end['fds']:>5} {end['threads']:>4}"
            f"  {bad or 'ok'}",
            file=out,
        )


def markdown(results: dict) -> str:
    """The tables of benchmarks/RELIABILITY.md from a --json file: one row per phase, and each
    phase's RSS at every eighth of its run (the curve)."""
    lines = [
        "| phase | work | seconds | RSS after warm-up (MiB) | RSS at end | max after warm-up |"
        " RssAnon at end | fds (during / before / after) | threads (during / before / after) |"
        " verdict |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    curve = []
    for p in results["phases"]:
        samples = p["samples"]
        first = max(1, int(len(samples) * results.get("warmup", 0.25)))
        settled = samples[min(len(samples) - 1, first) :]
        mib = [s["rss_kib"] / 1024 for s in samples]
        during = "/".join(str(n) for n in sorted({s["fds"] for s in samples}))
        threads = "/".join(str(n) for n in sorted({s["threads"] for s in samples}))
        bad = "; ".join(v for v in p["verdicts"].values() if v)
        lines.append(
            f"| {p['name']} | {p['work']:,} | {p['seconds']:.0f}"
            f" | {settled[0]['rss_kib'] / 1024:.1f} | {mib[-1]:.1f}"
            f" | {max(s['rss_kib'] for s in settled) / 1024:.1f}"
            f" | {samples[-1]['anon_kib'] / 1024:.1f}"
            f" | {during} / {p['before']['fds']} / {p['after']['fds']}"
            f" | {threads} / {p['before']['threads']} / {p['after']['threads']}"
            f" | {bad or 'flat'} |"
        )
        points = [samples[min(len(samples) - 1, (len(samples) * k) // 8)] for k in range(9)]
        points[-1] = samples[-1]
        curve.append(
            f"| {p['name']} | " + " | ".join(f"{s['rss_kib'] / 1024:.1f}" for s in points) + " |"
        )
    head = "| phase | " + " | ".join(f"{k}/8" for k in range(9)) + " |"
    rule = "|---|" + "--:|" * 9
    return "\n".join(lines + ["", head, rule] + curve) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the scaled-down run (seconds)")
    parser.add_argument("--steps", nargs="*", metavar="TASK=N", help="steps per sync/async phase")
    parser.add_argument("--cycles", nargs="*", metavar="TASK=N", help="make/close cycles")
    parser.add_argument("--modes", default="sync,async", help="step phases to run")
    parser.add_argument("--num-threads", type=int, default=2)
    parser.add_argument("--warmup", type=float, default=0.25, help="fraction of samples")
    parser.add_argument("--tolerance", type=float, default=0.01, help="RSS band after warm-up")
    parser.add_argument("--json", metavar="PATH", help="write samples and verdicts here")
    parser.add_argument("--markdown", metavar="PATH", help="print a --json file's tables, and exit")
    args = parser.parse_args(argv)
    if args.markdown:
        with open(args.markdown) as f:
            print(markdown(json.load(f)), end="")
        return 0

    steps = parse_amounts(args.steps, QUICK_STEPS if args.quick else FULL_STEPS)
    cycles = parse_amounts(args.cycles, QUICK_CYCLES if args.quick else FULL_CYCLES)
    if args.steps is not None and args.cycles is None:
        cycles = {}  # only what was asked for
    if args.cycles is not None and args.steps is None:
        steps = {}
    phases = [
        Phase(f"{task} {mode}", task, mode, n)
        for task, n in steps.items()
        for mode in args.modes.split(",")
    ]
    phases += [Phase(f"{task} make/close", task, "make-close", n) for task, n in cycles.items()]

    started = datetime.datetime.now().astimezone()
    revision = commit()  # now: the tree may change while a long soak runs
    print(
        f"envfleet soak, {started:%Y-%m-%d %H:%M %Z}, commit {revision}, "
        f"{platform.processor() or platform.machine()}, {len(os.sched_getaffinity(0))} usable cores"
    )
    print("command: python " + " ".join([os.path.relpath(__file__)] + sys.argv[1:]))
    start = time.perf_counter()
    for phase in phases:
        runner = run_cycles if phase.kind == "make-close" else run_steps
        runner(phase, args.num_threads)
        judge(phase, args.warmup, args.tolerance)
        rate = phase.work / phase.seconds
        print(
            f"  {phase.name}: {phase.work:,} in {phase.seconds:.1f} s ({rate:,.0f}/s), "
            f"RSS {phase.samples[-1]['rss_kib'] / 1024:.1f} MiB, "
            f"{'ok' if phase.passed else 'FAILED'}",
            flush=True,
        )
    total = time.perf_counter() - start
    report(phases)
    print(f"\ntotal {total:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "started": started.isoformat(timespec="seconds"),
                    "commit": revision,
                    "argv": sys.argv[1:],
                    "seconds": total,
                    "warmup": args.warmup,
                    "phases": [asdict(p) | {"passed": p.passed} for p in phases],
                },
                f,
                indent=1,
            )
    return 0 if all(p.passed for p in phases) else 1


if __name__ == "__main__":
    sys.exit(main())
