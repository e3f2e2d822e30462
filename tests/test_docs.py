"""The docs stay true to the code (docs/adding-an-environment.md above all).

- A code block preceded by ``<!-- file: PATH -->`` quotes that file: each of its non-blank
  lines appears in the file, in the same order (a line ``...`` marks an omission). An edit to
  the source that the page no longer matches fails here; fix the page with it.
- Every repository path a page names in backticks exists (``<f>``-style placeholders match
  any name), and so does every relative link.
- Every ``python`` block that quotes no file runs as written.
- The guide's example task id is registered and makes and steps in the gymnasium, gym and dm
  front ends.
- Every ``envfleet.bench`` flag the guide shows exists in ``python -m envfleet.bench --help``,
  and every bench command line it shows is accepted.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envfleet

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "adding-an-environment.md"
PAGES = [REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").rglob("*.md"))]
TASK = "Counting-v0"  # the guide's example

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
MARKER = re.compile(r"<!-- file: (\S+) -->\s*$")
TOP_LEVEL = ("CMakeLists.txt", "pyproject.toml", "README.md", "ARCHITECTURE.md", "LICENSE")
REPO_PATH = re.compile(r"^(?:(?:cpp|src|tests|docs|benchmarks|examples)/[\w./<>*-]*|[\w.]+)$")


def rel(page: Path) -> str:
    return str(page.relative_to(REPO))


def blocks(page: Path) -> list[tuple[str | None, str, str, int]]:
    """(quoted file or None, language, body, line number) of every fenced block of ``page``."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = MARKER.search(before)
        line = text.count("\n", 0, match.start()) + 1
        found.append((marker.group(1) if marker else None, match.group(1), match.group(2), line))
    return found


QUOTES = [
    pytest.param(page, path, body, id=f"{rel(page)}:{line}:{path}")
    for page in PAGES
    for path, _, body, line in blocks(page)
    if path is not None
]
PYTHON = [
    pytest.param(page, body, id=f"{rel(page)}:{line}")
    for page in PAGES
    for path, lang, body, line in blocks(page)
    if path is None and lang == "python"
]


def test_pages_exist_and_the_guide_quotes_its_example():
    assert GUIDE.is_file() and (REPO / "ARCHITECTURE.md").is_file()
    quoted = {path for page, path, _ in (q.values for q in QUOTES) if page == GUIDE}
    assert "cpp/families/example/counting.h" in quoted
    assert "cpp/core/env.h" in quoted


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_file_marker_is_followed_by_a_code_block(page):
    text = page.read_text()
    markers = len(re.findall(r"<!-- file: ", text))
    assert markers == sum(1 for path, *_ in blocks(page) if path is not None), (
        f"{rel(page)}: a `<!-- file: PATH -->` line must come right before a ``` block"
    )


@pytest.mark.parametrize(("page", "path", "body"), QUOTES)
def test_quoted_block_is_an_excerpt_of_its_file(page, path, body):
    source = REPO / path
    assert source.is_file(), f"{rel(page)} quotes {path}, which does not exist"
    lines = [line.rstrip() for line in source.read_text().splitlines()]
    at = 0
    for line in body.splitlines():
        line = line.rstrip()
        if not line.strip() or line.strip() == "...":
            continue
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            pytest.fail(
                f"{rel(page)} quotes {path}, but this line is not in it (after line {at}), or "
                f"not in this order:\n{line}\nUpdate the page to match the file.",
                pytrace=False,
            )


def _backticked(text: str) -> list[str]:
    without_blocks = FENCE.sub("", text)
    return re.findall(r"`([^`\n]+)`", without_blocks)


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_backticked_repo_paths_exist(page):
    missing = []
    for span in _backticked(page.read_text()):
        if not REPO_PATH.match(span) or ("/" not in span and span not in TOP_LEVEL):
            continue
        pattern = re.sub(r"<[^>]+>", "*", span).rstrip("/")
        if not any(REPO.glob(pattern)):
            missing.append(span)
    assert not missing, f"{rel(page)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_relative_links_resolve(page):
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text())
    broken = [
        link for link in links if "://" not in link and not (page.parent / link).resolve().exists()
    ]
    assert not broken, f"{rel(page)} links to missing files: {broken}"


@pytest.mark.parametrize(("page", "body"), PYTHON)
def test_python_block_runs(page, body):
    exec(compile(body, f"{rel(page)} python block", "exec"), {})


# ---- the example task --------------------------------------------------------------------------


def test_the_guide_is_about_its_example_task():
    assert f"`{TASK}`" in GUIDE.read_text()
    assert TASK in envfleet.list_all_envs()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_example_task_makes_and_steps_in_every_front_end(env_type):
    env = envfleet.make(TASK, env_type=env_type, num_envs=2, episode_length=2)
    try:
        env.reset()
        actions = np.array([3, 4])
        if env_type == "dm":
            ts = env.step(actions)
            obs, reward = ts.observation.obs, ts.reward
        else:
            obs, reward, *_ = env.step(actions)
        assert obs.tolist() == [[1, 1], [1, 1]]
        assert reward.tolist() == [3.0, 4.0]
    finally:
        env.close()


# ---- the benchmark's command line --------------------------------------------------------------


def _bench_commands_and_flags() -> tuple[list[list[str]], set[str]]:
    """The argument lists of the guide's ``envfleet.bench`` command lines, and every flag the
    guide shows for it (in those lines, or in backticks in a section about the bench)."""
    text = GUIDE.read_text()
    commands, flags = [], set()
    for _, _, body, _ in blocks(GUIDE):
        for line in body.replace("\\\n", " ").splitlines():
            if "envfleet.bench" not in line:
                continue
            words = shlex.split(line, comments=True)
            if "envfleet.bench" in words:
                args = words[words.index("envfleet.bench") + 1 :]
                commands.append(args)
                flags |= {w for w in args if w.startswith("--")}
    for section in re.split(r"^## ", text, flags=re.M):
        if "envfleet.bench" in section:
            for span in _backticked(section):
                for word in span.split():
                    if word.startswith("--"):
                        flags.add(word)
    return commands, flags


def test_bench_flags_exist_and_commands_parse():
    commands, flags = _bench_commands_and_flags()
    assert commands, "the guide shows no `python -m envfleet.bench` command"
    help_text = subprocess.run(
        [sys.executable, "-m", "envfleet.bench", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(envfleet.__file__).parents[1])},
    ).stdout
    known = set(re.findall(r"(--[a-z][a-z0-9-]*)", help_text))
    assert flags <= known, f"flags the guide shows but the bench lacks: {sorted(flags - known)}"

    from envfleet.bench.__main__ import config_from_args, parse_args

    for args in commands:
        if "--help" in args:
            continue
        config_from_args(parse_args(args))  # raises on an unknown task, executor or value
