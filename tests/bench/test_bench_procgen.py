"""The bench's Procgen peers: procgen's own vectorized env (``procgen-gym3``) and procgen's gym
env under Gymnasium's vector envs and the Python loop, each run in a peer process under
procgen's reference venv (src/envfleet/bench/procgen_gym3_cell.py).

The tests check the plumbing, never a rate: which executors a Procgen task gets, procgen's
arguments for envfleet's options, that every peer executor steps its rows and leaves no process
or folder behind, that a peer's failure is an error naming it, and one tiny run end to end.
They skip where the Procgen family is not built, and (those that start a peer) where procgen's
venv cannot be made.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import engine_built
from test_bench import TINY, run_bench

from envfleet.bench import procgen_gym3_cell
from envfleet.bench.__main__ import default_executors
from envfleet.bench.executors import build, make_actions, unavailable_reason
from envfleet.bench.plan import make_cells
from envfleet.bench.tasks import procgen_gym3_kwargs

TASK = "CoinrunHard-v0"
PEERS = ["procgen-gym3", "procgen-gym3-serial", "gymnasium-sync", "gymnasium-async"]
PEERS += ["python-loop"]
needs_procgen = pytest.mark.skipif(not engine_built(TASK), reason="no Procgen family here")


@pytest.fixture(scope="module")
def procgen_python():
    from envfleet.bench import references

    try:
        return str(references.procgen_python())
    except RuntimeError as err:
        pytest.skip(f"procgen's reference venv could not be made here: {err}")


def test_procgens_own_executors_are_listed_for_procgen_tasks_only():
    assert {"procgen-gym3", "procgen-gym3-serial"} <= set(default_executors(TASK))
    assert {"procgen-gym3", "procgen-gym3-serial"} <= set(default_executors(TASK, quick=True))
    assert not {"procgen-gym3", "procgen-gym3-serial"} & set(default_executors("CartPole-v1"))


def test_procgen_gym3_sweeps_its_threads_and_serial_takes_none():
    """procgen-gym3 also gets 2 and 4 threads per core (its best count is to be found); the
    others keep the grid's counts."""
    executors = ["envfleet-sync", "procgen-gym3", "procgen-gym3-serial"]
    cells, _ = make_cells(executors, TASK, [1, 16], [1, 2], 2)
    got = [(c.executor, c.batch_size, c.num_threads, c.usable_cores) for c in cells]
    assert got == [
        ("envfleet-sync", 1, 1, 1),
        ("procgen-gym3", 1, 1, 1),
        ("procgen-gym3-serial", 1, None, 1),
        ("envfleet-sync", 16, 1, 1),
        ("procgen-gym3", 16, 1, 1),
        ("procgen-gym3-serial", 16, None, 1),
        ("envfleet-sync", 16, 2, 2),
        ("procgen-gym3", 16, 2, 2),
        ("procgen-gym3", 16, 4, 2),
        ("procgen-gym3", 16, 8, 2),
    ]
    plain, _ = make_cells(["envfleet-sync"], TASK, [16], [1, 2], 2)
    assert [c.num_threads for c in plain] == [1, 2]


@needs_procgen
def test_envfleets_options_in_procgens_terms():
    assert procgen_gym3_kwargs(TASK) == {
        "env_name": "coinrun",
        "distribution_mode": "hard",
        "num_levels": 0,
        "start_level": 0,
        "use_sequential_levels": False,
        "center_agent": True,
        "use_backgrounds": True,
        "use_monochrome_assets": False,
        "restrict_themes": False,
        "use_generated_assets": False,
        "paint_vel_info": False,
    }
    given = procgen_gym3_kwargs("StarpilotEasy-v0", {"num_levels": 200, "start_level": 7})
    assert (given["env_name"], given["distribution_mode"]) == ("starpilot", "easy")
    assert (given["num_levels"], given["start_level"]) == (200, 7)
    # exploration mode: procgen picks the level itself, and refuses num_levels / start_level
    explore = procgen_gym3_kwargs("CoinrunExploration-v0")
    assert explore["distribution_mode"] == "exploration"
    assert "num_levels" not in explore and "start_level" not in explore
    with pytest.raises(ValueError, match="use_easy_jump"):
        procgen_gym3_kwargs(TASK, {"use_easy_jump": True})


@needs_procgen
def test_what_cannot_run_is_a_reason():
    assert "Procgen tasks only" in unavailable_reason("procgen-gym3", "CartPole-v1")
    assert "use_easy_jump" in unavailable_reason(
        "procgen-gym3", TASK, None, {"use_easy_jump": True}
    )
    assert "PufferLib" in unavailable_reason("pufferlib-serial", TASK)


