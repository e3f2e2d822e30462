"""tools/build_wheels.py's assumptions about the source tree, checked without building.

The wheel build itself (minutes) runs in CI (.ci/wheel.sh); these catch, in the ordinary test
run, an edit that would make it fail there or build a wheel unlike the source build.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

import envfleet

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location(
        "build_wheels", REPO / "tools" / "build_wheels.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_wheels"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["build_wheels"]


def test_every_pyproject_edit_finds_its_line_once(tool):
    text = (REPO / "pyproject.toml").read_text()
    for source_line, wheel_line in tool.PYPROJECT_EDITS:
        assert text.count(source_line) == 1, source_line
        edited = tomllib.loads(text.replace(source_line, wheel_line))  # still valid TOML
        assert edited["project"]["name"] == "envfleet"


def test_the_wheels_procgen_extra_names_the_engine_wheel(tool):
    text = (REPO / "pyproject.toml").read_text()
    for source_line, wheel_line in tool.PYPROJECT_EDITS:
        text = text.replace(source_line, wheel_line)
    extras = tomllib.loads(text)["project"]["optional-dependencies"]
    assert extras["procgen"] == [f"envfleet-procgen-engine=={tool.ENGINE_VERSION}"]
    assert "procgen" in extras["all"][0]


def test_the_version_is_stated_once():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    source = REPO / pyproject["tool"]["scikit-build"]["metadata"]["version"]["input"]
    assert source == REPO / "src" / "envfleet" / "__init__.py"
    assert f'__version__ = "{envfleet.__version__}"' in source.read_text()
    assert importlib.metadata.version("envfleet") == envfleet.__version__
