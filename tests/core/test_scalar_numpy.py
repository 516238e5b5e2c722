"""The NumPy ufunc rows of the C scalar table (_core/scalar_numpy.pxi) on
scalars: Python numbers, np.float64, np.float32 and complex scalars, the
primal's type and precision kept, float32 tangents, and arrays left to the
array rules."""

import math

import numpy as np
import pytest

from chainrules import NoTangent, frule, register_frule, register_rrule, rrule
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()

# ufunc: (real points, holomorphic on complex numbers?)
UNARY = {
    np.negative: ([1.5, -2.0], True),
    np.positive: ([1.5, -2.0], True),
    np.absolute: ([1.5, -2.0], False),
    np.fabs: ([1.5, -2.0], False),
    np.sign: ([1.5, -2.0], False),
    np.conjugate: ([1.5, -2.0], False),
    np.sqrt: ([2.0, 0.25], True),
    np.cbrt: ([2.0, -8.0], False),
    np.square: ([1.5, -2.0], True),
    np.reciprocal: ([1.5, -2.0], True),
    np.exp: ([0.5, -3.0], True),
    np.exp2: ([0.5, -3.0], True),
    np.expm1: ([0.5, -3.0], True),
    np.log: ([1.5, 0.1], True),
    np.log2: ([1.5, 8.0], True),
    np.log10: ([1.5, 100.0], True),
    np.log1p: ([0.5, -0.5], True),
    np.sin: ([0.5, -2.0], True),
    np.cos: ([0.5, -2.0], True),
    np.tan: ([0.5, -1.2], True),
    np.arcsin: ([0.5, -0.9], True),
    np.arccos: ([0.5, -0.9], True),
    np.arctan: ([0.5, -3.0], True),
    np.sinh: ([0.5, -2.0], True),
    np.cosh: ([0.5, -2.0], True),
    np.tanh: ([0.5, -2.0], True),
    np.arcsinh: ([0.5, -3.0], True),
    np.arccosh: ([1.5, 4.0], True),
    np.arctanh: ([0.5, -0.9], True),
    np.deg2rad: ([30.0, -45.0], False),
    np.radians: ([30.0, -45.0], False),
    np.rad2deg: ([0.5, -2.0], False),
    np.degrees: ([0.5, -2.0], False),
    np.floor: ([2.5, -2.5], False),
    np.ceil: ([2.5, -2.5], False),
    np.trunc: ([2.5, -2.5], False),
    np.rint: ([2.3, -2.7], False),
}
BINARY = {
    np.add: ([(1.5, -2.5)], True),
    np.subtract: ([(1.5, -2.5)], True),
    np.multiply: ([(1.5, -2.5)], True),
    np.divide: ([(1.5, -2.5)], True),
    np.power: ([(1.5, 2.5), (2.0, -1.0)], True),
    np.float_power: ([(1.5, 2.5)], True),
    np.remainder: ([(7.5, 2.0), (-7.5, 2.0)], False),
    np.fmod: ([(7.5, 2.0), (-7.5, 2.0)], False),
    np.floor_divide: ([(7.5, 2.0)], False),
    np.maximum: ([(1.5, 2.5), (2.5, 1.5)], False),
    np.minimum: ([(1.5, 2.5), (2.5, 1.5)], False),
    np.fmax: ([(1.5, 2.5), (2.5, 1.5)], False),
    np.fmin: ([(1.5, 2.5), (2.5, 1.5)], False),
    np.arctan2: ([(1.0, 2.0), (-1.0, -0.5)], False),
    np.hypot: ([(3.0, 4.0), (-1.0, 0.5)], False),
    np.logaddexp: ([(0.5, -1.0), (3.0, 2.0)], False),
    np.logaddexp2: ([(0.5, -1.0), (3.0, 2.0)], False),
    np.copysign: ([(1.5, -2.0), (-1.5, -2.0)], False),
}
COMPLEX = [0.5 + 0.3j, -1.2 + 0.7j]


def _real_kinds(x):
    """The same real point as a Python float, np.float64 and np.float32."""
    return [x, np.float64(x), np.float32(x)]


UNARY_CASES = [(f, z) for f, (xs, holo) in UNARY.items() for x in xs for z in _real_kinds(x)] + \
    [(f, t(z)) for f, (xs, holo) in UNARY.items() if holo for z in COMPLEX
     for t in (complex, np.complex128, np.complex64)]


def _id(f, args):
    return f"{f.__name__}({', '.join(f'{type(a).__name__}({a!r})' for a in args)})"


@pytest.mark.parametrize("f, z", UNARY_CASES, ids=[_id(f, (z,)) for f, z in UNARY_CASES])
def test_unary_row(f, z):
    test_scalar(f, z)


BINARY_CASES = [(f, (t(x), t(y))) for f, (xys, holo) in BINARY.items() for x, y in xys
                for t in (float, np.float64, np.float32)] + \
    [(f, (t(x), t(y))) for f, (xys, holo) in BINARY.items() if holo
     for x, y in [(0.5 + 0.3j, -1.2 + 0.7j), (1.5, 0.5 - 1j)] for t in (complex, np.complex64)]


@pytest.mark.parametrize("f, args", BINARY_CASES, ids=[_id(f, a) for f, a in BINARY_CASES])
def test_binary_row(f, args):
    test_frule(f, *args)
    test_rrule(f, *args)


