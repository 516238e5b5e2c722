"""Rules for the array API standard's reductions and scans, computed with the
namespace of their argument: sum, prod, mean, var, std, max, min,
cumulative_sum, cumulative_prod (`axis` None / int / tuple / negative,
`keepdims`, `dtype`, `correction`, `include_initial`).

The only rules of these functions: registered on every library's, NumPy's
included (numpy/reductions.py, with NumPy's options: initial=, dtype=, ddof).

Conventions:
- prod and cumulative_prod are exact with zeros, with no division by zero:
  one zero in a slice gives that element the product of the others, two or
  more give zeros.
- max/min give the whole cotangent to ONE extreme element per slice, the
  first (what the standard's argmax/argmin pick), written with a one-hot
  comparison (the standard has no scatter).
- var/std: the pullback is 2(x - μ)·Re(ȳ)/(N - correction); std at a constant
  slice (Ω = 0) has cotangent 0 there.
- Options get no tangent; an option the rule cannot honour is a TypeError.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import broadcast_view

from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    along,
    as_seed,
    cast,
    device_kw,
    is_complex,
    is_zero,
    namespace,
    normalize_axes,
    options,
    positional_names,
    register_table,
    zeros,
)
from chainrules._xp import cumulative_prod as _cumprod, cumulative_sum as _cumsum

__all__ = ["register", "TABLE"]


# ----- helpers ------------------------------------------------------------------------------------

def _count(shape: Any, axes: Any) -> Any:
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _reduce(fn: Any, v: Any, axes: Any, keepdims: Any, **kw: Any) -> Any:
    """fn(v, axis=axes) for a non-empty tuple of axes; v itself (cast by
    `dtype=`) for none (some libraries read axis=() as every axis)."""
    if not axes:
        return v
    return fn(v, axis=axes, keepdims=keepdims, **kw)


def _kept_shape(shape: Any, axes: Any) -> tuple[int, ...]:
    """The shape of a reduction over `axes` with keepdims."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _kept(xp: Any, ȳ: Any, shape: Any, axes: Any, keepdims: Any) -> Any:
    """The cotangent of a reduction over `axes` with the reduced axes kept
    (of length 1): it broadcasts against the input."""
    if not keepdims and axes:
        return xp.reshape(ȳ, _kept_shape(shape, axes))
    return ȳ


def _unreduce(xp: Any, ȳ: Any, shape: Any, axes: Any, keepdims: Any) -> Any:
    """The cotangent of a reduction over `axes` spread over the input's shape."""
    ȳ = _kept(xp, ȳ, shape, axes, keepdims)
    if type(ȳ) is np.ndarray:
        return broadcast_view(ȳ, tuple(shape))      # np.broadcast_to, compiled: a read-only view
    return xp.broadcast_to(ȳ, tuple(shape))


def _real_if(xp: Any, v: Any, real: Any) -> Any:
    return xp.real(v) if real and is_complex(xp, v) else v




def _reduction(fname: str, f: Any, names_fallback: Any, known: Any, defaults: Any, body: Any,
               names: Any = None) -> Any:
    """The frule and rrule of a reduction `f`: `body(xp, x, Ω, axes, opts)`
    gives (pushforward(Δx), adjoint(ȳ)) where the adjoint returns the
    cotangent of x before projection.  `names`: the positional options
    after the array, when f's signature does not say (NumPy's methods)."""
    if names is None:
        names = positional_names(f, 1, names_fallback)

    def setup(x: Any, args: Any, kwargs: Any) -> Any:
        Ω = f(x, *args, **kwargs)          # first: the library checks the arguments
        opts = options(fname, names, args, kwargs, known, defaults)
        xp = namespace(x)
        axes = normalize_axes(fname, opts["axis"], x.ndim)
        return xp, Ω, axes, opts

    def reduction_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, Ω, axes, opts = setup(x, args, kwargs)
        Δx = tangents[1]
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        forward, _ = body(xp, x, Ω, axes, opts)
        return Ω, cast(xp, forward(Δx), Ω)

    def reduction_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp, Ω, axes, opts = setup(x, args, kwargs)
        project = Projector(xp, x)
        rest = (NO,) * len(args)

        def reduction_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            _, adjoint = body(xp, x, Ω, axes, opts)
            return (NO, project(adjoint(ȳ))) + rest
        return Ω, reduction_pullback

    return reduction_frule, reduction_rrule


