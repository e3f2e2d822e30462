"""Reference packages installed on demand, alone (``pip install --no-deps``), for the bench and
the alignment tests: those whose requirements cannot share an environment with envfleet's.

minigrid 3.2.0 (the reference of the MiniGrid family) requires ``pygame-ce``, which overwrites
the ``pygame`` that the test extra pins (classic control's frames reproduce pygame 2.6.1's
arithmetic) and that other code may need. minigrid itself needs nothing beyond gymnasium,
NumPy and, at import, pygame's modules, which either pygame provides. So no extra lists it:
:func:`import_reference` imports an installed copy, or installs the package alone into a
folder of its own (once, under a file lock, atomically) and imports it from there.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

MINIGRID = ("minigrid", "3.2.0")


def cache_folder(package: str, version: str) -> Path:
    """Where the bench installs ``package==version``: ``$ENVFLEET_CACHE_DIR`` (else
    ``~/.cache/envfleet``) ``/reference-<package>-<version>``."""
    root = os.environ.get("ENVFLEET_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "envfleet"
    )
    return Path(root) / f"reference-{package}-{version}"


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def install_alone(package: str, version: str, target: Path) -> None:
    """``pip install --no-deps package==version`` into ``target``, unless it is there; a
    half-done install never becomes ``target``. Raises ``RuntimeError`` with pip's output."""
    with _locked(target):
        if (target / package / "__init__.py").is_file():
            return
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-deps", "--no-input",
             "--target", str(partial), f"{package}=={version}"],
            capture_output=True, text=True,
        )  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(
                f"could not install {package}=={version} into {partial} (pip exit code "
                f"{proc.returncode}):\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
            )
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)


def import_reference(package: str, version: str, target: Path | None = None) -> ModuleType:
    """``package`` at ``version``: the installed one, else :func:`install_alone` into
    ``target`` (default :func:`cache_folder`) and imported from there. Raises
    ``RuntimeError`` when it cannot be had or the importable one is another version."""
    try:
        module = importlib.import_module(package)
    except ImportError:
        target = target or cache_folder(package, version)
        install_alone(package, version, target)
        if str(target) not in sys.path:
            sys.path.insert(0, str(target))
        importlib.invalidate_caches()
        module = importlib.import_module(package)
    found = getattr(module, "__version__", None)
    if found is None:  # a package without __version__ (metaworld): its distribution's
        from importlib import metadata

        folder = str(Path(module.__file__).parents[1])
        found = next((d.version for d in metadata.distributions(name=package, path=[folder])), None)
    if found != version:
        raise RuntimeError(f"{package} {version} is needed, but {module.__file__} is {found}")
    return module


def import_minigrid(target: Path | None = None) -> ModuleType:
    """minigrid 3.2.0 (see the top), its envs registered with Gymnasium. pygame, which it
    imports, gets a headless video driver: nothing here opens a window."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    return import_reference(*MINIGRID, target)


# procgen's own Python interface (ProcgenGym3Env, the reference of the Procgen family) is OpenAI's
# procgen 0.10.7, whose metadata pins numpy<2 and gym3 (itself numpy<2): it runs in a venv of
# its own, with these exact versions, and is driven through a subprocess
# (envfleet/bench/procgen_reference.py). procgen 0.10.7 has wheels up to CPython 3.10 only, but
# holds no Python extension (its engine, libenv.so, is a C library loaded through cffi), so the
# cp310 wheel's files, the very wheel envfleet takes its engine from, are unpacked into a folder
# of the venv that a .pth file puts on its path. gym3 is installed without its declared
# requirements: its video, viewer and ffmpeg dependencies are not needed to step an env (gym3
# imports imageio at import, nothing else of them).
PROCGEN = ("procgen", "0.10.7")
PROCGEN_VENV_REQUIREMENTS = (
    "numpy==1.26.4",
    "cffi==1.17.1",
    "filelock==3.16.1",
    "imageio==2.37.0",
    "pillow==11.3.0",
    "gym==0.26.2",
    "cloudpickle==3.1.1",
    "gym-notices==0.1.0",
)
PROCGEN_WHEEL = ("--only-binary", ":all:", "--python-version", "3.10", "--implementation", "cp",
                 "--platform", "manylinux2014_x86_64")  # fmt: skip


def procgen_python(target: Path | None = None) -> Path:
    """The Python of a venv with procgen 0.10.7 and its Python side (see above), made once
    (under a file lock; a venv whose install did not finish is made again) in ``target``
    (default :func:`cache_folder` ``("procgen", "0.10.7")``), or ``$ENVFLEET_PROCGEN_PYTHON``
    when that is set. Raises ``RuntimeError`` with pip's output when it cannot be made."""
    given = os.environ.get("ENVFLEET_PROCGEN_PYTHON")
    if given:
        return Path(given)
    target = target or cache_folder(*PROCGEN)
    python = target / "bin" / "python"
    done = target / ".complete"
    with _locked(target):
        if done.is_file():
            return python
        shutil.rmtree(target, ignore_errors=True)
        folder = target / "procgen-0.10.7"
        pip = [str(python), "-m", "pip", "install", "--no-input", "-q"]
        steps = [
            [sys.executable, "-m", "venv", str(target)],
            [*pip, *PROCGEN_VENV_REQUIREMENTS],
            [*pip, "--no-deps", "gym3==0.3.3"],
            [*pip, "--no-deps", *PROCGEN_WHEEL, "--target", str(folder), "procgen==0.10.7"],
        ]
        for command in steps:
            proc = subprocess.run(command, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"could not make procgen's reference venv in {target} ({' '.join(command)}: "
                    f"exit code {proc.returncode}):\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
                )
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        Path(site, "procgen-0.10.7.pth").write_text(f"{folder}\n")
        done.write_text("")
    return python


