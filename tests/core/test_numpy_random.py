"""envfleet::NumpyGenerator (cpp/common/numpy/random.h) must match live numpy bit for bit.

The C++ side runs through the test-only module _envfleet_testing (tests/cpp/testing_module),
built by the ``testing_module`` fixture; its properties are tested in C++ too
(tests/cpp/common/numpy/random_test.cc).

Reference: gymnasium.utils.seeding.np_random(seed), i.e.
np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))). No golden values: every
expectation is computed here by the installed numpy.
"""

import math
import random

import numpy as np
import pytest
from gymnasium.utils import seeding

_module = None  # _envfleet_testing (tests/cpp/testing_module), set by the fixture below


@pytest.fixture(scope="module", autouse=True)
def _testing_module(testing_module):
    global _module
    _module = testing_module


def draws(seed, program):
    """envfleet::NumpyGenerator(seed) running ``program``: [(kind, a, b), ...] -> values."""
    return _module.numpy_generator_draws(seed, program)


SPECIAL_SEEDS = [
    0,
    1,
    2,
    42,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**40 + 7,
    2**53 + 1,
    2**63 - 1,
]
_seed_rng = random.Random(20240601)
RANDOM_SEEDS = [
    _seed_rng.randrange(2 ** _seed_rng.choice([8, 16, 31, 32, 33, 48, 63])) for _ in range(200)
]

# Ranges that hit every branch of numpy's random_bounded_uint64_fill: no draw (1), the buffered
# 32-bit Lemire path, the raw next_uint32 path (2**32 - 1 wide), and the 64-bit Lemire path.
RANGES = [
    1,
    2,
    3,
    4,
    5,
    7,
    10,
    13,
    100,
    2**16,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**40,
    3 * 2**40 + 5,
    2**62,
    2**63 - 1,
]


def numpy_rng(seed):
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


def run_numpy(seed, program):
    rng = numpy_rng(seed)
    out = []
    for kind, a, b in program:
        if kind == "random":
            out.append(float(rng.random()))
        elif kind == "uniform":
            out.append(float(rng.uniform(a, b)))
        elif kind == "integers":
            out.append(int(rng.integers(a, b)))
        elif kind == "choice_index":
            out.append(int(rng.choice(list(range(a)))))
        elif kind == "standard_normal":
            out.append(float(rng.standard_normal()))
        elif kind == "shuffle":
            items = list(range(a))
            rng.shuffle(items)
            out.append(items)
        elif kind == "choice_p":
            out.append(int(rng.choice(len(a), p=a)))
        elif kind == "permutation":
            out.append(rng.permutation(a).tolist())
        elif kind == "uint32":
            out.append(int(rng.integers(0, 2**32, dtype=np.uint32)))
        elif kind == "uint64":
            out.append(int(rng.integers(0, 2**64, dtype=np.uint64)))
        else:
            raise AssertionError(kind)
    return out


def exact(values):
    """Bit-exact comparison keys: floats by hex (distinguishes -0.0), ints by value."""
    return [(type(v).__name__, v.hex() if isinstance(v, float) else v) for v in values]


def assert_same(seed, program):
    got = draws(seed, program)
    want = run_numpy(seed, program)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(exact(got), exact(want), strict=True)):
        assert g == w, f"seed={seed} draw #{i} {program[i]}: C++ {g} != numpy {w}"


def mixed_program(py_rng, n):
    program = []
    for _ in range(n):
        c = py_rng.random()
        if c < 0.2:
            program.append(("random", 0.0, 0.0))
        elif c < 0.4:
            low = py_rng.choice([-0.05, -math.pi, -1.0, 0.0, -8.0, py_rng.uniform(-100, 100)])
            width = py_rng.choice(
                [0.1, 2 * math.pi, 2.0, 1.0, 1e-300, 1e20, py_rng.uniform(0, 200)]
            )
            program.append(("uniform", low, low + width))
        elif c < 0.75:
            width = py_rng.choice(RANGES)
            low = py_rng.choice([0, -5, 17, -(2**62), -(2**63)]) if width < 2**62 else 0
            program.append(("integers", low, low + width))
        elif c < 0.85:
            program.append(("choice_index", py_rng.choice([1, 2, 3, 4, 10, 13, 52]), 0))
        elif c < 0.93:
            program.append(("uint32", 0.0, 0.0))
        else:
            program.append(("uint64", 0.0, 0.0))
    return program


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:20])
def test_reference_is_gymnasium_seeding(seed):
    # Pins what we mirror: Gymnasium's np_random is exactly Generator(PCG64(SeedSequence(seed))).
    gym_rng, _ = seeding.np_random(seed)
    assert gym_rng.bit_generator.state == numpy_rng(seed).bit_generator.state


