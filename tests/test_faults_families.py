"""Faults of the real families and hostile inputs (issue #17 items 6 and 7): missing, corrupt or
hostile files behind every option that names one (Atari's rom_dir and ROMs, MuJoCo's xml_file
and assets_dir, dm_control's suite folder, the toy-text and Pendulum sprites), absurd sizes
(num_envs, frame and render sizes, stacks, map sizes), a broken Procgen engine install: each
must raise a clear Python exception naming the task, the option and the cause, quickly, and
never crash, hang or exhaust memory.

Files that would hang or exhaust a reader (a FIFO, /dev/zero) are checked in fresh interpreters
(``run_isolated``) with a time limit, so that a regression fails one test instead of hanging or
killing the run; the snippets also cap their address space (RLIMIT_AS), so that a regression
of the memory checks ends in a MemoryError (which the tests tell from the checks' own) rather
than in the machine's OOM killer.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_isolated_ok, describe, engine_built, run_isolated, vizdoom_built

import envfleet

_CASES_SNIPPET = """
import faulthandler, json, resource, time
import numpy as np
import envfleet
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
results = []
for label, code in {cases!r}:
    faulthandler.dump_traceback_later({seconds}, exit=True)  # a hang ends the process
    start = time.monotonic()
    try:
        exec(code)
        outcome = ("ok", "")
    except BaseException as e:
        outcome = (type(e).__name__, str(e)[:400])
    faulthandler.cancel_dump_traceback_later()
    results.append([label, *outcome, time.monotonic() - start])
