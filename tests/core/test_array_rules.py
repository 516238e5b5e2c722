"""The compiled array rules (_core/array_rules.pxi, array_frules.pxi): the unary ufunc fast paths
(rrule and frule) must give what the Python rules they fall back to give, for
every dtype, shape and kind of seed or tangent, and so must the arithmetic ones;
getitem scatters back and accumulates repeated indices."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import InplaceableThunk, NoTangent, ZeroTangent, unthunk
from chainrules._core import _BinaryFrule, _BinaryPullback, _BinaryRrule, _UnaryFrule, _UnaryPullback, _UnaryRrule
from chainrules.rulesets.numpy import ufuncs as U
from chainrules.rulesets.numpy import ufuncs_binary as UB
from chainrules.testing import PrimalAndTangent, test_rrule

RNG = np.random.default_rng(11)
# one function per derivative mode: deriv(x, Ω), a ufunc of x, Ω itself
FUNCTIONS = [np.tan, np.sin, np.cosh, np.exp, np.log]


def _rule(f):
    rule = U._unary_rules[f][1]
    assert isinstance(rule, _UnaryRrule)
    return rule


def _array(shape, dtype):
    x = RNG.uniform(0.2, 0.8, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(0.2, 0.8, shape)
    return np.asarray(x, dtype=dtype)


def _agree(f, x, ȳ):
    """Compiled rule and Python fallback: same output, same cotangent (dtype too)."""
    rule = _rule(f)
    Ω, pb = rule(x)
    Ω0, pb0 = rule.fallback(x)
    assert isinstance(pb, _UnaryPullback)
    np.testing.assert_array_equal(Ω, Ω0)
    c, c0 = pb(ȳ), pb0(ȳ)
    assert c[0] is NoTangent() and c0[0] is NoTangent()
    a, b = unthunk(c[1]), unthunk(c0[1])
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-6)
    return a


def test_the_table_uses_each_mode():
    assert {_rule(f).mode for f in FUNCTIONS} == {0, 1, 2}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_agrees_with_the_python_rule(f, shape, dtype):
    x = _array(shape, dtype)
    ȳ = _array(np.shape(f(x)), dtype)
    x̄ = _agree(f, x, ȳ)
    assert x̄.dtype == x.dtype


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_finite_differences(f):
    test_rrule(f, _array((2, 3), np.float64))
    test_rrule(f, _array((3,), np.complex128))
    test_rrule(f, _array((), np.float64))


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_seeds_that_are_not_arrays_of_the_same_kind(f):
    x = _array((2, 3), np.float64)
    _agree(f, x, 2.0)                                   # a scalar seed spreads
    _agree(f, x, np.ones(3))                            # so does a broadcastable one
    _agree(f, x, cr.Thunk(lambda: np.ones((2, 3))))     # thunks are unthunked
    _agree(f, x, np.ones((2, 3), np.float32))           # projected to float64
    _agree(f, x, np.ones((2, 3)) + 1j)                  # real part for a real x
    _agree(f, _array((2, 3), np.float32), np.ones((2, 3)))  # float32 x keeps float32
    assert _rule(f)(x)[1](ZeroTangent()) == (NoTangent(), ZeroTangent())
    assert _rule(f)(x)[1](NoTangent()) == (NoTangent(), ZeroTangent())


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_dtypes_that_are_not_the_native_singletons(f):
    # a byte-swapped float64 is a float dtype that is not np.dtype(np.float64):
    # the fast path tells it by its kind, and the cotangent keeps x's dtype
    x = _array((2, 3), np.float64).astype(">f8")
    a = _agree(f, x, np.ones((2, 3)))
    assert a.dtype == x.dtype
    _agree(f, x, np.ones((2, 3), ">f8"))
    _agree(f, _array((3,), np.complex128).astype(">c16"), np.ones(3))
    test_rrule(f, x)


def test_a_seed_that_does_not_fit_names_the_function_and_shapes():
    _, pb = cr.rrule(np.exp, np.ones(3))
    with pytest.raises(ValueError, match=r"pullback of exp: .*\(4,\).*\(3,\)"):
        pb(np.ones(4))


def test_integer_and_boolean_inputs_have_no_tangent():
    for x in (np.arange(3), np.array([True, False])):
        _, pb = cr.rrule(np.sin, x)
        assert pb(np.ones(3)) == (NoTangent(), NoTangent())


def test_other_calls_fall_back_to_the_python_rule():
    # kwargs, scalars, lists, ndarray subclasses: the fallback's results
    Ω, pb = cr.rrule(np.exp, np.ones(3), dtype=np.float64)
    assert not isinstance(pb, _UnaryPullback)
    _, pb = cr.rrule(np.exp, [0.1, 0.2])
    assert not isinstance(pb, _UnaryPullback)
    m = np.ones(3).view(np.ma.MaskedArray)
    _, pb = _rule(np.exp)(m)
    assert not isinstance(pb, _UnaryPullback)
    with pytest.raises(TypeError, match="where="):
        cr.rrule(np.exp, np.ones(3), where=np.ones(3, bool))


def test_names_and_a_bad_mode():
    rule = _rule(np.sin)
    assert rule.__name__ == "sin_rrule" and "sin" in repr(rule)
    _, pb = rule(np.ones(2))
    assert pb.__name__ == "sin_pullback" and "sin" in repr(pb)
    with pytest.raises(ValueError, match="mode"):
        _UnaryRrule(np.sin, np.cos, 3, "sin", rule.fallback)


# ----- add, subtract, multiply, divide ----------------------------------------

ARITHMETIC = [np.add, np.subtract, np.multiply, np.divide]
PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((3, 1), (4,)), ((1, 3), (2, 1)), ((), (3,)), ((0, 2), (2,)),
         ((), ())]


def _binary_agree(f, x, y, ȳ):
    """Compiled rule and Python fallback: same output, same cotangents (dtypes too)."""
    rule = UB._binary_rules[f][1]
    assert isinstance(rule, _BinaryRrule)
    Ω, pb = rule(x, y)
    Ω0, pb0 = rule.fallback(x, y)
    np.testing.assert_array_equal(Ω, Ω0)
    c, c0 = pb(ȳ), pb0(ȳ)
    assert c[0] is NoTangent() and c0[0] is NoTangent()
    for a, b, primal in zip(c[1:], c0[1:], (x, y)):
        a, b = unthunk(a), unthunk(b)
        assert type(a) is type(b)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype == primal.dtype and a.shape == b.shape == primal.shape
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float32), (np.float32, np.float64),
                                    (np.float64, np.complex128), (np.complex64, np.complex64)],
                         ids=lambda d: "-".join(np.dtype(t).name for t in d))
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("f", ARITHMETIC, ids=lambda f: f.__name__)
def test_arithmetic_agrees_with_the_python_rule(f, shapes, dtypes):
    x, y = _array(shapes[0], dtypes[0]), _array(shapes[1], dtypes[1])
    Ω = f(x, y)
    ȳ = _array(np.shape(Ω), np.result_type(*dtypes))
    _binary_agree(f, x, y, ȳ)
    _binary_agree(f, x, y, cr.Thunk(lambda: ȳ))
    _binary_agree(f, x, y, np.real(ȳ).astype(np.float32))   # projected to each input's dtype
    _binary_agree(f, x, y, ȳ + 1j)                          # real part for a real input


@pytest.mark.parametrize("f", ARITHMETIC, ids=lambda f: f.__name__)
def test_arithmetic_finite_differences_and_odd_seeds(f):
    x, y = _array((3, 1), np.float64), _array((4,), np.float64)
    test_rrule(f, x, y)
    test_rrule(f, _array((2, 2), np.complex128), _array((2,), np.complex128))
    test_rrule(f, _array((3,), np.float32), _array((3,), np.float32))
    test_rrule(f, x.astype(">f8"), y)                        # a dtype that is not the native singleton
    _binary_agree(f, x, y, 2.0)                             # a scalar seed spreads: the Python pullback
    _binary_agree(f, x, y, np.ones(4))                      # so does a smaller array
    _, pb = cr.rrule(f, x, y)
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent())
    with pytest.raises(ValueError, match=rf"{f.__name__}.*\(5,\).*\(3, 4\)"):
        pb(np.ones(5))
    with pytest.raises(TypeError, match=f"pullback of {f.__name__}: takes one cotangent"):
        pb(np.ones((3, 4)), 1)
    assert pb.__name__ == f"{f.__name__}_pullback" and f.__name__ in repr(pb)


def test_arithmetic_falls_back_for_other_calls():
    x = _array((3,), np.float64)
    for args, kwargs in [((x, 2.0), {}), ((2.0, x), {}), ((x, np.arange(3)), {}), ((x, [1.0, 2.0, 3.0]), {}),
                         ((x, x), {"dtype": np.float64}), ((np.ma.MaskedArray(x), x), {})]:
        Ω, pb = cr.rrule(np.multiply, *args, **kwargs)
        assert not isinstance(pb, _BinaryPullback)
        np.testing.assert_allclose(np.asarray(Ω), np.multiply(*args, **kwargs))
    _, pb = cr.rrule(np.multiply, np.array(2.0), np.array(3.0))     # 0-d: a NumPy scalar output
    assert not isinstance(pb, _BinaryPullback)
    assert np.allclose(unthunk(pb(1.0)[1]), 3.0)
    rule = UB._binary_rules[np.multiply][1]
    assert rule.__name__ == "multiply_rrule" and "multiply" in repr(rule)
    with pytest.raises(ValueError, match="op must be"):
        _BinaryRrule(np.multiply, 7, "multiply", rule.fallback, rule.slow)


def test_unbroadcast_is_one_compiled_helper():
    from chainrules.rulesets import _arrays
    assert _arrays.unbroadcast is cr._core.unbroadcast
    dx = np.ones((2, 3, 4))
    np.testing.assert_array_equal(_arrays.unbroadcast(np.ones((3, 1)), dx), np.full((3, 1), 8.0))
    np.testing.assert_array_equal(_arrays.unbroadcast((4,), dx), np.full(4, 6.0))
    np.testing.assert_array_equal(_arrays.unbroadcast(2.0, dx), np.array(24.0))
    np.testing.assert_array_equal(_arrays.unbroadcast(np.ones((2, 3)), np.ones(3)), np.ones((2, 3)))
    same = np.ones(3)
    assert _arrays.unbroadcast(np.zeros(3), same) is same
    assert _arrays.unbroadcast(np.ones(3), ZeroTangent()) == ZeroTangent()
    np.testing.assert_array_equal(_arrays.unbroadcast(np.ones(3), cr.Thunk(lambda: np.ones((2, 3)))), [2, 2, 2])
    np.testing.assert_array_equal(_arrays.unbroadcast([[1.0], [2.0]], [[1.0, 2.0], [3.0, 4.0]]), [[3.0], [7.0]])


@pytest.mark.parametrize("v, shape", [
    (np.array(2.0), (3, 4)), (np.arange(3.0), (2, 3)), (np.arange(6.0).reshape(2, 3)[:, ::2][:, :1], (4, 2, 2)),
    (np.ones((3, 1), np.float32), (3, 5)), (np.ones(3), (0, 3)), (np.ones((1, 0)), (2, 0)), (np.ones(3), (3,)),
    (np.arange(4.0).reshape(2, 2).T, (3, 2, 2)), (np.ones(2, complex), (1, 2)),
], ids=str)
def test_broadcast_view_is_np_broadcast_to(v, shape):
    from chainrules._core import broadcast_view
    b, ref = broadcast_view(v, shape), np.broadcast_to(v, shape)
    assert type(b) is np.ndarray and b.shape == ref.shape and b.strides == ref.strides and b.dtype == v.dtype
    assert not b.flags.writeable and b.flags.aligned and b.flags.c_contiguous == ref.flags.c_contiguous
    np.testing.assert_array_equal(b, ref)
    assert b.base is not None and (np.shares_memory(b, v) or b.size == 0)


def test_broadcast_view_keeps_its_base_alive_and_falls_back():
    import gc
    from chainrules._core import broadcast_view
    b = broadcast_view(np.arange(3.0) * 2, (4, 3))         # the only reference to the base is the view's
    gc.collect()
    np.testing.assert_array_equal(b, [[0, 2, 4]] * 4)
    np.testing.assert_array_equal(broadcast_view([1.0, 2.0], (2, 2)), [[1, 2], [1, 2]])  # not an ndarray
    np.testing.assert_array_equal(broadcast_view(np.ones(2), [3, 2]), np.ones((3, 2)))   # a list shape
    np.testing.assert_array_equal(broadcast_view(np.ones(2), (np.int64(3), 2)), np.ones((3, 2)))
    for v, shape in [(np.ones(3), (4,)), (np.ones((2, 3)), (3,)), (np.ones(3), (-1, 3)), (np.ones(2), (2.0,))]:
        with pytest.raises((ValueError, TypeError)):
            broadcast_view(v, shape)


# ----- getitem --------------------------------------------------------------

INDICES = [slice(None, None, 2), 1, (1, slice(None)), (Ellipsis, 0), np.array([0, 0, 2]), [1, 1],
           (np.array([0, 1]), np.array([2, 2])), np.array([True, False, True]), (None, 1), np.int64(2)]


def _may_repeat(idx):
    """Integer arrays or lists among the index: an element may be named twice."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, (np.ndarray, list)) and np.asarray(i).dtype.kind in "iu" for i in parts)


