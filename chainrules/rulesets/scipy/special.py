"""Rules for `scipy.special` (imported by `chainrules.rulesets` when
`scipy.special` is imported, see there): gammaln, gamma, digamma/psi,
polygamma, erf, erfc, erfinv, erfcinv, ndtr, log_ndtr, ndtri, expit,
log_expit, logit, entr, zetac, zeta (Hurwitz's in s and q, Riemann's), xlogy,
xlog1py (ufuncs, with broadcasting), and
logsumexp, softmax, log_softmax (with axis).

Conventions:

- Holomorphic functions of complex arguments (erf, erfc, gamma, xlogy,
  xlog1py, logsumexp) follow ChainRules: the pullback multiplies by the
  conjugate derivative.  The others are real functions: they have no rule
  for complex input (rrule/frule return None); digamma has none for complex
  input either, as SciPy's polygamma is real only.
- xlogy(x, y) = x·log(y) is 0 when x = 0, whatever y: its derivative in y is
  x/y, taken as 0 where x = 0 (also at y = 0); in x it is log(y).  xlog1py
  likewise with log1p(y) and x/(1+y).
- logsumexp: ∂/∂a = b·exp(a − r) (times the sign with return_sign=True, whose
  sign output has a zero derivative), ∂/∂b = exp(a − r); slices where the
  sum is zero or all a are −inf get a zero derivative instead of NaN.  b
  gets a cotangent when it is passed positionally (keyword arguments never
  get tangents).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp

from chainrules._core import (
    NoTangent,
    ProjectTo,
    Tangent,
    is_traced,
    register_frule,
    register_rrule,
    unthunk,
    untraced,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.scipy.special_series import dzeta_ds
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    reject_out,
    unbroadcast,
    zero_for as _zero_for,
    seed,
    plain,
)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _is_complex(x: Any) -> Any:
    return np.iscomplexobj(x)


def _value(x: Any) -> Any:
    """x for the partials: a value tracked by an enclosing differentiation as it
    is (the partials, NumPy code, are then differentiated too), else an array."""
    return x if is_traced(x) else np.asarray(x)


def _ufunc_kw(fname: str, kw: Any) -> None:
    reject_out(fname, kw, "where", "signature")


# ----- unary ufuncs: one partial each, written in terms of x and Ω -------------

def _unary(f: Any, name: str, partial: Any, complex_ok: Any) -> None:
    fname = f"scipy.special.{name}"

    def special_frule(tangents: Any, x: Any, **kw: Any) -> tuple[Any, Any] | None:
        _ufunc_kw(fname, kw)
        if not complex_ok and _is_complex(x):
            return None
        y = f(x, **kw)
        ẋ = unthunk(tangents[1])
        if _zero(ẋ):
            return y, ZERO
        return y, ProjectTo(y)(partial(_value(x), y) * ẋ)

    def special_rrule(x: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        _ufunc_kw(fname, kw)
        if not complex_ok and _is_complex(x):
            return None
        px = ProjectTo(x)
        y = f(x, **kw)

        def special_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            ȳ = unthunk(ȳ)
            if _zero(ȳ) or not px.kind:
                return NO, _zero_for(px)
            return NO, px(np.conj(partial(_value(x), y)) * ȳ)

        special_pullback.__name__ = special_pullback.__qualname__ = f"{name}_pullback"
        return y, special_pullback

    special_frule.__name__ = special_frule.__qualname__ = f"{name}_frule"
    special_rrule.__name__ = special_rrule.__qualname__ = f"{name}_rrule"
    register_frule(f, object)(special_frule)
    register_rrule(f, object)(special_rrule)


# the Hurwitz zeta function ζ(s, q) as the ufunc it is (scipy.special.zeta is a Python wrapper
# that calls it): the derivatives of digamma and polygamma are computed through it
_zeta = sp._ufuncs._zeta


def _dpolygamma(n: Any, x: Any) -> Any:
    """∂/∂x polygamma(n, x) = polygamma(n + 1, x) = (−1)ⁿ (n+1)! ζ(n + 2, x) for n ≥ 0,
    computed with ζ, whose rule differentiates it again."""
    n = np.asarray(n)
    # (n+1)! as exp(gammaln): torch.special has no gamma (the order is ≥ 0)
    return (-1.0) ** n * np.exp(sp.gammaln(n + 2.0)) * _zeta(n + 2.0, x)


def _polygamma(n: Any, x: Any) -> Any:
    """scipy.special.polygamma's own formula, made of ufuncs with rules (sp.polygamma
    converts its arguments to arrays: a value tracked by an enclosing
    differentiation would lose its derivative)."""
    n = np.asarray(n)
    return np.where(n == 0, sp.psi(x), (-1.0) ** (n + 1) * sp.gamma(n + 1.0) * _zeta(n + 1.0, x))


def _dgamma(x: Any, y: Any) -> Any:
    return y * sp.digamma(x)


def _dlog_ndtr(x: Any, y: Any) -> Any:
    return np.exp(-0.5 * x * x - _LOG_SQRT_2PI - y)


# name, function, partial(x, Ω), complex arguments allowed
_UNARY = [
    ("gammaln", sp.gammaln, lambda x, y: sp.digamma(x), False),
    ("gamma", sp.gamma, _dgamma, True),
    # digamma' = polygamma(1, ·), through the Hurwitz zeta ufunc (which has a rule) rather than
    # sp.polygamma, a Python function that converts its arguments: every order works
    ("digamma", sp.digamma, lambda x, y: _dpolygamma(0, x), False),
    ("erf", sp.erf, lambda x, y: _TWO_OVER_SQRT_PI * np.exp(-x * x), True),
    ("erfc", sp.erfc, lambda x, y: -_TWO_OVER_SQRT_PI * np.exp(-x * x), True),
    ("erfinv", sp.erfinv, lambda x, y: _SQRT_PI_OVER_2 * np.exp(y * y), False),
    ("erfcinv", sp.erfcinv, lambda x, y: -_SQRT_PI_OVER_2 * np.exp(y * y), False),
    ("ndtr", sp.ndtr, lambda x, y: np.exp(-0.5 * x * x - _LOG_SQRT_2PI), False),
    ("log_ndtr", sp.log_ndtr, _dlog_ndtr, False),
    ("ndtri", sp.ndtri, lambda x, y: np.exp(0.5 * y * y + _LOG_SQRT_2PI), False),
    ("expit", sp.expit, lambda x, y: y * (1 - y), False),
    ("log_expit", sp.log_expit, lambda x, y: sp.expit(-x), False),
    ("logit", sp.logit, lambda x, y: 1 / (x * (1 - x)), False),
    ("entr", sp.entr, lambda x, y: -(np.log(x) + 1), False),
    ("zetac", sp.zetac, lambda x, y: dzeta_ds(x, 1.0), False),
]

# =============================================================================
# gammaln, gamma, digamma (psi), erf, erfc, erfinv, erfcinv, ndtr, log_ndtr,
# ndtri, expit, log_expit, logit, entr: one table row each
# =============================================================================

for _row in _UNARY:
    _unary(_row[1], _row[0], _row[2], _row[3])
del _row


# =============================================================================
# polygamma(n, x): n is an order (no tangent)
# =============================================================================

@register_frule(sp.polygamma, object, object)
def polygamma_frule(tangents: Any, n: Any, x: Any) -> tuple[Any, Any] | None:
    if _is_complex(x):
        return None
    y = _polygamma(n, _value(x))
    ẋ = unthunk(tangents[2])
    if _zero(ẋ):
        return y, ZERO
    return y, ProjectTo(y)(_dpolygamma(n, _value(x)) * ẋ)


@register_rrule(sp.polygamma, object, object)
def polygamma_rrule(n: Any, x: Any) -> tuple[Any, Pullback] | None:
    if _is_complex(x):
        return None
    px = ProjectTo(x)
    y = _polygamma(n, _value(x))

    def polygamma_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'polygamma')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or not px.kind:
            return NO, NO, _zero_for(px)
        return NO, NO, px(unbroadcast(np.asarray(untraced(x)), _dpolygamma(n, _value(x)) * ȳ))

    return y, polygamma_pullback


# =============================================================================
# zeta(s, q), the Hurwitz zeta ufunc, and scipy.special.zeta(x, q=None), Riemann's for q None:
# ∂/∂q = −s·ζ(s + 1, q), ∂/∂s by its own series (special_series.dzeta_ds: Euler–Maclaurin,
# the functional equation below 0).  zetac(x) = ζ(x) − 1 has ζ′(x).  A keyword q is a constant.
# =============================================================================

def _zeta_partials(s: Any, q: Any) -> tuple[Any, Any]:
    s, q = _value(s), _value(q)
    return dzeta_ds(s, q), -s * _zeta(s + 1.0, q)


def _zeta_frule(tangents: Any, s: Any, q: Any, **kw: Any) -> tuple[Any, Any] | None:
    _ufunc_kw("scipy.special.zeta", kw)
    if _is_complex(s) or _is_complex(q):
        return None
    y = _zeta(s, q, **kw)
    ṡ, q̇ = unthunk(tangents[1]), unthunk(tangents[2])
    ṡ = ZERO if isinstance(ṡ, NoTangent) else ṡ
    if _zero(ṡ) and _zero(q̇):
        return y, ZERO
    ds, dq = _zeta_partials(s, q)
    ẏ = (0.0 if _zero(ṡ) else ds * ṡ) + (0.0 if _zero(q̇) else dq * q̇)
    return y, ProjectTo(y)(ẏ)


def _zeta_rrule(s: Any, q: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    _ufunc_kw("scipy.special.zeta", kw)
    if _is_complex(s) or _is_complex(q):
        return None
    ps, pq = ProjectTo(s), ProjectTo(q)
    y = _zeta(s, q, **kw)

    def zeta_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "zeta")
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(ps), _zero_for(pq)
        ds, dq = _zeta_partials(s, q)
        s̄ = ps(unbroadcast(np.asarray(untraced(s)), ds * ȳ)) if ps.kind else _zero_for(ps)
        q̄ = pq(unbroadcast(np.asarray(untraced(q)), dq * ȳ)) if pq.kind else _zero_for(pq)
        return NO, s̄, q̄

    return y, zeta_pullback


for _f in (_zeta, sp.zeta):
    register_frule(_f, object, object)(_zeta_frule)
    register_rrule(_f, object, object)(_zeta_rrule)
del _f


_riemann_zeta = sp._ufuncs._riemann_zeta      # sp.zeta(x) calls it: its rules are the same


def _riemann_zeta_frule(tangents: Any, x: Any, q: Any = None, **kw: Any) -> tuple[Any, Any] | None:
    if q is not None:               # a keyword q: a constant
        return _zeta_frule((NO, tangents[1], ZERO), x, q, **kw)
    _ufunc_kw("scipy.special.zeta", kw)
    if _is_complex(x):
        return None
    y = _riemann_zeta(x, **kw)
    ẋ = unthunk(tangents[1])
    if _zero(ẋ):
        return y, ZERO
    return y, ProjectTo(y)(dzeta_ds(_value(x), 1.0) * ẋ)


def _riemann_zeta_rrule(x: Any, q: Any = None, **kw: Any) -> tuple[Any, Pullback] | None:
    if q is not None:
        res = _zeta_rrule(x, q, **kw)
        if res is None:
            return None
        y, pb = res
        return y, lambda ȳ: pb(ȳ)[:2]
    _ufunc_kw("scipy.special.zeta", kw)
    if _is_complex(x):
        return None
    px = ProjectTo(x)
    y = _riemann_zeta(x, **kw)

    def zeta_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(seed(ȳ, "zeta"))
        if _zero(ȳ) or not px.kind:
            return NO, _zero_for(px)
        return NO, px(unbroadcast(np.asarray(untraced(x)), dzeta_ds(_value(x), 1.0) * ȳ))

    return y, zeta_pullback


for _f in (_riemann_zeta, sp.zeta):
    register_frule(_f, object)(_riemann_zeta_frule)
    register_rrule(_f, object)(_riemann_zeta_rrule)
del _f


# ----- xlogy, xlog1py: x·log(y), x·log1p(y), zero where x = 0 ----------------------

def _xlog(f: Any, name: str, log: Any, shift: Any) -> None:
    fname = f"scipy.special.{name}"

    def partials(x: Any, y: Any) -> Any:
        at0 = np.asarray(untraced(x)) == 0
        x, y = _value(x), _value(y)
        safe = np.where(at0, 1, y + shift)
        with np.errstate(divide="ignore"):
            return log(y), np.where(at0, 0, x / safe)

    def xlog_frule(tangents: Any, x: Any, y: Any, **kw: Any) -> tuple[Any, Any]:
        _ufunc_kw(fname, kw)
        z = f(x, y, **kw)
        ẋ, ẏ = unthunk(tangents[1]), unthunk(tangents[2])
        if _zero(ẋ) and _zero(ẏ):
            return z, ZERO
        dx, dy = partials(x, y)
        ż: Any = 0
        if not _zero(ẋ):
            # a zero tangent adds nothing, also where log(y) = −inf
            with np.errstate(invalid="ignore"):
                ż = ż + np.where(np.asarray(ẋ) == 0, 0, dx * ẋ)
        if not _zero(ẏ):
            ż = ż + dy * ẏ
        return z, ProjectTo(z)(np.broadcast_to(ż, np.shape(z)) if np.ndim(z) else ż)

    def xlog_rrule(x: Any, y: Any, **kw: Any) -> tuple[Any, Pullback]:
        _ufunc_kw(fname, kw)
        px, py = ProjectTo(x), ProjectTo(y)
        z = f(x, y, **kw)

        def xlog_pullback(z̄: Any) -> tuple[Any, ...]:
            z̄ = seed(z̄, name)
            if _zero(z̄):
                return NO, _zero_for(px), _zero_for(py)
            dx, dy = partials(x, y)
            x̄ = px(unbroadcast(np.asarray(untraced(x)), np.conj(dx) * z̄)) if px.kind else NO
            ȳ = py(unbroadcast(np.asarray(untraced(y)), np.conj(dy) * z̄)) if py.kind else NO
            return NO, x̄, ȳ

        xlog_pullback.__name__ = xlog_pullback.__qualname__ = f"{name}_pullback"
        return z, xlog_pullback

    xlog_frule.__name__ = xlog_frule.__qualname__ = f"{name}_frule"
    xlog_rrule.__name__ = xlog_rrule.__qualname__ = f"{name}_rrule"
    register_frule(f, object, object)(xlog_frule)
    register_rrule(f, object, object)(xlog_rrule)


# =============================================================================
# xlogy, xlog1py
# =============================================================================

_xlog(sp.xlogy, "xlogy", np.log, 0)
_xlog(sp.xlog1py, "xlog1py", np.log1p, 1)


# ----- reductions over an axis --------------------------------------------------------

def _axes(axis: Any, ndim: int) -> Any:
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(int(i) % ndim for i in ((axis,) if np.ndim(axis) == 0 else axis)))


def _keep(v: Any, axes: Any, ndim: int, keepdims: Any) -> Any:
    v = _value(v)
    return v if keepdims or v.ndim == ndim else np.expand_dims(v, axes)


_LSE_SPEC = (("axis", None), ("b", None), ("keepdims", False), ("return_sign", False))


def _lse_options(rest: Any, kw: Any) -> Any:
    if len(rest) > len(_LSE_SPEC):
        raise TypeError("scipy.special.logsumexp: too many positional arguments")
    return [rest[i] if i < len(rest) else kw.get(k, d) for i, (k, d) in enumerate(_LSE_SPEC)]


def _lse_weights(a: Any, b: Any, r: Any, sign: Any, axes: Any, keepdims: Any) -> Any:
    """e = exp(a − r) (zero where the slice sums to zero) and the weights
    ∂r/∂a = b·e (times the sign)."""
    a = _value(a)
    rk = _keep(r, axes, a.ndim, keepdims)
    finite = np.isfinite(rk)
    e = np.where(finite, np.exp(a - np.where(finite, rk, 0)), 0)
    w = e if b is None else e * _value(b)
    if sign is not None:
        w = w * _keep(sign, axes, a.ndim, keepdims)
    return e, w


# SciPy's logsumexp and softmax convert their arguments to arrays; a value tracked by an
# enclosing differentiation (a rule differentiated: higher order) is computed with the same
# formulas in NumPy functions, which track it.  The shift m is a constant: exact.

def _plain(*xs: Any) -> bool:
    return all(_value(x) is not x or isinstance(x, np.ndarray) for x in xs if x is not None)


def _shift(x: Any, axes: Any) -> Any:
    m = np.max(np.real(untraced(x)), axis=axes, keepdims=True)
    return np.where(np.isfinite(m), m, 0)


def _logsumexp(a: Any, rest: Any, kw: Any) -> Any:
    axis, b, keepdims, return_sign = _lse_options(rest, kw)
    if _plain(a, b):
        return sp.logsumexp(a, *rest, **kw)
    if return_sign:
        raise NotImplementedError("scipy.special.logsumexp: return_sign=True on values tracked by an "
                                  "enclosing differentiation")
    a = _value(a)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) if b is not None else np.shape(a)
    axes = _axes(axis, len(shape))
    m = _shift(np.broadcast_to(untraced(a), shape), axes)
    e = np.exp(a - m)
    r = np.log(np.sum(e if b is None else e * _value(b), axis=axes, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axes)


def _softmax(log: bool, x: Any, rest: Any, kw: Any) -> Any:
    if _plain(x):
        return (sp.log_softmax if log else sp.softmax)(x, *rest, **kw)
    x = _value(x)
    axes = _axes(rest[0] if rest else kw.get("axis"), np.ndim(x))
    z = x - _shift(x, axes)
    if log:
        return z - np.log(np.sum(np.exp(z), axis=axes, keepdims=True))
    e = np.exp(z)
    return e / np.sum(e, axis=axes, keepdims=True)


# =============================================================================
# logsumexp
# =============================================================================

@register_frule(sp.logsumexp, object, ...)
def logsumexp_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    axis, b, keepdims, return_sign = _lse_options(rest, kw)
    if return_sign and (_is_complex(a) or _is_complex(b)):
        return None
    out = _logsumexp(a, rest, kw)
    ȧ = unthunk(tangents[1])
    ḃ = unthunk(tangents[3]) if len(tangents) > 3 else ZERO
    if _zero(ȧ) and _zero(ḃ):
        return out, ZERO
    r, sign = out if return_sign else (out, None)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) if b is not None else np.shape(a)
    axes = _axes(axis, len(shape))
    e, w = _lse_weights(np.broadcast_to(a, shape), b, r, sign, axes, keepdims)
    ṙ = 0
    if not _zero(ȧ):
        ṙ = ṙ + np.sum(w * ȧ, axis=axes, keepdims=keepdims)
    if not _zero(ḃ):
        ė = e if sign is None else e * _keep(sign, axes, len(shape), keepdims)
        ṙ = ṙ + np.sum(ė * ḃ, axis=axes, keepdims=keepdims)
    ṙ = ProjectTo(r)(ṙ)
    return out, (Tangent[tuple](ṙ, ZERO) if return_sign else ṙ)  # type: ignore[type-arg]


@register_rrule(sp.logsumexp, object, ...)
def logsumexp_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    axis, b, keepdims, return_sign = _lse_options(rest, kw)
    if return_sign and (_is_complex(a) or _is_complex(b)):
        return None
    pa, pb = ProjectTo(a), ProjectTo(b)
    out = _logsumexp(a, rest, kw)
    r, sign = out if return_sign else (out, None)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) if b is not None else np.shape(a)
    axes = _axes(axis, len(shape))
    b_positional = len(rest) >= 2
    tail = (NO,) * len(rest)

    def logsumexp_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'logsumexp')
        ȳ = unthunk(ȳ)
        r̄ = unthunk(ȳ[0]) if return_sign and not _zero(ȳ) else ȳ
        if _zero(r̄):
            out = (NO, _zero_for(pa)) + tail
            if b_positional:
                out = out[:3] + (_zero_for(pb),) + out[4:]
            return out
        e, w = _lse_weights(np.broadcast_to(a, shape), b, r, sign, axes, keepdims)
        r̄k = _keep(r̄, axes, len(shape), keepdims)
        ā = pa(unbroadcast(np.asarray(untraced(a)), np.conj(w) * r̄k)) if pa.kind else NO
        out = (NO, ā) + tail
        if b_positional:
            ė = e if sign is None else e * _keep(sign, axes, len(shape), keepdims)
            b̄ = pb(unbroadcast(np.asarray(untraced(b)), np.conj(ė) * r̄k)) if pb.kind else NO
            out = out[:3] + (b̄,) + out[4:]
        return out

    return out, logsumexp_pullback


# =============================================================================
# softmax
# =============================================================================

@register_frule(sp.softmax, object, ...)
def softmax_frule(tangents: Any, x: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    if _is_complex(x):
        return None
    axis = rest[0] if rest else kw.get("axis")
    s = _softmax(False, x, rest, kw)
    ẋ = unthunk(tangents[1])
    if _zero(ẋ):
        return s, ZERO
    axes = _axes(axis, s.ndim)
    sẋ = s * ẋ
    return s, ProjectTo(s)(sẋ - s * np.sum(sẋ, axis=axes, keepdims=True))


@register_rrule(sp.softmax, object, ...)
def softmax_rrule(x: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    if _is_complex(x):
        return None
    axis = rest[0] if rest else kw.get("axis")
    px = ProjectTo(x)
    s = _softmax(False, x, rest, kw)
    axes = _axes(axis, s.ndim)
    tail = (NO,) * len(rest)

    def softmax_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'softmax')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or not px.kind:
            return (NO, _zero_for(px)) + tail
        sȳ = s * np.real(ȳ)
        return (NO, px(sȳ - s * np.sum(sȳ, axis=axes, keepdims=True))) + tail

    return s, softmax_pullback


# =============================================================================
# log_softmax
# =============================================================================

@register_frule(sp.log_softmax, object, ...)
def log_softmax_frule(tangents: Any, x: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    if _is_complex(x):
        return None
    axis = rest[0] if rest else kw.get("axis")
    l = _softmax(True, x, rest, kw)
    ẋ = unthunk(tangents[1])
    if _zero(ẋ):
        return l, ZERO
    axes = _axes(axis, l.ndim)
    return l, ProjectTo(l)(ẋ - np.sum(np.exp(l) * ẋ, axis=axes, keepdims=True))


@register_rrule(sp.log_softmax, object, ...)
def log_softmax_rrule(x: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    if _is_complex(x):
        return None
    axis = rest[0] if rest else kw.get("axis")
    px = ProjectTo(x)
    l = _softmax(True, x, rest, kw)
    axes = _axes(axis, l.ndim)
    tail = (NO,) * len(rest)

    def log_softmax_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'log_softmax')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or not px.kind:
            return (NO, _zero_for(px)) + tail
        ȳ = np.real(ȳ)
        return (NO, px(ȳ - np.exp(l) * np.sum(ȳ, axis=axes, keepdims=True))) + tail

    return l, log_softmax_pullback


# the table of the other functions (issue 23): one row per function, one builder
from chainrules.rulesets.scipy import special_table  # noqa: E402,F401
