"""Tests of chainrules/rulesets/scipy/interpolate.py: `evaluate(make, x, y, xs)` for
CubicSpline, make_interp_spline, interp1d and RegularGridInterpolator with the kit at order
1 and 2 (in y and xs, RegularGridInterpolator in values and xi; x held fixed: its derivative is not implemented, and says so), through
chainrules.ad's drop-in classes (chainrules.ad.scipy.interpolate) against SciPy's own
derivatives and finite differences, and bad input."""

import numpy as np
import pytest
import scipy.interpolate as si

import chainrules as cr
from chainrules import ad
from chainrules.ad.scipy import interpolate as ai
from chainrules.rulesets.scipy.interpolate import evaluate
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from .._order2 import Case

NT = cr.NoTangent()
RNG = np.random.default_rng(2424)
X = np.array([0.0, 0.4, 1.0, 1.3, 2.1, 3.0])
Y = np.sin(X) + 0.1 * X
XS = np.array([0.05, 0.45, 0.77, 1.9, 2.95])
KNOTS = np.array([0.4, 1.3])        # a cubic spline is C² there: its value differentiable in xs
GRID = (np.array([0.0, 0.5, 1.5]), np.array([-1.0, 0.0, 1.0, 2.0]))
VALUES = RNG.standard_normal((3, 4))
XI = np.array([[0.2, -0.5], [1.2, 1.7], [0.5, 0.0]])


def fixed(x):
    return PrimalAndTangent(x, NT)


def test_kit():
    cases = [
        (si.CubicSpline, (Y, XS), {}),
        (si.CubicSpline, (Y, XS), {"bc_type": "natural"}),
        (si.CubicSpline, (Y, XS), {"bc_type": ((1, 0.5), (2, -1.0))}),          # affine in y
        (si.CubicSpline, (np.stack([Y, Y ** 2], axis=1), XS), {}),              # vector values
        (si.CubicSpline, (Y, 1.7), {}),                                          # one point, a float
        (si.CubicSpline, (Y, -0.2), {}),                                         # extrapolated
        (si.CubicSpline, (Y, np.array([[0.5, 1.1], [2.0, 2.5]])), {"bc_type": "clamped"}),
        (si.make_interp_spline, (Y, XS), {"k": 3}),
        (si.make_interp_spline, (Y, XS), {"k": 1}),
        (si.interp1d, (Y, XS), {}),
        (si.interp1d, (Y, XS), {"kind": "cubic"}),
        (si.interp1d, (Y, XS), {"kind": "quadratic"}),
        (si.interp1d, (Y, XS + 0.01), {"kind": "nearest"}),
    ]
    failures = []
    for make, (y, xs), kw in cases:
        try:
            test_frule(evaluate, make, fixed(X), y, xs, fkwargs=kw, rtol=1e-6, atol=1e-8)
            test_rrule(evaluate, make, fixed(X), y, xs, fkwargs=kw, rtol=1e-6, atol=1e-8)
            if make is si.CubicSpline and np.ndim(xs) == 1 and y.ndim == 1:
                test_frule(evaluate, make, fixed(X), y, KNOTS, fkwargs=kw, rtol=1e-6, atol=1e-8)
                test_rrule(evaluate, make, fixed(X), y, KNOTS, fkwargs=kw, rtol=1e-6, atol=1e-8)
            if make is si.CubicSpline:                    # a derivative order nu
                test_frule(evaluate, make, fixed(X), y, xs, 1, fkwargs=kw, rtol=1e-6, atol=1e-8)
                test_rrule(evaluate, make, fixed(X), y, xs, 1, fkwargs=kw, rtol=1e-6, atol=1e-8)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{make.__name__} {kw}: {type(e).__name__}: {str(e)[:400]}")
    # order 2: the rules' bodies call evaluate through its own rules, so they differentiate again
    for make, kw in [(si.CubicSpline, {}), (si.CubicSpline, {"bc_type": "natural"}),
                     (si.make_interp_spline, {"k": 3}), (si.interp1d, {"kind": "cubic"})]:
        try:
            test_frule(evaluate, make, fixed(X), Y, XS, fkwargs=kw, order=2, rtol=1e-6, atol=1e-8)
            test_rrule(evaluate, make, fixed(X), Y, XS, fkwargs=kw, order=2, rtol=1e-6, atol=1e-8)
        except Exception as e:  # noqa: BLE001
            failures.append(f"order 2 {make.__name__} {kw}: {type(e).__name__}: {str(e)[:400]}")
    # RegularGridInterpolator: in the values and in xi (points inside the cells, away from the
    # knots and from the midpoints where 'nearest' jumps), vector values, one 1-d point, order 2
    grid4 = (np.array([0.0, 0.5, 1.5, 2.0]), GRID[1])
    xi = np.array([[0.3, -0.3], [1.2, 0.6], [1.7, 1.35]])
    rgi = si.RegularGridInterpolator
    for method, values, points, order in [("linear", RNG.standard_normal((4, 4)), xi, 1),
                                          ("slinear", RNG.standard_normal((4, 4)), xi, 1),
                                          ("nearest", RNG.standard_normal((4, 4)), xi, 1),
                                          ("cubic", RNG.standard_normal((4, 4)), xi, 1),
                                          ("linear", RNG.standard_normal((4, 4, 2)), xi, 1),
                                          ("linear", RNG.standard_normal((4, 4, 2)), xi[1], 1),
                                          ("linear", RNG.standard_normal((4, 4)), xi, 2),
                                          ("cubic", RNG.standard_normal((4, 4)), xi, 2)]:
        try:
            tol = dict(rtol=1e-6, atol=1e-8) if order == 1 else dict(rtol=1e-5, atol=1e-7)
            test_frule(evaluate, rgi, fixed(grid4), values, points, fkwargs={"method": method}, order=order, **tol)
            test_rrule(evaluate, rgi, fixed(grid4), values, points, fkwargs={"method": method}, order=order, **tol)
        except Exception as e:  # noqa: BLE001
            failures.append(f"RegularGridInterpolator {method} {values.shape} order {order}: "
                            f"{type(e).__name__}: {str(e)[:400]}")
    assert not failures, "\n".join(failures)


