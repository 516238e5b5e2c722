"""NumPy's reductions: np.sum, np.mean, np.prod, np.var, np.std,
np.max/np.amax, np.min/np.amin and the `np.ndarray` methods of those names
are served by the ONE rule body of each (array_api/reductions.py, written
with `xp`), registered here on NumPy's functions, with NumPy's options
(`axis` tuples, `keepdims`, `dtype`, `initial=`, `ddof`; `out=`, `where=`,
`mean=` a TypeError naming them), array-likes and ndarray subclasses read as
plain arrays, tracked values (a rule differentiated) as they are.  Inside
that registration, NumPy fast paths for float ndarrays compute what the
body computes (checked bit for bit by tests/rulesets/numpy/test_reductions.py):
sum/mean's cotangent a read-only broadcast view, max/min's an
`InplaceableThunk` that adds into an existing array.

What NumPy alone has stays here, reusing the bodies where it can: nansum,
nanmean, nanprod (prod's body with NaNs as ones), nanmax/nanmin (max/min's
body choosing with a NaN-skipping argmax), ptp.  Averages (average, nanvar,
nanstd) are in `averages.py`, the scans and the ufunc methods
(`np.add.reduce` & co.) in `cumulative.py`.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    InplaceableThunk,
    ProjectTo,
    Thunk,
    is_traced,
    untraced,
    non_differentiable,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api import reductions as array_api
from chainrules.rulesets.array_api._common import Projector, normalize_axes as axes_of
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    dense,
    like as _like,
    methods as _methods,
    named_rule,
    register as _register,
    unreduce,
    seed,
    plain,
    scatter_traced,
    array_or_traced,
    broadcast_view,
    traced_call,
)

_NOVALUE = getattr(np, "_NoValue", None)     # NumPy's "argument not given"


# ----- argument handling -------------------------------------------------------

def _options(fname: str, args: Any, kwargs: Any, names: Any, refuse: Any = ("out", "where")) -> Any:
    """The reduction's options by name (positional ones after the array are
    matched to `names`), refusing those the rule cannot honour."""
    if args:
        opts = dict(zip(names, args))
        opts.update(kwargs)
    else:
        opts = kwargs
    for name in refuse:
        if opts.get(name) is not None:
            raise TypeError(f"{fname}: the rule cannot honour the argument {name}=; "
                            "call the primal without it")
    return opts


def _keepdims(opts: Any) -> Any:
    k = opts.get("keepdims", False)
    return bool(k) if k is not _NOVALUE else False


def _shape_dtype(x: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic)) or is_traced(x):      # traced: a rule differentiated
        return x.shape, x.dtype
    a = np.asarray(x)
    return a.shape, a.dtype


def _count(shape: Any, axes: Any) -> Any:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


_SUM_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN_ARGS = ("axis", "dtype", "out", "keepdims")
_MAX_ARGS = ("axis", "out", "keepdims", "initial", "where")
_VAR_ARGS = ("axis", "dtype", "out", "ddof", "keepdims")


# ----- sum, nansum, mean, nanmean: linear in x ----------------------------------------
# One factory: `forward(Δx, x, axis, dtype, keepdims)` is the pushforward,
# `adjoint(ȳ, x, shape, axes, keepdims, dtype)` the cotangent of x (spread
# over x's shape by `unreduce`).

def _linear_reduction(f: Any, name: str, names: Any, forward: Any, adjoint: Any, primal: Any = None) -> Any:
    primal = primal or f

    def reduction_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if not args and not kwargs and type(x) is np.ndarray and type(tangents[1]) is np.ndarray:
            Ω = primal(x)                   # the common call, f(x) over all axes: no options to read
            return Ω, _like(Ω, forward(tangents[1], x, None, None, False))
        opts = _options(name, args, kwargs, names)
        Ω = primal(x, *args, **kwargs)
        x = plain(x)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        return Ω, _like(Ω, forward(dense(Δx), x, opts.get("axis"), opts.get("dtype"), _keepdims(opts)))

    def reduction_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        opts = _options(name, args, kwargs, names)
        Ω = primal(x, *args, **kwargs)
        x = plain(x)
        project = ProjectTo(x)
        shape, dtype = _shape_dtype(x)
        axes = axes_of(name, opts.get("axis"), len(shape))
        keepdims = _keepdims(opts)
        rest = (NO,) * len(args)

        def reduction_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            return (NO, project(adjoint(unthunk(ȳ), x, shape, axes, keepdims, dtype))) + rest
        return Ω, reduction_pullback

    return named_rule(reduction_frule, name), named_rule(reduction_rrule, name)


def _nansum_forward(Δx: Any, x: Any, axis: Any, dtype: Any, keepdims: Any) -> Any:
    return np.sum(np.where(np.isnan(x), 0, Δx), axis=axis, dtype=dtype, keepdims=keepdims)


def _nansum_adjoint(ȳ: Any, x: Any, shape: Any, axes: Any, keepdims: Any, dtype: Any) -> Any:
    return np.where(np.isnan(x), 0, unreduce(ȳ, shape, axes, keepdims, dtype))


def _nanmean_forward(Δx: Any, x: Any, axis: Any, dtype: Any, keepdims: Any) -> Any:
    return np.nanmean(np.where(np.isnan(x), np.nan, Δx), axis=axis, dtype=dtype, keepdims=keepdims)


def _nanmean_adjoint(ȳ: Any, x: Any, shape: Any, axes: Any, keepdims: Any, dtype: Any) -> Any:
    nan = np.isnan(x)
    count = np.maximum(np.sum(~nan, axis=axes, keepdims=True), 1)
    return np.where(nan, 0, unreduce(ȳ, shape, axes, keepdims, dtype) / count)


def _by_reduce(f: Any, ufunc: Any, positional: bool) -> Any:
    """NumPy's reduction `f` (np.sum, np.prod, np.max, np.min) as a primal:
    for an ndarray, `ufunc.reduce` with the same arguments (what `f` calls,
    without its Python layer, which costs more than reducing a small array);
    axis=None is f's default, not reduce's.  `positional`: f's positional
    options after the array are reduce's (np.sum's and np.prod's are; np.max's
    lack `dtype`, so they go to f)."""
    def primal(x: Any, *args: Any, **kwargs: Any) -> Any:
        if (type(x) is np.ndarray and (positional or not args)
                and not (kwargs and any(v is _NOVALUE for v in kwargs.values()))):
            if not args and "axis" not in kwargs:
                return ufunc.reduce(x, None, **kwargs)
            return ufunc.reduce(x, *args, **kwargs)
        return f(x, *args, **kwargs)
    primal.__name__ = f.__name__
    return primal


_sum = _by_reduce(np.sum, np.add, True)


# ----- the array-API bodies, registered on NumPy's functions and methods -------------------

def _method_primal(m: Any) -> Any:
    """The ndarray method `m` as a primal: on a value tracked by
    an AD (a rule differentiated), the tracked value's method."""
    def primal(x: Any, *args: Any, **kwargs: Any) -> Any:
        if is_traced(x):
            return traced_call(m, x, args, kwargs)
        return m(x, *args, **kwargs)
    return primal