def test_ldexp_exponent_has_no_tangent():
    for x in (3.0, np.float32(3.0)):
        test_frule(np.ldexp, x, PrimalAndTangent(2, NT))
        test_rrule(np.ldexp, x, np.int32(2))
        assert rrule(np.ldexp, x, 2)[1](1.0) == (NT, 4.0, NT)


# ----- types and precision ------------------------------------------------------------

@pytest.mark.parametrize("f", list(UNARY), ids=lambda f: f.__name__)
@np.errstate(all="ignore")            # np.arcsin(2): NaN and a warning, from the primal
def test_omega_is_the_primals_numpy_scalar(f):
    x = UNARY[f][0][0]
    for z in (x, np.float32(x), np.float64(x), 2):
        y = f(z)
        same = (lambda a: a == y or (np.isnan(a) and np.isnan(y)))
        Ω, dΩ = frule((NT, 1.0), f, z)
        assert type(Ω) is type(y) and same(Ω)
        if isinstance(y, np.integer):
            assert dΩ is NT                            # np.negative(2) is an np.int64
        else:
            assert type(dΩ) is type(y)                 # np.float32 stays np.float32
        Ω, pb = rrule(f, z)
        assert type(Ω) is type(y) and same(Ω)
        g = pb(1.0)[1]
        assert type(g) is (float if type(z) in (float, int) else type(z))


def test_float32_keeps_its_precision():
    x = np.float32(0.7)
    Ω, dΩ = frule((NT, np.float32(1.0)), np.sin, x)
    assert Ω == np.sin(x) and type(dΩ) is np.float32
    assert dΩ == np.float32(math.cos(float(x)))       # the partial in double, rounded once
    _, g = rrule(np.exp, x)[1](np.float32(1.0))
    assert type(g) is np.float32 and g == np.exp(x)


def test_mixed_numpy_and_python_arguments():
    # NEP 50: np.float32 + a Python float is an np.float32
    Ω, pb = rrule(np.add, np.float32(1.5), 2.5)
    assert type(Ω) is np.float32
    _, gx, gy = pb(np.float32(1.0))
    assert type(gx) is np.float32 and type(gy) is float


def test_integer_scalars_have_no_tangent():
    Ω, pb = rrule(np.sin, np.int64(3))
    assert Ω == np.sin(3) and pb(1.0) == (NT, NT)


# ----- arrays are left to the array rules ------------------------------------------------

class _Probe(np.ndarray):
    """An array type with rules of its own: reaching them proves that the
    scalar row did not catch the array."""


@register_frule(np.sin, _Probe)
def _probe_frule(tangents, x):
    return "probe", "probe"


@register_rrule(np.sin, _Probe)
def _probe_rrule(x):
    return "probe", None


@pytest.mark.parametrize("shape", [(), (3,), (1,)])
def test_arrays_are_not_caught_by_the_row(shape):
    x = np.ones(shape).view(_Probe)
    assert frule((NT, np.ones(shape)), np.sin, x) == ("probe", "probe")
    assert rrule(np.sin, x) == ("probe", None)


def test_keyword_arguments_are_not_caught_by_the_row():
    # out=, dtype=…: the row never sees keyword calls (the array rules decide)
    res = rrule(np.sin, 0.5, dtype=np.float32)
    assert res is None or type(res[0]) is np.float32


# ----- conventions --------------------------------------------------------------------

def test_conventions_at_non_differentiable_points():
    assert frule((NT, 1.0), np.sqrt, 0.0)[1] == math.inf           # sqrt'(0) = inf
    assert frule((NT, 1.0), np.absolute, 0.0)[1] == 0.0            # abs'(0) = 0
    assert frule((NT, 1.0), np.sign, 2.0)[1] == 0.0                # sign' = 0
    assert rrule(np.hypot, 0.0, 0.0)[1](1.0) == (NT, 0.0, 0.0)     # hypot(0, 0): zeros
    assert rrule(np.maximum, 1.0, 1.0)[1](1.0) == (NT, 0.0, 1.0)   # a tie goes to y
    assert rrule(np.minimum, 1.0, 1.0)[1](1.0) == (NT, 1.0, 0.0)   # a tie goes to x
    assert rrule(np.fmax, math.nan, 1.0)[1](1.0) == (NT, 0.0, 1.0)  # fmax skips a NaN
    assert rrule(np.fmin, 1.0, math.nan)[1](1.0) == (NT, 1.0, 0.0)
    _, gx, gp = rrule(np.power, 0.0, 0.5)[1](1.0)                   # x ** p at 0
    assert (gx, gp) == (math.inf, 0.0)
    _, gx, gp = rrule(np.power, 0.0, 2.0)[1](1.0)
    assert (gx, gp) == (0.0, 0.0)
    _, gx, gy = rrule(np.remainder, 4.0, 2.0)[1](1.0)               # mod at integer quotients
    assert math.isnan(gx) and math.isnan(gy)
    _, gx, gy = rrule(np.fmod, -7.5, 2.0)[1](1.0)
    assert (gx, gy) == (1.0, 3.0)


def test_domain_values_are_the_primals():
    # NumPy returns NaN/inf with a warning instead of raising: so does the rule
    with np.errstate(all="ignore"):
        for f, x in [(np.sqrt, -1.0), (np.log, 0.0), (np.arcsin, 2.0), (np.arctanh, 1.0)]:
            y = f(x)
            Ω = rrule(f, x)[0]
            assert type(Ω) is type(y) and (Ω == y or (np.isnan(Ω) and np.isnan(y)))
