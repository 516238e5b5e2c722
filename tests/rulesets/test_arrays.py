"""The helpers shared by the array rules (chainrules/rulesets/_arrays.py):
unbroadcast, reject_out, normalize_axes, unreduce, named_rule, methods."""

import types

import numpy as np
import pytest

from chainrules import NoTangent, Thunk, ZeroTangent
from chainrules.rulesets import _arrays
from chainrules.rulesets._arrays import methods, named_rule, normalize_axes, reject_out, unbroadcast, unreduce


@pytest.mark.parametrize("xshape,dshape", [((3,), (3,)), ((3, 1), (3, 4)), ((4,), (3, 4)), ((), (2, 3)),
                                           ((1, 4), (2, 3, 4)), ((2, 1, 1), (2, 3, 4)), ((0,), (5, 0))],
                         ids=str)
def test_unbroadcast_sums_back_to_the_input_shape(xshape, dshape):
    dx = np.arange(float(np.prod(dshape))).reshape(dshape)
    out = unbroadcast(np.ones(xshape), dx)
    assert np.shape(out) == xshape
    # the adjoint of broadcasting: <broadcast(v), dx> = <v, unbroadcast(dx)>
    v = np.linspace(1, 2, int(np.prod(xshape))).reshape(xshape)
    assert np.isclose(np.sum(np.broadcast_to(v, dshape) * dx), np.sum(v * out))


def test_unbroadcast_accepts_scalars_shapes_thunks_and_zeros():
    assert unbroadcast(2.0, np.ones((2, 3))) == 6.0
    assert unbroadcast((3,), np.ones((2, 3))).shape == (3,)
    assert np.array_equal(unbroadcast(np.ones(2), Thunk(lambda: np.ones((3, 2)))), [3.0, 3.0])
    assert unbroadcast(np.ones(2), ZeroTangent()) is ZeroTangent()
    assert unbroadcast(np.ones(2), NoTangent()) is NoTangent()
    same = np.ones(3)
    assert unbroadcast(np.zeros(3), same) is same          # nothing to do: no copy
    # a smaller cotangent (a scalar seed) is spread over the input
    assert unbroadcast(np.ones((2, 2)), 1.5).shape == (2, 2)


def test_methods_keeps_only_the_callable_ndarray_attributes(monkeypatch):
    # NumPy 2.0-2.3 keep the removed `ndarray.ptp` as a getset descriptor that
    # raises when read from an array; registering it broke `import chainrules`.
    class Removed:
        def __get__(self, obj, cls=None):
            if obj is None:
                return self
            raise AttributeError("`ptp` was removed from the ndarray class")

    class FakeNdarray:
        sum = np.ndarray.sum
        ptp = Removed()

    monkeypatch.setattr(_arrays, "np", types.SimpleNamespace(ndarray=FakeNdarray))
    assert methods("sum", "ptp", "no_such_method") == [np.ndarray.sum]


def test_methods_on_this_numpy_are_callable():
    found = methods("sum", "ptp", "max", "cumsum")
    assert found and all(callable(m) for m in found)


def test_reject_out_names_the_argument():
    reject_out("f", {"out": None, "axis": 1})
    with pytest.raises(TypeError, match="f: .*out="):
        reject_out("f", {"out": np.empty(2)})
    with pytest.raises(TypeError, match="g: .*where="):
        reject_out("g", {"where": np.ones(2, bool)}, "where")


def test_normalize_axes():
    assert normalize_axes(None, 3) == (0, 1, 2)
    assert normalize_axes(-1, 3) == (2,)
    assert normalize_axes((2, -3), 3) == (0, 2)
    assert normalize_axes(np.intp(1), 2) == (1,)
    assert normalize_axes((), 2) == ()
    assert normalize_axes(None, 0) == ()


@pytest.mark.parametrize("keepdims", [False, True])
def test_unreduce_spreads_a_reduced_cotangent_as_a_read_only_view(keepdims):
    x = np.ones((2, 3, 4))
    dy = np.sum(np.arange(24.0).reshape(2, 3, 4), axis=(0, 2), keepdims=keepdims)
    out = unreduce(dy, x.shape, (0, 2), keepdims)
    assert out.shape == x.shape and not out.flags.writeable
    assert np.array_equal(out[1, :, 3], np.ravel(dy))
    f32 = unreduce(dy + 1j, x.shape, (0, 2), keepdims, np.dtype(np.float32))
    assert f32.dtype == np.float32 and np.array_equal(f32[0, :, 0], np.ravel(dy))
    assert unreduce(2.0, (), (), False).shape == ()


