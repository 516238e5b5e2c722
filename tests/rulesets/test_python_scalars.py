"""The hand-written scalar rules (chainrules/rulesets/python_scalars.py):
n-ary and sequence functions, multi-output functions, the non-holomorphic
complex functions and the builtins, against finite differences and
ChainRules' conventions."""

import builtins
import cmath
import math
import operator
import re

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, Thunk, ZeroTangent, frule, rrule
from chainrules.rulesets import python_scalars
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()
ZT = ZeroTangent()


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


# ----- math.hypot, n-ary -------------------------------------------------------------------

@pytest.mark.parametrize("args", [(1.0, 2.0, 2.0), (3.0, -4.0, 12.0, 0.5), (np.float32(1.5), 2.0, -0.5)])
def test_hypot_n_ary(args):
    _both(math.hypot, *args)


def test_hypot_n_ary_conventions():
    assert rrule(math.hypot, 0.0, 0.0, 0.0)[1](1.0) == (NT, 0.0, 0.0, 0.0)   # zeros at the origin
    assert frule((NT,), math.hypot) == (0.0, ZT)                               # hypot() = 0
    assert rrule(math.hypot, 3, 4, 12)[1](1.0) == (NT, 3 / 13, 4 / 13, 12 / 13)
    assert rrule(math.hypot, 1j, 2.0, 3.0) is None                             # math has no complex


# ----- math.dist, fsum, prod --------------------------------------------------------------

@pytest.mark.parametrize("p, q", [((1.0, 2.0), (3.0, 5.0)), ([1.0, -2.0, 0.5], [0.0, 1.0, 2.0]),
                                  (np.array([1.0, 2.0]), np.array([0.5, -1.0]))])
def test_dist(p, q):
    _both(math.dist, p, q)


def test_dist_of_equal_points_gives_zeros():
    _, gp, gq = rrule(math.dist, (1.0, 2.0), (1.0, 2.0))[1](1.0)
    assert gp == Tangent[tuple](0.0, 0.0) and gq == Tangent[tuple](-0.0, -0.0)


def test_dist_errors_are_the_primals():
    with pytest.raises(ValueError, match=re.escape("both points must have the same number of dimensions")):
        rrule(math.dist, (1.0, 2.0), (1.0,))


@pytest.mark.parametrize("xs", [[1.0, 2.5, -3.0], (0.1, 0.2, 0.3), np.array([0.1, 1e-3, -2.0])])
def test_fsum(xs):
    _both(math.fsum, xs)


@pytest.mark.parametrize("xs", [[1.5, 2.0, -3.0], (2.0, 0.0, 3.0), [0.0, 2.0, 0.0],
                                [1 + 1j, 2.0, 0.5j], np.array([1.5, -2.0])])
def test_prod(xs):
    _both(math.prod, xs)


def test_prod_is_exact_with_zeros_and_takes_start():
    _, g = rrule(math.prod, [2.0, 0.0, 3.0])[1](1.0)
    assert g == Tangent[list](0.0, 6.0, 0.0)
    _, g = rrule(math.prod, [0.0, 0.0, 3.0])[1](1.0)
    assert g == Tangent[list](0.0, 0.0, 0.0)
    Ω, g = rrule(math.prod, [2.0, 3.0], start=5.0)[1](1.0)[0], rrule(math.prod, [2.0, 3.0], start=5.0)[1](1.0)[1]
    assert g == Tangent[list](15.0, 10.0)
    test_rrule(math.prod, [2.0, 3.0], fkwargs={"start": 5.0})


def test_sumprod_where_python_has_it():
    if hasattr(math, "sumprod"):
        _both(math.sumprod, [1.0, 2.0], [3.0, -1.0])
    else:
        assert not hasattr(python_scalars, "sumprod_rrule")


def test_sequence_rules_decline_what_they_cannot_replay():
    assert rrule(math.fsum, iter([1.0, 2.0])) is None
    assert rrule(math.fsum, ["a"]) is None
    assert rrule(math.prod, np.ones((2, 2))) is None


# ----- multi-output: math.modf, math.frexp, divmod, cmath.polar --------------------------

@pytest.mark.parametrize("x", [2.75, -2.75, 0.5, np.float32(1.25)])
def test_modf(x):
    _both(math.modf, x)
    Ω, dΩ = frule((NT, 1.0), math.modf, x)
    assert Ω == math.modf(x) and dΩ == Tangent[tuple](1.0, 0.0)
    pb = rrule(math.modf, x)[1]
    assert pb(Tangent[tuple](2.0, 5.0)) == (NT, 2.0) == pb((2.0, 5.0))
    assert pb(ZT) == (NT, ZT)
    assert pb(Tangent[tuple](ZT, 1.0)) == (NT, ZT)