@pytest.mark.parametrize("shape", [(3, 4), (3, 400)], ids=["small", "large"])
@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_getitem_scatters_and_accumulates(idx, shape):
    x = _array(shape, np.float64)
    Ω, pb = cr.rrule(operator.getitem, x, idx)
    np.testing.assert_array_equal(Ω, x[idx])
    ȳ = RNG.standard_normal(np.shape(Ω))
    _, dx, didx = pb(cr.Thunk(lambda: ȳ))
    assert didx is NoTangent()
    # Thunk only what is expensive: a small cotangent without repeated indices
    # is dense; a large one, or one whose indices may repeat, can be added in place.
    if x.size > 1024 or _may_repeat(idx):
        assert isinstance(dx, InplaceableThunk)
    else:
        assert type(dx) is np.ndarray
    expected = np.zeros_like(x)
    np.add.at(expected, idx, ȳ)
    np.testing.assert_allclose(unthunk(dx), expected)
    acc = np.ones_like(x)
    assert cr.add_inplace(acc, dx) is acc
    np.testing.assert_allclose(acc, 1 + expected)
    test_rrule(operator.getitem, x, PrimalAndTangent(idx, NoTangent()))


def test_getitem_dtypes_zeros_and_integers():
    x = _array((4,), np.float32)
    _, pb = cr.rrule(operator.getitem, x, slice(1, 3))
    assert unthunk(pb(np.ones(2) + 1j)[1]).dtype == np.float32        # real part, float32 kept
    z = _array((4,), np.complex128)
    _, pb = cr.rrule(operator.getitem, z, 2)
    np.testing.assert_array_equal(unthunk(pb(1j)[1]), [0, 0, 1j, 0])
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent(), NoTangent())
    _, pb = cr.rrule(operator.getitem, np.arange(4), 1)
    assert pb(1.0) == (NoTangent(), NoTangent(), NoTangent())
    b = _array((5,), np.float64).astype(">f8")                       # non-native float64
    _, pb = cr.rrule(operator.getitem, b, slice(None, None, 2))
    dx = unthunk(pb(np.ones(3))[1])
    assert dx.dtype == b.dtype
    np.testing.assert_array_equal(dx, [1, 0, 1, 0, 1])
    m = np.ma.MaskedArray(_array((4,), np.float64))                    # an ndarray subclass
    Ω, pb = cr.rrule(operator.getitem, m, slice(2))
    assert isinstance(Ω, np.ma.MaskedArray)
    np.testing.assert_array_equal(unthunk(pb(np.ones(2))[1]), [1, 1, 0, 0])
    _, pb = cr.rrule(np.ndarray.__getitem__, np.array(2.0), ())
    assert pb.__name__ == "getitem_pullback" and "getitem" in repr(pb)
    np.testing.assert_array_equal(unthunk(pb(3.0)[1]), np.array(3.0))


