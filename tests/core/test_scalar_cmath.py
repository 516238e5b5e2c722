"""The cmath rows of the C scalar table (_core/scalar_cmath.pxi): holomorphic
functions at complex and real points, the complex convention (pushforward
f'(z)·Δz, pullback conj(f'(z))·ΔΩ, the real part for a real argument), the
primal's errors."""

import cmath
import math
import re

import numpy as np
import pytest

from chainrules import NoTangent, frule, rrule
from chainrules.testing import test_frule, test_rrule, test_scalar

NT = NoTangent()

# Complex points away from every branch cut; real points inside the real
# domain (and on the negative axis for sqrt and log, where the real line
# stays on one side of the cut).
COMPLEX = [0.5 + 0.3j, -1.2 + 0.7j, 2 - 1j]
ROWS = {
    cmath.exp: [0.5, -2.0, 3],
    cmath.log: [1.5, -2.0],
    cmath.log10: [1.5, -2.0],
    cmath.sqrt: [2.0, -2.0, 4],
    cmath.sin: [0.5, -2.0],
    cmath.cos: [0.5, -2.0],
    cmath.tan: [0.5, -1.2],
    cmath.asin: [0.5, -0.9],
    cmath.acos: [0.5, -0.9],
    cmath.atan: [0.5, -3.0],
    cmath.sinh: [0.5, -2.0],
    cmath.cosh: [0.5, -2.0],
    cmath.tanh: [0.5, -2.0],
    cmath.asinh: [0.5, -3.0],
    cmath.acosh: [1.5, 4.0],
    cmath.atanh: [0.5, -0.9],
}
CASES = [(f, z) for f, xs in ROWS.items() for z in xs + COMPLEX]


@pytest.mark.parametrize("f, z", CASES, ids=[f"{f.__name__}({z!r})" for f, z in CASES])
def test_row(f, z):
    test_scalar(f, z)


@pytest.mark.parametrize("f", list(ROWS), ids=lambda f: f.__name__)
def test_numpy_scalar_arguments(f):
    # cmath returns a Python complex; the cotangent keeps the argument's type
    for z in (np.complex64(0.5 + 0.3j), np.float32(ROWS[f][0]), np.complex128(-1.2 + 0.7j)):
        test_scalar(f, z)
        assert type(rrule(f, z)[1](1.0)[1]) is type(z)


@pytest.mark.parametrize("z, b", [(1 + 2j, 3.0), (2.0, 1.5 + 0.5j), (-1.5 + 0.5j, 0.5 - 2j), (8.0, 2.0)])
def test_log_with_a_base(z, b):
    test_frule(cmath.log, z, b)
    test_rrule(cmath.log, z, b)


@pytest.mark.parametrize("f", list(ROWS), ids=lambda f: f.__name__)
def test_omega_is_the_primals(f):
    for z in ROWS[f] + COMPLEX + [0.0, 1j]:
        try:
            y = f(z)
        except ValueError:
            continue
        for got in (frule((NT, 1.0), f, z)[0], rrule(f, z)[0]):
            assert type(got) is complex and got == y


def test_holomorphic_convention():
    z = 0.5 + 0.3j
    # pushforward f'(z)·Δz
    assert frule((NT, 1j), cmath.exp, z) == (cmath.exp(z), cmath.exp(z) * 1j)
    # pullback conj(f'(z))·ΔΩ
    assert rrule(cmath.exp, z)[1](1j) == (NT, cmath.exp(z).conjugate() * 1j)
    # a real argument, a complex output: a complex pushforward, a real cotangent
    Ω, dΩ = frule((NT, 1.0), cmath.sqrt, -4.0)
    assert Ω == 2j and dΩ == pytest.approx(1 / (2 * 2j))
    assert rrule(cmath.sqrt, -4.0)[1](1j) == (NT, pytest.approx(((1 / (2 * 2j)).conjugate() * 1j).real))
    assert type(rrule(cmath.sqrt, 4.0)[1](1 + 1j)[1]) is float


def test_sqrt_derivative_at_zero_is_inf():
    assert rrule(cmath.sqrt, 0j)[1](1.0)[1] == complex(math.inf, 0.0)


