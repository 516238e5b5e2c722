"""The math rows of the C scalar table (_core/scalar_math.pxi): every function
against finite differences at several points, NumPy float32 arguments, the
primal's exact value, its errors, and ChainRules' conventions."""

import math
import re

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, frule, rrule
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()

# function: points (ints included: a Python int is a real number)
UNARY = {
    math.sin: [0.5, -2.0, 3, 0.0],
    math.cos: [0.5, -2.0, 0.0],
    math.tan: [0.5, -1.2],
    math.asin: [0.5, -0.9, 0.0],
    math.acos: [0.5, -0.9],
    math.atan: [0.5, -3.0, 0.0],
    math.sinh: [0.5, -2.0],
    math.cosh: [0.5, -2.0, 0.0],
    math.tanh: [0.5, -2.0, 0.0],
    math.asinh: [0.5, -3.0, 0.0],
    math.acosh: [1.5, 4.0],
    math.atanh: [0.5, -0.9],
    math.exp: [0.5, -3.0, 0.0, 2],
    math.exp2: [0.5, -3.0],
    math.expm1: [0.5, -3.0, 1e-8],
    math.log: [1.5, 0.1, 3],
    math.log2: [1.5, 8.0],
    math.log10: [1.5, 100.0],
    math.log1p: [0.5, -0.5, 1e-9],
    math.sqrt: [2.0, 0.25, 4],
    math.cbrt: [2.0, -8.0],
    math.fabs: [1.5, -2.0],
    math.degrees: [0.5, -2.0],
    math.radians: [30.0, -45.0],
    math.erf: [0.5, -1.5, 0.0],
    math.erfc: [0.5, -1.5],
    math.gamma: [2.5, 0.5, -1.5, 5],
    math.lgamma: [2.5, 0.5, -1.5, 10.0],
    math.floor: [2.5, -2.5],
    math.ceil: [2.5, -2.5],
    math.trunc: [2.5, -2.5],
    math.hypot: [1.5, -2.0],              # hypot(x) = |x|
}

BINARY = {
    math.atan2: [(1.0, 2.0), (-1.0, -0.5), (0.5, 0.0)],
    math.log: [(8.0, 2.0), (0.5, 10.0)],
    math.pow: [(2.0, 3.0), (1.5, -0.5), (0.5, 2.5)],
    math.hypot: [(3.0, 4.0), (-1.0, 0.5)],
    math.copysign: [(1.5, -2.0), (-1.5, 2.0), (1.5, 3.0)],
    math.fmod: [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0)],
    math.remainder: [(7.4, 2.0), (-7.4, 3.0)],
}

# function: arguments outside its domain (the primal raises)
DOMAIN = {
    math.asin: [1.5], math.acos: [-2.0], math.acosh: [0.5], math.atanh: [1.0, -1.5],
    math.log: [0.0, -1.0], math.log2: [0.0], math.log10: [-1.0], math.log1p: [-1.0, -2.0],
    math.sqrt: [-1.0], math.exp: [1000.0], math.exp2: [2000.0], math.expm1: [1000.0],
    math.cosh: [1000.0], math.sinh: [-1000.0], math.gamma: [0.0, -2.0, 200.0],
    math.lgamma: [-1.0, 0.0], math.sin: [math.inf], math.cos: [-math.inf], math.tan: [math.inf],
    math.floor: [math.inf, math.nan], math.ceil: [-math.inf], math.trunc: [math.nan],
}
DOMAIN2 = {
    math.log: [(0.0, 2.0), (2.0, 1.0), (1.0, 1.0), (2.0, -3.0)],
    math.pow: [(0.0, -1.0), (-8.0, 1 / 3), (10.0, 400.0)],
    math.fmod: [(1.0, 0.0), (math.inf, 1.0)],
    math.remainder: [(1.0, 0.0)],
    math.ldexp: [(1.0, 5000), (1.0, 2.5)],
}


def _ids(cases):
    return [f"{getattr(f, '__name__', f)}{args}" for f, args in cases]


UNARY_CASES = [(f, (x,)) for f, xs in UNARY.items() for x in xs]
BINARY_CASES = [(f, xy) for f, xys in BINARY.items() for xy in xys]


# ----- against finite differences -----------------------------------------------

@pytest.mark.parametrize("f, args", UNARY_CASES, ids=_ids(UNARY_CASES))
def test_unary_row(f, args):
    test_scalar(f, args[0])


@pytest.mark.parametrize("f", list(UNARY), ids=[f.__name__ for f in UNARY])
def test_unary_row_at_float32(f):
    # math returns a Python float; the cotangent keeps the argument's float32
    x = np.float32(UNARY[f][0])
    try:
        f(x)
    except TypeError as e:         # math.trunc(np.float32): no __trunc__
        with pytest.raises(TypeError, match=re.escape(str(e))):
            rrule(f, x)
        return
    test_scalar(f, x)
    _, pb = rrule(f, x)
    assert type(pb(1.0)[1]) is np.float32