def test_named_rule_renames_the_rule_and_its_pullback():
    def make():
        def unary_rrule(x):
            def unary_pullback(ȳ):
                raise RuntimeError("boom")
            return x, unary_pullback
        return unary_rrule
    rule = named_rule(make(), "sin")
    assert rule.__name__ == "sin_rrule"
    _, pb = rule(1.0)
    assert pb.__name__ == "sin_pullback"
    with pytest.raises(RuntimeError) as info:
        pb(1.0)
    assert info.traceback[-1].name == "sin_pullback"


# ----- ndarray subclasses: rule bodies compute element-wise (issue 11, item 3) ---------
# np.matrix's * is a matrix product and its reductions stay 2-D.  A subclass
# input or seed must give the plain-array answer, as a plain ndarray of the
# primal's dtype and shape (what ProjectTo gives).

import chainrules as cr  # noqa: E402
import chainrules.testing  # noqa: E402,F401
from chainrules.rulesets.numpy.ufuncs import UNARY_DERIVS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")

_RNG = np.random.default_rng(11)
_A = _RNG.uniform(0.2, 0.8, (4, 4))
_B = _RNG.uniform(0.2, 0.8, (4, 4))
_S = _RNG.uniform(-1.0, 1.0, (4, 4))


def _cotangents(f, args, s, kwargs=None):
    _, pb = cr.rrule(f, *args, **(kwargs or {}))
    return [cr.unthunk(c) for c in pb(s)]


def _assert_plain_and_close(got, want):
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            assert type(g) is np.ndarray, f"a {type(g).__name__} cotangent, not a plain ndarray"
            assert g.dtype == w.dtype
            np.testing.assert_allclose(np.reshape(g, w.shape), w, rtol=1e-12, atol=1e-12)


_SUBCLASS_CASES = (
    [(f, (_A,), {}) for f in UNARY_DERIVS if f not in (np.arccosh,)]
    + [(f, (_A,), {}) for f in (np.abs, np.sign, np.negative, np.conjugate, np.real, np.imag, np.angle,
                                np.deg2rad, np.nan_to_num, np.floor)]
    + [(f, (_A, _B), {}) for f in (np.multiply, np.add, np.subtract, np.divide, np.power, np.maximum,
                                   np.arctan2, np.hypot, np.logaddexp, np.fmod, np.copysign)]
    + [(f, (_A,), kw) for f in (np.sum, np.mean, np.prod, np.max, np.var, np.std, np.nanmean)
       for kw in ({}, {"axis": 0})]
    + [(f, (_A, _B), {}) for f in (np.dot, np.matmul, np.inner, np.outer, np.linalg.solve)]
    + [(f, (_A + 4 * np.eye(4),), {}) for f in (np.linalg.inv, np.linalg.det, np.trace, np.transpose,
                                                np.linalg.norm)]
)


def _case_id(case):
    f, args, kw = case
    return f"{f.__name__}{'-' + str(kw) if kw else ''}"


@pytest.mark.parametrize("case", _SUBCLASS_CASES, ids=_case_id)
def test_a_matrix_input_gives_the_plain_array_cotangent(case):
    f, args, kw = case
    Ω = f(*args, **kw)
    s = _RNG.uniform(-1.0, 1.0, np.shape(Ω)) if np.ndim(Ω) else 0.7
    want = _cotangents(f, args, s, kw)
    margs = (np.asmatrix(args[0]),) + args[1:]
    Ωm, pb = cr.rrule(f, *margs, **kw)
    np.testing.assert_allclose(np.asarray(Ωm).reshape(np.shape(Ω)), Ω)
    got = [cr.unthunk(c) for c in pb(np.reshape(s, np.shape(Ωm)) if np.ndim(Ωm) else s)]
    _assert_plain_and_close(got, want)


@pytest.mark.parametrize("case", [c for c in _SUBCLASS_CASES if np.ndim(c[0](*c[1], **c[2])) == 2],
                         ids=_case_id)
def test_a_matrix_seed_gives_the_plain_array_cotangent(case):
    f, args, kw = case
    s = _RNG.uniform(-1.0, 1.0, np.shape(f(*args, **kw)))
    _assert_plain_and_close(_cotangents(f, args, np.asmatrix(s), kw), _cotangents(f, args, s, kw))
    _assert_plain_and_close(_cotangents(f, args, cr.Thunk(lambda: np.asmatrix(s)), kw),
                            _cotangents(f, args, s, kw))