# ----- the compiled frules --------------------------------------------------------

def _same(a, b):
    """Bit for bit: same type, dtype, shape and numbers (the compiled frule does
    the Python rule's arithmetic, term by term)."""
    a, b = unthunk(a), unthunk(b)
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and np.shape(a) == np.shape(b)
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64, ">f8"])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_unary_frule_agrees_with_the_python_rule(f, shape, dtype):
    rule = U._unary_rules[f][0]
    assert isinstance(rule, _UnaryFrule) and rule.mode == _rule(f).mode
    x, Δx = _array(shape, dtype), _array(shape, dtype)
    for tangents in [(NoTangent(), Δx), (NoTangent(), ZeroTangent()), (NoTangent(), cr.Thunk(lambda: Δx)),
                     (NoTangent(), Δx.astype(np.complex128)), (NoTangent(), 2.0)]:
        Ω, ΔΩ = rule(tangents, x)
        Ω0, ΔΩ0 = rule.fallback(tangents, x)
        _same(Ω, Ω0)
        _same(ΔΩ, ΔΩ0)
        assert cr.frule(tangents, f, x)[1].__class__ is ΔΩ.__class__


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float32), (np.float32, np.float64),
                                    (np.float64, np.complex128), (np.complex64, np.complex64)],
                         ids=lambda d: "-".join(np.dtype(t).name for t in d))
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("f", ARITHMETIC, ids=lambda f: f.__name__)
def test_arithmetic_frule_agrees_with_the_python_rule(f, shapes, dtypes):
    rule = UB._binary_rules[f][0]
    assert isinstance(rule, _BinaryFrule)
    x, y = _array(shapes[0], dtypes[0]), _array(shapes[1], dtypes[1])
    Δx, Δy = _array(shapes[0], dtypes[0]), _array(shapes[1], dtypes[1])
    Z = ZeroTangent()
    for tangents in [(NoTangent(), Δx, Δy), (NoTangent(), Δx, Z), (NoTangent(), Z, Δy), (NoTangent(), Z, Z),
                     (NoTangent(), cr.Thunk(lambda: Δx), Δy), (NoTangent(), Δx, NoTangent())]:
        Ω, ΔΩ = rule(tangents, x, y)
        Ω0, ΔΩ0 = rule.fallback(tangents, x, y)
        _same(Ω, Ω0)
        _same(ΔΩ, ΔΩ0)


