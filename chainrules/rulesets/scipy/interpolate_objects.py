"""Rules on scipy.interpolate's own objects: building an interpolant from data
(`CubicSpline(x, y)`, `make_interp_spline(x, y, k)`, `interp1d(x, y, kind)`,
`RegularGridInterpolator(points, values)`) and calling it (`spline(xs)`: an
instance rule on `PPoly`, `BSpline`, `interp1d` and `RegularGridInterpolator`,
so `CubicSpline`'s and `PchipInterpolator`'s calls are `PPoly`'s).

`make_lsq_spline(x, y, t, k)` and `make_smoothing_spline(x, y, w, lam)` (lam given:
chosen by cross-validation it depends on y) build BSplines the same way.

An interpolant is linear in the array it holds (ChainRules' structural
tangent of the object names that field): `c` of a `PPoly` or `BSpline`,
`y` of an `interp1d` (in its sorted order), `values` of a
`RegularGridInterpolator`.  Building it is affine in the data y (linear, plus
the constants of inhomogeneous boundary conditions or fill values), so

- the tangent of a build is `Tangent[type](field=build(x, ẏ) − build(x, 0))`,
  and its pullback applies the transpose by unit vectors (one build per
  element of y: for modest data, as `rulesets/scipy/interpolate.py`);
- the tangent of a call in the object is the same object holding the
  tangent's field, called (minus the object holding zeros, for the fills);
  its pullback is explicit for `PPoly` (the powers (xs − xᵢ)^(k−m) added into
  the coefficients of each point's interval) and `BSpline` (the transposed
  design matrix), by unit vectors otherwise; in the points xs, the
  interpolant's own derivative (`spline(xs, nu + 1)`; see interpolate.py for
  interp1d's kinds and RegularGridInterpolator's methods).

The knots x are not differentiated (not_implemented naming them).  SciPy's
objects hold arrays of floats, so a value traced by an AD cannot live inside
them: these rules are first order; the drop-in classes of an AD (which call
`interpolate.evaluate`, whose rules differentiate again) give every order.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.interpolate as si

from chainrules._core import AbstractZero, Tangent, not_implemented, register_frule, register_rrule, unthunk
from chainrules.rulesets._arrays import NO, ZERO, project_to
from chainrules.rulesets.scipy.interpolate import _HAS_NU, _ORDER, _RGI_SPLINE, _CONSTANT

__all__ = ["field_of", "with_data"]


# ----- each object's data field, and the object rebuilt around other data ------------------

def field_of(obj: Any) -> str:
    if isinstance(obj, (si.PPoly, si.BSpline)):
        return "c"
    if isinstance(obj, si.RegularGridInterpolator):
        return "values"
    return "y"                                                   # interp1d


def _data(obj: Any) -> Any:
    return getattr(obj, field_of(obj))


def _flipped(obj: Any) -> tuple[int, ...]:
    """The grid dimensions a RegularGridInterpolator stores reversed (descending points)."""
    return tuple(getattr(obj, "_descending_dimensions", ()) or ())


def with_data(obj: Any, data: Any) -> Any:
    """obj holding `data` in its data field (every other setting kept)."""
    if isinstance(obj, si.PPoly):
        return type(obj).construct_fast(data, obj.x, obj.extrapolate, obj.axis)
    if isinstance(obj, si.BSpline):
        return si.BSpline.construct_fast(obj.t, data, obj.k, obj.extrapolate, obj.axis)
    if isinstance(obj, si.RegularGridInterpolator):
        flips = _flipped(obj)
        grid = tuple(g[::-1] if i in flips else g for i, g in enumerate(obj.grid))
        return si.RegularGridInterpolator(grid, np.flip(data, flips) if flips else data, method=obj.method,
                                          bounds_error=obj.bounds_error, fill_value=obj.fill_value)
    return si.interp1d(obj.x, data, kind=_kind(obj), axis=obj.axis, copy=False, bounds_error=obj.bounds_error,
                       fill_value=obj._fill_value_orig, assume_sorted=True)


def _kind(obj: Any) -> str:
    """An interp1d's kind as given ('cubic' is stored as 'spline' with its order)."""
    if obj._kind == "spline":
        return ("zero", "slinear", "quadratic", "cubic")[obj._spline.k]
    return str(obj._kind)


def _affine(obj: Any) -> bool:
    """Whether a call adds constants (fill values) that a tangent must not carry."""
    return isinstance(obj, (si.RegularGridInterpolator, si.interp1d))


