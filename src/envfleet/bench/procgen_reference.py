"""procgen's own interface, driven for the Procgen family's alignment tests and bench.

This file runs under the Python of procgen's reference venv (references.procgen_python: numpy<2,
gym3, procgen 0.10.7), never inside envfleet: it imports nothing of envfleet and only
NumPy and procgen. Usage::

    python procgen_reference.py rollout '<json>' out.npz

``rollout``: one ``ProcgenGym3Env(num=1, num_threads=0, ...)`` (what procgen's gym.make builds
for one env), made with the JSON's ``env_name``, ``rand_seed``, ``distribution_mode`` (procgen's
name: "easy", "hard", "extreme", "memory", "exploration") and ``options`` (the keyword
arguments of ProcgenGym3Env: num_levels, start_level, use_sequential_levels, center_agent,
use_backgrounds, ...; ``use_easy_jump``, which ProcgenGym3Env does not take, is passed in its
option dict), steps the JSON's ``actions`` and saves, for the first observation and after each
action: ``obs`` (T+1, 64, 64, 3) uint8, ``reward`` and ``first`` (T+1,), the info keys
``level_seed``, ``prev_level_seed``, ``prev_level_complete`` (T+1,), and, with ``render`` true,
``frames`` (T+1, 512, 512, 3): the render_mode="rgb_array" frame.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def make_env(args: dict):
    from procgen import ProcgenGym3Env

    options = dict(args.get("options", {}))
    easy_jump = options.pop("use_easy_jump", None)
    env = ProcgenGym3Env(
        num=1,
        env_name=args["env_name"],
        rand_seed=int(args["rand_seed"]),
        num_threads=int(args.get("num_threads", 0)),
        distribution_mode=args.get("distribution_mode", "hard"),
        render_mode="rgb_array" if args.get("render") else None,
        **options,
    )
    if easy_jump is not None:
        # ProcgenGym3Env has no such argument; its option dict reaches the engine as given.
        env.close()
        from procgen.env import BaseProcgenEnv

        env = _with_easy_jump(BaseProcgenEnv, env, bool(easy_jump), args)
    return env


def _with_easy_jump(base, made, easy_jump: bool, args: dict):
    options = dict(made.options)
    for key in ("env_name", "num_levels", "start_level", "num_actions",
                "use_sequential_levels", "debug_mode", "rand_seed", "num_threads",
                "render_human", "resource_root"):  # fmt: skip
        options.pop(key, None)
    options["use_easy_jump"] = easy_jump
    return base(
        1,
        args["env_name"],
        options,
        rand_seed=int(args["rand_seed"]),
        num_levels=made.options["num_levels"],
        start_level=made.options["start_level"],
        use_sequential_levels=made.options["use_sequential_levels"],
        num_threads=int(args.get("num_threads", 0)),
        render_mode="rgb_array" if args.get("render") else None,
    )


def rollout(args: dict, out: str) -> None:
    env = make_env(args)
    actions = np.asarray(args["actions"], dtype=np.int32)
    render = bool(args.get("render"))
    keys = ("level_seed", "prev_level_seed", "prev_level_complete")
    rec = {k: [] for k in ("obs", "reward", "first", "frames", *keys)}

    def record():
        reward, obs, first = env.observe()
        info = env.get_info()[0]
        rec["obs"].append(obs["rgb"][0].copy())
        rec["reward"].append(float(reward[0]))
        rec["first"].append(bool(first[0]))
        for k in keys:
            rec[k].append(int(info[k]))
        if render:
            rec["frames"].append(info["rgb"].copy())

    record()
    for a in actions:
        env.act(np.array([a], dtype=np.int32))
        record()
    arrays = {
        "obs": np.stack(rec["obs"]),
        "reward": np.asarray(rec["reward"], np.float32),
        "first": np.asarray(rec["first"], bool),
        **{k: np.asarray(rec[k], np.int64) for k in keys},
    }
    if render:
        arrays["frames"] = np.stack(rec["frames"])
    np.savez(out, **arrays)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "rollout":
        sys.exit(__doc__)
    rollout(json.loads(sys.argv[2]), sys.argv[3])
