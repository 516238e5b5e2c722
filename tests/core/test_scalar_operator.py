"""The operator and builtin rows of the C scalar table
(_core/scalar_operator.pxi): real, int and complex arguments, the in-place
forms, exact int results, the primal's errors, and ChainRules' conventions
(abs'(0) = 0, max/min ties, the x ** p table at 0, mod at integer quotients)."""

import builtins
import math
import operator
import re

import numpy as np
import pytest

from chainrules import NoTangent, ZeroTangent, frule, rrule
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()

HOLOMORPHIC = [operator.add, operator.iadd, operator.sub, operator.isub, operator.mul, operator.imul,
               operator.truediv, operator.itruediv]
POWERS = [operator.pow, operator.ipow, builtins.pow]
REAL_ONLY = [operator.floordiv, operator.ifloordiv, operator.mod, operator.imod, builtins.max,
             builtins.min]

REAL_PAIRS = [(1.5, -2.5), (-0.75, 4.0), (2, 0.75)]
COMPLEX_PAIRS = [(1 + 2j, 0.5 - 1j), (2.0, -1 + 0.5j), (-3j, 2)]


def _ids(cases):
    return [f"{f.__name__}{args}" for f, args in cases]


def _arg(x):
    # a bare int is a real number here: give it a tangent explicitly
    return PrimalAndTangent(x, 1.0) if type(x) is int else x


def _check(f, *args):
    test_frule(f, *map(_arg, args))
    test_rrule(f, *map(_arg, args))


BINARY_CASES = [(f, xy) for f in HOLOMORPHIC + REAL_ONLY for xy in REAL_PAIRS] + \
    [(f, xy) for f in HOLOMORPHIC for xy in COMPLEX_PAIRS] + \
    [(f, xy) for f in POWERS for xy in [(1.5, 2.5), (2.0, -1.0), (0.5, 3), (1 + 1j, 2.0),
                                         (1.5 - 0.5j, 0.5 + 0.5j), (2.0, 1j)]] + \
    [(f, xy) for f in (operator.mod, operator.floordiv) for xy in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0)]]


@pytest.mark.parametrize("f, args", BINARY_CASES, ids=_ids(BINARY_CASES))
def test_binary_row(f, args):
    _check(f, *args)


UNARY_CASES = [(f, x) for f in (operator.neg, operator.pos) for x in (1.5, -2.0, 3, 1 - 2j)] + \
    [(f, x) for f in (operator.abs, builtins.abs) for x in (1.5, -2.0, 3, 3 - 4j, np.float32(-2.5),
                                                          np.complex64(1 + 1j))]


@pytest.mark.parametrize("f, x", UNARY_CASES, ids=[f"{f.__name__}({x!r})" for f, x in UNARY_CASES])
def test_unary_row(f, x):
    test_scalar(f, x)


@pytest.mark.parametrize("f", HOLOMORPHIC + POWERS + REAL_ONLY, ids=lambda f: f.__name__)
def test_numpy_scalars_keep_their_type(f):
    x, y = np.float32(1.5), np.float32(2.5)
    Ω, pb = rrule(f, x, y)
    assert type(Ω) is type(f(x, y))
    _, gx, gy = pb(np.float32(1.0))
    assert type(gx) is np.float32 and type(gy) is np.float32
    Ω, dΩ = frule((NT, np.float32(1.0), np.float32(0.5)), f, x, y)
    assert type(dΩ) is type(Ω)
    _check(f, x, y)
    _check(f, np.float64(1.5), 2.5)


# ----- ints: exact results ---------------------------------------------------------

@pytest.mark.parametrize("f", HOLOMORPHIC + POWERS + REAL_ONLY, ids=lambda f: f.__name__)
def test_ints_give_the_primals_int(f):
    pairs = [(7, 3), (-7, 3), (2 ** 70, 3)] + ([] if f in POWERS else [(3, 2 ** 70)])
    for x, y in pairs:
        y_ = f(x, y)
        Ω, dΩ = frule((NT, 1.0, 1.0), f, x, y)
        assert Ω == y_ and type(Ω) is type(y_)
        assert type(dΩ) is float
        Ω, pb = rrule(f, x, y)
        assert Ω == y_ and type(Ω) is type(y_)
        assert all(type(g) is float for g in pb(1.0)[1:])


