"""procgen's own interface, driven for the Procgen family's alignment tests and bench.

This file runs under the Python of procgen's reference venv (references.procgen_python: numpy<2,
gym3, procgen 0.10.7), never inside envfleet: it imports nothing of envfleet and only
NumPy and procgen. Usage::

    python procgen_reference.py rollout '<json>' out.npz
    python procgen_reference.py rollouts cases.json out.npz

``rollout``: one ``ProcgenGym3Env(num=1, num_threads=0, ...)`` (what procgen's gym.make builds
for one env), made with the JSON's ``env_name``, ``rand_seed``, ``distribution_mode`` (procgen's
name: "easy", "hard", "extreme", "memory", "exploration") and ``options`` (the keyword
arguments of ProcgenGym3Env: num_levels, start_level, use_sequential_levels, center_agent,
use_backgrounds, ...; ``use_easy_jump``, which ProcgenGym3Env does not take, is added to the
option dict it hands to the engine), steps the JSON's ``actions`` (-1 is procgen's forced
reset: one step of the default action, then a new level) and saves, for the first observation
and after each action: ``obs`` (T+1, 64, 64, 3) uint8, ``reward`` and ``first`` (T+1,), the
info keys ``level_seed``, ``prev_level_seed``, ``prev_level_complete`` (T+1,), ``actions``
(T,): the actions played, and, with ``render`` true, ``frames`` (T+1, 512, 512, 3): the
render_mode="rgb_array" frame, with ``render_steps`` (T+1,): the steps they show.

Optional keys of the JSON shorten or extend the run:

- ``stop_after_episodes`` n, ``extra_steps`` k: stop k steps after the step that ended the
  n-th episode (the n-th ``first`` after the start), or when the actions run out;
- ``max_episode_steps`` m: a time limit of the pool's kind: once m steps of an episode have
  passed without procgen ending it, the next action played is -1 (the actions' next one waits);
- ``render_every`` k (instead of ``render``): frames only at step 0, every k-th step and each
  step whose ``first`` is true.

Frames are rendered by a second env made with render_mode="rgb_array" and stepped with the same
actions, observed only at those steps (procgen draws the 512x512 frame at every observe of an
env made so): the first env's data never needs a render.

``rollouts``: the same for each JSON object of the list in the file ``cases.json``, in one
process, saving case j's arrays as ``<j>/<name>``; there, ``obs`` and ``frames`` are replaced by
``obs_digest`` (T+1, 16) and ``frame_digest`` (R, 16) uint8: each image's BLAKE2b digest
(digest_size 16) of its bytes (H, W, 3 uint8, C order), which compares every pixel at a small
fraction of the size.
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

INFO_KEYS = ("level_seed", "prev_level_seed", "prev_level_complete")


def make_env(args: dict, render: bool = False):
    from procgen import ProcgenGym3Env
    from procgen.env import BaseProcgenEnv

    options = dict(args.get("options", {}))
    cls = ProcgenGym3Env
    if "use_easy_jump" in options:
        easy_jump = bool(options.pop("use_easy_jump"))

        class EasyJump(BaseProcgenEnv):
            # Sits between ProcgenGym3Env and BaseProcgenEnv in the class order below: adds
            # use_easy_jump to the option dict ProcgenGym3Env built, which BaseProcgenEnv hands
            # to the engine as it is.
            def __init__(self, num, env_name, engine_options, **kwargs):
                engine_options = {**engine_options, "use_easy_jump": easy_jump}
                super().__init__(num, env_name, engine_options, **kwargs)

        class WithEasyJump(ProcgenGym3Env, EasyJump):
            pass

        cls = WithEasyJump
    return cls(
        num=1,
        env_name=args["env_name"],
        rand_seed=int(args["rand_seed"]),
        num_threads=int(args.get("num_threads", 0)),
        distribution_mode=args.get("distribution_mode", "hard"),
        render_mode="rgb_array" if render else None,
        **options,
    )


def digest(image: np.ndarray) -> np.ndarray:
    data = np.ascontiguousarray(image).tobytes()
    return np.frombuffer(hashlib.blake2b(data, digest_size=16).digest(), np.uint8)


def play(args: dict, digests: bool) -> dict:
    """One run of ``args`` (see the module docstring); the arrays to save."""
    render_every = int(args.get("render_every", 1 if args.get("render") else 0))
    env = make_env(args)
    renderer = make_env(args, render=True) if render_every else None
    actions = iter(int(a) for a in args["actions"])
    stop_after = int(args.get("stop_after_episodes", 0))
    extra = int(args.get("extra_steps", 0))
    limit = int(args.get("max_episode_steps", 0))
    image = digest if digests else np.copy
    rec = {k: [] for k in ("obs", "reward", "first", "actions", "frames", "render_steps")}
    rec.update({k: [] for k in INFO_KEYS})

    def record(t: int) -> bool:
        reward, obs, first = env.observe()
        info = env.get_info()[0]
        rec["obs"].append(image(obs["rgb"][0]))
        rec["reward"].append(reward[0])
        rec["first"].append(bool(first[0]))
        for k in INFO_KEYS:
            rec[k].append(int(info[k]))
        if renderer is not None and (t % render_every == 0 or (t > 0 and first[0])):
            rec["frames"].append(image(renderer.get_info()[0]["rgb"]))
            rec["render_steps"].append(t)
        return bool(first[0])

    record(0)
    clock = ended = 0
    remaining = None  # steps left to play once stop_after episodes have ended
    while remaining is None or remaining > 0:
        if limit and clock >= limit:
            a = -1
        else:
            a = next(actions, None)
            if a is None:
                break
        for e in (env, renderer) if renderer is not None else (env,):
            e.act(np.array([a], dtype=np.int32))
        rec["actions"].append(a)
        first = record(len(rec["actions"]))
        clock = 0 if first else clock + 1
        if remaining is not None:
            remaining -= 1
        elif first:
            ended += 1
            if stop_after and ended >= stop_after:
                remaining = extra
    env.close()
    if renderer is not None:
        renderer.close()
    arrays = {
        "obs_digest" if digests else "obs": np.stack(rec["obs"]),
        "reward": np.asarray(rec["reward"], np.float32),
        "first": np.asarray(rec["first"], bool),
        "actions": np.asarray(rec["actions"], np.int64),
        **{k: np.asarray(rec[k], np.int64) for k in INFO_KEYS},
    }
    if renderer is not None:
        arrays["frame_digest" if digests else "frames"] = np.stack(rec["frames"])
        arrays["render_steps"] = np.asarray(rec["render_steps"], np.int64)
    return arrays


def rollout(args: dict, out: str) -> None:
    np.savez(out, **play(args, digests=False))


def rollouts(cases_path: str, out: str) -> None:
    with open(cases_path) as f:
        cases = json.load(f)
    arrays = {}
    for j, args in enumerate(cases):
        arrays.update({f"{j}/{k}": v for k, v in play(args, digests=True).items()})
    np.savez(out, **arrays)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("rollout", "rollouts"):
        sys.exit(__doc__)
    if sys.argv[1] == "rollout":
        rollout(json.loads(sys.argv[2]), sys.argv[3])
    else:
        rollouts(sys.argv[2], sys.argv[3])