@pytest.mark.parametrize("f, args", BINARY_CASES, ids=_ids(BINARY_CASES))
def test_binary_row(f, args):
    test_frule(f, *args)
    test_rrule(f, *args)


def test_ldexp_exponent_has_no_tangent():
    test_frule(math.ldexp, 3.0, 2)
    test_rrule(math.ldexp, 0.75, -3)
    test_rrule(math.ldexp, 3.0, PrimalAndTangent(2, NT))
    _, pb = rrule(math.ldexp, 3.0, 2)
    assert pb(1.0) == (NT, 4.0, NT)
    assert frule((NT, 1.0, 5.0), math.ldexp, 3.0, 2) == (12.0, 4.0)


def test_pow_of_a_negative_base_differentiates_in_x():
    # the exponent cannot move (a fractional power of a negative number is a
    # math domain error); its partial is Ω·log|x| (ChainRules' real part)
    test_frule(math.pow, -2.0, PrimalAndTangent(3.0, NT))
    _, pb = rrule(math.pow, -2.0, 3.0)
    assert pb(1.0) == (NT, 12.0, pytest.approx(-8.0 * math.log(2.0), rel=1e-15))


# ----- the primal: exact value, type, errors ---------------------------------------------------

@pytest.mark.parametrize("f", list(UNARY), ids=[f.__name__ for f in UNARY])
def test_omega_is_the_primal_to_the_bit(f):
    lo, hi = {math.acosh: (1.0, 5.0), math.asin: (-1.0, 1.0), math.acos: (-1.0, 1.0),
              math.atanh: (-0.99, 0.99), math.log: (0.01, 50.0), math.log2: (0.01, 50.0),
              math.log10: (0.01, 50.0), math.log1p: (-0.99, 50.0), math.sqrt: (0.0, 50.0),
              math.gamma: (0.1, 30.0), math.lgamma: (0.1, 50.0)}.get(f, (-20.0, 20.0))
    for x in np.linspace(lo, hi, 57).tolist() + [lo, hi]:
        y = f(x)
        for got in (frule((NT, 1.0), f, x)[0], rrule(f, x)[0]):
            assert type(got) is type(y)
            assert got == y or (math.isnan(got) and math.isnan(y)), (f, x, got, y)


@pytest.mark.parametrize("f", [f for f in UNARY if f not in DOMAIN], ids=lambda f: f.__name__)
def test_non_finite_arguments_give_what_the_primal_gives(f):
    for x in (math.inf, -math.inf, math.nan):
        try:
            y = f(x)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e), match=re.escape(str(e))):
                frule((NT, 1.0), f, x)
            with pytest.raises(type(e), match=re.escape(str(e))):
                rrule(f, x)
            continue
        got = frule((NT, 1.0), f, x)[0]
        assert got == y or (math.isnan(got) and math.isnan(y))


DOMAIN_CASES = [(f, (x,)) for f, xs in DOMAIN.items() for x in xs] + \
    [(f, xy) for f, xys in DOMAIN2.items() for xy in xys]


@pytest.mark.parametrize("f, args", DOMAIN_CASES, ids=_ids(DOMAIN_CASES))
def test_domain_error_is_the_primals_own(f, args):
    with pytest.raises(Exception) as primal:
        f(*args)
    err = primal.value
    tangents = (NT,) + (1.0,) * len(args)
    with pytest.raises(type(err), match=re.escape(str(err))):
        frule(tangents, f, *args)
    with pytest.raises(type(err), match=re.escape(str(err))):
        rrule(f, *args)
    # NumPy scalars go through the primal too
    np_args = tuple(np.float64(a) if isinstance(a, float) else a for a in args)
    with pytest.raises(type(err)):
        rrule(f, *np_args)


def test_ints_beyond_the_double_range():
    # math.log accepts any int; its partial 1/x underflows to 0
    y, dy = frule((NT, 1.0), math.log, 10 ** 400)
    assert y == math.log(10 ** 400) and dy == 0.0
    assert rrule(math.log, 10 ** 400)[1](1.0) == (NT, 0.0)
    with pytest.raises(OverflowError):
        frule((NT, 1.0), math.sqrt, 10 ** 400)


@pytest.mark.parametrize("f", [math.floor, math.ceil, math.trunc])
def test_rounding_gives_the_primals_int_and_a_numeric_zero(f):
    for x in (2.5, -2.5, 7, 10 ** 30, 1e300, -0.0):
        y, dy = frule((NT, 1.0), f, x)
        assert y == f(x) and type(y) is int
        assert dy == 0.0 and type(dy) is float
        assert rrule(f, x)[1](1.0) == (NT, 0.0)
    # the zero keeps the sign a product would have
    assert math.copysign(1.0, frule((NT, -1.0), f, 2.5)[1]) == -1.0


