"""Rules for NumPy's scans and differences: cumsum (the array-API body of
cumulative_sum), cumprod (exact with zeros: exclusive products, no division) and diff, and the ufunc methods
that are the same functions (`np.add.reduce` is sum, `np.multiply.accumulate`
is cumprod...), with the conventions of `reductions.py`.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    is_traced,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    dense,
    methods as _methods,
    named_rule,
    register as _register,
    seed,
    plain,
    array_or_traced,
)
from chainrules.rulesets.numpy.reductions import (
    _NOVALUE,
    _options,
    _shape_dtype,
    sum_frule,
    sum_rrule,
    prod_frule,
    prod_rrule,
    max_frule,
    max_rrule,
    min_frule,
    min_rrule,
    _value,
)
from chainrules.rulesets.array_api import reductions as array_api
from chainrules.rulesets.numpy.linalg._on_numpy import register_body


# ----- cumsum, cumprod ---------------------------------------------------------------------------

def _scan_setup(x: Any, opts: Any) -> Any:
    """(axis, flat): the scan axis of x, or of its ravel when axis is None."""
    axis = opts.get("axis")
    if axis is None:
        return 0, True
    return int(axis) % max(np.ndim(x), 1), False


def _reverse_cumsum(g: Any, axis: Any) -> Any:
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


# cumsum: the array-API body of cumulative_sum (array_api/reductions.py), on np.cumsum and
# x.cumsum (axis=None: the flattened array; dtype=; out= a TypeError naming it)
cumsum_frule, cumsum_rrule = register_body([np.cumsum], tuple(
    named_rule(r, "cumsum") for r in array_api.cumulative_sum_rules(np.cumsum, "cumsum")), np.cumsum, 1, "cumsum")
for _m in _methods("cumsum"):
    register_body([_m], (cumsum_frule, cumsum_rrule), _m, 1, "ndarray.cumsum")


def _scan_input(x: Any, flat: Any) -> Any:
    """x as the scan formulas take it: an array (a tracked x, the rule
    differentiated, stays tracked), raveled when the scan is over all axes."""
    if not is_traced(x):
        x = np.asarray(x)
    return np.ravel(x) if flat else x


# ∂y_k/∂x_i = ∏_{j ≤ k, j ≠ i} x_j (i ≤ k).  Without zeros that is y_k/x_i.
# With zeros, computed with no division by them and differentiably (so that
# the rule stays right at order 2, where the derivative of a zero matters):
# x1 = x with its zeros replaced by ones, y1 = cumprod(x1), zc = the
# cumulative product of the zeros alone (0 once a zero is passed, but with
# its derivative), nz = how many zeros up to k, Sx = their running sum.
#   x_i ≠ 0:  ∂y_k/∂x_i = zc_k·y1_k/x1_i
#   x_i = 0:  ∂y_k/∂x_i = y1_k·∏(the other zeros up to k): y1_k with no other
#             (nz = 1), y1_k·(Sx_k - x_i) with one (nz = 2), else 0 (its
#             first derivative is 0 too: exact to order 2, and to every order
#             while a slice holds at most two zeros).
# On plain arrays (no derivative of the result wanted) the same values with
# fewer passes: zc is then 1 before the first zero and 0 after it, and the
# terms with two zeros are 0.

def _zero_parts(x: Any, zero: Any, axis: Any) -> Any:
    x1 = np.where(zero, 1, x)
    return (x1, np.cumprod(x1, axis=axis), np.cumprod(np.where(zero, x, 1), axis=axis),
            np.cumsum(zero, axis=axis), np.cumsum(np.where(zero, x, 0), axis=axis))


def _cumprod_jvp(x: Any, y: Any, dx: Any, axis: Any) -> Any:
    """Σ_{i ≤ k} dx_i ∂y_k/∂x_i along `axis`, exact with zeros."""
    zero = _value(x) == 0
    if not zero.any():
        return y * np.cumsum(dx / x, axis=axis)
    if not is_traced(x):
        x1 = np.where(zero, 1, x)
        nz = np.cumsum(zero, axis=axis)
        return np.cumprod(x1, axis=axis) * np.where(nz == 0, np.cumsum(np.where(zero, 0, dx / x1), axis=axis),
                                                    np.where(nz == 1, np.cumsum(np.where(zero, dx, 0), axis=axis), 0))
    x1, y1, zc, nz, Sx = _zero_parts(x, zero, axis)
    dxz = np.where(zero, dx, 0)
    Sdx = np.cumsum(dxz, axis=axis)
    at_zeros = np.where(nz == 1, Sdx, np.where(nz == 2, Sdx * Sx - np.cumsum(dxz * np.where(zero, x, 0), axis=axis),
                                               0))
    return y1 * (zc * np.cumsum(np.where(zero, 0, dx / x1), axis=axis) + at_zeros)


def _cumprod_vjp(x: Any, y: Any, g: Any, axis: Any) -> Any:
    """Σ_{k ≥ i} g_k ∂y_k/∂x_i along `axis`, exact with zeros."""
    zero = _value(x) == 0
    if not zero.any():
        return _reverse_cumsum(g * y, axis) / x
    if not is_traced(x):
        x1 = np.where(zero, 1, x)
        nz = np.cumsum(zero, axis=axis)
        gy = g * np.cumprod(x1, axis=axis)
        return np.where(zero, _reverse_cumsum(np.where(nz == 1, gy, 0), axis),
                        _reverse_cumsum(np.where(nz == 0, gy, 0), axis) / x1)
    x1, y1, zc, nz, Sx = _zero_parts(x, zero, axis)
    gy = g * y1
    two = np.where(nz == 2, gy, 0)
    at_zeros = (_reverse_cumsum(np.where(nz == 1, gy, 0), axis) + _reverse_cumsum(two * Sx, axis)
                - x * _reverse_cumsum(two, axis))
    return np.where(zero, at_zeros, _reverse_cumsum(gy * zc, axis) / x1)


def cumprod_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    opts = _options("cumprod", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumprod(x, *args, **kwargs)
    x = plain(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    axis, flat = _scan_setup(x, opts)
    Δx = np.broadcast_to(dense(Δx), np.shape(x))
    ΔΩ = _cumprod_jvp(_scan_input(x, flat), Ω, np.ravel(Δx) if flat else Δx, axis)
    if type(ΔΩ) is np.ndarray and Ω.dtype.kind in "fc":
        ΔΩ = ΔΩ.astype(Ω.dtype, copy=False)
    return Ω, ΔΩ


def cumprod_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    opts = _options("cumprod", args, kwargs, ("axis", "dtype", "out"))
    Ω = np.cumprod(x, *args, **kwargs)
    x = plain(x)
    project = ProjectTo(x)
    shape, _ = _shape_dtype(x)
    axis, flat = _scan_setup(x, opts)
    rest = (NO,) * len(args)

    def cumprod_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'cumprod')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        # holomorphic: the pullback is the transpose of the Jacobian at conj(x)
        g = np.broadcast_to(unthunk(ȳ), np.shape(Ω))
        x̄ = _cumprod_vjp(np.conj(_scan_input(x, flat)), np.conj(Ω), g, axis)
        return (NO, project(np.reshape(x̄, shape) if flat else x̄)) + rest
    return Ω, cumprod_pullback


_register([np.cumprod] + _methods("cumprod"), cumprod_frule, cumprod_rrule)


# ----- diff --------------------------------------------------------------------------------------

def _diff_setup(a: Any, args: Any, kwargs: Any) -> Any:
    opts = _options("diff", args, kwargs, ("n", "axis", "prepend", "append"), refuse=())
    n = opts.get("n", 1)
    axis = int(opts.get("axis", -1)) % max(np.ndim(a), 1)
    pre, app = opts.get("prepend", _NOVALUE), opts.get("append", _NOVALUE)
    return n, axis, pre, app


def _edge_len(v: Any, axis: Any) -> Any:
    if v is _NOVALUE:
        return 0
    return 1 if np.ndim(v) == 0 else np.shape(v)[axis]


def _zeros_of(v: Any) -> Any:
    return v if v is _NOVALUE else np.zeros(np.shape(v))


def diff_frule(tangents: Any, a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    Δa = tangents[1]
    if isinstance(Δa, AbstractZero):
        return Ω, ZERO
    return Ω, np.diff(dense(Δa), n, axis, prepend=_zeros_of(pre), append=_zeros_of(app))


def diff_rrule(a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    project = ProjectTo(a)
    length = np.shape(a)[axis] if np.ndim(a) else 0
    start = _edge_len(pre, axis)
    rest = (NO,) * len(args)

    def diff_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'diff')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        g = array_or_traced(unthunk(ȳ))
        for _ in range(n):
            # the adjoint of one difference: c̄ᵢ = gᵢ₋₁ - gᵢ
            g = -np.diff(g, axis=axis, prepend=0, append=0)
        return (NO, project(np.take(g, range(start, start + length), axis=axis))) + rest
    return Ω, diff_pullback


_register([np.diff], diff_frule, diff_rrule)


# ----- ufunc methods: np.add.reduce & co. are sum, prod, max, min, cumsum, cumprod ---------------
# They reduce over axis 0 by default (the functions over all axes); the
# arguments are matched by name and handed to the function's rule.

def _ufunc_method(method: Any, fname: str, rules: tuple[FruleFunction, RruleFunction], names: Any) -> None:
    frule, rrule = rules

    def method_opts(args: Any, kwargs: Any) -> Any:
        opts = dict(zip(names, args))
        opts.update(kwargs)
        opts.setdefault("axis", 0)
        return opts

    def method_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)      # NumPy's own error: accumulate refuses a 0-d array
        return frule(tangents[:2], x, **method_opts(args, kwargs))

    def method_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)
        res = rrule(x, **method_opts(args, kwargs))
        if res is None:
            return None
        Ω, pullback = res
        x = plain(x)
        rest = (NO,) * len(args)

        def method_pullback(ȳ: Any) -> tuple[Any, ...]:
            return pullback(ȳ)[:2] + rest
        return Ω, method_pullback

    register_frule(method)(named_rule(method_frule, fname))
    register_rrule(method)(named_rule(method_rrule, fname))


_REDUCE_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_max_rules, _min_rules = (max_frule, max_rrule), (min_frule, min_rrule)
_prod_rules = (prod_frule, prod_rrule)
for _m, _name, _rules, _names in [
        (np.add.reduce, "add.reduce", (sum_frule, sum_rrule), _REDUCE_ARGS),
        (np.multiply.reduce, "multiply.reduce", _prod_rules, _REDUCE_ARGS),
        (np.maximum.reduce, "maximum.reduce", _max_rules, _REDUCE_ARGS),
        (np.minimum.reduce, "minimum.reduce", _min_rules, _REDUCE_ARGS),
        (np.add.accumulate, "add.accumulate", (cumsum_frule, cumsum_rrule), ("axis", "dtype", "out")),
        (np.multiply.accumulate, "multiply.accumulate", (cumprod_frule, cumprod_rrule), ("axis", "dtype", "out"))]:
    _ufunc_method(_m, _name.replace(".", "_"), _rules, _names)
