"""Rules for NumPy's order statistics (sum, mean, var, std, average… are in
reductions.py and averages.py, cov and corrcoef in covariance.py): median,
quantile, percentile and their nan-versions (nanmedian, nanquantile,
nanpercentile).

- median/quantile/percentile select (or interpolate between) order
  statistics, so the derivative goes to the selected elements: with the
  default method 'linear' the q-quantile of n values is
  (1−γ)·v₍ₖ₎ + γ·v₍ₖ₊₁₎ with k + γ = q·(n−1), and the derivative is split
  between those two elements; 'lower', 'higher', 'nearest' and 'midpoint'
  give it to the element(s) they pick.  Ties go to the element the (stable)
  sort puts first.  q has a derivative too: (n−1)·(v₍ₖ₊₁₎ − v₍ₖ₎) for
  'linear' (divided by 100 for percentile), zero for the other methods.
  Other methods and `weights=` raise an error naming the argument.
  The nan-versions work on each slice's non-NaN values (their count per
  slice replaces n): NaN entries get a zero derivative, and an all-NaN
  slice, whose value is NaN as in NumPy, a zero derivative.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
    Thunk,
    is_traced,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    reject_out,
    zero_for as _zero_for,
    seed,
    register as _register,
)
from chainrules.rulesets._arrays import value_of as _value
from chainrules.rulesets.array_api._common import _NOVALUE


# ----- order statistics ---------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


class _OrderStat:
    """The elements a quantile reads: for every kept position and every q,
    the flat indices (along the reduced axes) of the lower and upper order
    statistics and the weight γ of the upper one.  The choices (which
    elements, the nan counts) are read off the values; a tracked `a` or `q`
    (the rule differentiated by an AD) stays tracked where the
    result depends on it: the elements themselves (`dq`) and γ (linear)."""

    def __init__(self, fname: str, a: Any, q: Any, axis: Any, method: Any, keepdims: Any, nan: Any = False) -> None:
        if method not in _METHODS:
            raise ValueError(f"{fname}: the rule differentiates method in {_METHODS}, not method={method!r}")
        a_in, q_in = a, q
        a = _value(a)
        self.shape = a.shape
        nd = a.ndim
        if axis is None:
            axes = tuple(range(nd))
        else:
            axes = tuple(sorted(int(i) % nd for i in ((axis,) if np.ndim(axis) == 0 else axis)))
        self.axes = axes
        self.keep = [i for i in range(nd) if i not in axes]
        self.perm = self.keep + list(axes)
        self.kept_shape = tuple(a.shape[i] for i in self.keep)
        self.keepdims = keepdims is not _NOVALUE and bool(keepdims)
        n = self.n = int(np.prod([a.shape[i] for i in axes], dtype=np.intp))
        at = self.flat(a)
        self.q = np.asarray(_value(q), dtype=float)
        # the number of values each slice has: n, or (nan-functions) its
        # non-NaN count, per slice; NaN sorts last, so the order statistics
        # of the non-NaN values are the first `count` of the sorted slice
        self.valid = None
        if nan and n > 0:
            count = np.sum(~np.isnan(at), axis=-1, keepdims=True)      # kept_shape + (1,)
            self.valid = count > 0          # all-NaN slices: NaN primal, zero derivative
        else:
            count = n
        self.count = count
        vi = (count - 1) * self.q.ravel()
        lo = np.floor(vi)
        if method == "linear":
            # γ = vi - ⌊vi⌋: with q tracked, so is γ (lo is a choice)
            g = vi - lo if not is_traced(q_in) else (count - 1) * np.ravel(q_in) - lo
        elif method == "lower":
            g = np.zeros_like(vi)
        elif method == "higher":
            lo, g = np.ceil(vi), np.zeros_like(vi)
        elif method == "nearest":
            lo, g = np.around(vi), np.zeros_like(vi)
        else:  # midpoint
            g = np.where(vi == lo, 0.0, 0.5)
        top = np.maximum(count - 1, 0)
        lo = np.clip(lo, 0, top).astype(np.intp)
        hi = np.minimum(lo + 1, top)
        if self.valid is not None:
            g = np.where(self.valid, g, 0.0)
        self.gamma = g
        self.linear = method == "linear" and n > 0
        if n == 0:      # quantiles of nothing (NaN): no element to differentiate
            order = np.zeros(self.kept_shape + (1,), dtype=np.intp)
            self.gamma = np.zeros_like(g)
            self.at = at = np.zeros(self.kept_shape + (1,), dtype=at.dtype)
        else:
            order = np.argsort(at, axis=-1, kind="stable")
            if is_traced(a_in):
                at = self.flat(a_in)
        if np.ndim(lo) > 1:                     # per-slice positions (nan-functions)
            self.ilo = np.take_along_axis(order, lo, -1)
            self.ihi = np.take_along_axis(order, hi, -1)
        else:
            self.ilo = order[..., lo]                 # kept_shape + (Q,)
            self.ihi = order[..., hi]
        self.at = at

    def flat(self, x: Any) -> Any:
        """x with the kept axes first and the reduced ones flattened last."""
        x = x if is_traced(x) else np.asarray(x)
        return np.reshape(np.transpose(x, self.perm), self.kept_shape + (self.n,))

    def arrange(self, v: Any) -> Any:
        """kept_shape + (Q,) -> the output layout q.shape + result shape."""
        v = np.moveaxis(v, -1, 0).reshape(self.q.shape + self.kept_shape)
        if self.keepdims:
            v = np.expand_dims(v, tuple(self.q.ndim + i for i in self.axes))
        return v

    def unarrange(self, ȳ: Any) -> Any:
        """The inverse of `arrange`: output layout -> kept_shape + (Q,)."""
        ȳ = ȳ if is_traced(ȳ) else np.asarray(ȳ)
        if self.keepdims:
            ȳ = np.squeeze(ȳ, axis=tuple(self.q.ndim + i for i in self.axes))
        ȳ = np.reshape(ȳ, (self.q.size,) + self.kept_shape)
        return np.moveaxis(ȳ, 0, -1)

    def push(self, ȧ: Any) -> Any:
        """The tangent of the quantiles for the input tangent ȧ."""
        if self.n == 0:
            return self.arrange(np.zeros(self.kept_shape + (self.q.size,), dtype=np.asarray(ȧ).dtype))
        t = self.flat(ȧ)
        v = (1 - self.gamma) * np.take_along_axis(t, self.ilo, -1) + self.gamma * np.take_along_axis(t, self.ihi, -1)
        if self.valid is not None:
            v = np.where(self.valid, v, 0)
        return self.arrange(v)

    def dq(self) -> Any:
        """∂(quantile)/∂q, in layout kept_shape + (Q,) (None: zero)."""
        if not self.linear:
            return None
        d = (self.count - 1) * (np.take_along_axis(self.at, self.ihi, -1)
                                - np.take_along_axis(self.at, self.ilo, -1))
        return d if self.valid is None else np.where(self.valid, d, 0.0)

    def pull(self, ȳ: Any) -> Any:
        """ā for the cotangent ȳ of the quantiles (repeated picks accumulate)."""
        if self.n == 0:
            return np.zeros(self.shape)
        v = self.unarrange(ȳ)
        if self.valid is not None:
            v = np.where(self.valid, v, 0)
        if is_traced(v) or is_traced(self.gamma):
            return self._pull_tracked(v)
        nrows, nq = int(np.prod(self.kept_shape, dtype=np.intp)), self.q.size
        rows = np.arange(nrows)[:, None] * self.n
        idx = np.concatenate([(self.ilo.reshape(nrows, nq) + rows).ravel(),
                              (self.ihi.reshape(nrows, nq) + rows).ravel()])
        w = np.concatenate([((1 - self.gamma) * v).ravel(), (self.gamma * v).ravel()])
        ā = np.bincount(idx, weights=w.real, minlength=nrows * self.n)
        if w.dtype.kind == "c":     # the median of complex numbers (in NumPy's lexicographic order)
            ā = ā + 1j * np.bincount(idx, weights=w.imag, minlength=nrows * self.n)
        return self._unflat(ā)

    def _unflat(self, ā: Any) -> Any:
        """The inverse of `flat`: kept_shape + (n,) -> a's shape."""
        inv = np.argsort(self.perm)
        return np.transpose(np.reshape(ā, self.kept_shape + tuple(self.shape[i] for i in self.axes)), inv)

    def _pull_tracked(self, v: Any) -> Any:
        """`pull` differentiably, for a tracked γ or cotangent: each q's two
        weights placed with one-hot masks (size × Q: only in a rule
        differentiated), instead of np.bincount, which has no derivative."""
        positions = np.arange(self.n)
        lo = np.expand_dims(self.ilo, -1) == positions        # kept_shape + (Q, n)
        hi = np.expand_dims(self.ihi, -1) == positions
        w_lo = np.expand_dims((1 - self.gamma) * v, -1)
        w_hi = np.expand_dims(self.gamma * v, -1)
        return self._unflat(np.sum(np.where(lo, w_lo, 0) + np.where(hi, w_hi, 0), axis=-2))