@pytest.mark.parametrize("seed", SPECIAL_SEEDS)
def test_raw_uint64_stream(seed):
    # Seeding (SeedSequence -> pcg64_set_seed) and the XSL-RR output, over a long stream.
    program = [("uint64", 0.0, 0.0)] * 5000
    assert draws(seed, program) == [int(x) for x in numpy_rng(seed).bit_generator.random_raw(5000)]


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS)
def test_mixed_program(seed):
    # Interleaving 32-bit and 64-bit consumers exercises PCG64's buffered next_uint32, which
    # survives across Generator methods.
    assert_same(seed, mixed_program(random.Random(seed ^ 0x5EED), 500))


@pytest.mark.parametrize("seed", [0, 42, 2**40 + 7])
def test_long_mixed_program(seed):
    assert_same(seed, mixed_program(random.Random(seed + 1), 20000))


@pytest.mark.parametrize("seed", [0, 7, 2**32])
def test_uint32_buffer_interplay(seed):
    # uint32 consumers take the low half, then the buffered high half; 64-bit draws in between
    # neither use nor clear the buffer.
    program = [
        ("integers", 0, 5),
        ("random", 0.0, 0.0),
        ("integers", 0, 5),
        ("integers", 0, 5),
        ("uint64", 0.0, 0.0),
        ("uint32", 0.0, 0.0),
        ("integers", 0, 1),
        ("uint32", 0.0, 0.0),
        ("integers", 0, 2**32 - 1),
        ("integers", 0, 2**32),
        ("integers", 0, 2**32 + 1),
        ("uint32", 0.0, 0.0),
        ("uniform", -1.0, 1.0),
        ("uint32", 0.0, 0.0),
    ] * 50
    assert_same(seed, program)


@pytest.mark.parametrize(
    ("low", "width"),
    [
        (low, width)
        for low in (0, -1, 123, -(2**40), -(2**63))
        for width in RANGES
        if low + width <= 2**63 - 1
    ],  # high must fit in int64
)
def test_integers_ranges(low, width):
    for seed in (0, 3, 2**33):
        assert_same(seed, [("integers", low, low + width)] * 300)


def test_integers_full_int64_range():
    assert_same(5, [("integers", -(2**63), 2**63 - 1)] * 1000)