def _call(obj: Any, xs: Any, nu: Any) -> Any:
    if nu is None or (not isinstance(obj, si.RegularGridInterpolator) and nu == 0):
        return obj(xs)
    if isinstance(obj, si.RegularGridInterpolator):
        return obj(xs, nu=tuple(nu))
    return obj(xs, nu)


def _name(obj: Any) -> str:
    return f"scipy.interpolate.{type(obj).__name__}.__call__"


# ----- calling an interpolant ---------------------------------------------------------------

def _slope(obj: Any, xs: Any, nu: Any) -> Any:
    """∂Ω/∂xs: element-wise for 1-d interpolants (shape of Ω); for a
    RegularGridInterpolator, Ω.shape + (ndim,); None where not implemented."""
    if isinstance(obj, (si.PPoly, si.BSpline)):
        return obj(xs, (nu or 0) + 1)
    if isinstance(obj, si.interp1d):
        kind = _kind(obj)
        if kind in _CONSTANT:
            return np.zeros(np.shape(obj(xs)))
        y = np.moveaxis(obj.y, obj.axis, 0)
        slope = si.make_interp_spline(obj.x, y, k=_ORDER[kind])(xs, 1)
        if not obj._extrapolate:             # a fill value outside the data: constant there
            out = (np.asarray(xs) < obj.x[0]) | (np.asarray(xs) > obj.x[-1])
            slope = np.where(np.reshape(out, np.shape(out) + (1,) * (np.ndim(slope) - np.ndim(out))), 0.0, slope)
        k = np.ndim(xs)
        return np.moveaxis(slope, list(range(k)), list(range(_before(obj), _before(obj) + k)))
    spline = _RGI_SPLINE.get(obj.method)
    ndim = len(obj.grid)
    if obj.method == "nearest":
        return np.zeros(np.shape(obj(xs)) + (ndim,))
    if spline is None or not _HAS_NU:
        return None
    s = si.RegularGridInterpolator(obj.grid, obj.values, method=spline, bounds_error=obj.bounds_error,
                                   fill_value=obj.fill_value)
    orders = list(nu) if nu else [0] * ndim
    return np.stack([s(xs, nu=tuple(o + (i == d) for i, o in enumerate(orders))) for d in range(ndim)], axis=-1)


def _before(obj: Any) -> int:
    """How many axes of Ω come before the points' (an interp1d's y axes before its axis)."""
    if isinstance(obj, si.interp1d):
        return int(obj.axis) % np.ndim(obj.y)
    return 0


def _in_points(obj: Any, slope: Any, ẋs: Any, Ω: Any) -> Any:
    if isinstance(obj, si.RegularGridInterpolator):
        lead = (1,) if np.ndim(ẋs) == 1 else np.shape(ẋs)[:-1]
        t = np.reshape(ẋs, tuple(lead) + (1,) * (np.ndim(Ω) - len(lead)) + (len(obj.grid),))
        return np.sum(slope * t, axis=-1)
    b = _before(obj)
    return slope * np.reshape(ẋs, (1,) * b + np.shape(ẋs) + (1,) * (np.ndim(Ω) - np.ndim(ẋs) - b))


def _points_cotangent(obj: Any, slope: Any, Ω̄: Any, xs_shape: Any) -> Any:
    if isinstance(obj, si.RegularGridInterpolator):
        ndim = len(obj.grid)
        lead = (1,) if len(xs_shape) == 1 else tuple(xs_shape[:-1])
        g = np.reshape(slope * np.reshape(Ω̄, np.shape(Ω̄) + (1,)), tuple(lead) + (-1, ndim))
        return np.reshape(np.sum(g, axis=-2), xs_shape)
    b, k = _before(obj), len(xs_shape)
    s = np.moveaxis(slope * Ω̄, list(range(b, b + k)), list(range(k)))
    return np.reshape(np.sum(np.reshape(s, tuple(xs_shape) + (-1,)), axis=-1), xs_shape)


