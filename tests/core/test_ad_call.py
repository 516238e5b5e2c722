"""_core/ad_call.pxi: Python operators on tracked values and Wrapped (the
callable behind chainrules.ad.wrap): the fast path on the C kernels of the
scalar table, and the hand-over to the generic engine."""

import math
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad  # noqa: F401  (installs the generic engine)
from chainrules._core import Dual, Tape, Var, Wrapped, _ad_close, _ad_new_tag


@pytest.fixture
def tag():
    t = _ad_new_tag()
    yield t
    _ad_close(t)


UNARY = ["sin", "cos", "tan", "asin", "atan", "sinh", "cosh", "tanh", "exp", "expm1", "log",
         "log1p", "sqrt", "cbrt", "erf", "fabs"]


@pytest.mark.parametrize("name", UNARY)
def test_wrapped_rows_on_fast_duals_match_the_frule(tag, name):
    f = getattr(math, name)
    out = Wrapped(f)(Dual(0.4, 2.0, tag))
    assert type(out) is Dual
    y, dy = cr.frule((cr.NoTangent(), 2.0), f, 0.4)
    assert out.primal == y and out.tangent == pytest.approx(dy, rel=1e-15)


@pytest.mark.parametrize("name", UNARY)
def test_wrapped_rows_on_fast_vars_match_the_rrule(name):
    f = getattr(math, name)
    tape = Tape()
    x = tape.var(0.4)
    out = Wrapped(f)(x)
    tape.close()
    assert type(out) is Var and len(tape) == 1
    y, pb = cr.rrule(f, 0.4)
    assert out.primal == y
    assert tape.backward({out.slot: 1.0}).get(x.slot) == pytest.approx(pb(1.0)[1], rel=1e-15)


@pytest.mark.parametrize("name", ["atan2", "hypot", "pow", "copysign", "fmod"])
def test_wrapped_binary_rows(tag, name):
    f = getattr(math, name)
    out = Wrapped(f)(Dual(0.7, 1.0, tag), Dual(1.9, 2.0, tag))
    y, dy = cr.frule((cr.NoTangent(), 1.0, 2.0), f, 0.7, 1.9)
    assert out.primal == y and out.tangent == pytest.approx(dy, rel=1e-14)
    left = Wrapped(f)(0.7, Dual(1.9, 1.0, tag))
    assert left.tangent == pytest.approx(cr.frule((cr.NoTangent(), 0.0, 1.0), f, 0.7, 1.9)[1], rel=1e-14)


def test_wrapped_on_plain_values_calls_the_function():
    assert Wrapped(math.sin)(0.5) == math.sin(0.5)
    assert Wrapped(math.atan2)(1, 2) == math.atan2(1, 2)
    assert Wrapped(math.log)(8.0, 2.0) == 3.0
    assert Wrapped(sorted)([3, 1], key=None) == [1, 3]
    assert Wrapped(max)(1, 5, 3) == 5


def test_wrapped_keeps_the_function_metadata():
    w = Wrapped(math.sin)
    assert w.f is math.sin and w.__wrapped__ is math.sin and w.__name__ == "sin"
    assert w.__doc__ == math.sin.__doc__
    import pickle
    assert pickle.loads(pickle.dumps(w)).f is math.sin


def test_rows_whose_output_is_not_a_float_leave_the_fast_path(tag):
    # math.floor's Ω is an int: no tangent, a plain value
    assert Wrapped(math.floor)(Dual(1.5, 1.0, tag)) == 1
    # a NumPy ufunc row keeps NumPy's scalar type
    out = Wrapped(np.sin)(Dual(0.5, 1.0, tag))
    assert type(out) is Dual and isinstance(out.primal, np.float64)


def test_complex_values_leave_the_fast_path(tag):
    out = Wrapped(operator.mul)(Dual(1j, 1.0, tag), 2.0)
    assert out.primal == 2j and out.tangent == 2.0


def test_operators_with_other_types_return_not_implemented_errors(tag):
    with pytest.raises(TypeError):
        Dual(1.0, 1.0, tag) + "a"
    with pytest.raises(TypeError, match="pow"):
        pow(Dual(2.0, 1.0, tag), 2, 5)


def test_matmul_and_divmod_go_to_the_rules(tag):
    d = Dual(np.eye(2), np.ones((2, 2)), tag)
    out = d @ np.ones(2)
    np.testing.assert_array_equal(out.tangent, 2 * np.ones(2))
    q, r = divmod(Dual(7.5, 1.0, tag), 2.0)
    assert q == 3.0 and (r.primal, r.tangent) == (1.5, 1.0)
