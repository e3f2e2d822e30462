"""The models myosuite 3.0.0 builds from MjSpec recipes (``myosuite/core/model_recipes.py``)
rather than reads from a file: myo-sim 0.2.3 ships no whole hand model, and the reference
composes it with myo-sim's own builder; the arm of the reach tasks is myo-sim's composed arm
with the edits of the reference's ``myoedits`` module; the key-turn tasks' hand is the legacy
hand of myosuite's own model files (read from myosuite 3.0.0, installed alone: see
``myosuite_dir``) with a key. envfleet runs the same builder (myo-sim
is the models' source, installed by ``envfleet[myosuite]``), makes the recipe's edits through
mujoco's MjSpec, and writes the compiled model as an MJB file into its cache folder, once per
myo-sim and MuJoCo version: the C++ env loads it as it is (an MJB holds the compiled model
exactly; an XML round trip would not). Building a model takes a few seconds; later makes read
the file.

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


# _calibrate_compose_arm_root: the same for the composed arm's root ("Full Body", a passive
# torso scaffold carrying the right arm), onto the legacy full-body frame.
ARM_ROOT_POS = [0.00685025, -0.00150371, 0.91886071]
ARM_ROOT_QUAT = [0.99999984, -0.00039816, 0.00000016, 0.00039816]


def _attached(part: Any, root: str, pos: list[float], quat: list[float]) -> Any:
    """A myo-sim part with its root body moved to ``pos``/``quat``, attached (no prefix) to an
    empty spec through a frame at the origin, as ModelBuilder's attach_spec does."""
    import mujoco

    body = part.body(root)
    body.pos = pos
    body.quat = quat
    spec = mujoco.MjSpec()
    frame = spec.worldbody.add_frame()
    spec.attach(part, prefix="", suffix="", frame=frame)
    return spec


def _hand_spec() -> Any:
    """_hand_builder: myo-sim's right hand, pruned from its arm, root calibrated."""
    from myo_sim.build.compose import build_right_hand_from_arm_spec

    return _attached(build_right_hand_from_arm_spec(), "myoarm_r_root", HAND_ROOT_POS,
                     HAND_ROOT_QUAT)  # fmt: skip


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


# edit_fn_arm_reaching (myosuite/envs/myo/myoedits): the free camera's framing (its distance is
# 1.5 extents; the composed scene's own extent is about 25 m), the digits' first bones, under
# which every joint is removed, the tendons kept (those whose moment arms, summed over the
# degrees of freedom after 100 steps from the initial state, reach this), and the reach target.
ARM_CAMERA_EXTENT = 1.5
ARM_CAMERA_CENTER = [-0.17, -0.3, 1.2]
DIGIT_ROOTS = ["firstmc_r", "secondmc_r", "thirdmc_r", "fourthmc_r", "fifthmc_r"]
MIN_TENDON_MOMENT = 1e-10
ARM_TARGET = dict(name="IFtip_target", pos=[-0.2, -0.2, 1.2], size=[0.02, 0.02, 0.02],
                  rgba=[0.0, 0.0, 1.0, 0.3])  # fmt: skip


def _immobilize(spec: Any, body: Any) -> None:
    """recursive_immobilize (sites kept): deletes every joint of ``body`` and its subtree."""
    for joint in body.joints:
        spec.delete(joint)
    for child in body.bodies:
        _immobilize(spec, child)


