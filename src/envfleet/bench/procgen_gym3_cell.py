"""The bench's peers on procgen's own Python side, which runs under another interpreter.

procgen's Python interface (OpenAI's procgen 0.10.7: ``ProcgenGym3Env``, its gym env)
requires NumPy < 2, so it lives in a venv of its own (``references.procgen_python()``). Its
executors are built in the bench's cell process like every other (same action stream, same
warm-up and windows, :func:`envfleet.bench._cell.time_windows`), but what they step lives in
a *peer process* started under that venv's Python from this file:

- the cell (envfleet's interpreter) calls :func:`start`, which runs ``<procgen python> this
  file`` and sends it one JSON line: the executor, its configuration and the action stream;
- the peer (procgen's interpreter) builds the executor, answers with its worker processes and
  build time, then serves ``run`` requests (``{"op": "run", "calls": n}``: make ``n`` batched
  calls, answer with the rows stepped) until ``close`` or the end of its input;
- the cell's ``run(calls)`` is one such request: a pipe round trip per window (tens of
  microseconds against windows of a tenth of a second or more), so the windows time the peer's
  calls, and the peer's CPU time (its threads, and its workers') counts as the cell's.

The peer's executors (``executor`` in the JSON line):

- ``procgen-gym3``: ``ProcgenGym3Env(num=num_envs, num_threads=num_threads, rand_seed=seed,
  **kwargs)``; a call is ``act(actions)`` then ``observe()`` (with ``num_threads`` > 0, act
  starts the step on procgen's threads and observe waits for it; with 0 act steps every game
  on the calling thread);
- ``gymnasium-sync`` / ``gymnasium-async``: Gymnasium's ``SyncVectorEnv`` / ``AsyncVectorEnv``
  (one worker process per env) over procgen's gym env (``procgen.gym_registration.make_env``:
  ``ToGymEnv`` over ``ProcgenGym3Env(num=1, num_threads=0)``) behind a thin adapter to
  Gymnasium's API (``reset`` gives ``(obs, {})``, ``step`` ``terminated=done``), env ``i``
  made with ``rand_seed=seed + i`` (envfleet's rule), next-step autoreset (Gymnasium's);
- ``python-loop``: the same envs in a Python ``for`` loop with the same autoreset.

Gymnasium is not installed in procgen's venv: the cell hands the peer a folder of links to the
Gymnasium (and its two pure-Python requirements) of its own interpreter, the very copy the
bench's other Gymnasium cells run, which supports NumPy 1.26. Everything the peer imports at
module level is the standard library: this file is imported by the cell too, and the peer
imports NumPy, procgen and Gymnasium only as it builds, never envfleet.

The peer writes its answers to a private copy of its standard output; file descriptor 1 is
pointed at standard error first, so that whatever the libraries print (procgen's gym env
prints warnings on stdout) cannot be taken for an answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

# Gymnasium and the pure-Python packages it imports, linked into the peer's path.
GYMNASIUM_MODULES = ("gymnasium", "farama_notifications", "typing_extensions")
PEER_EXECUTORS = ("procgen-gym3", "gymnasium-sync", "gymnasium-async", "python-loop")


# ---- the cell's side (envfleet's interpreter) ----------------------------------------------


def gymnasium_links(folder: str) -> str:
    """Links to this interpreter's Gymnasium (and the modules of ``GYMNASIUM_MODULES``) in
    ``folder``, for the peer's ``sys.path``; returns ``folder``."""
    import importlib.util

    for name in GYMNASIUM_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise RuntimeError(f"{name} is not importable here: Gymnasium's peers need it")
        if spec.submodule_search_locations:  # a package: link its folder
            source = os.path.dirname(spec.origin)
        else:
            source = spec.origin
        os.symlink(source, os.path.join(folder, os.path.basename(source)))
    return folder


class Peer:
    """A peer process serving ``run`` requests for one executor (see the module doc).

    Raises ``RuntimeError`` with the peer's error when it cannot build the executor.
    ``pids`` holds the peer and its worker processes, ``make_s`` the executor's build time
    measured in the peer (without the interpreter's start), ``versions`` what it ran.
    """

    def __init__(self, python: str, config: dict[str, Any]):
        self._links = None
        if config["executor"] != "procgen-gym3":
            self._links = tempfile.mkdtemp(prefix="envfleet-bench-procgen-gymnasium-")
            config = {**config, "path": [gymnasium_links(self._links)]}
        env = dict(os.environ)
        # Nothing of envfleet's interpreter (its NumPy 2) on the peer's path.
        for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
            env.pop(name, None)
        env.setdefault("PYTHONWARNINGS", "ignore")
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )  # stderr: the cell's, which the runner reads (a failed cell shows its last line)
        try:
            ready = self._ask(config)
        except BaseException:
            self.close()
            raise
        self.pids: list[int] = [self.proc.pid, *ready["pids"]]
        self.make_s: float = ready["make_s"]
        self.versions: dict[str, str] = ready["versions"]

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the peer is gone: its exit code is reported below
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise RuntimeError(f"procgen's peer process exited (code {code}); see its stderr")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def run(self, calls: int) -> int:
        return self._ask({"op": "run", "calls": calls})["steps"]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._ask({"op": "close"})
                self.proc.wait(timeout=60)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        if self._links is not None:
            import shutil

            shutil.rmtree(self._links, ignore_errors=True)
            self._links = None


