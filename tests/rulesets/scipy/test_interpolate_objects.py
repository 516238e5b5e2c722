"""Tests of chainrules/rulesets/scipy/interpolate_objects.py: the rules on SciPy's own
interpolants.  A build's output is an object, so each case composes the two rules, build
(x, y ↦ spline) then call (spline, xs ↦ values), and checks the composite's frule and the
chained pullbacks against finite differences of `make(x, y)(xs)` in y and xs; the knots get
not_implemented; an option the call rule does not take is a TypeError naming it."""

import numpy as np
import pytest
import scipy.interpolate as si

import chainrules as cr
from chainrules.finite_differences import central_fdm, jvp, vjp

FDM = central_fdm(5, 1, max_range=1e-2)
RNG = np.random.default_rng(77)
X = np.array([0.0, 0.4, 1.0, 1.3, 2.1, 3.0])
Y = np.sin(X) + 0.1 * X
XS = np.array([0.05, 0.45, 0.77, 1.9, 2.95])
GRID = (np.array([0.0, 0.5, 1.5, 2.0]), np.array([-1.0, 0.0, 1.0, 2.0]))
XI = np.array([[0.3, -0.3], [1.2, 0.6], [1.7, 1.35]])     # inside cells, off 'nearest''s midpoints
PERM = np.array([3, 0, 5, 1, 4, 2])

CASES = [
    (si.CubicSpline, X, Y, XS, {}),
    (si.CubicSpline, X, Y, XS, {"bc_type": "natural"}),
    (si.CubicSpline, X, Y, XS, {"bc_type": ((1, 0.5), (2, -1.0))}),       # affine in y
    (si.CubicSpline, X, np.stack([Y, Y ** 2], axis=1), XS, {}),           # vector values
    (si.CubicSpline, X, Y, np.array([-0.2, 3.3]), {}),                    # extrapolated
    (si.make_interp_spline, X, Y, XS, {"k": 3}),
    (si.make_interp_spline, X, Y, XS, {"k": 1}),
    (si.make_interp_spline, X, np.stack([Y, Y ** 2], axis=1), XS, {"k": 2}),
    (si.make_lsq_spline, X, Y, XS, {"t": np.r_[[0.0] * 4, 1.5, [3.0] * 4], "k": 3}),
    (si.make_smoothing_spline, X, Y, XS, {"lam": 0.1}),
    (si.interp1d, X, Y, XS, {}),
    (si.interp1d, X, Y, XS, {"kind": "cubic"}),
    (si.interp1d, X[PERM], Y[PERM], XS, {"kind": "quadratic"}),           # unsorted x: SciPy sorts
    (si.interp1d, X, Y, XS + 0.01, {"kind": "nearest"}),
    (si.interp1d, X, Y, np.array([-0.5, 0.45, 3.5]), {"bounds_error": False, "fill_value": 2.0}),
    (si.interp1d, X, np.stack([Y, Y ** 2]), XS, {"kind": "cubic"}),       # axis=-1, interp1d's default
    (si.RegularGridInterpolator, GRID, RNG.standard_normal((4, 4)), XI, {}),
    (si.RegularGridInterpolator, GRID, RNG.standard_normal((4, 4)), XI, {"method": "cubic"}),
    (si.RegularGridInterpolator, GRID, RNG.standard_normal((4, 4, 2)), XI, {"method": "nearest"}),
    (si.RegularGridInterpolator, (GRID[0][::-1], GRID[1]), RNG.standard_normal((4, 4)), XI, {}),  # descending
]


def _composed(make, x, y, xs, kw):
    ẏ, ẋs = RNG.standard_normal(np.shape(y)), RNG.standard_normal(np.shape(xs))
    obj, Δobj = cr.frule((cr.NoTangent(), cr.ZeroTangent(), ẏ), make, x, y, **kw)
    assert type(Δobj) is cr.Tangent[type(obj)]
    Ω, Δ = cr.frule((Δobj, ẋs), obj, xs)
    np.testing.assert_array_equal(Ω, make(x, y, **kw)(xs))
    want = jvp(FDM, lambda y, xs: make(x, y, **kw)(xs), (y, ẏ), (xs, ẋs))
    np.testing.assert_allclose(Δ, want, rtol=1e-6, atol=1e-8)
    obj, pb_build = cr.rrule(make, x, y, **kw)
    Ω, pb_call = cr.rrule(obj, xs)
    Ω̄ = RNG.standard_normal(np.shape(Ω))
    obj̄, x̄s = pb_call(Ω̄)
    f̄, x̄, ȳ = pb_build(obj̄)
    wy, wxs = vjp(FDM, lambda y, xs: make(x, y, **kw)(xs), Ω̄, y, xs)
    np.testing.assert_allclose(ȳ, wy, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(x̄s, wxs, rtol=1e-6, atol=1e-8)
    assert isinstance(x̄, cr.NotImplementedTangent) and "knots" in str(x̄)


def test_build_then_call_against_finite_differences():
    failures = []
    for make, x, y, xs, kw in CASES:
        try:
            _composed(make, x, y, xs, kw)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{make.__name__} {kw} y{np.shape(y)}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


def test_calls_of_objects_built_elsewhere():
    """PchipInterpolator, Akima1DInterpolator and BSpline objects are PPoly/BSpline: their calls
    have the call rule (in the points, and in the coefficients), with nu."""
    for obj in (si.PchipInterpolator(X, Y), si.Akima1DInterpolator(X, Y), si.make_interp_spline(X, Y, k=3)):
        for nu in (0, 1):
            Ω, pb = cr.rrule(obj, XS, nu)
            np.testing.assert_array_equal(Ω, obj(XS, nu))
            Ω̄ = RNG.standard_normal(XS.shape)
            obj̄, x̄s, _ = pb(Ω̄)
            np.testing.assert_allclose(x̄s, obj(XS, nu + 1) * Ω̄, rtol=1e-12)
            c = np.asarray(obj.c)
            ċ = RNG.standard_normal(c.shape)
            # ⟨c̄, ċ⟩ = ⟨Ω̄, call(with ċ)⟩: the coefficient cotangent is the call's adjoint
            from chainrules.rulesets.scipy.interpolate_objects import with_data
            np.testing.assert_allclose(np.sum(obj̄.c * ċ), np.sum(with_data(obj, ċ)(XS, nu) * Ω̄), rtol=1e-10)


def test_bad_input():
    with pytest.raises(TypeError, match="make_smoothing_spline.*lam"):
        cr.rrule(si.make_smoothing_spline, X, Y)
    spline = si.CubicSpline(X, Y)
    with pytest.raises(TypeError, match="CubicSpline.__call__.*extrapolate"):
        cr.rrule(spline, XS, extrapolate=False)
    _, Δ = cr.frule((cr.NoTangent(), np.ones(6), cr.ZeroTangent()), si.CubicSpline, X, Y)
    assert isinstance(Δ, cr.NotImplementedTangent) and "knots" in str(Δ)
    rgi = si.RegularGridInterpolator((np.arange(4.0) - 1, np.arange(4.0) - 1), np.ones((4, 4)), method="pchip")
    _, pb = cr.rrule(rgi, XI)
    assert isinstance(pb(np.ones(3))[1], cr.NotImplementedTangent)
