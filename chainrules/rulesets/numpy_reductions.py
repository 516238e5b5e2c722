"""Rules for NumPy's reductions and scans: sum, prod, mean, var, std, max/min
(and amax/amin, nanmax/nanmin), ptp, nansum, nanmean, nanprod, cumsum,
cumprod, diff and average, with `axis` (None, int, tuple, negative) and
`keepdims`, and the `np.ndarray` methods that are the same functions.

Conventions (ChainRules'):
- The cotangent of a sum-like reduction is ȳ spread back over the input: a
  read-only broadcast view (`unreduce`), so nothing of the input's size is
  written; accumulate it with `add_inplace` or `+`.
- prod and cumprod are exact with one or several zeros (no division by
  zero: exclusive products where a slice holds a zero).
- max/min give the whole cotangent to ONE maximal element per slice, the
  one NumPy's argmax/argmin picks (the first), as an `InplaceableThunk`
  that adds into an existing array without building the zeros.
- std at a constant slice (Ω = 0) has cotangent 0 there.
- `out=`, `where=` and the options that change the derivative in ways not
  implemented (`initial=` of prod/max/min, `mean=` of var/std,
  `returned=True` of average) raise a TypeError naming the argument.
- The `axis`, `dtype`, `ddof`, `n` arguments get `NoTangent()`.

Methods: the rules are registered on `np.ndarray.sum` & co. as well, so an
AD that sees `x.sum(axis=0)` as `np.ndarray.sum(x, axis=0)` finds them: those
methods take the same arguments as the functions after the array.
"""

import numpy as np

from chainrules._core import (
    AbstractZero,
    InplaceableThunk,
    ProjectTo,
    Tangent,
    Thunk,
    Tracked,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    output_parts as _output_parts,
    dense,
    like as _like,
    methods as _methods,
    named_rule,
    normalize_axes,
    register as _register,
    unbroadcast,
    unreduce,
    seed,
    plain,
)

_NOVALUE = getattr(np, "_NoValue", None)     # NumPy's "argument not given"


# ----- argument handling -------------------------------------------------------

def _options(fname, args, kwargs, names, refuse=("out", "where")):
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


def _keepdims(opts):
    k = opts.get("keepdims", False)
    return bool(k) if k is not _NOVALUE else False


def _shape_dtype(x):
    if isinstance(x, (np.ndarray, np.generic, Tracked)):      # tracked: a rule differentiated
        return x.shape, x.dtype
    a = np.asarray(x)
    return a.shape, a.dtype


def _count(shape, axes):
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

def _linear_reduction(f, name, names, forward, adjoint, primal=None):
    primal = primal or f

    def reduction_frule(tangents, x, *args, **kwargs):
        opts = _options(name, args, kwargs, names)
        Ω = primal(x, *args, **kwargs)
        x = plain(x)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        return Ω, _like(Ω, forward(dense(Δx), x, opts.get("axis"), opts.get("dtype"), _keepdims(opts)))

    def reduction_rrule(x, *args, **kwargs):
        opts = _options(name, args, kwargs, names)
        Ω = primal(x, *args, **kwargs)
        x = plain(x)
        project = ProjectTo(x)
        shape, dtype = _shape_dtype(x)
        axes = normalize_axes(opts.get("axis"), len(shape))
        keepdims = _keepdims(opts)
        rest = (NO,) * len(args)

        def reduction_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            return (NO, project(adjoint(unthunk(ȳ), x, shape, axes, keepdims, dtype))) + rest
        return Ω, reduction_pullback

    return named_rule(reduction_frule, name), named_rule(reduction_rrule, name)


def _sum_forward(Δx, x, axis, dtype, keepdims):
    return _sum(Δx, axis=axis, dtype=dtype, keepdims=keepdims)


def _sum_adjoint(ȳ, x, shape, axes, keepdims, dtype):
    return unreduce(ȳ, shape, axes, keepdims, dtype)


def _nansum_forward(Δx, x, axis, dtype, keepdims):
    return np.sum(np.where(np.isnan(x), 0, Δx), axis=axis, dtype=dtype, keepdims=keepdims)


def _nansum_adjoint(ȳ, x, shape, axes, keepdims, dtype):
    return np.where(np.isnan(x), 0, unreduce(ȳ, shape, axes, keepdims, dtype))


def _mean_forward(Δx, x, axis, dtype, keepdims):
    return np.mean(Δx, axis=axis, dtype=dtype, keepdims=keepdims)


def _mean_adjoint(ȳ, x, shape, axes, keepdims, dtype):
    return unreduce(ȳ / max(_count(shape, axes), 1), shape, axes, keepdims, dtype)


