"""Raw single-thread MuJoCo physics rate: EnvPool's bundled MuJoCo vs the one envfleet links.

    python benchmarks/mujoco_versions.py [--rounds 5] [--seconds 1.0] [--models ant,half_cheetah]

envfleet's MuJoCo tasks link MuJoCo 4.0.0 (the ``mujoco`` / ``mujoco-core`` wheels); EnvPool
1.2.5 links its own, older, MuJoCo statically (3.6.0: read from ``mj_versionString()`` of
EnvPool's ``envpool/mujoco/*.so``). When envfleet's pool is compared with EnvPool's pool on a
MuJoCo task, part of the difference may come from the physics library rather than from the pool.
This script measures that part alone: the same Gymnasium 1.4.0 models (``ant.xml``,
``half_cheetah.xml``, loaded from the installed gymnasium package, default options), stepped
in one thread under each MuJoCo version with the official ``mujoco`` Python bindings.

What one measurement does (a fresh subprocess each time, so both versions start cold alike):

- load the model; for each of 16 pre-drawn episodes, ``mj_resetData`` plus a small uniform
  perturbation of qpos and qvel (+-0.1, Gymnasium's reset noise scale) so the bodies move;
- controls drawn uniformly in the actuators' ctrlrange, one per env step, held for frame_skip
  (5 for both tasks, read from Gymnasium's v5 envs) mj_steps, as the Gymnasium envs do;
- all random numbers are drawn once by the parent process and handed to both versions, so both
  step the same episodes (trajectories still drift apart: the versions' arithmetic differs);
- ``mujoco.rollout`` (the stepping loop in C++, in the calling thread: ``Rollout(nthread=0)``,
  checks skipped, outputs preallocated) steps episodes of 1000 env steps (the tasks'
  max_episode_steps) in calls of 100 env steps, carrying state and solver warm start from call
  to call (bit-identical to one long rollout), until ``--seconds`` have passed, after ~0.1 s of
  untimed warm-up. Each call also records the state after every mj_step (mj_getState, a copy of
  a few dozen doubles), as rollout always does. Without ``mujoco.rollout`` (or with
  ``--method loop``) it falls back to a Python loop of ``mj_step(m, d, nstep=frame_skip)``.
- a fingerprint of each compiled model (sizes, integrator, solver, total mass and inertia) is
  compared between the versions, and a hash of the state after episode 0's first 100 env steps
  tells identical arithmetic from different (the notes under the tables).

Rate = env steps (frame_skip mj_steps each) per second of stepping; model loading is excluded.
Rounds interleave the versions (the order alternates between rounds), so drift on a noisy
machine hits both alike; the table gives the median, min and max over rounds and the ratio
new/old taken within each round.

EnvPool does not step through the wheel of its version but through its own build of it, which
may be compiled differently. Its extension modules export the C API, so the script also times
EnvPool's ``mj_step`` itself (``--no-build-check`` skips this): in the old version's venv, the
bindings' MjModel/MjData are stepped by a Python loop calling the C ``mj_step`` through ctypes
(frame_skip calls per env step), once with the wheel's ``libmujoco`` and once with the one
exported by EnvPool's ``mujoco_gym_envpool.so`` (same version, so the same struct layouts). The
ratio of the two is the build's effect, and multiplied by the versions' ratio it gives the
physics library's share of an envfleet vs EnvPool comparison.

For context it also times, per model, one env through each library's own front end in the dev
interpreter (EnvPool ``make_gymnasium(..., num_envs=1, batch_size=1, num_threads=1)`` and
``envfleet.make(..., num_envs=1, num_threads=1)`` stepped from a Python loop, so they include
each library's per-call Python overhead and its reward/observation work) and envfleet's plain
C++ loop ``_core.raw_step_rate`` (no Python per step). envfleet must be importable (e.g.
``--envfleet-src /path/to/repo/src`` or PYTHONPATH); rows that cannot run are skipped with a note.

The old version runs in a separate virtual environment (``--old-venv``, default
/tmp/venv-mj<major><minor>), created on demand with ``pip install mujoco==<version> numpy`` from
the configured index (PyPI); the new version runs in this interpreter (``--new-python``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import glob
import importlib.util
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# name -> (Gymnasium XML asset, Gymnasium / EnvPool / envfleet task id, Gymnasium env module)
MODELS = {
    "ant": ("ant.xml", "Ant-v5", "gymnasium.envs.mujoco.ant_v5"),
    "half_cheetah": ("half_cheetah.xml", "HalfCheetah-v5", "gymnasium.envs.mujoco.half_cheetah_v5"),
}
EPISODE_STEPS = 1000  # env steps per episode: max_episode_steps of both tasks
CHUNK_STEPS = 100  # env steps per rollout call (the timer is read between calls)
NUM_EPISODES = 16  # distinct pre-drawn episodes, cycled
RESET_NOISE = 0.1  # Gymnasium's reset_noise_scale for both tasks
MAX_NQ_NV_NU = 64  # room in the per-episode random buffer for nq + nv and for nu
DEFAULT_OLD_VERSION = "3.6.0"  # what EnvPool 1.2.5 bundles, if EnvPool is not installed here


# --------------------------------------------------------------------------------------------
# Workers: run in a fresh subprocess; print one JSON line. The physics worker needs only
# mujoco and numpy, so it runs in the old version's bare venv too.
# --------------------------------------------------------------------------------------------


def _libmujoco(job: dict, mujoco):
    """The C library whose mj_step the ctypes method calls, checked to be the bindings' version."""
    import ctypes

    path = job.get("lib")
    if not path:  # the wheel's own library, behind the Python bindings
        here = os.path.dirname(mujoco.__file__)
        found = sorted(glob.glob(os.path.join(here, "libmujoco.so*")))
        found += sorted(glob.glob(os.path.join(here, "..", "mujoco*", "**", "libmujoco.so*")))
        if not found:
            raise SystemExit(f"no libmujoco.so* next to {here}")
        path = found[0]
    lib = ctypes.CDLL(path)
    if lib.mj_version() != mujoco.mj_version():
        # The structs come from the bindings' library: only the same version shares the layout.
        raise SystemExit(f"{path} is MuJoCo {lib.mj_version()}, bindings {mujoco.mj_version()}")
    lib.mj_step.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.mj_step.restype = None
    return lib, os.path.realpath(path)


