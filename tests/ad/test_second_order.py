"""Second derivatives through every function the nested engine knows
(`chainrules.ad._nested`, `_nested_rules`): each element-wise function of the
partials table at real points (negative ones included) and at complex points,
then reductions, shape functions and products, in all four nestings (forward
over forward, forward over reverse, reverse over forward, reverse over
reverse) and `hessian`, each against central finite differences of the first
derivative."""

import cmath
import math
import operator

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import _nested
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.testing import test_approx

FDM = central_fdm(5, 1, max_range=0.05)
TOL = dict(rtol=1e-6, atol=1e-7)


def _name(f):
    mod = getattr(f, "__module__", None) or type(f).__name__
    return f"{mod.lstrip('_')}.{getattr(f, '__name__', f)}"


# ----- the element-wise functions and their domains -------------------------------

REAL_POINTS = (-0.7, 0.4, 1.3)
# (name -> real points) where the default points leave the domain
DOMAIN = {
    "asin": (-0.6, 0.3), "acos": (-0.6, 0.3), "atanh": (-0.6, 0.3),
    "arcsin": (-0.6, 0.3), "arccos": (-0.6, 0.3), "arctanh": (-0.6, 0.3),
    "acosh": (1.4, 2.5), "arccosh": (1.4, 2.5),
    "log": (0.4, 1.7), "log2": (0.4, 1.7), "log10": (0.4, 1.7), "sqrt": (0.4, 1.7),
    "log1p": (-0.5, 0.8), "reciprocal": (-0.7, 1.3),
}
# near the branch cuts on purpose (-2 + 0.1j: acosh's sign, log's cut), but off them
COMPLEX_POINTS = (0.3 + 0.4j, -0.6 + 0.2j, -2.0 + 0.1j, 1.5 - 0.5j, -0.4 - 1.2j)


def _accepts_complex(f):
    if getattr(f, "__module__", None) == "cmath" or f in (operator.neg, operator.pos):
        return True
    if isinstance(f, np.ufunc):
        return any("D" in t.split("->")[0] for t in f.types) and f not in (np.fabs,)
    return False


UNARY = sorted({f for (f, n) in _nested._TABLE if n == 1} - {abs, operator.abs, np.absolute},
               key=_name) + [np.absolute]
BINARY = sorted({f for (f, n) in _nested._TABLE if n == 2}, key=_name)


def _real_cases():
    for f in UNARY:
        if getattr(f, "__module__", None) == "cmath":
            continue            # complex results: at the complex points below
        for x in DOMAIN.get(f.__name__, REAL_POINTS):
            yield pytest.param(f, x, id=f"{_name(f)}({x})")


def _complex_cases():
    for f in UNARY + [abs, np.angle, np.real, np.imag, np.conjugate, np.sign]:
        if _accepts_complex(f) or f in (abs, np.absolute, np.angle, np.real, np.imag, np.conjugate):
            for z in COMPLEX_POINTS:
                yield pytest.param(f, z, id=f"{_name(f)}({z})")


def _callable(f):
    """f callable on tracked values: math/cmath functions and builtins through wrap."""
    return ad.wrap(f) if not isinstance(f, np.ufunc) and f not in (np.angle, np.real, np.imag) else f


def _four_ways(g):
    """The second derivative of the real g: R → R at 0 in every nesting."""
    return {
        "forward over forward": lambda t: ad.derivative(lambda s: ad.derivative(g, s), t),
        "forward over reverse": lambda t: ad.derivative(lambda s: ad.gradient(g, s), t),
        "reverse over forward": lambda t: ad.gradient(lambda s: ad.derivative(g, s), t),
        "reverse over reverse": lambda t: ad.gradient(lambda s: ad.gradient(g, s), t),
        "hessian": lambda t: ad.hessian(g, t),
    }


def _check_all_ways(g, t0=0.0, msg=""):
    expected = FDM(lambda t: ad.derivative(g, t), t0)
    for how, d2 in _four_ways(g).items():
        got = d2(t0)
        assert not np.iscomplexobj(got), f"{msg}: {how} gave the complex {got} for a real function"
        test_approx(got, expected, msg=f"{msg}: {how}", **TOL)