_AXIS = ("axis", "keepdims")            # positional order of PyTorch's builtins (dim, keepdim)
# The options each rule honours (a library's own, as NumPy's initial=, are checked by the
# library's call first); any other given is a TypeError naming it (out=, where=).
_SUM_KNOWN = ("axis", "dtype", "keepdims", "initial")
_SUM_DEFAULTS = {"axis": None, "dtype": None, "keepdims": False, "initial": None}
_MEAN_KNOWN = ("axis", "dtype", "keepdims")
_MEAN_DEFAULTS = {"axis": None, "dtype": None, "keepdims": False}


def _in_dtype(xp: Any, v: Any, like: Any, opts: Any) -> Any:
    """The tangent v in the dtype of `like` when `dtype=` asks for another
    than v's (the primal reduced in that dtype)."""
    return v if opts.get("dtype") is None else cast(xp, v, like)


def _seed_as(xp: Any, ȳ: Any, x: Any) -> Any:
    """The seed in x's dtype (the real part for a real x) before it is
    spread over x's shape: the projection then copies nothing."""
    return ȳ if ȳ.dtype == x.dtype else cast(xp, ȳ, x)


# ----- sum, mean: linear ---------------------------------------------------------------------------
# sum's initial= adds a constant: no change to the derivative.

def _sum_body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
    keepdims = opts["keepdims"]

    def forward(Δx: Any) -> Any:
        return _reduce(xp.sum, _in_dtype(xp, Δx, Ω, opts), axes, keepdims)

    def adjoint(ȳ: Any) -> Any:
        return _unreduce(xp, _seed_as(xp, ȳ, x), x.shape, axes, keepdims)
    return forward, adjoint


def _mean_body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
    keepdims = opts["keepdims"]
    n = max(_count(x.shape, axes), 1)

    def forward(Δx: Any) -> Any:
        return _reduce(xp.mean, _in_dtype(xp, Δx, Ω, opts), axes, keepdims)

    def adjoint(ȳ: Any) -> Any:
        return _unreduce(xp, _seed_as(xp, ȳ / n, x), x.shape, axes, keepdims)
    return forward, adjoint


def sum_rules(f: Any, name: str = "sum", names: Any = None) -> Any:
    return _reduction(name, f, _AXIS, _SUM_KNOWN, _SUM_DEFAULTS, _sum_body, names)


def mean_rules(f: Any, name: str = "mean", names: Any = None) -> Any:
    return _reduction(name, f, _AXIS, _MEAN_KNOWN, _MEAN_DEFAULTS, _mean_body, names)


# ----- prod: exact with zeros ------------------------------------------------------------------------
# ∂Ω/∂xᵢ = ∏_{j≠i} xⱼ, with no division by a zero and differentiable (the
# rule stays right at order 2, where the derivative of a zero matters).  P =
# the product of the non-zeros, Z = that of the zeros (0 in a slice with one,
# but carrying its derivative), S = their sum, n = their count:
#   xᵢ ≠ 0:  Z·P/xᵢ
#   xᵢ = 0:  P when n = 1, (S - xᵢ)·P (the other zero times P) when n = 2,
#            0 when n > 2 (its first derivative is 0 too)
# exact to every order in slices of at most two zeros, to order 2 beyond.  No
# branch on the values: the same `where`s for every slice.

def _prod_partials(xp: Any, x: Any, axes: Any, Ω: Any = None) -> Any:
    """∂Ω/∂x; `Ω`, when given, is the product over `axes` (of x's dtype)."""
    if type(x) is np.ndarray and x.dtype.kind == "f" and axes and np.count_nonzero(x) == x.size:
        # NumPy's fast path: without a zero, Z = 1 and x1 = x, and Z·P/x1 is P/x, P the
        # product Ω when known (tests/rulesets/numpy/test_reductions.py checks it against the body)
        if Ω is None:
            p = np.multiply.reduce(x, axes, keepdims=True)
        else:                               # a product of every element: the number as it is
            p = Ω if Ω.ndim == 0 else Ω.reshape(_kept_shape(x.shape, axes))
        return p / x
    return _prod_partials_body(xp, x, axes)


