"""Records a video of a few envs of one pool, side by side.

The pool draws the frames on its worker threads (``render_mode="rgb_array"``); this script
only tiles them and writes them with imageio (GIF through Pillow; MP4 when imageio-ffmpeg is
installed). Actions are random: put your policy where ``sample()`` is. ::

    python examples/record_video.py                       # Pong-v5, 4 envs -> pong.gif
    python examples/record_video.py HalfCheetah-v5 --out cheetah.mp4 --steps 200
"""

from __future__ import annotations

import argparse

import imageio.v3 as iio
import numpy as np

import envfleet


def record(task_id: str, out: str, num_envs: int, steps: int, seed: int, size: int | None) -> int:
    """Steps ``num_envs`` envs for ``steps`` steps and writes their frames to ``out``; returns
    the number of frames written."""
    options = {}
    if size is not None:  # only envs whose reference renders any size (MuJoCo) accept one
        options = dict(render_width=size, render_height=size)
    env = envfleet.make(task_id, num_envs=num_envs, seed=seed, render_mode="rgb_array", **options)
    env.action_space.seed(seed)
    env.reset()
    frames = []
    ids = np.arange(num_envs)
    for _ in range(steps):
        # render(env_ids) returns (B, H, W, 3): tile the envs left to right.
        frames.append(np.concatenate(list(env.render(env_ids=ids)), axis=1))
        # action_space is one env's (EnvPool's conventions): one sample per env.
        env.step(np.stack([env.action_space.sample() for _ in ids]))
    fps = env.metadata["render_fps"]
    env.close()
    iio.imwrite(
        out,
        np.stack(frames),
        **({"fps": fps} if out.endswith(".mp4") else {"duration": 1000 / fps, "loop": 0}),
    )
    return len(frames)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("task_id", nargs="?", default="Pong-v5")
    parser.add_argument("--out", default=None, help="a .gif or .mp4 path (default: <task>.gif)")
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=None, help="frame side (MuJoCo only)")
    args = parser.parse_args()
    out = args.out or args.task_id.split("-")[0].lower() + ".gif"
    count = record(args.task_id, out, args.num_envs, args.steps, args.seed, args.size)
    print(f"wrote {count} frames of {args.num_envs} {args.task_id} envs to {out}")


if __name__ == "__main__":
    main()