def _arm_reaching() -> Any:
    """full_arm edited by edit_fn_arm_reaching: myo-sim's arm with the root calibrated, its
    fingers and thumb rigid, the tendons that no longer move anything deleted with their
    actuators, an ``IFtip`` site (a copy of ``IFtip_r``) and its world target (the arm's Reach
    tasks)."""
    import mujoco
    import myo_sim
    import numpy as np

    spec = _attached(myo_sim.load_spec("myoarm_r"), "Full Body", ARM_ROOT_POS, ARM_ROOT_QUAT)
    spec.compile()  # _recipe_spec compiles the recipe before its edit
    spec.stat.extent = ARM_CAMERA_EXTENT
    spec.stat.center = ARM_CAMERA_CENTER
    for root in DIGIT_ROOTS:
        _immobilize(spec, spec.body(root))
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, nstep=100)
    moments = np.empty((model.ntendon, model.nv))
    mujoco.mju_sparse2dense(moments, data.ten_J, model.ten_J_rownnz, model.ten_J_rowadr,
                            model.ten_J_colind)  # fmt: skip
    for tendon in spec.tendons:
        if np.sum(np.abs(moments[model.tendon(tendon.name).id])) < MIN_TENDON_MOMENT:
            for actuator in spec.actuators:
                if actuator.target == tendon.name:
                    spec.delete(actuator)
            spec.delete(tendon)
    tip = spec.site("IFtip_r")
    spec.body("distph2_r").add_site(name="IFtip", size=tip.size, pos=tip.pos, rgba=tip.rgba,
                                    type=tip.type)  # fmt: skip
    spec.worldbody.add_site(type=mujoco.mjtGeom.mjGEOM_SPHERE, **ARM_TARGET)
    return spec


# ---- The legacy hand: the seed of the contact tasks (KeyTurn; ObjHold and PenTwirl to come) --

# myosuite 3.0.0 itself, whose own model files (envs/myo/assets) the legacy hand and the leg and
# torso tasks read: myo-sim 0.2.3 does not ship them.
MYOSUITE_VERSION = "3.0.0"


def _myosuite_in(folder: str) -> str:
    """The package folder of myosuite MYOSUITE_VERSION installed in ``folder`` (a site-packages
    or a ``pip install --target`` folder), or ""."""
    for dist in importlib.metadata.distributions(name="myosuite", path=[folder]):
        if dist.version == MYOSUITE_VERSION:
            return os.path.join(folder, "myosuite")
    return ""


def myosuite_cache_dir() -> str:
    """Where :func:`envfleet.families.myosuite.install` puts myosuite (installed alone, no
    dependencies): the folder the tests' and the bench's reference is installed into."""
    from envfleet.bench.references import MYOSUITE, cache_folder

    return str(cache_folder(*MYOSUITE))