@pytest.mark.parametrize("x", [3.0, -0.1, 1e10, np.float64(5.5)])
def test_frexp(x):
    test_frule(math.frexp, x)
    test_rrule(math.frexp, x)
    m, e = math.frexp(x)
    assert frule((NT, 1.0), math.frexp, x)[1] == Tangent[tuple](2.0 ** -e, NT)
    assert rrule(math.frexp, x)[1](Tangent[tuple](1.0, NT)) == (NT, 2.0 ** -e)


@pytest.mark.parametrize("x, y", [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (np.float32(5.5), np.float32(1.5))])
def test_divmod(x, y):
    _both(divmod, x, y)


def test_divmod_conventions_and_errors():
    _, gx, gy = rrule(divmod, 4.0, 2.0)[1](Tangent[tuple](0.0, 1.0))     # mod jumps: NaN
    assert math.isnan(gx) and math.isnan(gy)
    assert rrule(divmod, 7.5, 2.0)[1](Tangent[tuple](1.0, 1.0)) == (NT, 1.0, -3.0)
    Ω, dΩ = frule((NT, 1.0, 0.0), divmod, 7, 2)
    assert Ω == (3, 1) and dΩ == Tangent[tuple](0.0, 1.0)
    with pytest.raises(ZeroDivisionError):
        rrule(divmod, 1.0, 0.0)
    assert rrule(divmod, 1j, 2.0) is None


@pytest.mark.parametrize("z", [1 + 1j, -2 + 0.5j, 3.0, -3.0, np.complex64(0.5 - 1j)])
def test_polar(z):
    _both(cmath.polar, z)


def test_polar_at_zero_gives_zeros():
    assert rrule(cmath.polar, 0j)[1](Tangent[tuple](1.0, 1.0)) == (NT, 0j)


# ----- cmath.phase, cmath.rect, abs and conjugate of complex numbers ------------------------

@pytest.mark.parametrize("z", [1 + 1j, -2 + 0.5j, 0.5 - 3j, 2.0, -2.0, np.complex64(1 - 1j)])
def test_phase(z):
    test_scalar(cmath.phase, z)


def test_phase_conventions():
    # the gradient is (-y + ix)/|z|²; 0 at the origin; a real argument's cotangent is 0
    assert rrule(cmath.phase, 1 + 1j)[1](1.0) == (NT, pytest.approx(complex(-0.5, 0.5)))
    assert rrule(cmath.phase, 0j)[1](1.0) == (NT, 0j)
    assert rrule(cmath.phase, -2.0)[1](1.0) == (NT, 0.0)
    assert frule((NT, 1j), cmath.phase, 2.0)[1] == pytest.approx(0.5)


@pytest.mark.parametrize("r, φ", [(2.0, 0.5), (0.5, -2.0), (3, 1.0), (np.float32(1.5), np.float32(0.25))])
def test_rect(r, φ):
    _both(cmath.rect, PrimalAndTangent(r, 1.0) if type(r) is int else r, φ)


@pytest.mark.parametrize("f", [builtins.abs, operator.abs])
@pytest.mark.parametrize("z", [3 - 4j, -1j, np.complex64(1 + 2j), np.complex128(-0.5 + 0.5j)])
def test_abs_of_complex(f, z):
    test_scalar(f, z)


def test_abs_of_complex_at_zero_is_zero():
    assert rrule(abs, 0j)[1](1.0) == (NT, 0j)
    assert frule((NT, 1 + 1j), abs, 0j) == (0.0, 0.0)
    Ω, g = rrule(abs, np.complex64(0))[0], rrule(abs, np.complex64(0))[1](np.float32(1.0))[1]
    assert type(Ω) is np.float32 and type(g) is np.complex64 and g == 0


@pytest.mark.parametrize("z", [1 + 2j, -0.5 - 3j])
def test_complex_conjugate(z):
    _both(complex.conjugate, z)
    assert frule((NT, 1j), complex.conjugate, z) == (z.conjugate(), -1j)


# ----- max and min, n-ary and over sequences -------------------------------------------------

@pytest.mark.parametrize("f", [builtins.max, builtins.min])
@pytest.mark.parametrize("args", [(1.0, 3.0, 2.0), (2.5, -1.0, 0.5, 4.0), (np.float32(1.5), 2.0, -0.5)])
def test_max_min_n_ary(f, args):
    _both(f, *args)


@pytest.mark.parametrize("f", [builtins.max, builtins.min])
@pytest.mark.parametrize("xs", [[1.0, 3.0, 2.0], (2.5, -1.0, 0.5), np.array([1.5, 2.0, -0.5])])
def test_max_min_of_a_sequence(f, xs):
    _both(f, xs)


def test_max_min_ties_go_to_the_first():
    # n-ary and sequences: the element Python returns, the first extreme one
    # (ChainRules' maximum/findmax); max of two numbers is the C row's rule
    assert rrule(max, 1.0, 1.0, 1.0)[1](1.0) == (NT, 1.0, 0.0, 0.0)
    assert rrule(min, 2.0, 1.0, 1.0)[1](1.0) == (NT, 0.0, 1.0, 0.0)
    assert rrule(max, [3.0, 3.0])[1](1.0) == (NT, Tangent[list](1.0, 0.0))
    assert frule((NT, [1.0, 2.0, 3.0]), max, [1.0, 5.0, 5.0])[1] == 2.0