_QUANTILE_SPEC = (("axis", None), ("out", None), ("overwrite_input", False), ("method", "linear"),
                  ("keepdims", False))


def _quantile_options(fname: str, rest: Any, kw: Any, spec: Any = _QUANTILE_SPEC) -> Any:
    reject_out(fname, kw, "weights", "interpolation")
    if len(rest) > len(spec):
        raise TypeError(f"{fname}: too many positional arguments")
    opts = {k: (rest[i] if i < len(rest) else kw.get(k, d)) for i, (k, d) in enumerate(spec)}
    if opts["out"] is not None:
        raise TypeError(f"{fname}: the rule cannot honour the argument out=; call the primal without it")
    return opts


def _quantile_frule(fname: str, fn: Any, scale: Any, tangents: Any, a: Any, q: Any, rest: Any, kw: Any, nan: Any = False) -> tuple[Any, Any]:
    o = _quantile_options(fname, rest, kw)
    y = fn(a, q, *rest, **kw)
    ȧ, q̇ = unthunk(tangents[1]), unthunk(tangents[2])
    if _value(a).dtype.kind != "f":
        ȧ = ZERO
    if _zero(ȧ) and _zero(q̇):
        return y, ZERO
    st = _OrderStat(fname, a, _scaled(q, scale), o["axis"], o["method"], o["keepdims"], nan)
    ẏ = ZERO if _zero(ȧ) else st.push(ȧ)
    dq = st.dq()
    if not _zero(q̇) and dq is not None:
        ẏ = _add(ẏ, st.arrange(dq * (np.asarray(q̇, dtype=float).ravel() / scale)))
    if not _zero(ẏ) and not is_traced(ẏ):
        # a scalar ẏ (a float64 from the q part) takes y's dtype too (issue 11)
        ẏ = np.asarray(ẏ).astype(np.result_type(y), copy=False)
        if not isinstance(y, np.ndarray):   # a 0-d result is a scalar unless keepdims kept it an array
            ẏ = ẏ[()]
    return y, ẏ


