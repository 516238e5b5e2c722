"""The compiled fast path of the unary ufunc rules (_core/array_rules.pxi):
it must give what the Python rule it falls back to gives, for every dtype,
shape and kind of seed."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent, unthunk
from chainrules._core import _UnaryPullback, _UnaryRrule
from chainrules.rulesets import numpy_ufuncs as U
from chainrules.testing import test_rrule

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
