"""chainrules.ad.cmath: every function of cmath, differentiable (holomorphic
functions: f'(z) forward, conj(f'(z)) back)."""

import cmath as pycmath

import pytest

from chainrules import ad
from chainrules.ad import cmath as adcmath
from chainrules.testing import test_approx

HOLOMORPHIC = ["exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
               "tanh", "asinh", "acosh", "atanh", "log10"]
Z = 0.4 + 0.3j


def test_the_namespace_is_cmath():
    assert sorted(adcmath.__all__) == sorted(n for n in dir(pycmath) if not n.startswith("_"))
    assert adcmath.pi == pycmath.pi and adcmath.exp(Z) == pycmath.exp(Z)


def complex_derivative(f, z, h=1e-6):
    return (f(z + h) - f(z - h)) / (2 * h)


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_forward_mode_gives_the_complex_derivative(name):
    f = getattr(adcmath, name)
    test_approx(ad.derivative(f, Z), complex_derivative(getattr(pycmath, name), Z), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("name", HOLOMORPHIC)
def test_reverse_mode_gives_the_conjugate(name):
    f = getattr(adcmath, name)
    # the gradient of Re f(z) is conj(f'(z))
    g = ad.gradient(lambda z: f(z).real, Z)
    test_approx(g, complex_derivative(getattr(pycmath, name), Z).conjugate(), rtol=1e-7, atol=1e-7)
