"""Second and third derivatives of array-API code on every array library,
through the rules themselves (a rule body computes with the namespace of its
arguments, so the enclosing differentiation differentiates it): forward over
reverse (hessian), reverse over reverse, reverse over forward, forward over
forward, and third derivatives in three nestings, complex included; values
against closed forms and finite differences of NumPy code."""

import numpy as np
import pytest

from chainrules import ad
from .test_array_api import LIBS, X, _fd_grad, _Lib, f_sin, xp_of

pytestmark = pytest.mark.interop

C = np.array([1.0, 2.0, 3.0, 4.0])


@pytest.fixture(params=LIBS)
def lib(request):
    return _Lib(request.param)


def g(x):
    xp = xp_of(x)
    return xp.sin(x) * xp.exp(x)


def _g3(z):
    """The third derivative of sin(z)·exp(z)."""
    return 2 * np.exp(z) * (np.cos(z) - np.sin(z))


H_DIAG = 2 * np.cos(X) - X * np.sin(X)      # the Hessian of sum(sin(x)·x) is diagonal


def test_second_order_nestings(lib):
    x, c = lib.array(X), lib.array(C)
    with lib.lazy():
        rr = ad.gradient(lambda x: xp_of(x).sum(ad.gradient(f_sin, x) * c), x)
        rf = ad.gradient(lambda x: ad.jvp(f_sin, (x,), (c,))[1], x)
        ff = ad.jvp(lambda x: ad.jvp(f_sin, (x,), (c,))[1], (x,), (c,))[1]
        fr = ad.hvp(f_sin, x, c)
    for got in (rr, rf, fr):
        np.testing.assert_allclose(lib.numpy(got), H_DIAG * C, rtol=1e-12)
    np.testing.assert_allclose(float(lib.numpy(ff)), np.sum(H_DIAG * C * C), rtol=1e-12)


@pytest.mark.parametrize("z", [0.4, 0.4 + 0.3j, -1.2 - 0.5j])
def test_third_derivatives(lib, z):
    x = lib.array(np.array(z))
    with lib.lazy():
        fff = ad.derivative(lambda y: ad.derivative(lambda u: ad.derivative(g, u), y), x)
        outs = [fff]
        if isinstance(z, float):    # gradients need a real output
            outs.append(ad.gradient(lambda y: ad.gradient(
                lambda u: ad.gradient(lambda w: xp_of(w).sum(g(w)), u), y), x))
            outs.append(ad.derivative(lambda y: ad.gradient(lambda u: ad.gradient(g, u), y), x))
    for got in outs:
        np.testing.assert_allclose(complex(lib.numpy(got)), _g3(z), rtol=1e-12)


def _cplx(x):
    """A real function of a real array through complex intermediate values
    (abs and angle of complex numbers)."""
    xp = xp_of(x)
    z = xp.sin(x * (1 + 1j))
    return xp.sum(xp.abs(z)) + xp.sum(xp.sin(x) * xp.abs(z * z))


def test_hessian_through_complex_values(lib, request):
    if lib.name == "array_api_strict":
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "array_api_strict's Array.__mul__ raises TypeError (instead of returning "
            "NotImplemented) for a tracked value on its right: the complex abs row computes "
            "plain_array * tracked_seed")))
    x = lib.array(X)
    with lib.lazy():
        h = ad.hessian(_cplx, x)
    want = np.stack([_fd_grad(lambda a: float(ad.gradient(_cplx, a) @ e), X) for e in np.eye(4)])
    np.testing.assert_allclose(lib.numpy(h), want, rtol=1e-6, atol=1e-6)