def test_int_results_beyond_the_double_range():
    Ω, dΩ = frule((NT, 1.0, ZeroTangent()), operator.mul, 10 ** 400, 2)
    assert Ω == 2 * 10 ** 400
    assert dΩ == 2.0
    assert rrule(operator.add, 10 ** 400, 1)[1](1.0) == (NT, 1.0, 1.0)


def test_a_power_that_leaves_the_reals():
    # (-8.0) ** (1/3) is complex in Python: Ω is the primal's; the pushforward
    # is complex, the (real) arguments' cotangents real (the real part)
    for f in POWERS:
        Ω, dΩ = frule((NT, 1.0, 0.0), f, -8.0, 1 / 3)
        assert Ω == f(-8.0, 1 / 3) and type(dΩ) is complex
        assert dΩ == pytest.approx((1 / 3) * Ω / -8.0)
        _, gx, gp = rrule(f, -8.0, 1 / 3)[1](1.0)
        assert type(gx) is float and type(gp) is float
        assert gx == pytest.approx(((1 / 3) * Ω / -8.0).real)
        test_frule(f, -8.0, PrimalAndTangent(1 / 3, NT))


# ----- errors and non-numbers ----------------------------------------------------------

ERRORS = [(operator.truediv, (1.0, 0.0)), (operator.truediv, (1, 0)), (operator.floordiv, (1.0, 0.0)),
          (operator.mod, (1.0, 0.0)), (operator.pow, (0.0, -1.0)), (operator.pow, (10.0, 400.0)),
          (builtins.pow, (0, -1)), (operator.itruediv, (2.0, 0))]


@pytest.mark.parametrize("f, args", ERRORS, ids=_ids(ERRORS))
def test_errors_are_the_primals_own(f, args):
    with pytest.raises(Exception) as primal:
        f(*args)
    err = primal.value
    with pytest.raises(type(err), match=re.escape(str(err))):
        frule((NT, 1.0, 1.0), f, *args)
    with pytest.raises(type(err), match=re.escape(str(err))):
        rrule(f, *args)


def test_inf_and_nan_arithmetic_gives_what_python_gives():
    for f, args in [(operator.add, (math.inf, -math.inf)), (operator.mul, (1e308, 10.0)),
                    (operator.mod, (math.inf, 2.0)), (operator.floordiv, (math.inf, 2.0)),
                    (operator.sub, (math.nan, 1.0)), (builtins.max, (1.0, math.nan)),
                    (builtins.max, (math.nan, 1.0)), (operator.pow, (-1.0, math.inf))]:
        y = f(*args)
        Ω = rrule(f, *args)[0]
        assert Ω == y or (math.isnan(Ω) and math.isnan(y)), (f, args)


def test_complex_arguments_to_real_only_operators_have_no_rule():
    # operator.mod(1j, 2.0) is the primal's TypeError: no rule, the AD calls it
    for f in (operator.mod, operator.floordiv, builtins.max):
        assert rrule(f, 1 + 1j, 2.0) is None
        assert frule((NT, 1.0, 1.0), f, 1j, 2.0) is None


def test_non_numbers_fall_through():
    # lists, strings, bools: the rows decline; no other rule here
    assert rrule(operator.add, [1.0], [2.0]) is None
    assert frule((NT, NT, NT), operator.mul, "a", 3) is None
    assert rrule(operator.add, True, 1.0) is None
    assert rrule(builtins.max, "a", "b") is None


# ----- Python's float // and % to the bit ---------------------------------------------

def test_floordiv_and_mod_are_pythons():
    rng = np.random.default_rng(4)
    xs = np.concatenate([rng.uniform(-10, 10, 200), [0.0, -0.0, 3.0, -3.0, 1e-300, 6.0]])
    ys = np.concatenate([rng.uniform(-3, 3, 200), [2.0, 2.0, 1.5, -1.5, 0.1, -2.0]])
    for x, y in zip(xs.tolist(), ys.tolist()):
        for f in (operator.mod, operator.floordiv):
            Ω = rrule(f, x, y)[0]
            assert Ω == f(x, y) and math.copysign(1, Ω) == math.copysign(1, f(x, y)), (f, x, y)


# ----- ChainRules' conventions ----------------------------------------------------------