def myosuite_dir() -> str:
    """The myosuite MYOSUITE_VERSION package whose model files the family reads: the installed
    one when it is that version (located, not imported: it needs gymnasium<1.3), else the one
    in envfleet's cache folder; "" when there is neither."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("myosuite")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        installed = list(spec.submodule_search_locations)[0]
        if _myosuite_in(os.path.dirname(installed)):
            return installed
    return _myosuite_in(myosuite_cache_dir())


def myosuite_assets_dir() -> str:
    """myosuite's model files (``myosuite/envs/myo/assets``); raises ValueError saying how to
    install them where they are missing."""
    folder = myosuite_dir()
    if not folder:
        raise ValueError(
            f"this task's model is built from myosuite {MYOSUITE_VERSION}'s own model files, "
            f"which myo-sim does not ship, and myosuite {MYOSUITE_VERSION} is not installed: "
            "run envfleet.families.myosuite.install() (pip install --no-deps into envfleet's "
            f"cache folder, {myosuite_cache_dir()}), or pip install --no-deps "
            f"myosuite=={MYOSUITE_VERSION}"
        )
    return os.path.join(folder, "envs", "myo", "assets")


def _legacy_hand() -> Any:
    """_legacy_hand_builder: myosuite's own hand files (``hand/assets/myohand_{assets,body}
    .xml``, the hand of the public policies: it lists cmc_abduction before cmc_flexion, and its
    names have no side suffix) with myo-sim's scene, its meshes read from myo-sim's models
    folder. (The reference includes a copy of the scene file whose relative paths its resolver
    made absolute; the paths resolve to the same files.)"""
    import mujoco
    import myo_sim

    hand = os.path.join(myosuite_assets_dir(), "hand", "assets")
    sim_root = str(myo_sim.MODELS_DIR).rstrip("/") + "/"
    seed = f"""
    <mujoco model="MyoHand legacy task seed">
      <include file="assets/myohand_assets.xml"/>
      <include file="{sim_root}scene/myosuite_scene.xml"/>
      <compiler meshdir="{sim_root}" texturedir="{sim_root}"/>
      <worldbody>
        <include file="assets/myohand_body.xml"/>
      </worldbody>
    </mujoco>
    """
    include = {}
    for name in ("myohand_assets.xml", "myohand_body.xml"):
        with open(os.path.join(hand, name), "rb") as file:
            include[f"assets/{name}"] = file.read()
    return mujoco.MjSpec.from_string(seed, include=include)


# _hand_keyturn's key: a body in the world (the model's last), turning about its x axis.
KEY_POS = [-0.15, -0.55, 1.425]
KEY_EULER = [0.0, 0.0, 2.2]
KEY_RGBA = [0.6, 0.6, 0.5, 1.0]


def _hand_keyturn() -> Any:
    """hand_keyturn: the legacy hand and a key (head, shaft and bow; a damped hinge with
    friction; a visual site and the ``keyhead`` site the task observes)."""
    import mujoco

    spec = _legacy_hand()
    key = spec.worldbody.add_body()
    key.name = "key"
    key.pos = KEY_POS
    key.alt.type = mujoco.mjtOrientation.mjORIENTATION_EULER
    spec.compiler.degree = False
    key.alt.euler = KEY_EULER
    geoms = [  # (name, type, size, pos, euler)
        ("keyhead", mujoco.mjtGeom.mjGEOM_ELLIPSOID, [0.030, 0.030, 0.004], None, None),
        ("", mujoco.mjtGeom.mjGEOM_CAPSULE, [0.005, 0.070, 0.0], [-0.045, 0.0, 0.0],
         [0.0, 1.57, 0.0]),
        ("", mujoco.mjtGeom.mjGEOM_BOX, [0.015, 0.010, 0.004], [-0.1, 0.008, 0.0], None),
    ]  # fmt: skip
    for name, kind, size, pos, euler in geoms:
        geom = key.add_geom()
        if name:
            geom.name = name
        geom.type = kind
        geom.size = size
        if pos is not None:
            geom.pos = pos
        if euler is not None:
            geom.alt.type = mujoco.mjtOrientation.mjORIENTATION_EULER
            geom.alt.euler = euler
        geom.contype = 1
        geom.conaffinity = 1
        geom.rgba = KEY_RGBA
    joint = key.add_joint()
    joint.name = "keyjoint"
    joint.type = mujoco.mjtJoint.mjJNT_HINGE
    joint.axis = [1.0, 0.0, 0.0]
    joint.frictionloss = 0.02
    joint.damping = [0.1, 0.0, 0.0]
    visual = key.add_site()
    visual.type = mujoco.mjtGeom.mjGEOM_SPHERE
    visual.size = [0.03, 0.03, 0.03]
    visual.rgba = [0.5, 0.7, 0.8, 0.3]
    site = key.add_site()
    site.name = "keyhead"
    site.size = [0.005, 0.005, 0.005]
    return spec


# _add_pen_props: the pen (a free body: three slides and three hinges), its grasp zone, and a
# static target pen whose orientation the Random ids draw. Geoms: (name, type, size, pos,
# rgba), the first of each pen its body, the others decoration without contacts.
PEN_POS = [-0.230, -0.530, 1.445]
TARGET_PEN_POS = [0.0, -0.54, 1.382]
PEN_DECORATION = [
    ("top", "cylinder", [0.017, 0.020, 0.0], [0, 0, -0.0455]),
    ("bot", "cylinder", [0.013, 0.002, 0.0], [0, 0, 0.067]),
    ("cli", "box", [0.004, 0.006, 0.03], [-0.015, 0, -0.0255]),
]
PEN_ENDS = [("top", [0.0, 0.0, 0.065], [0.8, 0.2, 0.2, 1.0]),
            ("bottom", [0.0, 0.0, -0.065], [0.2, 0.8, 0.2, 1.0])]  # fmt: skip


def _add_pen(spec: Any, name: str, pos: list[float], prefix: str, sites: str,
             rgba: list[float], decoration_rgba: list[float]) -> Any:  # fmt: skip
    """A pen body: its cylinder, the decoration geoms (their names prefixed), and the sites at
    its two ends (``<sites>_top``, ``<sites>_bottom``)."""
    import mujoco

    body = spec.worldbody.add_body()
    body.name = name
    body.pos = pos
    pen = body.add_geom()
    pen.name = name.lower() if name == "target" else "pen"
    pen.type = mujoco.mjtGeom.mjGEOM_CYLINDER
    pen.size = [0.015, 0.065, 0.0]
    pen.condim = 4
    pen.rgba = rgba
    for geom_name, kind, size, at in PEN_DECORATION:
        geom = body.add_geom()
        geom.name = prefix + geom_name
        geom.type = getattr(mujoco.mjtGeom, f"mjGEOM_{kind.upper()}")
        geom.size = size
        geom.pos = at
        geom.rgba = decoration_rgba
        geom.contype = 0
        geom.conaffinity = 0
    for end, at, end_rgba in PEN_ENDS:
        site = body.add_site()
        site.name = f"{sites}_{end}"
        site.type = mujoco.mjtGeom.mjGEOM_SPHERE
        site.size = [0.005, 0.005, 0.005]
        site.pos = at
        site.rgba = end_rgba
    return body, pen


def _hand_pen() -> Any:
    """hand_pen: the legacy hand, the pen in its grasp zone (``eps_ball``), and the target
    pen."""
    import mujoco

    spec = _legacy_hand()
    eps = spec.worldbody.add_site()
    eps.name = "eps_ball"
    eps.type = mujoco.mjtGeom.mjGEOM_SPHERE
    eps.pos = PEN_POS
    eps.size = [0.075, 0.075, 0.075]
    eps.rgba = [1.0, 1.0, 0.0, 0.5]
    eps.group = 1
    body, pen = _add_pen(spec, "Object", PEN_POS, "", "object", [0.6, 0.6, 0.6, 0.6],
                         [0, 0.5, 1, 1])  # fmt: skip
    body.alt.type = mujoco.mjtOrientation.mjORIENTATION_EULER
    spec.compiler.degree = False
    body.alt.euler = [0.0, 1.27, 0.0]
    for axis, joint_name, kind in [
        ([1, 0, 0], "OBJTx", mujoco.mjtJoint.mjJNT_SLIDE),
        ([0, 1, 0], "OBJTy", mujoco.mjtJoint.mjJNT_SLIDE),
        ([0, 0, 1], "OBJTz", mujoco.mjtJoint.mjJNT_SLIDE),
        ([1, 0, 0], "OBJRx", mujoco.mjtJoint.mjJNT_HINGE),
        ([0, 1, 0], "OBJRy", mujoco.mjtJoint.mjJNT_HINGE),
        ([0, 0, 1], "OBJRz", mujoco.mjtJoint.mjJNT_HINGE),
    ]:
        joint = body.add_joint()
        joint.name = joint_name
        joint.type = kind
        joint.axis = axis
        joint.limited = False
        joint.damping = [0.0, 0.0, 0.0]
    pen.contype = 1
    pen.conaffinity = 1
    pen.density = 1500.0
    _add_pen(spec, "target", TARGET_PEN_POS, "t_", "target", [0.6, 0.6, 0.6, 0.3],
             [0, 1, 0.5, 1])  # fmt: skip
    return spec


# _hand_hold's object (a free ellipsoid, the model's last body and geom) and its goal.
HOLD_OBJECT_POS = [-0.235, -0.51, 1.450]
HOLD_GOAL_POS = [-0.240, -0.520, 1.470]
HOLD_OBJECT_SIZE = [0.025, 0.036, 0.030]


def _hand_hold() -> Any:
    """hand_hold: the legacy hand, a goal site, and a free object to hold above it."""
    import mujoco

    spec = _legacy_hand()
    goal = spec.worldbody.add_site()
    goal.name = "goal"
    goal.type = mujoco.mjtGeom.mjGEOM_ELLIPSOID
    goal.size = HOLD_OBJECT_SIZE
    goal.pos = HOLD_GOAL_POS
    goal.rgba = [0.0, 1.0, 0.0, 0.2]
    body = spec.worldbody.add_body()
    body.name = "object"
    body.pos = HOLD_OBJECT_POS
    geom = body.add_geom()
    geom.name = "object"
    geom.type = mujoco.mjtGeom.mjGEOM_ELLIPSOID
    geom.size = HOLD_OBJECT_SIZE
    geom.condim = 1
    geom.conaffinity = 1
    geom.rgba = [0.4, 0.6, 0.98, 1.0]
    body.add_freejoint(name="object_free")
    site = body.add_site()
    site.name = "object"
    site.size = [0.005, 0.005, 0.005]
    return spec


def _torso_file(name: str) -> Callable[[], Any]:
    """The torso tasks' model: myosuite's own ``torso/<name>`` (the torso, or the torso in an
    exosuit), whose includes, meshes and textures are myo-sim's (``../myo_sim/...``, which the
    reference's resolver points at the installed myo_sim package: _with_myo_sim_paths)."""

    def spec() -> Any:
        import mujoco

        with open(os.path.join(myosuite_assets_dir(), "torso", name)) as file:
            xml, include = _with_myo_sim_paths(file.read())
        return mujoco.MjSpec.from_string(xml, include=include)

    spec.__doc__ = f"myosuite's torso/{name}, its myo-sim paths resolved."
    return spec


