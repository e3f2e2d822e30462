"""env.xla() speed with the policy on the GPU, envfleet against EnvPool 1.2.5's ``xla()``, and
the same loop with the policy on JAX's CPU backend (benchmarks/gpu/run.sh runs it on a GPU
machine; README.md there).

One cell: a pool made with ``make_gymnasium(task, num_envs, batch_size=num_envs,
num_threads, seed=0)``, a jitted ``lax.scan`` of ``length`` steps of a linear policy (fixed
random weights over the flattened observation: argmax for discrete actions, tanh for
continuous ones) and ``step``, its inputs on the chosen device, compiled by a first call,
then run again and again for ``--seconds``; steps/s = env steps / wall time, each run waited
for. One JSON line per cell on stdout (an ``error`` instead where the cell fails)::

    python benchmarks/gpu/xla_speed.py envfleet CartPole-v1 --num-envs 8 --devices gpu cpu
    python benchmarks/gpu/xla_speed.py --table speed.jsonl   # the table, with the targets

Without a GPU, ``--devices cpu`` runs the same code on the CPU backend.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback
from typing import Any

# The targets (#31): envfleet's steps/s over EnvPool's, same task, envs and device;
# and envfleet's GPU-policy loop over its CPU-backend loop.
TARGETS_VS_ENVPOOL = {("CartPole-v1", 8, "gpu"): 10.0, ("Pong-v5", 64, "gpu"): 1.15}
TARGETS_VS_ENVPOOL[("Ant-v5", 64, "gpu")] = 1.15
TARGET_GPU_OVER_CPU = {("CartPole-v1", 8): 0.5}


def make_env(lib: str, task: str, num_envs: int, num_threads: int) -> Any:
    if lib == "envpool":
        import envpool as module
    else:
        import envfleet as module
    return module.make_gymnasium(
        task, num_envs=num_envs, batch_size=num_envs, num_threads=num_threads, seed=0
    )


def linear_policy(env: Any, obs: Any, device: Any) -> Any:
    """``policy(obs) -> action``: one dense layer with fixed random weights, on ``device``."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    features = math.prod(obs.shape[1:])
    space = env.action_space
    discrete = hasattr(space, "n")
    outputs = int(space.n) if discrete else int(np.prod(space.shape))
    rng = np.random.default_rng(0)
    weights = rng.normal(0, 1 / math.sqrt(features), (features, outputs)).astype(np.float32)
    weights = jax.device_put(weights, device)

    # The action in the dtype the pool takes from JAX: EnvPool's continuous actions must be
    # its spec's float64, which JAX holds only with x64 on (--x64).
    action_dtype = jax.dtypes.canonicalize_dtype(space.dtype)

    def policy(obs: Any) -> Any:
        logits = obs.reshape(obs.shape[0], -1).astype(jnp.float32) @ weights
        if discrete:
            return jnp.argmax(logits, axis=1).astype(jnp.int32)
        return jnp.tanh(logits).reshape(obs.shape[0], *space.shape).astype(action_dtype)

    return policy


def measure(lib, task, num_envs, num_threads, device_kind, length, seconds) -> dict:
    import jax

    env = make_env(lib, task, num_envs, num_threads)
    handle, _, _, step = env.xla()
    obs, _ = env.reset()
    device = jax.devices(device_kind)[0]
    policy = linear_policy(env, obs, device)

    @jax.jit
    def rollout(handle: Any, obs: Any) -> Any:
        def body(carry: Any, _: Any) -> Any:
            handle, obs = carry
            handle, (obs, reward, *_) = step(handle, policy(obs))
            return (handle, obs), reward.sum()

        return jax.lax.scan(body, (handle, obs), None, length=length)

    with jax.default_device(device):
        handle, obs = jax.device_put((handle, obs), device)
        start = time.perf_counter()
        (handle, obs), rewards = jax.block_until_ready(rollout(handle, obs))
        first_call_s = time.perf_counter() - start
        runs = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            (handle, obs), rewards = jax.block_until_ready(rollout(handle, obs))
            runs += 1
        elapsed = time.perf_counter() - start
    env.close()
    return dict(
        steps_per_s=round(runs * length * num_envs / elapsed),
        first_call_s=round(first_call_s, 2),
        runs=runs,
        obs_on=str(next(iter(obs.devices()))),
        device_name=str(device),
    )