def worker_physics(job: dict) -> dict:
    import ctypes
    import hashlib

    import mujoco

    m = mujoco.MjModel.from_xml_path(job["xml"])
    d = mujoco.MjData(m)
    fs = job["frame_skip"]
    noise = np.load(job["noise"])  # (episodes, (2 + EPISODE_STEPS) * MAX_NQ_NV_NU) in [0, 1)
    if max(m.nq + m.nv, m.nu) > MAX_NQ_NV_NU:
        raise SystemExit(f"model too large for the noise buffer: nq={m.nq} nv={m.nv} nu={m.nu}")
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(m, spec)
    initial, controls = [], []
    for u in noise:
        mujoco.mj_resetData(m, d)
        pert = u[: m.nq + m.nv] * 2.0 - 1.0
        d.qpos[:] += RESET_NOISE * pert[: m.nq]
        d.qvel[:] += RESET_NOISE * pert[m.nq :]
        state = np.empty(nstate)
        mujoco.mj_getState(m, d, state, spec)
        initial.append(state)
        cu = u[2 * MAX_NQ_NV_NU :].reshape(EPISODE_STEPS, MAX_NQ_NV_NU)[:, : m.nu]
        controls.append(np.repeat(lo + cu * (hi - lo), fs, axis=0))  # held for frame_skip
    per_chunk = CHUNK_STEPS * fs  # mj_steps per chunk
    nchunks = EPISODE_STEPS // CHUNK_STEPS

    method, lib_path = job["method"], None
    try:
        from mujoco import rollout
    except ImportError:
        rollout = None
    if method == "rollout" and (rollout is None or not hasattr(rollout, "Rollout")):
        method = "loop"

    state = np.empty((1, nstate))
    if method == "rollout":
        # One Rollout object, no thread pool (nthread=0: steps in this thread), checks skipped,
        # outputs preallocated: about 10 us of Python per chunk of CHUNK_STEPS env steps.
        runner = rollout.Rollout(nthread=0)
        chunked = [np.ascontiguousarray(c.reshape(nchunks, 1, per_chunk, m.nu)) for c in controls]
        out = np.empty((1, per_chunk, nstate))
        warmstart = np.empty((1, m.nv))

        def run_chunk(episode: int, c: int) -> None:
            if c == 0:  # episode start: reset state, zero warm start (as mj_resetData does)
                state[0] = initial[episode]
                warmstart[:] = 0.0
            runner.rollout(
                [m], [d], state, chunked[episode][c], skip_checks=True, nstep=per_chunk,
                initial_warmstart=warmstart, state=out,
            )  # fmt: skip
            # Carry state and warm start on: chunked rollouts equal one long one bit for bit.
            state[0] = out[0, -1]
            warmstart[0] = d.qacc_warmstart
    else:
        env_ctrl = [c[::fs] for c in controls]
        if method == "ctypes":
            # The same loop for any build of one version: the bindings' MjModel/MjData, stepped
            # by the mj_step of the library at job["lib"] (e.g. EnvPool's extension module).
            lib, lib_path = _libmujoco(job, mujoco)
            mp, dp = ctypes.c_void_p(m._address), ctypes.c_void_p(d._address)
            c_step = lib.mj_step
            substeps = range(fs)

            def step_env() -> None:
                for _ in substeps:
                    c_step(mp, dp)
        else:
            py_step = mujoco.mj_step

            def step_env() -> None:
                py_step(m, d, nstep=fs)

        def run_chunk(episode: int, c: int) -> None:
            if c == 0:
                mujoco.mj_setState(m, d, initial[episode], spec)
                d.qacc_warmstart[:] = 0.0
            ctrl = d.ctrl
            for a in env_ctrl[episode][c * CHUNK_STEPS : (c + 1) * CHUNK_STEPS]:
                ctrl[:] = a
                step_env()
            mujoco.mj_getState(m, d, state[0], spec)

    # Warm-up, untimed: the last episode's first chunks, about 0.1 s or the whole episode.
    start = time.perf_counter()
    for c in range(nchunks):
        run_chunk(len(initial) - 1, c)
        if time.perf_counter() - start > 0.1:
            break
    chunks, finite = 0, True
    start = time.perf_counter()
    while True:
        episode, c = divmod(chunks, nchunks)
        run_chunk(episode % len(initial), c)
        chunks += 1
        if c == nchunks - 1:
            finite &= bool(np.isfinite(state).all())
        elapsed = time.perf_counter() - start
        if elapsed >= job["seconds"]:
            break
    finite &= bool(np.isfinite(state).all())
    # Untimed: the state after episode 0's first chunk, to tell identical arithmetic apart.
    run_chunk(0, 0)
    check = hashlib.sha256(state.tobytes()).hexdigest()[:16]
    fingerprint = [
        m.nq, m.nv, m.nu, m.nbody, m.ngeom, int(m.opt.integrator), int(m.opt.solver),
        int(m.opt.cone), m.opt.iterations, m.opt.timestep,
        round(float(m.body_mass.sum()), 9), round(float(m.body_inertia.sum()), 9),
    ]  # fmt: skip
    return {
        "version": mujoco.__version__,
        "method": method,
        "lib": lib_path,
        "env_steps": chunks * CHUNK_STEPS,
        "mj_steps": chunks * per_chunk,
        "seconds": elapsed,
        "finite": finite,
        "dims": [m.nq, m.nv, m.nu, nstate],
        "model": fingerprint,
        "check": check,
    }


