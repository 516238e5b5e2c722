"""The NumPy fast paths of the reductions' rules (registered in
reductions.py): for a float ndarray called with the common options, the
number the array-API body computes (array_api/reductions.py) without its
generic layers (options, namespace, seed and projection objects), checked
bit for bit against the body by tests/rulesets/numpy/test_reductions.py;
every other call falls through to the body.  sum/mean's cotangent is a
read-only broadcast view, max/min's an `InplaceableThunk` that adds into an
existing array, prod's ȳ·Ω/x where x has no zero.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import InplaceableThunk, Thunk, is_traced, untraced
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api import reductions as array_api
from chainrules.rulesets.array_api._common import _NOVALUE, normalize_axes as axes_of
from chainrules.rulesets._arrays import NO, broadcast_view, plain, scatter_traced, seed, value_of as _value

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


_SMALL = 4096      # prod's fast path counts the zeros of x up to this size, else checks Ω


def _prod_fast(rrule: Any, name: str) -> Any:
    """prod's rrule with a NumPy fast path before `rrule` (`_body_fast`'s):
    for a real float ndarray x of one dimension or more whose product has
    no zero and is finite (so x has no zero),
    called with an int `axis=` (or none) and `keepdims=` only, and a seed of
    x's dtype, the body's cotangent ȳ·(Ω/x) (its partials where there is no
    zero, `_prod_partials`) and nothing else; every other call is `rrule`'s."""

    def prod_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if (type(x) is not np.ndarray or args or x.dtype.kind != "f" or not x.ndim
                or (kwargs and not _AXIS_ONLY.issuperset(kwargs))):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        axis, keepdims = kwargs.get("axis"), kwargs.get("keepdims", False)
        if ((axis is not None and type(axis) is not int) or keepdims is _NOVALUE
                or (x.size <= _SMALL and np.count_nonzero(x) != x.size)):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = np.multiply.reduce(x, axis, keepdims=bool(keepdims))  # type: ignore[call-overload]  # keepdims a bool
        # no zero in a large x: a finite product without zeros says so without counting x's
        # zeros (a zero gives 0, or NaN beside an inf; an underflow or overflow goes to the body)
        if x.size > _SMALL and not (Ω.all() and np.isfinite(Ω).all()):
            return rrule(x, *args, **kwargs)  # type: ignore[no-any-return]
        shape, dtype, Ωshape = x.shape, x.dtype, Ω.shape
        kept = Ωshape if keepdims or axis is None else shape[:axis % x.ndim] + (1,) + shape[axis % x.ndim + 1:]

        def prod_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if type(ȳ) is float or isinstance(ȳ, np.generic):     # a number: the body's seed is a 0-d array
                ȳ = np.asarray(ȳ)
            if type(ȳ) is np.ndarray and ȳ.dtype == dtype and ȳ.shape == Ωshape:
                d = (Ω if Ω.ndim == 0 else Ω.reshape(kept)) / x
                return NO, np.multiply(ȳ if ȳ.ndim == 0 else ȳ.reshape(kept), d)
            return rrule(x, **kwargs)[1](ȳ)  # type: ignore[no-any-return]
        return Ω, prod_pullback
    return prod_rrule


# ----- max, min: the index of the element chosen, the cotangent written there -------------------

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