print("RESULTS " + json.dumps(results))
"""

# Seconds one case may take: each raises before building anything, in milliseconds.
CASE_LIMIT_S = 10
# The address space of a snippet: far more than the cases need, far less than the machine has.
ADDRESS_SPACE = 6 << 30


def _run_cases(cases: list[tuple[str, str]]) -> dict[str, tuple[str, str, float]]:
    code = _CASES_SNIPPET.format(cases=cases, limit=ADDRESS_SPACE, seconds=CASE_LIMIT_S)
    rc, out, err = run_isolated(code, timeout=CASE_LIMIT_S * len(cases) + 60)
    lines = [line for line in out.splitlines() if line.startswith("RESULTS ")]
    assert rc == 0 and lines, "the cases did not all finish: " + describe(rc, out, err)
    return {
        label: (kind, message, seconds)
        for label, kind, message, seconds in json.loads(lines[-1][len("RESULTS ") :])
    }


def _assert_raised(results, label, kind, *words):
    got, message, seconds = results[label]
    assert got == kind, f"{label}: expected {kind}, got {got}: {message}"
    for word in words:
        assert word in message, f"{label}: the message does not name {word!r}: {message}"
    assert seconds < CASE_LIMIT_S, f"{label}: took {seconds:.1f} s"


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    """A folder of files an option may be pointed at: a FIFO, a link to /dev/zero, a folder
    where a file is expected, garbage, a truncated XML, an oversized file."""
    root = tmp_path_factory.mktemp("hostile")
    os.mkfifo(root / "fifo")
    os.symlink("/dev/zero", root / "zero")
    (root / "folder").mkdir()
    (root / "garbage").write_bytes(os.urandom(2048))
    (root / "truncated.xml").write_text("<mujoco><worldbody><body name='torso'>")
    (root / "empty_model.xml").write_text("<mujoco/>")
    # An element name that is not UTF-8: MuJoCo quotes it in its error.
    (root / "not_utf8.xml").write_bytes(b"<mujoco><worldbody><bo\xffdy></worldbody></mujoco>")
    (root / "one_body.xml").write_text(
        "<mujoco><worldbody><body name='torso'><geom type='sphere' size='1'/></body>"
        "</worldbody></mujoco>"
    )
    with open(root / "huge", "wb") as f:  # sparse: takes no disk
        f.truncate(1 << 30)
    # rom_dir folders whose pong.bin is each hostile kind.
    for kind in ("fifo", "zero", "folder", "garbage", "huge"):
        (root / f"roms_{kind}").mkdir()
        target = root / kind
        os.symlink(target, root / f"roms_{kind}" / "pong.bin")
    return root


# ---- Atari: rom_dir and the ROMs ------------------------------------------------------------


@pytest.mark.skipif("Pong-v5" not in envfleet.list_all_envs(), reason="no Atari family")
def test_atari_rom_files(hostile_files):
    d = hostile_files
    make = "envfleet.make('Pong-v5', {})"
    cases = [
        ("missing rom_dir", make.format("rom_dir='/nonexistent'")),
        ("rom_dir a file", make.format(f"rom_dir='{d / 'garbage'}'")),
        ("missing ROM", make.format(f"rom_dir='{d / 'folder'}'")),
        ("ROM a FIFO", make.format(f"rom_dir='{d / 'roms_fifo'}'")),
        ("ROM /dev/zero", make.format(f"rom_dir='{d / 'roms_zero'}'")),
        ("ROM a folder", make.format(f"rom_dir='{d / 'roms_folder'}'")),
        ("ROM garbage", make.format(f"rom_dir='{d / 'roms_garbage'}'")),
        ("ROM too big", make.format(f"rom_dir='{d / 'roms_huge'}'")),
        ("game ..", make.format("game='..'")),
        ("game with a slash", make.format("game='../pong'")),
        (
            "per-env rom_dir",
            make.format(f"num_envs=2, per_env_options=[{{}}, {{'rom_dir': '{d / 'roms_fifo'}'}}]"),
        ),
    ]
    r = _run_cases(cases)
    _assert_raised(r, "missing rom_dir", "ValueError", "Pong-v5", "rom_dir", "does not exist")
    _assert_raised(r, "rom_dir a file", "ValueError", "rom_dir", "not a folder")
    _assert_raised(r, "missing ROM", "ValueError", "pong.bin", "does not exist")
    _assert_raised(r, "ROM a FIFO", "ValueError", "pong.bin", "not a regular file")
    _assert_raised(r, "ROM /dev/zero", "ValueError", "pong.bin", "not a regular file")
    _assert_raised(r, "ROM a folder", "ValueError", "pong.bin", "not a regular file")
    _assert_raised(r, "ROM garbage", "ValueError", "not a ROM that ALE 0.12.1 supports")
    _assert_raised(r, "ROM too big", "ValueError", "pong.bin", "1073741824 bytes")
    _assert_raised(r, "game ..", "ValueError", "game must be a ROM id")
    _assert_raised(r, "game with a slash", "ValueError", "game must be a ROM id")
    _assert_raised(r, "per-env rom_dir", "ValueError", "per_env_options[1]", "not a regular")


# ---- MuJoCo and dm_control: models and their folders ------------------------------------


@pytest.mark.skipif("Ant-v5" not in envfleet.list_all_envs(), reason="no MuJoCo family")
def test_mujoco_model_files(hostile_files):
    d = hostile_files
    make = "envfleet.make('Ant-v5', {})"
    cases = [
        ("missing xml_file", make.format("xml_file='/nonexistent/ant.xml'")),
        ("xml_file a FIFO", make.format(f"xml_file='{d / 'fifo'}'")),
        ("xml_file /dev/zero", make.format(f"xml_file='{d / 'zero'}'")),
        ("xml_file a folder", make.format(f"xml_file='{d / 'folder'}'")),
        ("xml_file garbage", make.format(f"xml_file='{d / 'garbage'}'")),
        ("xml_file truncated", make.format(f"xml_file='{d / 'truncated.xml'}'")),
        ("xml_file an empty model", make.format(f"xml_file='{d / 'empty_model.xml'}'")),
        # A torso without joints: Ant reads qpos[2], past the end of this model's arrays.
        ("xml_file too small", make.format(f"xml_file='{d / 'one_body.xml'}'")),
        (
            "Humanoid too small",
            "envfleet.make('Humanoid-v5', xml_file='%s')" % (d / "one_body.xml"),
        ),
        ("xml_file with NUL", make.format("xml_file='/tmp/a\\x00b'")),
        ("xml_file not UTF-8", make.format(f"xml_file='{d / 'not_utf8.xml'}'")),
        ("missing assets_dir", make.format("assets_dir='/nonexistent'")),
        ("assets_dir a file", make.format(f"assets_dir='{d / 'garbage'}'")),
        ("assets_dir without the model", make.format(f"assets_dir='{d / 'folder'}'")),
        (
            "per-env xml_file",
            make.format(
                f"num_envs=3, per_env_options=[{{}}, {{}}, {{'xml_file': '{d / 'truncated.xml'}'}}]"
            ),
        ),
    ]
    r = _run_cases(cases)
    _assert_raised(r, "missing xml_file", "ValueError", "Ant-v5", "xml_file", "does not exist")
    for label in ("xml_file a FIFO", "xml_file /dev/zero", "xml_file a folder"):
        _assert_raised(r, label, "ValueError", "xml_file", "not a regular file")
    _assert_raised(r, "xml_file garbage", "ValueError", "MuJoCo could not load the model")
    _assert_raised(r, "xml_file truncated", "ValueError", "MuJoCo could not load the model")
    for label in ("xml_file an empty model", "xml_file too small"):
        _assert_raised(r, label, "ValueError", "Ant-v5", "xml_file", "reads a model of at least")
    _assert_raised(r, "Humanoid too small", "ValueError", "Humanoid-v5", "at least nq = 3")
    _assert_raised(r, "xml_file with NUL", "ValueError", "xml_file", "NUL")
    # Not a UnicodeDecodeError (nor a TypeError from re-raising one): the bytes are replaced.
    _assert_raised(r, "xml_file not UTF-8", "ValueError", "MuJoCo could not", "bo\ufffddy")
    _assert_raised(r, "missing assets_dir", "ValueError", "assets_dir", "does not exist")
    _assert_raised(r, "assets_dir a file", "ValueError", "assets_dir", "not a folder")
    _assert_raised(r, "assets_dir without the model", "ValueError", "ant.xml", "does not exist")
    _assert_raised(r, "per-env xml_file", "ValueError", "per_env_options[2]", "MuJoCo")


@pytest.mark.skipif("FetchPush-v4" not in envfleet.list_all_envs(), reason="no robotics family")
def test_robotics_model_files(hostile_files):
    """The Gymnasium-Robotics family reads its models from gymnasium-robotics' assets folder
    (assets_dir) or an absolute xml_file: every bad one is a ValueError naming it."""
    d = hostile_files
    make = "envfleet.make('FetchPush-v4', {})"
    cases = [
        ("missing xml_file", make.format("xml_file='/nonexistent/push.xml'")),
        ("xml_file a FIFO", make.format(f"xml_file='{d / 'fifo'}'")),
        ("xml_file /dev/zero", make.format(f"xml_file='{d / 'zero'}'")),
        ("xml_file garbage", make.format(f"xml_file='{d / 'garbage'}'")),
        ("xml_file truncated", make.format(f"xml_file='{d / 'truncated.xml'}'")),
        # A model without Fetch's mocap, sites and joints.
        ("xml_file of another robot", make.format(f"xml_file='{d / 'one_body.xml'}'")),
        ("xml_file with NUL", make.format("xml_file='/tmp/a\\x00b'")),
        ("missing assets_dir", make.format("assets_dir='/nonexistent'")),
        ("assets_dir without the model", make.format(f"assets_dir='{d / 'folder'}'")),
        (
            "per-env xml_file",
            make.format(
                f"num_envs=3, per_env_options=[{{}}, {{}}, {{'xml_file': '{d / 'truncated.xml'}'}}]"
            ),
        ),
    ]
    r = _run_cases(cases)
    _assert_raised(
        r, "missing xml_file", "ValueError", "FetchPush-v4", "xml_file", "does not exist"
    )
    for label in ("xml_file a FIFO", "xml_file /dev/zero"):
        _assert_raised(r, label, "ValueError", "xml_file", "not a regular file")
    for label in ("xml_file garbage", "xml_file truncated"):
        _assert_raised(r, label, "ValueError", "MuJoCo could not load the model")
    _assert_raised(r, "xml_file of another robot", "ValueError", "FetchPush-v4", "xml_file")
    _assert_raised(r, "xml_file with NUL", "ValueError", "xml_file", "NUL")
    _assert_raised(r, "missing assets_dir", "ValueError", "assets_dir", "does not exist")
    _assert_raised(r, "assets_dir without the model", "ValueError", "push.xml", "does not exist")
    _assert_raised(r, "per-env xml_file", "ValueError", "per_env_options[2]", "MuJoCo")


@pytest.mark.skipif(
    "MetaWorld/PickPlace-v3" not in envfleet.list_all_envs(), reason="no Meta-World family"
)
def test_metaworld_model_files(hostile_files):
    """The Meta-World family reads its models from metaworld's assets folder (assets_dir) or
    an absolute xml_file: every bad one is a ValueError naming it (a missing folder also says
    how metaworld is installed)."""
    d = hostile_files
    make = "envfleet.make('MetaWorld/PickPlace-v3', {})"
    cases = [
        ("missing xml_file", make.format("xml_file='/nonexistent/pick_place.xml'")),
        ("xml_file garbage", make.format(f"xml_file='{d / 'garbage'}'")),
        ("xml_file of another robot", make.format(f"xml_file='{d / 'one_body.xml'}'")),
        ("missing assets_dir", make.format("assets_dir='/nonexistent'")),
        ("assets_dir without the model", make.format(f"assets_dir='{d / 'folder'}'")),
    ]
    r = _run_cases(cases)
    _assert_raised(r, "missing xml_file", "ValueError", "xml_file", "does not exist")
    _assert_raised(r, "xml_file garbage", "ValueError", "MuJoCo could not load the model")
    _assert_raised(r, "xml_file of another robot", "ValueError", "xml_file", "Sawyer")
    _assert_raised(r, "missing assets_dir", "ValueError", "assets_dir", "metaworld==3.1.1")
    without = "assets_dir without the model"
    _assert_raised(r, without, "ValueError", "sawyer_pick_place_v3.xml", "does not exist")


def test_myosuite_model_files(hostile_files):
    """The MyoSuite family reads its models from myo-sim's models folder (assets_dir) or an
    absolute xml_file: every bad one is a ValueError naming it (a missing folder also says how
    myo-sim is installed), and a model without the task's joints or sites names what it lacks."""
    d = hostile_files
    make = "envfleet.make('myoFingerPoseRandom-v0', {})"
    cases = [
        ("missing xml_file", make.format("xml_file='/nonexistent/finger.xml'")),
        ("xml_file garbage", make.format(f"xml_file='{d / 'garbage'}'")),
        ("xml_file a fifo", make.format(f"xml_file='{d / 'fifo'}'")),
        ("xml_file of another body", make.format(f"xml_file='{d / 'one_body.xml'}'")),
        ("missing assets_dir", make.format("assets_dir='/nonexistent'")),
        ("assets_dir without the model", make.format(f"assets_dir='{d / 'folder'}'")),
        ("compiled model garbage", make.format(f"xml_file='{d / 'garbage.mjb'}'")),
    ]
    (d / "garbage.mjb").write_bytes((d / "garbage").read_bytes())
    r = _run_cases(cases)
    _assert_raised(r, "missing xml_file", "ValueError", "xml_file", "does not exist")
    _assert_raised(r, "xml_file garbage", "ValueError", "MuJoCo could not load the model")
    _assert_raised(
        r, "compiled model garbage", "ValueError", "MuJoCo could not load the compiled model"
    )
    _assert_raised(r, "xml_file a fifo", "ValueError", "xml_file", "not a regular file")
    _assert_raised(r, "xml_file of another body", "ValueError", "xml_file", "no joint named")
    _assert_raised(r, "missing assets_dir", "ValueError", "assets_dir", "envfleet[myosuite]")
    without = "assets_dir without the model"
    _assert_raised(r, without, "ValueError", "myofinger_v0.xml", "does not exist")


