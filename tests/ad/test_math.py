"""chainrules.ad.math: every function of math, differentiable; the constants."""

import math as pymath

import pytest

from chainrules import ad
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)

UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh",
         "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "erf", "erfc", "gamma", "lgamma",
         "fabs", "degrees", "radians"]


def test_the_namespace_is_math():
    names = [n for n in dir(pymath) if not n.startswith("_")]
    assert sorted(admath.__all__) == sorted(names)
    assert admath.pi == pymath.pi and admath.inf == pymath.inf
    assert isinstance(admath.sin, ad.Wrapped) and admath.sin.__wrapped__ is pymath.sin


@pytest.mark.parametrize("name", UNARY)
def test_plain_values_give_the_math_result(name):
    assert getattr(admath, name)(0.5) == getattr(pymath, name)(0.5)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("engine", [ad.derivative, ad.gradient])
def test_unary_functions_against_finite_differences(name, engine):
    f = getattr(admath, name)
    test_approx(engine(f, 0.5), FDM(getattr(pymath, name), 0.5), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["atan2", "hypot", "pow", "copysign", "fmod", "log"])
def test_binary_functions_against_finite_differences(name):
    f = getattr(admath, name)
    g = ad.gradient(lambda x, y: f(x, y), 0.7, 1.9)
    fd = (FDM(lambda x: getattr(pymath, name)(x, 1.9), 0.7), FDM(lambda y: getattr(pymath, name)(0.7, y), 1.9))
    test_approx(g, fd, rtol=1e-8, atol=1e-8)
    test_approx(ad.derivative(lambda x: f(x, 1.9), 0.7), fd[0], rtol=1e-8, atol=1e-8)


def test_domain_errors_are_the_primal_errors():
    with pytest.raises(ValueError, match="math domain error"):
        ad.gradient(admath.sqrt, -1.0)
    with pytest.raises(ValueError, match="math domain error"):
        ad.derivative(admath.log, 0.0)
    with pytest.raises(ZeroDivisionError):
        ad.gradient(lambda x: x / 0.0, 1.0)


def test_non_differentiable_functions_give_plain_values():
    def f(x):
        assert admath.isfinite(x) is True and admath.floor(x) == 1
        return x * admath.floor(x)
    assert ad.gradient(f, 1.5) == 1.0
    assert ad.derivative(f, 1.5) == 1.0


def test_n_ary_functions():
    test_approx(ad.gradient(lambda x, y, z: admath.hypot(x, y, z), 1.0, 2.0, 2.0), (1 / 3, 2 / 3, 2 / 3))
    test_approx(ad.gradient(lambda x: admath.fsum([x, x * x, 1.0]), 2.0), 5.0)
