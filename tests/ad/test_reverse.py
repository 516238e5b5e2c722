"""chainrules.ad.reverse: gradient, value_and_gradient, vjp, the reverse
Jacobian, rrule_via_ad, structural gradients; checked against finite
differences."""

import collections
import dataclasses
import math as pymath

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import math as admath
from chainrules.ad import reverse
from chainrules.finite_differences import central_fdm, grad as fd_grad, jacobian as fd_jacobian, vjp as fd_vjp
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)


def foo(x):
    return admath.asin(0.2 + admath.sin(x))


# ----- gradient of scalar code ------------------------------------------------

def test_gradient_of_the_seed_example():
    assert ad.gradient(foo, 3.0) == pytest.approx(-1.0531613736418153, rel=1e-15)
    assert ad.value_and_gradient(foo, 3.0) == (foo(3.0), ad.gradient(foo, 3.0))


SCALAR_FUNCTIONS = [
    lambda x: x * x + 3 * x - 1,
    lambda x: x / (1 + x * x) - 1 / x,
    lambda x: x ** 3 - 2 ** x + x ** 0.5 + x ** x,
    lambda x: -abs(x) + x % 2.0 + (x // 1) * x,
    lambda x: admath.exp(admath.cos(x)) * admath.log(x) + admath.log(x, 3.0),
    lambda x: admath.atan2(x, 2.0) + admath.atan2(1.5, x) + admath.hypot(x, 3.0) + admath.pow(x, 2.5),
    lambda x: admath.tanh(x) * admath.sqrt(x) - admath.erf(x) + admath.gamma(x),
    lambda x: sum(admath.sin(k * x) for k in range(5)),
    lambda x: max(x, 1.0) * min(x * x, 2.0),
]


@pytest.mark.parametrize("f", SCALAR_FUNCTIONS)
@pytest.mark.parametrize("x", [0.7, 1.9])
def test_gradient_against_finite_differences(f, x):
    test_approx(ad.gradient(f, x), FDM(f, x), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("f", SCALAR_FUNCTIONS)
def test_gradient_and_derivative_agree(f):
    test_approx(ad.gradient(f, 1.3), ad.derivative(f, 1.3), rtol=1e-14, atol=1e-14)


def test_gradient_of_a_reused_value_accumulates():
    def f(x):
        y = x * x
        return y * y + y + x
    test_approx(ad.gradient(f, 1.5), 4 * 1.5 ** 3 + 2 * 1.5 + 1)


def test_gradient_of_a_constant_is_zero():
    assert ad.gradient(lambda x: 2.0, 1.0) == 0.0
    assert ad.value_and_gradient(lambda x: 2.0, 1.0) == (2.0, 0.0)
    test_approx(ad.gradient(lambda x: 1.0, np.ones(2)), np.zeros(2))


def test_gradient_of_an_int_argument_is_a_float():
    g = ad.gradient(lambda x: x * x, 3)
    assert type(g) is float and g == 6.0


def test_gradient_takes_the_complex_convention():
    z = 1.0 + 2.0j
    # f(z) = |z|²: the gradient is ∂f/∂a + i ∂f/∂b = 2z
    test_approx(ad.gradient(lambda z: (z * z.conjugate()).real, z), 2 * z)
    test_approx(ad.gradient(lambda z: abs(z * z), z), fd_grad(FDM, lambda z: abs(z * z), z)[0])


# ----- several arguments and structures -----------------------------------------

def test_gradient_of_several_arguments_is_a_tuple():
    g = ad.gradient(lambda x, y: x * admath.sin(y), 2.0, 0.5)
    assert isinstance(g, tuple) and len(g) == 2
    test_approx(g, (pymath.sin(0.5), 2.0 * pymath.cos(0.5)))


def test_gradient_of_arrays_against_finite_differences():
    x = np.array([0.3, 1.2, -0.7])
    w = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])

    def f(x, w):
        return np.sum(np.tanh(w @ x) ** 2) + np.mean(np.exp(x)) * np.prod(x[:2])

    test_approx(ad.gradient(f, x, w), fd_grad(FDM, f, x, w), rtol=1e-7, atol=1e-7)


Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass(frozen=True)
class Params:
    w: np.ndarray
    b: float
    name: str = "layer"


