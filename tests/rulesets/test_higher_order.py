"""chainrules.rulesets.higher_order: map, functools.reduce,
itertools.accumulate, sorted/min/max with key=, np.vectorize,
np.apply_along_axis — with the testing kit's TestConfig and through the
engines of chainrules.ad."""

import functools
import itertools
import math
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm, grad as fd_grad
from chainrules.rulesets import higher_order
from chainrules.testing import PrimalAndTangent, TestConfig, test_approx, test_frule, test_rrule

FDM = central_fdm(5, 1)
ENGINES = {"forward": ad.derivative, "reverse": ad.gradient}


# map and accumulate return lazy iterators: the testers compare and
# differentiate them as the list of their elements (testing.materialize),
# which is the rules' Ω.

def square(x):
    return x * x


def poly(x, y):
    return x * y + x


# ----- the rules with TestConfig -------------------------------------------------------

@pytest.mark.parametrize("f, args", [
    (math.sin, ([0.1, 0.5, 0.9],)),
    (square, ((0.1, -2.0),)),
    (poly, ([0.3, 0.6], (1.5, 2.5, 3.5))),
    (np.sin, (np.array([0.1, 0.2]),)),
])
def test_map(f, args):
    test_rrule(TestConfig(), map, f, *args)
    test_frule(TestConfig(), map, f, *args)


@pytest.mark.parametrize("f, xs, init", [
    (operator.mul, [1.5, 2.0, -0.5], ()),
    (poly, (0.2, 0.4, 0.6, 0.8), ()),
    (poly, [0.5, 1.5], (2.0,)),
    (operator.add, np.array([1.0, 2.0, 3.0]), ()),
])
def test_reduce(f, xs, init):
    test_rrule(TestConfig(), functools.reduce, f, xs, *init)
    test_frule(TestConfig(), functools.reduce, f, xs, *init)


@pytest.mark.parametrize("args, kwargs", [
    (([1.0, 2.0, 3.0],), {}),
    (([1.0, 2.0, 3.0], operator.mul), {}),
    (((0.5, 1.5, -1.0), poly), {}),
    (([1.0, 2.0],), {"initial": 3.0}),
])
def test_accumulate(args, kwargs):
    test_rrule(TestConfig(), itertools.accumulate, *args, fkwargs=kwargs)
    test_frule(TestConfig(), itertools.accumulate, *args, fkwargs=kwargs)


@pytest.mark.parametrize("xs, kwargs", [
    ([3.0, -1.0, 2.0], {}),
    ([3.0, -1.0, 2.0], {"key": abs}),
    ((0.5, -2.5, 1.5, 1.0), {"key": lambda v: v * v, "reverse": True}),
    (np.array([0.3, 0.1, 0.2]), {}),
])
def test_sorted(xs, kwargs):
    test_rrule(TestConfig(), sorted, xs, fkwargs=kwargs)
    test_frule(TestConfig(), sorted, xs, fkwargs=kwargs)


@pytest.mark.parametrize("f", [min, max])
@pytest.mark.parametrize("args, kwargs", [
    (([3.0, -1.0, 2.0],), {"key": abs}),
    (([3.0, -1.0, 2.0],), {}),
    ((3.0, -1.0, 2.0), {"key": lambda v: -v}),
    (([],), {"default": 1.0}),
])
def test_min_max_with_key(f, args, kwargs):
    test_rrule(TestConfig(), f, *args, fkwargs=kwargs)
    test_frule(TestConfig(), f, *args, fkwargs=kwargs)


def test_min_max_ties_go_to_the_first():
    _, pb = cr.rrule(TestConfig(), max, [1.0, 2.0, 2.0], key=abs)
    assert pb(1.0) == (cr.NoTangent(), [0.0, 1.0, 0.0])
    _, pb = cr.rrule(TestConfig(), min, 2.0, 1.0, 1.0, key=abs)
    assert pb(1.0) == (cr.NoTangent(), 0.0, 1.0, 0.0)


def test_min_max_bad_input_is_the_primal_error():
    with pytest.raises(ValueError, match="empty"):
        cr.rrule(TestConfig(), max, [], key=abs)
    with pytest.raises(TypeError, match="default"):
        cr.rrule(TestConfig(), max, 1.0, 2.0, default=3.0)


@pytest.mark.parametrize("args", [
    (np.array([0.1, 0.5, 0.9]),),
    (np.array([[0.1, 0.5], [0.9, 1.3]]), 2.0),
    (np.array([0.1, 0.5]), np.array([[1.0], [2.0]])),
])
def test_vectorize(args):
    vec = np.vectorize(lambda x, y=1.0: math.sin(x) * y + x)
    test_rrule(TestConfig(), vec, *args)
    test_frule(TestConfig(), vec, *args)


def test_vectorize_declines_what_it_does_not_handle():
    vec = np.vectorize(lambda x: x, signature="(n)->(n)")
    assert cr.rrule(TestConfig(), vec, np.ones(2)) is None
    assert cr.frule(TestConfig(), (cr.NoTangent(), np.ones(2)), vec, np.ones(2)) is None