# --- The call patterns Gymnasium envs actually make. ---


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:40])
def test_gymnasium_call_patterns(seed):
    deck = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]  # Blackjack
    faces = ["J", "Q", "K"]
    suits = ["C", "D", "H", "S"]
    cdf = np.cumsum(np.array([0.1, 0.2, 0.3, 0.15, 0.25]))
    rng, _ = seeding.np_random(seed)
    # Each entry: (kind, a, b), numpy's value, and how the env turns our draw into that value.
    program, want, to_env = [], [], []

    def expect(entry, value, convert=lambda x: x):
        program.append(entry)
        want.append(value)
        to_env.append(convert)

    for step in range(300):
        k = (step * 7 + seed) % 8
        if k == 0:  # CartPole / Acrobot reset
            for x in rng.uniform(low=-0.05, high=0.05, size=(4,)):
                expect(("uniform", -0.05, 0.05), float(x))
        elif k == 1:  # Pendulum reset: array bounds, numpy takes range = high - low first
            high = np.array([np.pi, 1.0])
            x = rng.uniform(low=-high, high=high)
            expect(("uniform", -math.pi, math.pi), float(x[0]))
            expect(("uniform", -1.0, 1.0), float(x[1]))
        elif k == 2:  # toy_text categorical_sample: the draw itself, then the sampled index
            u = rng.random()
            expect(
                ("random", 0.0, 0.0),
                (float(u), int(np.argmax(cdf > u))),
                lambda x: (x, int(np.argmax(cdf > x))),
            )
        elif k == 3:  # Blackjack draw_card
            expect(("choice_index", 13, 0), int(rng.choice(deck)), lambda i: deck[i])
        elif k == 4:  # Blackjack face card (natural-draw variants)
            expect(("choice_index", 3, 0), str(rng.choice(faces)), lambda i: faces[i])
        elif k == 5:
            expect(("choice_index", 4, 0), str(rng.choice(suits)), lambda i: suits[i])
        elif k == 6:
            expect(("choice_index", 4, 0), int(rng.choice([0, 1, 2, 3])))
        else:
            expect(("integers", 0, 5), int(rng.integers(0, 5)))
    got = [convert(x) for convert, x in zip(to_env, draws(seed, program), strict=True)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert repr(g) == repr(w), f"seed={seed} draw #{i} {program[i]}: C++ {g!r} != numpy {w!r}"


# --- standard_normal: numpy's 256-row ziggurat (MuJoCo resets draw it). ---

# numpy's ziggurat_nor_r: draws beyond it come from the tail algorithm (log1p).
ZIGGURAT_R = 3.6541528853610087963519472518


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:60])
def test_standard_normal_stream(seed):
    # numpy's vector form standard_normal(n) is n scalar draws in order.
    want = numpy_rng(seed).standard_normal(3000)
    got = draws(seed, [("standard_normal", 0.0, 0.0)] * 3000)
    assert exact(got) == exact([float(x) for x in want]), f"seed={seed}"


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 1])
def test_standard_normal_rare_paths(seed):
    # Enough draws that the wedge test (about 1% of tries: exp and one more uniform draw) and
    # the base row's tail (about 3e-4 of tries: log1p and two uniform draws, repeated until
    # accepted) are taken many times; every draw after one of them depends on how many raw
    # draws it consumed.
    n = 400_000
    want = numpy_rng(seed).standard_normal(n)
    got = np.array(draws(seed, [("standard_normal", 0.0, 0.0)] * n))
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    assert (np.abs(want) > ZIGGURAT_R).sum() >= 20  # the tail path was exercised
    # The draws left the bit generator exactly where numpy's did.
    rng = numpy_rng(seed)
    rng.standard_normal(n)
    program = [("standard_normal", 0.0, 0.0)] * n + [("uint64", 0.0, 0.0)] * 4
    assert draws(seed, program)[n:] == [int(x) for x in rng.bit_generator.random_raw(4)]


@pytest.mark.parametrize("seed", SPECIAL_SEEDS[:6] + RANDOM_SEEDS[:30])
def test_standard_normal_mixed(seed):
    # standard_normal draws 64-bit values only: it neither uses nor clears the buffered uint32.
    py_rng = random.Random(seed ^ 0xBEEF)
    program = []
    for entry in mixed_program(py_rng, 400):
        program.append(entry)
        if py_rng.random() < 0.4:
            program.append(("standard_normal", 0.0, 0.0))
    assert_same(seed, program)


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:40])
@pytest.mark.parametrize(("nq", "nv", "scale"), [(15, 14, 0.1), (9, 9, 0.1), (3, 3, 0.1)])
def test_mujoco_reset_pattern(seed, nq, nv, scale):
    # Gymnasium's Ant / HalfCheetah / InvertedDoublePendulum reset_model:
    #   qpos = init_qpos + np_random.uniform(low=-s, high=s, size=nq)
    #   qvel = init_qvel + s * np_random.standard_normal(nv)
    rng, _ = seeding.np_random(seed)
    want = list(rng.uniform(low=-scale, high=scale, size=nq)) + list(rng.standard_normal(nv))
    program = [("uniform", -scale, scale)] * nq + [("standard_normal", 0.0, 0.0)] * nv
    assert exact(draws(seed, program)) == exact([float(x) for x in want])


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:20])
def test_shuffle_of_a_list(seed):
    """Generator.shuffle of a Python list (MiniGrid's crossings and paths): one
    random_interval(i) per swap, on next_uint32 (whose buffered half carries over to and from
    the draws around it)."""
    program = [("shuffle", n, 0) for n in (0, 1, 2, 3, 5, 8, 13, 100, 1000)]
    program += [("uint32", 0, 0), ("shuffle", 6, 0), ("integers", 0, 10), ("shuffle", 3, 0)]
    program += [("random", 0, 0), ("shuffle", 4, 0), ("uint32", 0, 0), ("shuffle", 7, 0)]
    assert_same(seed, program)


