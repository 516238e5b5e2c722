"""test_frule / test_rrule with order=2: differentiable rules pass, and a rule
whose body cannot be differentiated, whose pullback is right at x0 only, or
which is not linear in ȳ fails with a message that says so."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import AbstractZero, NoTangent, unthunk
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

X0 = np.array([0.3, -0.7, 1.1])


def _both(f, *args, **kw):
    test_frule(f, *args, order=2, **kw)
    test_rrule(f, *args, order=2, **kw)


# ----- rules chainrules.ad differentiates pass ------------------------------------

@pytest.mark.parametrize("f, x", [
    (np.sin, X0), (np.exp, X0), (np.tanh, X0.reshape(3, 1) * np.ones((3, 2))),
    (np.exp, np.array([0.3 + 0.2j, -0.5 - 1.0j])), (np.sin, np.array(0.4)),
    (np.log, np.array([0.5 + 0.5j, 2.0 - 1.0j])),
], ids=["sin", "exp", "tanh-2d", "exp-complex", "sin-0d", "log-complex"])
def test_numpy_unary_rules_pass(f, x):
    _both(f, x)


def test_numpy_binary_rule_passes_with_broadcasting():
    _both(np.multiply, X0, np.array([[0.5], [2.0]]))
    _both(np.divide, X0, np.array([1.5, -2.0, 0.8]))


def test_float32_at_order_two():
    _both(np.sin, X0.astype(np.float32))


def test_fixed_argument_is_held_fixed():
    test_frule(np.multiply, X0, PrimalAndTangent(np.array([0.5, 2.0, 1.0]), NoTangent()), order=2)


def test_user_rule_written_with_numpy_calls_passes(registry):
    def cube(x):
        return x * x * x

    @cr.register_rrule(cube)
    def cube_rrule(x):
        def cube_pullback(ȳ):
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ȳ
            return NoTangent(), 3 * x * x * ȳ
        return cube(x), cube_pullback

    @cr.register_frule(cube)
    def cube_frule(dargs, x):
        return cube(x), 3 * x * x * unthunk(dargs[1])

    _both(cube, X0)


# ----- rules that are not differentiable fail -------------------------------------

def _sin_rules(pullback_factor, pushforward_factor=None):
    """Rules for a fresh sin whose derivative is factor(x)."""
    def mysin(x):
        return np.sin(x)

    @cr.register_rrule(mysin)
    def mysin_rrule(x):
        def mysin_pullback(ȳ):
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ȳ
            return NoTangent(), ȳ * pullback_factor(x)
        return np.sin(x), mysin_pullback

    @cr.register_frule(mysin)
    def mysin_frule(dargs, x):
        dx = unthunk(dargs[1])
        if isinstance(dx, AbstractZero):
            return np.sin(x), dx
        return np.sin(x), dx * (pushforward_factor or pullback_factor)(x)

    return mysin


def test_body_converting_with_asarray_fails_clearly(registry):
    mysin = _sin_rules(lambda x: np.cos(np.asarray(x)))
    test_rrule(mysin, X0)                    # right at first order
    test_frule(mysin, X0)
    with pytest.raises(AssertionError, match=r"order 2: the rrule .* of .*mysin is not differentiable by "
                                             r"chainrules.ad: TypeError: converting a tracked"):
        test_rrule(mysin, X0, order=2)
    with pytest.raises(AssertionError, match=r"order 2: the frule .* of .*mysin is not differentiable"):
        test_frule(mysin, X0, order=2)


def test_body_calling_float_fails_clearly(registry):
    def mycos(x):
        return np.cos(x)

    @cr.register_rrule(mycos)
    def mycos_rrule(x):
        def mycos_pullback(ȳ):
            return NoTangent(), -np.sin(float(x)) * unthunk(ȳ)
        return np.cos(x), mycos_pullback

    test_rrule(mycos, 0.4)
    with pytest.raises(AssertionError, match=r"mycos is not differentiable by chainrules.ad: TypeError: "
                                             r"float\(\) of a tracked Dual"):
        test_rrule(mycos, 0.4, order=2)


def test_frozen_derivative_passes_first_order_and_fails_second(registry):
    # the pullback is right at X0 but does not vary with x: cos(X0) is a constant
    cos_x0 = np.cos(X0)
    mysin = _sin_rules(lambda x: cos_x0)
    test_rrule(mysin, X0)
    test_frule(mysin, X0)
    with pytest.raises(AssertionError, match=r"order 2: the derivative of x ↦ pullback_x\(ȳ\) along v, paired "
                                             r"with w, \(got\) differs from the mixed second derivative "
                                             r"∂²⟨ȳ, .*mysin\(x\)⟩/∂v∂w by finite differences of the primal"):
        test_rrule(mysin, X0, order=2)
    with pytest.raises(AssertionError, match=r"order 2: the derivative of x ↦ ΔΩ\(x, ẋ\) along v \(got\) "
                                             r"differs from the mixed second derivative"):
        test_frule(mysin, X0, order=2)


def test_wrong_formula_of_x_with_the_right_value_at_x0_fails(registry):
    # cos(x) + (x - X0): the right value at X0, the wrong slope there
    mysin = _sin_rules(lambda x: np.cos(x) + (x - X0))
    test_rrule(mysin, X0)
    with pytest.raises(AssertionError, match=r"differs from the mixed second derivative"):
        test_rrule(mysin, X0, order=2)
    with pytest.raises(AssertionError, match=r"differs from the mixed second derivative"):
        test_frule(mysin, X0, order=2)


def test_pullback_not_linear_in_the_seed_fails(registry):
    seed = np.array([1.0, -0.5, 2.0])

    def mysin(x):
        return np.sin(x)

    @cr.register_rrule(mysin)
    def mysin_rrule(x):
        def mysin_pullback(ȳ):
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ȳ
            return NoTangent(), ȳ * np.cos(x) + (ȳ - seed) ** 2   # right at the tester's seed only
        return np.sin(x), mysin_pullback

    test_rrule(mysin, X0, output_tangent=seed)
    with pytest.raises(AssertionError, match=r"order 2: cotangent of argument 1 .*the pullback is not linear "
                                             r"in ȳ"):
        test_rrule(mysin, X0, output_tangent=seed, order=2)


def test_pushforward_not_linear_in_the_tangent_fails(registry):
    dx0 = np.array([0.5, 1.0, -1.5])

    def mysin(x):
        return np.sin(x)

    @cr.register_frule(mysin)
    def mysin_frule(dargs, x):
        dx = unthunk(dargs[1])
        if isinstance(dx, AbstractZero):
            return np.sin(x), dx
        return np.sin(x), dx * np.cos(x) + (dx - dx0) ** 2

    test_frule(mysin, PrimalAndTangent(X0, dx0))
    with pytest.raises(AssertionError, match=r"ΔΩ of the frule is not linear in the tangents"):
        test_frule(mysin, PrimalAndTangent(X0, dx0), order=2)


def test_rule_refusing_tracked_arguments_fails(registry):
    def mysin(x):
        return np.sin(x)

    @cr.register_rrule(mysin, np.ndarray)
    def mysin_rrule(x):
        return np.sin(x), lambda ȳ: (NoTangent(), unthunk(ȳ) * np.cos(x))

    test_rrule(mysin, X0)
    with pytest.raises(AssertionError, match=r"mysin is not differentiable: cr.rrule returned None for the "
                                             r"tracked arguments \(Dual\)"):
        test_rrule(mysin, X0, order=2)


@pytest.mark.parametrize("order", [0, 3, True, "2"])
def test_order_must_be_one_or_two(order):
    with pytest.raises(ValueError, match="order must be 1 or 2"):
        test_rrule(np.sin, X0, order=order)
    with pytest.raises(ValueError, match="order must be 1 or 2"):
        test_frule(np.sin, X0, order=order)


def test_backend_f_without_backend_is_an_error():
    with pytest.raises(TypeError, match="backend_f= needs backend="):
        test_rrule(np.sin, X0, backend_f=np.cos)


def test_body_hiding_x_from_the_ad_fails(registry):
    # the pullback reads x's value past the tracking (as a buggy conversion would): chainrules.ad
    # sees a constant, finite differences of the same map see cos(x) vary
    from chainrules._core import _ad_strip_all
    mysin = _sin_rules(lambda x: np.cos(_ad_strip_all(x)))
    test_rrule(mysin, X0)
    with pytest.raises(AssertionError, match=r"order 2: cotangent of argument 1 .*: the derivative of "
                                             r"x ↦ pullback_x\(ȳ\) along a random direction, by chainrules.ad "
                                             r"through the rule \(got\), differs from finite differences of "
                                             r"the same map"):
        test_rrule(mysin, X0, order=2)


def test_an_integer_output_has_no_second_derivative_to_check():
    # math.ceil returns an int: no tangent space, so finite differences of it rebuild the
    # primal (1 here), which is no second derivative to compare the rule's zero with
    import math
    test_frule(math.ceil, 0.5, order=2)
    test_rrule(math.ceil, 0.5, order=2)