@needs_procgen
@pytest.mark.parametrize("name", PEERS)
def test_peer_executors_step_every_row_and_leave_nothing(name, procgen_python):
    batch = 2
    actions = make_actions(TASK, batch, 4, seed=0)
    executor = build(name, TASK, batch, batch, 2, 0, actions)
    peer = executor.internals["peer"]
    links = peer._links
    try:
        assert executor.worker_pids[0] == peer.proc.pid
        if name == "gymnasium-async":  # one worker process per env, the peer's children
            assert len(executor.worker_pids) == 1 + batch
        assert peer.versions["procgen"] == "0.10.7"
        assert peer.versions["procgen_numpy"].startswith("1.")
        assert executor.run(300) == 300 * batch  # CoinRun's episodes end within these steps
        assert executor.setup["make_s"] > 0
    finally:
        executor.close()
    assert peer.proc.returncode == 0
    for pid in executor.worker_pids:
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)
    assert links is None if name.startswith("procgen-gym3") else not os.path.exists(links)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@needs_procgen
def test_a_peer_that_fails_is_an_error_naming_it(procgen_python):
    kwargs = {"env_name": "coinrun", "distribution_mode": "no-such-mode"}  # procgen asserts
    with pytest.raises(RuntimeError, match="procgen-gym3 failed to build: AssertionError"):
        procgen_gym3_cell.start("procgen-gym3", kwargs, 1, 0, 0, [[0]], procgen_python)
    # one that dies (procgen aborts the process on a game it does not know, for one)
    peer = procgen_gym3_cell.start("procgen-gym3", procgen_gym3_kwargs(TASK), 1, 0, 0, [[0]])
    peer.proc.kill()
    with pytest.raises(RuntimeError, match="peer process exited"):
        peer.run(1)
    peer.close()


@needs_procgen
@pytest.mark.extended
def test_a_tiny_procgen_run_end_to_end(tmp_path, procgen_python):
    out = tmp_path / "out"
    executors = "procgen-gym3,gymnasium-sync"
    args = [*TINY, "--task", TASK, "--executors", executors]
    proc = run_bench([*args, "--no-extras", "--no-plot", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    threads = {(r["executor"], r["num_threads"]) for r in doc["summary"]}
    # the grid's 1 thread, and the sweep's 4 and 8 (capped at the batch's 2 envs)
    assert threads == {("procgen-gym3", 1), ("procgen-gym3", 2), ("gymnasium-sync", None)}
    workers = {w["executor"]: w["workers"] for w in doc["windows"] if w["kind"] == "throughput"}
    assert workers["procgen-gym3"] == 1 and workers["gymnasium-sync"] == 1  # the peer
    assert doc["meta"]["versions"]["procgen"] == "0.10.7"
    notes = "\n".join(doc["notes"])
    assert "(64, 64, 3) frames" in notes and "no reset row" in notes


def _row(executor, mode, threads, median, batch=16):
    return {
        "executor": executor,
        "label": executor,
        "task": TASK,
        "mode": mode,
        "batch_size": batch,
        "num_threads": threads,
        "median": median,
    }


def test_the_best_peer_of_an_envfleet_cell():
    """EnvPool counts in the cell's mode at its thread count; procgen's vectorized env, which
    has no async mode, at its fastest thread count against either mode; Gymnasium as it is."""
    from envfleet.bench.markdown import best_peer, task_table

    sync, asynchronous = (
        _row("envfleet-sync", "sync", 1, 50.0),
        _row("envfleet-async", "async", 1, 50.0),
    )
    rows = [
        sync,
        asynchronous,
        _row("envpool-sync", "sync", 1, 20.0),
        _row("envpool-sync", "sync", 2, 45.0),  # another thread count
        _row("envpool-async", "async", 1, 30.0),
        _row("procgen-gym3", "sync", 4, 40.0),  # counts at its best count
        _row("procgen-gym3", "sync", 1, 10.0),
        _row("gymnasium-sync", "sync", None, 35.0),
        _row("procgen-gym3", "sync", 8, 99.0, batch=64),  # another batch
    ]
    assert best_peer(sync, rows, ("procgen-gym3",))["median"] == 40.0
    assert best_peer(asynchronous, rows, ("procgen-gym3",))["median"] == 40.0
    # without the sweep rule, procgen's vectorized env counts at the cell's thread count
    assert best_peer(sync, rows, ())["median"] == 35.0
    doc = {"config": {"task": TASK, "cores": 2}, "summary": rows, "limits": {}}
    table = task_table(doc)
    assert "| envfleet-sync | 1 | 50 (1.25x vs procgen-gym3 t=4) | - |" in table
    assert "envfleet sync, 1 thread: 1.25x-1.25x the best peer" in table