def test_complex_arguments_have_no_math_rule():
    # math.sin(1j) is a TypeError of the primal: no rule, the AD calls it
    assert rrule(math.sin, 1j) is None
    assert frule((NT, 1.0), math.sqrt, 1 + 1j) is None


# ----- ChainRules' conventions ----------------------------------------------------------

def test_sqrt_derivative_at_zero_is_inf():
    for x in (0.0, -0.0, 0):
        assert frule((NT, 1.0), math.sqrt, x) == (0.0, math.inf)
        assert rrule(math.sqrt, x)[1](1.0) == (NT, math.inf)


def test_cbrt_derivative_at_zero_is_inf():
    assert frule((NT, 1.0), math.cbrt, 0.0)[1] == math.inf


def test_fabs_derivative_at_zero_is_zero():
    assert frule((NT, 1.0), math.fabs, 0.0) == (0.0, 0.0)
    assert rrule(math.fabs, -0.0)[1](1.0) == (NT, 0.0)
    assert rrule(math.fabs, -3.0)[1](1.0) == (NT, -1.0)


def test_hypot_at_the_origin_gives_zeros():
    assert frule((NT, 1.0, 1.0), math.hypot, 0.0, 0.0) == (0.0, 0.0)
    assert rrule(math.hypot, 0.0, 0.0)[1](1.0) == (NT, 0.0, 0.0)
    assert rrule(math.hypot, 0.0)[1](1.0) == (NT, 0.0)


# x ** p at x = 0: ChainRules' table (p, ∂x, ∂p)
POW_AT_ZERO = [(2.0, 0.0, 0.0), (1.0, 1.0, 0.0), (0.5, math.inf, 0.0), (3.0, 0.0, 0.0),
               (1.5, 0.0, 0.0), (0.0, 0.0, math.nan)]


@pytest.mark.parametrize("p, dx, dp", POW_AT_ZERO)
def test_pow_table_at_zero(p, dx, dp):
    _, gx, gp = rrule(math.pow, 0.0, p)[1](1.0)
    assert gx == dx
    assert gp == dp or (math.isnan(gp) and math.isnan(dp))
    assert cr.derivatives_given_output(math.pow(0.0, p), math.pow, 0.0, p)[0][0] == dx


def test_pow_zero_tangents_are_strong_zeros():
    # inf·0 and NaN·0 do not leak into the pushforward (ChainRules' iszero(Δp))
    assert frule((NT, 0.0, 1.0), math.pow, 0.0, 0.5) == (0.0, 0.0)
    assert frule((NT, 1.0, 0.0), math.pow, 0.0, 0.5) == (0.0, math.inf)
    assert frule((NT, 1.0, 0.0), math.pow, 0.0, 0.0) == (1.0, 0.0)


def test_fmod_and_remainder_jump_with_nan_partials():
    # at integer quotients fmod jumps: NaN (ChainRules' rem); elsewhere (1, -trunc(x/y))
    _, gx, gy = rrule(math.fmod, 4.0, 2.0)[1](1.0)
    assert math.isnan(gx) and math.isnan(gy)
    assert rrule(math.fmod, -7.5, 2.0)[1](1.0) == (NT, 1.0, 3.0)
    # remainder jumps at half-integer quotients; elsewhere (1, -round(x/y))
    _, gx, gy = rrule(math.remainder, 5.0, 2.0)[1](1.0)
    assert math.isnan(gx) and math.isnan(gy)
    assert rrule(math.remainder, 7.4, 2.0)[1](1.0) == (NT, 1.0, -4.0)


def test_copysign_sign_source_gets_a_numeric_zero():
    assert rrule(math.copysign, 1.5, -2.0)[1](1.0) == (NT, -1.0, 0.0)
    assert rrule(math.copysign, -1.5, -2.0)[1](1.0) == (NT, 1.0, 0.0)


def test_atan2_partials():
    y, x = 1.0, 2.0
    assert rrule(math.atan2, y, x)[1](1.0) == (NT, pytest.approx(x / 5), pytest.approx(-y / 5))


def test_gamma_derivative_is_gamma_times_digamma():
    # Γ'(1) = -γ (Euler's constant); lgamma'(1) = ψ(1) = -γ
    euler = 0.5772156649015329
    assert frule((NT, 1.0), math.gamma, 1.0)[1] == pytest.approx(-euler, rel=1e-14)
    assert frule((NT, 1.0), math.lgamma, 1.0)[1] == pytest.approx(-euler, rel=1e-14)
    # ψ(x + 1) = ψ(x) + 1/x, on both sides of 0 and across the series threshold
    for x in (-2.7, -0.3, 0.2, 3.5, 9.5, 25.0):
        d0 = frule((NT, 1.0), math.lgamma, x)[1]
        d1 = frule((NT, 1.0), math.lgamma, x + 1)[1]
        assert d1 == pytest.approx(d0 + 1 / x, rel=1e-13, abs=1e-13)
