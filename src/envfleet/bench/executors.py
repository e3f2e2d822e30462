"""The contestants: the ways to step a batch of environments, all doing the same work.

Each executor is built inside a fresh cell process (see :mod:`envfleet.bench._cell`) and
exposes one operation, ``run(calls)``: make ``calls`` batched calls, each stepping
``batch_size`` environments with the next batch of a pre-generated action stream, and return
the number of environment steps taken (batch rows). The action stream is sampled once from
the task's action space with a fixed seed, so every executor feeds its envs the very same
actions; only the dtype is adapted to what each library takes (EnvPool's discrete actions are
int32). Episode ends are handled the way the vector libraries do (``next_step`` autoreset:
the call after an episode ends resets that env and counts as a step), and the plain Python
loop mimics it, so a row is the same unit of work everywhere. How each library is configured
to do an envfleet task's work (Atari preprocessing, reference tasks) is :mod:`.tasks`'s job.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ExecutorInfo:
    """What the planner and the report need to know about an executor, without building it."""

    name: str
    library: str  # the package that must be importable: envfleet, envpool, gymnasium, ale_py,
    # dm_control, pufferlib, gymnax; procgen: procgen's own interface, in its venv (Procgen)
    mode: str  # "sync" (batch_size == num_envs) or "async" (batches of the first to finish)
    threaded: bool  # takes a num_threads option (the grid's thread axis applies)
    description: str
    # A jitted JAX loop through the library's xla(): needs JAX, and runs only when named in
    # --executors (each of its processes imports JAX and compiles the loop, which is slow).
    xla: bool = False
    # Part of the default executors of --quick; the peers that start worker processes or
    # compile a JAX loop in every cell process run in the full grid, or when named.
    quick: bool = True
    # The fewest threads (worker processes) the executor can run with; grid points below it
    # are left out with a note (PufferLib's async mode needs two workers).
    min_threads: int = 1
    # Also measured at 2 and 4 threads per core, beside the grid's counts: a peer whose best
    # thread count is to be found (procgen's ProcgenGym3Env, as the Procgen issue asks).
    thread_sweep: bool = False


EXECUTORS: dict[str, ExecutorInfo] = {
    info.name: info
    for info in (
        ExecutorInfo("envfleet-sync", "envfleet", "sync", True, "envfleet.make + step()"),
        ExecutorInfo(
            "envfleet-async", "envfleet", "async", True, "envfleet async_reset + recv/send"
        ),
        ExecutorInfo(
            "envfleet-xla",
            "envfleet",
            "sync",
            True,
            "envfleet xla(): jitted lax.fori_loop of step",
            xla=True,
        ),
        ExecutorInfo(
            "envfleet-xla-async",
            "envfleet",
            "async",
            True,
            "envfleet xla(): jitted lax.fori_loop of recv + send",
            xla=True,
        ),
        ExecutorInfo("envpool-sync", "envpool", "sync", True, "envpool.make_gymnasium + step()"),
        ExecutorInfo("envpool-async", "envpool", "async", True, "envpool async_reset + recv/send"),
        ExecutorInfo(
            "envpool-xla",
            "envpool",
            "sync",
            True,
            "envpool xla(): jitted lax.fori_loop of step",
            xla=True,
        ),
        ExecutorInfo(
            "envpool-xla-async",
            "envpool",
            "async",
            True,
            "envpool xla(): jitted lax.fori_loop of recv + send",
            xla=True,
        ),
        ExecutorInfo(
            "gymnasium-sync", "gymnasium", "sync", False, "gymnasium.make_vec(mode='sync')"
        ),
        ExecutorInfo(
            "gymnasium-async",
            "gymnasium",
            "sync",
            False,
            "gymnasium.make_vec(mode='async'): one process per env",
        ),
        ExecutorInfo(
            "python-loop", "gymnasium", "sync", False, "for-loop over gymnasium.make envs"
        ),
        ExecutorInfo(
            "dm-control-loop",
            "dm_control",
            "sync",
            False,
            "for-loop over dm_control suite.load envs (dm_control tasks)",
        ),
        ExecutorInfo(
            "ale-vector-sync", "ale_py", "sync", True, "ale_py AtariVectorEnv + step() (Atari)"
        ),
        ExecutorInfo(
            "ale-vector-async", "ale_py", "async", True, "ale_py AtariVectorEnv recv/send (Atari)"
        ),
        # PufferLib 3 wraps the same Gymnasium envs as gymnasium-sync (tasks.gymnasium_maker):
        # the same dynamics and preprocessing, vectorized by pufferlib.vector.
        ExecutorInfo(
            "pufferlib-serial",
            "pufferlib",
            "sync",
            False,
            "pufferlib.vector.Serial over GymnasiumPufferEnv (Gymnasium's env), step()",
            quick=False,
        ),
        ExecutorInfo(
            "pufferlib-multiprocessing",
            "pufferlib",
            "sync",
            True,
            "pufferlib.vector.Multiprocessing, num_workers=threads, batch_size=num_envs, step()",
            quick=False,
        ),
        ExecutorInfo(
            "pufferlib-multiprocessing-async",
            "pufferlib",
            "async",
            True,
            "pufferlib.vector.Multiprocessing, num_workers=threads, batch_size < num_envs, "
            "recv/send",
            quick=False,
            min_threads=2,
        ),
        # procgen's own vectorized env, in a peer process under procgen's venv (NumPy < 2):
        # envfleet.bench.procgen_gym3_cell. Procgen tasks only.
        ExecutorInfo(
            "procgen-gym3",
            "procgen",
            "sync",
            True,
            "procgen's ProcgenGym3Env(num=n, num_threads=t): act() then observe() (Procgen)",
            thread_sweep=True,
        ),
        ExecutorInfo(
            "procgen-gym3-serial",
            "procgen",
            "sync",
            False,
            "procgen's ProcgenGym3Env(num=n, num_threads=0): act() steps every game on the "
            "calling thread, then observe() (Procgen)",
        ),
        ExecutorInfo(
            "gymnax-jit",
            "gymnax",
            "sync",
            False,
            "gymnax CartPole-v1 (a JAX re-implementation of Gymnasium's dynamics, float32): "
            "jitted lax.fori_loop of vmapped step (its same-step autoreset), on CPU",
            quick=False,
        ),
    )
}


@dataclass
class Executor:
    """A built executor: ``run(calls) -> env steps``, ``close()``, and its worker processes.

    ``worker_pids`` lists processes other than this one that do the executor's work (the
    workers of Gymnasium's AsyncVectorEnv), so that their CPU time is counted as the cell's.
    ``setup`` holds one-off costs measured while building, reported beside the rates
    (``compile_s``: gymnax-jit's jit compilation); ``internals`` what a test may inspect.
    """

    run: Callable[[int], int]
    close: Callable[[], None]
    worker_pids: list[int] = field(default_factory=list)
    setup: dict[str, float] = field(default_factory=dict)
    internals: dict[str, Any] = field(default_factory=dict)


def make_actions(
    task: str, rows: int, count: int, seed: int, options: dict[str, Any] | None = None
) -> np.ndarray:
    """``count`` batches of ``rows`` actions sampled from the task's action space.

    Sampled from ``batch_space(action_space, rows)`` seeded with ``seed``: the same stream for
    every executor, generated before timing so that sampling costs nothing in the windows.
    """
    from gymnasium.vector.utils import batch_space

    import envfleet

    space = batch_space(envfleet.make_spec(task, **(options or {})).action_space, rows)
    space.seed(seed)
    return np.stack([np.asarray(space.sample()) for _ in range(count)])


def unavailable_reason(
    name: str, task: str, reference_task: str | None = None, options: dict[str, Any] | None = None
) -> str | None:
    """Why executor ``name`` cannot run ``task`` (with env ``options``) here, or None."""
    from envfleet.bench import tasks

    info = EXECUTORS[name]
    options = options or {}
    if info.xla:
        try:
            import jax  # noqa: F401
        except Exception as exc:
            return f"JAX is not importable ({exc}); pip install 'envfleet[jax]'"
        if info.library == "envfleet":
            try:
                importlib.import_module("envfleet._xla")
            except ImportError as exc:
                return f"envfleet._xla is not built ({exc}); see docs/xla.md, Installing"
    if info.library == "envpool":
        try:
            import envpool
        except Exception as exc:  # ImportError, or a broken binary wheel
            return f"envpool is not importable ({exc}); pip install 'envfleet[bench]'"
        theirs = tasks.library_task("envpool", task, reference_task)
        if theirs not in envpool.list_all_envs():
            return f"EnvPool has no task {theirs!r}"
    elif info.library == "procgen" or (info.library == "gymnasium" and tasks.procgen_task(task)):
        return _procgen_reason(name, task, options)
    elif info.library == "gymnasium":
        return _gymnasium_reason(task, reference_task, options)
    elif info.library == "pufferlib":
        if tasks.procgen_task(task):
            return "procgen's gym env runs in procgen's venv (NumPy < 2), where PufferLib is not"
        try:
            pufferlib = import_pufferlib()
        except Exception as exc:
            return f"pufferlib 3.x is not importable ({exc}); see benchmarks/README.md, PufferLib"
        if not str(pufferlib.__version__).startswith("3"):
            return f"pufferlib {pufferlib.__version__} is not 3.x (the bench drives 3.0's API)"
        if options.get("from_pixels") and info.threaded:
            return (
                "PufferLib's Multiprocessing forks its workers, and a forked copy of an "
                "initialised EGL context hangs: no from_pixels"
            )
        return _gymnasium_reason(task, reference_task, options)
    elif info.library == "gymnax":
        try:
            import gymnax  # noqa: F401
        except Exception as exc:  # ImportError, or a JAX it does not work with
            return f"gymnax is not importable ({exc}); pip install 'envfleet[bench]'"
        if task != "CartPole-v1":
            return "gymnax-jit runs CartPole-v1 only (gymnax's classic control is its own JAX code)"
        if options:
            return "gymnax-jit takes no --option (gymnax's CartPole has its own parameters)"
    elif info.library == "dm_control":
        maker = tasks.dm_control_maker(task)
        if maker is None:
            return "dm_control's loop runs dm_control tasks only"
        if options:
            return "dm_control's loop takes no --option (only the suite's defaults)"
        try:
            maker(0).close()
        except Exception as exc:
            return f"dm_control cannot load {task!r}: {exc}"
    elif info.library == "ale_py":
        if tasks.atari_options(task) is None:
            return "AtariVectorEnv runs Atari tasks only"
        if options:
            return "AtariVectorEnv takes no --option (only envfleet's Atari defaults)"
        try:
            from ale_py.vector_env import AtariVectorEnv  # noqa: F401
        except Exception as exc:
            return f"ale_py.vector_env is not importable ({exc})"
    return None


# What the probe's checks of the procgen peers found: reasons by (executor, task, options),
# and the versions the peer reported (peer_versions reads them).
_PROCGEN_CHECKS: dict[str, str | None] = {}
_PROCGEN_VERSIONS: dict[str, str] = {}


def _procgen_reason(name: str, task: str, options: dict[str, Any]) -> str | None:
    """Why executor ``name`` cannot run Procgen ``task`` through procgen's own interface here
    (its venv cannot be made, or the peer cannot build one env of the task), or None."""
    from envfleet.bench import tasks

    if not tasks.procgen_task(task):
        return f"{name} runs Procgen tasks only (procgen's own interface)"
    key = json.dumps([name, task, options], sort_keys=True, default=str)
    if key not in _PROCGEN_CHECKS:
        _PROCGEN_CHECKS[key] = _check_procgen_peer(name, task, options)
    return _PROCGEN_CHECKS[key]


def _check_procgen_peer(name: str, task: str, options: dict[str, Any]) -> str | None:
    from envfleet.bench import tasks

    try:
        kwargs = tasks.procgen_gym3_kwargs(task, options)
    except ValueError as exc:
        return str(exc)
    try:
        peer = _start_procgen_peer(name, kwargs, 1, None, 0, np.zeros((1, 1), np.int64))
    except Exception as exc:  # the venv cannot be made, or the peer failed
        return f"procgen's peer cannot run {task!r}: {exc}"
    try:
        peer.run(2)
        _PROCGEN_VERSIONS.update(peer.versions)
    except Exception as exc:
        return f"procgen's peer cannot step {task!r}: {exc}"
    finally:
        peer.close()
    return None


def _gymnasium_reason(task: str, reference_task: str | None, options: dict[str, Any]) -> str | None:
    """Why Gymnasium cannot make the env standing for ``task`` here, or None."""
    from envfleet.bench import tasks

    theirs = tasks.library_task("gymnasium", task, reference_task)
    maker = tasks.gymnasium_maker(theirs, options)
    if maker is None:
        return f"Gymnasium has no task {theirs!r} (--reference-task names a stand-in)"
    try:
        maker().close()
    except Exception as exc:  # a missing optional dependency of the env
        return f"Gymnasium cannot make {theirs!r}: {exc}"
    return None


def import_pufferlib():
    """``import pufferlib`` (with ``pufferlib.vector`` and ``pufferlib.emulation``).

    PufferLib 3.0's ``__init__`` creates a symlink named ``resources`` in the current
    directory; the import runs from a temporary directory so that it leaves nothing in the
    user's.
    """
    import sys
    import tempfile

    if "pufferlib.vector" not in sys.modules:
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as scratch:
            os.chdir(scratch)
            try:
                import pufferlib.emulation
                import pufferlib.vector  # noqa: F401
            finally:
                os.chdir(cwd)
    return sys.modules["pufferlib"]


def peer_versions(libraries: set[str]) -> dict[str, str | None]:
    """Versions of the peers among ``libraries`` (and of JAX for gymnax); None if missing."""
    from importlib import metadata

    versions: dict[str, str | None] = {}
    if "pufferlib" in libraries:
        try:
            versions["pufferlib"] = str(import_pufferlib().__version__)
        except Exception:
            versions["pufferlib"] = None
    if "procgen" in libraries or "gymnasium" in libraries:
        versions.update(_PROCGEN_VERSIONS)  # what the probe's checks of procgen's peer found
    if "gymnax" in libraries:
        for name in ("gymnax", "jax"):
            try:
                versions[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                versions[name] = None
    return versions


def build(
    name: str,
    task: str,
    num_envs: int,
    batch_size: int,
    num_threads: int | None,
    seed: int,
    actions: np.ndarray,
    reference_task: str | None = None,
    options: dict[str, Any] | None = None,
) -> Executor:
    """Builds executor ``name`` and brings it to the state where ``run`` can be timed.

    ``actions`` has shape ``(count, batch_size, *action_shape)``; call ``i`` uses
    ``actions[i % count]``. The pool is reset (async ones: ``async_reset``) before returning.
    Libraries that lack ``task`` run ``reference_task`` instead (see :mod:`.tasks`); every
    env gets the env ``options`` (``--option``), in each library's terms.
    """
    from envfleet.bench.tasks import library_task

    theirs = library_task(EXECUTORS[name].library, task, reference_task)
    return _BUILDERS[name](theirs, num_envs, batch_size, num_threads, seed, actions, options or {})


# ---- builders ------------------------------------------------------------------------------


def _stepper(step: Callable[[np.ndarray], Any], actions: np.ndarray) -> Callable[[int], int]:
    """A ``run`` for executors whose call is ``step(batch)``; bound locals keep it lean."""
    count, rows = len(actions), actions.shape[1]
    batches = list(actions)

    def run(calls: int) -> int:
        for i in range(calls):
            step(batches[i % count])
        return calls * rows

    return run


def _send_recv(env: Any, actions: np.ndarray) -> Callable[[int], int]:
    """A ``run`` for EnvPool-style async pools: ``recv`` a batch, ``send`` actions to its envs."""
    count, rows = len(actions), actions.shape[1]
    batches = list(actions)
    recv, send = env.recv, env.send

    def run(calls: int) -> int:
        for i in range(calls):
            info = recv()[-1]
            send(batches[i % count], info["env_id"])
        return calls * rows

    return run


def _envfleet(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    import envfleet

    env = envfleet.make(
        task,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=seed,
        **options,
    )
    actions = np.ascontiguousarray(actions, dtype=env.single_action_space.dtype)
    if batch_size < num_envs:
        env.async_reset()
        return Executor(_send_recv(env, actions), env.close)
    env.reset()
    return Executor(_stepper(env.step, actions), env.close)


def envpool_make(task: str, options: dict[str, Any], **pool: Any):
    """``envpool.make_gymnasium(task, **pool, **options)``. EnvPool 1.2.5's from_pixels does
    not run on a headless machine by itself: it needs the GL platform library loaded globally
    ("an OpenGL platform library has not been loaded" otherwise) and, measured here, a GL
    context current on the calling thread ("gladLoadGL error" otherwise). With from_pixels,
    both are provided first: libEGL and libOpenGL loaded with RTLD_GLOBAL, and a 1x1 EGL
    context of the mujoco package made current, as a process that already rendered with
    Gymnasium would have it, before EnvPool is imported (imported first, it still fails)."""
    if options.get("from_pixels"):
        import ctypes

        for library in ("libEGL.so.1", "libOpenGL.so.0"):
            ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        from mujoco.egl import GLContext

        global _ENVPOOL_GL_CONTEXT
        if _ENVPOOL_GL_CONTEXT is None:
            _ENVPOOL_GL_CONTEXT = GLContext(1, 1)
            _ENVPOOL_GL_CONTEXT.make_current()
    import envpool

    from envfleet.bench.tasks import envpool_options, envpool_working_folder

    envpool_working_folder(task)
    return envpool.make_gymnasium(task, **pool, **envpool_options(task, options))


_ENVPOOL_GL_CONTEXT = None  # kept for the life of the process: EnvPool renders through it


def _envpool(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    env = envpool_make(
        task,
        options,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=seed,
    )
    # EnvPool's discrete actions are int32; its continuous ones what its space says (float32,
    # float64 for dm_control).
    dtype = np.int32 if actions.dtype.kind in "iu" else env.action_space.dtype
    actions = np.ascontiguousarray(actions, dtype=dtype)
    close = getattr(env, "close", lambda: None)
    if batch_size < num_envs:
        env.async_reset()
        return Executor(_send_recv(env, actions), close)
    env.reset()
    return Executor(_stepper(env.step, actions), close)


def _xla_loop(env: Any, actions: np.ndarray, asynchronous: bool) -> Executor:
    """``run(calls)``: one jitted ``lax.fori_loop`` of ``calls`` calls through ``env.xla()``
    (envfleet's or EnvPool's: the same interface), each ``step`` (sync) or ``recv`` + ``send``
    to the envs received (async), with ``actions[i % count]``, after a reset (async:
    ``async_reset``). The loop is compiled once, before timing (``calls`` is an argument, not a
    constant), and ``run`` waits for its end."""
    import jax
    import jax.numpy as jnp

    if asynchronous:
        env.async_reset()
    else:
        env.reset()
    handle, recv, send, step = env.xla()
    count, rows = len(actions), actions.shape[1]
    # Discrete actions as int32, continuous ones as float32: what both xla() take without x64.
    dtype = np.int32 if actions.dtype.kind in "iu" else np.float32
    batches = jnp.asarray(actions.astype(dtype))

    def call(i: Any, handle: Any) -> Any:
        action = batches[i % count]
        if asynchronous:
            handle, result = recv(handle)
            return send(handle, action, result[-1]["env_id"])
        return step(handle, action)[0]

    @jax.jit
    def loop(handle: Any, calls: Any) -> Any:
        return jax.lax.fori_loop(0, calls, call, handle)

    # EnvPool's handle is a NumPy array, the loop returns JAX arrays: one kind, one compilation.
    state = {"handle": jnp.asarray(handle)}

    def run(calls: int) -> int:
        state["handle"] = loop(state["handle"], np.int32(calls)).block_until_ready()
        return calls * rows

    # Compiled here, not in the warm-up: a first call that lasts a compilation would make the
    # warm-up stop at once and size the windows from that call's rate.
    run(0)

    return Executor(run, getattr(env, "close", lambda: None))


def _envfleet_xla(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    import envfleet

    env = envfleet.make(
        task,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=seed,
        **options,
    )
    return _xla_loop(env, actions, asynchronous=batch_size < num_envs)


def _envpool_xla(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    env = envpool_make(
        task,
        options,
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=seed,
    )
    return _xla_loop(env, actions, asynchronous=batch_size < num_envs)


def _gymnasium_vector(mode: str) -> Callable[..., Executor]:
    def make(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
        import gymnasium

        from envfleet.bench.tasks import gymnasium_async_kwargs, gymnasium_maker, procgen_task

        if procgen_task(task):  # procgen's gym env, in procgen's venv
            return _procgen_peer(f"gymnasium-{mode}")(
                task, num_envs, batch_size, None, seed, actions, options
            )

        # The same as gymnasium.make_vec(task, num_envs, mode) for a registered id, and it
        # also takes the wrapped envs that stand for Atari tasks.
        vectors = {"sync": gymnasium.vector.SyncVectorEnv, "async": gymnasium.vector.AsyncVectorEnv}
        kwargs = gymnasium_async_kwargs(task) if mode == "async" else {}
        if mode == "async" and options.get("from_pixels"):
            # AsyncVectorEnv makes one env in this process before forking its workers; a
            # forked copy of an initialised EGL/llvmpipe hangs, a spawned worker starts clean.
            kwargs["context"] = "spawn"
        env = vectors[mode]([gymnasium_maker(task, options)] * num_envs, **kwargs)
        try:
            env.reset(seed=seed)
            pids = [p.pid for p in getattr(env, "processes", []) if p.pid is not None]
            actions = np.ascontiguousarray(actions, dtype=env.single_action_space.dtype)
            return Executor(_stepper(env.step, actions), env.close, pids)
        except BaseException:
            env.close()  # never leave AsyncVectorEnv's worker processes behind
            raise

    return make


def _python_loop(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    from envfleet.bench.tasks import gymnasium_maker, procgen_task

    if procgen_task(task):  # procgen's gym envs, in procgen's venv
        return _procgen_peer("python-loop")(
            task, num_envs, batch_size, None, seed, actions, options
        )

    make_one = gymnasium_maker(task, options)
    envs = [make_one() for _ in range(num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    # One Python list of per-env actions per batch: the loop indexes, it does not convert.
    dtype = envs[0].action_space.dtype
    batches = [list(np.asarray(batch, dtype=dtype)) for batch in actions]
    count = len(batches)
    done = [False] * num_envs
    pairs = list(enumerate(envs))

    def run(calls: int) -> int:
        for i in range(calls):
            batch = batches[i % count]
            for j, env in pairs:
                if done[j]:  # next_step autoreset, as the vector libraries do
                    env.reset()
                    done[j] = False
                else:
                    _, _, terminated, truncated, _ = env.step(batch[j])
                    done[j] = terminated or truncated
        return calls * num_envs

    def close() -> None:
        for env in envs:
            env.close()

    return Executor(run, close)


def _dm_control_loop(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    from envfleet.bench.tasks import dm_control_maker

    make_one = dm_control_maker(task)
    envs = [make_one(seed + i) for i in range(num_envs)]  # envfleet seeds env i with seed + i
    for env in envs:
        env.reset()
    batches = [list(np.asarray(batch, dtype=np.float64)) for batch in actions]
    count = len(batches)
    done = [False] * num_envs
    pairs = list(enumerate(envs))

    def run(calls: int) -> int:
        for i in range(calls):
            batch = batches[i % count]
            for j, env in pairs:
                if done[j]:  # the step after a LAST resets, as the pools' autoreset does
                    env.reset()
                    done[j] = False
                else:
                    done[j] = env.step(batch[j]).last()
        return calls * num_envs

    def close() -> None:
        for env in envs:
            env.close()

    return Executor(run, close)


def _ale_vector(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    from ale_py.vector_env import AtariVectorEnv

    from envfleet.bench.tasks import ale_vector_kwargs

    kwargs = ale_vector_kwargs(task)
    env = AtariVectorEnv(
        kwargs.pop("game"),
        num_envs,
        batch_size=batch_size,
        num_threads=num_threads or 0,
        **kwargs,
    )
    actions = np.ascontiguousarray(actions, dtype=np.int32)
    # reset() ends with a recv(), and send() addresses the envs the last recv returned, so
    # step() (send + recv) is the whole loop in both modes; with batch_size < num_envs its
    # recv returns the first batch_size envs to finish, as EnvPool's async API does.
    env.reset(seed=seed)
    return Executor(_stepper(env.step, actions), env.close)


def _pufferlib(backend: str) -> Callable[..., Executor]:
    """PufferLib 3's ``pufferlib.vector`` over the Gymnasium env standing for the task.

    Each env is ``GymnasiumPufferEnv(env_creator=...)``, the way PufferLib wraps a Gymnasium
    env, around what :func:`.tasks.gymnasium_maker` makes (gymnasium-sync's env: the same
    dynamics and preprocessing). Episode ends follow next-step autoreset, as in the pools:
    ``Serial`` resets an env whose episode ended on the call after, in place of stepping it.

    - ``Serial``: ``num_envs = batch``, stepped one after another in this process;
    - ``Multiprocessing`` sync: ``num_envs = batch_size = batch``, ``num_workers = threads``
      (``autotune``'s "full sync" strategy), each worker a ``Serial`` over its share; ``step``;
    - ``Multiprocessing`` async: ``num_envs = async_factor x batch``, ``batch_size = batch``,
      ``num_workers = threads`` (``autotune``'s "one batch per core" strategy with
      ``async_factor`` 2 and two workers), ``recv`` the first workers to finish, ``send``
      them the next actions. PufferLib refuses more workers than physical cores unless
      ``overwork=True``; the bench passes it only then, so the grid's thread count holds.
    """

    def make(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
        import psutil

        from envfleet.bench.tasks import gymnasium_maker

        pufferlib = import_pufferlib()
        make_one = gymnasium_maker(task, options)

        def creator(buf=None, seed=0):
            return pufferlib.emulation.GymnasiumPufferEnv(env_creator=make_one, buf=buf, seed=seed)

        kwargs: dict[str, Any] = {}
        if backend == "Multiprocessing":
            workers = num_threads or 1
            if num_envs % workers or batch_size % (num_envs // workers):
                raise ValueError(
                    f"PufferLib's Multiprocessing hands out whole workers: num_envs "
                    f"({num_envs}) must split evenly over num_workers ({workers}) and "
                    f"batch_size ({batch_size}) be a multiple of the envs per worker"
                )
            kwargs = {"num_workers": workers, "batch_size": batch_size}
            if workers > (psutil.cpu_count(logical=False) or 1):
                kwargs["overwork"] = True
        env = pufferlib.vector.make(
            creator, backend=backend, num_envs=num_envs, seed=seed, **kwargs
        )
        processes = list(getattr(env, "processes", []))

        def close() -> None:
            env.close()  # Multiprocessing terminates its workers; reap them too
            for process in processes:
                process.join(timeout=10)

        try:
            dtype = env.single_action_space.dtype
            actions = np.ascontiguousarray(actions, dtype=dtype)
            pids = [p.pid for p in processes if p.pid is not None]
            if batch_size < num_envs:
                env.async_reset(seed)
                return Executor(_puffer_recv_send(env, actions), close, pids)
            env.reset(seed=seed)
            return Executor(_stepper(env.step, actions), close, pids)
        except BaseException:
            close()  # never leave worker processes behind
            raise

    return make


def _puffer_recv_send(env: Any, actions: np.ndarray) -> Callable[[int], int]:
    """A ``run`` for PufferLib's async mode: ``recv`` a batch, ``send`` it the next actions
    (``send`` addresses the workers the last ``recv`` returned)."""
    count, rows = len(actions), actions.shape[1]
    batches = list(actions)
    recv, send = env.recv, env.send

    def run(calls: int) -> int:
        for i in range(calls):
            recv()
            send(batches[i % count])
        return calls * rows

    return run


def _start_procgen_peer(name, kwargs, num_envs, num_threads, seed, actions):
    """A :class:`~envfleet.bench.procgen_gym3_cell.Peer` running executor ``name``
    (procgen-gym3-serial is procgen-gym3 with ``num_threads=0``)."""
    from envfleet.bench import procgen_gym3_cell

    executor = "procgen-gym3" if name.startswith("procgen-gym3") else name
    threads = 0 if name == "procgen-gym3-serial" else num_threads or 0
    return procgen_gym3_cell.start(executor, kwargs, num_envs, threads, seed, actions)


def _procgen_peer(name: str) -> Callable[..., Executor]:
    """Executor ``name`` run by procgen's own Python side, in a peer process under procgen's
    venv (:mod:`envfleet.bench.procgen_gym3_cell`): ``procgen-gym3`` (ProcgenGym3Env with the
    grid's threads), ``procgen-gym3-serial`` (with ``num_threads=0``), and for Procgen tasks
    ``gymnasium-sync``, ``gymnasium-async`` and ``python-loop`` over procgen's gym env.

    ``run`` is one request to the peer; the peer and its workers are the cell's worker
    processes (their CPU time is the cell's), and ``make_s`` is the peer's own build time
    (``setup`` overrides the cell's, which would count the interpreter's start)."""

    def make(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
        from envfleet.bench.tasks import procgen_gym3_kwargs

        if batch_size != num_envs:
            raise ValueError(f"{name} steps every env each call: batch_size must be num_envs")
        kwargs = procgen_gym3_kwargs(task, options)
        peer = _start_procgen_peer(name, kwargs, num_envs, num_threads, seed, actions)
        return Executor(
            peer.run,
            peer.close,
            list(peer.pids),
            setup={"make_s": peer.make_s},
            internals={"peer": peer},
        )

    return make


def _gymnax(task, num_envs, batch_size, num_threads, seed, actions, options) -> Executor:
    """gymnax's CartPole-v1, ``num_envs`` copies under ``jax.vmap``, stepped by one jitted
    ``lax.fori_loop`` of ``calls`` calls, on the CPU.

    Each call steps every env with ``actions[i % count]`` and fresh keys split from a carried
    key (gymnax resets with them). gymnax's ``step`` resets an env in the same call that ends
    its episode (it returns the first observation of the next one), where the pools reset on
    the call after; a row is still one call's work for one env. Each call's observation,
    reward and done are carried out of the loop, so that XLA cannot leave them uncomputed.
    The loop is compiled before timing; ``setup["compile_s"]`` is the time of tracing,
    lowering and compiling it.
    """
    import time

    import gymnax
    import jax
    import jax.numpy as jnp

    cpu = jax.devices("cpu")[0]
    env, params = gymnax.make(task)
    count, rows = len(actions), actions.shape[1]
    batches = jax.device_put(jnp.asarray(actions, dtype=jnp.int32), cpu)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    key = jax.device_put(jax.random.PRNGKey(seed), cpu)
    key, reset_key = jax.random.split(key)
    obs, state = reset(jax.random.split(reset_key, rows), params)
    reward, done = jnp.zeros(rows, jnp.float32), jnp.zeros(rows, bool)

    def call(i: Any, carry: Any) -> Any:
        state, key, _ = carry
        key, step_key = jax.random.split(key)
        obs, state, reward, done, _ = step(
            jax.random.split(step_key, rows), state, batches[i % count], params
        )
        return state, key, (obs, reward.astype(jnp.float32), done)

    def loop(carry: Any, calls: Any) -> Any:
        return jax.lax.fori_loop(0, calls, call, carry)

    carry = jax.device_put((state, key, (obs, reward, done)), cpu)
    start = time.perf_counter()
    compiled = jax.jit(loop).lower(carry, np.int32(0)).compile()
    compile_s = time.perf_counter() - start
    internals = {"carry": carry, "params": params, "key": key}

    def run(calls: int) -> int:
        internals["carry"] = jax.block_until_ready(compiled(internals["carry"], np.int32(calls)))
        return calls * rows

    return Executor(run, lambda: None, setup={"compile_s": compile_s}, internals=internals)


_BUILDERS: dict[str, Callable[..., Executor]] = {
    "envfleet-sync": _envfleet,
    "envfleet-async": _envfleet,
    "envfleet-xla": _envfleet_xla,
    "envfleet-xla-async": _envfleet_xla,
    "envpool-sync": _envpool,
    "envpool-async": _envpool,
    "envpool-xla": _envpool_xla,
    "envpool-xla-async": _envpool_xla,
    "gymnasium-sync": _gymnasium_vector("sync"),
    "gymnasium-async": _gymnasium_vector("async"),
    "python-loop": _python_loop,
    "dm-control-loop": _dm_control_loop,
    "ale-vector-sync": _ale_vector,
    "ale-vector-async": _ale_vector,
    "pufferlib-serial": _pufferlib("Serial"),
    "pufferlib-multiprocessing": _pufferlib("Multiprocessing"),
    "pufferlib-multiprocessing-async": _pufferlib("Multiprocessing"),
    "gymnax-jit": _gymnax,
    "procgen-gym3": _procgen_peer("procgen-gym3"),
    "procgen-gym3-serial": _procgen_peer("procgen-gym3-serial"),
}
assert set(_BUILDERS) == set(EXECUTORS)


def descendant_pids(pid: int | None = None) -> list[int]:
    """Processes descended from ``pid`` (this one by default), read from ``/proc``; [] elsewhere.

    A fallback for executors that fork workers without telling us their pids.
    """
    root = os.getpid() if pid is None else pid
    parents: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent]
        found += children
        frontier += children
    return found