@pytest.mark.parametrize("case", _SUBCLASS_CASES, ids=_case_id)
def test_frules_with_a_matrix_input_or_tangent_give_the_plain_array_tangent(case):
    f, args, kw = case
    tangents = (cr.NoTangent(),) + tuple(_RNG.uniform(-1.0, 1.0, np.shape(a)) for a in args)
    Ω, want = cr.frule(tangents, f, *args, **kw)
    want = cr.unthunk(want)
    for margs, mtangents in [((np.asmatrix(args[0]),) + args[1:], tangents),
                             (args, (tangents[0], np.asmatrix(tangents[1])) + tangents[2:])]:
        _, got = cr.frule(mtangents, f, *margs, **kw)
        got = cr.unthunk(got)
        if isinstance(want, cr.AbstractZero):
            assert isinstance(got, cr.AbstractZero)
            continue
        assert not isinstance(got, np.matrix), f"{f.__name__}: a np.matrix tangent"
        np.testing.assert_allclose(np.reshape(np.asarray(got), np.shape(want)), want, rtol=1e-12, atol=1e-12)


def test_projectto_gives_a_plain_ndarray_for_a_subclass():
    M = np.asmatrix(np.ones((2, 2), np.float32))
    out = cr.ProjectTo(M)(np.asmatrix(np.full((2, 2), 2.0)))
    assert type(out) is np.ndarray and out.dtype == np.float32 and out.shape == (2, 2)
    assert type(cr.ProjectTo(np.ones((2, 2)))(M)) is np.ndarray


def test_the_testing_kit_passes_on_a_matrix_input():
    from chainrules.testing import test_frule, test_rrule
    M = np.asmatrix(_A)
    test_rrule(np.sin, M)
    test_frule(np.sin, M)
    test_rrule(np.multiply, M, _B)


# ----- seeds that are not tangents (issue 11, item 4) --------------------------------

def _simple_calls():
    """(f, args) for every registered function whose rrule runs at a simple
    float array (or, failing that, a float) and returns a pullback; the rules
    of scipy.special are registered first, so that what this module collects
    does not depend on which test module imported SciPy before it."""
    import warnings
    try:
        import scipy.special  # noqa: F401
    except ImportError:
        pass
    calls = []
    for f in cr._core._registered_functions():
        for args in [(_A + 4 * np.eye(4),), (_A, _B), (0.5,), (0.5, 0.25)]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = cr.rrule(f, *args)
            except Exception:  # noqa: BLE001 - not callable this way: try the next inputs
                continue
            if res is not None:
                calls.append((f, args))
                break
    return calls


_CALLS = _simple_calls()


def test_the_none_seed_check_reaches_many_rules():
    assert len(_CALLS) > 250


@pytest.mark.parametrize("bad", [None, "s", object()], ids=["None", "str", "object"])
@pytest.mark.parametrize("call", _CALLS, ids=lambda c: f"{getattr(c[0], '__qualname__', c[0])}{len(c[1])}")
def test_a_seed_that_is_not_a_tangent_is_a_typeerror_naming_the_function(call, bad):
    f, args = call
    _, pb = cr.rrule(f, *args)
    with pytest.raises(TypeError, match=r"pullback of [\w.]+: seed must be a tangent"):
        pb(bad)


@pytest.mark.parametrize("f", [np.sum, np.max, np.trace, np.sin, np.multiply, np.dot, np.linalg.inv, np.cumsum,
                               np.transpose, np.linalg.norm, np.mean, np.std, np.fft.fft],
                         ids=lambda f: f.__name__)
def test_the_seed_error_names_the_function(f):
    call = next(c for c in _CALLS if c[0] is f)
    _, pb = cr.rrule(call[0], *call[1])
    with pytest.raises(TypeError, match=rf"pullback of (numpy\.)?{f.__name__}: seed must be a tangent .*got None"):
        pb(None)