def _with_myo_sim_paths(xml: str) -> tuple[str, dict[str, bytes]]:
    """A model file of myosuite's with its ``../myo_sim/<path>`` references resolved as the
    reference's resolver resolves them: to the installed myo_sim package's file, or, for the
    few files myo-sim 0.2.3 lacks (its legacy layout's rigid torso), to myosuite's own copy
    (``_MYO_SIM_BUNDLED_FALLBACKS``), whose mesh files, named relative to it, are made
    absolute. Returns the XML and the included copies (MjSpec.from_string's ``include``)."""
    import re

    import myo_sim

    models, assets = str(myo_sim.MODELS_DIR), myosuite_assets_dir()
    include: dict[str, bytes] = {}

    def resolve(match: re.Match) -> str:
        path = match.group(1)
        if os.path.exists(os.path.join(models, path)):
            return os.path.join(models, path)
        bundled = os.path.join(assets, path)
        if not os.path.exists(bundled):
            return os.path.join(models, path)  # missing either way: MuJoCo names it
        with open(bundled) as file:
            text = file.read()
        folder = os.path.dirname(bundled)

        def absolute(mesh: re.Match) -> str:
            there = os.path.join(folder, mesh.group(2))
            return f'{mesh.group(1)}="{there}"' if os.path.exists(there) else mesh.group(0)

        include[f"myosuite/{path}"] = re.sub(r'(file)="([^"/]+)"', absolute, text).encode()
        return f"myosuite/{path}"

    return re.sub(r"\.\./myo_sim/?([^\"']*)", resolve, xml), include