def test_max_min_with_key_and_default():
    xs = [1.0, -3.0, 2.0]
    Ω, pb = rrule(max, xs, key=abs)
    assert Ω == -3.0 and pb(1.0) == (NT, Tangent[list](0.0, 1.0, 0.0))
    test_rrule(max, xs, fkwargs={"key": abs})
    Ω, pb = rrule(min, [], default=5.0)
    assert Ω == 5.0 and pb(1.0) == (NT, ZT)
    with pytest.raises(ValueError, match="empty"):
        rrule(max, [])


def test_max_min_decline_non_numbers():
    assert rrule(max, "a", "b", "c") is None
    assert rrule(max, ["a", "b"]) is None
    assert rrule(min, iter([1.0, 2.0])) is None
    assert rrule(max, 1j, 2j, 3j) is None


# ----- sum ------------------------------------------------------------------------------------

@pytest.mark.parametrize("xs", [[1.0, 2.5, -3.0], (0.5, 2.0), [1 + 1j, 2.0], np.array([1.5, -2.0])])
def test_sum(xs):
    _both(sum, xs)


def test_sum_start():
    _both(sum, [1.0, 2.0], 10.0)
    assert rrule(sum, [1.0, 2.0], 10.0)[1](1.0) == (NT, Tangent[list](1.0, 1.0), 1.0)
    # start as a keyword gets no tangent
    Ω, pb = rrule(sum, [1.0, 2.0], start=10.0)
    assert Ω == 13.0 and pb(1.0) == (NT, Tangent[list](1.0, 1.0))
    assert frule((NT, [1.0, 1.0], 3.0), sum, [1.0, 2.0], 10.0)[1] == 5.0
    assert rrule(sum, [1.0], 2.0, start=3.0) is None     # the primal's TypeError


def test_sum_declines_non_numbers():
    assert rrule(sum, [[1.0], [2.0]], []) is None
    assert rrule(sum, (x for x in [1.0])) is None


# ----- round, float, complex ------------------------------------------------------------------

@pytest.mark.parametrize("args", [(2.7,), (-2.5,), (2.567, 2), (2.567, None), (np.float64(1.27), 1), (15, -1)])
def test_round_is_piecewise_constant(args):
    Ω, dΩ = frule((NT, 1.0) + (NT,) * (len(args) - 1), round, *args)
    assert Ω == round(*args) and dΩ == 0.0
    _, *gs = rrule(round, *args)[1](1.0)
    assert gs[0] == 0.0 and all(g is NT for g in gs[1:])
    test_rrule(round, *args[:1], *(PrimalAndTangent(a, NT) for a in args[1:]))


def test_float_of_numbers_is_the_identity():
    test_scalar(float, 2.5)
    test_scalar(float, np.float32(2.5))
    assert frule((NT, 1.0), float, 3) == (3.0, 1.0)
    assert type(rrule(float, np.float32(2.5))[1](1.0)[1]) is np.float32
    assert rrule(float, "2.5")[1](1.0) == (NT, NT)        # nondiff.py


def test_complex_constructor():
    test_scalar(complex, 1.5)
    test_scalar(complex, 1 + 2j)
    _both(complex, 1.5, -0.5)
    assert frule((NT, 1.0, 2.0), complex, 1.5, -0.5) == (1.5 - 0.5j, 1 + 2j)
    assert rrule(complex, 1.5, -0.5)[1](3 + 4j) == (NT, 3.0, 4.0)
    assert rrule(complex, "1+2j")[1](1.0) == (NT, NT)


# ----- cotangents of every kind reach the hand-written rules too -------------------------------

def test_thunks_and_zeros_as_cotangents():
    pb = rrule(cmath.phase, 1 + 1j)[1]
    assert pb(Thunk(lambda: 1.0)) == pb(1.0)
    assert pb(ZT) == (NT, ZT)
    with pytest.raises(ValueError, match="pullback of cmath.phase: expected a scalar cotangent"):
        pb(np.ones(2))
    with pytest.raises(TypeError, match="pullback of math.modf"):
        rrule(math.modf, 1.5)[1]("a")


def test_ints_in_sequences_are_real_numbers():
    # the project's decision: a Python int is a real number with a float tangent
    assert rrule(sum, [1, 2])[1](1.0) == (NT, Tangent[list](1.0, 1.0))
    assert rrule(max, [1, 3, 2])[1](1.0) == (NT, Tangent[list](0.0, 1.0, 0.0))
    assert frule((NT, [1.0, 2.0]), math.fsum, [1, 2]) == (3.0, 3.0)
