"""NumPy's reductions: np.sum, np.mean, np.prod, np.var, np.std,
np.max/np.amax, np.min/np.amin and the `np.ndarray` methods of those names
are served by the ONE rule body of each (array_api/reductions.py, written
with `xp`), registered here on NumPy's functions, with NumPy's options
(`axis` tuples, `keepdims`, `dtype`, `initial=`, `ddof`; `out=`, `where=`,
`mean=` a TypeError naming them), array-likes and ndarray subclasses read as
plain arrays, tracked values (a rule differentiated) as they are.  Inside
that registration, NumPy fast paths for float ndarrays compute what the
body computes (`_reductions_fast.py`, checked bit for bit by
tests/rulesets/numpy/test_reductions.py).

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
    non_differentiable,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api import reductions as array_api
from chainrules.rulesets.array_api._common import _NOVALUE, normalize_axes as axes_of
from chainrules.rulesets.numpy._reductions_fast import (
    _BODIES,
    _arg_index,
    _body_fast,
    _chooser_fast,
    _chooser_fast_frule,
    _linear_fast,
    _linear_fast_frule,
    _prod_fast,
    _scatter_thunk,
)
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
    traced_call,
)



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
        rrule_fast = _body_fast(np_rrule, p, name, _BODIES[factory])
        if factory is array_api.prod_rules:
            rrule_fast = _prod_fast(named_rule(rrule_fast, name), name)
        return named_rule(np_frule, name), named_rule(rrule_fast, name)
    if factory in (array_api.max_rules, array_api.min_rules):
        # the ndarray methods (np.argmax's Python layer costs more than a small array's argmax)
        argfn = np.ndarray.argmax if factory is array_api.max_rules else np.ndarray.argmin
        return (named_rule(_chooser_fast_frule(np_frule, p, name, argfn), name),
                named_rule(_chooser_fast(np_rrule, p, name, argfn), name))
    return named_rule(np_frule, name), named_rule(np_rrule, name)


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

def _nanargmax(v: Any, axis: Any) -> Any:
    return np.argmax(np.where(np.isnan(v), -np.inf, v), axis=axis)


def _nanargmin(v: Any, axis: Any) -> Any:
    return np.argmin(np.where(np.isnan(v), np.inf, v), axis=axis)


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
