"""chainrules.ad.forward: derivative, jvp, the forward Jacobian, frule_via_ad,
checked against finite differences."""

import collections
import dataclasses
import math as pymath
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import forward
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm, jvp as fd_jvp
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)


def foo(x):
    return admath.asin(0.2 + admath.sin(x))


# ----- derivative -------------------------------------------------------------

def test_derivative_of_the_seed_example():
    assert ad.derivative(foo, 3.0) == pytest.approx(-1.0531613736418153, rel=1e-15)
    test_approx(ad.derivative(foo, 3.0), FDM(foo, 3.0))


@pytest.mark.parametrize("f", [
    lambda x: x * x + 3 * x - 1,
    lambda x: x / (1 + x * x),
    lambda x: x ** 3 - 2 ** x + x ** 0.5,
    lambda x: -abs(x) + (+x) // 1 + x % 2.0,
    lambda x: admath.exp(admath.cos(x)) * admath.log(x),
    lambda x: admath.atan2(x, 2.0) + admath.hypot(x, 3.0) + admath.pow(x, 2.5),
    lambda x: admath.tanh(x) * admath.sqrt(x) - admath.erf(x),
    lambda x: np.sin(x) * np.exp(x),
])
@pytest.mark.parametrize("x", [0.7, 1.9])
def test_derivative_against_finite_differences(f, x):
    test_approx(ad.derivative(f, x), FDM(f, x), rtol=1e-8, atol=1e-8)


def test_derivative_takes_ints_and_numpy_scalars():
    assert ad.derivative(lambda x: x * x, 3) == 6.0
    d = ad.derivative(lambda x: x * x, np.float64(3.0))
    assert d == pytest.approx(6.0)


def test_derivative_of_a_complex_function():
    z = 1.0 + 2.0j
    test_approx(ad.derivative(lambda z: z * z + 1j * z, z), 2 * z + 1j)
    test_approx(ad.derivative(lambda z: ad.cmath.exp(z), z), np.exp(z))


def test_derivative_of_a_constant_function_is_a_zero_of_the_output_type():
    assert ad.derivative(lambda x: 2.0, 1.0) == 0.0
    out = ad.derivative(lambda x: np.ones(3), 1.0)
    assert isinstance(out, np.ndarray) and not out.any()


def test_derivative_with_array_and_tuple_outputs():
    d = ad.derivative(lambda x: np.array([1.0, 2.0]) * x, 2.0)
    test_approx(d, np.array([1.0, 2.0]))
    t = ad.derivative(lambda x: (x * x, 3.0, admath.sin(x)), 2.0)
    assert isinstance(t, cr.Tangent)
    test_approx(t, cr.Tangent[tuple](4.0, 0.0, pymath.cos(2.0)))


def test_derivative_uses_a_registered_rule_and_does_not_trace_inside():
    def secret(x):
        raise AssertionError("traced inside")

    @cr.register_frule(secret)
    def secret_frule(tangents, x):
        return 2 * x, 2 * tangents[1]

    assert ad.derivative(secret, 3.0) == 2.0
    assert ad.derivative(lambda x: ad.wrap(secret)(x) * x, 3.0) == 12.0


def test_derivative_bad_input():
    with pytest.raises(TypeError, match="real or complex scalar"):
        ad.derivative(lambda x: x, np.ones(2))
    with pytest.raises(TypeError, match="real or complex scalar"):
        ad.derivative(lambda x: x, "a")


# ----- jvp ----------------------------------------------------------------------

def test_jvp_of_several_arguments():
    omega, dot = ad.jvp(lambda x, y: x * y + admath.sin(x), (2.0, 3.0), (1.0, 0.5))
    assert omega == 6.0 + pymath.sin(2.0)
    test_approx(dot, 3.0 + 0.5 * 2.0 + pymath.cos(2.0))


def test_jvp_of_array_functions_against_finite_differences():
    x, v = np.array([0.3, 1.2, -0.7]), np.array([1.0, -2.0, 0.5])

    def f(x):
        return np.tanh(x) * np.sum(x ** 2) + np.cumsum(x)[::-1]

    omega, dot = ad.jvp(f, (x,), (v,))
    test_approx(omega, f(x))
    test_approx(dot, fd_jvp(FDM, f, (x, v)))