def _prod_partials_body(xp: Any, x: Any, axes: Any) -> Any:
    zero = x == 0
    one, nil = xp.ones_like(x), xp.zeros_like(x)
    x1 = xp.where(zero, one, x)
    p = _reduce(xp.prod, x1, axes, True)
    z = _reduce(xp.prod, xp.where(zero, x, one), axes, True)
    n = _reduce(xp.sum, xp.where(zero, one, nil), axes, True)
    at_zero = xp.where(n == 1, p * one, xp.where(n == 2, (_reduce(xp.sum, xp.where(zero, x, nil), axes, True) - x) * p,
                                                 nil))
    return xp.where(zero, at_zero, z * p / x1)


def _prod_body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
    keepdims = opts["keepdims"]
    initial = opts.get("initial")          # NumPy's: a constant factor of the product

    product = Ω if initial is None and getattr(Ω, "dtype", None) == x.dtype else None

    def partials() -> Any:
        d = _prod_partials(xp, x, axes, product)
        return d if initial is None else d * initial

    def forward(Δx: Any) -> Any:
        return _reduce(xp.sum, _in_dtype(xp, partials() * Δx, Ω, opts), axes, keepdims)

    def adjoint(ȳ: Any) -> Any:
        d = partials()
        # ȳ broadcast against x by the product itself (d has x's shape; a 0-d ndarray as it is)
        ȳ = ȳ if type(ȳ) is np.ndarray and ȳ.ndim == 0 else _kept(xp, ȳ, x.shape, axes, keepdims)
        return xp.multiply(ȳ, xp.conj(d) if is_complex(xp, d) else d)
    return forward, adjoint


def prod_rules(f: Any, name: str = "prod", names: Any = None) -> Any:
    return _reduction(name, f, _AXIS, _SUM_KNOWN, _SUM_DEFAULTS, _prod_body, names)


# ----- var, std ----------------------------------------------------------------------------------------
# var = Σ|x - μ|²/(N - c): the terms through μ cancel (Σ(x - μ) = 0), so the
# pullback is 2(x - μ)·Re(ȳ)/(N - c); std = √var divides by 2Ω.

def _var_jvp(xp: Any, d: Any, Δx: Any, axes: Any, keepdims: Any, dof: Any) -> Any:
    t = xp.real(xp.conj(d) * Δx) if is_complex(xp, d) else d * Δx
    return _reduce(xp.sum, t, axes, keepdims) * (2 / dof if dof else float("nan"))


def _deviation(xp: Any, x: Any, axes: Any) -> Any:
    """x - mean(x) over `axes`."""
    if type(x) is np.ndarray and x.dtype.kind in "fc" and x.dtype.itemsize > 2 and axes and x.size:
        # np.mean's own arithmetic (the sum, divided by the count) without its Python layer
        return x - np.add.reduce(x, axes, keepdims=True) / _count(x.shape, axes)
    return x - _reduce(xp.mean, x, axes, True)


def _var_body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
    keepdims = opts["keepdims"]
    dof = _count(x.shape, axes) - opts["correction"]

    def forward(Δx: Any) -> Any:
        return _var_jvp(xp, _deviation(xp, x, axes), Δx, axes, keepdims, dof)

    def adjoint(ȳ: Any) -> Any:
        scale = _real_if(xp, ȳ, True) * (2 / dof if dof else float("nan"))
        return _deviation(xp, x, axes) * _kept(xp, scale, x.shape, axes, keepdims)
    return forward, adjoint


def _std_body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
    keepdims = opts["keepdims"]
    dof = _count(x.shape, axes) - opts["correction"]

    def over(v: Any) -> Any:
        """v / Ω, and 0 where Ω = 0 (a constant slice)."""
        if type(Ω) is np.ndarray and np.count_nonzero(Ω) == Ω.size:
            return v / Ω                    # no zero: what the where below gives, bit for bit
        at0 = Ω == 0
        return xp.where(at0, xp.zeros_like(v), xp.divide(v, xp.where(at0, xp.ones_like(Ω), Ω)))

    def forward(Δx: Any) -> Any:
        return over(_var_jvp(xp, _deviation(xp, x, axes), Δx, axes, keepdims, dof) / 2)

    def adjoint(ȳ: Any) -> Any:
        scale = over(_real_if(xp, ȳ, True)) * (1 / dof if dof else float("nan"))
        return _deviation(xp, x, axes) * _kept(xp, scale, x.shape, axes, keepdims)
    return forward, adjoint