def test_compiled_frules_check_with_finite_differences_and_fall_back():
    from chainrules.testing import test_frule
    x, y = _array((3, 1), np.float64), _array((4,), np.float64)
    for f in ARITHMETIC:
        test_frule(f, x, y)
        test_frule(f, _array((3,), np.float64), _array((3,), np.float64))
        test_frule(f, _array((2, 2), np.complex128), _array((2, 2), np.complex128))
    for f in FUNCTIONS:
        test_frule(f, _array((3,), np.float64))
        test_frule(f, _array((2,), np.complex128))
    x = _array((3,), np.float64)
    rule = UB._binary_rules[np.multiply][0]
    for args, kwargs in [((x, 2.0), {}), ((x, np.arange(3)), {}), ((x, [1.0, 2.0, 3.0]), {}),
                         ((x, x), {"dtype": np.float64})]:
        tangents = (NoTangent(),) + tuple(np.ones_like(x) if a is x else ZeroTangent() for a in args)
        Ω, ΔΩ = rule(tangents, *args, **kwargs)
        np.testing.assert_allclose(np.asarray(Ω), np.multiply(*args, **kwargs))
    with pytest.raises(TypeError, match="out="):
        cr.frule((NoTangent(), x), np.sin, x, out=np.empty(3))
    assert rule.__name__ == "multiply_frule" and "multiply" in repr(rule)
    assert U._unary_rules[np.sin][0].__name__ == "sin_frule"
    with pytest.raises(ValueError, match="op must be"):
        _BinaryFrule(np.multiply, 7, "multiply", rule.fallback)
    with pytest.raises(ValueError, match="mode"):
        _UnaryFrule(np.sin, np.cos, 3, "sin", rule.fallback)


