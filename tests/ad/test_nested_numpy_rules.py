"""NumPy's element-wise ufuncs under nesting go through the element-wise
table's generic rule bodies (registered on chainrules.ad's Dual and Var), not
through a second registry: the issue's examples, second and third derivatives
at real and complex points, against closed forms and finite differences."""

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad._routing import NUMPY_ON_TRACKED


def _fd2(f, x, h=1e-4):
    return (f(x + h) - 2 * f(x) + f(x - h)) / h ** 2


def test_numpy_ufuncs_have_the_tables_rule_on_tracked_values():
    for f in (np.sin, np.exp, np.abs, np.angle, np.arccosh, np.multiply, np.maximum):
        if isinstance(f, np.ufunc):
            assert f in NUMPY_ON_TRACKED


def test_hessian_of_a_real_function_through_complex_values_is_real():
    h = ad.hessian(lambda a: np.sin(np.real(a * (1 + 1j))), 0.5)
    assert isinstance(h, float) or np.isrealobj(h)
    assert h == pytest.approx(-np.sin(0.5), rel=1e-12)


@pytest.mark.parametrize("z", [-2.0 + 0.1j, -2.0 - 0.1j, 0.3 + 0.4j, 1.5 - 0.5j])
def test_complex_arccosh_second_derivative_has_the_right_branch(z):
    # acosh'(z) = 1/(√(z-1)·√(z+1)), so acosh''(z) = -z/(√(z-1)·√(z+1))³
    want = -z / (np.sqrt(z - 1) * np.sqrt(z + 1)) ** 3
    ff = ad.derivative(lambda u: ad.derivative(np.arccosh, u), z)
    assert ff == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("f", [np.abs, np.angle], ids=["abs", "angle"])
@pytest.mark.parametrize("x", [0.7, -1.3])
def test_abs_and_angle_of_complex_values_under_nesting(f, x):
    def g(t):
        return f(np.sin(t * (1 + 1j)) + 0.3j * t)
    want = _fd2(g, x)
    assert ad.hessian(g, x) == pytest.approx(want, rel=1e-5)
    assert ad.derivative(lambda t: ad.derivative(g, t), x) == pytest.approx(want, rel=1e-5)
    assert ad.gradient(lambda t: ad.gradient(g, t), x) == pytest.approx(want, rel=1e-5)


def test_hessian_of_std_of_a_scalar_is_zero():
    assert ad.hessian(np.std, 0.7) == 0.0


def test_forward_over_forward_keeps_the_broadcast_shape():
    d = ad.derivative(lambda x: ad.derivative(lambda y: y * y + np.ones(4), x), 0.3)
    assert np.shape(d) == (4,)
    np.testing.assert_allclose(d, 2.0)
    assert np.shape(ad.derivative(lambda x: ad.derivative(lambda y: y + np.ones(4), x), 0.3)) == (4,)


@pytest.mark.parametrize("name,x", [("sin", 0.3), ("exp", 0.3), ("arctan", 0.3), ("log", 1.7),
                                    ("arccosh", 1.7), ("tanh", -0.4), ("sqrt", 0.8)])
def test_third_derivatives_through_numpy_rules(name, x):
    f = getattr(np, name)
    d3 = ad.derivative(lambda y: ad.derivative(lambda u: ad.derivative(f, u), y), x)
    r3 = ad.gradient(lambda y: ad.gradient(lambda u: ad.gradient(f, u), y), x)
    h = 1e-3
    want = (f(x + 2 * h) - 2 * f(x + h) + 2 * f(x - h) - f(x - 2 * h)) / (2 * h ** 3)
    assert d3 == pytest.approx(want, rel=1e-4)
    assert r3 == pytest.approx(d3, rel=1e-12)


def test_maximum_and_minimum_on_tracked_scalars():
    for a, b, want in [(0.7, 1.6, [[0, 0], [0, 2]]), (1.6, 0.7, [[0, 1], [1, 0]])]:
        h = ad.hessian(lambda v: np.maximum(v[0] * v[1], v[1] ** 2), np.array([a, b]))
        np.testing.assert_allclose(h, want)
        h = ad.hessian(lambda v: -np.minimum(-v[0] * v[1], -v[1] ** 2), np.array([a, b]))
        np.testing.assert_allclose(h, want)


def test_float32_hessian_on_arrays():
    x = np.array([0.3, -1.1, 0.7], dtype=np.float32)
    h = ad.hessian(lambda v: np.sum(np.sin(v) * v), x)
    assert h.dtype == np.float32
    np.testing.assert_allclose(h, np.diag(2 * np.cos(x) - x * np.sin(x)), rtol=1e-5)
