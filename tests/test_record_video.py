"""examples/record_video.py writes what the pool renders, tiled left to right."""

from __future__ import annotations

import os
import subprocess
import sys

import imageio.v3 as iio
import numpy as np

import envfleet

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "record_video.py")


def test_record_video_writes_the_rendered_frames(tmp_path):
    out = tmp_path / "pong.gif"
    proc = subprocess.run(
        [sys.executable, EXAMPLE, "Pong-v5", "--out", str(out), "--num-envs", "2", "--steps", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "wrote 3 frames of 2 Pong-v5 envs" in proc.stdout
    video = iio.imread(out, index=None)
    assert video.shape[:3] == (3, 210, 320)
    env = envfleet.make("Pong-v5", num_envs=2, seed=0, render_mode="rgb_array")
    env.reset()
    first = np.concatenate(list(env.render(env_ids=[0, 1])), axis=1)
    env.close()
    # A GIF holds at most 256 colours per frame; Pong's first frame has far fewer, so Pillow
    # keeps it exactly.
    np.testing.assert_array_equal(video[0][..., :3], first)