def test_interpn():
    """interpn is RegularGridInterpolator built and called: the same rules, in values and xi."""
    grid4 = (np.array([0.0, 0.5, 1.5, 2.0]), GRID[1])
    xi = np.array([[0.3, -0.3], [1.2, 0.6], [1.7, 1.35]])
    for kw, order in (({}, 1), ({"method": "cubic"}, 1), ({"method": "linear"}, 2)):
        test_frule(si.interpn, fixed(grid4), RNG.standard_normal((4, 4)), xi, fkwargs=kw, order=order, rtol=1e-5, atol=1e-7)
        test_rrule(si.interpn, fixed(grid4), RNG.standard_normal((4, 4)), xi, fkwargs=kw, order=order, rtol=1e-5, atol=1e-7)
    with pytest.raises(TypeError, match="interpn.*splinef2d"):
        cr.rrule(si.interpn, grid4, np.ones((4, 4)), xi, method="splinef2d")
    with pytest.raises(TypeError, match="interpn.*bogus"):
        cr.rrule(si.interpn, grid4, np.ones((4, 4)), xi, bogus=1)


def test_splev_splint():
    """FITPACK's splev/splint in the points (limits) and the coefficients c, against central
    differences; the knots not implemented; every order through chainrules.ad."""
    t, c, k = si.splrep(X, Y)
    h = 1e-6
    for der, ext, pts in ((0, 0, XS), (1, 0, XS), (2, 0, XS), (0, 1, np.array([-0.4, 1.1, 3.4])),
                          (0, 3, np.array([-0.4, 1.1, 3.4])), (0, 0, 1.7)):
        ẋ, ċ = RNG.standard_normal(np.shape(pts)), RNG.standard_normal(c.shape)
        _, Δ = cr.frule((NT, ẋ, cr.Tangent[tuple](cr.ZeroTangent(), ċ, NT), NT, NT), si.splev, pts, (t, c, k), der, ext)
        fd = (si.splev(pts + h * ẋ, (t, c + h * ċ, k), der, ext) - si.splev(pts - h * ẋ, (t, c - h * ċ, k), der, ext)) / (2 * h)
        np.testing.assert_allclose(Δ, fd, rtol=1e-6, atol=1e-8)
        Ω̄ = RNG.standard_normal(np.shape(pts))
        _, pb = cr.rrule(si.splev, pts, (t, c, k), der, ext)
        _, x̄, tck̄, *_ = pb(Ω̄)
        np.testing.assert_allclose(np.sum(x̄ * ẋ) + np.sum(tck̄[1] * ċ), np.sum(Ω̄ * Δ), rtol=1e-9)
        assert isinstance(tck̄[0], cr.NotImplementedTangent) and "knots" in str(tck̄[0])
    for a, b in ((0.2, 2.5), (-0.5, 2.5), (0.2, 3.5)):           # splint is zero outside [t[k], t[-k-1]]
        ȧ, ḃ, ċ = 0.7, -1.3, RNG.standard_normal(c.shape)
        _, Δ = cr.frule((NT, ȧ, ḃ, cr.Tangent[tuple](cr.ZeroTangent(), ċ, NT)), si.splint, a, b, (t, c, k))
        fd = (si.splint(a + h * ȧ, b + h * ḃ, (t, c + h * ċ, k)) - si.splint(a - h * ȧ, b - h * ḃ, (t, c - h * ċ, k))) / (2 * h)
        np.testing.assert_allclose(Δ, fd, rtol=1e-6, atol=1e-8)
        _, pb = cr.rrule(si.splint, a, b, (t, c, k))
        _, ā, b̄, tck̄ = pb(1.0)
        np.testing.assert_allclose(ā * ȧ + b̄ * ḃ + np.sum(tck̄[1] * ċ), Δ, rtol=1e-9)
    # order 2: the spline's second derivative, splint's Hessian in its limits
    splev, splint = ad.wrap(si.splev), ad.wrap(si.splint)
    for d2 in (ad.derivative(lambda u: ad.derivative(lambda v: splev(v, (t, c, k)), u), 1.1),
               ad.gradient(lambda u: ad.gradient(lambda v: splev(v, (t, c, k)), u), 1.1)):
        np.testing.assert_allclose(d2, si.splev(1.1, (t, c, k), 2), rtol=1e-12)
    H = ad.hessian(lambda v: splint(v[0], v[1], (t, c, k)), np.array([0.2, 2.5]))
    np.testing.assert_allclose(H, np.diag([-si.splev(0.2, (t, c, k), 1), si.splev(2.5, (t, c, k), 1)]), rtol=1e-12)
    with pytest.raises(TypeError, match="splint.*full_output"):
        cr.rrule(si.splint, 0.2, 2.5, (t, c, k), full_output=1)