def start(
    executor: str,
    kwargs: dict[str, Any],
    num_envs: int,
    num_threads: int,
    seed: int,
    actions: Any,
    python: str | None = None,
) -> Peer:
    """Starts a peer running ``executor`` (one of ``PEER_EXECUTORS``) over ``num_envs`` envs
    made with ProcgenGym3Env's ``kwargs`` (:func:`envfleet.bench.tasks.procgen_gym3_kwargs`),
    ``num_threads`` (procgen-gym3's; the others take none), ``seed`` and the action stream
    ``actions`` (``(count, num_envs)`` integers); under ``python`` (default procgen's venv)."""
    if python is None:
        from envfleet.bench.references import procgen_python

        python = str(procgen_python())
    config = {
        "executor": executor,
        "kwargs": kwargs,
        "num_envs": num_envs,
        "num_threads": num_threads,
        "seed": seed,
        "actions": [[int(a) for a in batch] for batch in actions],
    }
    return Peer(python, config)


# ---- the peer's side (procgen's interpreter) -----------------------------------------------


def _gym3(config: dict[str, Any]):
    import numpy as np
    from procgen import ProcgenGym3Env

    env = ProcgenGym3Env(
        num=config["num_envs"],
        num_threads=config["num_threads"],
        rand_seed=config["seed"],
        **config["kwargs"],
    )
    batches = [np.asarray(batch, dtype=np.int32) for batch in config["actions"]]
    count, rows = len(batches), config["num_envs"]
    act, observe = env.act, env.observe

    def run(calls: int) -> int:
        for i in range(calls):
            act(batches[i % count])
            observe()
        return calls * rows

    return run, getattr(env, "close", lambda: None), []


def _gymnasium_env(kwargs: dict[str, Any]):
    """One procgen gym env (procgen's ``make_env``, what ``gym.make("procgen:procgen-<game>-v0",
    ...)`` builds) behind Gymnasium's API."""
    import gymnasium
    import numpy as np
    from procgen.gym_registration import make_env

    class ProcgenGymnasium(gymnasium.Env):
        def __init__(self) -> None:
            self.env = make_env(**kwargs)
            self.observation_space = gymnasium.spaces.Box(0, 255, (64, 64, 3), np.uint8)
            self.action_space = gymnasium.spaces.Discrete(self.env.action_space.n)

        def reset(self, *, seed=None, options=None):
            return self.env.reset(), {}

        def step(self, action):
            obs, reward, done, info = self.env.step(action)
            return obs, float(reward), bool(done), False, info

    return ProcgenGymnasium()


def _gymnasium(config: dict[str, Any]):
    import gymnasium
    import numpy as np

    seed, executor = config["seed"], config["executor"]
    makers = [
        (lambda i=i: _gymnasium_env({**config["kwargs"], "rand_seed": seed + i}))
        for i in range(config["num_envs"])
    ]
    if executor == "python-loop":
        return _python_loop([make() for make in makers], config["actions"])
    vector = gymnasium.vector.SyncVectorEnv
    if executor == "gymnasium-async":
        vector = gymnasium.vector.AsyncVectorEnv
    env = vector(makers)
    try:
        env.reset(seed=seed)
        pids = [p.pid for p in getattr(env, "processes", []) if p.pid is not None]
        dtype = env.single_action_space.dtype
        batches = [np.asarray(batch, dtype=dtype) for batch in config["actions"]]
    except BaseException:
        env.close()
        raise
    count, rows = len(batches), config["num_envs"]
    step = env.step

    def run(calls: int) -> int:
        for i in range(calls):
            step(batches[i % count])
        return calls * rows

    return run, env.close, pids


def _python_loop(envs: list, actions: list):
    for env in envs:
        env.reset()
    batches = [list(batch) for batch in actions]
    count, rows = len(batches), len(envs)
    done = [False] * rows
    pairs = list(enumerate(envs))

    def run(calls: int) -> int:
        for i in range(calls):
            batch = batches[i % count]
            for j, env in pairs:
                if done[j]:  # next_step autoreset, as the vector envs do
                    env.reset()
                    done[j] = False
                else:
                    _, _, terminated, truncated, _ = env.step(batch[j])
                    done[j] = terminated or truncated
        return calls * rows

    def close() -> None:
        for env in envs:
            env.close()

    return run, close, []


def _versions() -> dict[str, str]:
    import numpy
    import procgen

    versions = {"procgen": procgen.__version__.strip(), "procgen_numpy": numpy.__version__}
    versions["procgen_python"] = sys.version.split()[0]
    if "gymnasium" in sys.modules:
        versions["procgen_gymnasium"] = sys.modules["gymnasium"].__version__
    return versions


def serve() -> int:
    """The peer's loop (see the module doc); returns its exit code."""
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what the libraries print goes to stderr

    def answer(message: dict[str, Any]) -> None:
        answers.write(json.dumps(message) + "\n")
        answers.flush()

    config = json.loads(sys.stdin.readline() or "{}")
    sys.path[:0] = config.get("path", [])
    try:
        import procgen  # noqa: F401  (imports are not build time)

        if config["executor"] != "procgen-gym3":
            import gymnasium  # noqa: F401
        start = time.perf_counter()
        build = _gym3 if config["executor"] == "procgen-gym3" else _gymnasium
        run, close, pids = build(config)
    except Exception as exc:
        import traceback

        traceback.print_exc()
        answer({"error": f"{config.get('executor')} failed to build: {type(exc).__name__}: {exc}"})
        return 1
    answer({"pids": pids, "make_s": time.perf_counter() - start, "versions": _versions()})
    try:
        for line in sys.stdin:
            request = json.loads(line)
            if request["op"] == "close":
                break
            answer({"steps": run(int(request["calls"]))})
    finally:
        close()
    answer({"closed": True})
    return 0


if __name__ == "__main__":
    sys.exit(serve())