def _python_loop(env, low, high, seconds: float) -> tuple[int, float]:
    """Steps a num_envs=1 pool from Python until ``seconds`` pass: (env steps, seconds)."""
    rng = np.random.default_rng(0)
    actions = [rng.uniform(low, high).reshape(1, -1) for _ in range(256)]
    env.reset()
    step = env.step
    for i in range(2000):  # warm-up
        step(actions[i & 255])
    steps, chunk = 0, 256
    start = time.perf_counter()
    while True:
        for i in range(chunk):
            step(actions[i & 255])
        steps += chunk
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed


def worker_envpool(job: dict) -> dict:
    import envpool

    env = envpool.make_gymnasium(job["task"], num_envs=1, batch_size=1, num_threads=1, seed=0)
    space = env.action_space
    steps, elapsed = _python_loop(env, space.low, space.high, job["seconds"])
    env.close()
    return {"version": envpool.__version__, "env_steps": steps, "seconds": elapsed}


def worker_envfleet(job: dict) -> dict:
    import envfleet

    env = envfleet.make(job["task"], num_envs=1, num_threads=1, seed=0)
    space = env.single_action_space if hasattr(env, "single_action_space") else env.action_space
    low, high = np.asarray(space.low).reshape(-1), np.asarray(space.high).reshape(-1)
    steps, elapsed = _python_loop(env, low, high, job["seconds"])
    env.close()
    return {
        "version": getattr(envfleet, "__version__", "?"),
        "env_steps": steps,
        "seconds": elapsed,
    }


