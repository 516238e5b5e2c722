"""Rules for `numpy.linalg`'s inverses and solvers: inv, det (at a singular
matrix through the adjugate), slogdet, solve, pinv, lstsq, matrix_power."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
    Tangent,
    Thunk,
    Tracked,
    _ad_strip_all,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    unbroadcast,
    zero_for as _zero_for,
    seed,
    plain,
    array_or_tracked,
    project_to,
)
from chainrules.rulesets.numpy.linalg._common import (
    _fit,
    _H,
    _T,
    _eye_like,
    _add,
    _sum_tangents,
    _opts,
)
from chainrules.rulesets.numpy.linalg.factorizations import _svd_pullback, _svd_pushforward


# =============================================================================
# linalg.inv
# =============================================================================

@register_frule(np.linalg.inv, object)
def inv_frule(tangents: Any, a: Any) -> tuple[Any, Any]:
    y = np.linalg.inv(a)
    if type(y) is not np.ndarray and not isinstance(y, Tracked):     # np.matrix
        return y, inv_frule(tangents, plain(a))[1]
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    return y, -(y @ ȧ @ y)


@register_rrule(np.linalg.inv, object)
def inv_rrule(a: Any) -> tuple[Any, Pullback]:
    pa = project_to(a)
    y = np.linalg.inv(a)

    def inv_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'inv')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        yh = _H(y)
        return NO, Thunk(lambda: pa(-(yh @ ȳ @ yh)))

    return y, inv_pullback


# =============================================================================
# linalg.det
# =============================================================================

def _exclusive_prod(s: Any) -> Any:
    """p_i = Π_{j≠i} s_j along the last axis, without division."""
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return left * right


def _cofactor(a: Any, d: Any) -> Any:
    """∂det(a)/∂a = adj(a)ᵀ, by the inverse where a is invertible and by the
    SVD otherwise (exact at singular matrices too)."""
    if isinstance(d, Tracked) or isinstance(a, Tracked):
        # the rule differentiated by chainrules.ad: through the inverse where a
        # is well conditioned, else by the adjugate's polynomial (exact at a
        # singular matrix, and so are its derivatives)
        if _well_conditioned(_ad_strip_all(a)):
            return (d if np.ndim(d) == 0 else d[..., None, None]) * _T(np.linalg.inv(a))
        return _T(_adjugate_polynomial(a))
    d = np.asarray(d)
    if np.all(d != 0) and np.all(np.isfinite(d)):
        try:
            return d[..., None, None] * _T(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            pass
    # adj(U S Vh) = det(U)·det(Vh) · Vhᴴ diag(Π_{j≠i} s_j) Uᴴ
    u, s, vh = np.linalg.svd(a)
    phase = np.linalg.det(u) * np.linalg.det(vh)
    adj = phase[..., None, None] * (_H(vh) * _exclusive_prod(s)[..., None, :]) @ _H(u)
    return _T(adj)


def _well_conditioned(a: Any) -> Any:
    """Every matrix of the stack a is invertible with a condition number
    below 1e8 (its inverse is accurate)."""
    with np.errstate(all="ignore"):
        c = np.linalg.cond(a)
    return bool(np.all(np.isfinite(c)) and np.all(c < 1e8))


def _adjugate_polynomial(a: Any) -> Any:
    """adj(a) for a stack of n×n matrices, by the Faddeev–LeVerrier
    recursion: M₁ = I, M_k = a·M_{k-1} + c_{n-k+1}·I with
    c_{n-k+1} = -tr(a·M_{k-1})/(k-1), and adj(a) = (-1)^{n+1}·M_n.  Only
    products, sums and traces: a polynomial in a, defined and exact at
    singular matrices, and differentiated by chainrules.ad to any order (the
    inverse, which the adjugate is det(a)·inv(a) of elsewhere, fails there).
    Accurate for the small matrices whose determinant one differentiates
    twice; the nested rule uses it only where a is (nearly) singular."""
    n = a.shape[-1]
    eye = np.eye(n, dtype=np.result_type(_ad_strip_all(a).dtype, np.float64))
    m = eye
    for k in range(2, n + 1):
        c = -np.sum(a * _T(m), axis=(-2, -1)) / (k - 1)
        m = a @ m + np.reshape(c, np.shape(c) + (1, 1)) * eye
    return m if n % 2 else -m


@register_frule(np.linalg.det, object)
def det_frule(tangents: Any, a: Any) -> tuple[Any, Any]:
    a = array_or_tracked(a)
    y = np.linalg.det(a)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    return y, np.sum(_cofactor(a, y) * ȧ, axis=(-2, -1))


@register_rrule(np.linalg.det, object)
def det_rrule(a: Any) -> tuple[Any, Pullback]:
    pa = project_to(a)
    a = array_or_tracked(a)
    y = np.linalg.det(a)

    def det_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'det')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        ȳ = array_or_tracked(ȳ)
        return NO, Thunk(lambda: pa((ȳ if np.ndim(ȳ) == 0 else ȳ[..., None, None]) * _cofactor(a, y).conj()))

    return y, det_pullback


# =============================================================================
# linalg.slogdet  ->  SlogdetResult(sign, logabsdet)
# =============================================================================

@register_frule(np.linalg.slogdet, object)
def slogdet_frule(tangents: Any, a: Any) -> tuple[Any, Any]:
    a = array_or_tracked(a)
    y = np.linalg.slogdet(a)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    t = np.sum(_T(np.linalg.inv(a)) * ȧ, axis=(-2, -1))    # tr(a⁻¹ ȧ)
    ṡ = y.sign * 1j * t.imag if a.dtype.kind == "c" else ZERO
    return y, Tangent[type(y)](sign=ṡ, logabsdet=np.real(t))  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


@register_rrule(np.linalg.slogdet, object)
def slogdet_rrule(a: Any) -> tuple[Any, Pullback]:
    pa = project_to(a)
    a = array_or_tracked(a)
    y = np.linalg.slogdet(a)
    is_complex = a.dtype.kind == "c"

    def slogdet_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'slogdet')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        s̄, l̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        # logabsdet = Re log det, sign = exp(i·Im log det); the gradient of
        # log det is a⁻ᵀ, so ā = (l̄ + i·θ̄)·a⁻ᴴ with θ̄ = Im(conj(sign)·s̄).
        c = np.zeros(np.shape(y.logabsdet)) if _zero(l̄) else np.real(l̄)
        if is_complex and not _zero(s̄):
            c = c + 1j * np.imag(np.conj(y.sign) * s̄)
        if _zero(l̄) and not (is_complex and not _zero(s̄)):
            return NO, _zero_for(pa)
        return NO, Thunk(lambda: pa((c if np.ndim(c) == 0 else c[..., None, None]) * _H(np.linalg.inv(a))))

    return y, slogdet_pullback


# =============================================================================
# linalg.solve
# =============================================================================

_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _solve_is_vector(a: Any, b: Any) -> Any:
    return b.ndim == 1 if _NUMPY2 else (b.ndim == 1 or b.ndim == a.ndim - 1)


@register_frule(np.linalg.solve, object, object)
def solve_frule(tangents: Any, a: Any, b: Any) -> tuple[Any, Any]:
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.linalg.solve(a, b)
    ȧ, ḃ = plain(unthunk(tangents[1])), unthunk(tangents[2])
    if _zero(ȧ) and _zero(ḃ):
        return y, ZERO
    vec = _solve_is_vector(a, b)
    y2 = y[..., None] if vec else y
    rhs: Any = ZERO if _zero(ḃ) else (array_or_tracked(ḃ)[..., None] if vec else ḃ)
    if not _zero(ȧ):
        rhs = _add(rhs, -(ȧ @ y2))
    ẏ = np.linalg.solve(a, np.broadcast_to(rhs, np.broadcast_shapes(np.shape(rhs), y2.shape)))
    return y, (ẏ[..., 0] if vec else ẏ)


@register_rrule(np.linalg.solve, object, object)
def solve_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.linalg.solve(a, b)
    vec = _solve_is_vector(a, b)
    b2 = b[..., None] if vec else b
    y2 = y[..., None] if vec else y

    def solve_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'solve')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        ȳ2 = array_or_tracked(ȳ)[..., None] if vec else array_or_tracked(ȳ)
        # b̄ = a⁻ᴴ ȳ is needed by both cotangents: compute it once, on demand.
        cache: list[Any] = []

        def solve_ȳ() -> Any:
            if not cache:
                rhs = ȳ2 if ȳ2.shape == y2.shape else np.broadcast_to(ȳ2, y2.shape)
                cache.append(np.linalg.solve(_H(a), rhs))
            return cache[0]

        def solve_ā() -> Any:
            return _fit(a, -(solve_ȳ() @ _H(y2)), pa)

        def solve_b̄() -> Any:
            g = solve_ȳ()
            g = g if g.shape == b2.shape else unbroadcast(b2, g)
            return pb(g.reshape(b.shape) if vec else g)

        return NO, (Thunk(solve_ā) if pa.kind else NO), (Thunk(solve_b̄) if pb.kind else NO)

    return y, solve_pullback


# =============================================================================
# linalg.pinv
# =============================================================================

def _pinv_opts(rest: Any, kw: Any) -> None:
    rcond, herm = _opts("numpy.linalg.pinv", rest, kw, (("rcond", None), ("hermitian", False)))
    if herm:
        raise ValueError("numpy.linalg.pinv: the rule cannot honour hermitian=True; call it without")


def _pinv_pushforward(a: Any, X: Any, ȧ: Any) -> Any:
    """Ẋ = −X ȧ X + X Xᴴ ȧᴴ (I − a X) + (I − X a) ȧᴴ Xᴴ X (constant rank)."""
    ȧh = _H(ȧ)
    return (-(X @ ȧ @ X) + X @ (_H(X) @ (ȧh - (ȧh @ a) @ X))
            + (ȧh - X @ (a @ ȧh)) @ (_H(X) @ X))


def _pinv_pullback(a: Any, X: Any, X̄: Any) -> Any:
    Xh = _H(X)
    X̄h = _H(X̄)
    return (-(Xh @ X̄ @ Xh) + (X̄h - a @ (X @ X̄h)) @ (X @ Xh)
            + (Xh @ X) @ (X̄h - (X̄h @ X) @ a))


@register_frule(np.linalg.pinv, object, ...)
def pinv_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    _pinv_opts(rest, kw)
    a = array_or_tracked(a)
    X = np.linalg.pinv(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return X, ZERO
    return X, _pinv_pushforward(a, X, array_or_tracked(ȧ))


@register_rrule(np.linalg.pinv, object, ...)
def pinv_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    _pinv_opts(rest, kw)
    pa = project_to(a)
    a = array_or_tracked(a)
    X = np.linalg.pinv(a, *rest, **kw)
    nrest = (NO,) * len(rest)

    def pinv_pullback(X̄: Any) -> tuple[Any, ...]:
        X̄ = seed(X̄, "pinv")
        if _zero(X̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_pinv_pullback(a, X, array_or_tracked(unthunk(X̄)))))) + nrest

    return X, pinv_pullback


# =============================================================================
# linalg.lstsq  ->  (x, residuals, rank, s)
# =============================================================================

def _lstsq_setup(a: Any, b: Any, rest: Any, kw: Any) -> Any:
    rcond, = _opts("numpy.linalg.lstsq", rest, kw, (("rcond", None),))
    a, b = array_or_tracked(a), array_or_tracked(b)
    out = np.linalg.lstsq(a, b, rcond)
    m, n = a.shape
    cutoff = np.finfo(np.result_type(a.dtype, float)).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    X = np.linalg.pinv(a, rcond=cutoff)
    return a, b, out, X


@register_frule(np.linalg.lstsq, object, object, ...)
def lstsq_frule(tangents: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    a, b, y, X = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    ȧ, ḃ = plain(unthunk(tangents[1])), unthunk(tangents[2])
    if _zero(ȧ) and _zero(ḃ):
        return y, ZERO
    vec = b.ndim == 1
    x2, b2 = (x[:, None], b[:, None]) if vec else (x, b)
    ḃ2 = ZERO if _zero(ḃ) else (array_or_tracked(ḃ)[:, None] if vec else array_or_tracked(ḃ))
    ẋ = ZERO if _zero(ḃ2) else X @ ḃ2
    if not _zero(ȧ):
        ẋ = _add(ẋ, _pinv_pushforward(a, X, array_or_tracked(ȧ)) @ b2)
    # residuals (the squared norms of e = b − a x): x is optimal, so only the
    # explicit dependence counts: ṙ = 2 Re Σ conj(e)·(ḃ − ȧ x)
    ṙ: Any = ZERO
    if res.size:
        ė = ḃ2 if _zero(ȧ) else _add(ḃ2, -(array_or_tracked(ȧ) @ x2))
        e = b2 - a @ x2
        ṙ = (2 * np.sum((e.conj() * ė).real, axis=0)).astype(res.dtype)
    ṡ = ZERO
    if not _zero(ȧ):
        U, sv, Vh = np.linalg.svd(a, full_matrices=False)
        ṡ = _svd_pushforward(U, sv, Vh, array_or_tracked(ȧ), False)[1]
    ẋ = ẋ[:, 0] if vec and not _zero(ẋ) else ẋ
    return y, Tangent[tuple](ẋ, ṙ, NO, ṡ)  # type: ignore[type-arg]


@register_rrule(np.linalg.lstsq, object, object, ...)
def lstsq_rrule(a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b, y, X = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    vec = b.ndim == 1
    x2, b2 = (x[:, None], b[:, None]) if vec else (x, b)
    nrest = (NO,) * len(rest)

    def lstsq_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'lstsq')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        x̄, r̄, s̄ = unthunk(ȳ[0]), unthunk(ȳ[1]), unthunk(ȳ[3])
        x̄2 = ZERO if _zero(x̄) else (array_or_tracked(x̄)[:, None] if vec else array_or_tracked(x̄))
        # residuals: r̄ₖ·2eₖ for b, −r̄ₖ·2eₖ xₖᴴ for a (e = b − a x)
        er = ZERO if _zero(r̄) or not res.size else 2 * (b2 - a @ x2) * np.real(array_or_tracked(r̄))

        def lstsq_ā() -> Any:
            ā = ZERO if _zero(x̄2) else _pinv_pullback(a, X, x̄2 @ _H(b2))
            if not _zero(er):
                ā = _add(ā, -(er @ _H(x2)))
            if not _zero(s̄):
                U, sv, Vh = np.linalg.svd(a, full_matrices=False)
                ā = _add(ā, _svd_pullback(U, sv, Vh, ZERO, s̄, ZERO))
            return pa(ā)

        def lstsq_b̄() -> Any:
            b̄ = _add(ZERO if _zero(x̄2) else _H(X) @ x̄2, er)
            return pb(b̄.reshape(b.shape))

        need_b = not (_zero(x̄2) and _zero(er))
        need_a = need_b or not _zero(s̄)
        ā = Thunk(lstsq_ā) if need_a and pa.kind else _zero_for(pa)
        b̄ = Thunk(lstsq_b̄) if need_b and pb.kind else _zero_for(pb)
        return (NO, ā, b̄) + nrest

    return y, lstsq_pullback


# =============================================================================
# linalg.matrix_power
# =============================================================================

def _powers(a: Any, n: Any) -> Any:
    """[a⁰, a¹, …, a^(n−1)]"""
    out = [np.broadcast_to(_eye_like(a), a.shape)]
    for _ in range(n - 1):
        out.append(out[-1] @ a)
    return out


@register_frule(np.linalg.matrix_power, object, object)
def matrix_power_frule(tangents: Any, a: Any, n: Any) -> tuple[Any, Any]:
    a = array_or_tracked(a)
    y = np.linalg.matrix_power(a, n)
    ȧ = plain(unthunk(tangents[1]))
    n = operator.index(n)
    if _zero(ȧ) or n == 0:
        return y, ZERO
    if n < 0:
        b = np.linalg.inv(a)
        ȧ = -(b @ ȧ @ b)
        a, n = b, -n
    P = _powers(a, n)
    return y, _sum_tangents([P[k] @ ȧ @ P[n - 1 - k] for k in range(n)])


@register_rrule(np.linalg.matrix_power, object, object)
def matrix_power_rrule(a: Any, n: Any) -> tuple[Any, Pullback]:
    pa = project_to(a)
    a = array_or_tracked(a)
    y = np.linalg.matrix_power(a, n)
    n = operator.index(n)

    def matrix_power_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'matrix_power')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or n == 0:
            return NO, _zero_for(pa), NO

        def matrix_power_ā() -> Any:
            base, m = (np.linalg.inv(a), -n) if n < 0 else (a, n)
            P = [_H(p) for p in _powers(base, m)]
            b̄ = _sum_tangents([P[k] @ ȳ @ P[m - 1 - k] for k in range(m)])
            if n < 0:
                bh = _H(base)
                b̄ = -(bh @ b̄ @ bh)
            return pa(b̄)

        return NO, Thunk(matrix_power_ā), NO

    return y, matrix_power_pullback
