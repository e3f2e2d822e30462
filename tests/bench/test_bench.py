"""``python -m envfleet.bench`` end to end on a tiny grid, plus its planning and executors.

The end-to-end runs go through a subprocess, exactly as a user would start the tool, with
windows of 0.05 s: they check that every file is written with the expected fields, never how
fast anything is (a shared CI machine makes timing assertions meaningless).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import assert_isolated_ok, vizdoom_built

import envfleet
import envfleet.bench.__main__ as bench_main
from envfleet import _core
from envfleet.bench.executors import EXECUTORS, build, make_actions
from envfleet.bench.plan import default_batches, make_cells
from envfleet.bench.report import SUMMARY_COLUMNS, WINDOW_COLUMNS

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(envfleet.__file__)))
_REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TINY = ["--num-envs", "2", "--num-threads", "1", "--rounds", "1", "--windows", "2"]
TINY += ["--window", "0.05", "--warmup", "0.05", "--no-progress"]


def run_bench(args: list[str], extra_path: str | None = None, timeout: float = 120):
    """Runs ``python -m envfleet.bench args`` in a fresh interpreter; returns the process."""
    env = dict(os.environ)
    paths = [_PACKAGE_ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if extra_path:
        paths.insert(0, extra_path)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return subprocess.run(
        [sys.executable, "-m", "envfleet.bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_tiny_grid_writes_every_file(tmp_path):
    out = tmp_path / "out"
    executors = "envfleet-sync,envfleet-async,gymnasium-sync,python-loop"
    extras = ["--rss-envs", "4", "16", "--startup-envs", "4"]
    proc = run_bench([*TINY, "--executors", executors, *extras, "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-4000:]

    doc = json.loads((out / "results.json").read_text())
    for key in ("config", "meta", "cells", "limit", "summary", "extras", "windows", "notes"):
        assert key in doc
    assert doc["config"]["task"] == "CartPole-v1"
    assert doc["limit"]["steps_per_s_per_thread"] > 0
    # CartPole's limit is the independent plain-C loop over the grid's largest batch.
    assert doc["limit"]["plain_envs"] == max(doc["config"]["batches"])
    assert doc["meta"]["affinity"] and doc["meta"]["versions"]["envfleet"]

    assert sorted(r["executor"] for r in doc["summary"]) == sorted(executors.split(","))
    for row in doc["summary"]:
        assert row["median"] > 0 and row["min"] <= row["median"] <= row["max"]
        assert row["limit"] > 0 and row["fraction_of_limit"] > 0
        assert row["windows"] == 2 and row["cores_busy"] >= 0
        assert row["per_cpu_of_limit"] == pytest.approx(
            row["median"] / row["cores_busy"] / doc["limit"]["steps_per_s_per_thread"]
        )
    async_row = next(r for r in doc["summary"] if r["executor"] == "envfleet-async")
    assert async_row["batch_size"] == 2 and async_row["num_envs"] == 4

    throughput = [w for w in doc["windows"] if w["kind"] == "throughput"]
    assert len(throughput) == 4 * 2
    assert all(w["steps"] == w["calls"] * w["batch_size"] for w in throughput)
    assert any(w["kind"] == "raw" for w in doc["windows"])

    extras = doc["extras"]
    assert set(extras["startup_seconds"]) == {"envfleet"}
    assert extras["startup_seconds"]["envfleet"]["make_s"] > 0
    assert "envfleet" in extras["memory_per_env_bytes"]

    with open(out / "windows.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == WINDOW_COLUMNS and len(rows) == len(doc["windows"])
    with open(out / "summary.csv", newline="") as f:
        assert list(csv.DictReader(f).fieldnames or []) == SUMMARY_COLUMNS
    table = (out / "table.txt").read_text()
    assert all(name in table and name in proc.stdout for name in executors.split(","))

    if importlib.util.find_spec("matplotlib") is not None:
        assert (out / "steps_per_s.png").stat().st_size > 0
    else:
        assert any("matplotlib" in note for note in doc["notes"])


def test_missing_libraries_become_notes(tmp_path):
    """No envpool, no matplotlib, a task Gymnasium lacks: skipped with notes, still exit 0."""
    shadow = tmp_path / "shadow"
    for name in ("envpool", "matplotlib"):
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(f"raise ImportError('no {name} here')\n")
    out = tmp_path / "out"
    args = [*TINY, "--task", "Counting-v0", "--no-extras", "--out", str(out)]
    args += ["--executors", "envfleet-sync,envpool-sync,gymnasium-sync"]
    proc = run_bench(args, extra_path=str(shadow))
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    notes = "\n".join(doc["notes"])
    assert "envpool-sync skipped: envpool is not importable" in notes
    assert "gymnasium-sync skipped: Gymnasium has no task 'Counting-v0'" in notes
    assert "matplotlib is not installed" in notes
    assert not (out / "steps_per_s.png").exists()
    assert [r["executor"] for r in doc["summary"]] == ["envfleet-sync"]
    assert "note: envpool-sync skipped" in proc.stdout


def test_bad_arguments_exit_2(tmp_path):
    proc = run_bench(["--task", "NoSuchTask-v0", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "unknown task" in proc.stderr
    proc = run_bench(["--executors", "envfleet-turbo", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "unknown executor 'envfleet-turbo'" in proc.stderr
    proc = run_bench(["--executors", "envfleet-sync@Nope-v0", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "unknown task 'Nope-v0'" in proc.stderr
    proc = run_bench(["--import", "no_such_module_xyz", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "--import failed" in proc.stderr


def test_env_options_reach_every_executor(tmp_path):
    """--option NAME=VALUE makes every executor's envs with that option (Gymnasium's
    constructor takes the same name) and the raw limit's env too; a bad one exits 2."""
    out = tmp_path / "out"
    args = [*TINY, "--executors", "envfleet-sync,gymnasium-sync", "--no-extras"]
    proc = run_bench([*args, "--option", "sutton_barto_reward=true", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    assert doc["config"]["options"] == {"sutton_barto_reward": True}
    assert "every env made with sutton_barto_reward=True (--option)" in proc.stdout
    from envfleet.bench.tasks import gymnasium_maker

    env = gymnasium_maker("CartPole-v1", {"sutton_barto_reward": True})()
    assert env.unwrapped._sutton_barto_reward is True
    env.close()
    proc = run_bench(["--option", "no_such_option=1", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "--option: unknown option 'no_such_option'" in proc.stderr
    proc = run_bench(["--option", "sutton_barto_reward", "--out", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "--option takes NAME=VALUE" in proc.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("mujoco") is None or importlib.util.find_spec("envpool") is None,
    reason="the MuJoCo family and EnvPool are needed",
)
def test_pixel_observations_in_every_library():
    """--option from_pixels=true: envfleet and EnvPool give (3, 84, 84) frames, Gymnasium its
    renderer's (84, 84, 3) through AddRenderObservation; each executor steps."""
    code = """
        import numpy as np
        from envfleet.bench.executors import build, make_actions
        from envfleet.bench.tasks import gymnasium_maker
        options = {"from_pixels": True}
        env = gymnasium_maker("HalfCheetah-v5", options)()
        print(env.reset(seed=0)[0].shape)
        env.close()
        actions = make_actions("HalfCheetah-v5", 2, 4, 0, options)
        for name in ("envfleet-sync", "envfleet-async", "envpool-sync"):
            num_envs = 4 if name.endswith("async") else 2
            executor = build(name, "HalfCheetah-v5", num_envs, 2, 1, 0, actions, None, options)
            print(name, executor.run(2))
            executor.close()
    """
    out = assert_isolated_ok(code, timeout=300)
    assert out.split("\n")[:4] == [
        "(84, 84, 3)",
        "envfleet-sync 4",
        "envfleet-async 4",
        "envpool-sync 4",
    ]


def test_cells_collapse_and_cap():
    cells, notes = make_cells(
        list(EXECUTORS),
        "CartPole-v1",
        [1, 128],
        [1, 2],
        cores=2,
        async_factor=2,
        gymnasium_async_max_envs=64,
    )
    keys = [c.key for c in cells]
    assert len(keys) == len(set(keys))
    # A pool of one env gets one thread: the t=1 and t=2 grid points are one cell.
    assert [c.num_threads for c in cells if c.executor == "envfleet-sync" and c.num_envs == 1] == [
        1
    ]
    # The async pool of batch 1 has 2 envs, so both thread counts are distinct cells.
    assert sorted(
        c.num_threads for c in cells if c.executor == "envfleet-async" and c.batch_size == 1
    ) == [1, 2]
    assert not [c for c in cells if c.executor == "gymnasium-async" and c.num_envs > 64]
    assert any("gymnasium-async skipped" in n for n in notes)
    limits = {(c.executor, c.batch_size, c.num_threads): c.usable_cores for c in cells}
    assert limits[("envfleet-sync", 128, 2)] == 2
    assert limits[("python-loop", 128, None)] == 1
    assert limits[("gymnasium-async", 1, None)] == 1


@pytest.mark.parametrize("name", ["envfleet-sync", "envfleet-async", "python-loop"])
def test_executor_counts_batch_rows(name):
    info = EXECUTORS[name]
    batch = 3
    num_envs = 2 * batch if info.mode == "async" else batch
    actions = make_actions("CartPole-v1", batch, 4, seed=0)
    assert actions.shape == (4, batch)
    np_again = make_actions("CartPole-v1", batch, 4, seed=0)
    assert (actions == np_again).all()  # the same stream for every executor
    executor = build(name, "CartPole-v1", num_envs, batch, 1, 0, actions)
    try:
        assert executor.run(50) == 50 * batch  # through several episode ends
    finally:
        executor.close()


@pytest.mark.extended
def test_python_env_beside_cpp_and_reference(tmp_path):
    """--import registers a Python-written env in every process; NAME@TASK runs the C++ task
    beside it, and --reference-task is what Gymnasium runs instead."""
    out = tmp_path / "out"
    example = os.path.join(_REPO, "examples", "cartpole.py")
    executors = "envfleet-sync,envfleet-sync@CartPole-v1,gymnasium-sync"
    args = [*TINY, "--import", example, "--task", "PyCartPole-v1"]
    args += ["--reference-task", "CartPole-v1", "--executors", executors, "--no-extras"]
    proc = run_bench([*args, "--out", str(out)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    doc = json.loads((out / "results.json").read_text())
    labels = [r["label"] for r in doc["summary"]]
    assert labels == ["envfleet-sync", "envfleet-sync@CartPole-v1", "gymnasium-sync"]
    tasks = {r["label"]: r["task"] for r in doc["summary"]}
    assert tasks["envfleet-sync@CartPole-v1"] == "CartPole-v1"
    assert tasks["gymnasium-sync"] == "PyCartPole-v1"  # the work it stands in for
    assert set(doc["limits"]) == {"PyCartPole-v1", "CartPole-v1"}  # a limit per task
    assert all(r["fraction_of_limit"] > 0 for r in doc["summary"])
    assert "run CartPole-v1 (--reference-task)" in proc.stdout
    assert "best of each executor" in proc.stdout


@pytest.mark.skipif(
    importlib.util.find_spec("ale_py") is None or "Pong-v5" not in envfleet.list_all_envs(),
    reason="the Atari family and ale-py are needed",
)
@pytest.mark.parametrize(
    "name", ["ale-vector-sync", "ale-vector-async", "gymnasium-sync", "python-loop"]
)
def test_atari_executors_do_envfleets_work(name):
    """AtariVectorEnv and Gymnasium's wrapped ALE/Pong-v5 stand for Pong-v5, same shapes."""
    from envfleet.bench.tasks import ale_vector_kwargs, gymnasium_maker

    kwargs = ale_vector_kwargs("Pong-v5")
    assert kwargs["game"] == "pong" and kwargs["reward_clipping"] is False
    assert kwargs["max_num_frames_per_episode"] == 27000 * 4
    env = gymnasium_maker("Pong-v5")()
    try:
        assert env.observation_space.shape == (4, 84, 84)
        assert env.action_space == envfleet.make_spec("Pong-v5").action_space
    finally:
        env.close()
    batch = 2
    num_envs = 2 * batch if EXECUTORS[name].mode == "async" else batch
    actions = make_actions("Pong-v5", batch, 4, seed=0)
    executor = build(name, "Pong-v5", num_envs, batch, 1, 0, actions)
    try:
        assert executor.run(5) == 5 * batch
    finally:
        executor.close()


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_minigrid_gymnasium_workers_make_minigrid_under_any_start_method(start_method):
    """A spawned AsyncVectorEnv worker starts without minigrid imported (TorchRL, among
    others, makes "spawn" the process-wide default): the maker must import it there."""
    import gymnasium

    from envfleet.bench.tasks import gymnasium_maker

    maker = gymnasium_maker("BabyAI-GoToLocal-v0", {"max_steps": 10})
    env = gymnasium.vector.AsyncVectorEnv([maker] * 2, shared_memory=False, context=start_method)
    try:
        env.reset(seed=0)
        env.step(np.zeros(2, dtype=np.int64))
    finally:
        env.close()


@pytest.mark.parametrize(
    "name", ["gymnasium-sync", "gymnasium-async", "envpool-sync", "envfleet-async"]
)
def test_minigrid_executors_do_envfleets_work(name):
    """minigrid 3.2.0 (installed alone on first use) stands for a MiniGrid/BabyAI id under
    Gymnasium, whose AsyncVectorEnv cannot share the mission string's memory; minigrid's
    ``max_steps`` is EnvPool's ``max_episode_steps``."""
    from envfleet.bench.tasks import envpool_options, gymnasium_async_kwargs, gymnasium_maker

    task = "BabyAI-GoToLocal-v0"
    assert envpool_options(task, {"max_steps": 10}) == {"max_episode_steps": 10}
    assert envpool_options("CartPole-v1", {"max_steps": 10}) == {"max_steps": 10}
    assert gymnasium_async_kwargs(task) == {"shared_memory": False}
    assert gymnasium_async_kwargs("CartPole-v1") == {}
    env = gymnasium_maker(task, {"max_steps": 10})()
    try:
        assert env.unwrapped.max_steps == 10
        assert env.action_space == envfleet.make_spec(task).action_space
    finally:
        env.close()
    batch = 2
    num_envs = 2 * batch if EXECUTORS[name].mode == "async" else batch
    actions = make_actions(task, batch, 4, seed=0)
    executor = build(name, task, num_envs, batch, 1, 0, actions, {"max_steps": 10})
    try:
        assert executor.run(30) == 30 * batch  # crosses the 10-step episodes' resets
    finally:
        executor.close()


def test_plain_cartpole_loop_follows_cartpole_and_counts_its_steps():
    """The independent limit takes whole rounds of every env and really steps them: random
    actions end episodes, and every episode's observations stay inside CartPole's bounds
    (its checksum sums the first observation, rewards and flags of the last round)."""
    steps, seconds, checksum = _core.plain_cartpole_rate(64, 1000)
    assert steps == 16 * 64 and seconds > 0  # at least 1000 steps, in rounds of 64
    # Every env earned reward 1.0 in the last round, and |x| <= 2.4 + one step's move.
    assert 64 - 64 * 2.5 <= checksum <= 64 * 3 + 64 * 2.5
    again = _core.plain_cartpole_rate(64, 1000)
    assert again[2] == checksum  # the same seed, the same trajectory
    with pytest.raises(ValueError, match="num_envs"):
        _core.plain_cartpole_rate(0, 10)


def test_tiny_tasks_get_the_long_grid():
    """Tasks of the engine-free module run to thousands of envs by default; others do not."""
    assert default_batches(quick=False, tiny=True)[-1] == 4096
    assert default_batches(quick=True, tiny=True)[-1] == 2048
    assert default_batches(quick=False)[-1] == 256
    assert bench_main._is_tiny("CartPole-v1") and bench_main._is_tiny("FrozenLake-v1")
    assert not bench_main._is_tiny("Ant-v5") and not bench_main._is_tiny("NoSuchTask-v0")


def test_raw_step_rate_round_robin():
    """The raw loop over several envs takes the asked steps in all and counts every episode."""
    spec = envfleet.make_spec("CartPole-v1")
    options, limit = spec.config.env_options, spec.config.max_episode_steps
    rate = spec.module.raw_step_rate
    steps, seconds, episodes = rate("CartPole", options, 2000, limit, 0, 4)
    assert steps == 2000 and seconds > 0
    assert episodes > 4  # each env starts one; random actions end CartPole episodes quickly
    with pytest.raises(ValueError, match="num_envs"):
        rate("CartPole", options, 10, limit, 0, 0)


def test_raw_step_rate_resets_an_env_that_truncates_itself():
    """MiniGrid truncates its own episodes (max_steps), as the pool's loops honour: so does the
    limit's loop, even with no time limit of its own. Random actions on Empty-16x16 never reach
    the goal in 10 steps (26 forward moves away at least)."""
    spec = envfleet.make_spec("MiniGrid-Empty-16x16-v0", max_steps=10)
    rate = spec.module.raw_step_rate
    steps, _, episodes = rate(spec.env_type, spec.config.env_options, 1000, 0, 0, 1)
    assert steps == 1000
    assert episodes == 1 + 1000 // 10


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.parametrize("task", ["FetchPush-v4", "HandManipulateBlock-v0"])
def test_robotics_gymnasium_workers_patch_the_reference_under_any_start_method(task, start_method):
    """gymnasium-robotics needs one patch on MuJoCo 4.0.0 (Fetch fails at make without it):
    the maker applies it in whichever process makes the env, a spawned AsyncVectorEnv worker
    included. A mujoco-py id (``-v0`` of the Shadow Hand) runs its envfleet id's task."""
    import gymnasium

    from envfleet.bench.tasks import gymnasium_maker, library_task

    assert library_task("gymnasium", task, "CartPole-v1") == task
    maker = gymnasium_maker(task)
    env = gymnasium.vector.AsyncVectorEnv([maker] * 2, context=start_method)
    try:
        env.reset(seed=0)
        env.step(np.zeros((2, *env.single_action_space.shape), dtype=np.float32))
    finally:
        env.close()


@pytest.mark.skipif(not vizdoom_built(), reason="no ViZDoom family (no Boost at build time)")
@pytest.mark.parametrize(
    "name", ["gymnasium-async", "envpool-sync", "envpool-async", "envfleet-sync", "envfleet-async"]
)
def test_vizdoom_executors_do_envfleets_work(name, tmp_path, monkeypatch):
    """vizdoom's own DoomGame stands for a ViZDoom id under Gymnasium (in forked workers too),
    with envfleet's spaces; EnvPool runs its engines from a working folder of its own, which
    nothing is left in afterwards."""
    import os

    monkeypatch.chdir(tmp_path)  # the cell's process moves (EnvPool); the test's returns
    task = "Basic-v1"
    batch = 2
    num_envs = 2 * batch if EXECUTORS[name].mode == "async" else batch
    actions = make_actions(task, batch, 4, seed=0)
    executor = build(name, task, num_envs, batch, 1, 0, actions, {"use_combined_action": True})
    try:
        assert executor.run(40) == 40 * batch  # Basic's episodes end within these steps
    finally:
        executor.close()
    assert not os.listdir(tmp_path), "the engines wrote into the working directory"
