"""envfleet::NumpyRandomState (cpp/common/numpy/random_state.h) must match live NumPy's
``np.random.RandomState(seed)`` bit for bit: the stream dm_control's suite tasks draw from.

The C++ side runs through the test-only module _envfleet_testing (tests/cpp/testing_module),
built by the ``testing_module`` fixture; its properties are tested in C++ too
(tests/cpp/common/numpy/random_state_test.cc). No golden values: every expectation is computed
here by the installed NumPy.
"""

import random

import numpy as np
import pytest

_module = None  # _envfleet_testing, set by the fixture below


@pytest.fixture(scope="module", autouse=True)
def _testing_module(testing_module):
    global _module
    _module = testing_module


def draws(seed, program):
    """envfleet::NumpyRandomState(seed) running ``program``: [(kind, a, b), ...] -> values."""
    return _module.numpy_random_state_draws(seed, program)


_seed_rng = random.Random(20261123)
SEEDS = [0, 1, 2, 42, 5489, 2**31 - 1, 2**31, 2**32 - 1] + [
    _seed_rng.randrange(2**32) for _ in range(40)
]


def reference(rs, kind, a, b):
    """One draw of ``kind`` from NumPy's RandomState ``rs``, as the program runs it."""
    if kind == "random_sample":
        return rs.random_sample()
    if kind == "uniform":
        return rs.uniform(a, b)
    if kind == "standard_normal":
        return rs.standard_normal()
    if kind == "normal":
        return rs.normal(a, b)
    if kind == "randint":
        return int(rs.randint(a, b))
    if kind == "randint_inclusive":
        return int(rs.randint(a, b + 1, dtype=np.int64))
    if kind == "choice_index":
        return int(rs.choice(a))
    if kind == "choice_p":
        return int(rs.choice(len(a), p=a))
    if kind == "uint32":
        return int(rs.randint(0, 2**32, dtype=np.uint64))  # one raw 32-bit word
    raise AssertionError(kind)


@pytest.mark.parametrize("seed", SEEDS)
def test_raw_words_match_mt19937(seed):
    # 2000 words: more than three twists of the 624-word state.
    want = np.random.RandomState(seed).randint(0, 2**32, size=2000, dtype=np.uint64).tolist()
    assert draws(seed, [("uint32", 0, 0)] * 2000) == want


@pytest.mark.parametrize("seed", SEEDS)
def test_each_distribution_alone(seed):
    for kind, a, b in [
        ("random_sample", 0, 0),
        ("uniform", -np.pi, np.pi),
        ("uniform", 0.2, 0.5),
        ("standard_normal", 0, 0),
        ("normal", 0.5, 3.0),
        ("randint", 0, 7),
        ("randint", -5, 2**40),
        ("choice_index", 13, 0),
        ("choice_p", [0.1, 0.1, 1 - 0.1 - 0.1], 0),
        ("choice_p", [0.25, 0.0, 0.5, 0.125, 0.125], 0),
    ]:
        rs = np.random.RandomState(seed)
        want = [reference(rs, kind, a, b) for _ in range(1000)]
        assert draws(seed, [(kind, a, b)] * 1000) == want, (kind, a, b)


def test_arrays_are_element_draws_in_order():
    # What the suite's tasks call: uniform with array bounds (cheetah), randn(n), rand(n).
    seed = 12345
    rs = np.random.RandomState(seed)
    low = np.array([-0.5, -1.0, 0.0, -np.pi])
    high = np.array([0.5, 2.0, 0.25, np.pi])
    want = list(rs.uniform(low, high)) + list(rs.randn(5)) + list(rs.rand(4))
    program = [("uniform", lo, hi) for lo, hi in zip(low, high, strict=True)]
    program += [("standard_normal", 0, 0)] * 5 + [("random_sample", 0, 0)] * 4
    assert draws(seed, program) == want


@pytest.mark.parametrize("seed", SEEDS[:16])
def test_long_mixed_streams(seed):
    # The cached Gaussian survives other draws; the 32-bit and 64-bit randint paths interleave
    # with next_double draws: a random program of 5000 mixed draws.
    kinds = [
        ("random_sample", 0, 0),
        ("uniform", -0.1, 0.1),
        ("standard_normal", 0, 0),
        ("normal", -1.0, 0.01),
        ("randint", 0, 3),
        ("randint", 10, 2**33 + 3),
        ("choice_index", 5, 0),
        ("choice_p", [0.1, 0.1, 1 - 0.1 - 0.1], 0),
        ("uint32", 0, 0),
    ]
    pick = random.Random(seed)
    program = [pick.choice(kinds) for _ in range(5000)]
    rs = np.random.RandomState(seed)
    want = [reference(rs, *step) for step in program]
    assert draws(seed, program) == want


@pytest.mark.parametrize("seed", SEEDS[:16])
def test_randint_up_to_int64_max(seed):
    """randint(low, high + 1, dtype=int64) with high up to 2**63 - 1: minigrid's WFC hashes
    its tiles and patterns with RandomState(0).randint(1 - 2**63, 2**63, n, dtype=np.int64)."""
    for low, high in [(1 - 2**63, 2**63 - 1), (-(2**63), 2**63 - 1), (0, 2**63 - 1), (-3, 5)]:
        rs = np.random.RandomState(seed)
        want = [int(x) for x in rs.randint(low, high + 1, 500, dtype=np.int64)]
        assert draws(seed, [("randint_inclusive", low, high)] * 500) == want, (low, high)
