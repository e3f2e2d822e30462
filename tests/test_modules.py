"""The extension modules as shipped: one per engine, loaded lazily, each linking only its own
engine, with no build-machine path inside and stubs that match what they export.

envfleet._core holds the pool and the engine-free families; envfleet._atari statically holds
ALE (GPL-2.0-only); envfleet._mujoco, envfleet._dm_control, envfleet._robotics,
envfleet._metaworld and envfleet._myosuite link libmujoco. ``import envfleet`` and a CartPole
pool must load no engine; a missing engine must surface as an error naming its extra.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_isolated_ok

import envfleet
from envfleet import registry

PACKAGE = Path(envfleet.__file__).parent
# Every module a built-in family names, from the registrations (a new family is covered).
MODULES = tuple(
    sorted(
        {reg.family.module.removeprefix("envfleet.") for reg in registry._registry.values()}
        | {"_core"}
    )
)

# Marks of ALE inside a binary that survive stripping: its banner string and the RTTI names
# of its classes (typeinfo names live in .rodata, not in the symbol table).
ALE_MARKS = (b"A.L.E: Arcade Learning Environment", b"N3ale6stella")


def module_file(name: str) -> Path:
    return Path(importlib.import_module(f"envfleet.{name}").__file__).resolve()


def readelf_dynamic(path: Path) -> str:
    if shutil.which("readelf") is None:
        pytest.fail("readelf (binutils) is needed to inspect the modules")
    return subprocess.run(
        ["readelf", "-d", str(path)], capture_output=True, text=True, check=True
    ).stdout


def test_import_and_a_cartpole_pool_load_no_engine():
    out = assert_isolated_ok(
        """
        import sys
        import envfleet
        env = envfleet.make("CartPole-v1", num_envs=2)
        env.reset(); env.step([env.action_space.sample() for _ in range(2)]); env.close()
        print(sorted(m for m in sys.modules if m.startswith("envfleet._")))
        print(any(m == "ale_py" or m.startswith("mujoco") for m in sys.modules))
        with open("/proc/self/maps") as maps:
            print("libmujoco" in maps.read())
        """
    )
    modules, engine_package, libmujoco = out.strip().splitlines()
    assert modules == "['envfleet._core']"
    assert engine_package == "False" and libmujoco == "False"


def test_each_engine_module_loads_on_its_first_make():
    out = assert_isolated_ok(
        """
        import sys
        import envfleet
        envfleet.make("Pong-v5").close()
        print(sorted(m for m in sys.modules if m.startswith("envfleet._")))
        envfleet.make_spec("Ant-v5")
        print(sorted(m for m in sys.modules if m.startswith("envfleet._")))
        """
    )
    after_pong, after_ant = out.strip().splitlines()
    assert after_pong == "['envfleet._atari', 'envfleet._core']"
    assert after_ant == "['envfleet._atari', 'envfleet._core', 'envfleet._mujoco']"


@pytest.mark.parametrize("name", MODULES)
def test_module_links_only_its_own_engine(name):
    dynamic = readelf_dynamic(module_file(name))
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
    assert needed, dynamic
    mujoco = [lib for lib in needed if "mujoco" in lib]
    # The five families on MuJoCo link the one libmujoco of the mujoco-core wheel.
    links_mujoco = name in ("_mujoco", "_dm_control", "_robotics", "_metaworld", "_myosuite")
    assert mujoco == (["libmujoco.so.4.0.0"] if links_mujoco else []), needed
    # zlib is ALE's only dependency: it belongs to _atari alone.
    assert not [lib for lib in needed if lib.startswith("libz.")] or name == "_atari", needed


@pytest.mark.parametrize("name", MODULES)
def test_ale_is_inside_the_atari_module_only(name):
    data = module_file(name).read_bytes()
    found = [mark for mark in ALE_MARKS if mark in data]
    if name == "_atari":
        assert found == list(ALE_MARKS), "the probe must find ALE where it is"
    else:
        assert found == [], f"envfleet.{name} contains ALE (GPL-2.0): {found}"


def test_ale_licence_ships_with_the_atari_module():
    if not _installed():
        pytest.skip("running from a build tree: the licence is placed by `pip install`")
    # Beside the module: the package's folder, or in an editable install the folder in
    # site-packages that holds the modules (the Python files stay in src/).
    licence = module_file("_atari").parent / "licenses" / "ALE-GPL-2.0-LICENSE.md"
    assert "GNU GENERAL PUBLIC LICENSE" in licence.read_text()
    assert "Version 2" in licence.read_text()


def _installed() -> bool:
    return all("site-packages" in module_file(name).parts for name in MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_installed_modules_hold_only_origin_relative_rpaths(name):
    if not _installed():
        pytest.skip("running from a build tree, whose modules carry build-tree RPATHs")
    dynamic = readelf_dynamic(module_file(name))
    paths = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library (?:rpath|runpath): \[(.*?)\]", dynamic)
    entries = [entry for path in paths for entry in path.split(":") if entry]
    assert all(entry.startswith("$ORIGIN") for entry in entries), entries


def test_missing_mujoco_names_the_extra_and_the_rest_works(tmp_path):
    """What a user without envfleet[mujoco] gets: a copy of the package with no mujoco beside
    it (so $ORIGIN/../mujoco is empty) and `import mujoco` failing."""
    copy = tmp_path / "envfleet"
    shutil.copytree(PACKAGE, copy, symlinks=False, ignore=shutil.ignore_patterns("__pycache__"))
    modules = module_file("_core").parent
    if modules != PACKAGE:  # an editable install: the modules live apart from src/envfleet
        shutil.copytree(modules, copy, dirs_exist_ok=True)
    code = f"""
import importlib.abc, sys
# An editable install's import hook serves envfleet from the source tree whatever sys.path
# says: without it, the copy is what imports.
sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("_editable")]
class NoMujoco(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "mujoco" or name.startswith("mujoco."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, NoMujoco())
sys.path.insert(0, {str(tmp_path)!r})
import envfleet
assert envfleet.__file__.startswith({str(tmp_path)!r}), envfleet.__file__
assert "Ant-v5" in envfleet.list_all_envs()
for task in ("CartPole-v1", "Pong-v5"):
    env = envfleet.make(task, num_envs=2)
    env.reset(); env.step([env.action_space.sample() for _ in range(2)]); env.close()
try:
    envfleet.make("Ant-v5")
except envfleet.EngineNotInstalledError as exc:
    print(exc)
else:
    raise SystemExit("make('Ant-v5') did not raise")
with open("/proc/self/maps") as maps:
    assert "libmujoco" not in maps.read()
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pip install 'envfleet[mujoco]'" in proc.stdout, proc.stdout


@pytest.mark.parametrize("name", MODULES)
def test_shipped_stub_matches_the_module(name, tmp_path):
    """The committed stub is what nanobind's stubgen makes of the module (regenerate:
    ``python -m nanobind.stubgen -m envfleet.<name> -o src/envfleet/<name>.pyi``)."""
    shipped = PACKAGE / f"{name}.pyi"
    assert shipped.is_file(), f"{shipped} does not ship"
    fresh = tmp_path / f"{name}.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", f"envfleet.{name}", "-o", fresh],
        check=True,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
    assert fresh.read_text() == shipped.read_text(), (
        f"{shipped.name} is stale: regenerate it with nanobind.stubgen"
    )