def _data_cotangent(obj: Any, xs: Any, nu: Any, Ω̄: Any) -> Any:
    """The adjoint of data ↦ call(with_data(obj, data), xs) at Ω̄."""
    data = np.asarray(_data(obj))
    if isinstance(obj, si.PPoly) and not nu and obj.axis == 0:
        x = obj.x
        ascending = x[-1] >= x[0]
        xp = np.ravel(xs)
        i = (np.searchsorted(x, xp, side="right") if ascending else len(x) - np.searchsorted(x[::-1], xp, side="left")) - 1
        i = np.clip(i, 0, len(x) - 2)
        k = data.shape[0] - 1
        powers = (xp - x[i])[None, :] ** np.arange(k, -1, -1)[:, None]          # (k + 1, points)
        Ω̄2 = np.reshape(Ω̄, (xp.size, -1))
        c̄ = np.zeros((k + 1, data.shape[1], Ω̄2.shape[1]), dtype=np.result_type(data, Ω̄2))
        for m in range(k + 1):
            np.add.at(c̄[m], i, powers[m][:, None] * Ω̄2)
        return np.reshape(c̄, data.shape)
    if isinstance(obj, si.BSpline) and not nu and obj.axis == 0 and np.ndim(xs) <= 1:
        B = si.BSpline.design_matrix(np.atleast_1d(xs), obj.t, obj.k, extrapolate=bool(obj.extrapolate))
        Ω̄2 = np.reshape(Ω̄, (np.size(xs), -1))
        return np.reshape(B.T @ Ω̄2, data.shape)
    zero = _call(with_data(obj, np.zeros_like(data, dtype=float)), xs, nu) if _affine(obj) else 0.0
    flat = np.zeros(data.size)
    out = np.empty(data.size)
    for j in range(data.size):
        flat[j] = 1.0
        out[j] = np.sum((_call(with_data(obj, flat.reshape(data.shape)), xs, nu) - zero) * Ω̄)
        flat[j] = 0.0
    return out.reshape(data.shape)


def _split_call(args: Any, kw: Any) -> tuple[Any, Any]:
    xs = args[0] if args else kw["x" if "x" in kw else "xi"]
    nu = args[1] if len(args) > 1 else kw.get("nu")
    return xs, nu


def _check_call(obj: Any, args: Any, kw: Any) -> None:
    extra = set(kw) - {"x", "xi", "nu"}
    if extra or len(args) > 2:
        raise TypeError(f"{_name(obj)}: the rule takes the points and nu only, not "
                        f"{sorted(extra) or 'a third argument'}")


