"""The compiled fast paths of chainrules.ad compute what the generic engine
computes (issue 13): NumPy functions and ufuncs on real scalars
(`_core/ad_numpy_scalar.pxi`), forward mode's flat path on arrays
(`_core/ad_forward_flat.pxi`).  Each case runs with the fast path and without
it and compares the results to the bit (types too: an np.float64 stays one),
and the warnings and errors."""

import math
import struct
import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules._core import Tangent, _ad_numpy_scalar_fast
from chainrules.ad import _tracing
from chainrules.ad import math as admath


def _bits(v):
    """A value as comparable bits: type and IEEE bytes for numbers, arrays by
    dtype, shape and bytes, containers element-wise.  Every NaN is one NaN:
    which operand's sign and payload survive when two NaNs meet in a product
    is the C compiler's choice (x86 keeps the first operand's)."""
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(_bits(u) for u in v))
    if isinstance(v, Tangent):
        return ("Tangent", tuple(_bits(u) for u in v.backing))
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape, _one_nan(v).tobytes())
    if isinstance(v, (float, np.floating)):
        return (type(v).__name__, np.asarray(v).dtype.str, _one_nan(np.asarray(v)).tobytes())
    if isinstance(v, (complex, np.complexfloating)):
        return (type(v).__name__, _one_nan(np.asarray(v)).tobytes())
    return (type(v).__name__, repr(v))


def _one_nan(a):
    if a.dtype.kind == "c":
        return _one_nan(a.real) + _one_nan(a.imag)
    if a.dtype.kind == "f" and np.isnan(a).any():
        a = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
    return a