@pytest.mark.parametrize("f,args", [(np.sum, (_A,)), (np.max, (_A,)), (np.trace, (_A,)), (np.sin, (_A,)),
                                    (np.multiply, (_A, _B)), (np.dot, (_A, _B)), (np.linalg.inv, (_A,))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_zero_seeds_still_give_zero_cotangents(f, args):
    for z in (cr.ZeroTangent(), cr.NoTangent()):
        _, pb = cr.rrule(f, *args)
        assert all(isinstance(c, cr.AbstractZero) for c in pb(z))


def test_the_seed_helper():
    from chainrules.rulesets._arrays import seed
    a = np.ones(2)
    assert seed(a, "f") is a
    assert type(seed(np.asmatrix(np.ones((2, 2))), "f")) is np.ndarray
    assert seed(Thunk(lambda: 2.0), "f") == 2.0
    assert seed(ZeroTangent(), "f") is ZeroTangent()
    with pytest.raises(TypeError, match=r"pullback of numpy\.sum: seed must be a tangent .*got None"):
        seed(None, "numpy.sum")
    with pytest.raises(TypeError, match="got a str"):
        seed(Thunk(lambda: "s"), "f")


# ----- np.matrix through reductions: the matrix's result, the arrays' derivative -----------

def test_cumsum_and_cumprod_of_a_matrix_without_axis_are_differentiated_as_its_array():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    for f, want in ((np.cumsum, [[4.0, 3.0], [2.0, 1.0]]),
                    (np.cumprod, [[33.0, 16.0], [10.0, 6.0]])):
        y, pb = cr.rrule(f, m)
        assert type(y) is np.matrix and np.array_equal(y, f(m))      # NumPy's own result
        x̄ = cr.unthunk(pb(np.ones(y.shape))[1])
        assert type(x̄) is np.ndarray
        np.testing.assert_allclose(x̄, want)
        Ω, ẏ = cr.frule((cr.NoTangent(), np.ones((2, 2))), f, m)
        assert np.shape(ẏ) == np.shape(Ω) == (1, 4)
        cr.testing.test_rrule(f, np.asarray(m))                       # the arrays' rule is right


def test_a_reduction_whose_matrix_result_differs_from_the_arrays_is_refused():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    calls = [lambda: cr.rrule(np.median, m), lambda: cr.frule((cr.NoTangent(), np.ones((2, 2))), np.median, m)]
    try:
        np.quantile(m, 0.5)
    except ValueError:                  # NumPy 2.0 itself fails on a matrix: the rule fails as the primal does
        with pytest.raises(ValueError, match="not aligned"):
            cr.rrule(np.quantile, m, 0.5)
    else:
        calls.append(lambda: cr.rrule(np.quantile, m, 0.5))
    for call in calls:
        with pytest.raises(TypeError, match=r"numpy\.(median|quantile): NumPy computes another "
                                            r"result for np.matrix arguments"):
            call()
    y, pb = cr.rrule(np.sum, m, 0)                     # the same numbers: fine, matrix-shaped Ω
    assert type(y) is np.matrix
    np.testing.assert_allclose(cr.unthunk(pb(np.ones((1, 2)))[1]), np.ones((2, 2)))


# ----- scatter_traced: the adjoint of a gather on tracked cotangents ------------------------------

def _scatter_reference(shape, index, v):
    out = np.zeros(shape)
    np.add.at(out, index, v)
    return out


@pytest.mark.parametrize("shape, index", [
    ((5,), np.array([0, 2, 2, 4, 2])),                      # repeats accumulate
    ((3, 4), (slice(None), 1)),                             # a slice: each position once
    ((3, 4), np.array([[0, 1], [2, 2]])),
    ((2, 3), (np.array([0, 1, 1]), np.array([2, 0, 0]))),
    ((6,), np.array([], dtype=int)),
], ids=["repeats", "slice", "rows", "pairs", "empty"])
def test_scatter_traced_is_scatter_add_and_differentiable(shape, index):
    from chainrules import ad
    from chainrules.finite_differences import central_fdm
    rng = np.random.default_rng(3)
    vshape = np.arange(int(np.prod(shape))).reshape(shape)[index].shape
    v0, dv = rng.standard_normal(vshape), rng.standard_normal(vshape)
    out, d = ad.jvp(lambda v: _arrays.scatter_traced(shape, np.dtype(float), index, v), (v0,), (dv,))
    assert np.allclose(out, _scatter_reference(shape, index, v0))
    fd = central_fdm(5, 1)(lambda t: _scatter_reference(shape, index, v0 + t * dv), 0.0)
    assert np.allclose(d, fd)
    # and differentiated at order 2: getitem's pullback on a tracked cotangent
    if vshape and np.size(v0):
        x = rng.standard_normal(shape)
        h = ad.hvp(lambda x: np.sum(np.sin(x[index]) ** 2), x, np.ones(shape))
        g = lambda x: ad.gradient(lambda y: np.sum(np.sin(y[index]) ** 2), x)  # noqa: E731
        assert np.allclose(h, central_fdm(5, 1)(lambda t: g(x + t), 0.0), atol=1e-7)


@pytest.mark.parametrize("repeats", [False, True], ids=["permutation", "repeats"])
def test_scatter_traced_at_a_size_the_one_hot_matrix_could_not_take(repeats):
    """n = m = 20000: the former n×m one-hot matrix took 3.2 GB; the gather
    takes O(n + m).  A second derivative through x[idx] runs it."""
    from chainrules import ad
    n = 20000
    rng = np.random.default_rng(4)
    idx = rng.integers(0, n, n) if repeats else rng.permutation(n)
    x, v = rng.standard_normal(n), rng.standard_normal(n)
    h = ad.hvp(lambda x: np.sum(np.sin(x[idx])), x, v)
    assert np.allclose(h, -np.sin(x) * np.bincount(idx, minlength=n) * v)