@pytest.mark.parametrize("func1d, axis, arr, args", [
    (np.sum, 0, np.arange(6.0).reshape(2, 3) / 7, ()),
    (lambda r: r * r[0], 1, np.arange(6.0).reshape(2, 3) / 7, ()),
    (lambda r, s: np.cumsum(r) * s, -1, np.arange(24.0).reshape(2, 3, 4) / 9, (1.5,)),
    (lambda r: np.outer(r, r), 0, np.array([[0.5, 1.0], [2.0, -1.0]]), ()),
])
def test_apply_along_axis(func1d, axis, arr, args):
    test_rrule(TestConfig(), np.apply_along_axis, func1d, PrimalAndTangent(axis, cr.NoTangent()), arr, *args)
    test_frule(TestConfig(), np.apply_along_axis, func1d, PrimalAndTangent(axis, cr.NoTangent()), arr, *args)


# ----- through the engines -----------------------------------------------------------------

@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_engines_use_the_rules_and_do_not_trace_the_higher_order_function(engine, monkeypatch):
    calls = []
    rule = higher_order.map_rrule if engine == "reverse" else higher_order.map_frule

    def spy(*args, **kwargs):
        calls.append(1)
        return rule(*args, **kwargs)

    kind = cr.register_rrule if engine == "reverse" else cr.register_frule
    with pytest.warns(cr.RuleOverwriteWarning, match="of map: a rule for the signature"):
        kind(map, config=engine)(spy)
    try:
        f = lambda x: sum(ad.wrap(map)(admath.sin, [x, 2 * x]))   # noqa: E731
        test_approx(ENGINES[engine](f, 0.3), math.cos(0.3) + 2 * math.cos(0.6))
        assert calls
    finally:
        with pytest.warns(cr.RuleOverwriteWarning):
            kind(map, config=engine)(rule)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_engines_through_each_rule(engine):
    D = ENGINES[engine]
    w = ad.wrap
    cases = [
        (lambda a: sum(w(map)(lambda x: x * a, [1.0, 2.0, 3.0])), 2.0, 6.0),
        (lambda a: w(functools.reduce)(lambda s, x: s * x + a, [1.0, 2.0, 3.0], a), 0.5, None),
        (lambda a: list(w(itertools.accumulate)([a, 2.0, a * a], operator.mul))[-1], 1.5, 6 * 1.5 ** 2),
        (lambda a: w(sorted)([a, -a, 2.0], key=abs)[-1], 3.0, -1.0),
        (lambda a: w(max)([a, 2 * a, -3 * a], key=abs), 1.0, -3.0),
        (lambda a: np.sum(w(np.vectorize(lambda x: admath.sin(x) * a))(np.array([0.1, 0.2]))), 2.0, None),
        (lambda a: np.sum(w(np.apply_along_axis)(lambda r: np.sum(r * a), 0, np.ones((2, 3)))), 2.0, 6.0),
    ]
    for f, x, expected in cases:
        plain = FDM(f, x)
        test_approx(D(f, x), plain, rtol=1e-7, atol=1e-7)
        if expected is not None:
            test_approx(D(f, x), expected, rtol=1e-12, atol=1e-12)


def test_gradient_with_respect_to_the_sequence():
    xs = np.array([0.3, 0.7, 1.1])
    f = lambda xs: np.sum(ad.wrap(np.vectorize(lambda x: x * admath.exp(x)))(xs))   # noqa: E731
    test_approx(ad.gradient(f, xs), (1 + xs) * np.exp(xs))
    g = lambda xs: sum(ad.wrap(map)(admath.sin, xs))   # noqa: E731
    test_approx(ad.gradient(g, [0.3, 0.7]), [math.cos(0.3), math.cos(0.7)])
    h = lambda xs: ad.wrap(functools.reduce)(operator.mul, xs)   # noqa: E731
    test_approx(ad.gradient(h, (2.0, 3.0, 4.0)), cr.Tangent[tuple](12.0, 8.0, 6.0))
    a = lambda x: np.sum(np.apply_along_axis(lambda r: r[0] * r[1], 1, x))   # noqa: E731
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    test_approx(ad.gradient(a, x), fd_grad(FDM, a, x)[0])


def test_a_numpy_higher_order_call_with_only_a_captured_tracked_value_needs_wrap():
    # NumPy dispatches on array arguments: with plain arrays and a closure over a
    # tracked value, np.apply_along_axis runs as is and stops at the tracked output
    f = lambda a: np.sum(np.apply_along_axis(lambda r: np.sum(r * a), 0, np.ones((2, 3))))   # noqa: E731
    with pytest.raises(TypeError, match="would lose its derivative"):
        ad.gradient(f, 2.0)
    g = lambda a: np.sum(ad.wrap(np.apply_along_axis)(lambda r: np.sum(r * a), 0, np.ones((2, 3))))  # noqa: E731
    assert ad.gradient(g, 2.0) == 6.0
