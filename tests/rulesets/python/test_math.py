"""The hand-written rules of `math` (chainrules/rulesets/python/math.py):
n-ary and sequence functions (hypot, dist, fsum, prod, sumprod) and the
multi-output ones (modf, frexp), against finite differences and ChainRules'
conventions."""

import math
import re

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, ZeroTangent, frule, rrule
from chainrules.rulesets.python import math as math_rules
from chainrules.testing import test_frule, test_rrule

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

# the arguments of the cases (also the registry sweep's samples: tests/rulesets/test_registry_sweep.py)
DIST_ARGS = [((1.0, 2.0), (3.0, 5.0)), ([1.0, -2.0, 0.5], [0.0, 1.0, 2.0]),
             (np.array([1.0, 2.0]), np.array([0.5, -1.0]))]
FSUM_ARGS = [([1.0, 2.5, -3.0],), ((0.1, 0.2, 0.3),), (np.array([0.1, 1e-3, -2.0]),)]
PROD_ARGS = [([1.5, 2.0, -3.0],), ((2.0, 0.0, 3.0),), ([0.0, 2.0, 0.0],), ([1 + 1j, 2.0, 0.5j],),
             (np.array([1.5, -2.0]),)]
MODF_ARGS = [2.75, -2.75, 0.5, np.float32(1.25)]
FREXP_ARGS = [3.0, -0.1, 1e10, np.float64(5.5)]


@pytest.mark.parametrize("p, q", DIST_ARGS)
def test_dist(p, q):
    _both(math.dist, p, q)


def test_dist_of_equal_points_gives_zeros():
    _, gp, gq = rrule(math.dist, (1.0, 2.0), (1.0, 2.0))[1](1.0)
    assert gp == Tangent[tuple](0.0, 0.0) and gq == Tangent[tuple](-0.0, -0.0)


def test_dist_errors_are_the_primals():
    with pytest.raises(ValueError, match=re.escape("both points must have the same number of dimensions")):
        rrule(math.dist, (1.0, 2.0), (1.0,))


@pytest.mark.parametrize("xs", [a for (a,) in FSUM_ARGS])
def test_fsum(xs):
    _both(math.fsum, xs)


@pytest.mark.parametrize("xs", [a for (a,) in PROD_ARGS])
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
        assert not hasattr(math_rules, "sumprod_rrule")


def test_sequence_rules_decline_what_they_cannot_replay():
    assert rrule(math.fsum, iter([1.0, 2.0])) is None
    assert rrule(math.fsum, ["a"]) is None
    assert rrule(math.prod, np.ones((2, 2))) is None


# ----- multi-output: math.modf, math.frexp -------------------------------------------------

@pytest.mark.parametrize("x", MODF_ARGS)
def test_modf(x):
    _both(math.modf, x)
    Ω, dΩ = frule((NT, 1.0), math.modf, x)
    assert Ω == math.modf(x) and dΩ == Tangent[tuple](1.0, 0.0)
    pb = rrule(math.modf, x)[1]
    assert pb(Tangent[tuple](2.0, 5.0)) == (NT, 2.0) == pb((2.0, 5.0))
    assert pb(ZT) == (NT, ZT)
    assert pb(Tangent[tuple](ZT, 1.0)) == (NT, ZT)


@pytest.mark.parametrize("x", FREXP_ARGS)
def test_frexp(x):
    test_frule(math.frexp, x)
    test_rrule(math.frexp, x)
    m, e = math.frexp(x)
    assert frule((NT, 1.0), math.frexp, x)[1] == Tangent[tuple](2.0 ** -e, NT)
    assert rrule(math.frexp, x)[1](Tangent[tuple](1.0, NT)) == (NT, 2.0 ** -e)
