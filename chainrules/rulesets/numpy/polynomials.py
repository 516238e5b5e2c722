"""Rules for NumPy's polynomial functions (coefficients highest power first):
vander, polyval, polyadd, polysub, polymul, polyder, polyint, polyfit (in x
and y), poly (from 1-d roots) and roots (the implicit-function rule).

Every body computes with functions that have rules (vander, polyval,
polyder, np.linalg.solve, matmul, np.delete...), so the rules differentiate
again.  Derivatives in the coefficients of linear functions are the
functions themselves; their adjoints are written out.  np.poly1d arguments
are not covered (the rules take arrays).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import AbstractZero, Tangent, Thunk, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, output_parts, project_to, seed
from chainrules.rulesets.numpy.convolution import array_arg, convolution_rules


def _no_poly1d(name: str, *args: Any) -> None:
    for a in args:
        if isinstance(a, np.poly1d):
            raise TypeError(f"numpy.{name}: the rule takes coefficient arrays, not np.poly1d; "
                            "pass p.coeffs")


def _zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


# ----- vander(x, N=None, increasing=False) --------------------------------------------------

def _vander_slope(x: Any, n: int, increasing: bool) -> Any:
    """∂V/∂x, row i: d/dx of x_i's powers (n columns)."""
    if n <= 1:
        return np.zeros((np.shape(x)[0], max(n, 0)), dtype=np.result_type(array_or_traced(x), 0.0))
    lower = np.vander(x, n - 1, increasing=True)         # x^0 … x^(n-2)
    slope = lower * np.arange(1, n)                       # k·x^(k-1), k = 1 … n-1
    slope = np.pad(slope, [(0, 0), (1, 0)])               # the constant's column
    return slope if increasing else np.flip(slope, 1)


def _vander_options(x: Any, args: Any, kw: Any) -> Any:
    opts = dict(zip(("N", "increasing"), args))
    opts.update(kw)
    n = opts.get("N")
    return np.shape(x)[0] if n is None else int(n), bool(opts.get("increasing", False))