def call_frule(tangents: Any, obj: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    _check_call(obj, args, kw)
    xs, nu = _split_call(args, kw)
    Ω = _call(obj, xs, nu)
    Δobj = unthunk(tangents[0])
    ẋs = unthunk(tangents[1]) if len(tangents) > 1 else ZERO
    Δ: Any = ZERO
    field = field_of(obj)
    ḋ = unthunk(getattr(Δobj, field, ZERO)) if isinstance(Δobj, Tangent) else ZERO
    if not isinstance(ḋ, AbstractZero):
        Δ = _call(with_data(obj, ḋ), xs, nu)
        if _affine(obj):
            Δ = Δ - _call(with_data(obj, np.zeros(np.shape(ḋ))), xs, nu)
    if not isinstance(ẋs, AbstractZero):
        slope = _slope(obj, xs, nu)
        if slope is None:
            return Ω, not_implemented(f"{_name(obj)}: the derivative in the points")
        d = _in_points(obj, slope, ẋs, Ω)
        Δ = d if isinstance(Δ, AbstractZero) else Δ + d
    return Ω, Δ if isinstance(Δ, AbstractZero) else np.reshape(Δ, np.shape(Ω))


def call_rrule(obj: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    _check_call(obj, args, kw)
    xs, nu = _split_call(args, kw)
    Ω = _call(obj, xs, nu)
    pxs = project_to(xs)
    xs_shape = np.shape(xs)
    rest = (NO,) * (len(args) - 1)

    def call_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = unthunk(Ω̄)
        if isinstance(Ω̄, AbstractZero):
            return (ZERO, ZERO) + rest
        Ω̄ = np.broadcast_to(Ω̄, np.shape(Ω))
        obj̄ = Tangent[type(obj)](**{field_of(obj): _data_cotangent(obj, xs, nu, Ω̄)})  # type: ignore[misc, operator]
        slope = _slope(obj, xs, nu)
        x̄s = (not_implemented(f"{_name(obj)}: the derivative in the points") if slope is None
              else pxs(_points_cotangent(obj, slope, Ω̄, xs_shape)))
        return (obj̄, x̄s) + rest
    return Ω, call_pullback


for _cls in (si.PPoly, si.BSpline, si.interp1d, si.RegularGridInterpolator):
    register_frule(_cls, instances=True)(call_frule)
    register_rrule(_cls, instances=True)(call_rrule)


# ----- building an interpolant from data ----------------------------------------------------

_BUILDERS = (si.CubicSpline, si.make_interp_spline, si.make_lsq_spline, si.make_smoothing_spline,
             si.interp1d, si.RegularGridInterpolator)


def _check_linear(make: Any, args: Any, kw: Any) -> None:
    """Refuse the settings under which a builder is not linear in y."""
    if make is si.make_smoothing_spline:
        lam = args[1] if len(args) > 1 else kw.get("lam")
        if lam is None:
            raise TypeError("scipy.interpolate.make_smoothing_spline: the rule needs lam given "
                            "(lam=None chooses it from y by generalized cross-validation)")


def _build_name(make: Any) -> str:
    return f"scipy.interpolate.{make.__name__}"


def _sorted(make: Any, x: Any, kw: Any) -> Any:
    """interp1d's order of the data (it sorts x unless assume_sorted), or None."""
    if make is not si.interp1d or kw.get("assume_sorted", False):
        return None
    ind = np.argsort(np.asarray(x), kind="mergesort")
    return None if np.all(ind == np.arange(ind.size)) else ind


def _axis(make: Any, y: Any, kw: Any) -> int:
    default = -1 if make is si.interp1d else 0
    return int(kw.get("axis", default)) % max(np.ndim(y), 1)


def _field_tangent(make: Any, x: Any, ẏ: Any, args: Any, kw: Any) -> Any:
    """The data field's tangent of make(x, y + ẏ, …) − make(x, y, …)."""
    if make is si.interp1d:
        ind = _sorted(make, x, kw)
        return ẏ if ind is None else np.take(ẏ, ind, axis=_axis(make, ẏ, kw))
    if make is si.RegularGridInterpolator:
        flips = tuple(i for i, g in enumerate(x) if len(g) > 1 and np.asarray(g)[0] > np.asarray(g)[-1])
        return np.flip(ẏ, flips) if flips else ẏ
    zero = make(x, np.zeros(np.shape(ẏ)), *args, **kw)
    return make(x, ẏ, *args, **kw).c - zero.c


def _field_cotangent(make: Any, x: Any, y_shape: Any, f̄: Any, args: Any, kw: Any) -> Any:
    """The adjoint of ẏ ↦ _field_tangent(ẏ) at the field's cotangent f̄."""
    if make is si.interp1d:
        ind = _sorted(make, x, kw)
        if ind is None:
            return f̄
        ȳ = np.empty_like(f̄)
        idx: list[Any] = [slice(None)] * np.ndim(f̄)
        idx[_axis(make, f̄, kw)] = ind
        ȳ[tuple(idx)] = f̄
        return ȳ
    if make is si.RegularGridInterpolator:
        return _field_tangent(make, x, f̄, args, kw)                # a flip is its own adjoint
    size = int(np.prod(y_shape))
    flat = np.zeros(size)
    out = np.empty(size)
    for j in range(size):
        flat[j] = 1.0
        out[j] = np.sum(_field_tangent(make, x, flat.reshape(y_shape), args, kw) * f̄)
        flat[j] = 0.0
    return out.reshape(y_shape)


def _build_frule(make: Any) -> Any:
    def build_frule(tangents: Any, x: Any, y: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        _check_linear(make, args, kw)
        Ω = make(x, y, *args, **kw)
        ẋ, ẏ = unthunk(tangents[1]), unthunk(tangents[2])
        if not isinstance(ẋ, AbstractZero):
            return Ω, not_implemented(f"{_build_name(make)}: the derivative in the knots x")
        if isinstance(ẏ, AbstractZero):
            return Ω, ZERO
        return Ω, Tangent[type(Ω)](**{field_of(Ω): _field_tangent(make, x, ẏ, args, kw)})  # type: ignore[misc, operator]
    build_frule.__name__ = f"{make.__name__}_frule"
    return build_frule


def _build_rrule(make: Any) -> Any:
    def build_rrule(x: Any, y: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        _check_linear(make, args, kw)
        Ω = make(x, y, *args, **kw)
        py = project_to(y)
        y_shape = np.shape(y)
        field = field_of(Ω)
        rest = (NO,) * len(args)

        def build_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = unthunk(Ω̄)
            x̄ = not_implemented(f"{_build_name(make)}: the derivative in the knots x")
            f̄ = unthunk(getattr(Ω̄, field, ZERO)) if isinstance(Ω̄, Tangent) else ZERO
            if isinstance(f̄, AbstractZero):
                return (NO, x̄, ZERO) + rest
            return (NO, x̄, py(_field_cotangent(make, x, y_shape, np.asarray(f̄), args, kw))) + rest
        return Ω, build_pullback
    build_rrule.__name__ = f"{make.__name__}_rrule"
    return build_rrule


for _make in _BUILDERS:
    register_frule(_make)(_build_frule(_make))
    register_rrule(_make)(_build_rrule(_make))
