"""The style the codebase keeps: ruff (lint and format) for Python, clang-format for C++.

The tools are pinned in the ``test`` extra, so a fresh ``pip install ".[test]"`` checks exactly
what the developers' tools check; a failure prints the offending files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def _tracked(*patterns: str) -> list[str]:
    # .git is a directory in a clone and a file in a git worktree.
    if not os.path.exists(os.path.join(REPO, ".git")):
        pytest.skip("not a git checkout: no list of tracked files")
    out = subprocess.run(
        ["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def _tool(name: str) -> str:
    # The tool installed beside this interpreter (the venv's), else one on PATH.
    local = os.path.join(os.path.dirname(sys.executable), name)
    path = local if os.path.exists(local) else shutil.which(name)
    assert path, f"{name} is missing: pip install '.[test]' installs it"
    return path


def test_python_is_ruff_clean():
    files = _tracked("*.py")
    lint = subprocess.run(
        [_tool("ruff"), "check", *files], cwd=REPO, capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout[-4000:]
    fmt = subprocess.run(
        [_tool("ruff"), "format", "--check", *files], cwd=REPO, capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout[-4000:]


def test_cpp_is_clang_formatted():
    files = _tracked("cpp/*.h", "cpp/*.cc", "tests/cpp/*.h", "tests/cpp/*.cc")
    assert files
    proc = subprocess.run(
        [_tool("clang-format"), "--dry-run", "-Werror", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
