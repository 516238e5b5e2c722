"""Nested derivatives of Python float code are Python floats (issue 12): under
nesting the rows of math's and the operators' rules compute with Python
numbers (chainrules.rulesets.elementwise.scalar), not NumPy's float64s."""

import cmath
import math
import operator

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import cmath as adcmath
from chainrules.ad import math as admath
from chainrules.rulesets.elementwise import scalar as elementwise_scalar

FUNCTIONS = {
    "sin": lambda x: admath.sin(x),
    "cos·x": lambda x: admath.cos(x) * x,
    "tan": lambda x: admath.tan(x),
    "asin": lambda x: admath.asin(0.2 + x / 3),
    "acos": lambda x: admath.acos(x / 2),
    "atan": lambda x: admath.atan(x),
    "sinh/cosh": lambda x: admath.sinh(x) / admath.cosh(x),
    "tanh³": lambda x: admath.tanh(x) ** 3,
    "asinh+acosh": lambda x: admath.asinh(x) + admath.acosh(x + 1.5),
    "atanh": lambda x: admath.atanh(x / 2),
    "exp·expm1": lambda x: admath.exp(x) * admath.expm1(x),
    "logs": lambda x: admath.log(x) + admath.log1p(x) + admath.log2(x) + admath.log10(x),
    "sqrt": lambda x: admath.sqrt(x + 1),
    "pow": lambda x: x ** 2.5 + 2.0 ** x + admath.pow(x, 3),
    "abs": lambda x: abs(x - 1.0) * x,
    "max/min": lambda x: max(x * x, 0.2) + min(x, 0.1) * x,
    "div/sub": lambda x: (1.0 - x) / (x + 2.0) - x / 3,
    "mod": lambda x: (x * 3) % 0.7 * x,
    "hypot/atan2": lambda x: admath.hypot(x, 2.0) + admath.atan2(x, 1.5),
    "erf": lambda x: admath.erf(x) * admath.erfc(x),
    "cbrt-free": lambda x: admath.degrees(x) * admath.radians(x),
}


def _fd(g, x, h=1e-5):
    return (g(x + h) - g(x - h)) / (2 * h)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_second_derivative_is_a_float_and_right(name):
    f = FUNCTIONS[name]
    x = 0.6
    d1 = lambda z: ad.derivative(f, z)  # noqa: E731
    want = _fd(d1, x)
    for got in (ad.derivative(d1, x),                                 # forward over forward
                ad.gradient(lambda z: ad.gradient(f, z), x),          # reverse over reverse
                ad.derivative(lambda z: ad.gradient(f, z), x),        # forward over reverse
                ad.hessian(f, x)):
        assert type(got) is float, (name, got)
        assert got == pytest.approx(want, rel=1e-6, abs=1e-6), name


def test_third_derivative_is_a_float():
    f = lambda x: admath.sin(x) * x ** 3  # noqa: E731
    got = ad.derivative(lambda a: ad.derivative(lambda b: ad.derivative(f, b), a), 0.4)
    x = 0.4
    want = -math.cos(x) * x ** 3 - 9 * math.sin(x) * x ** 2 + 18 * math.cos(x) * x + 6 * math.sin(x)
    assert type(got) is float
    assert got == pytest.approx(want, rel=1e-12)


def test_examples_of_the_issue():
    assert repr(ad.derivative(lambda x: ad.derivative(math.sin, x), 0.5)) == repr(-math.sin(0.5))
    h = ad.hessian(lambda x: admath.sin(x), 0.5)
    assert type(h) is float and h == -math.sin(0.5)
    assert repr(ad.derivative(lambda x: x * ad.derivative(lambda y: x * y, 2.0), 3.0)) == "6.0"
    assert type(ad.hessian(lambda x: x * x, 2)) is float            # an int in: a float out
    assert ad.hessian(lambda x: 3.0, 0.5) == 0.0


def test_the_python_scalar_rows_are_taken(monkeypatch):
    """The rows run with PYTHON_SCALARS on tracked Python floats (counted)."""
    calls = []
    real = elementwise_scalar.real_python_scalars

    def counting(*args):
        r = real(*args)
        calls.append(r)
        return r
    import chainrules.rulesets.elementwise.rules as er
    monkeypatch.setattr(er, "real_python_scalars", counting)
    ad.derivative(lambda x: ad.derivative(admath.sin, x), 0.5)
    assert calls and all(calls)


def test_numpy_code_and_complex_numbers_keep_numpy():
    """The fallback: NumPy functions keep NumPy scalars; complex Python numbers
    (cmath) are computed with NumPy, with the right values."""
    got = ad.hessian(lambda x: np.sin(x), 0.5)
    assert type(got) is np.float64 and got == pytest.approx(-math.sin(0.5))
    z = 0.3 + 0.4j
    d2 = ad.derivative(lambda w: ad.derivative(lambda u: adcmath.exp(u) * u, w), z)
    assert isinstance(d2, complex) and not type(d2) is complex
    assert d2 == pytest.approx(cmath.exp(z) * (z + 2), rel=1e-12)
    assert not elementwise_scalar.real_python_scalars(z)
    assert not elementwise_scalar.real_python_scalars(1.0, np.float64(2.0))


def test_float32_and_arrays_are_unchanged():
    h = ad.hessian(lambda x: x * x * x, np.float32(0.5))
    assert type(h) is np.float32 and h == pytest.approx(3.0)
    h = ad.hessian(lambda x: np.sum(x ** 3), np.array([1.0, 2.0]))
    np.testing.assert_allclose(h, [[6.0, 0.0], [0.0, 12.0]])


def test_operator_functions_with_plain_ints():
    f = lambda x: operator.mul(x, 3) + operator.truediv(2, x) + operator.pow(x, 2)  # noqa: E731
    got = ad.derivative(lambda z: ad.derivative(f, z), 1.5)
    assert type(got) is float
    assert got == pytest.approx(4 / 1.5 ** 3 + 2, rel=1e-12)