def _leg_reach() -> Any:
    """The leg reach task's model: myosuite's own ``leg/myolegs_with_torso.xml`` (myo-sim's legs
    and a rigid torso on a free root, with a hidden height field), its myo-sim paths made
    absolute and its scene myo-sim's pedestal-free one, as the reference's resolve_leg_xml
    makes them (the pedestal scene's floor is 0.4 m lower)."""
    import mujoco
    import myo_sim

    with open(os.path.join(myosuite_assets_dir(), "leg", "myolegs_with_torso.xml")) as file:
        xml = file.read()
    xml = xml.replace("../myo_sim/scene/myosuite_scene.xml",
                      f"{myo_sim.MODELS_DIR}/scene/myosuite_scene_noPedestal.xml")  # fmt: skip
    xml, include = _with_myo_sim_paths(xml)
    return mujoco.MjSpec.from_string(xml, include=include)


def _leg_reach_edits(model: Any) -> None:
    """LegReachEnvV0's edits of its compiled model: the group-1 geoms made invisible, and the
    height field ("terrain") hidden and moved 10 m down, out of reach."""
    import numpy as np

    model.geom_rgba[np.flatnonzero(model.geom_group == 1), 3] = 0
    terrain = model.geom("terrain").id
    model.geom_rgba[terrain, 3] = 0.0
    model.geom_pos[terrain] = np.array([0.0, 0.0, -10.0])


