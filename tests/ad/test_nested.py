"""Nested differentiation in general: derivatives of derivatives in every
combination of modes, without perturbation confusion, through the rules
themselves (there is no second registry)."""

import math as pymath

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
MODES = {"forward": ad.derivative, "reverse": ad.gradient}


# ----- perturbation confusion (Siskind & Pearlmutter) ------------------------

@pytest.mark.parametrize("outer", sorted(MODES))
@pytest.mark.parametrize("inner", sorted(MODES))
def test_perturbation_confusion(outer, inner):
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1; confusing the perturbations gives 2
    D, d = MODES[outer], MODES[inner]
    assert D(lambda x: x * d(lambda y: x + y, 1.0), 1.0) == 1.0


@pytest.mark.parametrize("outer", sorted(MODES))
@pytest.mark.parametrize("inner", sorted(MODES))
def test_an_inner_derivative_that_uses_the_outer_variable(outer, inner):
    # d/dx [d/dy (x * y²)]|y=x... = d/dx [2xy]|y=2 = 4
    D, d = MODES[outer], MODES[inner]
    assert D(lambda x: d(lambda y: x * y * y, 2.0), 3.0) == 4.0


@pytest.mark.parametrize("outer", sorted(MODES))
@pytest.mark.parametrize("inner", sorted(MODES))
def test_second_derivatives_of_scalar_functions(outer, inner):
    D, d = MODES[outer], MODES[inner]
    for f, f2 in [(admath.sin, lambda x: -pymath.sin(x)),
                  (lambda x: admath.asin(0.2 + admath.sin(x)), None),
                  (lambda x: x ** 3 / (1 + x), lambda x: (2 * x ** 3 + 6 * x ** 2 + 6 * x) / (1 + x) ** 3),
                  (lambda x: admath.exp(-x * x), lambda x: (4 * x * x - 2) * pymath.exp(-x * x))]:
        expected = f2(0.7) if f2 is not None else FDM(lambda z: ad.derivative(f, z), 0.7)
        test_approx(D(lambda x: d(f, x), 0.7), expected, rtol=1e-8, atol=1e-8)


def test_third_derivative():
    d3 = ad.derivative(lambda x: ad.gradient(lambda y: ad.derivative(admath.sin, y), x), 0.3)
    test_approx(d3, -pymath.cos(0.3))


def test_a_value_of_an_enclosing_differentiation_is_a_constant_inside():
    # the inner gradient does not depend on y: it is zero, whatever x is
    assert ad.derivative(lambda x: ad.gradient(lambda y: x * x, 1.0), 2.0) == 0.0
    assert ad.gradient(lambda x: ad.derivative(lambda y: x * x, 1.0), 2.0) == 0.0


# ----- no second registry -----------------------------------------------------------

def test_there_is_no_second_registry():
    # issue 12: the rules are differentiated as they are; a property such as
    # "linear in x" would be declared next to its rule, not in a set of the engines
    import importlib.util
    for name in ("chainrules.ad._nested", "chainrules.ad._nested_rules"):
        assert importlib.util.find_spec(name) is None, name


def test_nested_linear_and_multilinear_functions():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = np.array([0.5, -1.0])

    def f(x):
        y = np.concatenate([x, np.einsum("ij,j->i", A, x)])
        return np.sum(np.stack([y, y[::-1]]) ** 2) + np.outer(x, x)[0, 1] + np.kron(x, x).sum()

    h = ad.hessian(f, x)
    h_fd = np.stack([FDM(lambda t: ad.gradient(f, x + t * e), 0.0) for e in np.eye(2)], axis=-1)
    test_approx(h, h_fd, rtol=1e-7, atol=1e-7)


def test_reverse_over_reverse_of_array_code():
    x = np.array([0.5, -1.0, 2.0])
    g = ad.gradient(lambda x: np.sum(ad.gradient(lambda y: np.sum(np.sin(y) * y[::-1]), x)), x)
    expected = FDM(lambda t: np.sum(ad.gradient(lambda y: np.sum(np.sin(y) * y[::-1]), x + t)), 0.0)
    test_approx(np.sum(g), expected, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("outer", sorted(MODES))
def test_an_inner_gradient_of_a_plain_array_closing_over_the_outer_variable(outer):
    # the inner rules' pullbacks get cotangents tracked by the outer differentiation for
    # primals it does not track (ProjectTo of a plain array or float projects them as they are)
    x = np.array([0.5, -1.0, 2.0])
    D = MODES[outer]
    test_approx(D(lambda t: ad.gradient(lambda y: np.sum(y ** 2) * t, x)[2], 1.5), 4.0)
    test_approx(D(lambda t: ad.gradient(lambda y: np.sum(np.stack([y, np.ones(3)]) * t ** 2), x)[0], 1.5), 3.0)
    test_approx(D(lambda t: np.real(ad.gradient(lambda y: np.sum(np.abs(y * t) ** 2), x)[1]), 1.5), -6.0)
    with pytest.raises(ValueError, match="ProjectTo: a tangent of shape"):
        from chainrules import ProjectTo
        ad.derivative(lambda t: ProjectTo(x)(np.ones(2) * t), 1.0)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_and_hessian_inside_a_derivative(mode):
    x = np.array([1.0, 2.0])
    assert ad.derivative(lambda t: ad.jacobian(lambda z: z ** 3, t * x, mode=mode)[1, 1], 1.0) == 24.0
    assert ad.gradient(lambda t: ad.hessian(lambda z: np.sum(z ** 3), t * x)[1, 1], 1.0) == 12.0
    assert ad.derivative(lambda t: ad.hessian(lambda z: z ** 3, t), 2.0) == 6.0


def test_an_escaped_dual_is_reported_not_used_as_a_constant():
    leaked = []
    ad.derivative(lambda x: leaked.append(x) or x, 1.0)
    with pytest.raises(ad.EscapedTrackedValueError, match="has finished"):
        ad.derivative(lambda y: y * leaked[0], 1.0)
    with pytest.raises(ad.EscapedTrackedValueError, match="has finished"):
        ad.gradient(lambda y: y * leaked[0], 1.0)
