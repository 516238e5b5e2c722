"""Rules for NumPy's covariance and correlation: cov and corrcoef (the order
statistics, median, quantile, percentile and their nan-versions, are in
statistics.py).

- cov: C = X_c W X_cᴴ / f (X_c the weighted-centred rows, W = diag(weights),
  f the normalisation); the weights are constants (keyword arguments never
  get tangents).  corrcoef: R = C / √(dᵢ dⱼ), d = diag C, through cov."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import ProjectTo, Thunk, is_traced, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    once as _once,
    zero_for as _zero_for,
    seed,
    plain,
)
from chainrules.rulesets._arrays import value_of as _value

# ----- covariance -----------------------------------------------------------------

_COV_SPEC = (("y", None), ("rowvar", True), ("bias", False), ("ddof", None), ("fweights", None),
             ("aweights", None))


class _Cov:
    """NumPy's cov, taken apart: the stacked variables X (rows), the weights
    w, their sum and the normalisation `fact`; and how X splits back into
    the arguments m and y.  Written with NumPy's functions only (no
    indexing, methods or conversions of the data), so that a tracked m or y
    (the rule differentiated by an AD) stays tracked."""

    def __init__(self, m: Any, opts: Any, dtype: Any) -> None:
        y, rowvar = opts["y"], opts["rowvar"]
        if dtype is None:
            dtype = np.result_type(_value(m), np.float64) if y is None else \
                np.result_type(_value(m), _value(y), np.float64)
        self.dtype = dtype
        self.rowvar = rowvar
        self.m_shape = np.shape(m)
        self.y_shape = None if y is None else np.shape(y)
        X = self.rows(m)
        self.nm = np.shape(X)[0]
        if y is not None:
            X = np.concatenate((X, self.rows(y)), axis=0)
        ddof = opts["ddof"]
        if ddof is None:
            ddof = 0 if opts["bias"] else 1
        fw, aw = opts["fweights"], opts["aweights"]
        w = None
        if fw is not None:
            w = np.asarray(fw, dtype=float)
        if aw is not None:
            aw = np.asarray(aw, dtype=float)
            w = aw if w is None else w * aw
        n = np.shape(X)[1]
        self.w = np.ones(n) if w is None else w
        self.w_sum = self.w.sum()
        if w is None:
            fact = n - ddof
        elif ddof == 0:
            fact = self.w_sum
        elif aw is None:
            fact = self.w_sum - ddof
        else:
            fact = self.w_sum - ddof * np.sum(w * aw) / self.w_sum
        self.fact = max(fact, 0.0)
        self.Xc = self.centre(X)

    def rows(self, v: Any) -> Any:
        if is_traced(v):
            X = np.reshape(v, (1, -1)) if np.ndim(v) < 2 else v
        else:
            X = np.array(v, ndmin=2, dtype=self.dtype)
        if not self.rowvar and np.shape(X)[0] != 1:
            X = np.transpose(X)
        return X

    def centre(self, X: Any) -> Any:
        return X - _col(np.matmul(X, self.w)) / self.w_sum

    def push(self, ṁ: Any, ẏ: Any) -> Any:
        V, n = np.shape(self.Xc)
        parts = [np.zeros((self.nm, n), self.dtype) if _zero(ṁ) else self.rows(ṁ)]
        if self.y_shape is not None:
            parts.append(np.zeros((V - self.nm, n), self.dtype) if _zero(ẏ) else self.rows(ẏ))
        Ẋc = self.centre(np.concatenate(parts, axis=0))
        XW = self.Xc * self.w
        return (np.matmul(Ẋc, _H(XW)) + np.matmul(XW, _H(Ẋc))) / self.fact

    def pull(self, C̄: Any) -> Any:
        V = np.shape(self.Xc)[0]
        C̄ = np.reshape(C̄ if is_traced(C̄) else np.asarray(C̄), (V, V))
        Y = np.matmul(C̄ + _H(C̄), self.Xc * self.w) / self.fact
        X̄ = Y - np.sum(Y, axis=1, keepdims=True) * self.w / self.w_sum
        if self.y_shape is None:
            return self.unrows(X̄, self.m_shape), None
        X̄m, X̄y = np.split(X̄, [self.nm], axis=0)
        return self.unrows(X̄m, self.m_shape), self.unrows(X̄y, self.y_shape)

    def unrows(self, X̄: Any, shape: Any) -> Any:
        shape2 = (1,) * (2 - len(shape)) + tuple(shape)
        if not self.rowvar and shape2[0] != 1:
            X̄ = np.transpose(X̄)
        return np.reshape(X̄, shape)


def _col(v: Any) -> Any:
    return np.expand_dims(v, 1)


def _H(X: Any) -> Any:
    """The conjugate transpose of a matrix."""
    return np.conj(np.transpose(X))


def _cov_options(fname: str, rest: Any, kw: Any) -> Any:
    opts = {k: (rest[i] if i < len(rest) else kw.get(k, d)) for i, (k, d) in enumerate(_COV_SPEC)}
    return opts, kw.get("dtype")


# =============================================================================
# cov
# =============================================================================

@register_frule(np.cov, object, ...)
def cov_frule(tangents: Any, m: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    opts, dtype = _cov_options("numpy.cov", rest, kw)
    c = np.cov(m, *rest, **kw)
    ṁ = unthunk(tangents[1])
    ẏ = unthunk(tangents[2]) if len(tangents) > 2 else ZERO
    if _zero(ṁ) and _zero(ẏ):
        return c, ZERO
    cv = _Cov(m, opts, dtype)
    Ċ = np.reshape(cv.push(ṁ, ẏ), np.shape(c))
    return c, Ċ if is_traced(Ċ) else Ċ.astype(np.result_type(c), copy=False)


@register_rrule(np.cov, object, ...)
def cov_rrule(m: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    opts, dtype = _cov_options("numpy.cov", rest, kw)
    pm = ProjectTo(m)
    py = ProjectTo(opts["y"])
    c = np.cov(m, *rest, **kw)
    cv = _Cov(m, opts, dtype)
    nrest = len(rest)

    def cov_pullback(c̄: Any) -> tuple[Any, ...]:
        c̄ = seed(c̄, "cov")
        tail = (NO,) * max(nrest - 1, 0)
        if _zero(c̄):
            return (NO, _zero_for(pm)) + ((_zero_for(py),) + tail if nrest else ())
        pulled = _once(lambda: cv.pull(c̄))
        out: tuple[Any, ...] = (NO, Thunk(lambda: pm(pulled()[0])) if pm.kind else NO)
        if nrest:
            has_y = opts["y"] is not None and py.kind
            out += ((Thunk(lambda: py(pulled()[1])) if has_y else NO),) + tail
        return out

    return c, cov_pullback


# =============================================================================
# corrcoef
# =============================================================================

def _corr_parts(c: Any) -> Any:
    d = np.real(np.diag(c))
    s = np.sqrt(d)
    return d, s, c / _col(s) / s


@register_frule(np.corrcoef, object, ...)
def corrcoef_frule(tangents: Any, x: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    y = rest[0] if rest else kw.get("y")
    x = plain(x)
    r = np.corrcoef(x, *rest, **kw)
    ẋ = unthunk(tangents[1])
    ẏ = unthunk(tangents[2]) if len(tangents) > 2 else ZERO
    if (_zero(ẋ) and _zero(ẏ)) or np.ndim(r) == 0:
        return r, ZERO
    rowvar = rest[1] if len(rest) > 1 else kw.get("rowvar", True)
    cv = _Cov(x, {"y": y, "rowvar": rowvar, "bias": False, "ddof": None, "fweights": None,
                  "aweights": None}, kw.get("dtype"))
    c = np.matmul(cv.Xc, _H(cv.Xc)) / cv.fact
    d, s, R = _corr_parts(c)
    Ċ = cv.push(ẋ, ẏ)
    a = np.real(np.diag(Ċ)) / (2 * d)
    Ṙ = Ċ / _col(s) / s - R * (_col(a) + a)
    return r, Ṙ if is_traced(Ṙ) else Ṙ.astype(np.result_type(r), copy=False)


@register_rrule(np.corrcoef, object, ...)
def corrcoef_rrule(x: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    y = rest[0] if rest else kw.get("y")
    x = plain(x)
    if len(rest) > 2:
        raise TypeError("numpy.corrcoef: pass x, y and rowvar only (bias and ddof are deprecated and unused)")
    px, py = ProjectTo(x), ProjectTo(y)
    r = np.corrcoef(x, *rest, **kw)
    rowvar = rest[1] if len(rest) > 1 else kw.get("rowvar", True)
    cv = _Cov(x, {"y": y, "rowvar": rowvar, "bias": False, "ddof": None, "fweights": None,
                  "aweights": None}, kw.get("dtype"))
    nrest = len(rest)
    scalar = np.ndim(r) == 0

    def corrcoef_pullback(r̄: Any) -> tuple[Any, ...]:
        r̄ = seed(r̄, "corrcoef")
        tail = (NO,) * max(nrest - 1, 0)
        if _zero(r̄) or scalar:
            return (NO, _zero_for(px)) + ((_zero_for(py),) + tail if nrest else ())
        def corrcoef_cotangents() -> Any:
            c = np.matmul(cv.Xc, _H(cv.Xc)) / cv.fact
            d, s, R = _corr_parts(c)
            r̄a = r̄ if is_traced(r̄) else np.asarray(r̄)
            C̄ = r̄a / _col(s) / s
            rR = np.real(np.conj(r̄a) * R)
            C̄ = C̄ + np.diag(-(np.sum(rR, axis=1) + np.sum(rR, axis=0)) / (2 * d))
            return cv.pull(C̄)

        pulled = _once(corrcoef_cotangents)
        out: tuple[Any, ...] = (NO, Thunk(lambda: px(pulled()[0])) if px.kind else NO)
        if nrest:
            has_y = y is not None and py.kind
            out += ((Thunk(lambda: py(pulled()[1])) if has_y else NO),) + tail
        return out

    return r, corrcoef_pullback