@pytest.mark.skipif(not vizdoom_built(), reason="no ViZDoom family (no Boost at build time)")
def test_vizdoom_scenario_files(hostile_files):
    """The ViZDoom family reads a scenario's cfg and WAD, the IWAD and the engine from paths the
    options give: a bad one is a ValueError naming the option, and an engine that cannot start
    a RuntimeError saying so, before make() returns; nothing is left running either way."""
    d = hostile_files
    (d / "not_a_config.cfg").write_text("this is = not { a config\n")
    make = "envfleet.make('Basic-v1', num_envs=2, {})"
    cases = [
        ("missing cfg_path", make.format("cfg_path='/nonexistent/basic.cfg'")),
        ("cfg_path a FIFO", make.format(f"cfg_path='{d / 'fifo'}'")),
        ("cfg_path /dev/zero", make.format(f"cfg_path='{d / 'zero'}'")),
        ("cfg_path not a config", make.format(f"cfg_path='{d / 'not_a_config.cfg'}'")),
        ("missing wad_path", make.format("wad_path='/nonexistent/basic.wad'")),
        ("wad_path a FIFO", make.format(f"wad_path='{d / 'fifo'}'")),
        ("wad_path a folder", make.format(f"wad_path='{d / 'folder'}'")),
        ("missing engine", make.format("vzd_path='/nonexistent/vizdoom'")),
        ("engine not executable", make.format(f"vzd_path='{d / 'garbage'}'")),
        ("engine that exits", make.format("vzd_path='/bin/true'")),
        ("missing iwad", make.format("iwad_path='/nonexistent/freedoom2.wad'")),
        ("garbage iwad", make.format(f"iwad_path='{d / 'garbage'}'")),
        # cig.wad has deathmatch starts only: without -deathmatch the engine refuses the map.
        (
            "map without a player start",
            make.format("cfg_path=CIG['cfg_path'], wad_path=CIG['wad_path']"),
        ),
    ]
    cig = {k: v for k, v in envfleet.registry.registration("Cig-v1").options.items() if "path" in k}
    cases = [(label, f"CIG = {cig!r}\n{code}") for label, code in cases]
    r = _run_cases(cases)
    _assert_raised(r, "missing cfg_path", "ValueError", "Basic-v1", "cfg_path", "does not exist")
    for label in ("cfg_path a FIFO", "cfg_path /dev/zero"):
        _assert_raised(r, label, "ValueError", "cfg_path", "not a regular file")
    _assert_raised(r, "cfg_path not a config", "ValueError", "not a ViZDoom config")
    _assert_raised(r, "missing wad_path", "ValueError", "wad_path", "does not exist")
    for label in ("wad_path a FIFO", "wad_path a folder"):
        _assert_raised(r, label, "ValueError", "wad_path", "not a regular file")
    _assert_raised(r, "missing engine", "ValueError", "vzd_path", "does not exist")
    _assert_raised(r, "engine not executable", "ValueError", "vzd_path", "not executable")
    _assert_raised(r, "engine that exits", "RuntimeError", "engine did not start", "/bin/true")
    _assert_raised(r, "missing iwad", "ValueError", "iwad_path", "does not exist")
    _assert_raised(r, "garbage iwad", "RuntimeError", "engine did not start")
    _assert_raised(r, "map without a player start", "RuntimeError", "No player 1 start")