def test_gradient_of_structures():
    def f(p, t, lst, d, params):
        return (p.x * p.y + t[0] * t[1] + lst[0] * lst[2] + d["a"] * d["b"]
                + np.sum(params.w * params.b))

    p, t, lst = Point(1.0, 2.0), (3.0, 4.0), [5.0, 7, 6.0]
    d = {"a": 2.0, "b": 3.0, "flag": True}
    params = Params(np.array([1.0, 2.0]), 0.5)
    gp, gt, gl, gd, gparams = ad.gradient(f, p, t, lst, d, params)
    assert gp == cr.Tangent[Point](x=2.0, y=1.0)
    assert gt == cr.Tangent[tuple](4.0, 3.0)
    assert gl == [6.0, 0.0, 5.0]
    assert isinstance(gd, cr.Tangent) and gd["a"] == 3.0 and gd["b"] == 2.0
    assert gd["flag"] == cr.NoTangent()
    assert isinstance(gparams, cr.Tangent)
    test_approx(gparams.w, np.array([0.5, 0.5]))
    test_approx(gparams.b, 3.0)
    assert gparams.name == cr.NoTangent()
    # the gradient moves the primal: P + Tangent[P] rebuilds a P
    moved = p + gp
    assert moved == Point(3.0, 3.0)


def test_value_and_gradient_of_several_arguments():
    value, (gx, gy) = ad.value_and_gradient(lambda x, y: x * y, 2.0, 3.0)
    assert (value, gx, gy) == (6.0, 3.0, 2.0)


def test_gradient_keeps_float32():
    x = np.array([1.0, 2.0], dtype=np.float32)
    g = ad.gradient(lambda x: np.sum(x * x), x)
    assert g.dtype == np.float32
    test_approx(g, 2 * x)


# ----- vjp ------------------------------------------------------------------------

def test_vjp_of_an_array_function_against_finite_differences():
    x = np.array([0.3, 1.2, -0.7])

    def f(x):
        return np.sin(x) * np.sum(x)

    y, pb = ad.vjp(f, x)
    test_approx(y, f(x))
    ybar = np.array([1.0, -1.0, 2.0])
    test_approx(pb(ybar), fd_vjp(FDM, f, ybar, x), rtol=1e-8, atol=1e-8)
    # the pullback may be called again, with another seed
    test_approx(pb(2 * ybar)[0], 2 * pb(ybar)[0])


def test_vjp_of_a_tuple_output():
    y, pb = ad.vjp(lambda x, y: (x * y, x + y), 2.0, 3.0)
    assert y == (6.0, 5.0)
    assert pb((1.0, 0.0)) == (3.0, 2.0)
    assert pb(cr.Tangent[tuple](0.0, 1.0)) == (1.0, 1.0)
    assert pb(cr.Tangent[tuple](1.0, cr.ZeroTangent())) == (3.0, 2.0)


def test_vjp_uses_a_registered_rule_and_does_not_trace_inside():
    def secret(x):
        raise AssertionError("traced inside")

    @cr.register_rrule(secret)
    def secret_rrule(x):
        def secret_pullback(ȳ):
            return cr.NoTangent(), 5 * ȳ
        return 7.0, secret_pullback

    y, pb = ad.vjp(secret, 1.0)
    assert y == 7.0 and pb(1.0) == (5.0,)
    assert ad.gradient(secret, 1.0) == 5.0
    assert ad.gradient(lambda x: ad.wrap(secret)(x) * x, 2.0) == 7.0 + 5.0 * 2.0