def _numpy_rules(factory: Any, f: Any, name: str, names: Any, primal: Any = None) -> Any:
    """The array-API body's frule and rrule (`factory`, array_api/reductions.py)
    for NumPy's `f`: ndarrays, NumPy scalars and tracked values go to the body
    as they are; an array-like (a list, a Python number) or an ndarray
    subclass (a masked array) is read as a plain array, its cotangent
    projected onto it (a list's is a structural tangent) and Ω is f's own."""
    frule, rrule = factory(primal or f, name, names)

    def np_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Δx = tangents[1]
        if type(Δx) is not np.ndarray:
            Δx = dense(Δx)
            if isinstance(Δx, (int, float, complex)):       # a Python number's tangent
                Δx = np.asarray(Δx)
            tangents = (tangents[0], Δx) + tuple(tangents[2:])
        if type(x) is np.ndarray or isinstance(x, np.generic) or is_traced(x):
            return frule(tangents, x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = f(x, *args, **kwargs)
        _, ΔΩ = frule(tangents, np.asarray(x), *args, **kwargs)
        return Ω, _like(Ω, ΔΩ)

    def np_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if type(x) is np.ndarray or isinstance(x, np.generic) or is_traced(x):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = f(x, *args, **kwargs)
        _, pullback = rrule(np.asarray(x), *args, **kwargs)
        project = ProjectTo(x)

        def np_pullback(ȳ: Any) -> tuple[Any, ...]:
            cts = pullback(ȳ)
            return (cts[0], project(unthunk(cts[1]))) + tuple(cts[2:])
        return Ω, np_pullback

    # the NumPy fast paths come first: a float ndarray with the common options is served
    # without the layers above; every other call falls through to them
    p = primal or f
    if factory in (array_api.sum_rules, array_api.mean_rules):
        mean = factory is array_api.mean_rules
        return (named_rule(_linear_fast_frule(np_frule, p, name, mean), name),
                named_rule(_linear_fast(np_rrule, p, name, mean), name))
    if factory in _BODIES:
        return named_rule(np_frule, name), named_rule(_body_fast(np_rrule, p, name, _BODIES[factory]), name)
    if factory in (array_api.max_rules, array_api.min_rules):
        argfn = np.argmax if factory is array_api.max_rules else np.argmin
        return (named_rule(_chooser_fast_frule(np_frule, p, name, argfn), name),
                named_rule(_chooser_fast(np_rrule, p, name, argfn), name))
    return named_rule(np_frule, name), named_rule(np_rrule, name)


_AXIS_ONLY = frozenset(("axis", "keepdims"))


def _linear_fast(rrule: Any, primal: Any, name: str, mean: bool) -> Any:
    """sum's and mean's rrule with a NumPy fast path inside: for a float
    ndarray x called with `axis=`/`keepdims=` only and a seed of x's dtype,
    the cotangent the body computes (ȳ, over n for mean, reshaped and
    broadcast to x's shape: a read-only view) without the body's generic
    layers (tests/rulesets/numpy/test_reductions.py checks them bit for bit);
    every other call is the body's."""

    def linear_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        p = x
        if type(x) is not np.ndarray and is_traced(x):
            # a real array traced by an enclosing differentiation (the rule differentiated:
            # ad.hvp): the same cotangent for a plain seed, the seed being a constant there
            p = untraced(x)
            if type(p) is not np.ndarray or p.dtype.kind != "f":
                return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        if (type(p) is not np.ndarray or args or p.dtype.kind not in "fc"
                or (kwargs and not _AXIS_ONLY.issuperset(kwargs))):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        keepdims = kwargs.get("keepdims", False)
        if keepdims is _NOVALUE:
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        axis = kwargs.get("axis")
        # np.sum of an ndarray is np.add.reduce (its Python layer costs more than a small sum)
        if mean or p is not x:
            Ω = primal(x, **kwargs)
            Ωshape = untraced(Ω).shape
        else:
            Ω = np.add.reduce(x, axis, keepdims=bool(keepdims))  # type: ignore[call-overload]
            Ωshape = Ω.shape
        shape, dtype = p.shape, p.dtype
        if axis is None:                    # the common call: every axis
            kept = Ωshape if keepdims else (1,) * p.ndim
            n = max(p.size, 1)
        else:
            axes = axes_of(name, axis, p.ndim)
            kept = Ωshape if keepdims or not axes else tuple(1 if i in axes else n for i, n in enumerate(shape))
            n = max(array_api._count(shape, axes), 1)

        def linear_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if type(ȳ) is float or isinstance(ȳ, np.generic):     # a number: the body's seed is a 0-d array
                ȳ = np.asarray(ȳ)
            if type(ȳ) is np.ndarray and ȳ.dtype == dtype and ȳ.shape == Ωshape:
                return NO, broadcast_view((ȳ / n if mean else ȳ).reshape(kept), shape)
            return rrule(x, **kwargs)[1](ȳ)  # type: ignore[no-any-return]
        return Ω, linear_pullback
    return linear_rrule


def _linear_fast_frule(frule: Any, primal: Any, name: str, mean: bool) -> Any:
    """sum's and mean's frule with the NumPy fast path of `_linear_fast`: for
    a float ndarray x with a tangent of its dtype and shape, called with
    `axis=`/`keepdims=` only, the body's pushforward (the reduction of Δx
    over the same axes) without its generic layers."""

    def linear_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Δx = tangents[1]
        if (type(x) is not np.ndarray or type(Δx) is not np.ndarray or args or x.dtype.kind not in "fc"
                or Δx.dtype != x.dtype or Δx.shape != x.shape
                or (kwargs and not _AXIS_ONLY.issuperset(kwargs))):
            return frule(tangents, x, *args, **kwargs)  # type: ignore[no-any-return]
        keepdims = kwargs.get("keepdims", False)
        if keepdims is _NOVALUE:
            return frule(tangents, x, *args, **kwargs)  # type: ignore[no-any-return]
        keepdims = bool(keepdims)
        axis = kwargs.get("axis")
        axes = axes_of(name, axis, x.ndim)
        if mean:
            Ω = primal(x, **kwargs)
            ΔΩ = np.mean(Δx, axis=axes, keepdims=keepdims) if axes else Δx
        else:
            Ω = np.add.reduce(x, axis, keepdims=keepdims)  # type: ignore[call-overload]  # keepdims a bool
            ΔΩ = np.add.reduce(Δx, axes, keepdims=keepdims) if axes else Δx  # type: ignore[call-overload]
        if type(Ω) is not np.ndarray and type(ΔΩ) is np.ndarray:
            ΔΩ = ΔΩ[()]
        return Ω, ΔΩ
    return linear_frule


def _chooser_fast(rrule: Any, primal: Any, name: str, argfn: Any) -> Any:
    """max's and min's rrule with a NumPy fast path inside: for a float
    ndarray x called with `axis=`/`keepdims=` only, the body's cotangent (ȳ
    at the first extreme element of each slice, zeros elsewhere) as an
    InplaceableThunk that adds into an existing array without building the
    zeros (tests/rulesets/numpy/test_reductions.py checks it against the body
    bit for bit); every other call is the body's."""

    def chooser_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if (type(x) is not np.ndarray or args or x.dtype.kind not in "fc" or x.size == 0
                or (kwargs and not _AXIS_ONLY.issuperset(kwargs)) or kwargs.get("keepdims") is _NOVALUE):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = primal(x, **kwargs)
        shape, dtype, Ωshape = x.shape, x.dtype, Ω.shape
        axis = kwargs.get("axis")
        axes = tuple(range(x.ndim)) if axis is None else axes_of(name, axis, x.ndim)
        kept_shape = () if axis is None else tuple(n for i, n in enumerate(shape) if i not in axes)

        def chooser_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if type(ȳ) is float or isinstance(ȳ, np.generic):     # a number: the body's seed is a 0-d array
                ȳ = np.asarray(ȳ)
            if type(ȳ) is np.ndarray and ȳ.dtype.kind in "fc" and ȳ.shape == Ωshape:
                # zeros of x's dtype and shape, ȳ written in: x's cotangent as it is (a plain ndarray)
                return NO, _scatter_thunk(plain, shape, dtype, _arg_index(x, axes, argfn), ȳ, kept_shape)
            return rrule(x, **kwargs)[1](ȳ)  # type: ignore[no-any-return]
        return Ω, chooser_pullback
    return chooser_rrule


def _chooser_fast_frule(frule: Any, primal: Any, name: str, argfn: Any) -> Any:
    """max's and min's frule with the NumPy fast path of `_chooser_fast`: the
    tangent at the first extreme element of each slice, gathered (the body
    sums it with zeros: the same numbers, but for the sign of a zero)."""

    def chooser_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Δx = tangents[1]
        if (type(x) is not np.ndarray or type(Δx) is not np.ndarray or args or x.dtype.kind not in "fc"
                or x.size == 0 or Δx.dtype != x.dtype or Δx.shape != x.shape
                or (kwargs and not _AXIS_ONLY.issuperset(kwargs)) or kwargs.get("keepdims") is _NOVALUE):
            return frule(tangents, x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = primal(x, **kwargs)
        axes = axes_of(name, kwargs.get("axis"), x.ndim)
        ΔΩ = np.reshape(Δx[_arg_index(x, axes, argfn)], np.shape(Ω))
        return Ω, (ΔΩ if type(Ω) is np.ndarray else ΔΩ[()])
    return chooser_frule


_BODY_FAST = frozenset(("axis", "keepdims", "ddof"))


def _body_fast(rrule: Any, primal: Any, name: str, body: Any) -> Any:
    """prod's, var's and std's rrule with a NumPy fast path inside: for a
    real float ndarray x called with `axis=`/`keepdims=` (and var's and
    std's `ddof=`) only and a seed of x's dtype, the body itself (`body`,
    array_api/reductions.py's) on NumPy, its cotangent returned when it is
    already x's (what the body's projection would return), without the
    generic layers (options, namespace, seed and projection objects); every
    other call is the body's."""

    def fast_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if (type(x) is not np.ndarray or args or x.dtype.kind != "f"
                or (kwargs and not _BODY_FAST.issuperset(kwargs))):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        keepdims, ddof = kwargs.get("keepdims", False), kwargs.get("ddof", 0)
        if keepdims is _NOVALUE or ddof is _NOVALUE:
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = primal(x, **kwargs)
        axis = kwargs.get("axis")
        axes = tuple(range(x.ndim)) if axis is None else axes_of(name, axis, x.ndim)
        _, adjoint = body(np, x, Ω, axes, {"keepdims": keepdims, "correction": ddof})
        dtype, shape, Ωshape = x.dtype, x.shape, Ω.shape

        def fast_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if type(ȳ) is float or isinstance(ȳ, np.generic):     # a number: the body's seed is a 0-d array
                ȳ = np.asarray(ȳ)
            if type(ȳ) is np.ndarray and ȳ.dtype == dtype and ȳ.shape == Ωshape:
                dx = adjoint(ȳ)
                if type(dx) is np.ndarray and dx.dtype == dtype and dx.shape == shape:
                    return NO, dx
            return rrule(x, **kwargs)[1](ȳ)  # type: ignore[no-any-return]
        return Ω, fast_pullback
    return fast_rrule


# the rule factories served by `_body_fast`, and their bodies
_BODIES = {array_api.prod_rules: array_api._prod_body, array_api.var_rules: array_api._var_body,
           array_api.std_rules: array_api._std_body}


def _register_body(factory: Any, fs: Any, name: str, names: Any, primal: Any = None) -> Any:
    """Register the body's rules on NumPy's functions `fs` and the ndarray
    method `name`; returns the rules of the first function."""
    first = None
    for f in fs:
        rules = _numpy_rules(factory, f, name, names, primal if f is fs[0] else None)
        first = first or rules
        _register([f], *rules)
        _register([f], *rules, np.ndarray)       # an ndarray: no np.matrix guard on the hot path
    for m in _methods(name):
        _register([m], *_numpy_rules(factory, m, name, names, _method_primal(m)))
    return first


sum_frule, sum_rrule = _register_body(array_api.sum_rules, [np.sum], "sum", _SUM_ARGS, _sum)
_register_body(array_api.mean_rules, [np.mean], "mean", _MEAN_ARGS)
_register([np.nansum], *_linear_reduction(np.nansum, "nansum", _SUM_ARGS, _nansum_forward, _nansum_adjoint))
_register([np.nanmean], *_linear_reduction(np.nanmean, "nanmean", _MEAN_ARGS, _nanmean_forward,
                                           _nanmean_adjoint))


# ----- prod (the array-API body: exact with zeros), nanprod ------------------------------

prod_frule, prod_rrule = _register_body(array_api.prod_rules, [np.prod], "prod", _SUM_ARGS,
                                        _by_reduce(np.prod, np.multiply, True))


def nanprod_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    # NaNs count as ones: the product of the other elements, NaN positions frozen.
    _options("nanprod", args, kwargs, _SUM_ARGS)
    Δx = tangents[1]
    x1 = np.where(np.isnan(x), 1, x)
    if not isinstance(Δx, AbstractZero):
        Δx = np.where(np.isnan(x), 0, dense(Δx))
    res: tuple[Any, Any] = prod_frule((NO, Δx) + tuple(tangents[2:]), x1, *args, **kwargs)
    return res


def nanprod_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    nan = np.isnan(x)
    Ω, prod_pullback = prod_rrule(np.where(nan, 1, x), *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)

    def nanprod_pullback(ȳ: Any) -> tuple[Any, ...]:
        cts: tuple[Any, ...] = prod_pullback(ȳ)
        if isinstance(cts[1], AbstractZero):
            return cts
        return (NO, project(np.where(nan, 0, unthunk(cts[1])))) + cts[2:]
    return Ω, nanprod_pullback


_register([np.nanprod], nanprod_frule, nanprod_rrule)


# ----- max, min, ptp: the cotangent goes to one maximal element ------------------------------

def _value(x: Any) -> Any:
    """x's values as an array: a traced x (the rule differentiated) by its
    plain value, for choices that have no derivative."""
    return np.asarray(untraced(x))


def _arg_index(x: Any, axes: Any, argfn: Any) -> Any:
    """An index tuple picking, in each slice along `axes`, the element that
    `argfn` (np.argmax, ...) chooses: `x[idx]` has the reduced shape.  The
    choice is made on x's values (a tracked x, in a rule differentiated, by
    its primal: the index has no derivative)."""
    x = _value(x)
    nd = x.ndim
    if nd == 0:
        return ()
    if len(axes) == nd:                     # every axis: one element
        return (argfn(x),) if nd == 1 else np.unravel_index(argfn(x), x.shape)
    if len(axes) == 1:                      # one axis: the choice there, a range along the others
        a = axes[0]
        k = argfn(x, axis=a)
        kept = [i for i in range(nd) if i != a]
        idx: list[Any] = [k] * nd
        for j, i in enumerate(kept):
            idx[i] = np.arange(x.shape[i]).reshape((1,) * j + (-1,) + (1,) * (nd - 2 - j))
        return tuple(idx)
    xt, order = array_api._to_last(np, x, axes)
    keep = order[:nd - len(axes)]
    k = argfn(xt, axis=-1)
    red = np.unravel_index(k, tuple(x.shape[a] for a in axes))
    grid = np.indices(xt.shape[:-1], sparse=True)
    idx = [None] * nd
    for a, g in zip(keep, grid):
        idx[a] = g
    for a, r in zip(axes, red):
        idx[a] = r
    return tuple(idx)


def _nanargmax(v: Any, axis: Any) -> Any:
    return np.argmax(np.where(np.isnan(v), -np.inf, v), axis=axis)


def _nanargmin(v: Any, axis: Any) -> Any:
    return np.argmin(np.where(np.isnan(v), np.inf, v), axis=axis)


def _scatter_thunk(project: Any, shape: Any, dtype: Any, idx: Any, ȳ: Any, kept_shape: Any) -> Any:
    """The cotangent that is ȳ at `idx` and 0 elsewhere, as an InplaceableThunk."""
    v = ȳ if type(ȳ) is np.ndarray and ȳ.shape == kept_shape and (ȳ.dtype.kind != "c" or dtype.kind == "c") \
        else np.reshape(np.real(ȳ) if dtype.kind != "c" else ȳ, kept_shape)      # (ȳ: np.real's, np.reshape's)
    if is_traced(v):      # the pullback differentiated: no writes
        return project(scatter_traced(shape, dtype, idx, v))

    def scatter_add(dest: Any) -> Any:
        dest[idx] += v
        return dest

    def scatter() -> Any:
        dest = np.zeros(shape, dtype)
        dest[idx] = v
        return project(dest)
    return InplaceableThunk(scatter_add, Thunk(scatter))


_register_body(array_api.var_rules, [np.var], "var", _VAR_ARGS)
_register_body(array_api.std_rules, [np.std], "std", _VAR_ARGS)
max_frule, max_rrule = _register_body(array_api.max_rules, [np.max, np.amax], "max", _MAX_ARGS,
                                      _by_reduce(np.max, np.maximum, False))
min_frule, min_rrule = _register_body(array_api.min_rules, [np.min, np.amin], "min", _MAX_ARGS,
                                      _by_reduce(np.min, np.minimum, False))


def _nan_chooser(argfn: Any) -> Any:
    """The factory of nanmax's or nanmin's rules: the body of max/min choosing
    with `argfn` (NaNs never chosen unless a slice holds nothing else)."""
    def factory(f: Any, name: str, names: Any) -> Any:
        return array_api.chooser_rules(f, name, lambda xp: argfn, names)
    return factory


_register([np.nanmax], *_numpy_rules(_nan_chooser(_nanargmax), np.nanmax, "nanmax", _MAX_ARGS))
_register([np.nanmin], *_numpy_rules(_nan_chooser(_nanargmin), np.nanmin, "nanmin", _MAX_ARGS))


def ptp_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    opts = _options("ptp", args, kwargs, ("axis", "out", "keepdims"))
    Ω = np.ptp(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    axes = axes_of("ptp", opts.get("axis"), np.ndim(x))
    Δx = array_or_traced(dense(Δx))
    ΔΩ = Δx[_arg_index(x, axes, np.argmax)] - Δx[_arg_index(x, axes, np.argmin)]
    return Ω, _like(Ω, np.reshape(ΔΩ, np.shape(Ω)))


def ptp_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    opts = _options("ptp", args, kwargs, ("axis", "out", "keepdims"))
    Ω = np.ptp(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, dtype = _shape_dtype(x)
    axes = axes_of("ptp", opts.get("axis"), len(shape))
    kept_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    rest = (NO,) * len(args)

    def ptp_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'ptp')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = unthunk(ȳ)
        if is_traced(ȳ):      # the pullback differentiated: no writes
            v = np.reshape(np.real(ȳ) if dtype.kind != "c" else ȳ, kept_shape)
            return (NO, project(scatter_traced(shape, dtype, _arg_index(x, axes, np.argmax), v)
                                - scatter_traced(shape, dtype, _arg_index(x, axes, np.argmin), v))) + rest
        hi = _scatter_thunk(project, shape, dtype, _arg_index(x, axes, np.argmax), ȳ, kept_shape)
        lo = _scatter_thunk(project, shape, dtype, _arg_index(x, axes, np.argmin), -ȳ, kept_shape)

        def ptp_add(dest: Any) -> Any:
            return lo.add_fn(hi.add_fn(dest))

        def ptp_dx() -> Any:
            return project(ptp_add(np.zeros(shape, dtype)))
        return (NO, InplaceableThunk(ptp_add, Thunk(ptp_dx))) + rest
    return Ω, ptp_pullback


_register([np.ptp] + _methods("ptp"), ptp_frule, ptp_rrule)


# ----- non-differentiable: indices, counts, truth values ---------------------------------------

for _f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition,
           np.argwhere, np.nonzero, np.flatnonzero, np.count_nonzero, np.any, np.all,
           np.searchsorted, np.digitize, *_methods("argmax", "argmin", "argsort", "nonzero", "any", "all")):
    non_differentiable(_f)
del _f