def worker_envfleet_raw(job: dict) -> dict:
    import envfleet
    from envfleet import _core

    spec = envfleet.make_spec(job["task"])
    opts, max_ep = spec.config.env_options, spec.config.max_episode_steps
    steps, seconds, _ = _core.raw_step_rate(spec.env_type, opts, 2000, max_ep, 0)  # warm-up
    steps = max(1000, int(job["seconds"] * steps / max(seconds, 1e-9)))
    steps, seconds, _ = _core.raw_step_rate(spec.env_type, opts, steps, max_ep, 0)
    return {
        "version": getattr(envfleet, "__version__", "?"),
        "env_steps": steps,
        "seconds": seconds,
    }


WORKERS = {
    "physics": worker_physics,
    "envpool": worker_envpool,
    "envfleet": worker_envfleet,
    "envfleet-raw": worker_envfleet_raw,
}


# --------------------------------------------------------------------------------------------
# Parent: environment set-up, the interleaved rounds, the report.
# --------------------------------------------------------------------------------------------


def package_dir(name: str) -> str | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def envpool_mujoco() -> tuple[str | None, str | None, str]:
    """EnvPool's bundled MuJoCo: (version, its Gymnasium-task extension module, how found).

    EnvPool links MuJoCo statically into its extension modules, which export the C API; the
    version is what their ``mj_versionString()`` returns.
    """
    import ctypes

    root = package_dir("envpool")
    if root is None:
        return None, None, "envpool is not installed in this interpreter"
    for so in sorted(glob.glob(os.path.join(root, "mujoco", "*gym*.so"))):
        try:
            fn = ctypes.CDLL(so).mj_versionString
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_char_p
        return fn().decode(), so, f"mj_versionString() exported by {so}"
    return None, None, f"no MuJoCo extension with mj_versionString under {root}/mujoco"


def python_mujoco_version(python: str) -> str | None:
    code = "import mujoco; print(mujoco.__version__)"
    res = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 else None