def test_jvp_of_structured_inputs():
    Point = collections.namedtuple("Point", "x y")

    @dataclasses.dataclass
    class Params:
        w: float
        b: np.ndarray

    def f(p, q, d):
        return p.x * p.y + q[0] * q[1]["k"] + d.w * np.sum(d.b)

    p = Point(1.0, 2.0)
    q = [3.0, {"k": 4.0}]
    d = Params(0.5, np.array([1.0, 2.0]))
    tp = cr.Tangent[Point](x=1.0)
    tq = [0.0, cr.Tangent[dict]({"k": 1.0})]
    td = cr.Tangent[Params](w=2.0, b=np.array([1.0, 0.0]))
    omega, dot = ad.jvp(f, (p, q, d), (tp, tq, td))
    assert omega == f(p, q, d)
    test_approx(dot, 2.0 + 3.0 + 2.0 * 3.0 + 0.5 * 1.0)


def test_jvp_with_a_zero_tangent_gives_a_zero():
    omega, dot = ad.jvp(lambda x: x * x, (3.0,), (cr.ZeroTangent(),))
    assert omega == 9.0 and dot == 0.0


def test_jvp_bad_input():
    with pytest.raises(TypeError, match="primals must be a tuple"):
        ad.jvp(lambda x: x, 1.0, 1.0)
    with pytest.raises(ValueError, match="1 primals but 2 tangents"):
        ad.jvp(lambda x: x, (1.0,), (1.0, 2.0))
    with pytest.raises(TypeError, match="cannot differentiate with respect to a str"):
        ad.jvp(lambda x: x, ("a",), (1.0,))
    with pytest.raises(ValueError, match="shape"):
        ad.jvp(lambda x: x, (np.ones(2),), (np.ones(3),))


# ----- the Jacobian -----------------------------------------------------------------

def test_jacobian_forward_against_finite_differences():
    x = np.array([0.3, 1.2, -0.7])

    def f(x):
        return np.sin(x) * x[0] + np.array([1.0, 2.0, 3.0]) * np.sum(x * x)

    jac = forward.jacobian_forward(f, x)
    assert jac.shape == (3, 3)
    from chainrules.finite_differences import jacobian as fd_jacobian
    test_approx(jac, fd_jacobian(FDM, f, x)[0], rtol=1e-8, atol=1e-8)


def test_jacobian_forward_shapes():
    assert forward.jacobian_forward(lambda x: x * 2.0, 1.5) == 2.0
    assert forward.jacobian_forward(lambda x: np.sum(x), np.ones((2, 3))).shape == (2, 3)
    assert forward.jacobian_forward(lambda x: x * np.ones(4), 2.0).shape == (4,)


# ----- frule_via_ad and the config ------------------------------------------------

def test_frule_via_ad_runs_the_function_on_duals():
    y, dy = cr.frule_via_ad(ad.ForwardConfig(), (cr.NoTangent(), 1.0, 0.0), lambda x, y: x * y, 2.0, 5.0)
    assert (y, dy) == (10.0, 5.0)


def test_frule_via_ad_uses_the_rule_when_there_is_one():
    y, dy = cr.frule_via_ad(ad.ForwardConfig(), (cr.NoTangent(), 2.0), pymath.sin, 1.0)
    assert y == pymath.sin(1.0) and dy == 2 * pymath.cos(1.0)


def test_frule_via_ad_seeds_the_closure_from_the_function_tangent():
    a = 3.0

    def f(x):
        return a * x

    df = cr.Tangent[type(f)](a=1.0)
    y, dy = cr.frule_via_ad(ad.ForwardConfig(), (df, 0.0), f, 2.0)
    assert (y, dy) == (6.0, 2.0)


def test_frule_via_ad_checks_the_number_of_tangents():
    with pytest.raises(ValueError, match="expected 2 tangents"):
        cr.frule_via_ad(ad.ForwardConfig(), (1.0,), lambda x: x, 1.0)


def test_forward_config_passes_itself_to_config_rules():
    seen = []

    def g(x):
        return x

    @cr.register_frule(g, config="forward")
    def g_frule(config, tangents, x):
        seen.append(config)
        return x, 3 * tangents[1]

    assert ad.derivative(lambda x: ad.wrap(g)(x), 1.0) == 3.0
    assert isinstance(seen[0], ad.ForwardConfig)


# ----- operators without a rule ---------------------------------------------------

def test_a_numpy_function_without_a_rule_names_itself_and_the_arguments():
    with pytest.raises(ad.NoRuleError, match=r"numpy\.histogram\(ndarray\[float64, \(3,\)\]\) has no frule"):
        ad.jvp(np.histogram, (np.ones(3),), (np.ones(3),))


def test_a_builtin_without_a_rule_is_not_traced():
    with pytest.raises(ad.NoRuleError, match=r"operator\.concat\(list, list\) has no frule"):
        ad.derivative(lambda x: ad.wrap(operator.concat)([x], [1.0]), 1.0)