# NumPy's dtype= computes in that dtype: the derivative is computed in x's, cast to Ω's
_VAR_KNOWN = ("axis", "correction", "keepdims", "dtype")
_VAR_DEFAULTS = {"axis": None, "correction": 0.0, "keepdims": False, "dtype": None}


def var_rules(f: Any, name: str = "var", names: Any = None) -> Any:
    return _reduction(name, f, _AXIS, _VAR_KNOWN, _VAR_DEFAULTS, _var_body, names)


def std_rules(f: Any, name: str = "std", names: Any = None) -> Any:
    return _reduction(name, f, _AXIS, _VAR_KNOWN, _VAR_DEFAULTS, _std_body, names)


# ----- max, min: the cotangent goes to the first extreme element ------------------------------------

def _to_last(xp: Any, x: Any, axes: Any) -> Any:
    """x with `axes` moved to the end and flattened into one: (kept..., K),
    and the permutation used."""
    nd = x.ndim
    keep = [a for a in range(nd) if a not in axes]
    order = tuple(keep + list(axes))
    xt = xp.permute_dims(x, order) if order != tuple(range(nd)) else x
    kept = tuple(x.shape[a] for a in keep)
    return xp.reshape(xt, kept + (_count(x.shape, axes),)), order


def _from_last(xp: Any, v: Any, shape: Any, order: Any) -> Any:
    """Undo `_to_last` for an array of the input's size."""
    v = xp.reshape(v, tuple(shape[a] for a in order))
    if order == tuple(range(len(order))):
        return v
    inverse = tuple(sorted(range(len(order)), key=order.__getitem__))
    return xp.permute_dims(v, inverse)


def _first_extreme(xp: Any, x: Any, axes: Any, arg: Any) -> Any:
    """(x as (kept..., K), a one-hot mask of the first extreme element of
    each slice, the permutation)."""
    xt, order = _to_last(xp, x, axes)
    k = arg(xt, axis=-1)
    mask = xp.arange(xt.shape[-1], **device_kw(xp, x)) == xp.expand_dims(k, axis=-1)
    return xt, mask, order


def _chooser_body(arg_of: Any) -> Any:
    """The body of max/min: `arg_of(xp)` is the function choosing the index
    in each slice (xp.argmax, ...).  NumPy's initial= is a constant in the
    comparison: where it wins (the chosen element is not the result) the
    derivative is zero; ties go to x.  A slice of nothing (only with
    initial=) has derivative zero."""
    def body(xp: Any, x: Any, Ω: Any, axes: Any, opts: Any) -> Any:
        initial = opts.get("initial")
        arg = arg_of(xp)
        if _count(x.shape, axes) == 0:
            return (lambda Δx: zeros(xp, Ω.shape, Ω)), (lambda ȳ: xp.zeros_like(x))

        def extreme() -> Any:
            xt, mask, order = _first_extreme(xp, x, axes, arg)
            if initial is not None:
                chosen = xp.sum(xp.where(mask, xt, xp.zeros_like(xt)), axis=-1, keepdims=True)
                mask = xp.logical_and(mask, chosen == xp.reshape(Ω, tuple(chosen.shape)))
            return xt, mask, order

        def forward(Δx: Any) -> Any:
            _, mask, _ = extreme()
            Δt, _ = _to_last(xp, xp.broadcast_to(Δx, tuple(x.shape)), axes)
            ΔΩ = xp.sum(xp.where(mask, Δt, xp.zeros_like(Δt)), axis=-1)
            return xp.reshape(ΔΩ, tuple(Ω.shape))

        def adjoint(ȳ: Any) -> Any:
            xt, mask, order = extreme()
            g = xp.expand_dims(xp.reshape(cast(xp, ȳ, x), tuple(xt.shape[:-1])), axis=-1)
            x̄t = xp.where(mask, g, xp.zeros_like(xt))
            return _from_last(xp, x̄t, x.shape, order)
        return forward, adjoint
    return body


_MAX_KNOWN = ("axis", "keepdims", "initial")
_MAX_DEFAULTS = {"axis": None, "keepdims": False, "initial": None}


