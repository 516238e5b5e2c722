"""Rules for `scipy.interpolate`: an interpolant built from data and evaluated,
`evaluate(make, x, y, xs, nu=0, **options) = make(x, y, **options)(xs[, nu])`,
differentiable in the data values y and in the evaluation points xs, for
`make` one of `CubicSpline`, `make_interp_spline`, `interp1d` and
`RegularGridInterpolator` (x: its tuple of grid points, xs: the points xi).

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
  are piecewise constant).  RegularGridInterpolator: not implemented in xi.
- In the knots x: not implemented (NotImplementedTangent naming it).

First order: the rules call SciPy on plain values.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.interpolate as _interpolate

from chainrules._core import AbstractZero, Wrapped, not_implemented, register_frule, register_rrule, unthunk, untraced
from chainrules.rulesets._arrays import NO, ZERO, like, project_to

_MAKERS = (_interpolate.CubicSpline, _interpolate.make_interp_spline, _interpolate.interp1d,
           _interpolate.RegularGridInterpolator)
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
    if nu and make in (_interpolate.interp1d, _interpolate.RegularGridInterpolator):
        raise TypeError(f"{_name(make)}: it takes no derivative order nu")
    if make is _interpolate.interp1d:
        kind = options.get("kind", "linear")
        if not isinstance(kind, str) or kind not in (*_ORDER, *_CONSTANT):
            raise TypeError(f"scipy.interpolate.interp1d: the rule does not cover kind={kind!r}")


def evaluate(make: Any, x: Any, y: Any, xs: Any, nu: int = 0, **options: Any) -> Any:
    """make(x, y, **options)(xs) (with nu: its nu-th derivative)."""
    _check(make, nu, options)
    obj = make(x, y, **options)
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
            return Ω, not_implemented(f"{name}: the derivative in the points xi")
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
        if make is _interpolate.RegularGridInterpolator:
            x̄s: Any = not_implemented(f"{name}: the derivative in the points xi")
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
