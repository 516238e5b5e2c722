"""Finite difference methods: coefficients, accuracy on known derivatives, the
adaptive step (FiniteDifferences.jl's figures), bad input."""

import math

import numpy as np
import pytest

from chainrules.finite_differences import (
    FiniteDifferenceMethod,
    backward_fdm,
    central_fdm,
    estimate_step,
    forward_fdm,
)


def foo(x):
    return math.asin(0.2 + math.sin(x))


def test_seed_foo_to_1e_11():
    assert abs(central_fdm(5, 1)(foo, 3) - -1.0531613736418153) < 1e-11


def test_step_and_accuracy_match_finite_differences_jl():
    # FiniteDifferences.jl documents estimate_step(central_fdm(5, 1), sin, 1.0)
    # as (0.001065235154086019, 1.9541865128909085e-13).
    step, acc = estimate_step(central_fdm(5, 1), math.sin, 1.0)
    assert step == pytest.approx(0.001065235154086019, rel=1e-12)
    assert acc == pytest.approx(1.9541865128909085e-13, rel=1e-12)
    assert abs(central_fdm(5, 1)(math.sin, 1.0) - math.cos(1.0)) < 1e-13


def test_central_coefficients():
    assert central_fdm(5, 1).grid == (-2, -1, 0, 1, 2)
    np.testing.assert_allclose(central_fdm(5, 1).coefs, [1 / 12, -2 / 3, 0, 2 / 3, -1 / 12], atol=1e-15)
    np.testing.assert_allclose(central_fdm(3, 2).coefs, [1, -2, 1], atol=1e-15)
    assert central_fdm(4, 1).grid == (-2, -1, 1, 2)


def test_grids_of_one_sided_methods():
    assert forward_fdm(3, 1).grid == (0, 1, 2)
    assert backward_fdm(3, 1).grid == (-2, -1, 0)
    np.testing.assert_allclose(forward_fdm(2, 1).coefs, [-1, 1], atol=1e-15)


# (function, x, first derivative, second derivative)
KNOWN = [
    (math.exp, 0.3, math.exp(0.3), math.exp(0.3)),
    (math.sin, 1.2, math.cos(1.2), -math.sin(1.2)),
    (lambda x: x ** 3, -0.7, 3 * 0.49, 6 * -0.7),
    (math.log, 2.5, 1 / 2.5, -1 / 6.25),
]

# Expected accuracy by (kind, p, q): high orders are accurate to near round-off.
ACCURACY = {
    (2, 1): 1e-6, (3, 1): 1e-9, (4, 1): 1e-10, (5, 1): 1e-11, (6, 1): 1e-11, (7, 1): 1e-11,
    (3, 2): 1e-3, (4, 2): 1e-6, (5, 2): 1e-7, (6, 2): 1e-8, (7, 2): 1e-8,
}


@pytest.mark.parametrize("make", [central_fdm, forward_fdm, backward_fdm])
@pytest.mark.parametrize("p,q", sorted(ACCURACY))
@pytest.mark.parametrize("f,x,d1,d2", KNOWN)
def test_accuracy_on_known_functions(make, p, q, f, x, d1, d2):
    m = make(p, q)
    exact = d1 if q == 1 else d2
    tol = ACCURACY[(p, q)] * (1 if make is central_fdm else 100)
    assert abs(m(f, x) - exact) <= tol * max(1.0, abs(exact))


def test_higher_order_derivatives():
    assert central_fdm(7, 3)(math.sin, 0.4) == pytest.approx(-math.cos(0.4), abs=1e-6)
    assert central_fdm(9, 4)(math.exp, 0.1) == pytest.approx(math.exp(0.1), abs=1e-4)


def test_zeroth_derivative_is_the_value():
    assert central_fdm(3, 0)(math.exp, 0.5) == math.exp(0.5)


def test_vector_valued_function():
    d = central_fdm(5, 1)(lambda t: np.array([math.sin(t), t ** 2, 3.0]), 0.5)
    np.testing.assert_allclose(d, [math.cos(0.5), 1.0, 0.0], atol=1e-11)


def test_complex_valued_function():
    d = central_fdm(5, 1)(lambda t: complex(math.cos(t), math.sin(t)), 0.5)
    assert abs(d - 1j * complex(math.cos(0.5), math.sin(0.5))) < 1e-11


def test_constant_and_zero_functions_use_the_default_step():
    m = central_fdm(5, 1)
    assert m(lambda x: 0.0, 1.0) == 0.0
    assert m(lambda x: 2.0, 1.0) == pytest.approx(0.0, abs=1e-12)
    step, _ = estimate_step(m, lambda x: 0.0, 1.0)
    assert step > 0


def test_given_step_is_used():
    m = central_fdm(5, 1)
    assert m(math.sin, 1.0, 1e-3) == pytest.approx(math.cos(1.0), abs=1e-12)


def test_max_range_limits_the_evaluations():
    seen = []

    def f(x):
        seen.append(x)
        return math.exp(x)

    central_fdm(5, 1, max_range=1e-3)(f, 0.0)
    assert max(abs(x) for x in seen) <= 1e-3 * (1 + 1e-12)


def test_one_sided_methods_stay_on_their_side():
    # log is undefined left of 0: a forward method at 0+ must not evaluate there.
    def f(x):
        if x < 1e-9:
            raise ValueError(f"evaluated at {x}")
        return math.log(x)

    assert forward_fdm(5, 1, max_range=1e-3)(f, 1e-8 + 1e-3) == pytest.approx(1 / (1e-8 + 1e-3), rel=1e-6)


def test_float32_point_evaluates_in_float32():
    seen = set()

    def f(x):
        seen.add(type(x))
        return np.sin(x)

    d = central_fdm(5, 1)(f, np.float32(1.0))
    assert seen == {np.float32}
    assert abs(d - math.cos(1.0)) < 1e-3


def test_unadapted_method():
    m = central_fdm(5, 1, adapt=0)
    assert m.bound_estimator is None
    assert m(math.sin, 1.0) == pytest.approx(math.cos(1.0), abs=1e-10)


def test_custom_grid():
    m = FiniteDifferenceMethod([-3, -1, 1, 3], 1)
    assert m(math.exp, 0.2) == pytest.approx(math.exp(0.2), abs=1e-9)
    assert "grid=[-3, -1, 1, 3]" in repr(m)


@pytest.mark.parametrize("p,q", [(2, 2), (3, 5), (1, 1)])
def test_order_of_derivative_must_be_below_points(p, q):
    with pytest.raises(ValueError, match="must exceed"):
        central_fdm(p, q)


def test_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        central_fdm(3, -1)
    with pytest.raises(ValueError, match="repeated"):
        FiniteDifferenceMethod([0, 1, 1], 1)
    with pytest.raises(TypeError, match="real number"):
        central_fdm(5, 1)(math.sin, 1j)