def test_frule_with_a_config_on_arrays_selects_as_the_general_path(registry):
    """frule(config, tangents, f, *arrays), as the forward engines call it, takes
    a fast path (_frule_config_vec): the rule chosen must be the one the general
    path chooses -- a config rule when the config has its capabilities, else the
    plain rule -- and the rule called with the config only when it asked for it."""
    from chainrules import RuleConfig
    from chainrules.ad import forward

    class Forward(RuleConfig):
        has_forward_mode = True

    class Neither(RuleConfig):
        pass

    def scale(x):
        return 2.0 * x
    calls = []

    @cr.register_frule(scale, np.ndarray)
    def scale_frule(tangents, x):
        calls.append("plain")
        return scale(x), 2.0 * tangents[1]

    @cr.register_frule(scale, np.ndarray, config="forward")
    def scale_frule_config(config, tangents, x):
        calls.append(type(config).__name__)
        return scale(x), 2.0 * tangents[1]

    x, Δx = _array((3,), np.float64), _array((3,), np.float64)
    for config, want in [(Forward(), "Forward"), (Neither(), "plain"), (Forward(), "Forward"),
                         (Neither(), "plain"), (forward.FORWARD, type(forward.FORWARD).__name__)]:
        calls.clear()
        Ω, ΔΩ = cr.frule(config, (NoTangent(), Δx), scale, x)
        assert calls == [want]
        np.testing.assert_array_equal(ΔΩ, 2.0 * Δx)
    calls.clear()
    cr.frule((NoTangent(), Δx), scale, x)
    assert calls == ["plain"]
    assert cr.frule(Forward(), (NoTangent(), Δx), scale, [1.0, 2.0]) is None     # no rule for a list
    with pytest.raises(ValueError, match="expected 2 tangents"):
        cr.frule(Forward(), (NoTangent(),), scale, x)
    np.testing.assert_array_equal(cr.frule(forward.FORWARD, (NoTangent(), Δx), np.sin, x)[1], np.cos(x) * Δx)