def test_rejects_unknown_kind():
    with pytest.raises(ValueError):
        draws(0, [("normal", 0.0, 1.0)])


# ---- Generator.choice(n, p=...) and Generator.permutation(n): minigrid's WFC levels ----------


def wfc_like_p(py_rng, n):
    """What minigrid's weighted pattern heuristic passes: small integer weights on the patterns
    a cell still allows, zeros elsewhere, divided by their sum."""
    weights = np.array([py_rng.choice([0, 0, 1, 2, 4, 6, 8]) for _ in range(n)], dtype=np.float64)
    weights[py_rng.randrange(n)] = py_rng.choice([1, 2, 8])
    weights /= weights.sum()
    return weights.tolist()


def choice_p_cases(py_rng):
    yield [1.0]
    yield [0.5, 0.5]
    yield [0.0, 1.0, 0.0]
    yield [0.1, 0.2, 0.7]  # a sum that is not exactly 1
    yield (np.ones(7) / 7).tolist()
    yield [1e-300, 1.0 - 1e-300]
    for n in (2, 3, 5, 12, 14, 37, 40, 42, 64, 200):
        yield wfc_like_p(py_rng, n)
        raw = np.array([py_rng.random() for _ in range(n)])
        yield (raw / raw.sum()).tolist()


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:20])
def test_choice_with_probabilities(seed):
    """Generator.choice(n, p=p): cumsum, normalised by its last element, one random() and
    searchsorted(side='right'); interleaved with the other draws."""
    py_rng = random.Random(seed)
    program = []
    for p in choice_p_cases(py_rng):
        program += [("choice_p", p, 0.0)] * py_rng.choice([1, 3, 50])
        program.append(py_rng.choice([("random", 0.0, 0.0), ("integers", 0, 4), ("uint32", 0, 0)]))
    assert_same(seed, program)


def test_choice_with_probabilities_at_the_cdf_steps():
    """Uniform draws that land on a cdf value pick the next index (side='right'): p with
    dyadic steps, drawn many times, crosses every boundary case numpy's random() can hit."""
    p = [0.25, 0.0, 0.25, 0.5]
    assert_same(7, [("choice_p", p, 0.0)] * 5000)


@pytest.mark.parametrize(
    "p",
    [[0.5, float("nan")], [1.5, -0.5], [0.5, 0.4], [0.6, 0.6], [1.0 + 2e-8]],
    ids=["nan", "negative", "short", "long", "just-too-long"],
)
def test_choice_refuses_what_numpy_refuses(p):
    with pytest.raises(ValueError) as numpy_error:
        numpy_rng(0).choice(len(p), p=p)
    with pytest.raises(ValueError) as ours:
        draws(0, [("choice_p", p, 0.0)])
    assert str(ours.value) == str(numpy_error.value)


def test_choice_accepts_what_numpy_accepts_within_its_tolerance():
    p = [0.5, 0.5 + 1e-8]  # off by less than sqrt(eps): numpy draws
    assert_same(3, [("choice_p", p, 0.0)] * 100)


@pytest.mark.parametrize("seed", SPECIAL_SEEDS + RANDOM_SEEDS[:20])
def test_permutation(seed):
    """Generator.permutation(n): arange(n) shuffled, one random_interval per swap (32-bit
    draws, the buffered half-words shared with integers())."""
    program = [("permutation", n, 0.0) for n in (0, 1, 2, 3, 10, 200, 529, 3000)]
    program += [("integers", 0, 4), ("permutation", 77, 0.0), ("random", 0.0, 0.0)]
    assert_same(seed, program)
