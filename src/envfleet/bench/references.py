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