def _nanmean_forward(Δx, x, axis, dtype, keepdims):
    return np.nanmean(np.where(np.isnan(x), np.nan, Δx), axis=axis, dtype=dtype, keepdims=keepdims)


def _nanmean_adjoint(ȳ, x, shape, axes, keepdims, dtype):
    nan = np.isnan(x)
    count = np.maximum(np.sum(~nan, axis=axes, keepdims=True), 1)
    return np.where(nan, 0, unreduce(ȳ, shape, axes, keepdims, dtype) / count)


def _sum(x, *args, **kwargs):
    """np.sum(x, ...): for an ndarray, np.add.reduce with the same arguments
    (what np.sum calls, without its Python layer, which costs more than the
    sum of a small array); axis=None is np.sum's default, not reduce's."""
    if type(x) is np.ndarray and not (kwargs and any(v is _NOVALUE for v in kwargs.values())):
        if not args and "axis" not in kwargs:
            return np.add.reduce(x, None, **kwargs)
        return np.add.reduce(x, *args, **kwargs)
    return np.sum(x, *args, **kwargs)


sum_frule, sum_rrule = _linear_reduction(np.sum, "sum", _SUM_ARGS, _sum_forward, _sum_adjoint, _sum)
_register([np.sum] + _methods("sum"), sum_frule, sum_rrule)
_register([np.nansum], *_linear_reduction(np.nansum, "nansum", _SUM_ARGS, _nansum_forward, _nansum_adjoint))
_register([np.mean] + _methods("mean"), *_linear_reduction(np.mean, "mean", _MEAN_ARGS, _mean_forward, _mean_adjoint))
_register([np.nanmean], *_linear_reduction(np.nanmean, "nanmean", _MEAN_ARGS, _nanmean_forward,
                                           _nanmean_adjoint))


# ----- prod, nanprod: exact with zeros ---------------------------------------------------

def _to_last(x, axes):
    """x with `axes` moved to the end and flattened into one: (kept..., K)."""
    nd = np.ndim(x)
    keep = [a for a in range(nd) if a not in axes]
    xt = np.transpose(x, keep + list(axes))
    kept_shape = xt.shape[:len(keep)]
    return xt.reshape(kept_shape + (-1,)), keep


def _from_last(v, shape, axes, keep):
    """Undo `_to_last` for an array of the input's size."""
    order = keep + list(axes)
    v = v.reshape(tuple(shape[a] for a in order))
    return np.transpose(v, np.argsort(order))


