"""Rules for `scipy.interpolate`: an interpolant built from data and evaluated,
`evaluate(make, x, y, xs, nu=0, **options) = make(x, y, **options)(xs[, nu])`,
differentiable in the data values y and in the evaluation points xs, for
`make` one of `CubicSpline`, `make_interp_spline`, `interp1d` and
`RegularGridInterpolator` (x: its tuple of grid points, xs: the points xi);
`interpn(points, values, xi)` is the last one's rules.

SciPy's interpolants are objects built from (x, y) and then called; the rules
are on the one function that does both, which an AD's drop-in
classes call (`CubicSpline(x, y)(xs)` with tracked y or xs).

- In y: every one of these interpolants is linear (affine with inhomogeneous
  boundary conditions) in the data: ẏ ↦ evaluate(x, y + ẏ) − evaluate(x, y)
  = L·ẏ, computed as evaluate(x, ẏ) − evaluate(x, 0); the pullback applies Lᵀ,
  whose columns are those of the unit vectors (O(size(y)) evaluations: for
  modest data).
- In xs: the interpolant's derivative, `spline(xs, nu + 1)` (interp1d: the
  B-spline of its order; zero for 'nearest', 'zero', 'previous', 'next', which
  are piecewise constant).  RegularGridInterpolator: its gradient in xi, one
  partial per grid dimension from SciPy's own `nu=` (SciPy ≥ 1.13) for the
  spline methods ('slinear', 'cubic', 'quintic'; 'linear' is the same
  piecewise-multilinear function as 'slinear'), zero for 'nearest'; 'pchip'
  is not implemented (NotImplementedTangent naming it).
- In the knots x: not implemented (NotImplementedTangent naming it).

Every order: the rules' bodies call `evaluate` through these same rules
(`_evaluate`), so on values an AD tracks they differentiate again.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import scipy.interpolate as _interpolate

from chainrules._core import AbstractZero, Tangent, Wrapped, not_implemented, register_frule, register_rrule, unthunk, untraced
from chainrules.rulesets._arrays import NO, ZERO, like, named_options, project_to

_MAKERS = (_interpolate.CubicSpline, _interpolate.make_interp_spline, _interpolate.interp1d,
           _interpolate.RegularGridInterpolator)
# RegularGridInterpolator's __call__ takes derivative orders (nu=) from SciPy 1.13
_HAS_NU = "nu" in inspect.signature(_interpolate.RegularGridInterpolator.__call__).parameters
_ORDER = {"linear": 1, "slinear": 1, "quadratic": 2, "cubic": 3}
_CONSTANT = ("nearest", "nearest-up", "zero", "previous", "next")


def _name(make: Any) -> str:
    return f"scipy.interpolate.{getattr(make, '__name__', make)}"


def _check(make: Any, nu: Any, options: Any) -> None:
    if make not in _MAKERS:
        raise TypeError(f"chainrules.rulesets.scipy.interpolate.evaluate: make must be one of "
                        f"{', '.join(m.__name__ for m in _MAKERS)}, got {make!r}")
    if options.get("axis", 0) != 0:
        raise TypeError(f"{_name(make)}: the rule covers axis=0 only, not axis={options['axis']!r}")
    if nu and make is _interpolate.interp1d:
        raise TypeError(f"{_name(make)}: it takes no derivative order nu")
    if make is _interpolate.interp1d:
        kind = options.get("kind", "linear")
        if not isinstance(kind, str) or kind not in (*_ORDER, *_CONSTANT):
            raise TypeError(f"scipy.interpolate.interp1d: the rule does not cover kind={kind!r}")


def evaluate(make: Any, x: Any, y: Any, xs: Any, nu: Any = 0, **options: Any) -> Any:
    """make(x, y, **options)(xs) (with nu: its nu-th derivative; a tuple of orders per
    dimension for RegularGridInterpolator)."""
    _check(make, nu, options)
    obj = make(x, y, **options)
    if make is _interpolate.RegularGridInterpolator:
        return obj(xs, nu=tuple(nu)) if nu else obj(xs)
    return obj(xs, nu) if nu else obj(xs)


# evaluate as the rules call it: on values an AD tracks (a rule differentiated: order 2) it
# dispatches to these same rules, so the rules' bodies are differentiable again
_evaluate = Wrapped(evaluate)


def _slope(make: Any, x: Any, y: Any, xs: Any, nu: int, options: Any) -> Any:
    """∂ evaluate / ∂xs, element-wise in xs (trailing axes of y follow)."""
    if make is _interpolate.interp1d:
        kind = options.get("kind", "linear")
        if kind in _CONSTANT:
            return np.zeros(np.shape(evaluate(make, x, _plain(y), _plain(xs), **options)))
        return _evaluate(_interpolate.make_interp_spline, x, y, xs, 1, k=_ORDER[kind])
    return _evaluate(make, x, y, xs, nu + 1, **options)


_RGI_SPLINE = {"linear": "slinear", "slinear": "slinear", "cubic": "cubic", "quintic": "quintic"}


def _rgi_slopes(x: Any, y: Any, xs: Any, nu: Any, options: Any) -> Any:
    """RegularGridInterpolator's partials in xi: shape Ω.shape + (ndim,), or None
    where not implemented ('pchip', SciPy without `nu=`)."""
    method = options.get("method", "linear")
    ndim = len(x)
    if method == "nearest":
        Ω = evaluate(_interpolate.RegularGridInterpolator, x, _plain(y), _plain(xs), **options)
        return np.zeros(np.shape(Ω) + (ndim,))
    spline = _RGI_SPLINE.get(method)
    if spline is None or not _HAS_NU:
        return None
    orders = list(nu) if nu else [0] * ndim
    parts = []
    for d in range(ndim):
        o = list(orders)
        o[d] += 1
        parts.append(_evaluate(_interpolate.RegularGridInterpolator, x, y, xs, tuple(o),
                               **{**options, "method": spline}))
    return np.stack(parts, axis=-1)


def _rgi_lead(xs: Any, ndim: int) -> Any:
    """The leading shape of Ω for points xi (one point when xi is 1-d)."""
    return (1,) if np.ndim(xs) == 1 else np.shape(xs)[:-1]


def _rgi_frule(slopes: Any, ẋs: Any, Ω: Any, ndim: int) -> Any:
    lead = _rgi_lead(ẋs, ndim)
    t = np.reshape(ẋs, tuple(lead) + (1,) * (np.ndim(Ω) - len(lead)) + (ndim,))
    return np.sum(slopes * t, axis=-1)


def _rgi_pullback(slopes: Any, Ω̄: Any, xs_shape: Any, ndim: int) -> Any:
    lead = (1,) if len(xs_shape) == 1 else tuple(xs_shape[:-1])
    g = slopes * np.reshape(Ω̄, np.shape(Ω̄) + (1,))
    g = np.reshape(g, tuple(lead) + (-1, ndim))
    return np.reshape(np.sum(g, axis=-2), xs_shape)


def _along(t: Any, Ω: Any) -> Any:
    """The tangent of xs broadcast against the output (trailing axes of y)."""
    return np.reshape(t, np.shape(t) + (1,) * (np.ndim(Ω) - np.ndim(t)))


def _linear(make: Any, x: Any, y: Any, xs: Any, nu: int, options: Any) -> Any:
    zero = _evaluate(make, x, np.zeros(np.shape(y)), xs, nu, **options)
    return lambda ẏ: _evaluate(make, x, ẏ, xs, nu, **options) - zero


def _plain(v: Any) -> Any:
    return untraced(v)


def evaluate_frule(tangents: Any, make: Any, x: Any, y: Any, xs: Any, nu: int = 0, **options: Any) -> tuple[Any, Any]:
    Ω = _evaluate(make, x, y, xs, nu, **options)
    ẋ, ẏ, ẋs = (unthunk(t) for t in tuple(tangents)[2:5])
    name = _name(make)
    if not isinstance(ẋ, AbstractZero):
        return Ω, not_implemented(f"{name}: the derivative in the knots x")
    Δ: Any = ZERO
    if not isinstance(ẏ, AbstractZero):
        Δ = _linear(make, x, y, xs, nu, options)(ẏ)
    if not isinstance(ẋs, AbstractZero):
        if make is _interpolate.RegularGridInterpolator:
            slopes = _rgi_slopes(x, y, xs, nu, options)
            if slopes is None:
                return Ω, not_implemented(f"{name}: the derivative in the points xi (method "
                                          f"{options.get('method', 'linear')!r})")
            d = _rgi_frule(slopes, ẋs, Ω, len(x))
        else:
            d = _slope(make, x, y, xs, nu, options) * _along(ẋs, Ω)
        Δ = d if isinstance(Δ, AbstractZero) else Δ + d
    if not isinstance(Δ, AbstractZero):
        Δ = like(Ω, np.reshape(Δ, np.shape(Ω)))
    return Ω, Δ


def evaluate_rrule(make: Any, x: Any, y: Any, xs: Any, nu: int = 0, **options: Any) -> tuple[Any, Any]:
    Ω = _evaluate(make, x, y, xs, nu, **options)
    name = _name(make)
    py, pxs = project_to(y), project_to(xs)
    y_shape = np.shape(y)
    y_size = int(np.prod(y_shape))
    xs_shape = np.shape(xs)
    rest = (NO,) if nu else ()

    def evaluate_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = unthunk(Ω̄)
        x̄ = not_implemented(f"{name}: the derivative in the knots x")
        if isinstance(Ω̄, AbstractZero):
            return (NO, NO, x̄, ZERO, ZERO) + rest
        L = _linear(make, x, y, xs, nu, options)
        cols = []
        for j in range(y_size):
            e = np.zeros(y_size)
            e[j] = 1.0
            cols.append(np.sum(L(e.reshape(y_shape)) * Ω̄))
        ȳ = np.reshape(np.stack(cols), y_shape)
        x̄s: Any
        if make is _interpolate.RegularGridInterpolator:
            slopes = _rgi_slopes(x, y, xs, nu, options)
            x̄s = (not_implemented(f"{name}: the derivative in the points xi (method "
                                  f"{options.get('method', 'linear')!r})") if slopes is None
                   else pxs(_rgi_pullback(slopes, Ω̄, xs_shape, len(x))))
        else:
            s = _slope(make, x, y, xs, nu, options) * Ω̄
            x̄s = np.reshape(np.sum(np.reshape(s, xs_shape + (-1,)), axis=-1), xs_shape)
            if np.ndim(xs) == 0 and isinstance(_plain(xs), float):
                x̄s = x̄s[()] if isinstance(x̄s, np.ndarray) else x̄s
        return (NO, NO, x̄, py(ȳ), x̄s if isinstance(x̄s, AbstractZero) or make is _interpolate.RegularGridInterpolator
                else pxs(x̄s)) + rest
    return Ω, evaluate_pullback


register_frule(evaluate)(evaluate_frule)
register_rrule(evaluate)(evaluate_rrule)


# interpn(points, values, xi, method='linear', bounds_error=True, fill_value=nan): a
# RegularGridInterpolator built and called at once (its 'splinef2d' is FITPACK's, no rule)
_INTERPN = ("method", "bounds_error", "fill_value")


def _interpn_options(rest: Any, kw: Any) -> dict[str, Any]:
    opts = named_options("scipy.interpolate.interpn", _INTERPN, rest, kw, ())
    if opts.get("method") == "splinef2d":
        raise TypeError("scipy.interpolate.interpn: the rule does not cover method='splinef2d'")
    return opts


def interpn_frule(tangents: Any, points: Any, values: Any, xi: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    opts = _interpn_options(rest, kw)
    return evaluate_frule((NO, NO, *tuple(tangents)[1:4]), _interpolate.RegularGridInterpolator,
                          points, values, xi, **opts)


def interpn_rrule(points: Any, values: Any, xi: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    opts = _interpn_options(rest, kw)
    Ω, pullback = evaluate_rrule(_interpolate.RegularGridInterpolator, points, values, xi, **opts)

    def interpn_pullback(Ω̄: Any) -> tuple[Any, ...]:
        return (NO, *pullback(Ω̄)[2:5]) + (NO,) * len(rest)
    return Ω, interpn_pullback


register_frule(_interpolate.interpn)(interpn_frule)
register_rrule(_interpolate.interpn)(interpn_rrule)


# splev(x, tck, der=0, ext=0) and splint(a, b, tck): FITPACK's B-spline (t, c, k), linear in
# its coefficients c; in x the spline's next derivative (zero where ext=1 or 3 holds it
# constant outside the base interval [t[k], t[-k-1]]); splint in a and b the spline's value
# (zero outside, as splint integrates); not in the knots t.  Through their own rules on traced
# values (Wrapped): every order.  A parametric tck (c a list of arrays) has no rule.
_splev = Wrapped(_interpolate.splev)
_splint = Wrapped(_interpolate.splint)


def _spline_parts(fname: str, tck: Any) -> Any:
    if isinstance(tck, _interpolate.BSpline) or not isinstance(tck, (tuple, list)) or len(tck) != 3:
        return None
    t, c, k = tck
    if isinstance(c, (list, tuple)) or np.ndim(c) != 1:
        return None
    return t, c, int(k)


def _outside(x: Any, t: Any, k: int) -> Any:
    xv = np.asarray(untraced(x))
    return (xv < t[k]) | (xv > t[len(t) - k - 1])


def _tck_tangent(fname: str, ttck: Any) -> tuple[Any, Any]:
    """(the coefficients' tangent, NotImplementedTangent if the knots move, else None)."""
    ttck = unthunk(ttck)
    if isinstance(ttck, AbstractZero):
        return ZERO, None
    ṫ, ċ = unthunk(ttck[0]), unthunk(ttck[1])
    knots = None if isinstance(ṫ, AbstractZero) else not_implemented(f"{fname}: the derivative in the knots t")
    return ċ, knots


def _splev_slope(x: Any, t: Any, c: Any, k: int, der: int, ext: int) -> Any:
    slope = _splev(x, (t, c, k), der + 1, ext)
    if ext == 3:
        slope = np.where(_outside(x, t, k), 0.0, slope)
    return slope


def _splev_options(rest: Any, kw: Any) -> tuple[int, int]:
    opts = named_options("scipy.interpolate.splev", ("der", "ext"), rest, kw, ())
    return int(opts.get("der", 0)), int(opts.get("ext", 0))


def splev_frule(tangents: Any, x: Any, tck: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    der, ext = _splev_options(rest, kw)
    parts = _spline_parts("scipy.interpolate.splev", tck)
    if parts is None:
        return None
    t, c, k = parts
    Ω = _splev(x, (t, c, k), der, ext)
    ẋ = unthunk(tangents[1])
    ċ, knots = _tck_tangent("scipy.interpolate.splev", tangents[2])
    if knots is not None:
        return Ω, knots
    Δ: Any = ZERO
    if not isinstance(ẋ, AbstractZero):
        Δ = _splev_slope(x, t, c, k, der, ext) * ẋ
    if not isinstance(ċ, AbstractZero):
        d = _splev(x, (t, ċ, k), der, ext)
        Δ = d if isinstance(Δ, AbstractZero) else Δ + d
    return Ω, Δ


def splev_rrule(x: Any, tck: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    der, ext = _splev_options(rest, kw)
    extra = (NO,) * len(rest)
    parts = _spline_parts("scipy.interpolate.splev", tck)
    if parts is None:
        return None
    t, c, k = parts
    Ω = _splev(x, (t, c, k), der, ext)
    px = project_to(x)
    n = len(c)

    def splev_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = unthunk(Ω̄)
        if isinstance(Ω̄, AbstractZero):
            return (NO, ZERO, ZERO) + extra
        x̄ = px(np.reshape(_splev_slope(x, t, c, k, der, ext) * Ω̄, np.shape(x))) if px.kind else NO
        e = np.zeros(n)
        c̄ = []
        for j in range(n):
            e[j] = 1.0
            c̄.append(np.sum(_interpolate.splev(untraced(x), (t, e, k), der, ext) * Ω̄))
            e[j] = 0.0
        tck̄ = Tangent[tuple](not_implemented("scipy.interpolate.splev: the derivative in the knots t"),  # type: ignore[type-arg]
                             np.stack(c̄), NO)
        return (NO, x̄, tck̄) + extra
    return Ω, splev_pullback


def _splint_checked(tck: Any, rest: Any, kw: Any) -> Any:
    named_options("scipy.interpolate.splint", ("full_output",), rest, kw, ("full_output",))
    return _spline_parts("scipy.interpolate.splint", tck)


def splint_frule(tangents: Any, a: Any, b: Any, tck: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    parts = _splint_checked(tck, rest, kw)
    if parts is None:
        return None
    t, c, k = parts
    Ω = _splint(a, b, (t, c, k))
    ȧ, ḃ = unthunk(tangents[1]), unthunk(tangents[2])
    ċ, knots = _tck_tangent("scipy.interpolate.splint", tangents[3])
    if knots is not None:
        return Ω, knots
    Δ: Any = ZERO
    for v, dv, sign in ((b, ḃ, 1.0), (a, ȧ, -1.0)):
        if not isinstance(dv, AbstractZero):
            d = sign * _splev(v, (t, c, k), 0, 1) * dv
            Δ = d if isinstance(Δ, AbstractZero) else Δ + d
    if not isinstance(ċ, AbstractZero):
        d = _splint(a, b, (t, ċ, k))
        Δ = d if isinstance(Δ, AbstractZero) else Δ + d
    return Ω, Δ


def splint_rrule(a: Any, b: Any, tck: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    parts = _splint_checked(tck, rest, kw)
    if parts is None:
        return None
    t, c, k = parts
    Ω = _splint(a, b, (t, c, k))
    pa, pb = project_to(a), project_to(b)

    def splint_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = unthunk(Ω̄)
        if isinstance(Ω̄, AbstractZero):
            return (NO, ZERO, ZERO, ZERO) + (NO,) * len(rest)
        ā = pa(-_splev(a, (t, c, k), 0, 1) * Ω̄) if pa.kind else NO
        b̄ = pb(_splev(b, (t, c, k), 0, 1) * Ω̄) if pb.kind else NO
        e = np.zeros(len(c))
        c̄ = []
        for j in range(len(c)):
            e[j] = 1.0
            c̄.append(_interpolate.splint(untraced(a), untraced(b), (t, e, k)) * Ω̄)
            e[j] = 0.0
        tck̄ = Tangent[tuple](not_implemented("scipy.interpolate.splint: the derivative in the knots t"),  # type: ignore[type-arg]
                             np.stack(c̄), NO)
        return (NO, ā, b̄, tck̄) + (NO,) * len(rest)
    return Ω, splint_pullback


register_frule(_interpolate.splev)(splev_frule)
register_rrule(_interpolate.splev)(splev_rrule)
register_frule(_interpolate.splint)(splint_frule)
register_rrule(_interpolate.splint)(splint_rrule)

# the rules on SciPy's own interpolant objects (building one, calling one)
from chainrules.rulesets.scipy import interpolate_objects  # noqa: E402,F401
