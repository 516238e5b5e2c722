"""Tests of chainrules/rulesets/numpy_statistics.py through chainrules.testing:
median, quantile and percentile (every method, axes, keepdims, q scalar and
array, the derivative in q), cov and corrcoef (rowvar, y, bias/ddof, weights,
complex)."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

NT = NoTangent()


def rand(seed, *shape, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(f, *args, fkwargs=None):
    test_frule(f, *args, fkwargs=fkwargs)
    test_rrule(f, *args, fkwargs=fkwargs)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((6,), None), ((4, 5), 1), ((4, 5), 0),
                                        ((3, 4, 5), (0, 2)), ((3, 4, 5), None)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median(shape, axis, keepdims, dtype):
    check(np.median, rand(1, *shape, dtype=dtype), fkwargs={"axis": axis, "keepdims": keepdims})


def test_median_positional_axis():
    check(np.median, rand(1, 4, 5), PrimalAndTangent(1, NT))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
# q·(n−1) stays ≥ 0.1 away from the jumps of every method for all the n below
@pytest.mark.parametrize("q", [0.456, np.array([0.543, 0.957, 0.457]), np.array([[0.544], [0.956]])])
def test_quantile(q, method):
    check(np.quantile, rand(1, 8), q, fkwargs={"method": method})
    check(np.quantile, rand(1, 4, 6), q, fkwargs={"method": method, "axis": 1, "keepdims": True})
    check(np.quantile, rand(1, 3, 4, 5), q, fkwargs={"method": method, "axis": (0, 2)})


def test_quantile_float32_and_positional_axis():
    check(np.quantile, rand(1, 4, 6, dtype=np.float32), np.array([0.35, 0.8]), PrimalAndTangent(0, NT))
    check(np.quantile, rand(1, 9), 0.456, PrimalAndTangent(None, NT), PrimalAndTangent(None, NT))


@pytest.mark.parametrize("q", [45.6, np.array([54.4, 95.7])])
def test_percentile(q):
    check(np.percentile, rand(1, 9), q)
    check(np.percentile, rand(1, 4, 6), q, fkwargs={"axis": 0, "method": "midpoint"})


def test_quantile_rejections_and_zero_seed():
    a = rand(1, 5)
    with pytest.raises(ValueError, match="method"):
        cr.rrule(np.quantile, a, 0.5, method="hazen")
    with pytest.raises(TypeError, match="out="):
        cr.rrule(np.median, a, out=np.empty(()))
    with pytest.raises(TypeError, match="weights="):
        cr.rrule(np.quantile, a, 0.5, method="inverted_cdf", weights=np.ones(5))
    _, pb = cr.rrule(np.quantile, a, 0.5)
    assert pb(ZeroTangent()) == (NT, ZeroTangent(), ZeroTangent())


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_cov(dtype):
    check(np.cov, rand(1, 3, 5, dtype=dtype))
    check(np.cov, rand(1, 6, dtype=dtype))
    check(np.cov, rand(1, 5, 3, dtype=dtype), fkwargs={"rowvar": False})
    check(np.cov, rand(1, 2, 5, dtype=dtype), rand(2, 5, dtype=dtype))
    check(np.cov, rand(1, 5, 2, dtype=dtype), rand(2, 5, 3, dtype=dtype), PrimalAndTangent(False, NT))
    check(np.cov, rand(1, 3, 5, dtype=dtype), fkwargs={"bias": True})
    check(np.cov, rand(1, 3, 5, dtype=dtype), fkwargs={"ddof": 2})


def test_cov_weights():
    f = np.array([1, 2, 1, 3, 1])
    a = np.array([0.5, 1.0, 2.0, 0.7, 1.3])
    check(np.cov, rand(1, 3, 5), fkwargs={"fweights": f})
    check(np.cov, rand(1, 3, 5), fkwargs={"aweights": a})
    check(np.cov, rand(1, 3, 5), fkwargs={"fweights": f, "aweights": a, "ddof": 0})
    check(np.cov, rand(1, 3, 5), fkwargs={"fweights": f, "aweights": a})


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_corrcoef(dtype):
    check(np.corrcoef, rand(1, 3, 6, dtype=dtype))
    check(np.corrcoef, rand(1, 6, 3, dtype=dtype), fkwargs={"rowvar": False})
    check(np.corrcoef, rand(1, 6, dtype=dtype), rand(2, 2, 6, dtype=dtype))
    check(np.corrcoef, rand(1, 6, 2, dtype=dtype), rand(2, 6, dtype=dtype), PrimalAndTangent(False, NT))


def test_corrcoef_of_one_variable_is_constant():
    x = rand(1, 6)
    assert cr.frule((NT, rand(2, 6)), np.corrcoef, x)[1] is ZeroTangent()
    _, pb = cr.rrule(np.corrcoef, x)
    assert pb(1.0) == (NT, ZeroTangent())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # NumPy: mean of an empty slice
def test_empty_arrays():
    check(np.median, np.ones((3, 0)), PrimalAndTangent(0, NT))   # reduces 3 values, 0 columns
    check(np.median, np.ones((3, 0)), PrimalAndTangent(1, NT))   # reduces nothing: NaN, no derivative
    check(np.quantile, np.ones((0, 3)), np.array([0.3, 0.6]), fkwargs={"axis": 1})