def _exclusive_prod(x, axes):
    """∏_{j ≠ i} x_j over the slices along `axes`, for every element i, with
    no division: the product of the cumulative products from both sides."""
    shape = np.shape(x)
    xt, keep = _to_last(x, axes)
    ones = np.ones(xt.shape[:-1] + (1,), dtype=xt.dtype)
    left = np.cumprod(np.concatenate([ones, xt[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, xt[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return _from_last(left * right, shape, axes, keep)


def _prod_partials(x, Ω, axes, keepdims, initial=None):
    """∂Ω/∂x as an array of x's shape: Ω/x without zeros, else exclusive
    products (times `initial`, a constant factor, when given)."""
    if isinstance(x, Tracked):          # the rule differentiated: x's values decide the branch
        if np.all(_value(x) != 0):
            return unreduce(Ω, x.shape, axes, keepdims) / x
    x = np.asarray(x)
    if np.all(x != 0):
        shape, _ = _shape_dtype(x)
        return unreduce(Ω, shape, axes, keepdims) / x
    d = _exclusive_prod(x, axes)
    return d if initial is None else d * initial


def _initial(opts):
    c = opts.get("initial")
    return None if c is _NOVALUE else c


def prod_frule(tangents, x, *args, **kwargs):
    opts = _options("prod", args, kwargs, _SUM_ARGS)
    Ω = np.prod(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    axes = normalize_axes(opts.get("axis"), np.ndim(x))
    keepdims = _keepdims(opts)
    d = _prod_partials(x, Ω, axes, keepdims, _initial(opts))
    return Ω, _like(Ω, np.sum(d * dense(Δx), axis=axes, keepdims=keepdims))


def prod_rrule(x, *args, **kwargs):
    opts = _options("prod", args, kwargs, _SUM_ARGS)
    Ω = np.prod(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, dtype = _shape_dtype(x)
    axes = normalize_axes(opts.get("axis"), len(shape))
    keepdims = _keepdims(opts)
    initial = _initial(opts)
    rest = (NO,) * len(args)

    def prod_pullback(ȳ):
        ȳ = seed(ȳ, 'prod')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = unthunk(ȳ)

        def prod_dx():
            return project(unreduce(ȳ, shape, axes, keepdims) * np.conj(_prod_partials(x, Ω, axes, keepdims, initial)))
        return (NO, Thunk(prod_dx)) + rest
    return Ω, prod_pullback


_register([np.prod] + _methods("prod"), prod_frule, prod_rrule)


def nanprod_frule(tangents, x, *args, **kwargs):
    # NaNs count as ones: the product of the other elements, NaN positions frozen.
    _options("nanprod", args, kwargs, _SUM_ARGS)
    Δx = tangents[1]
    x1 = np.where(np.isnan(x), 1, x)
    if not isinstance(Δx, AbstractZero):
        Δx = np.where(np.isnan(x), 0, dense(Δx))
    return prod_frule((NO, Δx) + tuple(tangents[2:]), x1, *args, **kwargs)


def nanprod_rrule(x, *args, **kwargs):
    nan = np.isnan(x)
    Ω, prod_pullback = prod_rrule(np.where(nan, 1, x), *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)

    def nanprod_pullback(ȳ):
        cts = prod_pullback(ȳ)
        if isinstance(cts[1], AbstractZero):
            return cts
        return (NO, project(np.where(nan, 0, unthunk(cts[1])))) + cts[2:]
    return Ω, nanprod_pullback


_register([np.nanprod], nanprod_frule, nanprod_rrule)


# ----- var, std ---------------------------------------------------------------------------
# var = Σ|x - μ|²/(N - ddof): the pullback is 2(x - μ)·Re(ȳ)/(N - ddof) (the
# terms through μ cancel, Σ(x - μ) = 0); std = √var divides by 2Ω.

def _var_options(fname, x, args, kwargs):
    """The options var, std, nanvar and nanstd share: (opts, shape, dtype, axes, ddof)."""
    opts = _options(fname, args, kwargs, _VAR_ARGS, refuse=("out", "where", "mean"))
    shape, dtype = _shape_dtype(x)
    axes = normalize_axes(opts.get("axis"), len(shape))
    ddof = opts.get("correction", None)
    if ddof is None or ddof is _NOVALUE:
        ddof = opts.get("ddof", 0)
    return opts, shape, dtype, axes, ddof


def _var_setup(fname, x, args, kwargs):
    opts, shape, dtype, axes, ddof = _var_options(fname, x, args, kwargs)
    return shape, dtype, axes, _keepdims(opts), _count(shape, axes) - ddof


def _var_jvp(x, Δx, axes, keepdims, dof):
    d = x - np.mean(x, axis=axes, keepdims=True)
    return 2 * np.sum(np.real(np.conj(d) * Δx), axis=axes, keepdims=keepdims) / dof


def var_frule(tangents, x, *args, **kwargs):
    Ω = np.var(x, *args, **kwargs)       # first: NumPy checks the axes
    shape, dtype, axes, keepdims, dof = _var_setup("var", x, args, kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    return Ω, _like(Ω, _var_jvp(x, dense(Δx), axes, keepdims, dof))


def var_rrule(x, *args, **kwargs):
    Ω = np.var(x, *args, **kwargs)
    shape, dtype, axes, keepdims, dof = _var_setup("var", x, args, kwargs)
    x = plain(x)
    project = ProjectTo(x)
    rest = (NO,) * len(args)

    def var_pullback(ȳ):
        ȳ = seed(ȳ, 'var')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = np.real(unthunk(ȳ))
        d = x - np.mean(x, axis=axes, keepdims=True)
        # np.divide: N - ddof = 0 gives inf/nan with NumPy's warning, as the primal does
        return (NO, project(d * unreduce(np.divide(2 * ȳ, dof), shape, axes, keepdims))) + rest
    return Ω, var_pullback


_register([np.var] + _methods("var"), var_frule, var_rrule)


def _safe(Ω):
    return np.where(Ω == 0, 1, Ω)


def std_frule(tangents, x, *args, **kwargs):
    Ω = np.std(x, *args, **kwargs)       # first: NumPy checks the axes
    shape, dtype, axes, keepdims, dof = _var_setup("std", x, args, kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    ΔΩ = np.where(Ω == 0, 0, _var_jvp(x, dense(Δx), axes, keepdims, dof) / (2 * _safe(Ω)))
    return Ω, _like(Ω, ΔΩ)


def std_rrule(x, *args, **kwargs):
    Ω = np.std(x, *args, **kwargs)
    shape, dtype, axes, keepdims, dof = _var_setup("std", x, args, kwargs)
    x = plain(x)
    project = ProjectTo(x)
    rest = (NO,) * len(args)

    def std_pullback(ȳ):
        ȳ = seed(ȳ, 'std')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = np.real(unthunk(ȳ))
        d = x - np.mean(x, axis=axes, keepdims=True)
        scale = np.where(Ω == 0, 0, ȳ / (dof * _safe(Ω)))
        return (NO, project(d * unreduce(scale, shape, axes, keepdims))) + rest
    return Ω, std_pullback


_register([np.std] + _methods("std"), std_frule, std_rrule)


# ----- max, min, ptp: the cotangent goes to one maximal element ------------------------------

def _value(x):
    """x's values as an array: a tracked x (the rule differentiated by
    chainrules.ad) by its primal, for choices that have no derivative."""
    while isinstance(x, Tracked):
        x = x.primal
    return np.asarray(x)


def _arg_index(x, axes, argfn):
    """An index tuple picking, in each slice along `axes`, the element that
    `argfn` (np.argmax, ...) chooses: `x[idx]` has the reduced shape.  The
    choice is made on x's values (a tracked x, in a rule differentiated, by
    its primal: the index has no derivative)."""
    x = _value(x)
    nd = x.ndim
    if nd == 0:
        return ()
    xt, keep = _to_last(x, axes)
    k = argfn(xt, axis=-1)
    red = np.unravel_index(k, tuple(x.shape[a] for a in axes))
    grid = np.indices(xt.shape[:-1], sparse=True)
    idx = [None] * nd
    for a, g in zip(keep, grid):
        idx[a] = g
    for a, r in zip(axes, red):
        idx[a] = r
    return tuple(idx)


def _nanargmax(v, axis):
    return np.argmax(np.where(np.isnan(v), -np.inf, v), axis=axis)


def _nanargmin(v, axis):
    return np.argmin(np.where(np.isnan(v), np.inf, v), axis=axis)


def _scatter_thunk(project, shape, dtype, idx, ȳ, kept_shape):
    """The cotangent that is ȳ at `idx` and 0 elsewhere, as an InplaceableThunk."""
    v = np.reshape(np.real(ȳ) if dtype.kind != "c" else ȳ, kept_shape)

    def scatter_add(dest):
        dest[idx] += v
        return dest

    def scatter():
        dest = np.zeros(shape, dtype)
        dest[idx] = v
        return project(dest)
    return InplaceableThunk(scatter_add, Thunk(scatter))


def _wins(x, idx, Ω, kept_shape):
    """With initial=: where the chosen element of x is the result (ties go to
    x); elsewhere the constant `initial` won and the derivative is zero."""
    return np.reshape(np.asarray(x)[idx], kept_shape) == np.reshape(Ω, kept_shape)


def _chooser(fname, f, argfn):
    def chooser_frule(tangents, x, *args, **kwargs):
        opts = _options(fname, args, kwargs, _MAX_ARGS)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero) or np.size(x) == 0:
            return Ω, ZERO
        idx = _arg_index(x, normalize_axes(opts.get("axis"), np.ndim(x)), argfn)
        ΔΩ = np.reshape(np.asarray(dense(Δx))[idx], np.shape(Ω))
        if _initial(opts) is not None:
            ΔΩ = np.where(_wins(x, idx, Ω, np.shape(Ω)), ΔΩ, 0)
        return Ω, _like(Ω, ΔΩ)

    def chooser_rrule(x, *args, **kwargs):
        opts = _options(fname, args, kwargs, _MAX_ARGS)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        project = ProjectTo(x)
        shape, dtype = _shape_dtype(x)
        axes = normalize_axes(opts.get("axis"), len(shape))
        kept_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
        initial = _initial(opts)
        rest = (NO,) * len(args)

        def chooser_pullback(ȳ):
            ȳ = seed(ȳ, fname)
            if isinstance(ȳ, AbstractZero) or project.kind == 0 or np.size(x) == 0:
                return (NO, project(ZERO)) + rest
            idx = _arg_index(x, axes, argfn)
            ȳ = unthunk(ȳ)
            if initial is not None:
                ȳ = np.where(_wins(x, idx, Ω, kept_shape), np.reshape(ȳ, kept_shape), 0)
            return (NO, _scatter_thunk(project, shape, dtype, idx, ȳ, kept_shape)) + rest
        return Ω, chooser_pullback

    return named_rule(chooser_frule, fname), named_rule(chooser_rrule, fname)


_register([np.max, np.amax] + _methods("max"), *_chooser("max", np.max, np.argmax))
_register([np.min, np.amin] + _methods("min"), *_chooser("min", np.min, np.argmin))
_register([np.nanmax], *_chooser("nanmax", np.nanmax, _nanargmax))
_register([np.nanmin], *_chooser("nanmin", np.nanmin, _nanargmin))


def ptp_frule(tangents, x, *args, **kwargs):
    opts = _options("ptp", args, kwargs, ("axis", "out", "keepdims"))
    Ω = np.ptp(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    axes = normalize_axes(opts.get("axis"), np.ndim(x))
    Δx = np.asarray(dense(Δx))
    ΔΩ = Δx[_arg_index(x, axes, np.argmax)] - Δx[_arg_index(x, axes, np.argmin)]
    return Ω, _like(Ω, np.reshape(ΔΩ, np.shape(Ω)))


def ptp_rrule(x, *args, **kwargs):
    opts = _options("ptp", args, kwargs, ("axis", "out", "keepdims"))
    Ω = np.ptp(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, dtype = _shape_dtype(x)
    axes = normalize_axes(opts.get("axis"), len(shape))
    kept_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    rest = (NO,) * len(args)

    def ptp_pullback(ȳ):
        ȳ = seed(ȳ, 'ptp')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = unthunk(ȳ)
        hi = _scatter_thunk(project, shape, dtype, _arg_index(x, axes, np.argmax), ȳ, kept_shape)
        lo = _scatter_thunk(project, shape, dtype, _arg_index(x, axes, np.argmin), -ȳ, kept_shape)

        def ptp_add(dest):
            return lo.add_fn(hi.add_fn(dest))

        def ptp_dx():
            return project(ptp_add(np.zeros(shape, dtype)))
        return (NO, InplaceableThunk(ptp_add, Thunk(ptp_dx))) + rest
    return Ω, ptp_pullback


_register([np.ptp] + _methods("ptp"), ptp_frule, ptp_rrule)


# ----- cumsum, cumprod ---------------------------------------------------------------------------

def _scan_setup(x, opts):
    """(axis, flat): the scan axis of x, or of its ravel when axis is None."""
    axis = opts.get("axis")
    if axis is None:
        return 0, True
    return int(axis) % max(np.ndim(x), 1), False


def _reverse_cumsum(g, axis):
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


def cumsum_frule(tangents, x, *args, **kwargs):
    opts = _options("cumsum", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumsum(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    return Ω, np.cumsum(dense(Δx), axis=opts.get("axis"), dtype=opts.get("dtype"))


def cumsum_rrule(x, *args, **kwargs):
    opts = _options("cumsum", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumsum(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, _ = _shape_dtype(x)
    axis, flat = _scan_setup(x, opts)
    rest = (NO,) * len(args)

    def cumsum_pullback(ȳ):
        ȳ = seed(ȳ, 'cumsum')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        x̄ = _reverse_cumsum(np.asarray(unthunk(ȳ)), axis)
        return (NO, project(np.reshape(x̄, shape) if flat else x̄)) + rest
    return Ω, cumsum_pullback


_register([np.cumsum] + _methods("cumsum"), cumsum_frule, cumsum_rrule)


def _rows(v, axis):
    """v as rows (M, K) with the scan axis last, and the function undoing it."""
    v = np.moveaxis(np.asarray(v), axis, -1)
    moved = v.shape

    def back(r):
        return np.moveaxis(r.reshape(moved), -1, axis)
    return v.reshape(int(np.prod(moved[:-1])), moved[-1]), back


def _cumprod_vjp(x, y, g):
    """Σ_{k ≥ i} g_k ∂y_k/∂x_i along rows of (M, K) arrays, exact with zeros.
    Without zeros: reverse-cumsum(g·y)/x.  In a row whose first zero is at
    z: as before left of z; at z, P_{z-1}·Σ_{k ≥ z} g_k ∏_{z<j≤k} x_j; 0 right
    of z."""
    zero = x == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _reverse_cumsum(g * y, -1) / x
    for r in np.flatnonzero(zero.any(axis=-1)):
        xr, yr, gr = x[r], y[r], g[r]
        z = int(np.argmax(zero[r]))
        out[r] = 0
        if z:
            out[r, :z] = _reverse_cumsum(gr[:z] * yr[:z], -1) / xr[:z]
        before = yr[z - 1] if z else 1
        out[r, z] = before * (gr[z] + np.sum(gr[z + 1:] * np.cumprod(xr[z + 1:])))
    return out


def _cumprod_jvp(x, y, dx):
    """Σ_{i ≤ k} dx_i ∂y_k/∂x_i along rows, exact with zeros: y·cumsum(dx/x)
    left of the first zero z, dx_z·P_{z-1}·∏_{z<j≤k} x_j from z on."""
    zero = x == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = y * np.cumsum(dx / x, axis=-1)
    for r in np.flatnonzero(zero.any(axis=-1)):
        xr, yr = x[r], y[r]
        z = int(np.argmax(zero[r]))
        if z:
            out[r, :z] = yr[:z] * np.cumsum(dx[r, :z] / xr[:z])
        before = yr[z - 1] if z else 1
        out[r, z:] = dx[r, z] * before * np.concatenate([[1], np.cumprod(xr[z + 1:])])
    return out


def cumprod_frule(tangents, x, *args, **kwargs):
    opts = _options("cumprod", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumprod(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    axis, flat = _scan_setup(x, opts)
    xs = np.ravel(x) if flat else np.asarray(x)
    Δx = np.broadcast_to(dense(Δx), np.shape(x))
    xr, back = _rows(xs, axis)
    yr, _ = _rows(Ω, axis)
    dr, _ = _rows(np.ravel(Δx) if flat else Δx, axis)
    ΔΩ = back(_cumprod_jvp(xr, yr, dr))
    return Ω, ΔΩ.astype(Ω.dtype, copy=False) if Ω.dtype.kind in "fc" else ΔΩ


def cumprod_rrule(x, *args, **kwargs):
    opts = _options("cumprod", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumprod(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, _ = _shape_dtype(x)
    axis, flat = _scan_setup(x, opts)
    rest = (NO,) * len(args)

    def cumprod_pullback(ȳ):
        ȳ = seed(ȳ, 'cumprod')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        xs = np.ravel(x) if flat else np.asarray(x)
        # holomorphic: the pullback is the transpose of the Jacobian at conj(x)
        xr, back = _rows(np.conj(xs), axis)
        yr, _ = _rows(np.conj(Ω), axis)
        gr, _ = _rows(np.broadcast_to(unthunk(ȳ), np.shape(Ω)), axis)
        x̄ = back(_cumprod_vjp(xr, yr, gr))
        return (NO, project(np.reshape(x̄, shape) if flat else x̄)) + rest
    return Ω, cumprod_pullback


_register([np.cumprod] + _methods("cumprod"), cumprod_frule, cumprod_rrule)


# ----- diff --------------------------------------------------------------------------------------

def _diff_setup(a, args, kwargs):
    opts = _options("diff", args, kwargs, ("n", "axis", "prepend", "append"), refuse=())
    n = opts.get("n", 1)
    axis = int(opts.get("axis", -1)) % max(np.ndim(a), 1)
    pre, app = opts.get("prepend", _NOVALUE), opts.get("append", _NOVALUE)
    return n, axis, pre, app


def _edge_len(v, axis):
    if v is _NOVALUE:
        return 0
    return 1 if np.ndim(v) == 0 else np.shape(v)[axis]


def _zeros_of(v):
    return v if v is _NOVALUE else np.zeros(np.shape(v))


def diff_frule(tangents, a, *args, **kwargs):
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    Δa = tangents[1]
    if isinstance(Δa, AbstractZero):
        return Ω, ZERO
    return Ω, np.diff(dense(Δa), n, axis, prepend=_zeros_of(pre), append=_zeros_of(app))


def diff_rrule(a, *args, **kwargs):
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    project = ProjectTo(a)
    length = np.shape(a)[axis] if np.ndim(a) else 0
    start = _edge_len(pre, axis)
    rest = (NO,) * len(args)

    def diff_pullback(ȳ):
        ȳ = seed(ȳ, 'diff')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        g = np.asarray(unthunk(ȳ))
        for _ in range(n):
            # the adjoint of one difference: c̄ᵢ = gᵢ₋₁ - gᵢ
            g = -np.diff(g, axis=axis, prepend=0, append=0)
        return (NO, project(np.take(g, range(start, start + length), axis=axis))) + rest
    return Ω, diff_pullback


_register([np.diff], diff_frule, diff_rrule)


# ----- average -----------------------------------------------------------------------------------
# Ω = Σ w·a / Σ w: ∂Ω/∂a = w/W, ∂Ω/∂w = (a - Ω)/W.  Weights passed
# positionally get a cotangent; as a keyword they get none (keywords never do).

def _average_setup(a, args, kwargs):
    opts = _options("average", args, kwargs, ("axis", "weights", "returned"), refuse=())
    shape = np.shape(a)
    axis = opts.get("axis")
    axes = normalize_axes(axis, len(shape))
    w = opts.get("weights")
    if w is not None and np.shape(w) != shape:
        # 1-d weights along the single axis
        wshape = [1] * len(shape)
        wshape[axes[0]] = np.shape(w)[0]
        wb = np.reshape(w, wshape)
    else:
        wb = w
    return axes, _keepdims(opts), w, wb, bool(opts.get("returned"))


def average_frule(tangents, a, *args, **kwargs):
    axes, keepdims, w, wb, returned = _average_setup(a, args, kwargs)
    Ω = np.average(a, *args, **kwargs)
    a = plain(a)
    Δw = tangents[3] if len(tangents) > 3 else ZERO
    if not returned:
        return Ω, _average_jvp(tangents[1], Δw, a, wb, axes, keepdims, Ω)
    Ωa, W = Ω
    ΔΩ = _average_jvp(tangents[1], Δw, a, wb, axes, keepdims, Ωa)
    if wb is None or isinstance(Δw, AbstractZero):
        return Ω, Tangent[tuple](ΔΩ, ZERO)
    ΔW = np.sum(np.broadcast_to(np.reshape(dense(Δw), np.shape(wb)), np.shape(a)), axis=axes, keepdims=keepdims)
    # W has the result dtype (complex for a complex a): so has its tangent
    return Ω, Tangent[tuple](ΔΩ, ProjectTo(W)(np.broadcast_to(ΔW, np.shape(W))))


def _average_jvp(Δa, Δw, a, wb, axes, keepdims, Ω):
    if wb is None:
        if isinstance(Δa, AbstractZero):
            return ZERO
        return _like(Ω, np.mean(dense(Δa), axis=axes, keepdims=keepdims))
    W = np.sum(np.broadcast_to(wb, np.shape(a)), axis=axes, keepdims=True)
    ΔΩ = ZERO
    if not isinstance(Δa, AbstractZero):
        ΔΩ = np.sum(wb * dense(Δa), axis=axes, keepdims=True) / W
    if not isinstance(Δw, AbstractZero):
        Ωk = np.sum(wb * a, axis=axes, keepdims=True) / W
        Δwb = np.reshape(dense(Δw), np.shape(wb))
        t = np.sum(Δwb * (a - Ωk), axis=axes, keepdims=True) / W
        ΔΩ = t if ΔΩ is ZERO else ΔΩ + t
    if ΔΩ is ZERO:
        return ZERO
    return _like(Ω, ΔΩ if keepdims else np.squeeze(ΔΩ, axis=axes))


def average_rrule(a, *args, **kwargs):
    axes, keepdims, w, wb, returned = _average_setup(a, args, kwargs)
    Ω = np.average(a, *args, **kwargs)
    a = plain(a)
    pa = ProjectTo(a)
    pw = ProjectTo(w) if len(args) > 1 else None     # weights given positionally
    shape = np.shape(a)

    def average_pullback(ȳ):
        ȳ = seed(ȳ, 'average')
        out = [NO, pa(ZERO)] + [NO] * len(args)
        if pw is not None:
            out[3] = pw(ZERO)
        if returned:
            # (average, sum of weights): the sum's cotangent goes to the weights
            ȳ, W̄ = _output_parts(ȳ, 2)
            if wb is not None and pw is not None and pw.kind != 0 and not isinstance(W̄, AbstractZero):
                W̄ = unreduce(unthunk(W̄), shape, axes, keepdims)
                w̄W = np.reshape(unbroadcast(np.shape(wb), np.real(W̄)), np.shape(w))
                out[3] = pw(w̄W)
        if isinstance(ȳ, AbstractZero):
            return tuple(out)
        ȳ = unreduce(unthunk(ȳ), shape, axes, keepdims)
        if wb is None:
            out[1] = pa(ȳ / max(_count(shape, axes), 1))
            return tuple(out)
        W = np.sum(np.broadcast_to(wb, shape), axis=axes, keepdims=True)
        if pa.kind != 0:
            out[1] = Thunk(lambda: pa(ȳ * np.conj(wb / W)))
        if pw is not None and pw.kind != 0:
            def average_dw():
                Ωk = np.sum(wb * a, axis=axes, keepdims=True) / W
                w̄ = ȳ * np.conj((a - Ωk) / W)
                w̄ = np.reshape(unbroadcast(np.shape(wb), w̄), np.shape(w))
                return pw(w̄ if isinstance(out3, AbstractZero) else w̄ + out3)
            out3 = out[3]
            out[3] = Thunk(average_dw)
        return tuple(out)
    return Ω, average_pullback


_register([np.average], average_frule, average_rrule)


# ----- nanvar, nanstd: var and std over the non-NaN elements ----------------------------------
# The same pullback as var with N the count of non-NaN elements per slice and
# zero at the NaNs.

def _nanvar_setup(fname, x, args, kwargs):
    opts, shape, _, axes, ddof = _var_options(fname, x, args, kwargs)
    x = x if isinstance(x, Tracked) else np.asarray(x)
    nan = np.isnan(_value(x))
    dof = np.sum(~nan, axis=axes, keepdims=True) - ddof
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(np.where(nan, 0, x), axis=axes, keepdims=True) / np.maximum(dof + ddof, 1)
    d = np.where(nan, 0, x - mean)          # 0 at the NaNs: they get no cotangent
    return shape, axes, _keepdims(opts), d, dof


def _kept(v, axes, keepdims):
    return v if keepdims else np.squeeze(v, axis=axes)


def _nanvar_rules(fname, f, std):
    def nanvar_frule(tangents, x, *args, **kwargs):
        shape, axes, keepdims, d, dof = _nanvar_setup(fname, x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        with np.errstate(invalid="ignore", divide="ignore"):
            ΔΩ = 2 * np.sum(np.real(np.conj(d) * dense(Δx)), axis=axes, keepdims=True) / dof
            if std:
                Ωk = np.reshape(Ω, ΔΩ.shape)
                ΔΩ = np.where(Ωk == 0, 0, ΔΩ / (2 * _safe(Ωk)))
        return Ω, _like(Ω, ProjectTo(Ω)(_kept(ΔΩ, axes, keepdims)))

    def nanvar_rrule(x, *args, **kwargs):
        shape, axes, keepdims, d, dof = _nanvar_setup(fname, x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def nanvar_pullback(ȳ):
            ȳ = seed(ȳ, fname)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = unreduce(np.real(unthunk(ȳ)), shape, axes, keepdims)
            with np.errstate(invalid="ignore", divide="ignore"):
                scale = 2 / dof
                if std:
                    Ωk = unreduce(Ω, shape, axes, keepdims)
                    scale = np.where(Ωk == 0, 0, 1 / (dof * _safe(Ωk)))
            return (NO, project(d * (ȳ * scale))) + rest
        return Ω, nanvar_pullback

    return named_rule(nanvar_frule, fname), named_rule(nanvar_rrule, fname)


_register([np.nanvar], *_nanvar_rules("nanvar", np.nanvar, False))
_register([np.nanstd], *_nanvar_rules("nanstd", np.nanstd, True))


# ----- ufunc methods: np.add.reduce & co. are sum, prod, max, min, cumsum, cumprod ---------------
# They reduce over axis 0 by default (the functions over all axes); the
# arguments are matched by name and handed to the function's rule.

def _ufunc_method(method, fname, rules, names):
    frule, rrule = rules

    def method_opts(args, kwargs):
        opts = dict(zip(names, args))
        opts.update(kwargs)
        opts.setdefault("axis", 0)
        return opts

    def method_frule(tangents, x, *args, **kwargs):
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)      # NumPy's own error: accumulate refuses a 0-d array
        return frule(tangents[:2], x, **method_opts(args, kwargs))

    def method_rrule(x, *args, **kwargs):
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)
        res = rrule(x, **method_opts(args, kwargs))
        if res is None:
            return None
        Ω, pullback = res
        x = plain(x)
        rest = (NO,) * len(args)

        def method_pullback(ȳ):
            return pullback(ȳ)[:2] + rest
        return Ω, method_pullback

    register_frule(method)(named_rule(method_frule, fname))
    register_rrule(method)(named_rule(method_rrule, fname))


_REDUCE_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_max_rules, _min_rules = _chooser("max", np.max, np.argmax), _chooser("min", np.min, np.argmin)
_prod_rules = (prod_frule, prod_rrule)
for _m, _name, _rules, _names in [
        (np.add.reduce, "add.reduce", (sum_frule, sum_rrule), _REDUCE_ARGS),
        (np.multiply.reduce, "multiply.reduce", _prod_rules, _REDUCE_ARGS),
        (np.maximum.reduce, "maximum.reduce", _max_rules, _REDUCE_ARGS),
        (np.minimum.reduce, "minimum.reduce", _min_rules, _REDUCE_ARGS),
        (np.add.accumulate, "add.accumulate", (cumsum_frule, cumsum_rrule), ("axis", "dtype", "out")),
        (np.multiply.accumulate, "multiply.accumulate", (cumprod_frule, cumprod_rrule), ("axis", "dtype", "out"))]:
    _ufunc_method(_m, _name.replace(".", "_"), _rules, _names)


# ----- non-differentiable: indices, counts, truth values ---------------------------------------

for _f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition,
           np.argwhere, np.nonzero, np.flatnonzero, np.count_nonzero, np.any, np.all,
           np.searchsorted, np.digitize, *_methods("argmax", "argmin", "argsort", "nonzero", "any", "all")):
    non_differentiable(_f)
del _f
