"""The models myosuite 3.0.0 builds from MjSpec recipes (``myosuite/core/model_recipes.py``)
rather than reads from a file: myo-sim 0.2.3 ships no whole hand model, and the reference
composes it with myo-sim's own builder. envfleet runs the same builder (myo-sim is the models'
source, installed by ``envfleet[myosuite]``), makes the recipe's edits through mujoco's MjSpec,
and writes the compiled model as an MJB file into its cache folder, once per myo-sim and MuJoCo
version: the C++ env loads it as it is (an MJB holds the compiled model exactly; an XML round
trip would not). Building the hand takes about 15 s; later makes read the file.

Each recipe here is the reference's, step by step (its function names in the comments); the
family's tests compare every array of the compiled model with the reference's.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.metadata
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

# _calibrate_compose_hand_root: the rigid transform that puts the composed hand's root
# (myoarm_r_root, at the world origin in myo-sim's arm convention) where the legacy hand model
# had it, so that the tasks' targets and objects, given in world coordinates, line up.
HAND_ROOT_POS = [-0.02525155, 0.07146933, 1.39249298]
HAND_ROOT_QUAT = [0.52167746, 0.46981366, -0.47875126, -0.52718591]

# _add_pose_props: a target site per fingertip, in the world body (the tasks move them).
FINGERTIP_TARGETS = {
    "THtip_r": (0.8, 0.0, 0.0, 0.8),
    "IFtip_r": (0.0, 0.8, 0.0, 0.8),
    "MFtip_r": (0.0, 0.0, 0.8, 0.8),
    "RFtip_r": (0.8, 0.8, 0.0, 0.8),
    "LFtip_r": (0.8, 0.0, 0.8, 0.8),
}


def _hand_spec() -> Any:
    """_hand_builder: myo-sim's right hand, pruned from its arm, with the root calibrated and
    attached (no prefix) to an empty spec through a frame at the origin, as ModelBuilder's
    attach_spec does."""
    import mujoco
    from myo_sim.build.compose import build_right_hand_from_arm_spec

    hand = build_right_hand_from_arm_spec()
    root = hand.body("myoarm_r_root")
    root.pos = HAND_ROOT_POS
    root.quat = HAND_ROOT_QUAT
    spec = mujoco.MjSpec()
    frame = spec.worldbody.add_frame()
    spec.attach(hand, prefix="", suffix="", frame=frame)
    return spec


def _hand_pose() -> Any:
    """hand_pose: the hand and its fingertip target sites (the hand's Pose and Reach tasks)."""
    spec = _hand_spec()
    for tip, rgba in FINGERTIP_TARGETS.items():
        site = spec.worldbody.add_site()
        site.name = f"{tip}_target"
        site.pos = [0.0, 0.0, 0.002]
        site.size = [0.005, 0.005, 0.005]
        site.rgba = rgba
    return spec


RECIPES: dict[str, Callable[[], Any]] = {"hand_pose": _hand_pose}


@functools.cache
def _versions() -> tuple[str, str] | None:
    """myo-sim's and mujoco's versions, or None where either is missing. Read once: looking a
    distribution up takes milliseconds, and make() asks for every env's options."""
    try:
        return importlib.metadata.version("myo-sim"), importlib.metadata.version("mujoco")
    except importlib.metadata.PackageNotFoundError:
        return None


def recipe_dir() -> str:
    """Where the recipes' models are written: ``$ENVFLEET_CACHE_DIR`` (else
    ``~/.cache/envfleet``) ``/myosuite-models/myo_sim-<version>-mujoco-<version>``, or "" where
    myo-sim or mujoco is not installed."""
    versions = _versions()
    if versions is None:
        return ""
    root = os.environ.get("ENVFLEET_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "envfleet"
    )
    return os.path.join(root, "myosuite-models", "myo_sim-{}-mujoco-{}".format(*versions))


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """One process at a time builds a recipe's model (pytest-xdist workers, a process per env)."""
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(name: str, folder: str) -> str:
    """The path of recipe ``name``'s compiled model in ``folder``, built there first unless it
    is already there."""
    path = os.path.join(folder, f"{name}.mjb")
    if os.path.exists(path):
        return path
    import mujoco

    os.makedirs(folder, exist_ok=True)
    with _locked(path):
        if not os.path.exists(path):
            with warnings.catch_warnings():
                # About saving the spec as XML, which is not done: the MJB holds the model
                # compiled (the tests compare it with the reference's, array for array).
                warnings.filterwarnings("ignore", "Attaching a spec with an empty prefix")
                model = RECIPES[name]().compile()
            partial = f"{path}.{os.getpid()}.partial"
            mujoco.mj_saveModel(model, partial)
            os.replace(partial, path)  # whole or absent, never half written
    return path


# The folder the hand ids are registered with (recipe_dir() when envfleet was imported).
REGISTERED_DIR = recipe_dir()


def prepare(options: dict[str, Any]) -> None:
    """Builds the recipe model an env's options name, where it is missing: an ``xml_file`` of
    ``<recipe>.mjb`` (``hand_pose.mjb``, the hand ids' registered option) in envfleet's own
    folder for them (``recipe_dir()``, now or when envfleet was imported). Any other folder is
    the caller's: nothing is written there."""
    folder, name = options.get("assets_dir", ""), options.get("xml_file", "")
    recipe = name[: -len(".mjb")] if name.endswith(".mjb") else ""
    if folder and folder in (recipe_dir(), REGISTERED_DIR) and recipe in RECIPES:
        build(recipe, folder)