@pytest.mark.skipif("CheetahRun-v1" not in envfleet.list_all_envs(), reason="no dm_control")
def test_dm_control_suite_folder(hostile_files):
    d = hostile_files
    (d / "suite_corrupt").mkdir(exist_ok=True)
    (d / "suite_corrupt" / "cheetah.xml").write_text("<mujoco><worldbody><body")
    make = "envfleet.make('CheetahRun-v1', {})"
    cases = [
        ("missing", make.format("assets_dir='/nonexistent'")),
        ("a file", make.format(f"assets_dir='{d / 'garbage'}'")),
        ("without the model", make.format(f"assets_dir='{d / 'folder'}'")),
        ("corrupt model", make.format(f"assets_dir='{d / 'suite_corrupt'}'")),
    ]
    r = _run_cases(cases)
    _assert_raised(r, "missing", "ValueError", "CheetahRun-v1", "assets_dir", "does not exist")
    _assert_raised(r, "a file", "ValueError", "assets_dir", "not a folder")
    _assert_raised(r, "without the model", "ValueError", "cheetah.xml", "does not exist")
    _assert_raised(r, "corrupt model", "ValueError", "MuJoCo could not")


# ---- Procgen: the engine library and assets installed beside envfleet._procgen --------------
# procgen's engine (libenv.so and the game assets) lives in envfleet/procgen_engine/, next
# to the module; a broken one must fail the module's import,
# which make() reports as EngineNotInstalledError naming the extra, never reach the engine
# (which calls exit() on what it cannot load). Each case breaks a COPY of the installed
# package (its Python files, envfleet._core and envfleet._procgen), whose procgen_engine
# links to the installed engine's parts but the broken one: the install itself is untouched.

PROCGEN_ID = "CoinrunHard-v0"
# The engine's parts envfleet._procgen loads (cpp/families/procgen/libenv.h), relative to
# procgen_engine/.
_LIBENV = "procgen/data/prebuilt/libenv.so"
_ASSETS = "procgen/data/assets"

_PROCGEN_COPY_SNIPPET = """
import json, sys
# An editable install's import hook serves envfleet from the source tree whatever sys.path
# says: without it, the copy is what imports.
sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("_editable")]
sys.path.insert(0, {root!r})
import numpy as np
import envfleet
import envfleet._core
for module in (envfleet, envfleet._core):
    assert module.__file__.startswith({root!r}), module.__file__
outcomes = []
for call in (envfleet.make, envfleet.make_spec, envfleet.make):  # the failure is not cached
    try:
        env = call({task!r}, num_envs=2) if call is envfleet.make else call({task!r})
        if call is envfleet.make:
            env.reset()
            env.step(np.zeros(2, dtype=np.int64))
            env.close()
        outcomes.append(["ok", ""])
    except BaseException as e:
        outcomes.append([type(e).__name__, str(e)])
assert {task!r} in envfleet.list_all_envs()
env = envfleet.make("CartPole-v1", num_envs=2)  # the rest of envfleet works
env.reset(); env.step(np.zeros(2, dtype=np.int64)); env.close()
print("OUTCOMES " + json.dumps(outcomes))
"""


