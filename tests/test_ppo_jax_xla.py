"""examples/ppo_jax_xla.py learns CartPole-v1 through env.xla(), on a CI-sized budget.

The full run (1M steps, about 15 s of training on 2 cores) reaches an average return of 500;
here 40 iterations of 1024 steps must lift the return of the last 10 iterations' episodes
clearly above a random policy's (about 22). Over seeds 1-8 that return was 191-348, so the
bar of 100 leaves room for another CPU's rounding while a broken loss or rollout (returns
that stay near 22) still fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "ppo_jax_xla.py")


def test_ppo_learns_cartpole_above_random():
    proc = subprocess.run(
        [sys.executable, EXAMPLE, "--total-timesteps", "40960", "--seed", "1", "--log-every", "10"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    progress = [float(v) for v in re.findall(r"avg_episodic_return\s+([\d.]+) \(", proc.stdout)]
    assert len(progress) == 4, proc.stdout  # a line every 10 iterations
    final = re.search(r"final avg_episodic_return=([\d.]+) steps=(\d+)", proc.stdout)
    assert final, proc.stdout
    assert int(final[2]) == 40960
    assert float(final[1]) == progress[-1]
    assert progress[-1] >= 100, proc.stdout
    assert progress[-1] > 2 * progress[0], proc.stdout  # it learned during the run