def test_through_ad():
    spline = si.CubicSpline(X, Y)
    # in the points: SciPy's own derivative
    np.testing.assert_allclose(ad.gradient(lambda xs: ai.CubicSpline(X, Y)(xs).sum(), XS), spline(XS, 1),
                               rtol=1e-13)
    _, t = ad.jvp(lambda xs: ai.make_interp_spline(X, Y)(xs), (XS,), (np.ones(5),))
    np.testing.assert_allclose(t, si.make_interp_spline(X, Y)(XS, 1), rtol=1e-13)
    # in the data: a spline reproduces constants (the weights sum to 1) and is linear in y
    w = ad.gradient(lambda y: ai.CubicSpline(X, y)(1.7), Y)
    np.testing.assert_allclose(w.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(w @ Y, spline(1.7), rtol=1e-12)
    # in the data and the points at once, against finite differences
    def f(y, xs):
        return np.sum(ai.interp1d(X, y, kind="cubic")(xs) ** 2)
    gy, gxs = ad.gradient(f, Y, XS)
    h = 1e-6
    plain = lambda y, xs: np.sum(si.interp1d(X, y, kind="cubic")(xs) ** 2)  # noqa: E731
    fd_y = [(plain(Y + h * e, XS) - plain(Y - h * e, XS)) / (2 * h) for e in np.eye(6)]
    fd_xs = [(plain(Y, XS + h * e) - plain(Y, XS - h * e)) / (2 * h) for e in np.eye(5)]
    np.testing.assert_allclose(gy, fd_y, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gxs, fd_xs, rtol=1e-6, atol=1e-8)
    gv = ad.gradient(lambda v: ai.RegularGridInterpolator(GRID, v)(XI).sum(), VALUES)
    fd_v = np.reshape([(si.RegularGridInterpolator(GRID, VALUES + h * e.reshape(3, 4))(XI).sum()
                        - si.RegularGridInterpolator(GRID, VALUES - h * e.reshape(3, 4))(XI).sum()) / (2 * h)
                       for e in np.eye(12)], (3, 4))
    np.testing.assert_allclose(gv, fd_v, rtol=1e-6, atol=1e-8)
    # in xi: SciPy's own derivative orders of the same (piecewise-multilinear) interpolant
    gxi = ad.gradient(lambda p: ai.RegularGridInterpolator(GRID, VALUES)(p).sum(), XI)
    spline = si.RegularGridInterpolator(GRID, VALUES, method="slinear")
    np.testing.assert_allclose(gxi, np.stack([spline(XI, nu=(1, 0)), spline(XI, nu=(0, 1))], axis=-1), rtol=1e-12)


def test_bad_input():
    # the knots: not implemented, and says so
    _, pb = cr.rrule(evaluate, si.CubicSpline, X, Y, XS)
    assert isinstance(pb(np.ones(5))[2], cr.NotImplementedTangent)
    _, t = cr.frule((NT, NT, np.ones(6), cr.ZeroTangent(), cr.ZeroTangent()), evaluate, si.CubicSpline, X, Y, XS)
    assert isinstance(t, cr.NotImplementedTangent)
    # RegularGridInterpolator's 'pchip' in xi: not implemented, and says so
    grid4 = (np.array([0.0, 0.5, 1.5, 2.0]), GRID[1])
    _, pb = cr.rrule(evaluate, si.RegularGridInterpolator, grid4, RNG.standard_normal((4, 4)), XI, method="pchip")
    x̄i = pb(np.ones(3))[4]
    assert isinstance(x̄i, cr.NotImplementedTangent) and "pchip" in str(x̄i)
    bad = [(lambda: cr.rrule(evaluate, si.PchipInterpolator, X, Y, XS), TypeError, "make must be one of"),
           (lambda: cr.rrule(evaluate, si.CubicSpline, X, np.stack([Y, Y]), XS, axis=1), TypeError, "axis=0"),
           (lambda: cr.rrule(evaluate, si.interp1d, X, Y, XS, kind=2), TypeError, "kind"),
           (lambda: cr.rrule(evaluate, si.interp1d, X, Y, XS, 1), TypeError, "nu")]
    for call, error, words in bad:
        with pytest.raises(error, match=words):
            call()


SWEEP_CASES = [
    Case("interpolate.evaluate", evaluate, si.CubicSpline, fixed(X), Y, XS, tol={"rtol": 1e-6, "atol": 1e-8}),
    Case("interpolate.interpn", si.interpn, fixed((np.array([0.0, 0.5, 1.5, 2.0]), GRID[1])), RNG.standard_normal((4, 4)),
         np.array([[0.3, -0.3], [1.2, 0.6], [1.7, 1.35]]), tol={"rtol": 1e-6, "atol": 1e-8}),
]
