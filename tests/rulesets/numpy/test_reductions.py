"""Rules of chainrules/rulesets/numpy/reductions.py, averages.py and
cumulative.py, checked with chainrules.testing against finite differences: axis None / int / negative /
tuple, keepdims, 0-d and empty arrays, float32 and complex, prod and cumprod
with zeros, max with ties, and the np.ndarray methods."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import InplaceableThunk, NoTangent, ZeroTangent, unthunk
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

RNG = np.random.default_rng(11)
F32 = dict(rtol=3e-2, atol=3e-2)   # finite differences in single precision


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


def _array(shape, dtype=np.float64, lo=0.5, hi=1.5):
    x = RNG.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(lo, hi, shape)
    return np.asarray(x, dtype=dtype)


# (shape, axis) pairs covering None, int, negative and tuple axes, 0-d and empty
AXES = [((), None), ((0,), None), ((0,), 0), ((4,), None), ((4,), 0), ((4,), -1),
        ((2, 3), None), ((2, 3), 0), ((2, 3), -1), ((2, 3), (0, 1)), ((2, 0), 1),
        ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3)), ((2, 3, 4), 1), ((2, 3), ())]


def _id(case):
    return f"{case[0]}-axis{case[1]}"


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape,axis", AXES, ids=[_id(c) for c in AXES])
@pytest.mark.parametrize("f", [np.sum, np.mean, np.nansum, np.nanmean, np.prod, np.var, np.std],
                         ids=lambda f: f.__name__)
def test_reductions_over_axes(f, shape, axis, keepdims):
    if f in (np.mean, np.nanmean, np.var, np.std) and 0 in shape:
        return   # the mean of nothing is NaN (with a warning): nothing to differentiate
    _both(f, _array(shape), fkwargs={"axis": axis, "keepdims": keepdims})


@pytest.mark.parametrize("f", [np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod])
def test_reductions_float32_and_complex(f):
    _both(f, _array((2, 3), np.float32), fkwargs={"axis": 1}, **F32)
    _both(f, _array((2, 3), np.complex128), fkwargs={"axis": 0})
    _both(f, _array((3,), np.complex64), **F32)
    _, pb = cr.rrule(f, _array((2, 3), np.float32), axis=1)
    assert unthunk(pb(np.ones(np.shape(f(np.ones((2, 3)), axis=1))))[1]).dtype == np.float32


def test_sum_cotangent_is_a_broadcast_view_and_zero_seed_is_free():
    x = _array((3, 4))
    _, pb = cr.rrule(np.sum, x, axis=0)
    _, dx = pb(np.arange(4.0))
    assert dx.shape == (3, 4) and np.array_equal(dx, np.broadcast_to(np.arange(4.0), (3, 4)))
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent())
    acc = np.ones((3, 4))
    assert cr.add_inplace(acc, dx) is acc and acc[2, 3] == 4.0


def test_positional_axis_gets_no_tangent():
    x = _array((2, 3))
    for f in (np.sum, np.mean, np.prod, np.max, np.cumsum, np.var):
        Ω, pb = cr.rrule(f, x, 1)
        assert np.allclose(Ω, f(x, 1))
        cts = pb(np.ones(np.shape(Ω)))
        assert len(cts) == 3 and cts[2] is NoTangent()
        assert np.allclose(unthunk(cts[1]), unthunk(cr.rrule(f, x, axis=1)[1](np.ones(np.shape(Ω)))[1]))


def test_integer_arrays_have_no_tangent():
    test_rrule(np.sum, np.arange(6).reshape(2, 3), fkwargs={"axis": 0})
    test_rrule(np.max, np.arange(6))


def test_refused_arguments_are_named():
    x = _array((2, 3))
    with pytest.raises(TypeError, match="sum.*out="):
        cr.rrule(np.sum, x, axis=0, out=np.empty(3))
    with pytest.raises(TypeError, match="mean.*where="):
        cr.frule((NoTangent(), x), np.mean, x, where=x > 1)
    with pytest.raises(TypeError, match="prod.*where="):
        cr.rrule(np.prod, x, where=x > 1)
    with pytest.raises(TypeError, match="max.*where="):
        cr.rrule(np.max, x, initial=2.0, where=x > 1)


def test_sum_honours_initial_and_dtype():
    _both(np.sum, _array((2, 3)), fkwargs={"axis": 0, "initial": 5.0})
    _both(np.sum, _array((2, 3), np.float32), fkwargs={"dtype": np.float64}, **F32)


@pytest.mark.parametrize("x, args, kwargs", [
    (np.arange(6.0).reshape(2, 3), (), {}), (np.arange(6.0).reshape(2, 3), (1,), {}),
    (np.arange(6.0).reshape(2, 3), (None, np.float32), {}), (np.arange(6.0).reshape(2, 3), (), {"axis": (0, 1)}),
    (np.arange(6.0).reshape(2, 3), (0,), {"keepdims": True, "initial": 2.0}),
    (np.arange(6, dtype=np.int8), (), {}), (np.array([True, True, False]), (), {}), (np.ones((0, 2)), (), {"axis": 0}),
    (np.arange(6.0), (), {"keepdims": np._NoValue}), (np.ma.MaskedArray(np.ones(3), [0, 1, 0]), (), {}),
    ([1.0, 2.0], (), {}),
], ids=str)
def test_sum_primal_is_np_sum(x, args, kwargs):
    # the rule computes np.sum of an ndarray as np.add.reduce (np.sum without its Python layer)
    Ω, _ = cr.rrule(np.sum, x, *args, **kwargs)
    ref = np.sum(x, *args, **kwargs)
    assert type(Ω) is type(ref) and np.shape(Ω) == np.shape(ref) and np.asarray(Ω).dtype == np.asarray(ref).dtype
    np.testing.assert_array_equal(Ω, ref)


# ----- the ndarray methods ---------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "mean", "prod", "var", "std", "max", "min", "cumsum", "cumprod"])
def test_ndarray_methods_use_the_same_rules(name):
    method = getattr(np.ndarray, name)
    _both(method, _array((2, 3)), fkwargs={"axis": -1})
    _both(method, _array((2, 3)))


# ----- prod with zeros -----------------------------------------------------------------

@pytest.mark.parametrize("x,axis", [
    (np.array([2.0, 0.0, 3.0]), None),                     # one zero
    (np.array([2.0, 0.0, 3.0, 0.0]), None),                # two zeros: all zero but still exact
    (np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]]), 1),
    (np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]]), 0),
    (np.array([[[0.0, 2.0], [3.0, 1.5]], [[1.0, 2.0], [0.0, 0.0]]]), (0, 2)),
    (np.array([0.0 + 1j, 2.0, 1.0 - 1j]), None),
])
def test_prod_with_zeros(x, axis):
    _both(np.prod, x, fkwargs={"axis": axis})
    _both(np.prod, x, fkwargs={"axis": axis, "keepdims": True})


def test_prod_with_one_zero_gives_the_product_of_the_others():
    _, pb = cr.rrule(np.prod, np.array([2.0, 0.0, 3.0]))
    assert np.array_equal(unthunk(pb(1.0)[1]), [0.0, 6.0, 0.0])
    _, pb = cr.rrule(np.prod, np.array([2.0, 0.0, 0.0]))
    assert np.array_equal(unthunk(pb(1.0)[1]), [0.0, 0.0, 0.0])


def test_nanprod_skips_nans():
    x = np.array([[2.0, np.nan, 3.0], [1.5, 0.5, np.nan]])
    _, pb = cr.rrule(np.nanprod, x, axis=1)
    assert np.allclose(unthunk(pb(np.ones(2))[1]), [[3.0, 0.0, 2.0], [0.5, 1.5, 0.0]])
    _both(np.nanprod, _array((2, 3)), fkwargs={"axis": 0})


# ----- var, std ---------------------------------------------------------------------

@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("f", [np.var, np.std])
def test_var_std_ddof(f, ddof):
    _both(f, _array((3, 4)), fkwargs={"axis": 0, "ddof": ddof})
    _both(f, _array((3, 4), np.complex128), fkwargs={"axis": (0, 1), "ddof": ddof, "keepdims": True})
    _both(f, _array((5,)), fkwargs={"correction": ddof})


def test_std_of_a_constant_slice_has_zero_cotangent():
    x = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])
    _, pb = cr.rrule(np.std, x, axis=1)
    dx = pb(np.ones(2))[1]
    assert np.all(np.isfinite(dx)) and np.array_equal(dx[0], [0, 0, 0])


# ----- max / min: one maximal element --------------------------------------------------

@pytest.mark.parametrize("f", [np.max, np.amax, np.min, np.amin, np.nanmax, np.nanmin, np.ptp],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape,axis", [((), None), ((5,), None), ((5,), -1), ((3, 4), 0),
                                        ((3, 4), (0, 1)), ((2, 3, 4), (2, 0)), ((2, 3, 4), -2)],
                         ids=str)
def test_max_min_ptp(f, shape, axis):
    x = RNG.permutation(np.arange(int(np.prod(shape)), dtype=float)).reshape(shape) / 3
    _both(f, x, fkwargs={"axis": axis})
    _both(f, x, fkwargs={"axis": axis, "keepdims": True})
    _both(f, x.astype(np.float32), fkwargs={"axis": axis}, **F32)


def test_max_ties_go_to_one_element_as_an_inplaceable_thunk():
    x = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]])
    _, pb = cr.rrule(np.max, x, axis=1)
    dx = pb(np.array([1.0, 5.0]))[1]
    assert isinstance(dx, InplaceableThunk)
    assert np.array_equal(unthunk(dx), [[1.0, 0, 0], [5.0, 0, 0]])
    acc = np.ones((2, 3))
    assert cr.add_inplace(acc, dx) is acc and np.array_equal(acc, [[2.0, 1, 1], [6.0, 1, 1]])
    _, pb = cr.rrule(np.min, x)
    assert np.count_nonzero(unthunk(pb(1.0)[1])) == 1


def test_nanmax_ignores_nans():
    x = np.array([[1.0, np.nan, 0.5], [np.nan, -1.0, -2.0]])
    Ω, pb = cr.rrule(np.nanmax, x, axis=1)
    assert np.array_equal(Ω, [1.0, -1.0])
    assert np.array_equal(unthunk(pb(np.ones(2))[1]), [[1, 0, 0], [0, 1, 0]])


# ----- cumsum, cumprod --------------------------------------------------------------------

@pytest.mark.parametrize("f", [np.cumsum, np.cumprod])
@pytest.mark.parametrize("shape,axis", [((), None), ((0,), None), ((4,), None), ((4,), 0), ((2, 3), None),
                                        ((2, 3), 0), ((2, 3), -1), ((2, 0), 1), ((2, 3, 2), 1)], ids=str)
def test_cumsum_cumprod(f, shape, axis):
    _both(f, _array(shape), fkwargs={"axis": axis})


@pytest.mark.parametrize("x", [
    np.array([2.0, 0.0, 3.0, 1.5]),
    np.array([0.0, 2.0, 3.0]),
    np.array([2.0, 3.0, 0.0]),
    np.array([1.5, 0.0, 2.0, 0.0, 3.0]),
    np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]]),
    np.array([1.0 + 1j, 0.0, 2.0 - 0.5j]),
])
def test_cumprod_with_zeros(x):
    _both(np.cumprod, x, fkwargs={"axis": -1})
    _both(np.cumprod, x)


# ----- diff, average ---------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"n": 2}, {"axis": 0}, {"n": 3, "axis": -1},
                                {"prepend": 0.5}, {"append": np.ones((3, 2))}, {"n": 2, "prepend": 1.0,
                                                                                "append": 2.0}])
def test_diff(kw):
    _both(np.diff, _array((3, 4)), fkwargs=kw)


def test_diff_with_positional_n_and_complex():
    x = _array((5,), np.complex128)
    _both(np.diff, x, PrimalAndTangent(np.intp(2), NoTangent()))
    _, pb = cr.rrule(np.diff, x, 2)
    assert len(pb(np.ones(3))) == 3 and pb(np.ones(3))[2] is NoTangent()


@pytest.mark.parametrize("shape,axis,wshape", [((4,), None, (4,)), ((3, 4), 1, (4,)), ((3, 4), 0, (3,)),
                                               ((3, 4), None, (3, 4)), ((3, 4), (0, 1), (3, 4)),
                                               ((2, 3, 4), -1, (4,))], ids=str)
def test_average_with_weights(shape, axis, wshape):
    a, w = _array(shape), _array(wshape)
    # weights positional: both get cotangents; the axis is an index (a NumPy
    # integer: the testing kit moves bare Python ints as floats)
    ax = np.intp(axis) if isinstance(axis, int) else axis
    _both(np.average, a, PrimalAndTangent(ax, NoTangent()), w)
    _both(np.average, a, fkwargs={"axis": axis, "weights": w})
    _both(np.average, a, fkwargs={"axis": axis, "weights": w, "keepdims": True})
    _both(np.average, a, fkwargs={"axis": axis})


def test_average_positional_weights_get_their_cotangent():
    a, w = _array((3, 4)), _array((4,))
    _, pb = cr.rrule(np.average, a, 1, w)
    cts = pb(np.ones(3))
    assert len(cts) == 4 and cts[2] is NoTangent() and unthunk(cts[3]).shape == (4,)
    Ω = np.average(a, 1, w)
    expected = np.sum((a - Ω[:, None]) / w.sum(), axis=0)
    assert np.allclose(unthunk(cts[3]), expected)


# ----- non-differentiable ----------------------------------------------------------------

@pytest.mark.parametrize("f", [np.argmax, np.argsort, np.count_nonzero, np.any, np.ndarray.argmax])
def test_index_results_are_non_differentiable(f):
    x = _array((2, 3))
    Ω, pb = cr.rrule(f, x)
    assert np.array_equal(Ω, f(x)) and pb(1.0) == (NoTangent(), NoTangent())


def test_array_likes_get_structural_tangents():
    _both(np.sum, [[1.0, 2.0], [3.0, 4.0]], fkwargs={"axis": 0})
    _both(np.prod, [1.5, 0.0, 2.0])
    _both(np.mean, (1.0, 2.0, 4.0))
    _both(np.max, [1.0, 3.0, 2.0])
    _both(np.cumprod, [1.5, 2.0, 0.5])


# ----- nanvar, nanstd --------------------------------------------------------------

NAN_CASES = [((4,), None, 0), ((3, 4), 1, 1), ((3, 4), 0, 0), ((2, 3, 4), (0, 2), 0), ((5,), 0, 1)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape,axis,ddof", NAN_CASES)
@pytest.mark.parametrize("f", [np.nanvar, np.nanstd], ids=lambda f: f.__name__)
def test_nanvar_nanstd(f, shape, axis, ddof, keepdims):
    x = _array(shape)
    x.flat[1] = np.nan
    _both(f, x, fkwargs=dict(axis=axis, ddof=ddof, keepdims=keepdims))


@pytest.mark.parametrize("f", [np.nanvar, np.nanstd], ids=lambda f: f.__name__)
def test_nanvar_nanstd_dtypes(f):
    _both(f, _array((3, 4), np.float32), fkwargs=dict(axis=0), **F32)
    _both(f, _array((3, 4), np.complex128), fkwargs=dict(axis=1))
    _both(f, _array(()))
    x̄ = cr.rrule(f, np.array([np.nan, 1.0, 2.0]))[1](1.0)[1]
    assert x̄[0] == 0 and np.all(np.isfinite(x̄))


# ----- initial= (prod, max, min) and returned=True (average) -----------------------

@pytest.mark.parametrize("shape,axis", [((4,), None), ((3, 4), 1), ((3, 4), 0), ((), None)])
def test_prod_initial(shape, axis):
    x = _array(shape)
    _both(np.prod, x, fkwargs=dict(axis=axis, initial=1.5))
    if x.size:
        x.flat[0] = 0.0          # exact with a zero, initial a factor
        _both(np.prod, x, fkwargs=dict(axis=axis, initial=-2.0))


@pytest.mark.parametrize("f", [np.max, np.min, np.nanmax, np.nanmin], ids=lambda f: f.__name__)
def test_max_min_initial(f):
    x = RNG.normal(size=(3, 4))
    for initial in (0.0, -5.0, 5.0):      # sometimes, never and always winning
        _both(f, x, fkwargs=dict(axis=1, initial=initial))
    _both(f, np.zeros((0,)), fkwargs=dict(initial=1.0))
    _both(f, _array((2, 3), np.float32), fkwargs=dict(axis=0, initial=1.0), **F32)


def test_average_returned():
    x, w = _array((3, 4)), _array((4,))
    _both(np.average, x, 1, w, True)
    _both(np.average, x, None, None, True)
    _both(np.average, x, 0, _array((3, 4)), True, fkwargs=dict(keepdims=True))
    test_rrule(np.average, x, fkwargs=dict(axis=0, returned=True))
    _both(np.average, _array((3,), np.complex128), 0, w[:3], True)


# ----- ufunc methods: np.add.reduce & co. ---------------------------------------------

UFUNC_METHODS = [np.add.reduce, np.multiply.reduce, np.maximum.reduce, np.minimum.reduce,
                 np.add.accumulate, np.multiply.accumulate]


@pytest.mark.parametrize("f", UFUNC_METHODS, ids=lambda f: f"{f.__self__.__name__}.{f.__name__}")
def test_ufunc_methods(f):
    x = RNG.normal(size=(3, 4))
    _both(f, x)                                       # axis 0 by default
    _both(f, x, 1)
    _both(f, x, fkwargs=dict(axis=-1))
    _both(f, RNG.normal(size=(5,)))
    _both(f, _array((2, 3), np.float32), **F32)
    if f not in (np.maximum.reduce, np.minimum.reduce):
        _both(f, _array((2, 3), np.complex128))
    if f is np.add.reduce or f is np.multiply.reduce:
        _both(f, x, fkwargs=dict(axis=None, keepdims=True))
        _both(f, np.zeros((0, 3)))


def test_ufunc_method_refuses_out():
    with pytest.raises(TypeError, match="out"):
        cr.rrule(np.add.reduce, np.ones(3), out=np.zeros(()))


def test_cumprod_with_zeros_computes_the_same_on_plain_and_tracked_values():
    # the plain-array path (fewer passes) and the differentiable one (a tracked x) agree
    from chainrules import ad
    x = np.array([[0.7, 0.0, -1.3, 0.0, 2.0], [1.1, -0.6, 0.0, 2.0, 0.5], [0.0, 0.0, 0.0, 1.5, -1.0]])
    dx, g = np.linspace(-1, 1, 15).reshape(3, 5), np.linspace(2, -1, 15).reshape(3, 5)
    NT = NoTangent()

    def both(x):
        return cr.frule((NT, dx), np.cumprod, x, axis=1)[1], cr.unthunk(cr.rrule(np.cumprod, x, axis=1)[1](g)[1])
    (jvp, vjp), _ = ad.jvp(both, (x,), (np.ones_like(x),))
    plain_jvp, plain_vjp = both(x)
    np.testing.assert_allclose(jvp, plain_jvp, atol=1e-15)
    np.testing.assert_allclose(vjp, plain_vjp, atol=1e-15)


# ----- one rule body: NumPy's fast paths compute what the array-API body computes ------------

def test_fast_paths_compute_the_body_bit_for_bit():
    from chainrules.rulesets.array_api import reductions as body
    from chainrules.rulesets.numpy import reductions as nprules
    failures, fast = [], 0
    cases = [((2, 5), {}), ((2, 5), {"axis": 1}), ((2, 5), {"axis": -2, "keepdims": True}),
             ((3, 4, 5), {"axis": (0, 2)}), ((3, 4, 5), {"axis": (2, 0), "keepdims": True}), ((7,), {"axis": 0}),
             ((), {}), ((0, 3), {"axis": 0}), ((1000,), {}), ((4, 3), {"keepdims": True})]
    for f, factory in [(np.sum, body.sum_rules), (np.mean, body.mean_rules)]:
        generic_frule, generic = factory(f, f.__name__, nprules._SUM_ARGS)
        for dtype in (np.float64, np.float32, np.complex128):
            for shape, kw in cases:
                if f is np.mean and 0 in shape:
                    continue
                x = _array(shape, dtype)
                Ω, pb = cr.rrule(f, x, **kw)
                Ωb, pbb = generic(x, **kw)
                ȳ = np.asarray(RNG.normal(size=np.shape(Ω))).astype(dtype)
                if dtype is np.float64 and np.ndim(Ω) == 0:
                    ȳ = float(ȳ) if shape else ȳ[()]     # a number seeds the fast path too
                dx, dxb = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
                same = (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb) and type(dx) is type(dxb)
                        and dx.dtype == dxb.dtype and dx.shape == dxb.shape and np.array_equal(dx, dxb))
                Δx = _array(shape, dtype)
                (Ω2, ΔΩ), (_, ΔΩb) = cr.frule((NoTangent(), Δx), f, x, **kw), generic_frule((NoTangent(), Δx), x, **kw)
                same = (same and type(Ω2) is type(Ωb) and np.array_equal(Ω2, Ωb) and type(ΔΩ) is type(ΔΩb)
                        and np.asarray(ΔΩ).dtype == np.asarray(ΔΩb).dtype and np.array_equal(ΔΩ, ΔΩb))
                if not same:
                    failures.append((f.__name__, dtype, shape, kw))
                fast += pb.__name__ == f"{f.__name__}_pullback"     # the fast path's (the body's: reduction_pullback)
    assert not failures, failures
    assert fast == 57          # the fast path served every case (not vacuous)


def test_prod_fast_partials_are_the_body_bit_for_bit():
    from chainrules.rulesets.array_api import reductions as body
    failures = []
    for dtype in (np.float64, np.float32):
        for shape, axes in [((5,), (0,)), ((3, 4), (1,)), ((3, 4), (0, 1)), ((2, 3, 4), (0, 2)), ((1000,), (0,))]:
            x = _array(shape, dtype, lo=-1.5, hi=1.5)
            x[np.abs(x) < 0.1] = 0.5                   # no zero: the fast path
            fast, slow = body._prod_partials(np, x, axes), body._prod_partials_body(np, x, axes)
            with_Ω = body._prod_partials(np, x, axes, np.prod(x, axis=axes))
            if not (fast.dtype == slow.dtype == with_Ω.dtype and np.array_equal(fast, slow)
                    and np.array_equal(with_Ω, slow)):
                failures.append((dtype, shape, axes))
    assert not failures, failures


def test_max_min_fast_path_is_the_body_bit_for_bit():
    from chainrules.rulesets.array_api import reductions as body
    failures, fast = [], 0
    cases = [((7,), {}), ((3, 4), {"axis": 1}), ((3, 4), {"axis": 0, "keepdims": True}), ((2, 3, 4), {"axis": (2, 0)}),
             ((2, 3, 4), {}), ((), {})]
    for f, factory in [(np.max, body.max_rules), (np.min, body.min_rules)]:
        generic_frule, generic = factory(f, f.__name__, ("axis", "out", "keepdims", "initial", "where"))
        for dtype in (np.float64, np.float32, np.complex128):
            for shape, kw in cases:
                if dtype is np.complex128:
                    continue                                  # NumPy orders complex numbers lexicographically
                x = np.asarray(np.round(_array(shape, dtype) * 4) / 4)    # ties
                Ω, pb = cr.rrule(f, x, **kw)
                Ωb, pbb = generic(x, **kw)
                ȳ = np.asarray(RNG.normal(size=np.shape(Ω))).astype(dtype)
                Δx = _array(shape, dtype)
                (_, ΔΩ), (_, ΔΩb) = cr.frule((NoTangent(), Δx), f, x, **kw), generic_frule((NoTangent(), Δx), x, **kw)
                if not (type(ΔΩ) is type(ΔΩb) and np.asarray(ΔΩ).dtype == np.asarray(ΔΩb).dtype
                        and np.array_equal(ΔΩ, ΔΩb)):
                    failures.append(("frule", f.__name__, dtype, shape, kw))
                for seed in (ȳ, ȳ.astype(np.complex128)):
                    dx, dxb = pb(seed)[1], unthunk(pbb(seed)[1])
                    fast += isinstance(dx, InplaceableThunk)
                    dx = unthunk(dx)
                    if not (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb) and dx.dtype == dxb.dtype
                            and dx.shape == dxb.shape and np.array_equal(dx, dxb)):
                        failures.append((f.__name__, dtype, shape, kw, seed.dtype))
    assert not failures, failures
    assert fast == 48          # the fast path served every case (not vacuous)


def test_prod_var_std_fast_path_is_the_body_bit_for_bit():
    from chainrules.rulesets.array_api import reductions as body
    from chainrules.rulesets.numpy import reductions as nprules
    failures, fast = [], 0
    cases = [((7,), {}), ((3, 4), {"axis": 1}), ((3, 4), {"axis": 0, "keepdims": True, "ddof": 1}),
             ((2, 3, 4), {"axis": (2, 0)}), ((), {})]
    for f, factory in [(np.var, body.var_rules), (np.std, body.std_rules), (np.prod, body.prod_rules)]:
        _, generic = factory(f, f.__name__, nprules._VAR_ARGS if f is not np.prod else nprules._SUM_ARGS)
        for dtype in (np.float64, np.float32):
            for shape, kw in cases:
                if f is np.prod:
                    kw = {k: v for k, v in kw.items() if k != "ddof"}
                x = _array(shape, dtype)
                if shape == (3, 4):
                    x[0] = 1.0                                # a constant slice: std's zero cotangent
                    x[1, :2] = 0.0 if f is np.prod else x[1, :2]     # two zeros in a slice: prod's exact rule
                Ω, pb = cr.rrule(f, x, **kw)
                Ωb, pbb = generic(x, **kw)
                ȳ = np.asarray(RNG.normal(size=np.shape(Ω))).astype(dtype)
                with np.errstate(divide="ignore", invalid="ignore"):
                    dx, dxb = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
                fast += pb.__name__ == f"{f.__name__}_pullback"     # the fast path's (the body's: reduction_pullback)
                if not (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb) and dx.dtype == dxb.dtype
                        and dx.shape == dxb.shape and np.array_equal(dx, dxb, equal_nan=True)):
                    failures.append((f.__name__, dtype, shape, kw))
    assert not failures, failures
    assert fast == 30          # the fast path served every case (not vacuous)


def test_prod_over_every_axis_fast_path_is_the_body_bit_for_bit():
    """np.prod(x) of a float array: ȳ·(Ω/x) without a zero, the body's exact
    rule with one or two (and with signed zeros, infinities, NaN)."""
    from chainrules.rulesets.array_api import reductions as body
    _, generic = body.prod_rules(np.prod, "prod", ("axis", "dtype", "out", "keepdims", "initial", "where"))
    failures, fast = [], 0
    for dtype in (np.float64, np.float32):
        for x in ([0.5, -1.5, 2.0, 0.75], [0.5, 0.0, 2.0, 0.75], [0.0, -0.0, 2.0, 1.0], [[1.5, -2.0], [np.inf, 0.5]],
                  [1.5, np.nan, 0.25], [-0.0, 3.0]):
            x = np.asarray(x, dtype)
            Ω, pb = cr.rrule(np.prod, x)
            Ωb, pbb = generic(x)
            for ȳ in (np.asarray(-0.7, dtype), 1.25 if dtype is np.float64 else np.float32(1.25)):
                with np.errstate(divide="ignore", invalid="ignore"):
                    dx, dxb = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
                if not (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb, equal_nan=True) and type(dx) is type(dxb)
                        and dx.dtype == dxb.dtype and dx.shape == dxb.shape and np.array_equal(dx, dxb, equal_nan=True)):
                    failures.append((dtype, x.tolist(), ȳ))
            fast += pb.__name__ == "prod_pullback"
    assert not failures, failures
    assert fast == 12


def test_linear_fast_path_on_traced_arrays_is_the_body_bit_for_bit():
    """np.sum's and np.mean's fast path serves a real array traced by an
    enclosing differentiation (ad.hvp's inner gradient): Ω and the cotangent
    of a plain seed are the body's (reached here by dtype=None, an option the
    fast path leaves to it)."""
    from chainrules import ad
    from chainrules.ad.config import REVERSE
    x0, v0 = np.arange(1.0, 7.0).reshape(2, 3), np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    served = []

    def parts(v):
        v = cr.unthunk(v)
        return (v,) if isinstance(v, (np.ndarray, float, np.floating)) else (v.primal, v.tangent)

    def inside(z):
        for f in (np.sum, np.mean):
            for kw in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}):
                Ω, pb = cr.rrule(REVERSE, f, z, **kw)
                Ωb, pbb = cr.rrule(REVERSE, f, z, dtype=None, **kw)
                assert all(np.array_equal(a, b) for a, b in zip(parts(Ω), parts(Ωb)))
                seed = np.ones(np.shape(parts(Ω)[0])) * 2.0
                for ȳ in (seed, 2.0) if not kw else (seed,):
                    g, gb = pb(ȳ)[1], pbb(ȳ)[1]
                    assert all(np.array_equal(a, b) for a, b in zip(parts(g), parts(gb))), (f, kw)
                served.append(pb.__name__)
        return z

    ad.jvp(inside, (x0,), (v0,))
    assert served == [f"{n}_pullback" for n in ("sum", "mean") for _ in range(3)]   # the fast path's


def test_prod_over_one_axis_fast_path_is_the_body_bit_for_bit():
    """np.prod(x, axis=k) of a float array without a zero (`_prod_fast`):
    ȳ·(Ω/x), the body's numbers, whatever the seed (a number, a NumPy
    scalar, an array); with a zero, a tuple of axes or an option, the body's
    own path."""
    from chainrules.rulesets.array_api import reductions as body
    _, generic = body.prod_rules(np.prod, "prod", ("axis", "dtype", "out", "keepdims", "initial", "where"))
    failures, fast = [], 0
    cases = [((7,), {}), ((7,), {"axis": 0}), ((7,), {"axis": -1, "keepdims": True}), ((3, 4), {"axis": 1}),
             ((3, 4), {"axis": -2}), ((3, 4), {"axis": 0, "keepdims": True}), ((2, 3, 4), {"axis": 1}),
             ((2, 3, 4), {"keepdims": True}), ((0, 3), {"axis": 0}), ((2, 3), {"axis": (0, 1)}), ((), {})]
    for dtype in (np.float64, np.float32):
        for shape, kw in cases:
            with_zeros = _array(shape, dtype) * (np.arange(int(np.prod(shape))) % 5 != 2).reshape(shape)
            for x in (_array(shape, dtype, lo=-1.5, hi=-0.5), np.asarray(with_zeros, dtype)):
                Ω, pb = cr.rrule(np.prod, x, **kw)
                Ωb, pbb = generic(x, **kw)
                g = np.asarray(RNG.normal(size=np.shape(Ω))).astype(dtype)
                for ȳ in (g, g[()] if g.ndim == 0 else g, float(g) if g.ndim == 0 and dtype is np.float64 else g):
                    dx, dxb = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
                    if not (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb) and type(dx) is type(dxb)
                            and dx.dtype == dxb.dtype and dx.shape == dxb.shape and np.array_equal(dx, dxb)):
                        failures.append((dtype, shape, kw, x.tolist(), type(ȳ)))
                fast += "kept" in pb.__code__.co_freevars         # `_prod_fast`'s pullback
    assert not failures, failures
    assert fast == 20          # the fast path served every case without a zero, an axis tuple or a 0-d x


def test_prod_fast_path_on_a_large_array_checks_the_product_not_the_zeros():
    """Above `_SMALL` elements the fast path tells a zero by the product
    (0, or NaN beside an inf) instead of counting: the body's numbers without a
    zero, the body's own path with one."""
    from chainrules.rulesets.array_api import reductions as body
    from chainrules.rulesets.numpy._reductions_fast import _SMALL
    _, generic = body.prod_rules(np.prod, "prod", ("axis", "dtype", "out", "keepdims", "initial", "where"))
    x = np.asarray(RNG.uniform(0.999, 1.001, size=(8, _SMALL // 4)))
    for point in (x, np.where(np.arange(x.size).reshape(x.shape) == 77, 0.0, x),
                  np.where(np.arange(x.size).reshape(x.shape) == 5, np.inf, x)):
        for kw in ({"axis": 1}, {"axis": 0, "keepdims": True}, {}):
            Ω, pb = cr.rrule(np.prod, point, **kw)
            Ωb, pbb = generic(point, **kw)
            ȳ = np.asarray(RNG.normal(size=np.shape(Ω)))
            dx, dxb = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
            assert np.array_equal(Ω, Ωb, equal_nan=True) and np.array_equal(dx, dxb, equal_nan=True), kw
            fast = "kept" in pb.__code__.co_freevars
            assert fast == (point is x), (kw, fast)
