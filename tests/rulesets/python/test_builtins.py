"""The hand-written rules of the builtins
(chainrules/rulesets/python/builtins.py): divmod, n-ary and sequence
max/min, sum, round, float and complex, against finite differences and
ChainRules' conventions."""

import builtins
import math

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, ZeroTangent, frule, rrule
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()
ZT = ZeroTangent()


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


# ----- divmod ---------------------------------------------------------------------------------

# the arguments of the cases (also the registry sweep's samples: tests/rulesets/test_registry_sweep.py)
DIVMOD_ARGS = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (np.float32(5.5), np.float32(1.5))]
FLOAT_ARGS = [(2.5,), (np.float32(2.5),)]
COMPLEX_ARGS = [(1.5,), (1 + 2j,), (1.5, -0.5)]


@pytest.mark.parametrize("x, y", DIVMOD_ARGS)
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


def test_round_at_order_two():
    # the rule differentiated by chainrules.ad: a tracked real number is a real number
    for args in [(2.7,), (np.float32(1.3),), (2.567, PrimalAndTangent(2, NT))]:
        test_frule(round, *args, order=2)
        test_rrule(round, *args, order=2)


def test_float_of_numbers_is_the_identity():
    for (x,) in FLOAT_ARGS:
        test_scalar(float, x)
    assert frule((NT, 1.0), float, 3) == (3.0, 1.0)
    assert type(rrule(float, np.float32(2.5))[1](1.0)[1]) is np.float32
    assert rrule(float, "2.5")[1](1.0) == (NT, NT)        # nondiff.py


def test_complex_constructor():
    for args in COMPLEX_ARGS:
        if len(args) == 1:
            test_scalar(complex, *args)
        else:
            _both(complex, *args)
    assert frule((NT, 1.0, 2.0), complex, 1.5, -0.5) == (1.5 - 0.5j, 1 + 2j)
    assert rrule(complex, 1.5, -0.5)[1](3 + 4j) == (NT, 3.0, 4.0)
    assert rrule(complex, "1+2j")[1](1.0) == (NT, NT)