def chooser_rules(f: Any, name: str, arg_of: Any, names: Any = None) -> Any:
    """The rules of a reduction choosing one element per slice (max, min,
    NumPy's nanmax...): `arg_of(xp)` picks its index."""
    return _reduction(name, f, _AXIS, _MAX_KNOWN, _MAX_DEFAULTS, _chooser_body(arg_of), names)


def max_rules(f: Any, name: str = "max", names: Any = None) -> Any:
    return chooser_rules(f, name, lambda xp: xp.argmax, names)


def min_rules(f: Any, name: str = "min", names: Any = None) -> Any:
    return chooser_rules(f, name, lambda xp: xp.argmin, names)


# ----- cumulative_sum, cumulative_prod ----------------------------------------------------------------

def _scan_axis(fname: str, x: Any, axis: Any) -> Any:
    """The scan's axis; None: the flattened array's (NumPy's cumsum; the
    standard's cumulative_sum requires an axis beyond one dimension, which
    the library's own function, called first, has said)."""
    if axis is None:
        return 0
    return normalize_axes(fname, axis, x.ndim)[0]


def _scan_rules(f: Any, name: str, body: Any) -> Any:
    """The frule and rrule of a scan `f` (the standard's include_initial;
    NumPy's axis=None scanning the flattened array, a 0-d array scanned as a
    1-d one whatever its axis, dtype=): `body(xp, x, Ω, axis)` gives
    (pushforward(Δx), adjoint(g)) of the scan of x along `axis` (x and Δx
    flattened when the scan is; Ω the scan without include_initial's first
    element)."""
    names = positional_names(f, 1, ("axis",))
    known = ("axis", "dtype", "include_initial")
    defaults = {"axis": None, "dtype": None, "include_initial": False}

    def setup(x: Any, args: Any, kwargs: Any) -> Any:
        Ω = f(x, *args, **kwargs)
        opts = options(name, names, args, kwargs, known, defaults)
        initial = bool(opts["include_initial"])
        if x.ndim == 0:             # NumPy scans a 0-d array as a 1-d one, whatever its axis
            return namespace(x), Ω, 0, initial, True
        flat = opts["axis"] is None and x.ndim != 1
        return namespace(x), Ω, _scan_axis(name, x, opts["axis"]), initial, flat

    def prepare(xp: Any, x: Any, Ω: Any, axis: Any, initial: Any, flat: Any) -> Any:
        return body(xp, xp.reshape(x, (-1,)) if flat else x, Ω[along(axis, slice(1, None))] if initial else Ω, axis)

    def scan_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, Ω, axis, initial, flat = setup(x, args, kwargs)
        Δx = tangents[1]
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        Δx = xp.broadcast_to(Δx, tuple(x.shape))
        forward, _ = prepare(xp, x, Ω, axis, initial, flat)
        ΔΩ = forward(xp.reshape(Δx, (-1,)) if flat else Δx)
        if initial:
            shape = list(ΔΩ.shape)
            shape[axis] = 1
            ΔΩ = xp.concat([zeros(xp, shape, ΔΩ), ΔΩ], axis=axis)
        return Ω, cast(xp, ΔΩ, Ω)

    def scan_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp, Ω, axis, initial, flat = setup(x, args, kwargs)
        project = Projector(xp, x)
        rest = (NO,) * len(args)

        def scan_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            g = xp.broadcast_to(ȳ, tuple(Ω.shape))
            if initial:
                g = g[along(axis, slice(1, None))]
            _, adjoint = prepare(xp, x, Ω, axis, initial, flat)
            x̄ = adjoint(g)
            return (NO, project(xp.reshape(x̄, tuple(x.shape)) if flat else x̄)) + rest
        return Ω, scan_pullback

    return scan_frule, scan_rrule


def _reverse_cumsum(xp: Any, g: Any, axis: Any) -> Any:
    """Σ_{k ≥ i} g_k along `axis`: a cumulative sum from the end."""
    return xp.flip(_cumsum(xp, xp.flip(g, axis=axis), axis), axis=axis)


def _cumsum_body(xp: Any, x: Any, Ω: Any, axis: Any) -> Any:
    return (lambda Δx: _cumsum(xp, Δx, axis)), (lambda g: _reverse_cumsum(xp, g, axis))