def ensure_venv(venv: str, version: str) -> str:
    """Returns the venv's python, creating the venv / installing mujoco==version as needed."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        print(f"creating {venv} ({sys.executable} -m venv)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    have = python_mujoco_version(python)
    if have != version:
        cmd = [python, "-m", "pip", "install", "-q", f"mujoco=={version}", "numpy"]
        print(f"{venv} has mujoco {have or '(none)'}; installing: {shlex.join(cmd)}", flush=True)
        subprocess.run(cmd, check=True)
        freeze = subprocess.run([python, "-m", "pip", "freeze"], capture_output=True, text=True)
        print(f"{venv} now holds: {' '.join(freeze.stdout.split())}", flush=True)
    return python


def gymnasium_setup(names: list[str]) -> tuple[str, dict[str, int], str]:
    """Gymnasium's assets directory, each model's default frame_skip, and gymnasium's version."""
    import inspect

    import gymnasium

    assets = os.path.join(package_dir("gymnasium"), "envs", "mujoco", "assets")
    frame_skip = {}
    for name in names:
        module = importlib.import_module(MODELS[name][2])
        env_class = next(
            c
            for c in vars(module).values()
            if inspect.isclass(c) and c.__module__ == module.__name__
        )
        frame_skip[name] = inspect.signature(env_class.__init__).parameters["frame_skip"].default
    return assets, frame_skip, gymnasium.__version__


def run_worker(python: str, job: dict, env: dict | None = None) -> dict:
    cmd = [python, os.path.abspath(__file__), "--worker", json.dumps(job)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        tail = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": tail}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="stepping time per cell")
    parser.add_argument("--models", default="ant,half_cheetah", help=f"from {','.join(MODELS)}")
    parser.add_argument("--old-version", help="default: the MuJoCo version EnvPool bundles")
    parser.add_argument("--old-venv", help="default: /tmp/venv-mj<major><minor>")
    parser.add_argument("--new-python", default=sys.executable, help="interpreter, new MuJoCo")
    parser.add_argument("--method", choices=["rollout", "loop"], default="rollout")
    parser.add_argument(
        "--no-build-check", action="store_true", help="skip EnvPool's build vs the wheel"
    )
    parser.add_argument("--no-context", action="store_true", help="skip EnvPool/envfleet rows")
    parser.add_argument("--envfleet-src", help="prepended to PYTHONPATH for the envfleet rows")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(WORKERS[job["kind"]](job)), flush=True)
        return

    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {list(MODELS)}")

    bundled, envpool_so, how = envpool_mujoco()
    print(f"EnvPool's MuJoCo: {bundled or '?'} ({how})")
    old = args.old_version or bundled or DEFAULT_OLD_VERSION
    major, minor = old.split(".")[:2]
    old_python = ensure_venv(args.old_venv or f"/tmp/venv-mj{major}{minor}", old)
    new = python_mujoco_version(args.new_python)
    if new is None:
        sys.exit(f"{args.new_python} cannot import mujoco")
    assets, frame_skip, gym_version = gymnasium_setup(names)

    # The cells of one round, per model: (key, label, interpreter, job fields).
    cells = [
        ("old", f"mujoco {old}", old_python, {"method": args.method}),
        ("new", f"mujoco {new}", args.new_python, {"method": args.method}),
    ]
    build_check = not args.no_build_check and envpool_so is not None and bundled == old
    if build_check:
        ctypes_wheel, ctypes_envpool = {"method": "ctypes"}, {"method": "ctypes", "lib": envpool_so}
        cells += [
            ("old-ctypes", f"{old} wheel, ctypes", old_python, ctypes_wheel),
            ("envpool-ctypes", f"{old} EnvPool, ctypes", old_python, ctypes_envpool),
        ]
    contexts = [] if args.no_context else ["envpool", "envfleet", "envfleet-raw"]
    ctx_env = dict(os.environ)
    if args.envfleet_src:
        ctx_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (args.envfleet_src, os.environ.get("PYTHONPATH")) if p
        )

    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="mujoco_versions_") as tmp:
        # The random numbers every cell uses: one buffer per episode, uniforms in [0, 1).
        noise_path = os.path.join(tmp, "noise.npy")
        rng = np.random.default_rng(20261121)
        np.save(noise_path, rng.random((NUM_EPISODES, (2 + EPISODE_STEPS) * MAX_NQ_NV_NU)))
        results = run_rounds(args, names, cells, contexts, assets, frame_skip, noise_path, ctx_env)
    Report(
        rounds=args.rounds,
        seconds=args.seconds,
        names=names,
        old=old,
        new=new,
        bundled=bundled,
        envpool_so=envpool_so,
        build_check=build_check,
        contexts=contexts,
        frame_skip=frame_skip,
        gym_version=gym_version,
        load_start=load_start,
        load_end=os.getloadavg(),
        results=results,
    ).print()