# metaworld 3.1.1 (the reference of the Meta-World family) requires mujoco==3.3.0, which cannot
# be installed beside the MuJoCo 4.0.0 envfleet runs on; its code runs on 4.0.0 but for one
# line (below). Its other requirements (gymnasium, NumPy, SciPy) are envfleet's test extra's.
METAWORLD = ("metaworld", "3.1.1")


def import_metaworld(target: Path | None = None) -> ModuleType:
    """metaworld 3.1.1 (installed, or alone into ``target``), made to run on MuJoCo 4.0.0.

    ``SawyerMocapBase.reset_mocap_welds`` assigns an 11-value array to each weld's
    ``model.eq_data[i]``: MuJoCo 3.3's mjNEQDATA. MuJoCo 4.0 has 12 values a constraint, so
    the assignment fails to broadcast at every env's construction. The replacement writes the
    same 11 values into the first 11 (the 12th, 0 when a weld's relpose is given, is left as
    the model has it; the weld's dynamics read only the first 11). Nothing else changes.
    """
    metaworld = import_reference(*METAWORLD, target or cache_folder(*METAWORLD))
    from metaworld import sawyer_xyz_env

    base = sawyer_xyz_env.SawyerMocapBase
    if getattr(base.reset_mocap_welds, "envfleet_patched", False):
        return metaworld
    import mujoco
    import numpy as np

    def reset_mocap_welds(self) -> None:
        if self.model.nmocap > 0 and self.model.eq_data is not None:
            for i in range(self.model.eq_data.shape[0]):
                if self.model.eq_type[i] == mujoco.mjtEq.mjEQ_WELD:
                    self.model.eq_data[i, :11] = np.array(
                        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 5.0]
                    )

    reset_mocap_welds.envfleet_patched = True
    base.reset_mocap_welds = reset_mocap_welds
    return metaworld


def metaworld_env(task_name: str, seed: int | None = None, partially_observable: bool = True,
                  rand_vec=None, **kwargs):  # fmt: skip
    """metaworld 3.1.1's env of ``task_name`` ("pick-place-v3") as its benchmarks make one
    (``_set_task_called``, the goal hidden or shown), with its positions either drawn at every
    reset from ``np_random`` (``seeded_rand_vec``; seeded by ``env.seed(seed)`` when ``seed``
    is given) or fixed to ``rand_vec`` as ``set_task`` fixes them. ``kwargs`` go to the task
    class (``render_mode``, ``camera_name``, ``width``, ``height``)."""
    import numpy as np

    import_metaworld()
    from metaworld.env_dict import ALL_V3_ENVIRONMENTS

    env = ALL_V3_ENVIRONMENTS[task_name](**kwargs)
    env._partially_observable = partially_observable
    del env.sawyer_observation_space  # recomputed for the observability, as set_task does
    env._set_task_called = True
    if rand_vec is None:
        env._freeze_rand_vec = False
        env.seeded_rand_vec = True
    else:
        env._freeze_rand_vec = True
        env._last_rand_vec = np.asarray(rand_vec, dtype=np.float64)
    if seed is not None:
        env.seed(seed)
    return env


# myosuite 3.0.0 (the reference of the MyoSuite family) requires gymnasium<1.3, which envfleet's
# 1.4.0 does not meet; its code runs on gymnasium 1.4.0 and MuJoCo 4.0.0 but for one line
# (below). It is installed alone; what its basic tasks import beyond envfleet's test extra is
# myo-sim (its models, the myosuite extra's), termcolor and colorednoise (the test extra's).
MYOSUITE = ("myosuite", "3.0.0")


def import_myosuite(target: Path | None = None) -> ModuleType:
    """myosuite 3.0.0 (installed, or alone into ``target``), made to run on MuJoCo 4.0.0.

    ``myosuite.utils.reach_workspace`` draws the joints of the reach tasks' workspace table
    where ``model.jnt_type[j] in (mjtJoint.mjJNT_HINGE, mjtJoint.mjJNT_SLIDE)``. Under MuJoCo
    4.0.0 an np.int32 never equals those enum members, so no joint is drawn: every target of
    a "Random" reach task is then the fingertip's start position (reach_err 0 at every reset,
    whatever the seed). The replacement holds the two joint types as ints, which the test
    meets as intended. Nothing else changes.
    """
    myosuite = import_reference(*MYOSUITE, target or cache_folder(*MYOSUITE))
    from myosuite.utils import reach_workspace

    reach_workspace._JOINT_TYPES = tuple(int(t) for t in reach_workspace._JOINT_TYPES)
    return myosuite