ERRORS = [(cmath.log, (0j,)), (cmath.log, (0.0,)), (cmath.atanh, (1.0,)), (cmath.exp, (1000 + 0j,)),
          (cmath.log, (2.0, 1.0)), (cmath.log10, (0,)), (cmath.cosh, (1000.0,))]


@pytest.mark.parametrize("f, args", ERRORS, ids=[f"{f.__name__}{a}" for f, a in ERRORS])
def test_errors_are_the_primals_own(f, args):
    with pytest.raises(Exception) as primal:
        f(*args)
    err = primal.value
    with pytest.raises(type(err), match=re.escape(str(err))):
        frule((NT,) + (1.0,) * len(args), f, *args)
    with pytest.raises(type(err), match=re.escape(str(err))):
        rrule(f, *args)


def test_non_numbers_have_no_rule():
    assert rrule(cmath.exp, "1") is None
    assert rrule(cmath.exp, True) is None
    assert frule((NT, NT), cmath.sqrt, [1.0]) is None


# ----- on a branch cut: the side the primal takes (found by test_properties_scalar.py) -------

# (function, point on its cut, direction of the cut): the sign of the zero part
# picks the side; a real argument is on the upper side (Im z = +0.0).
CUTS = [(f, z, 1.0) for f in (cmath.asin, cmath.acos)
        for z in (2.0, 1.5, -2.0, complex(2, 0.0), complex(2, -0.0), complex(-2, 0.0), complex(-2, -0.0))] + \
       [(cmath.acosh, z, 1.0) for z in (0.5, -2.0, complex(0.5, -0.0), complex(-2, -0.0))] + \
       [(cmath.asinh, complex(x, y), 1j) for x in (0.0, -0.0) for y in (2.0, -2.0)] + \
       [(f, complex(-2, s), 1.0) for f in (cmath.sqrt, cmath.log) for s in (0.0, -0.0)]


def along_the_cut(f, z, d, h=1e-6):
    """f'(z) by central differences along the cut, staying on z's side."""
    z = complex(z)
    at = lambda t: f(complex(z.real + t, z.imag) if d == 1.0 else complex(z.real, z.imag + t))   # noqa: E731
    return (at(h) - at(-h)) / (2 * h * d)


@pytest.mark.parametrize("f, z, d", CUTS, ids=[f"{f.__name__}({z!r})" for f, z, d in CUTS])
def test_the_derivative_on_a_branch_cut_is_the_primals_side(f, z, d):
    want = along_the_cut(f, z, d)
    for x in (z, np.complex128(z)) if isinstance(z, complex) else (z,):
        Ω, dΩ = frule((NT, 1.0), f, x)
        assert Ω == f(z)
        assert abs(dΩ - want) < 1e-8, (x, dΩ, want)
        if isinstance(z, complex):      # pullback conj(f'(z))·ΔΩ
            assert abs(rrule(f, x)[1](1.0)[1] - want.conjugate()) < 1e-8
    nf = getattr(np, {"asin": "arcsin", "acos": "arccos", "acosh": "arccosh", "asinh": "arcsinh"}.get(
        f.__name__, f.__name__))
    Ω, dΩ = frule((NT, 1.0), nf, np.complex128(z))         # the NumPy row of the C table
    assert abs(dΩ - want) < 1e-8, (dΩ, want)


# Order 2 at real arguments (the rows differentiated by chainrules.ad, where the C kernels
# give way to the table's body on tracked values): the real argument's cotangent is the real
# part at every order, and the partials are taken at the complex number the function took
# the real one for, also where the real function is undefined (acos(2.0), sqrt(-2.0)).
REAL_ORDER2 = [(f, x) for f, xs in ROWS.items() for x in xs if type(x) is float] + [
    (cmath.acos, 2.0), (cmath.asin, -3.0), (cmath.acosh, 0.5), (cmath.atanh, 2.0)]


def test_order_two_at_real_arguments():
    for f, x in REAL_ORDER2:
        test_frule(f, x, order=2)
        test_rrule(f, x, order=2)
        assert type(rrule(f, x)[1](1j)[1]) is float


def test_order_two_of_a_real_power_with_a_complex_result():
    import operator
    for p in (1 / 3, 0.5):                  # (-8.0) ** (1/3) is complex in Python
        test_frule(operator.pow, -8.0, p, order=2)
        test_rrule(operator.pow, -8.0, p, order=2)