def run_rounds(args, names, cells, contexts, assets, frame_skip, noise_path, ctx_env) -> dict:
    """Runs the cells, interleaved: results[model][cell key] = one result dict per round."""
    print(f"{len(names)} models x {args.rounds} rounds x ~{args.seconds:g} s per cell", flush=True)
    results: dict[str, dict[str, list[dict]]] = {n: {} for n in names}
    for r in range(args.rounds):
        order = cells if r % 2 == 0 else cells[::-1]  # alternate, so no version always goes first
        for name in names:
            xml_file, task, _ = MODELS[name]
            base = {
                "kind": "physics",
                "xml": os.path.join(assets, xml_file),
                "frame_skip": frame_skip[name],
                "noise": noise_path,
                "seconds": args.seconds,
            }
            for key, label, python, fields in order:
                res = run_worker(python, base | fields)
                results[name].setdefault(key, []).append(res)
                print(f"round {r + 1} {name:13s} {label:22s} {summary(res)}", flush=True)
            for kind in contexts:
                job = {"kind": kind, "task": task, "seconds": args.seconds}
                res = run_worker(args.new_python, job, ctx_env)
                results[name].setdefault(kind, []).append(res)
                print(f"round {r + 1} {name:13s} {kind:22s} {summary(res)}", flush=True)
    return results


