"""The soak test (benchmarks/soak.py) scaled down to seconds: CartPole, Pong and Ant through
sync and async pools, and make/close cycles, in a fresh interpreter. Each phase must keep RSS
flat after its warm-up and leave no file descriptor or thread behind. The full soak and its
figures are in benchmarks/RELIABILITY.md."""

from __future__ import annotations

import json
import os

import pytest
from conftest import describe, run_isolated

SOAK = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "soak.py"
)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self")
def test_quick_soak_keeps_memory_fds_and_threads_flat(tmp_path):
    out = tmp_path / "soak.json"
    code = f"""
        import runpy, sys
        sys.argv = [{SOAK!r}, "--quick", "--json", {str(out)!r}]
        runpy.run_path({SOAK!r}, run_name="__main__")
    """
    rc, stdout, stderr = run_isolated(code, timeout=240)
    assert out.exists(), "the soak wrote no results: " + describe(rc, stdout, stderr)
    phases = json.loads(out.read_text())["phases"]
    assert {p["kind"] for p in phases} == {"sync", "async", "make-close"}
    assert {p["task"] for p in phases} == {"CartPole-v1", "Pong-v5", "Ant-v5"}
    failed = {p["name"]: {k: v for k, v in p["verdicts"].items() if v} for p in phases}
    failed = {name: why for name, why in failed.items() if why}
    assert not failed, f"{failed}\n{stdout}"
    assert rc == 0, describe(rc, stdout, stderr)