def run_cells(args: argparse.Namespace) -> int:
    import jax

    jax.config.update("jax_enable_x64", args.x64)
    print(json.dumps(dict(jax=jax.__version__, backend=jax.default_backend())), flush=True)
    failures = 0
    for device_kind in args.devices:
        cell = dict(
            lib=args.lib,
            task=args.task,
            num_envs=args.num_envs,
            num_threads=args.num_threads,
            device=device_kind,
            length=args.length,
            x64=args.x64,
        )
        try:
            cell.update(
                measure(
                    args.lib,
                    args.task,
                    args.num_envs,
                    args.num_threads,
                    device_kind,
                    args.length,
                    args.seconds,
                )
            )
        except Exception as error:  # noqa: BLE001 - reported in the cell, the run goes on
            cell["error"] = f"{type(error).__name__}: {error}"[:800]
            traceback.print_exc(limit=4, file=sys.stderr)
            failures += 1
        print(json.dumps(cell), flush=True)
    return failures


def table(path: str) -> str:
    """A Markdown table of the cells in ``path`` (JSON lines), one row per task, envs and
    device: envfleet, EnvPool, their ratio and the target where the issue sets one."""
    cells = {}
    for line in open(path):
        record = json.loads(line)
        if "lib" in record:
            key = (record["task"], record["num_envs"], record["device"])
            cells.setdefault(key, {})[record["lib"]] = record

    def rate(record: dict | None) -> str:
        if record is None:
            return "-"
        if "error" in record:
            return "error: " + record["error"].splitlines()[0][:60]
        return f"{record['steps_per_s']:,}"

    header = ["task", "envs", "policy on", "envfleet steps/s", "EnvPool steps/s"]
    header += ["envfleet / EnvPool", "target"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    verdicts = []
    for (task, num_envs, device), libs in sorted(cells.items()):
        ours, theirs = libs.get("envfleet"), libs.get("envpool")
        ratio, target = "-", TARGETS_VS_ENVPOOL.get((task, num_envs, device))
        if ours and theirs and "error" not in ours and "error" not in theirs:
            value = ours["steps_per_s"] / theirs["steps_per_s"]
            ratio = f"{value:.2f}x"
            if target is not None:
                verdicts.append((f"{task} {num_envs} envs, {device}: vs EnvPool", value, target))
        lines.append(
            f"| {task} | {num_envs} | {device} | {rate(ours)} | {rate(theirs)} | {ratio} | "
            + (f">= {target}x" if target is not None else "")
            + " |"
        )
    for (task, num_envs), target in TARGET_GPU_OVER_CPU.items():
        gpu = cells.get((task, num_envs, "gpu"), {}).get("envfleet")
        cpu = cells.get((task, num_envs, "cpu"), {}).get("envfleet")
        if gpu and cpu and "error" not in gpu and "error" not in cpu:
            value = gpu["steps_per_s"] / cpu["steps_per_s"]
            verdicts.append((f"{task} {num_envs} envs: envfleet GPU policy / CPU", value, target))
    lines.append("")
    for name, value, target in verdicts:
        lines.append(
            f"- {name}: {value:.2f} (target {target}): {'met' if value >= target else 'MISSED'}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lib", nargs="?", choices=["envfleet", "envpool"])
    parser.add_argument("task", nargs="?", default="CartPole-v1")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-threads", type=int, default=2)
    parser.add_argument("--devices", nargs="+", default=["gpu", "cpu"], choices=["gpu", "cpu"])
    parser.add_argument("--length", type=int, default=500, help="steps per jitted scan")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed runs per cell")
    parser.add_argument(
        "--x64",
        action="store_true",
        help="jax_enable_x64 (EnvPool's xla() takes continuous actions only as float64)",
    )
    parser.add_argument("--table", metavar="JSONL", help="print the table of these cells")
    args = parser.parse_args(argv)
    if args.table:
        sys.stdout.write(table(args.table))
        return 0
    if args.lib is None:
        parser.error("give a library (envfleet or envpool), or --table")
    return 1 if run_cells(args) else 0


if __name__ == "__main__":
    sys.exit(main())
