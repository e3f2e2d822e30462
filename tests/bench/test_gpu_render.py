"""benchmarks/gpu_render.py (issue #38's table) runs end to end on a small grid: every cell
measured (no error rows), both renderers, the process ceiling, and the files under --out."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from envfleet import _mujoco  # noqa: F401  (the engine: no skip when it is missing)

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu_render.py"


@pytest.mark.extended
def test_small_grid(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("gpu_render", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (
        module.main(["--threads", "1", "--secs", "0.2", "--procs", "1", "--out", str(tmp_path)])
        == 0
    )
    results = json.loads((tmp_path / "gpu_render.json").read_text())
    cells = [c for c in results["cells"] if c["lib"] == "envfleet"]
    assert {c["renderer"] for c in cells} == {"per-thread", "service"}
    assert all("error" not in c and c["steps_per_s"] > 0 for c in cells), cells
    assert {c["task"] for c in cells} == {"HalfCheetah-v5", "CheetahRun-v1", "Ant-v5"}
    assert [c["quality"] for c in results["ceilings"]] == ["default", "render_fast"]
    assert all(c["steps_per_s"] > 0 for c in results["ceilings"])
    table = (tmp_path / "gpu_render.md").read_text()
    assert table in capsys.readouterr().out
    assert table.count("| envfleet | service |") == 4