def _scaled(q: Any, scale: Any) -> Any:
    """q as a fraction (percentile: q/100); a tracked q stays tracked."""
    return q / scale if is_traced(q) else np.asarray(q) / scale


def _add(x: Any, y: Any) -> Any:
    if _zero(x):
        return y
    if _zero(y):
        return x
    return x + y


def _quantile_rrule(fname: str, fn: Any, scale: Any, a: Any, q: Any, rest: Any, kw: Any, nan: Any = False) -> tuple[Any, Pullback]:
    o = _quantile_options(fname, rest, kw)
    pa, pq = ProjectTo(a), ProjectTo(q)
    y = fn(a, q, *rest, **kw)
    st = _OrderStat(fname, a, _scaled(q, scale), o["axis"], o["method"], o["keepdims"], nan)
    nrest = (NO,) * len(rest)

    def quantile_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, fname)
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pq)) + nrest
        ā = Thunk(lambda: pa(st.pull(ȳ))) if pa.kind else NO
        dq = st.dq()
        q̄: Any
        if not pq.kind:
            q̄ = NO
        elif dq is None:
            q̄ = ZERO
        else:
            v = st.unarrange(ȳ) * dq
            q̄ = np.reshape(np.sum(np.reshape(v, (-1, st.q.size)), axis=0), st.q.shape) / scale
            # a tracked q̄ (the pullback differentiated) of a plain q: real, unprojected (a float's
            # projection would convert it)
            q̄ = np.real(q̄) if is_traced(q̄) and not is_traced(q) else pq(q̄)
        return (NO, ā, q̄) + nrest

    return y, quantile_pullback