def test_vjp_seed_must_match_the_output():
    _, pb = ad.vjp(lambda x: (x, x), 1.0)
    with pytest.raises(TypeError, match="tuple of 2 elements"):
        pb(1.0)


# ----- the Jacobian ------------------------------------------------------------------

def test_jacobian_reverse_against_finite_differences():
    x = np.array([0.3, 1.2, -0.7])

    def f(x):
        return np.sin(x) * x[0] + np.array([1.0, 2.0, 3.0]) * np.sum(x * x)

    jac = reverse.jacobian_reverse(f, x)
    test_approx(jac, fd_jacobian(FDM, f, x)[0], rtol=1e-8, atol=1e-8)
    test_approx(jac, ad.jacobian(f, x, mode="forward"), rtol=1e-14, atol=1e-14)


# ----- rrule_via_ad ---------------------------------------------------------------------

def test_rrule_via_ad_runs_the_function_on_a_tape():
    y, pb = cr.rrule_via_ad(ad.ReverseConfig(), lambda x, y: x * admath.sin(y), 2.0, 0.5)
    assert y == 2.0 * pymath.sin(0.5)
    dself, dx, dy = pb(1.0)
    assert dself == cr.NoTangent()
    test_approx((dx, dy), (pymath.sin(0.5), 2.0 * pymath.cos(0.5)))


def test_rrule_via_ad_gives_the_closure_tangent_as_dself():
    a = np.array([1.0, 2.0])
    scale = 3.0

    def f(x):
        return np.sum(a * x) * scale

    y, pb = cr.rrule_via_ad(ad.ReverseConfig(), f, np.array([4.0, 5.0]))
    dself, dx = pb(1.0)
    test_approx(dx, a * scale)
    test_approx(dself["a"], np.array([4.0, 5.0]) * scale)
    test_approx(dself["scale"], 14.0)


def test_rrule_via_ad_uses_the_rule_when_there_is_one():
    y, pb = cr.rrule_via_ad(ad.ReverseConfig(), pymath.sin, 1.0)
    assert pb(1.0) == (cr.NoTangent(), pymath.cos(1.0))


# ----- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("f, match", [
    (lambda x: (x, x), "returned a tuple, not a number"),
    (lambda x: np.ones(2) * x, r"returned an array of shape \(2,\)"),
    (lambda x: x * 1j, "returned a complex number"),
    (lambda x: "text", "returned a str, not a number"),
])
def test_gradient_needs_a_real_scalar_output(f, match):
    with pytest.raises(TypeError, match=match):
        ad.gradient(f, 1.0)
    with pytest.raises(TypeError, match=match):
        ad.gradient(f, np.float64(1.0))


@pytest.mark.parametrize("arg, match", [
    ("text", "cannot differentiate with respect to a str"),
    (None, "cannot differentiate with respect to a NoneType"),
    (np.array(["a"]), "dtype <U1"),
    (True, "no argument has a tangent space"),
    (np.arange(3), "no argument has a tangent space"),
    (object(), "no argument has a tangent space"),
])
def test_gradient_needs_numeric_inputs(arg, match):
    with pytest.raises(TypeError, match=match):
        ad.gradient(lambda x: 1.0, arg)


def test_gradient_needs_an_argument():
    with pytest.raises(TypeError, match="at least one argument"):
        ad.gradient(lambda: 1.0)


def test_a_tracked_value_cannot_leave_through_float():
    with pytest.raises(TypeError, match=r"float\(\) of a tracked Var would lose its derivative.*"
                                        r"chainrules\.ad\.math"):
        ad.gradient(lambda x: pymath.sin(x), 1.0)


def test_an_escaped_tracked_value_is_reported():
    leaked = []
    ad.gradient(lambda x: leaked.append(x) or x, 1.0)
    with pytest.raises(ad.EscapedTrackedValueError, match="differentiation has finished"):
        leaked[0] * 2.0
    with pytest.raises(ad.EscapedTrackedValueError):
        ad.gradient(lambda y: y * leaked[0], 1.0)
