"""envfleet::dm_control::Tolerance (cpp/families/dm_control/rewards.h) against dm_control
1.0.50's ``rewards.tolerance``, bit for bit, for every sigmoid, for scalar inputs (NumPy's
``** 2`` is libm pow there) and array inputs (NumPy squares), inside, on and beyond the bounds.

One exception: ``tanh_squared``, which no suite task uses, calls NumPy's float64 ``np.tanh``,
NumPy's own SIMD kernel on AVX2/AVX-512 CPUs (loops_hyperbolic.dispatch), which differs from
libm's ``tanh`` (what the port calls) in the last bit for about a quarter of inputs. One ulp
of tanh near 1 is 1.1e-16, and ``1 - tanh(y) ** 2`` cancels, so the results are compared to
1e-15 absolute instead. On CPUs with AVX-512, NumPy's exp and cosh are SIMD kernels too, so every
sigmoid is compared to dm_control_reference.SIMD_TOL there.

The C++ side runs through the test-only module _envfleet_testing (tests/cpp/testing_module),
built by the ``testing_module`` fixture; it needs no MuJoCo.
"""

import os
import sys

import numpy as np
import pytest
from dm_control.utils import rewards

sys.path.insert(0, os.path.dirname(__file__))
from dm_control_reference import assert_values_equal  # noqa: E402

SIGMOIDS = (
    "gaussian",
    "hyperbolic",
    "long_tail",
    "reciprocal",
    "cosine",
    "linear",
    "quadratic",
    "tanh_squared",
)
# (lower, upper, margin, value_at_margin): the suite's shapes (a point, a one-sided interval, a
# box, no margin) and odd ones.
CASES = [
    (0.0, 0.0, 2.0, 0.1),
    (10.0, np.inf, 10.0, 0.0),
    (1.2, np.inf, 0.6, 0.1),
    (1.0, np.inf, 0.5, 0.5),
    (0.0, 0.05, 0.05, 0.1),
    (-0.25, 0.25, 0.0, 0.1),
    (0.995, 1.0, 0.0, 0.1),
    (-1.0, 3.0, 0.37, 0.9),
    (0.0, 0.0, 1.0, 0.0),
]


def xs():
    rng = np.random.default_rng(1)
    return np.concatenate(
        [rng.normal(0, 3, 300), rng.uniform(-30, 30, 200), [0.0, -0.0, 1.0, -1.0, 0.6, 10.0, 20.0]]
    )


# dm_control refuses value_at_margin=0 but for the cosine, linear and quadratic sigmoids.
PAIRS = [
    (case, sigmoid)
    for case in CASES
    for sigmoid in SIGMOIDS
    if case[3] > 0 or sigmoid in ("cosine", "linear", "quadratic")
]


@pytest.mark.filterwarnings("ignore:overflow encountered in cosh")  # dm_control's own
@pytest.mark.parametrize(("case", "sigmoid"), PAIRS, ids=str)
def test_tolerance_matches_dm_control(testing_module, case, sigmoid):
    lower, upper, margin, value_at_margin = case
    x = xs()
    kwargs = dict(
        bounds=(lower, upper), margin=margin, sigmoid=sigmoid, value_at_margin=value_at_margin
    )
    want_array = rewards.tolerance(x, **kwargs)
    want_scalar = [rewards.tolerance(np.float64(value), **kwargs) for value in x]
    got_scalar, got_array = [], []
    for value in x:
        args = (float(value), lower, upper, margin, sigmoid, value_at_margin)
        got_scalar.append(testing_module.dm_control_tolerance(*args, False))
        got_array.append(testing_module.dm_control_tolerance(*args, True))
    if sigmoid == "tanh_squared":  # see the top comment
        np.testing.assert_allclose(got_scalar, want_scalar, rtol=0, atol=1e-15)
        np.testing.assert_allclose(got_array, want_array, rtol=0, atol=1e-15)
    else:
        assert_values_equal(got_scalar, want_scalar, "scalar input")
        assert_values_equal(got_array, want_array, "array input")


@pytest.mark.parametrize(
    ("shape", "factor"), [((30, 30), 201 / 30.0), ((5, 7), 2.5), ((4, 9), 0.6)]
)
def test_scipy_zoom_matches_scipy(testing_module, shape, factor):
    # quadruped's Escape smooths its random terrain with scipy.ndimage.zoom (order 3).
    from scipy import ndimage

    bumps = np.random.default_rng(2).uniform(0.15, 1, shape)
    want = ndimage.zoom(bumps, factor)
    got = testing_module.scipy_zoom_cubic(bumps.ravel().tolist(), *shape, *want.shape)
    np.testing.assert_array_equal(np.reshape(got, want.shape), want)