def _procgen_installed() -> bool:
    return PROCGEN_ID in envfleet.list_all_envs() and engine_built(PROCGEN_ID)


def _link_tree(installed: Path, copy: Path, rel: str = "") -> None:
    """``copy`` mirrors the folder ``installed``: the folders on the way to the engine library
    and the assets are made, everything else (the assets folder and libenv.so included) is a
    link to the installed one."""
    copy.mkdir(parents=True)
    for entry in installed.iterdir():
        path = f"{rel}{entry.name}"
        if entry.is_dir() and any(p.startswith(path + "/") for p in (_LIBENV, _ASSETS)):
            _link_tree(entry, copy / entry.name, path + "/")
        else:
            os.symlink(entry, copy / entry.name)


def _procgen_package_copy(root: Path, broken: str) -> None:
    """A copy of the installed envfleet at ``root / 'envfleet'`` whose procgen_engine folder
    is the installed one's (linked) but for ``broken``: 'none' (intact), 'no engine folder',
    'libenv.so moved' (renamed aside), 'libenv.so garbage', 'no assets', 'empty assets' or
    'one image missing' (a folder of links to the installed images but one)."""
    package = Path(envfleet.__file__).parent
    modules = Path(importlib.import_module("envfleet._procgen").__file__).parent
    copy = root / "envfleet"
    shutil.copytree(
        package,
        copy,
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "procgen_engine", "vizdoom_*"),
    )
    for name in ("_core", "_procgen"):  # copied, not linked: _procgen finds its engine by
        (module,) = modules.glob(f"{name}.*.so")  # its own file's path (dladdr)
        shutil.copy2(module, copy / module.name)
    if broken == "no engine folder":
        return
    engine = copy / "procgen_engine"
    _link_tree(modules / "procgen_engine", engine)
    libenv, assets = engine / _LIBENV, engine / _ASSETS
    assert libenv.is_symlink() and assets.is_symlink(), "the installed engine's layout changed"
    if broken == "libenv.so moved":
        libenv.rename(libenv.with_name("libenv.so.moved"))
    elif broken == "libenv.so garbage":
        libenv.unlink()
        libenv.write_bytes(b"\x7fELF" + os.urandom(4096))
    elif broken in ("no assets", "empty assets"):
        assets.unlink()
        if broken == "empty assets":
            assets.mkdir()
    elif broken == "one image missing":
        installed = Path(os.readlink(assets))
        assets.unlink()
        for folder, _, files in os.walk(installed):
            (assets / Path(folder).relative_to(installed)).mkdir(parents=True, exist_ok=True)
            for name in files:
                os.symlink(Path(folder) / name, assets / Path(folder).relative_to(installed) / name)
        (assets / "kenney/Backgrounds/colored_grass.png").unlink()
    else:
        assert broken == "none", broken


def _procgen_copy_outcomes(tmp_path: Path, broken: str) -> list[tuple[str, str]]:
    root = tmp_path / broken.replace(" ", "_")
    _procgen_package_copy(root, broken)
    rc, out, err = run_isolated(
        _PROCGEN_COPY_SNIPPET.format(root=str(root), task=PROCGEN_ID), timeout=120
    )
    lines = [line for line in out.splitlines() if line.startswith("OUTCOMES ")]
    assert rc == 0 and lines, f"broken engine ({broken}): " + describe(rc, out, err)
    return [tuple(o) for o in json.loads(lines[-1][len("OUTCOMES ") :])]


@pytest.mark.skipif(not _procgen_installed(), reason="no Procgen family (no engine at build time)")
def test_procgen_copy_of_the_package_works_when_intact(tmp_path):
    """The control for the cases below: the same copy with nothing broken makes and steps a
    pool, so that their EngineNotInstalledError comes from what each breaks."""
    assert _procgen_copy_outcomes(tmp_path, "none") == [("ok", "")] * 3


@pytest.mark.skipif(not _procgen_installed(), reason="no Procgen family (no engine at build time)")
@pytest.mark.parametrize(
    "broken,cause",
    [
        ("no engine folder", "libenv.so"),
        ("libenv.so moved", "libenv.so"),
        ("libenv.so garbage", "libenv.so"),
        ("no assets", "is missing or damaged"),
        ("empty assets", "is missing or damaged"),
        # procgen itself would exit() the process on the first make (CheckAssets' reason)
        ("one image missing", "colored_grass.png is missing or damaged"),
    ],
)
def test_procgen_broken_engine_is_engine_not_installed(tmp_path, broken, cause):
    """A missing or broken engine library, missing, empty or incomplete assets:
    make() and make_spec() raise EngineNotInstalledError naming the extra and the cause (every
    time: the failure is not cached as something else), the process goes on."""
    for kind, message in _procgen_copy_outcomes(tmp_path, broken):
        assert kind == "EngineNotInstalledError", f"{broken}: {kind}: {message}"
        assert "pip install 'envfleet[procgen]'" in message, message
        assert "envfleet._procgen" in message and cause in message, message


