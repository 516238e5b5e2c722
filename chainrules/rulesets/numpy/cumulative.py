"""Rules for NumPy's scans and differences: cumsum, cumprod (exact with
zeros: exclusive products, no division) and diff, and the ufunc methods
that are the same functions (`np.add.reduce` is sum, `np.multiply.accumulate`
is cumprod...), with the conventions of `reductions.py`.
"""

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    dense,
    methods as _methods,
    named_rule,
    register as _register,
    seed,
    plain,
)


from chainrules.rulesets.numpy.reductions import (
    _NOVALUE,
    _options,
    _shape_dtype,
    sum_frule,
    sum_rrule,
    prod_frule,
    prod_rrule,
    _chooser,
)


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