# =============================================================================
# quantile
# =============================================================================

def quantile_frule(tangents: Any, a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _quantile_frule("numpy.quantile", np.quantile, 1, tangents, a, q, rest, kw)


def quantile_rrule(a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _quantile_rrule("numpy.quantile", np.quantile, 1, a, q, rest, kw)


# =============================================================================
# percentile
# =============================================================================

def percentile_frule(tangents: Any, a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _quantile_frule("numpy.percentile", np.percentile, 100, tangents, a, q, rest, kw)


def percentile_rrule(a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _quantile_rrule("numpy.percentile", np.percentile, 100, a, q, rest, kw)


# =============================================================================
# median (the linear 0.5-quantile)
# =============================================================================

_MEDIAN_SPEC = (("axis", None), ("out", None), ("overwrite_input", False), ("keepdims", False))


def _median_frule(fname: str, fn: Any, nan: Any, tangents: Any, a: Any, rest: Any, kw: Any) -> tuple[Any, Any]:
    o = _quantile_options(fname, rest, kw, _MEDIAN_SPEC)
    y = fn(a, *rest, **kw)
    ȧ = unthunk(tangents[1])
    if _zero(ȧ) or _value(a).dtype.kind not in "fc":
        return y, ZERO
    ẏ = _OrderStat(fname, a, 0.5, o["axis"], "linear", o["keepdims"], nan).push(ȧ)
    if is_traced(ẏ):
        return y, ẏ
    ẏ = np.asarray(ẏ, dtype=np.result_type(y))
    return y, (ẏ if isinstance(y, np.ndarray) else ẏ[()])


def _median_rrule(fname: str, fn: Any, nan: Any, a: Any, rest: Any, kw: Any) -> tuple[Any, Pullback]:
    o = _quantile_options(fname, rest, kw, _MEDIAN_SPEC)
    pa = ProjectTo(a)
    y = fn(a, *rest, **kw)
    st = _OrderStat(fname, a, 0.5, o["axis"], "linear", o["keepdims"], nan)
    nrest = (NO,) * len(rest)

    def median_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'median')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or not pa.kind:
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(st.pull(ȳ)))) + nrest

    return y, median_pullback


def median_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _median_frule("numpy.median", np.median, False, tangents, a, rest, kw)


def median_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _median_rrule("numpy.median", np.median, False, a, rest, kw)


# =============================================================================
# nanmedian, nanquantile, nanpercentile: the same over each slice's non-NaN
# values; NaN entries get a zero derivative, and an all-NaN slice (NaN, as in
# NumPy) a zero one
# =============================================================================

def nanmedian_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _median_frule("numpy.nanmedian", np.nanmedian, True, tangents, a, rest, kw)


def nanmedian_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _median_rrule("numpy.nanmedian", np.nanmedian, True, a, rest, kw)


def nanquantile_frule(tangents: Any, a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _quantile_frule("numpy.nanquantile", np.nanquantile, 1, tangents, a, q, rest, kw, nan=True)


def nanquantile_rrule(a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _quantile_rrule("numpy.nanquantile", np.nanquantile, 1, a, q, rest, kw, nan=True)


def nanpercentile_frule(tangents: Any, a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    return _quantile_frule("numpy.nanpercentile", np.nanpercentile, 100, tangents, a, q, rest, kw, nan=True)


def nanpercentile_rrule(a: Any, q: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    return _quantile_rrule("numpy.nanpercentile", np.nanpercentile, 100, a, q, rest, kw, nan=True)


# np.matrix arguments: the rules run on the plain arrays (see _arrays.matrix_safe)
for _f, _fr, _rr, _types in (
        (np.quantile, quantile_frule, quantile_rrule, (object, object, ...)),
        (np.percentile, percentile_frule, percentile_rrule, (object, object, ...)),
        (np.median, median_frule, median_rrule, (object, ...)),
        (np.nanmedian, nanmedian_frule, nanmedian_rrule, (object, ...)),
        (np.nanquantile, nanquantile_frule, nanquantile_rrule, (object, object, ...)),
        (np.nanpercentile, nanpercentile_frule, nanpercentile_rrule, (object, object, ...))):
    _register([_f], _fr, _rr, *_types)