def test_rrule_with_a_config_on_arrays_selects_as_the_general_path(registry):
    """rrule(config, f, *arrays), as the reverse engines call it (_rrule_config_vec),
    on plain arrays and on arrays an enclosing differentiation tracks."""
    from chainrules import RuleConfig
    from chainrules import ad

    class Reverse(RuleConfig):
        has_reverse_mode = True

    class Neither(RuleConfig):
        pass

    def scale(x):
        return 2.0 * x
    calls = []

    @cr.register_rrule(scale, object)
    def scale_rrule(x):
        calls.append("plain")
        return scale(x), lambda ȳ: (NoTangent(), 2.0 * ȳ)

    @cr.register_rrule(scale, object, config="reverse")
    def scale_rrule_config(config, x):
        calls.append(type(config).__name__)
        return scale(x), lambda ȳ: (NoTangent(), 2.0 * ȳ)

    x = _array((3,), np.float64)
    for config, want in [(Reverse(), "Reverse"), (Neither(), "plain"), (Reverse(), "Reverse"), (Neither(), "plain")]:
        calls.clear()
        Ω, pb = cr.rrule(config, scale, x)
        assert calls == [want]
        np.testing.assert_array_equal(pb(np.ones(3))[1], 2.0 * np.ones(3))
    calls.clear()
    cr.rrule(scale, x)
    assert calls == ["plain"]

    def inner(z):                    # z: a Dual holding an ndarray
        calls.clear()
        Ω, pb = cr.rrule(Reverse(), scale, z)
        assert calls == ["Reverse"]
        return Ω
    Ω, ΔΩ = ad.jvp(inner, (x,), (np.ones(3),))
    np.testing.assert_array_equal(ΔΩ, 2.0 * np.ones(3))
    np.testing.assert_array_equal(ad.hvp(lambda z: np.sum(scale(z) * z), x, np.ones(3)), 4.0 * np.ones(3))


