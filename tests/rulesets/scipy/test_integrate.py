"""Tests of chainrules/rulesets/scipy/integrate.py: trapezoid (SciPy's and NumPy's),
cumulative_trapezoid and simpson with chainrules.testing at order 1 and 2, complex, float32,
x given or not, 1-d or full x, axes; quad in its limits and args (order 1 with TestConfig and
chainrules.ad, order 2 through chainrules.ad); against JAX; bad input.  odeint and solve_ivp: test_integrate_ode.py."""

import numpy as np
import pytest
import scipy.integrate as integrate

import chainrules as cr
from chainrules import ad
from chainrules.testing import PrimalAndTangent, TestConfig, test_frule, test_rrule

from .._order2 import F32, Case

NT = cr.NoTangent()
RNG = np.random.default_rng(244)


def r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def run(cases, config=False):
    failures = []
    for f, args, kw, orders, tol in cases:
        head = (TestConfig(),) if config else ()
        for order in orders:
            try:
                test_frule(*head, f, *args, fkwargs=kw, order=order, **tol)
                test_rrule(*head, f, *args, fkwargs=kw, order=order, **tol)
            except Exception as e:  # noqa: BLE001 - collected and reported together
                failures.append(f"{getattr(f, '__name__', f)}{[np.shape(a) for a in args]} {kw} order {order}: "
                                f"{type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


def test_trapezoids():
    y, x = r(5), np.sort(r(5))
    Y, X = r(3, 5), np.sort(r(3, 5), axis=1)
    cases = []
    fs = [integrate.trapezoid, integrate.cumulative_trapezoid] + ([np.trapezoid] if hasattr(np, "trapezoid") else [])
    for f in fs:
        cases += [(f, (y,), None, (1, 2), {}), (f, (y, x), None, (1, 2), {}), (f, (Y, x), None, (1, 2), {}),
                  (f, (Y, X), None, (1, 2), {}), (f, (Y.T, x, 1.0, 0), None, (1, 2), {}),
                  (f, (y + 1j * y[::-1], x), None, (1, 2), {}), (f, (y, None, 0.3), None, (1, 2), {}),
                  (f, (y, np.array([0.0, 0.0, 1.0, 1.0, 2.0])), None, (1, 2), {}),       # repeated x
                  (f, (r(2),), None, (1, 2), {}), (f, ([1.0, 2.0, 4.0], [0.0, 0.5, 2.0]), None, (1,), {}),
                  (f, (r(4, dtype=np.float32), np.sort(r(4, dtype=np.float32))), None, (1,), F32)]
    cases.append((integrate.cumulative_trapezoid, (Y, x), {"initial": 0}, (1, 2), {}))
    run(cases)


def test_simpson():
    y, x = r(5), np.sort(r(5))
    run([(integrate.simpson, (y,), None, (1, 2), {}),
         (integrate.simpson, (y,), {"x": x}, (1, 2), {}),
         (integrate.simpson, (r(3, 4),), {"x": x[:4]}, (1, 2), {}),            # an even number of points
         (integrate.simpson, (r(5, 2),), {"axis": 0, "dx": 0.2}, (1, 2), {}),
         (integrate.simpson, (y + 1j,), None, (1, 2), {}),
         (integrate.simpson, (y, PrimalAndTangent(x, NT)), None, (1, 2), {}),
         (integrate.simpson, (r(5, dtype=np.float32),), None, (1,), F32)])
    # the pullback's weights (SciPy's formulas, O(n)) are simpson of the unit vectors
    from chainrules.rulesets.scipy.integrate import _simpson_weights
    for n in range(2, 10):
        for xs in (None, np.sort(r(n)), np.array([0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.5, 5.0])[:n]):
            np.testing.assert_allclose(_simpson_weights(n, xs, 0.3),
                                       integrate.simpson(np.eye(n), x=xs, dx=0.3, axis=-1), rtol=1e-13)
    # the derivative in x is not implemented, and says so
    _, pb = cr.rrule(integrate.simpson, y, x)
    assert isinstance(pb(1.0)[2], cr.NotImplementedTangent)


def g(t, p, q):
    return np.sin(p * t) + q * t ** 2


def h(t, w):
    return np.sum(np.exp(-w * t))


def test_quad():
    tol = {"rtol": 1e-6, "atol": 1e-8}
    run([(integrate.quad, (g, 0.2, 1.3, (0.7, 1.1)), None, (1,), tol),
         (integrate.quad, (h, -0.5, 1.0, (np.array([0.5, 1.5]),)), None, (1,), tol),
         (integrate.quad, (np.cos, -0.5, 1.0), None, (1,), tol),
         (integrate.quad, (g, 1.3, 0.2, (0.7, 1.1)), None, (1,), tol)], config=True)     # reversed limits

    # through chainrules.ad (SciPy's functions are called through ad.wrap there):
    # d/dp ∫₀ᵇ sin(p·t) dt = ∫₀ᵇ t·cos(p·t) dt, and Leibniz in b
    quad = ad.wrap(integrate.quad)

    def integral(p, b):
        return quad(g, 0.0, b, (p, 0.5))[0]
    p, b = 0.8, 1.2
    dp = ad.gradient(lambda p: integral(p, b), p)
    expected = integrate.quad(lambda t: t * np.cos(p * t), 0.0, b)[0]
    np.testing.assert_allclose(dp, expected, rtol=1e-8)
    np.testing.assert_allclose(ad.derivative(lambda b: integral(p, b), b), g(b, p, 0.5), rtol=1e-10)


def test_quad_second_derivatives():
    """Every nesting of the two modes through quad: its rules call quad again on traced values
    (in a limit, in args, mixed), against the integrals of the integrand's own derivatives."""
    quad = ad.wrap(integrate.quad)

    def f(t, v):
        return np.exp(-v[0] * t) * np.cos(v[1] * t)

    def integral(w):
        return quad(f, 0.0, w[2], (w[:2],))[0]
    w = np.array([0.5, 2.0, 1.1])
    v, b = w[:2], w[2]
    d2 = [[lambda t: t * t * f(t, v), lambda t: t * t * np.exp(-v[0] * t) * np.sin(v[1] * t)],
          [lambda t: t * t * np.exp(-v[0] * t) * np.sin(v[1] * t), lambda t: -t * t * f(t, v)]]
    want = np.zeros((3, 3))
    for i in range(2):
        for j in range(2):
            want[i, j] = integrate.quad(d2[i][j], 0.0, b, epsabs=1e-13, epsrel=1e-13)[0]
    # in the limit: ∂b f(b, v) = -sin terms; ∂v ∂b = ∂v f(b, v)
    want[2, :2] = want[:2, 2] = [-b * f(b, v), -b * np.exp(-v[0] * b) * np.sin(v[1] * b)]
    want[2, 2] = -v[0] * f(b, v) - v[1] * np.exp(-v[0] * b) * np.sin(v[1] * b)
    for H in (ad.hessian(integral, w),                                        # forward over reverse
              ad.jacobian(lambda u: ad.gradient(integral, u), w),              # reverse over reverse
              ad.jacobian(lambda u: ad.jacobian(integral, u), w)):             # forward mode inside
        np.testing.assert_allclose(H, want, rtol=1e-7, atol=1e-10)
    # forward over forward in one argument
    g = ad.derivative(lambda p: ad.derivative(lambda q: quad(lambda t, q: np.sin(q * t), 0.0, 1.2, (q,))[0], p), 0.8)
    np.testing.assert_allclose(g, integrate.quad(lambda t: -t * t * np.sin(0.8 * t), 0.0, 1.2)[0], rtol=1e-9)


def test_against_jax(jax_x64):
    jint = pytest.importorskip("jax.scipy.integrate")
    y, x = r(3, 5), np.sort(r(5))
    Ω, pb = cr.rrule(integrate.trapezoid, y, x)
    ȳ = r(3)
    jy, vjp = jax_x64.vjp(lambda a, b: jint.trapezoid(a, b), y, x)
    np.testing.assert_allclose(np.asarray(jy), Ω, rtol=1e-12)
    for mine, theirs in zip(pb(ȳ)[1:], vjp(ȳ)):
        np.testing.assert_allclose(cr.unthunk(mine), np.asarray(theirs), rtol=1e-10, atol=1e-12)


def test_bad_input():
    bad = [(lambda: cr.rrule(integrate.trapezoid, r(3, 4), r(2, 2)), ValueError, "scipy.integrate.trapezoid"),
           (lambda: cr.rrule(integrate.cumulative_trapezoid, r(4), initial=1.0), ValueError, "initial"),
           (lambda: cr.rrule(integrate.simpson, r(3, 4), x=r(3, 4)), ValueError, "1-d x"),
           (lambda: cr.rrule(TestConfig(), integrate.quad, np.sin, 0.0, 1.0, full_output=1), TypeError, "full_output"),
           (lambda: cr.rrule(TestConfig(), integrate.quad, np.sin, 0.0, 1.0, weight="cos", wvar=2.0), TypeError, "weight"),
           (lambda: cr.rrule(integrate.trapezoid, r(4), bogus=1), TypeError, "bogus"),
]
    for call, error, words in bad:
        with pytest.raises(error, match=words):
            call()


SWEEP_CASES = [
    Case("integrate.trapezoid", integrate.trapezoid, r(5), np.sort(r(5))),
    Case("integrate.cumulative_trapezoid", integrate.cumulative_trapezoid, r(2, 4)),
    Case("integrate.simpson", integrate.simpson, r(5), fkwargs={"dx": 0.5}),
]
if hasattr(np, "trapezoid"):
    SWEEP_CASES.append(Case("np.trapezoid", np.trapezoid, r(4), np.sort(r(4))))
