"""The bench's JAX executors (``*-xla*``): a jitted ``lax.fori_loop`` through envfleet's and
EnvPool's ``xla()``, beside the Python loops (src/envfleet/bench/executors.py)."""

from __future__ import annotations

import json

import pytest
from test_bench import TINY, run_bench

from envfleet.bench.__main__ import default_executors
from envfleet.bench.executors import EXECUTORS, build, make_actions, unavailable_reason

XLA_EXECUTORS = [name for name, info in EXECUTORS.items() if info.xla]


def test_the_jax_loops_are_listed_and_run_only_when_named():
    assert XLA_EXECUTORS == [
        "envfleet-xla",
        "envfleet-xla-async",
        "envpool-xla",
        "envpool-xla-async",
    ]
    assert not set(XLA_EXECUTORS) & set(default_executors("CartPole-v1"))
    assert "envfleet-sync" in default_executors("CartPole-v1")


@pytest.mark.parametrize("task", ["CartPole-v1", "Pong-v5"])
@pytest.mark.parametrize("name", XLA_EXECUTORS)
def test_jax_loop_counts_batch_rows(name, task):
    """Each call of the compiled loop steps a batch, through episode ends (CartPole's random
    actions end episodes within tens of steps), and the loop keeps working call after call."""
    assert unavailable_reason(name, task) is None
    batch = 3
    num_envs = 2 * batch if EXECUTORS[name].mode == "async" else batch
    calls = 60 if task == "CartPole-v1" else 3
    executor = build(name, task, num_envs, batch, 1, 0, make_actions(task, batch, 4, seed=0))
    try:
        assert executor.run(calls) == calls * batch
        assert executor.run(calls) == calls * batch
    finally:
        executor.close()


@pytest.mark.extended
def test_jax_loops_are_set_against_envpools_jax_loop(tmp_path):
    out = tmp_path / "out"
    executors = "envfleet-sync,envfleet-xla,envpool-sync,envpool-xla"
    proc = run_bench([*TINY, "--executors", executors, "--no-extras", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = {r["label"]: r for r in json.loads((out / "results.json").read_text())["summary"]}
    assert set(rows) == set(executors.split(","))
    assert rows["envfleet-xla"]["vs_envpool_ref"].startswith("envpool-xla ")
    assert rows["envfleet-sync"]["vs_envpool_ref"].startswith("envpool-sync ")
    assert rows["envfleet-xla"]["median"] > 0