@pytest.mark.parametrize("f, x0", list(_real_cases()))
def test_unary_at_real_points(f, x0):
    h = _callable(f)
    _check_all_ways(lambda t: h(x0 + t), msg=_name(f))
    # inside an expression, with the constant on both sides
    _check_all_ways(lambda t: h(x0 + 0.5 * t) * (1.0 + t), msg=_name(f))


@pytest.mark.parametrize("f, z0", list(_complex_cases()))
def test_unary_at_complex_points(f, z0):
    h = _callable(f)
    c = 0.6 - 0.8j
    # a real function of a real t through a complex argument, in both parts
    _check_all_ways(lambda t: np.real(h(z0 + c * t)), msg=f"Re {_name(f)}")
    _check_all_ways(lambda t: np.imag(h(z0 + c * t) * (1 + 2j)), msg=f"Im {_name(f)}")


# ----- the cases of issue 11, item 5 ---------------------------------------------------

def test_a_real_input_gets_a_real_second_derivative_through_complex_values():
    f = lambda a: np.sin(np.real(a * (1 + 1j)))         # noqa: E731
    h = ad.hessian(f, 0.5)
    assert not np.iscomplexobj(h)
    test_approx(h, -math.sin(0.5))
    g = ad.gradient(lambda a: ad.gradient(f, a), 0.5)
    assert not np.iscomplexobj(g)
    test_approx(g, -math.sin(0.5))
    x = np.array([0.5, -0.2])
    H = ad.hessian(lambda x: np.sum(np.sin(np.real(x * (1 + 1j)))), x)
    assert H.dtype == np.float64
    test_approx(H, np.diag(-np.sin(x)))


def test_forward_over_forward_keeps_the_broadcast_shape():
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: s + np.ones(4), t), 0.5)
    test_approx(d2, np.zeros(4))
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: s * s + np.ones(4), t), 0.5)
    test_approx(d2, np.full(4, 2.0))
    d1 = ad.derivative(lambda t: ad.derivative(lambda s: t * s + np.ones(3), 1.0), 0.5)
    test_approx(d1, np.ones(3))


def test_abs_and_angle_of_a_tracked_complex_value():
    c, z0 = 1 + 2j, 1.0
    # |1 + a c|, angle(1 + a c) as functions of the real a, by hand
    r2 = lambda a: (1 + a) ** 2 + 4 * a * a          # noqa: E731
    abs2 = lambda a: (5 / math.sqrt(r2(a)) - (5 * a + 1) ** 2 / r2(a) ** 1.5)   # noqa: E731
    ang2 = lambda a: -2 * 2 * (5 * a + 1) / r2(a) ** 2   # d²/da² atan2(2a, 1 + a)  # noqa: E731
    for f, d2 in ((np.abs, abs2), (abs, abs2), (np.angle, ang2)):
        g = lambda a: f(a * c + z0)                     # noqa: E731
        test_approx(ad.hessian(g, 0.5), d2(0.5), msg=str(f))
        test_approx(ad.derivative(lambda t: ad.derivative(g, t), 0.5), d2(0.5), msg=str(f))


def test_the_std_of_one_element_has_zero_derivatives():
    assert ad.hessian(lambda w: np.std(w), 0.7) == 0.0
    test_approx(ad.hessian(lambda w: np.std(w), np.array([0.7])), np.zeros((1, 1)))
    assert ad.derivative(lambda t: ad.derivative(np.std, t), 0.7) == 0.0
    assert ad.gradient(lambda t: ad.gradient(np.std, t), 0.7) == 0.0


@pytest.mark.parametrize("acosh", [np.arccosh, ad.cmath.acosh])
def test_complex_acosh_keeps_its_branch_under_nesting(acosh):
    z = -2 + 0.1j
    expected = -z / (np.sqrt(z - 1) * np.sqrt(z + 1)) ** 3     # d²/dz² acosh, principal branch
    test_approx(ad.derivative(lambda s: ad.derivative(acosh, s), z), expected)