RECIPES: dict[str, Callable[[], Any]] = {
    "hand_pose": _hand_pose,
    "arm_reaching": _arm_reaching,
    "hand_keyturn": _hand_keyturn,
    "hand_pen": _hand_pen,
    "hand_hold": _hand_hold,
    "torso": _torso_file("myotorso.xml"),
    "torso_exosuit": _torso_file("myotorso_exosuit.xml"),
    "leg_reach": _leg_reach,
}

# The edits a task's constructor makes to the compiled model, made here before it is saved.
COMPILED_EDITS: dict[str, Callable[[Any], None]] = {"leg_reach": _leg_reach_edits}

# The recipes whose envs refresh a body after a reset edits it (ObjHold's object: body_refresh.h)
# read the recipe's spec, as the reference's refresh_geom_derived_fields does: build() saves it
# beside the model, as ``<recipe>.xml``.
SPEC_SAVED = frozenset({"hand_hold"})


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


@contextlib.contextmanager
def _mujoco_warnings_in_python() -> Iterator[None]:
    """MuJoCo's C warnings as Python warnings: by default MuJoCo prints them and appends them to
    a MUJOCO_LOG.TXT in the working directory (spec.attach warns so of an empty prefix)."""
    import mujoco

    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda message: warnings.warn(message, stacklevel=2))
    try:
        yield
    finally:
        mujoco.set_mju_user_warning(previous)


def _spec_xml(spec: Any) -> str:
    """The spec as MJCF, for the values a body's refresh reads from it (densities, inertia
    options, which statistics it sets). MuJoCo's writer leaves out the compiler's
    balanceinertia, which the legacy hand sets: it is put back."""
    xml = spec.to_xml()
    if spec.compiler.balanceinertia:
        xml = xml.replace("<compiler ", '<compiler balanceinertia="true" ', 1)
    return xml


def build(name: str, folder: str) -> str:
    """The path of recipe ``name``'s compiled model in ``folder`` (and its spec's, for
    SPEC_SAVED), built there first unless it is already there."""
    path = os.path.join(folder, f"{name}.mjb")

    def built() -> bool:
        spec_there = name not in SPEC_SAVED or os.path.exists(path[: -len(".mjb")] + ".xml")
        return os.path.exists(path) and spec_there

    if built():
        return path
    import mujoco

    os.makedirs(folder, exist_ok=True)
    with _locked(path):
        if not built():
            with warnings.catch_warnings(), _mujoco_warnings_in_python():
                # The warning is about saving such a spec as XML and loading it again, which
                # envfleet does not do for the model: the MJB holds the model compiled (the
                # tests compare it with the reference's, array for array). A saved spec
                # (SPEC_SAVED) is read only for a body's source values.
                warnings.filterwarnings("ignore", "Attaching a spec with an empty prefix")
                spec = RECIPES[name]()
                model = spec.compile()
                if name in COMPILED_EDITS:
                    COMPILED_EDITS[name](model)
                if name in SPEC_SAVED:
                    xml = _spec_xml(spec)
            if name in SPEC_SAVED:
                partial = f"{path[: -len('.mjb')]}.xml.{os.getpid()}.partial"
                with open(partial, "w") as file:
                    file.write(xml)
                os.replace(partial, path[: -len(".mjb")] + ".xml")
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