def test_the_projection_onto_a_tracked_array():
    """The element-wise rules' pullbacks at an argument an enclosing
    differentiation tracks: a cotangent of its shape passes, a broadcast one is
    summed back, a complex one for a real argument gives its real part, a plain
    one is projected to the argument's dtype."""
    from chainrules import ad
    from chainrules.rulesets.elementwise.rules import _projector, _TracedArrayProject
    x32 = _array((3,), np.float32)
    seen = {}

    def inner(z):
        p = _projector(np, z, z)
        assert isinstance(p, _TracedArrayProject) and p.kind == 1 and p.shape == (3,)
        seen["same"] = p(z) is z
        seen["sum"] = p(z * np.ones((2, 3), np.float32))
        seen["real"] = p(z * (1 + 2j))
        seen["plain"] = p(np.ones(3, np.float64) + 1j)
        seen["zero"] = p(ZeroTangent())
        return seen["sum"] + seen["real"]
    Ω, ΔΩ = ad.jvp(inner, (x32,), (np.ones(3, np.float32),))
    assert seen["same"] and seen["zero"] is ZeroTangent()
    np.testing.assert_allclose(Ω, 3 * x32, rtol=1e-6)
    np.testing.assert_allclose(ΔΩ, 3 * np.ones(3), rtol=1e-6)
    assert type(seen["plain"]) is np.ndarray and seen["plain"].dtype == np.float32
    np.testing.assert_array_equal(seen["plain"], np.ones(3))


# ----- no leaks in the compiled array rules and the AD's compiled scalar paths ----

def _leak_workload(n):
    from chainrules import ad
    from chainrules.ad import math as admath
    x = np.linspace(0.1, 0.9, 10)
    ȳ = np.ones(10)
    for _ in range(n):
        _, pb = cr.rrule(np.exp, x)
        pb(ȳ)
        pb(cr.ZeroTangent())
        _, pb = cr.rrule(np.sin, x)
        pb(cr.Thunk(lambda: ȳ))
        _, pb = cr.rrule(operator.getitem, x, slice(1, 5))
        unthunk(pb(np.ones(4))[1])
        _, pb = cr.rrule(operator.getitem, x, [1, 1])
        cr.add_inplace(np.zeros(10), pb(np.ones(2))[1])
        _, pb = cr.rrule(np.multiply, x.reshape(2, 5), x[:5])
        pb(np.ones((2, 5)))
        pb(2.0)
        _, pb = cr.rrule(np.subtract, np.ones((40, 40)), np.ones(40))
        [unthunk(c) for c in pb(np.ones((40, 40)))]
        _, pb = cr.rrule(np.sum, x.reshape(2, 5), axis=1)
        pb(np.ones(2))
        cr.frule((NoTangent(), ȳ, ȳ), np.multiply, x, x)
        cr.frule((NoTangent(), ZeroTangent(), ȳ), np.add, x, x)
        cr.frule((NoTangent(), ȳ, ZeroTangent()), np.divide, x, x)
        cr._core.broadcast_view(x[:3], (2, 3))
        cr.frule((NoTangent(), ȳ), np.exp, x)
        ad.gradient(lambda t: admath.asin(0.2 + admath.sin(t)), 0.5)
        ad.gradient(lambda t: np.sum(np.sin(t) * t - t[::2].sum()), x)
        ad.derivative(lambda t: admath.asin(0.2 + admath.sin(t)), 0.5)


def test_no_reference_leaks_in_compiled_array_rules_and_ad_scalar_paths():
    import gc
    import sys
    import tracemalloc
    _leak_workload(300)
    gc.collect()
    tracemalloc.start()
    blocks = sys.getallocatedblocks()
    snap0 = tracemalloc.take_snapshot()
    _leak_workload(10_000)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    grown_blocks = sys.getallocatedblocks() - blocks
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert grown < 64 * 1024, f"traced memory grew by {grown} bytes"
    assert grown_blocks < 1000, f"{grown_blocks} blocks leaked"
    for obj in (np.exp, np.sin, NoTangent()):
        before = sys.getrefcount(obj)
        _leak_workload(1000)
        assert sys.getrefcount(obj) == before