def _run(fn):
    """(result or exception type and message, warnings) of fn()."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = ("ok", _bits(fn()))
        except Exception as e:
            out = ("raised", type(e).__name__, str(e))
    return out, [(x.category.__name__, str(x.message)) for x in w]


def assert_same_as_generic(fn):
    """fn() with the NumPy-scalar fast path equals fn() without it."""
    fast = _run(fn)
    was = _ad_numpy_scalar_fast(False)
    try:
        generic = _run(fn)
    finally:
        _ad_numpy_scalar_fast(was)
    assert fast == generic
    return fast


UNARY = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
         np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10,
         np.log1p, np.sqrt, np.cbrt, np.square, np.reciprocal, np.negative, np.positive,
         np.absolute, np.fabs, np.sign, np.floor, np.ceil, np.trunc, np.rint, np.deg2rad,
         np.rad2deg]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power, np.maximum,
          np.minimum, np.fmax, np.fmin, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
          np.copysign, np.remainder, np.fmod, np.floor_divide]
POINTS = [0.3, -0.7, 0.999, 1.0, 2.5, -3.25, 0.0, -0.0, 1e-310, 710.0, 1e308, math.inf, -math.inf,
          math.nan, 17.0]
ENGINES = {
    "derivative": lambda f, x: ad.derivative(f, x),
    "gradient": lambda f, x: ad.gradient(f, x),
    "value_and_gradient": lambda f, x: ad.value_and_gradient(f, x),
    "jvp": lambda f, x: ad.jvp(f, (x,), (0.5,)),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs_on_scalars(ufunc, engine):
    run = ENGINES[engine]
    for x in POINTS:
        assert_same_as_generic(lambda: run(ufunc, x))
        assert_same_as_generic(lambda: run(lambda v: ufunc(v) * v + 0.2, x))
        assert_same_as_generic(lambda: run(lambda v: ufunc(ufunc(v) - v), x))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs_on_scalars(ufunc, engine):
    run = ENGINES[engine]
    for x in POINTS[::2]:
        for c in (0.5, -2.0, 0.0, 3, np.float64(1.5), math.inf):
            assert_same_as_generic(lambda: run(lambda v: ufunc(v, c), x))
            assert_same_as_generic(lambda: run(lambda v: ufunc(c, v), x))
        assert_same_as_generic(lambda: run(lambda v: ufunc(v, v), x))
        assert_same_as_generic(lambda: run(lambda v: ufunc(np.sin(v), v * 1.5), x))


ARITHMETIC = {
    "add": lambda s, v: s + v + 0.25,
    "radd": lambda s, v: 0.25 + s,
    "sub": lambda s, v: (s - v) - 1,
    "rsub": lambda s, v: 2.0 - s,
    "mul": lambda s, v: s * v * np.float64(3.0),
    "div": lambda s, v: s / v / 7,
    "rdiv": lambda s, v: 1.0 / s,
    "pow": lambda s, v: s ** 2 + s ** 0.5 + s ** v,
    "rpow": lambda s, v: 3.0 ** s,
    "builtin pow": lambda s, v: pow(s, 3),
    "neg pos abs": lambda s, v: abs(-(+s)),
    "floordiv mod": lambda s, v: s // 0.25 + s % 0.5,
    "math of np.float64": lambda s, v: admath.exp(s) + admath.atan2(s, v),
    "divide by zero": lambda s, v: s / (v - v),
    "mixed with float32": lambda s, v: s * np.float32(2.0),
    "complex": lambda s, v: (s * 1j).real,
    "comparison": lambda s, v: s * 2 if s > 0.1 else s * 3,
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", ARITHMETIC)
def test_arithmetic_on_numpy_results(case, engine):
    """Operators and math functions on np.float64 results keep NumPy's
    semantics (the result types, the warnings of NumPy's scalar arithmetic)."""
    op, run = ARITHMETIC[case], ENGINES[engine]
    for x in (0.3, -1.2, 2.0, 0.0, math.pi):
        assert_same_as_generic(lambda: run(lambda v: op(np.sin(v), v), x))
        assert_same_as_generic(lambda: run(lambda v: op(np.exp(v), np.cos(v)), x))


def test_int_inputs_and_errstate():
    f = lambda v: np.log(v - 2) * np.arcsin(v / 10)  # noqa: E731
    for engine in ENGINES.values():
        assert_same_as_generic(lambda: engine(f, 3))
        assert_same_as_generic(lambda: engine(f, 2.0))           # log(0): a warning
        with np.errstate(all="raise"):
            assert assert_same_as_generic(lambda: engine(f, 2.0))[0][0] == "raised"
        with np.errstate(under="raise"):
            assert_same_as_generic(lambda: engine(lambda v: np.exp(v) * 1e-300, -400.0))


def test_zero_cotangent_through_an_infinite_partial():
    """The generic engine's records run for a zero cotangent: 0 · inf is NaN."""
    f = lambda v: 0.0 * np.sqrt(v - v) + v  # noqa: E731
    out = assert_same_as_generic(lambda: ad.gradient(f, 3.0))
    assert math.isnan(struct.unpack("<d", out[0][1][2])[0])


def test_nested():
    for x in (0.4, 1.3):
        assert_same_as_generic(lambda: ad.derivative(
            lambda a: ad.derivative(lambda b: np.sin(a * b) * np.exp(b), 0.7), x))
        assert_same_as_generic(lambda: ad.gradient(
            lambda a: ad.derivative(lambda b: np.arctan2(a, b) ** 2, 1.5), x))
        assert_same_as_generic(lambda: ad.derivative(
            lambda a: ad.gradient(lambda b: np.tanh(a * b) + np.sin(a), 0.2), x))
        assert_same_as_generic(lambda: ad.hessian(lambda v: np.arcsin(0.2 + np.sin(v)), x))
        assert_same_as_generic(lambda: ad.hvp(lambda v: np.exp(np.sin(v)) * v, x, 1.0))


def test_float32_and_complex_inputs_stay_generic():
    for x in (np.float32(0.5), 0.5 + 0.25j, np.float64(0.5)):
        assert_same_as_generic(lambda: ad.derivative(lambda v: np.sin(v) * np.exp(v), x))
    assert type(ad.derivative(lambda v: np.sin(v), np.float32(0.5))) is np.float32


def test_mixed_with_arrays_and_records():
    """np.float64 values of the fast path meeting array code (the generic
    engine's records) on one tape."""
    xs = np.array([0.3, -0.4, 1.1])

    def f(v):
        s = np.sin(v[0]) * np.exp(v[1])
        return np.sum(np.tanh(v * s)) + s ** 2 - np.cos(v[2])
    assert_same_as_generic(lambda: ad.gradient(f, xs))
    assert_same_as_generic(lambda: ad.jvp(f, (xs,), (np.ones(3),)))

    def g(v):
        s = np.sin(v)
        return np.sum(np.array([1.0, 2.0]) * s) + s * s
    for x in (0.3, 2.0):
        assert_same_as_generic(lambda: ad.gradient(g, x))
        assert_same_as_generic(lambda: ad.derivative(g, x))


def test_the_fast_path_reaches_no_generic_engine():
    def refuse(*args):
        raise AssertionError(f"the generic engine was called: {args[:2]}")

    def foo(v):
        return np.arcsin(0.2 + np.sin(v)) * np.float64(2.0) - np.exp(v) ** 2 / v
    cr._core._ad_set_dispatch(refuse)
    try:
        d = ad.derivative(foo, 0.5)
        g = ad.gradient(foo, 0.5)
    finally:
        cr._core._ad_set_dispatch(_tracing.dispatch)
    assert type(d) is np.float64 and type(g) is float
    assert d == g
    h = 1e-6
    assert math.isclose(g, (foo(0.5 + h) - foo(0.5 - h)) / (2 * h), rel_tol=1e-7)


def test_escaped_values_are_reported():
    for engine in (ad.derivative, ad.gradient):
        kept = []
        engine(lambda v: kept.append(v) or v * 1.0, 0.5)
        out = assert_same_as_generic(lambda: np.sin(kept[0]))
        assert out[0][:2] == ("raised", "EscapedTrackedValueError")


def test_tape_of_numpy_scalars_holds_no_records():
    seen = {}

    def f(v):
        y = np.arcsin(0.2 + np.sin(v)) * v
        seen["tape"] = v.tape
        return y
    ad.gradient(f, 3.0)
    assert "0 records" in repr(seen["tape"]) and "4 nodes" in repr(seen["tape"])


# ----- forward mode's flat path on arrays ------------------------------------------

def assert_forward_flat_same_as_generic(fn):
    """fn() with forward mode's flat path equals fn() with the generic engine."""
    from chainrules._core import _ad_set_forward_flat
    from chainrules.ad.config import FORWARD
    from chainrules.ad.forward import wrap_output
    fast = _run(fn)
    _ad_set_forward_flat(None, None)
    try:
        generic = _run(fn)
    finally:
        _ad_set_forward_flat(FORWARD, wrap_output)
    assert fast == generic
    return fast


ARRAY_CASES = {
    "sum sin times x": lambda x: np.sum(np.sin(x) * x),
    "constants": lambda x: x * 2 + np.float32(0.5) - np.arange(x.size) / 3.0 + 1j * x,
    "int array and bool": lambda x: np.where(x > 0, x, 0.0) * np.arange(x.size),
    "getitem and matmul": lambda x: x[::2] @ x[1::2] + x[0] ** 2,
    "float32": lambda x: np.tanh(x.astype(np.float32)) * np.float32(3),
    "tuple output": lambda x: np.modf(x * 3.5),
    "integer output": lambda x: (np.floor(x), np.argmax(x), np.sign(x)),
    "reductions": lambda x: (np.mean(x * x), np.max(x), np.cumsum(x), np.prod(x + 2.0)),
    "complex": lambda x: np.abs(np.exp(1j * x) * x) + np.real(x * (1 - 2j)),
    "scalar result ops": lambda x: np.sum(x) * np.sum(x) / (1.0 + np.dot(x, x)),
}


@pytest.mark.parametrize("case", ARRAY_CASES)
def test_forward_flat_path_on_arrays(case):
    f = ARRAY_CASES[case]
    for x in (np.linspace(-1.5, 2.0, 6), np.array([0.0, -0.0, np.inf, np.nan, 1.0, -2.0])):
        v = np.cos(np.arange(x.size) + 0.5)
        assert_forward_flat_same_as_generic(lambda: ad.jvp(f, (x,), (v,)))
        if not isinstance(f(np.ones(6)), tuple):
            assert_forward_flat_same_as_generic(lambda: ad.jacobian(f, x))


def test_forward_flat_path_nested_and_escaped():
    x = np.linspace(0.1, 0.9, 4)
    assert_forward_flat_same_as_generic(lambda: ad.jvp(
        lambda a: ad.jvp(lambda b: np.sum(np.sin(a * b) * b), (x,), (np.ones(4),))[1], (x,), (x,)))
    assert_forward_flat_same_as_generic(lambda: ad.hvp(lambda a: np.sum(np.exp(a) * a), x, x))
    kept = []
    ad.jvp(lambda a: kept.append(a) or np.sum(a), (x,), (x,))
    out = assert_forward_flat_same_as_generic(lambda: np.sin(kept[0]))
    assert out[0][:2] == ("raised", "EscapedTrackedValueError")


def test_forward_flat_path_reaches_no_generic_engine():
    def refuse(*args):
        raise AssertionError(f"the generic engine was called: {args[:2]}")
    x = np.linspace(0.1, 0.9, 6)
    cr._core._ad_set_dispatch(refuse)
    try:
        y, dy = ad.jvp(lambda x: np.sum(np.sin(x) * x - x[::2].sum() / 2.0), (x,), (np.ones(6),))
    finally:
        cr._core._ad_set_dispatch(_tracing.dispatch)
    assert math.isclose(dy, np.sum(np.cos(x) * x + np.sin(x)) - 3 * 3.0, rel_tol=1e-12)
