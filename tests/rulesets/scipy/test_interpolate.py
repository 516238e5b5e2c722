"""Tests of chainrules/rulesets/scipy/interpolate.py: `evaluate(make, x, y, xs)` for
CubicSpline, make_interp_spline, interp1d and RegularGridInterpolator with the kit at order
1 and 2 (in y and xs; x held fixed: its derivative is not implemented, and says so), through
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
    try:       # RegularGridInterpolator: in the values (xi fixed: not implemented)
        for method in ("linear", "nearest", "cubic"):
            values = RNG.standard_normal((4, 4)) if method == "cubic" else VALUES
            grid = (np.array([0.0, 0.5, 1.5, 2.0]), GRID[1]) if method == "cubic" else GRID
            test_frule(evaluate, si.RegularGridInterpolator, fixed(grid), values, fixed(XI),
                       fkwargs={"method": method}, rtol=1e-6, atol=1e-8)
            test_rrule(evaluate, si.RegularGridInterpolator, fixed(grid), values, fixed(XI),
                       fkwargs={"method": method}, rtol=1e-6, atol=1e-8)
    except Exception as e:  # noqa: BLE001
        failures.append(f"RegularGridInterpolator: {type(e).__name__}: {str(e)[:400]}")
    assert not failures, "\n".join(failures)


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


def test_bad_input():
    # the knots: not implemented, and says so
    _, pb = cr.rrule(evaluate, si.CubicSpline, X, Y, XS)
    assert isinstance(pb(np.ones(5))[2], cr.NotImplementedTangent)
    _, t = cr.frule((NT, NT, np.ones(6), cr.ZeroTangent(), cr.ZeroTangent()), evaluate, si.CubicSpline, X, Y, XS)
    assert isinstance(t, cr.NotImplementedTangent)
    _, pb = cr.rrule(evaluate, si.RegularGridInterpolator, GRID, VALUES, XI)
    assert isinstance(pb(np.ones(3))[4], cr.NotImplementedTangent)
    bad = [(lambda: cr.rrule(evaluate, si.PchipInterpolator, X, Y, XS), TypeError, "make must be one of"),
           (lambda: cr.rrule(evaluate, si.CubicSpline, X, np.stack([Y, Y]), XS, axis=1), TypeError, "axis=0"),
           (lambda: cr.rrule(evaluate, si.interp1d, X, Y, XS, kind=2), TypeError, "kind"),
           (lambda: cr.rrule(evaluate, si.interp1d, X, Y, XS, 1), TypeError, "nu")]
    for call, error, words in bad:
        with pytest.raises(error, match=words):
            call()


SWEEP_CASES = [
    Case("interpolate.evaluate", evaluate, si.CubicSpline, fixed(X), Y, XS, tol={"rtol": 1e-6, "atol": 1e-8}),
]
