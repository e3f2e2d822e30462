"""envfleet::cpython::Set (cpp/common/cpython/set_order.h) must iterate as the running
interpreter's own sets do: minigrid's WFC levels pick their start and goal by index into a node
list that networkx builds from the iteration order of sets of (row, col) tuples.

The C++ side runs through the test-only module _envfleet_testing (tests/cpp/testing_module).
No golden values: every expectation is the order of a set this interpreter builds.
"""

import random

import pytest

_module = None  # _envfleet_testing, set by the fixture below


@pytest.fixture(scope="module", autouse=True)
def _testing_module(testing_module):
    global _module
    _module = testing_module


def grid_cells(rows, cols):
    return [(r, c) for r in range(rows) for c in range(cols)]


def test_pair_hash_is_the_tuple_hash():
    for pair in grid_cells(40, 40) + [(0, 0), (2**40, 7), (2**61 - 2, 2**61 - 2), (12345, 0)]:
        assert _module.cpython_pair_hash(*pair) == hash(pair) % 2**64, pair


@pytest.mark.parametrize("seed", range(40))
def test_sets_filled_one_by_one_iterate_as_cpythons(seed):
    """set.add in a random order, every size up to a 23x23 level's (the table resizes at 5,
    19, 77, 307... elements), and duplicates that must leave the set as it is."""
    rng = random.Random(seed)
    cells = grid_cells(rng.choice([5, 23, 30]), rng.choice([5, 23, 40]))
    rng.shuffle(cells)
    items = cells[: rng.randrange(1, len(cells) + 1)]
    items += rng.sample(items, min(len(items), 5))  # already there
    ours = [tuple(p) for p in _module.cpython_set_order(items)]
    theirs = set()
    for item in items:
        theirs.add(item)
    assert ours == list(theirs)


@pytest.mark.parametrize("seed", range(20))
def test_sets_refilled_from_sets_iterate_as_cpythons(seed):
    """networkx's chain for a component under half the graph: a set filled breadth-first
    (_plain_bfs), set(generator over it) (show_nodes), and a set over that set's order again."""
    rng = random.Random(1000 + seed)
    cells = grid_cells(23, 23)
    rng.shuffle(cells)
    first = set()
    for cell in cells[: rng.randrange(2, 300)]:
        first.add(cell)
    second = set(c for c in first)  # noqa: C401 (a generator, as networkx passes it)
    third = set(c for c in second)  # noqa: C401
    assert [tuple(p) for p in _module.cpython_set_order(list(first))] == list(second)
    assert [tuple(p) for p in _module.cpython_set_order(list(second))] == list(third)