@register_frule(np.vander)
def vander_frule(tangents: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    n, inc = _vander_options(x, args, kw)
    Ω = np.vander(x, *args, **kw)
    ẋ = unthunk(tangents[1])
    if _zero(ẋ):
        return Ω, ZERO
    return Ω, project_to(Ω)(np.reshape(ẋ, (-1, 1)) * _vander_slope(x, n, inc))


@register_rrule(np.vander)
def vander_rrule(x: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    n, inc = _vander_options(x, args, kw)
    Ω = np.vander(x, *args, **kw)
    px = project_to(x)
    rest = (NO,) * len(args)

    def vander_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.vander")
        if _zero(Ω̄) or not px.kind:
            return (NO, px(ZERO)) + rest
        return (NO, Thunk(lambda: px(np.sum(array_or_traced(Ω̄) * np.conj(_vander_slope(x, n, inc)), axis=1)))) + rest
    return Ω, vander_pullback


# ----- polyval(p, x) --------------------------------------------------------------------------

def _slope(p: Any, x: Any) -> Any:
    return np.polyval(np.polyder(p), x) if np.shape(p)[0] > 1 else np.zeros_like(array_or_traced(x) * 1.0)


@register_frule(np.polyval)
def polyval_frule(tangents: Any, p: Any, x: Any) -> tuple[Any, Any]:
    _no_poly1d("polyval", p, x)
    Ω = np.polyval(p, x)
    p, x = array_arg(p), array_arg(x)
    ṗ, ẋ = array_arg(tangents[1]), array_arg(tangents[2])
    out = None
    if not _zero(ṗ):
        out = np.polyval(ṗ, x)
    if not _zero(ẋ):
        v = _slope(p, x) * ẋ
        out = v if out is None else out + v
    return Ω, ZERO if out is None else project_to(Ω)(out)


@register_rrule(np.polyval)
def polyval_rrule(p: Any, x: Any) -> tuple[Any, Pullback]:
    _no_poly1d("polyval", p, x)
    Ω = np.polyval(p, x)
    pp, px = project_to(p), project_to(x)
    p, x = array_arg(p), array_arg(x)
    n = np.shape(p)[0]

    def polyval_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.polyval")
        if _zero(Ω̄):
            return NO, pp(ZERO), px(ZERO)
        Ω̄ = np.broadcast_to(array_or_traced(Ω̄), np.shape(Ω))

        def p̄() -> Any:
            powers = np.vander(np.ravel(np.conj(x)), n)
            return pp(np.reshape(Ω̄, (-1,)) @ powers)

        def x̄() -> Any:
            return px(Ω̄ * np.conj(_slope(p, x)))
        return NO, Thunk(p̄) if pp.kind else NO, Thunk(x̄) if px.kind else NO
    return Ω, polyval_pullback


# ----- polyadd, polysub: aligned at the constant term -----------------------------------------

def _aligned_rules(f: Any, name: str, sign: int) -> None:
    def align_frule(tangents: Any, a1: Any, a2: Any) -> tuple[Any, Any]:
        _no_poly1d(name, a1, a2)
        Ω = f(a1, a2)
        ȧ1, ȧ2 = unthunk(tangents[1]), unthunk(tangents[2])
        if _zero(ȧ1) and _zero(ȧ2):
            return Ω, ZERO
        d1 = np.zeros(np.shape(a1)) if _zero(ȧ1) else ȧ1
        d2 = np.zeros(np.shape(a2)) if _zero(ȧ2) else ȧ2
        return Ω, project_to(Ω)(f(d1, d2))

    def align_rrule(a1: Any, a2: Any) -> tuple[Any, Pullback]:
        _no_poly1d(name, a1, a2)
        Ω = f(a1, a2)
        p1, p2 = project_to(a1), project_to(a2)
        n1, n2 = np.size(a1), np.size(a2)

        def align_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, f"numpy.{name}")
            if _zero(Ω̄):
                return NO, p1(ZERO), p2(ZERO)
            Ω̄ = np.reshape(array_or_traced(Ω̄), (-1,))
            m = np.shape(Ω̄)[0]
            g2 = Ω̄[m - n2:] if sign > 0 else -Ω̄[m - n2:]
            return NO, p1(np.reshape(Ω̄[m - n1:], np.shape(a1))), p2(np.reshape(g2, np.shape(a2)))
        return Ω, align_pullback

    register_frule(f)(align_frule)
    register_rrule(f)(align_rrule)


_aligned_rules(np.polyadd, "polyadd", 1)
_aligned_rules(np.polysub, "polysub", -1)


# ----- polymul: the full convolution --------------------------------------------------------

def _polymul_check(opts: Any) -> None:
    if set(opts) - {"mode"} or "mode" in opts:
        raise TypeError("numpy.polymul: takes two coefficient arrays")


def _full_offsets(s1: Any, s2: Any, full: Any, out: Any, mode: str) -> Any:
    return (0,)


convolution_rules(np.polymul, "numpy.polymul", correlation=False,
                  corr_valid=lambda x, v, kw: np.correlate(x, v, "valid"), offsets=_full_offsets,
                  check=_polymul_check)


# ----- polyder(p, m=1): y[i] = p[i]·c[i] ---------------------------------------------------------

def _order(args: Any, kw: Any, name: str) -> int:
    m = args[0] if args else kw.get("m", 1)
    m = int(m)
    if m < 0:
        raise ValueError(f"numpy.{name}: the order m must be non-negative, got {m}")
    return m


@register_frule(np.polyder)
def polyder_frule(tangents: Any, p: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    _no_poly1d("polyder", p)
    _order(args, kw, "polyder")
    Ω = np.polyder(p, *args, **kw)
    ṗ = unthunk(tangents[1])
    return Ω, ZERO if _zero(ṗ) else project_to(Ω)(np.polyder(ṗ, *args, **kw))


@register_rrule(np.polyder)
def polyder_rrule(p: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    _no_poly1d("polyder", p)
    m = _order(args, kw, "polyder")
    Ω = np.polyder(p, *args, **kw)
    pp = project_to(p)
    n = np.shape(p)[0]
    rest = (NO,) * len(args)

    def polyder_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.polyder")
        if _zero(Ω̄) or not pp.kind:
            return (NO, pp(ZERO)) + rest
        if m >= n:
            return (NO, pp(ZERO)) + rest
        c = np.polyder(np.ones(n), m)
        return (NO, pp(np.pad(array_or_traced(Ω̄) * c, (0, m)))) + rest
    return Ω, polyder_pullback


# ----- polyint(p, m=1, k=None): y[:n] = p·w, the constants k after ----------------------------

def _polyint_k(args: Any, kw: Any) -> Any:
    return args[1] if len(args) > 1 else kw.get("k")


@register_frule(np.polyint)
def polyint_frule(tangents: Any, p: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    _no_poly1d("polyint", p)
    m = _order(args, kw, "polyint")
    Ω = np.polyint(p, *args, **kw)
    ṗ = unthunk(tangents[1])
    k̇ = unthunk(tangents[3]) if len(args) > 1 else ZERO
    if _zero(ṗ) and _zero(k̇):
        return Ω, ZERO
    ṗ = np.zeros(np.shape(p)) if _zero(ṗ) else ṗ
    k̇ = 0 if _zero(k̇) else k̇
    return Ω, project_to(Ω)(np.polyint(ṗ, m, k̇))  # type: ignore[arg-type]


@register_rrule(np.polyint)
def polyint_rrule(p: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    _no_poly1d("polyint", p)
    m = _order(args, kw, "polyint")
    k = _polyint_k(args, kw)
    Ω = np.polyint(p, *args, **kw)
    pp = project_to(p)
    pk = project_to(k) if len(args) > 1 else None
    n = np.shape(p)[0]
    w = np.polyint(np.ones(n), m)[:n]
    # the constants' columns: polyint of zeros with the unit constants (k is m numbers)
    kshape = np.shape(k) if k is not None else ()
    K = np.stack([np.polyint(np.zeros(n), m, e) for e in np.eye(m)]) if m else np.zeros((0, n + m))

    def polyint_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.polyint")
        m_bar = (NO,) * min(len(args), 1)
        if _zero(Ω̄):
            return (NO, pp(ZERO)) + m_bar + ((pk(ZERO),) if pk is not None else ())
        Ω̄ = array_or_traced(Ω̄)
        out = (NO, pp(Ω̄[:n] * w) if pp.kind else NO) + m_bar
        if pk is None:
            return out
        k̄ = K @ Ω̄
        return out + ((pk(k̄ if kshape else np.sum(k̄)) if pk.kind else NO),)
    return Ω, polyint_pullback


# ----- polyfit(x, y, deg): least squares -------------------------------------------------------
# p = G⁻¹Vᵀy, G = VᵀV, V = vander(x, deg+1); r = y − Vp:
#   ṗ = G⁻¹(V̇ᵀr − VᵀV̇p + Vᵀẏ), V̇ = ẋ·D (D = ∂V/∂x);  with u = G⁻¹p̄:
#   ȳ = Vu,  x̄ᵢ = Σ_cols (Dᵢ·u)·rᵢ − (Vᵢ·u)·(Dᵢ·p)          (real x and y)

def _polyfit_setup(x: Any, y: Any, args: Any, kw: Any) -> Any:
    opts = dict(zip(("deg", "rcond", "full", "w", "cov"), args))
    opts.update(kw)
    for k in ("full", "w", "cov"):
        v = opts.get(k)
        if v is not None and not (isinstance(v, (bool, np.bool_)) and not v):
            raise TypeError(f"numpy.polyfit: the rule does not cover the argument {k}=")
    if np.ndim(x) != 1:
        raise ValueError(f"numpy.polyfit: x must be 1-d, got shape {np.shape(x)}")
    deg = int(opts["deg"])
    return deg


@register_frule(np.polyfit)
def polyfit_frule(tangents: Any, x: Any, y: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    deg = _polyfit_setup(x, y, args, kw)
    Ω = np.polyfit(x, y, *args, **kw)
    ẋ, ẏ = unthunk(tangents[1]), unthunk(tangents[2])
    if _zero(ẋ) and _zero(ẏ):
        return Ω, ZERO
    V = np.vander(x, deg + 1)
    G = np.transpose(V) @ V
    rhs = 0
    if not _zero(ẏ):
        rhs = np.transpose(V) @ ẏ
    if not _zero(ẋ):
        V̇ = np.reshape(ẋ, (-1, 1)) * _vander_slope(x, deg + 1, False)
        r = y - V @ Ω
        rhs = rhs + np.transpose(V̇) @ r - np.transpose(V) @ (V̇ @ Ω)
    return Ω, project_to(Ω)(np.linalg.solve(G, rhs))


@register_rrule(np.polyfit)
def polyfit_rrule(x: Any, y: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    deg = _polyfit_setup(x, y, args, kw)
    Ω = np.polyfit(x, y, *args, **kw)
    px, py = project_to(x), project_to(y)
    rest = (NO,) * len(args)

    def polyfit_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.polyfit")
        if _zero(Ω̄):
            return (NO, px(ZERO), py(ZERO)) + rest
        V = np.vander(x, deg + 1)
        G = np.transpose(V) @ V
        u = np.linalg.solve(G, array_or_traced(Ω̄))

        def x̄() -> Any:
            D = _vander_slope(x, deg + 1, False)
            r = y - V @ Ω
            a, b, c = D @ u, V @ u, D @ Ω
            g = a * r - b * c
            return px(np.sum(g, axis=1) if np.ndim(g) == 2 else g)
        return (NO, Thunk(x̄) if px.kind else NO, Thunk(lambda: py(V @ u)) if py.kind else NO) + rest
    return Ω, polyfit_pullback


# ----- poly(roots): c = Π (x − rⱼ);  ∂c/∂rⱼ = −[0, poly(the other roots)] ---------------------------

def _poly_columns(r: Any) -> Any:
    n = np.shape(r)[0]
    if n == 1:                   # poly of no roots is the scalar 1
        return np.array([[0.0, -1.0]])
    return np.stack([np.pad(-np.poly(np.delete(r, j)), (1, 0)) for j in range(n)])


def _poly_check(r: Any) -> None:
    if np.ndim(r) != 1:
        raise ValueError("numpy.poly: the rule takes a 1-d array of roots (for a matrix, "
                         f"poly of its eigenvalues), got shape {np.shape(r)}")


@register_frule(np.poly)
def poly_frule(tangents: Any, r: Any) -> tuple[Any, Any]:
    _poly_check(r)
    Ω = np.poly(r)
    ṙ = unthunk(tangents[1])
    if _zero(ṙ) or np.shape(r)[0] == 0:
        return Ω, ZERO
    return Ω, project_to(Ω)(ṙ @ _poly_columns(r))


@register_rrule(np.poly)
def poly_rrule(r: Any) -> tuple[Any, Pullback]:
    _poly_check(r)
    Ω = np.poly(r)
    pr = project_to(r)

    def poly_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.poly")
        if _zero(Ω̄) or np.shape(r)[0] == 0:
            return NO, pr(ZERO)
        return NO, Thunk(lambda: pr(np.conj(_poly_columns(r)) @ array_or_traced(Ω̄)))
    return Ω, poly_pullback


# ----- roots(p): p(r) = 0, so ṙ = −polyval(ṗ, r)/p′(r) (simple roots) -------------------------------

@register_frule(np.roots)
def roots_frule(tangents: Any, p: Any) -> tuple[Any, Any]:
    Ω = np.roots(p)
    ṗ = unthunk(tangents[1])
    if _zero(ṗ) or np.size(Ω) == 0:
        return Ω, ZERO
    return Ω, project_to(Ω)(-np.polyval(ṗ, Ω) / np.polyval(np.polyder(p), Ω))


@register_rrule(np.roots)
def roots_rrule(p: Any) -> tuple[Any, Pullback]:
    Ω = np.roots(p)
    pp = project_to(p)
    n = np.shape(p)[0]

    def roots_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.roots")
        if _zero(Ω̄) or np.size(Ω) == 0 or not pp.kind:
            return NO, pp(ZERO)
        s = -array_or_traced(Ω̄) / np.conj(np.polyval(np.polyder(p), Ω))
        return NO, Thunk(lambda: pp(s @ np.vander(np.conj(Ω), n)))
    return Ω, roots_pullback


# ----- polydiv(u, v) -> (q, r): u = q·v + r ------------------------------------------------------
# With w = u̇ − q∗v̇: q̇ = quotient(w, v) (Q, a lower-triangular Toeplitz solve), ṙ = (w − q̇∗v),
# its last len(r) entries (NumPy trims r's leading zeros).  Pullback: w̄ = r̄ + Qᴴ(q̄ − corr(r̄, v)),
# ū = w̄, v̄ = −corr(w̄, q); Qᴴz = the upper-triangular solve, flipped quotient by conj(v).

def _quotient_adjoint(z: Any, v: Any) -> Any:
    n = np.shape(v)[0] - 1
    sol = np.polydiv(np.pad(np.flip(z), (0, n)), np.conj(v))[0]
    return np.pad(np.flip(sol), (0, n))


@register_frule(np.polydiv)
def polydiv_frule(tangents: Any, u: Any, v: Any) -> tuple[Any, Any]:
    _no_poly1d("polydiv", u, v)
    Ω = np.polydiv(u, v)
    q, r = Ω
    u̇, v̇ = unthunk(tangents[1]), unthunk(tangents[2])
    if _zero(u̇) and _zero(v̇):
        return Ω, ZERO
    nr = np.shape(r)[0]
    if np.shape(u)[0] < np.shape(v)[0]:
        ṙ = np.zeros(nr) if _zero(u̇) else u̇[np.shape(u̇)[0] - nr:]
        return Ω, Tangent[tuple](np.zeros(np.shape(q)), project_to(r)(ṙ))  # type: ignore[type-arg]
    w = np.zeros(np.shape(u)) if _zero(u̇) else u̇
    if not _zero(v̇):
        w = w - np.polymul(q, v̇)
    q̇ = np.polydiv(w, v)[0]
    ṙ = w - np.polymul(q̇, v)
    return Ω, Tangent[tuple](project_to(q)(q̇), project_to(r)(ṙ[np.shape(ṙ)[0] - nr:]))  # type: ignore[type-arg]


@register_rrule(np.polydiv)
def polydiv_rrule(u: Any, v: Any) -> tuple[Any, Pullback]:
    _no_poly1d("polydiv", u, v)
    Ω = np.polydiv(u, v)
    q, r = Ω
    pu, pv = project_to(u), project_to(v)
    nu, nr = np.shape(u)[0], np.shape(r)[0]
    short = nu < np.shape(v)[0]

    def polydiv_pullback(Ω̄: Any) -> tuple[Any, ...]:
        q̄, r̄ = output_parts(Ω̄, 2, "numpy.polydiv")
        if _zero(q̄) and _zero(r̄):
            return NO, pu(ZERO), pv(ZERO)
        r̄f = np.zeros(nu) if _zero(r̄) else np.pad(array_or_traced(r̄), (nu - nr, 0))
        if short:
            return NO, pu(r̄f), pv(ZERO)
        z = -np.correlate(r̄f, v, "valid")
        if not _zero(q̄):
            z = z + array_or_traced(q̄)
        w̄ = r̄f + _quotient_adjoint(z, v)
        return NO, pu(w̄), pv(-np.correlate(w̄, q, "valid"))
    return Ω, polydiv_pullback