def test_abs_derivative_at_zero_is_zero():
    for f in (operator.abs, builtins.abs):
        assert frule((NT, 1.0), f, 0.0) == (0.0, 0.0)
        assert rrule(f, -0.0)[1](1.0) == (NT, 0.0)
        assert rrule(f, 0)[1](1.0) == (NT, 0.0)
        assert rrule(f, 0j)[1](1.0) == (NT, 0j)           # complex: z/|z| with 0/0 read as 0
        assert frule((NT, 1 + 1j), f, 0j) == (0.0, 0.0)


@pytest.mark.parametrize("x, y", [(1.0, 1.0), (2, 2.0), (-0.5, -0.5)])
def test_max_and_min_ties_go_to_one_argument(x, y):
    # ChainRules' @scalar_rule max(x, y) (x > y, !(x > y)): a tie goes to y;
    # min (!(x > y), x > y): a tie goes to x
    assert rrule(builtins.max, x, y)[1](1.0) == (NT, 0.0, 1.0)
    assert rrule(builtins.min, x, y)[1](1.0) == (NT, 1.0, 0.0)
    assert frule((NT, 1.0, 2.0), builtins.max, x, y)[1] == 2.0
    assert frule((NT, 1.0, 2.0), builtins.min, x, y)[1] == 1.0


def test_max_and_min_away_from_ties():
    assert rrule(builtins.max, 3.0, 1.0)[1](2.0) == (NT, 2.0, 0.0)
    assert rrule(builtins.min, 3.0, 1.0)[1](2.0) == (NT, 0.0, 2.0)


POW_AT_ZERO = [(2.0, 0.0, 0.0), (1.0, 1.0, 0.0), (0.5, math.inf, 0.0), (3, 0.0, 0.0),
               (0.0, 0.0, math.nan), (0, 0.0, math.nan)]


@pytest.mark.parametrize("p, dx, dp", POW_AT_ZERO)
@pytest.mark.parametrize("f", POWERS, ids=lambda f: f.__name__)
def test_pow_table_at_zero(f, p, dx, dp):
    for x in (0.0, 0):
        _, gx, gp = rrule(f, x, p)[1](1.0)
        assert gx == dx
        assert gp == dp or (math.isnan(gp) and math.isnan(dp))


def test_pow_table_at_zero_for_complex_arguments():
    # a real exponent of 0j follows the same table
    _, gx, gp = rrule(operator.pow, 0j, 2.0)[1](1.0)
    assert gx == 0 and gp == 0
    _, gx, _ = rrule(operator.pow, 0j, 1.0)[1](1.0)
    assert gx == 1


def test_pow_zero_tangents_are_strong_zeros():
    assert frule((NT, 0.0, 1.0), operator.pow, 0.0, 0.5) == (0.0, 0.0)
    assert frule((NT, 1.0, ZeroTangent()), operator.pow, 0.0, 0.0) == (1.0, 0.0)
    assert frule((NT, 1.0, 0.0), builtins.pow, 0.0, 0.5) == (0.0, math.inf)


def test_mod_at_integer_quotients_is_nan():
    for f in (operator.mod, operator.imod):
        _, gx, gy = rrule(f, 4.0, 2.0)[1](1.0)
        assert math.isnan(gx) and math.isnan(gy)
        assert rrule(f, 7.5, 2.0)[1](1.0) == (NT, 1.0, -3.0)
        assert rrule(f, -7.5, 2.0)[1](1.0) == (NT, 1.0, 4.0)


def test_floordiv_is_piecewise_constant():
    assert frule((NT, 1.0, 1.0), operator.floordiv, 7.5, 2.0) == (3.0, 0.0)
    assert rrule(operator.floordiv, 7, 2)[1](1.0) == (NT, 0.0, 0.0)


def test_holomorphic_convention():
    # pushforward f'(z)·Δz, pullback conj(f'(z))·ΔΩ
    x, y = 1 + 2j, 0.5 - 1j
    assert frule((NT, 1j, 0.0), operator.mul, x, y)[1] == y * 1j
    assert rrule(operator.mul, x, y)[1](1.0) == (NT, y.conjugate(), x.conjugate())
    # a real argument given a complex cotangent keeps the real part
    assert rrule(operator.mul, 2.0, y)[1](1 + 1j) == (NT, ((1 + 1j) * y.conjugate()).real,
                                                       (1 + 1j) * 2.0)
