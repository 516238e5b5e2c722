"""Tests of chainrules/rulesets/numpy/statistics.py through chainrules.testing:
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


# ----- nanmedian, nanquantile, nanpercentile ---------------------------------------

def with_nans(seed, *shape, dtype=np.float64, where=((0,), (-1,))):
    """rand with NaN at the given index tuples (several places, ends included)."""
    x = rand(seed, *shape, dtype=dtype)
    for i in where:
        x[i] = np.nan
    return x


NAN_CASES = [  # (shape, NaN places, axis); every slice keeps a value
    ((), (), None),
    ((7,), ((0,), (3,), (6,)), None),
    ((6,), ((2,),), None),
    ((4, 5), ((0, 0), (1, 3), (1, 4), (3, 2)), None),
    ((4, 5), ((0, 0), (1, 3), (1, 4), (3, 2)), 0),
    ((4, 5), ((0, 0), (1, 3), (1, 4), (3, 2)), 1),
    ((4, 5), ((0, 0), (1, 3), (1, 4), (3, 2)), -1),
    ((3, 4, 5), ((0, 1, 2), (2, 3, 4)), (0, 2)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,where,axis", NAN_CASES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_nanmedian(shape, where, axis, keepdims, dtype):
    x = with_nans(3, *shape, dtype=dtype, where=where) if shape else np.float64(1.5).astype(dtype)
    check(np.nanmedian, x, fkwargs={"axis": axis, "keepdims": keepdims})


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("shape,where,axis", NAN_CASES[1:], ids=str)
def test_nanquantile(shape, where, axis, method):
    # q·(count−1) stays ≥ 0.1 away from the jumps of every method for every count here
    q = np.array([0.44, 0.71])
    x = with_nans(4, *shape, where=where)
    check(np.nanquantile, x, q, fkwargs={"axis": axis, "method": method})
    check(np.nanquantile, x, 0.44, fkwargs={"axis": axis, "method": method, "keepdims": True})


def test_nanquantile_0d_float32_and_positional_axis():
    check(np.nanquantile, np.float64(2.5), 0.3)
    check(np.nanquantile, with_nans(1, 4, 6, dtype=np.float32, where=((0, 1), (2, 5))), np.array([0.35, 0.82]),
          PrimalAndTangent(1, NT))


@pytest.mark.parametrize("q", [45.6, np.array([54.4, 95.7])])
def test_nanpercentile(q):
    check(np.nanpercentile, with_nans(1, 9, where=((1,), (4,))), q)
    check(np.nanpercentile, with_nans(1, 4, 6), q, fkwargs={"axis": 0, "method": "midpoint"})
    check(np.nanpercentile, with_nans(1, 4, 6, where=((0, 0), (3, 5))), q, fkwargs={"axis": 1, "keepdims": True})


def test_nan_versions_equal_the_plain_ones_without_nans():
    x, ȧ, ȳ = rand(1, 4, 5), rand(2, 4, 5), rand(3, 2, 5)
    q = np.array([0.3, 0.8])
    for f, g in [(np.nanquantile, np.quantile), (np.nanpercentile, np.percentile)]:
        qs = q * (100 if f is np.nanpercentile else 1)
        ẏ = cr.frule((NT, ȧ, 0.0 * qs), f, x, qs, axis=0)[1]
        assert np.allclose(ẏ, cr.frule((NT, ȧ, 0.0 * qs), g, x, qs, axis=0)[1])
        assert np.allclose(cr.unthunk(cr.rrule(f, x, qs, axis=0)[1](ȳ)[1]),
                           cr.unthunk(cr.rrule(g, x, qs, axis=0)[1](ȳ)[1]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # NumPy: All-NaN slice encountered
@pytest.mark.parametrize("f,args", [(np.nanmedian, ()), (np.nanquantile, (np.array([0.2, 0.7]),)),
                                    (np.nanpercentile, (35.0,))])
def test_all_nan_slice_is_nan_with_zero_derivative(f, args):
    # finite differences see NaN there, so the other slices are checked
    # against the rule on the array without the all-NaN row
    x = with_nans(5, 4, 5, where=((0, 1), (3, 0), (3, 4)))
    x[2] = np.nan
    rest = np.delete(x, 2, axis=0)
    ȧ = rand(6, 4, 5)
    tq = tuple(np.zeros_like(np.asarray(a, dtype=float)) for a in args)
    y, ẏ = cr.frule((NT, ȧ) + tq, f, x, *args, axis=1)
    y_rest, ẏ_rest = cr.frule((NT, np.delete(ȧ, 2, axis=0)) + tq, f, rest, *args, axis=1)
    assert np.isnan(y[..., 2]).all() and np.array_equal(np.delete(y, 2, axis=-1), y_rest)
    assert (ẏ[..., 2] == 0).all() and np.allclose(np.delete(ẏ, 2, axis=-1), ẏ_rest)
    ȳ = rand(7, *np.shape(y))
    cts = cr.rrule(f, x, *args, axis=1)[1](ȳ)
    cts_rest = cr.rrule(f, rest, *args, axis=1)[1](np.delete(ȳ, 2, axis=-1))
    ā = cr.unthunk(cts[1])
    assert (ā[2] == 0).all() and np.allclose(np.delete(ā, 2, axis=0), cr.unthunk(cts_rest[1]))
    assert ā[0, 1] == 0 and ā[3, 0] == 0 and ā[3, 4] == 0
    if args:
        assert np.allclose(cr.unthunk(cts[2]), cr.unthunk(cts_rest[2]))
    test_rrule(f, rest, *args, fkwargs={"axis": 1})
    test_frule(f, rest, *args, fkwargs={"axis": 1})


def test_ties_differentiable_and_convention():
    # tied values away from the picked order statistics, and a tie between
    # both interpolated ones (split evenly whichever moves): differentiable
    x = np.array([[1.0, 1.0, 3.0, np.nan, 5.0, 7.0, 7.0],
                  [2.0, np.nan, 0.5, 0.5, 9.0, 4.0, 9.0]])
    check(np.nanmedian, x, fkwargs={"axis": 1})
    check(np.nanquantile, x, 0.5, fkwargs={"axis": 1})
    check(np.median, np.array([0.0, 2.0, 2.0, 5.0]))
    # a tie at the picked statistic: the derivative goes to the element the
    # stable sort puts first (here the derivative from the left)
    t = np.array([3.0, np.nan, 1.0, 3.0, 4.0])
    ā = cr.unthunk(cr.rrule(np.nanquantile, t, 0.5, method="lower")[1](1.0)[1])
    assert np.array_equal(ā, np.eye(5)[0])
    h = 1e-7 * np.eye(5)[0]
    assert np.nanquantile(t, 0.5, method="lower") - np.nanquantile(t - h, 0.5, method="lower") == pytest.approx(1e-7)