@pytest.mark.skipif(not _procgen_installed(), reason="no Procgen family (no engine at build time)")
def test_procgen_pools_close_cleanly():
    """Procgen pools (one engine instance per env) close with envs in flight, twice; every
    call after close() raises RuntimeError; engines are freed at close (40 pools of 8 envs
    made and closed leave the process's memory where one such cycle left it); pools never
    closed, collected or left open at exit, end with the process cleanly."""
    out = assert_isolated_ok(
        f"""
        import gc
        import numpy as np
        import envfleet

        def rss_mib():
            with open("/proc/self/status") as f:
                line = next(l for l in f if l.startswith("VmRSS"))
            return int(line.split()[1]) // 1024

        env = envfleet.make({PROCGEN_ID!r}, num_envs=4, batch_size=2, num_threads=2,
                            render_mode="rgb_array")
        env.async_reset()
        info = env.recv()[-1]
        env.send(np.zeros(2, dtype=np.int64), info["env_id"])  # envs in flight at close
        env.close()
        env.close()
        action = np.zeros(2, dtype=np.int64)
        calls = {{
            "reset": lambda: env.reset(),
            "step": lambda: env.step(action, np.arange(2, dtype=np.int32)),
            "send": lambda: env.send(action, np.arange(2, dtype=np.int32)),
            "recv": lambda: env.recv(),
            "async_reset": lambda: env.async_reset(),
            "render": lambda: env.render(),
        }}
        for name, call in calls.items():
            try:
                call()
            except RuntimeError as e:
                assert "closed" in str(e), (name, e)
            else:
                raise AssertionError(f"{{name}}() after close() did not raise")

        def cycle():
            env = envfleet.make({PROCGEN_ID!r}, num_envs=8, render_mode="rgb_array")
            env.reset()
            env.step(np.ones(8, dtype=np.int64))
            env.render(env_ids=list(range(8)))
            env.close()

        cycle()
        before = rss_mib()
        for _ in range(40):
            cycle()
        print("GROWTH", rss_mib() - before)

        dropped = envfleet.make({PROCGEN_ID!r}, num_envs=3)  # collected, never closed
        dropped.reset()
        del dropped
        gc.collect()
        left_open = envfleet.make({PROCGEN_ID!r}, num_envs=3, batch_size=1)
        left_open.async_reset()  # open, with envs in flight, at exit
        print("DONE")
        """,
        timeout=180,
    )
    assert out.strip().endswith("DONE"), out
    growth = int(next(line for line in out.splitlines() if line.startswith("GROWTH")).split()[1])
    # 320 engines kept after close would hold about 1.8 MiB each (a rendered env's buffers).
    assert growth < 150, f"40 pools made and closed grew the process by {growth} MiB"


# ---- Sprites: the toy-text and Pendulum assets_dir ------------------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")