@dataclasses.dataclass
class Report:
    """The Markdown report of one run (printed to stdout, ready for benchmarks/RESULTS.md)."""

    rounds: int
    seconds: float
    names: list[str]
    old: str
    new: str
    bundled: str | None
    envpool_so: str | None
    build_check: bool
    contexts: list[str]
    frame_skip: dict[str, int]
    gym_version: str
    load_start: tuple[float, float, float]
    load_end: tuple[float, float, float]
    results: dict[str, dict[str, list[dict]]]
    notes: list[str] = dataclasses.field(default_factory=list)
    per_round: list[str] = dataclasses.field(default_factory=list)

    def print(self) -> None:
        self.print_header()
        self.print_versions()
        if self.build_check:
            self.print_build()
        print("\nPer-round ratios:\n")
        print_table_head("ratio", *(f"round {i + 1}" for i in range(self.rounds)))
        for row in self.per_round:
            print(row)
        if self.contexts:
            self.print_context()
        if self.notes:
            print()
            for note in dict.fromkeys(self.notes):
                print(f"- {note}")

    def print_header(self) -> None:
        old, new = self.old, self.new
        methods = {x["method"] for per in self.results.values() for x in per["old"] if ok(x)}
        method = "/".join(sorted(methods))
        method = {
            "rollout": "`mujoco.rollout.Rollout(nthread=0)` (C++ loop), 100 env steps per call",
            "loop": "a Python loop of `mj_step(m, d, nstep=frame_skip)`",
        }.get(method, method)
        skips = ", ".join(f"{self.frame_skip[n]} ({MODELS[n][1]})" for n in self.names)
        cmd = "python benchmarks/mujoco_versions.py " + shlex.join(sys.argv[1:])
        print(
            f"\n## MuJoCo {old} vs {new}: raw single-thread physics rate ({datetime.date.today()})"
        )
        print(f"\nCommand: `{cmd.strip()}`\n")
        print(
            f"{self.rounds} rounds, ~{self.seconds:g} s of stepping per cell, a fresh process per "
            "cell, cells interleaved (order alternating between rounds). Stepping: "
            f"{method}. Models: Gymnasium {self.gym_version} assets, default options, frame_skip "
            f"{skips}. MuJoCo {old}: the PyPI wheel `mujoco=={old}` (EnvPool 1.2.5 bundles "
            f"{self.bundled}); MuJoCo {new}: the wheel envfleet links. Machine: {cpu_name()}, "
            f"{len(os.sched_getaffinity(0))} usable cores, Python {platform.python_version()}; "
            f"load average (1/5/15 min) {fmt_load(self.load_start)} at the start, "
            f"{fmt_load(self.load_end)} at the end.\n"
        )

    def print_versions(self) -> None:
        old, new = self.old, self.new
        print_table_head(
            "model",
            f"{old} env steps/s",
            f"{new} env steps/s",
            f"{old} mj_step/s",
            f"{new} mj_step/s",
            f"{new} / {old}",
        )
        for name, runs in self.results.items():
            for key in ("old", "new", "old-ctypes", "envpool-ctypes"):
                for x in runs.get(key, []):
                    if not ok(x):
                        self.notes.append(f"{name}: a cell failed: {x['error']}")
                    elif not x["finite"]:
                        self.notes.append(f"{name}: {x['version']} reached a non-finite state")
            a, b = paired(runs["old"], runs["new"])
            if not a:
                continue
            first_old = next(x for x in runs["old"] if ok(x))
            first_new = next(x for x in runs["new"] if ok(x))
            if first_old["model"] != first_new["model"]:
                self.notes.append(
                    f"{name}: the compiled models differ: {old} {first_old['model']}, "
                    f"{new} {first_new['model']}"
                )
            same = "identical" if first_old["check"] == first_new["check"] else "different"
            self.notes.append(f"{name}: state after 100 env steps, {old} vs {new}: {same}")
            fs = self.frame_skip[name]
            nq, nv, nu, _ = first_old["dims"]
            ratios = [y / x for x, y in zip(a, b, strict=True)]
            print(
                f"| {MODELS[name][1]} ({MODELS[name][0]}, nq={nq} nv={nv} nu={nu}) "
                f"| {spread(a)} | {spread(b)} | {fmt_rate(statistics.median(a) * fs)} "
                f"| {fmt_rate(statistics.median(b) * fs)} | **{fmt_ratios(ratios)}** |"
            )
            self.per_round.append(f"| {MODELS[name][1]}: {new} / {old} | {cells_of(ratios)} |")
        print(
            "\nenv steps/s: median (min-max) over rounds; mj_step/s: the median x frame_skip; "
            "the ratio: median (min-max) of the per-round ratios."
        )

    def print_build(self) -> None:
        old, new = self.old, self.new
        print(
            f"\nEnvPool's own build of MuJoCo {old} vs the PyPI wheel of the same version: both "
            f"step the same MjModel/MjData (made by the {old} bindings) from one Python loop "
            "calling the C `mj_step` through ctypes (frame_skip calls per env step), one with the "
            "wheel's libmujoco, one with the `mj_step` exported by "
            f"`{os.path.basename(self.envpool_so)}`. The last column multiplies, per round, "
            f"{new} / {old} wheel (above) by {old} wheel / EnvPool's build: the physics "
            f"library's share of an envfleet ({new}) vs EnvPool comparison.\n"
        )
        print_table_head(
            "model",
            f"{old} wheel, ctypes loop",
            f"{old} EnvPool's build, ctypes loop",
            "EnvPool's build / wheel",
            f"{new} wheel / EnvPool's build",
        )
        for name, runs in self.results.items():
            a, b = paired(runs["old-ctypes"], runs["envpool-ctypes"])
            if not a:
                continue
            build = [y / x for x, y in zip(a, b, strict=True)]
            rounds = zip(
                runs["old"], runs["new"], runs["old-ctypes"], runs["envpool-ctypes"], strict=True
            )
            combined = [
                rate(n) / rate(o) * rate(w) / rate(e)
                for o, n, w, e in rounds
                if ok(o) and ok(n) and ok(w) and ok(e)
            ]
            print(
                f"| {MODELS[name][1]} | {spread(a)} | {spread(b)} | {fmt_ratios(build)} "
                f"| **{fmt_ratios(combined)}** |"
            )
            task = MODELS[name][1]
            self.per_round.append(f"| {task}: EnvPool's build / wheel | {cells_of(build)} |")
            self.per_round.append(f"| {task}: {new} / EnvPool's build | {cells_of(combined)} |")
            w = next(x for x in runs["old-ctypes"] if ok(x))
            e = next(x for x in runs["envpool-ctypes"] if ok(x))
            same = "identical" if w["check"] == e["check"] else "different"
            self.notes.append(
                f"{name}: state after 100 env steps, {old} wheel vs EnvPool's build: {same}"
            )
            o = next((x for x in runs["old"] if ok(x)), None)
            if o is not None and o["method"] == "rollout" and o["check"] != w["check"]:
                self.notes.append(f"{name}: rollout and the ctypes loop disagree on {old}")

    def print_context(self) -> None:
        print(
            "\nContext, env steps/s of one env in the same run, median (min-max). The physics "
            "columns are bare mj_step; EnvPool and envfleet step their full env (physics plus "
            "observation, reward, termination, resets: Ant-v5 episodes end early when the ant "
            "is unhealthy); the `step()` columns add each library's per-call Python overhead "
            "(`envpool.make_gymnasium(task, num_envs=1, batch_size=1, num_threads=1)`, "
            "`envfleet.make(task, num_envs=1, num_threads=1)`); the raw C++ loop is envfleet's "
            "`_core.raw_step_rate` (one env, no Python).\n"
        )
        print_table_head(
            "task",
            f"MuJoCo {self.old} physics",
            f"MuJoCo {self.new} physics",
            "EnvPool 1.2.5 `step()`",
            "envfleet `step()`",
            "envfleet raw C++ loop",
        )
        for name, runs in self.results.items():
            cols = [rates(runs[k]) for k in ("old", "new", *self.contexts)]
            print(
                f"| {MODELS[name][1]} | "
                + " | ".join(spread(x) if x else "n/a" for x in cols)
                + " |"
            )
            for kind in self.contexts:
                errors = [x["error"] for x in runs[kind] if not ok(x)]
                if errors:
                    self.notes.append(f"{name}: {kind} failed ({len(errors)}x): {errors[0]}")


