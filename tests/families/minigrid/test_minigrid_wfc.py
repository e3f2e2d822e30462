"""The MiniGrid-WFC-* levels against minigrid 3.2.0's WFCEnv (minigrid_reference.py): the
pattern catalogue each preset's image yields, then level after level (the whole grid, the
agent's cell and direction) from many seeds and sizes, through every path of the generation:
levels whose kept component is under half the navigable cells (networkx then lists it in a
Python set's order), solves that take several attempts (contradictions), levels minigrid
cannot make (its IndexError, envfleet's EnvError, at the same seeds), and
``ensure_connected=False``. Whole episodes are compared by test_minigrid.py and
test_minigrid_render.py, which run over every MiniGrid id.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from minigrid_reference import full_grid, import_minigrid, reference_env, wfc_pattern_image

import envfleet
from envfleet.families.minigrid import WFC_PRESETS

# The image of each preset (minigrid's WFC_PRESETS[name].pattern_path).
PATTERN_FILES = {
    "MazeSimple": "SimpleMaze.png",
    "DungeonMazeScaled": "ScaledMaze.png",
    "RoomsFabric": "Fabric.png",
    "ObstaclesBlackdots": "Blackdots.png",
    "ObstaclesAngular": "Angular.png",
    "ObstaclesHogs3": "Hogs.png",
}


@pytest.fixture(scope="module")
def reference():
    return import_minigrid()


def test_the_presets_are_minigrids(reference):
    config = importlib.import_module("minigrid.envs.wfc.config")
    assert list(config.WFC_PRESETS) == list(WFC_PRESETS)
    for name, preset in config.WFC_PRESETS.items():
        assert preset.pattern_path.name == PATTERN_FILES[name]
        # What wfc_presets.h takes as shared by all six.
        assert (preset.tile_size, preset.rotations, preset.backtracking) == (1, 8, False), name
        assert (preset.loc_heuristic, preset.choice_heuristic) == ("entropy", "weighted"), name


@pytest.mark.parametrize("preset", WFC_PRESETS)
def test_pattern_catalogue_is_minigrids(reference, testing_module, preset):
    """Patterns (in minigrid's order: by hash), their weights, which make walls, and the
    adjacency in each direction, as execute_wfc builds them from the image."""
    tiles = importlib.import_module("minigrid.envs.wfc.wfclogic.tiles")
    patterns = importlib.import_module("minigrid.envs.wfc.wfclogic.patterns")
    adjacency = importlib.import_module("minigrid.envs.wfc.wfclogic.adjacency")
    solver = importlib.import_module("minigrid.envs.wfc.wfclogic.solver")
    config = importlib.import_module("minigrid.envs.wfc.config").WFC_PRESETS[preset]
    image = wfc_pattern_image(PATTERN_FILES[preset])
    tile_catalog, tile_grid, _, _ = tiles.make_tile_catalog(image, config.tile_size)
    catalog, weights, pattern_list, pattern_grid = patterns.make_pattern_catalog_with_rotations(
        tile_grid,
        config.pattern_width,
        input_is_periodic=config.input_periodic,
        rotations=config.rotations - 1,
    )
    directions = list(enumerate([(0, -1), (1, 0), (0, 1), (-1, 0)]))
    relations = adjacency.adjacency_extraction(
        pattern_grid, catalog, directions, (config.pattern_width, config.pattern_width)
    )
    encode = {x: i for i, x in enumerate(pattern_list)}
    adjacency_list = {d: [set() for _ in weights] for _, d in directions}
    for d, first, second in relations:
        adjacency_list[d][encode[first]].add(encode[second])
    matrices = solver.makeAdj(adjacency_list)

    ours = testing_module.wfc_pattern_catalog(preset)
    assert ours["count"] == len(pattern_list)
    assert ours["weights"] == [float(weights[h]) for h in pattern_list]
    walls = [bool(tile_catalog[catalog[h][0][0]][0, 0, 0] == 0) for h in pattern_list]
    assert ours["is_wall"] == walls
    for k, (_, d) in enumerate(directions):
        want = [sum(1 << p for p in np.flatnonzero(row)) for row in matrices[d]]
        assert ours["allowed"][k] == want, d


class LevelLog:
    """What the reference went through while generating: attempts per solve, and for each
    largest-component step the navigable cells N and the component's M."""

    def __init__(self, monkeypatch):
        wfcenv = importlib.import_module("minigrid.envs.wfc.wfcenv")
        self.attempts: list[int] = []
        self.components: list[tuple[int, int]] = []
        execute_wfc, largest = wfcenv.execute_wfc, wfcenv.WFCEnv._get_largest_component

        def logged_execute_wfc(*args, **kwargs):
            pattern, stats = execute_wfc(*args, **kwargs)
            self.attempts.append(stats["attempts"])
            return pattern, stats

        def logged_largest(graph):
            navigable = sum(1 for _, d in graph.nodes(data=True) if d["navigable"] >= 0.5)
            kept = largest(graph)
            self.components.append((navigable, kept.number_of_nodes()))
            return kept

        monkeypatch.setattr(wfcenv, "execute_wfc", logged_execute_wfc)
        monkeypatch.setattr(wfcenv.WFCEnv, "_get_largest_component", staticmethod(logged_largest))


def compare_levels(task_id: str, seeds, options: dict) -> dict[str, int]:
    """Resets envfleet and minigrid with each seed; the levels must be equal, or both fail."""
    ours = envfleet.make(task_id, num_envs=1, obs_wrapper="FullyObsWrapper", **options)
    ref = reference_env(task_id, options)
    outcome = {"levels": 0, "failures": 0}
    try:
        for seed in seeds:
            where = f"{task_id} {options} seed={seed}"
            try:
                ref.reset(seed=seed)
            except IndexError as failure:  # no two connected navigable cells
                with pytest.raises(envfleet.EnvError, match="list index out of range"):
                    ours.reset(seed=seed)
                assert "list index out of range" in str(failure)
                outcome["failures"] += 1
                continue
            obs, info = ours.reset(seed=seed)
            want = ref.unwrapped
            np.testing.assert_array_equal(obs["image"][0], full_grid(ref), err_msg=where)
            assert tuple(info["agent_pos"][0]) == tuple(int(v) for v in want.agent_pos), where
            assert obs["direction"][0] == want.agent_dir, where
            outcome["levels"] += 1
    finally:
        ours.close()
        ref.close()
    return outcome


# Levels compared at the registered size: the reference's Python solver takes seconds a level,
# over four for ObstaclesAngular, so the three slowest presets compare fewer (test_minigrid.py
# compares each id's levels again, episode after episode).
LEVELS_AT_SIZE_25 = {"ObstaclesAngular": 4, "ObstaclesHogs3": 6, "RoomsFabric": 6}


@pytest.mark.parametrize("preset", WFC_PRESETS)
def test_levels_match_minigrid(reference, monkeypatch, preset):
    """The registered size (25): 12 levels each but the slowest (LEVELS_AT_SIZE_25). The mazes
    keep components under half their navigable cells about a third of the time: those levels'
    starts and goals come from networkx's set-ordered node lists."""
    log = LevelLog(monkeypatch)
    levels = LEVELS_AT_SIZE_25.get(preset, 12)
    outcome = compare_levels(f"MiniGrid-WFC-{preset}-v0", range(levels), {})
    assert outcome == {"levels": levels, "failures": 0}
    if preset in ("MazeSimple", "DungeonMazeScaled"):
        small = sum(1 for n, m in log.components if 2 * m < n)
        assert 0 < small < len(log.components), log.components


@pytest.mark.parametrize(
    ("preset", "size", "expect"),
    [
        ("ObstaclesHogs3", 6, "attempts"),  # contradictions: up to hundreds of attempts
        ("ObstaclesHogs3", 7, "attempts"),
        ("ObstaclesAngular", 5, "attempts and failures"),
        ("MazeSimple", 4, "failures"),  # 2x2 images: often no two connected cells
        ("DungeonMazeScaled", 5, "failures"),
        ("RoomsFabric", 9, "levels"),
        ("ObstaclesBlackdots", 40, "levels"),
    ],
)
def test_levels_of_other_sizes_match_minigrid(reference, monkeypatch, preset, size, expect):
    """Sizes where minigrid's solver meets contradictions (each attempt restarts with the same
    preferences, the draws going on) and where no level can be made."""
    log = LevelLog(monkeypatch)
    outcome = compare_levels(f"MiniGrid-WFC-{preset}-v0", range(12), {"size": size})
    assert outcome["levels"] > 0, outcome
    if "attempts" in expect:
        assert max(log.attempts) > 1, log.attempts
    if "failures" in expect:
        assert outcome["failures"] > 0, outcome


@pytest.mark.parametrize("preset", ["MazeSimple", "RoomsFabric", "ObstaclesHogs3"])
def test_levels_without_ensure_connected_match_minigrid(reference, preset):
    """ensure_connected=False: every navigable cell stays, listed row-major."""
    options = {"ensure_connected": False, "size": 15}
    outcome = compare_levels(f"MiniGrid-WFC-{preset}-v0", range(10), options)
    assert outcome == {"levels": 10, "failures": 0}


def test_envpools_option_name_picks_the_preset(reference):
    """EnvPool's wfc_preset, given, wins over the id's wfc_config (minigrid's name)."""
    outcome = compare_levels(
        "MiniGrid-WFC-MazeSimple-v0", range(8), {"wfc_preset": "ObstaclesBlackdots"}
    )
    assert outcome["levels"] == 8
    ours = envfleet.make("MiniGrid-WFC-MazeSimple-v0", num_envs=1, wfc_preset="ObstaclesHogs3")
    theirs = envfleet.make("MiniGrid-WFC-ObstaclesHogs3-v0", num_envs=1)
    try:
        np.testing.assert_array_equal(
            ours.reset(seed=3)[0]["image"], theirs.reset(seed=3)[0]["image"]
        )
    finally:
        ours.close()
        theirs.close()