def cumulative_sum_rules(f: Any, name: str = "cumulative_sum") -> Any:
    """Also NumPy's cumsum (axis=None: the flattened array; dtype=)."""
    return _scan_rules(f, name, _cumsum_body)


# ∂y_k/∂x_i = ∏_{j ≤ k, j ≠ i} x_j (i ≤ k): without zeros y_k/x_i; with zeros,
# computed as prod's partials are, with no division by them and
# differentiably (right at order 2, where the derivative of a zero matters):
# x1 = x with its zeros replaced by ones, y1 = its cumulative product, zc =
# that of the zeros alone (0 once a zero is passed, with its derivative), nz
# = how many zeros up to k, Sx = their running sum:
#   x_i ≠ 0:  ∂y_k/∂x_i = zc_k·y1_k/x1_i
#   x_i = 0:  y1_k when nz_k = 1, y1_k·(Sx_k - x_i) (the other zero) when
#             nz_k = 2, else 0 (its first derivative is 0 too: exact to order
#             2, and to every order while a slice holds at most two zeros).
# Holomorphic: the adjoint is the transpose of the Jacobian at conj(x).  Values of x
# first in each product (a tracked x, the rule differentiated, then does the arithmetic:
# a plain array of some libraries refuses a tracked operand).

def _cumprod_body(xp: Any, x: Any, Ω: Any, axis: Any) -> Any:
    def parts(x: Any) -> Any:
        zero = x == 0
        one, nil = xp.ones_like(x), xp.zeros_like(x)
        x1 = xp.where(zero, one, x)
        xz = xp.where(zero, x, nil)
        return (zero, nil, x1, _cumprod(xp, x1, axis), _cumprod(xp, xp.where(zero, x, one), axis),
                _cumsum(xp, xp.where(zero, one, nil), axis), xz, _cumsum(xp, xz, axis))

    def forward(Δx: Any) -> Any:
        if fast:        # NumPy's fast path: no zero, what the formulas below give
            return Ω * np.cumsum(Δx / x, axis=axis)
        zero, nil, x1, y1, zc, nz, xz, Sx = parts(x)
        Δz = xp.where(zero, Δx, nil)
        SΔ = _cumsum(xp, Δz, axis)
        at_zeros = xp.where(nz == 1, SΔ, xp.where(nz == 2, Sx * SΔ - _cumsum(xp, xz * Δz, axis), nil))
        return y1 * (zc * _cumsum(xp, xp.where(zero, nil, xp.divide(Δx, x1)), axis) + at_zeros)

    def adjoint(g: Any) -> Any:
        c = is_complex(xp, x)
        if fast:
            return _reverse_cumsum(xp, (np.conj(Ω) if c else Ω) * g, axis) / (np.conj(x) if c else x)
        zero, nil, x1, y1, zc, nz, xz, Sx = parts(xp.conj(x) if c else x)
        gy = y1 * g
        two = xp.where(nz == 2, gy, nil)
        at_zeros = (_reverse_cumsum(xp, xp.where(nz == 1, gy, nil), axis) + _reverse_cumsum(xp, two * Sx, axis)
                    - xz * _reverse_cumsum(xp, two, axis))
        return xp.where(zero, at_zeros, _reverse_cumsum(xp, gy * zc, axis) / x1)

    fast = (type(x) is np.ndarray and x.dtype.kind in "fc" and Ω.dtype == x.dtype
            and np.count_nonzero(x) == x.size)
    return forward, adjoint


def cumulative_prod_rules(f: Any, name: str = "cumulative_prod") -> Any:
    """Also NumPy's cumprod (axis=None: the flattened array; dtype=): exact
    with zeros, no division by them."""
    return _scan_rules(f, name, _cumprod_body)


# ----- the table --------------------------------------------------------------------------------------

TABLE = {
    "sum": sum_rules,
    "prod": prod_rules,
    "mean": mean_rules,
    "var": var_rules,
    "std": std_rules,
    "max": max_rules,
    "min": min_rules,
    "cumulative_sum": cumulative_sum_rules,
    "cumulative_prod": cumulative_prod_rules,
}


def register(functions: Any) -> Any:
    """Register the reductions' rules on the functions of these names in
    `functions` (an array namespace, or a dict {standard name: function});
    returns the names registered."""
    return register_table(TABLE, functions)