def _png(width: int, height: int) -> bytes:
    """A valid 8-bit RGBA PNG."""
    chunk = _chunk
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    rows = b"".join(b"\x00" + os.urandom(4 * width) for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("task_id", ["FrozenLake-v1", "Pendulum-v1"])
def test_assets_dir_must_be_a_folder(task_id, hostile_files):
    with pytest.raises(ValueError, match=rf"{task_id}: assets_dir '/nonexistent' does not exist"):
        envfleet.make(task_id, assets_dir="/nonexistent")
    with pytest.raises(ValueError, match="not a folder"):
        envfleet.make(task_id, assets_dir=str(hostile_files / "garbage"))


def test_hostile_and_corrupt_sprites_raise_env_errors(hostile_files, tmp_path):
    # FrozenLake's sprites from a folder where each is broken in its own way: rendering raises
    # EnvError naming the env and the file, quickly; never a hang, a crash or a wrong frame.
    valid = _png(8, 8)
    mutations = {
        "fifo": None,
        "zero": None,
        "truncated": valid[: len(valid) // 2],
        "garbage": os.urandom(300),
        "bad crc": valid[:30] + bytes([valid[30] ^ 1]) + valid[31:],
        "huge size": valid[:16] + (2**31 - 1).to_bytes(4, "big") + valid[20:],
        # A chunk whose name is not text, with a valid CRC: named with escapes in the error.
        "binary chunk name": valid[:33] + _chunk(b"\x80\xfeXY", b"") + valid[33:],
    }
    cases = []
    for name, content in mutations.items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        for sprite in (
            "tile_ice.png",
            "tile_hole.png",
            "goal_flag.png",
            "agent.png",
            "letter_s.png",
            "letter_g.png",
            "tile_ice_crack_a.png",
            "tile_ice_crack_b.png",
        ):
            if content is None:
                os.symlink(hostile_files / name, folder / sprite)
            else:
                (folder / sprite).write_bytes(content)
        code = textwrap.dedent(f"""
            env = envfleet.make('FrozenLake-v1', num_envs=2, render_mode='rgb_array',
                                assets_dir='{folder}')
            env.reset()
            try:
                env.render(env_ids=[1])
            finally:
                env.close()
        """)
        cases.append((name, code))
    r = _run_cases(cases)
    for name in ("fifo", "zero"):
        _assert_raised(r, name, "EnvError", "env 1", "not a regular file")
    for name in ("truncated", "garbage", "bad crc", "huge size"):
        _assert_raised(r, name, "EnvError", "env 1 failed to render")
    _assert_raised(r, "binary chunk name", "EnvError", "unknown critical chunk \\x80\\xfeXY")


# ---- Absurd sizes ---------------------------------------------------------------------------

# One id per family: the pool's own buffers for 10**9 envs exceed any machine's memory.
_ABSURD = [
    ("CartPole-v1", ""),
    ("Counting-v0", "batch_size=1"),
    ("FrozenLake-v1", ""),
    ("Pong-v5", ""),
    ("Ant-v5", ""),
    ("CartpoleSwingup-v1", ""),
    ("LunarLander-v3", ""),
    ("MiniGrid-DoorKey-5x5-v0", ""),
    ("BabyAI-BossLevel-v0", ""),
    ("FetchPush-v4", ""),
    ("MetaWorld/PickPlace-v3", ""),
]


def test_absurd_num_envs_raise_memory_error_before_allocating():
    ids = envfleet.list_all_envs()
    cases = [
        (task, f"envfleet.make('{task}', num_envs=10**9, {extra})")
        for task, extra in _ABSURD
        if task in ids
    ]
    cases += [
        ("2**31", "envfleet.make('CartPole-v1', num_envs=2**31)"),
        (
            "from_pixels",
            "envfleet.make('Ant-v5', num_envs=64, from_pixels=True, frame_stack=64, "
            "render_width=16384, render_height=16384)",
        ),
    ]
    r = _run_cases(cases)
    for task, _ in _ABSURD:
        if task in ids:
            # "needs at least": the check's own message, not an allocation that failed.
            _assert_raised(r, task, "MemoryError", task, "num_envs=1000000000", "needs at least")
    _assert_raised(r, "2**31", "ValueError", "num_envs must be in [1, 2147483647]")
    if "Ant-v5" in ids:
        _assert_raised(r, "from_pixels", "MemoryError", "needs at least")


def test_building_stops_with_memory_error_when_memory_runs_out():
    # ENVFLEET_MEMORY_RESERVE (bytes kept for the rest of the machine) above what is left
    # stands in for a machine whose memory the envs being built have used up.
    ids = envfleet.list_all_envs()
    tasks = [
        t
        for t in (
            "CartPole-v1",
            "Pong-v5",
            "Ant-v5",
            "CartpoleSwingup-v1",
            "LunarLander-v3",
            "MiniGrid-DoorKey-5x5-v0",
            "FetchPush-v4",
            "MetaWorld/PickPlace-v3",
        )
        if t in ids
    ]
    code = textwrap.dedent(f"""
        import os
        os.environ["ENVFLEET_MEMORY_RESERVE"] = str(2**62)
        import envfleet
        for task in {tasks!r}:
            try:
                envfleet.make(task, num_envs=2)
                print("BUILT", task)
            except MemoryError as e:
                print("MEMORYERROR", e)
    """)
    rc, out, err = run_isolated(code, timeout=120)
    assert rc == 0, describe(rc, out, err)
    lines = [line for line in out.splitlines() if line.startswith(("BUILT", "MEMORYERROR"))]
    assert len(lines) == len(tasks), out
    for task, line in zip(tasks, lines, strict=True):
        assert line.startswith("MEMORYERROR") and task in line, line
        assert "out of memory while building the envs" in line, line


def test_memory_available_is_what_the_machine_reports():
    available = envfleet._core.memory_available()
    with open("/proc/meminfo") as f:
        meminfo = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f}
    assert 0 < available <= meminfo["MemTotal"]


# ---- Sizes of frames, stacks, maps and ids --------------------------------------------------


@pytest.mark.parametrize(
    "task_id,option,values",
    [
        ("Pong-v5", "img_height", [0, -1, 211, 2**31, 2**63 - 1, -(2**63)]),
        ("Pong-v5", "img_width", [0, -1, 161, 2**31, 2**63 - 1]),
        ("Pong-v5", "stack_num", [0, -1, 65, 2**31, 2**63 - 1]),
        ("Pong-v5", "frame_skip", [0, -1, -(2**63)]),
        ("Pong-v5", "noop_max", [-1, -(2**63)]),
        ("Pong-v5", "mode", [-2, 2**31, 2**63 - 1]),
        ("Pong-v5", "difficulty", [-2, 2**31, 2**63 - 1]),
        ("Ant-v5", "frame_skip", [0, -1, -(2**63)]),
        ("Ant-v5", "main_body", [-1, 14, 2**31, 2**63 - 1]),
        ("Counting-v0", "episode_length", [0, -1, -(2**63)]),
        ("MiniGrid-Empty-5x5-v0", "size", [0, 2, -1, 1025, 2**31, 2**63 - 1]),
        ("MiniGrid-Empty-5x5-v0", "agent_view_size", [0, 1, 2, 4, 257, 2**31, -(2**63)]),
        ("MiniGrid-Empty-5x5-v0", "tile_size", [0, -1, 1025, 2**31]),
        ("MiniGrid-Empty-5x5-v0", "obs_tile_size", [0, -1, 2**31]),
        ("MiniGrid-Empty-5x5-v0", "mission_bytes", [0, -1, 2**31]),
        ("MiniGrid-Empty-5x5-v0", "max_steps", [0, -2, 2**31, -(2**63)]),
        ("MiniGrid-Empty-5x5-v0", "agent_start_dir", [-1, 4, 2**31]),
        ("MiniGrid-DoorKey-5x5-v0", "size", [4, 1025]),
        ("MiniGrid-Fetch-5x5-N2-v0", "numObjs", [-2, 0, 9, 2**31]),
        ("MiniGrid-Fetch-5x5-N2-v0", "num_objs", [-2, 0, 9, 2**31]),
        ("MiniGrid-GoToObject-6x6-N2-v0", "numObjs", [0, 2**31]),
        ("MiniGrid-PutNear-6x6-N2-v0", "numObjs", [0, 1, 4, 2**31]),
        ("MiniGrid-MultiRoom-N2-S4-v0", "maxRoomSize", [3, -2, 2**31]),
        ("MiniGrid-MultiRoom-N2-S4-v0", "maxNumRooms", [1, 1001, 2**31]),
        ("MiniGrid-KeyCorridorS3R1-v0", "room_size", [2, 1025, 2**31]),
        ("MiniGrid-KeyCorridorS3R1-v0", "num_rows", [0, 65, 2**31]),
        ("MiniGrid-ObstructedMaze-Full-v0", "num_quarters", [0, 5, 2**31]),
        ("MiniGrid-LavaCrossingS9N1-v0", "size", [4, 10, 1025]),
        ("MiniGrid-MemoryS7-v0", "size", [3, 8, 1025]),
        ("MiniGrid-DistShift1-v0", "strip2_row", [-1, 7, 2**31]),
        ("MiniGrid-WFC-MazeSimple-v0", "size", [0, 2, -1, 1025, 2**31, 2**63 - 1]),
        ("MiniGrid-WFC-MazeSimple-v0", "max_steps", [0, -2, 2**31, -(2**63)]),
        ("BabyAI-BossLevel-v0", "room_size", [0, 2, 1025, 2**31]),
        ("BabyAI-BossLevel-v0", "num_rows", [0, 65, 2**31]),
        ("BabyAI-BossLevel-v0", "num_dists", [-1, 9 * 36, 2**31]),
        ("BabyAI-GoToLocal-v0", "num_dists", [0, 32, 2**31]),
        ("BabyAI-GoToLocal-v0", "mission_bytes", [0, -1, 2**31]),
        ("BabyAI-GoToLocal-v0", "max_steps", [0, -2, 2**31]),
        ("BabyAI-PutNextS5N2-v0", "objs_per_room", [0, 5, 10, 2**31]),
        ("BabyAI-PutNextS5N2-v0", "room_size", [3, 1025, 2**31]),
        ("BabyAI-PutNextLocal-v0", "num_objs", [1, 19, 2**31]),
        ("BabyAI-OpenDoorsOrderN2-v0", "num_doors", [1, 5, 2**31]),
        ("BabyAI-MoveTwoAcrossS5N2-v0", "objs_per_room", [1, 10, 2**31]),
    ],
)
def test_size_options_out_of_range_raise(task_id, option, values):
    if task_id not in envfleet.list_all_envs():
        pytest.skip(f"no {task_id}")
    for value in values:
        with pytest.raises(ValueError, match=option):
            envfleet.make(task_id, **{option: value})
    for value in (2**63, -(2**63) - 1, 10**30):  # not int64s: refused before the core
        with pytest.raises(ValueError, match=f"option '{option}' must fit in an int64"):
            envfleet.make(task_id, **{option: value})


@pytest.mark.parametrize("value", [2**31, 10**6, 16385, -2])
def test_render_sizes_stacks_and_camera_ids_out_of_range_raise(value):
    with pytest.raises(ValueError, match="render_"):
        envfleet.make("CartPole-v1", render_mode="rgb_array", render_width=value)
    with pytest.raises(ValueError, match="render_camera_id"):
        envfleet.make("CartPole-v1", render_mode="rgb_array", render_camera_id=value)
    if "Ant-v5" in envfleet.list_all_envs():
        with pytest.raises(ValueError, match="render_"):
            envfleet.make("Ant-v5", render_mode="rgb_array", render_height=value)
        for option in ("render_width", "frame_stack", "render_camera_id"):
            with pytest.raises(ValueError, match=option):
                envfleet.make("Ant-v5", from_pixels=True, **{option: value})
    if "CartpoleSwingup-v1" in envfleet.list_all_envs():
        for option in ("render_height", "frame_stack", "render_camera_id"):
            with pytest.raises(ValueError, match=option):
                envfleet.make("CartpoleSwingup-v1", from_pixels=True, **{option: value})


def test_render_camera_id_of_a_render_call_is_checked():
    env = envfleet.make("Counting-v0", render_mode="rgb_array")
    try:
        env.reset()
        for camera in (1, -2, 2**31 - 1, -(2**31)):
            with pytest.raises(ValueError, match="camera_id"):
                env.render(camera_id=camera)
        with pytest.raises((ValueError, TypeError, OverflowError)):
            env.render(camera_id=2**63)
        assert env.render(camera_id=0).shape == (1, 8, 16, 3)
    finally:
        env.close()


def test_float_options_past_float_range_raise():
    with pytest.raises(ValueError, match="option 'g' is out of a float's range"):
        envfleet.make("Pendulum-v1", g=10**400)
    if "Ant-v5" in envfleet.list_all_envs():
        with pytest.raises(ValueError, match="healthy_z_range"):
            envfleet.make("Ant-v5", healthy_z_range=[0.2, 10**400])


def test_frozen_lake_map_sizes():
    with pytest.raises(ValueError, match="desc rows differ"):
        envfleet.make("FrozenLake-v1", desc=["SFG", "H"])
    with pytest.raises(ValueError, match="must not be empty"):
        envfleet.make("FrozenLake-v1", desc=[""])
    # (A map of 2**31 cells or more, whose state numbers would overflow, is refused too; a
    # test would copy its 2 GiB.)


def test_int64_bounds_past_2_63_saturate():
    # Counting's observation bound is episode_length, a float in the core: int64's max does not
    # survive the round trip exactly, and must not wrap to a negative bound.
    env = envfleet.make("Counting-v0", episode_length=2**63 - 1)
    try:
        assert env.observation_space.high[0] == np.iinfo(np.int64).max - 1023
        assert env.observation_space.high[0] > 0
    finally:
        env.close()