def print_table_head(*columns: str) -> None:
    """A Markdown table's header row and the separator under it."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))


def ok(res: dict) -> bool:
    return "error" not in res


def rate(res: dict) -> float:
    return res["env_steps"] / res["seconds"]


def rates(runs: list[dict]) -> list[float]:
    return [rate(x) for x in runs if ok(x)]


def paired(xs: list[dict], ys: list[dict]) -> tuple[list[float], list[float]]:
    """env steps/s of the rounds in which both cells succeeded."""
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if ok(x) and ok(y)]
    return [rate(x) for x, _ in pairs], [rate(y) for _, y in pairs]


def summary(res: dict) -> str:
    if not ok(res):
        return f"error: {res['error']}"
    text = f"{fmt_rate(res['env_steps'] / res['seconds'])} env steps/s"
    if "mj_steps" in res:
        text += f", {fmt_rate(res['mj_steps'] / res['seconds'])} mj_step/s ({res['method']})"
        if not res["finite"]:
            text += " NON-FINITE STATE"
    return text


def fmt_rate(x: float) -> str:
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def spread(values: list[float]) -> str:
    return (
        f"{fmt_rate(statistics.median(values))} ({fmt_rate(min(values))}-{fmt_rate(max(values))})"
    )


def fmt_ratios(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def cells_of(values: list[float]) -> str:
    return " | ".join(f"{x:.2f}" for x in values)


def fmt_load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.2f}" for x in load)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


if __name__ == "__main__":
    main()
