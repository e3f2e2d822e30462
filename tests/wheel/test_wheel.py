"""What a user installing envfleet's binary wheel gets: every family makes, steps and renders.

.ci/wheel.sh runs this file against the cp311 wheel that tools/build_wheels.py made, installed
with ``pip install --find-links dist "envfleet[all]"`` into a fresh virtual environment with no
compiler on PATH, together with the contract suite over ``family_ids.txt`` and env.xla()'s
tests. With ``ENVFLEET_EXPECT_WHEEL=1`` (set there) it also checks that the package under test
is that wheel's, not a source build's. In the ordinary test run the family checks run against
the source build, and the wheel checks are skipped, saying so.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import envfleet
from envfleet.registry import _registry

IDS_FILE = Path(__file__).with_name("family_ids.txt")
FAMILY_IDS = [
    line.strip()
    for line in IDS_FILE.read_text().splitlines()
    if line.strip() and not line.startswith("#")
]
EXPECT_WHEEL = os.environ.get("ENVFLEET_EXPECT_WHEEL") == "1"
# Families whose envs draw nothing (a Python-authored test family's): no frame to check.
NO_RENDERING = {"core"}

wheel_only = pytest.mark.skipif(
    not EXPECT_WHEEL, reason="checks an installed binary wheel (.ci/wheel.sh sets it)"
)


def test_the_list_names_one_id_of_every_family():
    families = {reg.family.name for reg in _registry.values()}
    listed = {_registry[task_id].family.name for task_id in FAMILY_IDS}
    assert listed == families, f"family_ids.txt misses {sorted(families - listed)}"
    assert len(listed) == len(FAMILY_IDS), "family_ids.txt names two ids of one family"


@pytest.mark.parametrize("task_id", FAMILY_IDS)
def test_every_family_makes_steps_and_renders(task_id):
    family = _registry[task_id].family.name
    render_mode = None if family in NO_RENDERING else "rgb_array"
    env = envfleet.make(
        task_id, env_type="gymnasium", num_envs=2, num_threads=2, seed=3, render_mode=render_mode
    )
    try:
        obs, _ = env.reset()
        env.action_space.seed(0)
        for _ in range(5):
            actions = np.stack([env.action_space.sample() for _ in range(2)])
            obs, reward, terminated, truncated, _ = env.step(actions)
        assert reward.shape == terminated.shape == truncated.shape == (2,)
        assert np.all(np.isfinite(reward))
        if render_mode:
            frame = env.render()
            assert frame.dtype == np.uint8 and frame.ndim == 4 and frame.shape[-1] == 3
            assert frame.shape[0] == 1 and frame.std() > 0, "a blank frame"
    finally:
        env.close()


@wheel_only
def test_the_package_is_the_installed_wheel():
    package = Path(envfleet.__file__).resolve().parent
    assert Path(sys.prefix).resolve() in package.parents, f"envfleet imported from {package}"
    distribution = importlib.metadata.distribution("envfleet")
    assert distribution.version == envfleet.__version__
    tags = [line for line in distribution.read_text("WHEEL").splitlines() if line.startswith("Tag")]
    assert tags and all("manylinux_2_28_x86_64" in tag for tag in tags), tags
    # Installed from a wheel: no build tree, no editable finder.
    assert distribution.read_text("direct_url.json") is None or "editable" not in (
        distribution.read_text("direct_url.json") or ""
    )


@wheel_only
def test_the_wheel_carries_the_licences_of_what_it_links_in():
    licences = {p.name for p in (Path(envfleet.__file__).parent / "licenses").iterdir()}
    assert {
        "ALE-GPL-2.0-LICENSE.md",
        "Box2D-zlib-LICENSE.txt",
        "ViZDoom-MIT-LICENSE.txt",
        "Boost-BSL-1.0-LICENSE.txt",
        "nanobind-BSD-3-Clause-LICENSE.txt",
        "libstdc++-GPL-3.0-with-GCC-exception.txt",
        "glibc-nonshared-LICENSES.txt",
        "Procgen-MIT-LICENSE.txt",  # from envfleet-procgen-engine
    } <= licences, sorted(licences)


@wheel_only
def test_procgen_engine_comes_from_its_own_wheel():
    engine = importlib.metadata.distribution("envfleet-procgen-engine")
    files = {str(f) for f in engine.files}
    assert "envfleet/procgen_engine/procgen/data/prebuilt/libenv.so" in files
    envfleet_files = {str(f) for f in importlib.metadata.distribution("envfleet").files}
    assert not any(f.startswith("envfleet/procgen_engine/") for f in envfleet_files)
