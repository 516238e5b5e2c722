"""Rules for `numpy.linalg`'s factorizations: cholesky, qr, svd, svdvals,
eigh, eigvalsh (the conventions at degenerate spectra and on the phases of
complex vectors: `numpy/linalg/__init__.py`)."""


# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
    Tangent,
    Thunk,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    zero_for as _zero_for,
    seed,
    plain,
    array_or_tracked,
)
from chainrules.rulesets.numpy.linalg._common import (
    _H,
    _diag,
    _diag_embed,
    _add,
    _opts,
    _inv_gaps,
    _safe_inv,
)


# =============================================================================
# linalg.cholesky (reads the lower triangle; the upper one with upper=True)
# =============================================================================

def _phi(x: Any) -> Any:
    """Lower triangle with the diagonal halved (no writes: x may be tracked)."""
    return np.tril(x, -1) + _diag_embed(_diag(x) / 2)


def _hermitian_from_lower(x: Any) -> Any:
    """The Hermitian matrix NumPy reads from the lower triangle of x."""
    low = np.tril(x, -1)
    return low + _H(low) + _diag_embed(_diag(x).real, dtype=x.dtype)


def _lower_adjoint(g: Any) -> Any:
    """Adjoint of `_hermitian_from_lower`: a lower-triangular cotangent with a
    real diagonal."""
    return np.tril(g + _H(g), -1) + _diag_embed(_diag(g).real, dtype=g.dtype)


def _cholesky_lower_pushforward(L: Any, ȧ: Any) -> Any:
    Linv = np.linalg.inv(L)
    return L @ _phi(Linv @ _hermitian_from_lower(ȧ) @ _H(Linv))


def _cholesky_lower_pullback(L: Any, L̄: Any) -> Any:
    Linv = np.linalg.inv(L)
    g = _H(Linv) @ _phi(_H(L) @ L̄) @ Linv
    return _lower_adjoint(g)


@register_frule(np.linalg.cholesky, object)
def cholesky_frule(tangents: Any, a: Any, **kw: Any) -> tuple[Any, Any]:
    upper = kw.get("upper", False)
    y = np.linalg.cholesky(a, **kw)
    if type(y) is not np.ndarray and isinstance(y, np.ndarray):     # a subclass: on the plain array
        return y, cholesky_frule(tangents, plain(a), **kw)[1]
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    ȧ = array_or_tracked(ȧ)
    if upper:
        return y, _H(_cholesky_lower_pushforward(_H(y), _H(ȧ)))
    return y, _cholesky_lower_pushforward(y, ȧ)


@register_rrule(np.linalg.cholesky, object)
def cholesky_rrule(a: Any, **kw: Any) -> tuple[Any, Pullback]:
    upper = kw.get("upper", False)
    pa = ProjectTo(a)
    y = np.linalg.cholesky(a, **kw)

    def cholesky_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'cholesky')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        ȳ = array_or_tracked(ȳ)
        if upper:
            return NO, Thunk(lambda: pa(_H(_cholesky_lower_pullback(_H(y), _H(ȳ)))))
        return NO, Thunk(lambda: pa(_cholesky_lower_pullback(y, ȳ)))

    return y, cholesky_pullback


# =============================================================================
# linalg.qr  ->  QRResult(Q, R) (mode='reduced'), or R (mode='r')
# =============================================================================

def _qr_mode(a: Any, rest: Any, kw: Any) -> Any:
    mode, = _opts("numpy.linalg.qr", rest, kw, (("mode", "reduced"),))
    shape = np.shape(a)         # fewer than 2 dimensions: the primal raises LinAlgError
    if mode == "complete" and len(shape) >= 2 and shape[-2] <= shape[-1]:
        return "reduced"
    if mode not in ("reduced", "r"):
        raise ValueError(f"numpy.linalg.qr: the rule differentiates mode='reduced' and mode='r' "
                         f"(and 'complete' for wide matrices), not mode={mode!r}")
    return mode


def _qr_square_pushforward(Q: Any, R: Any, ȧ: Any) -> Any:
    """(Q̇, Ṙ) of a = QR with m ≥ n and LAPACK's real diagonal of R."""
    Y = ȧ @ np.linalg.inv(R)
    X = _H(Q) @ Y
    low = np.tril(X, -1)
    Ω = low - _H(low)
    if X.dtype.kind == "c":
        Ω = Ω + _diag_embed(1j * _diag(X).imag, dtype=X.dtype)
    return Q @ (Ω - X) + Y, (X - Ω) @ R


def _qr_square_pullback(Q: Any, R: Any, Q̄: Any, R̄: Any) -> Any:
    W: Any = ZERO
    if not _zero(R̄):
        W = R̄ @ _H(R)
    if not _zero(Q̄):
        W = _add(W, -(_H(Q) @ Q̄))
    # Z = W − Ω*(W), Ω*(W) = tril(W,−1) − tril(Wᴴ,−1) + i·Im diag(W)
    Z = np.triu(W, 1) + np.tril(_H(W), -1) + _diag_embed(_diag(W).real, dtype=W.dtype)
    Ȳ = Q @ Z if _zero(Q̄) else Q̄ + Q @ Z
    return _H(np.linalg.solve(R, _H(Ȳ)))     # Ȳ R⁻ᴴ


def _qr_pushforward(Q: Any, R: Any, a: Any, ȧ: Any) -> Any:
    m, n = a.shape[-2:]
    if m >= n:
        return _qr_square_pushforward(Q, R, ȧ)
    Q̇, Ṙ1 = _qr_square_pushforward(Q, R[..., :, :m], ȧ[..., :, :m])
    Ṙ2 = _H(Q̇) @ a[..., :, m:] + _H(Q) @ ȧ[..., :, m:]
    return Q̇, np.concatenate([Ṙ1, Ṙ2], axis=-1)


def _qr_pullback(Q: Any, R: Any, a: Any, Q̄: Any, R̄: Any) -> Any:
    m, n = a.shape[-2:]
    if m >= n:
        return _qr_square_pullback(Q, R, Q̄, R̄)
    a2 = a[..., :, m:]
    R̄1, R̄2 = (ZERO, ZERO) if _zero(R̄) else (R̄[..., :, :m], R̄[..., :, m:])
    if not _zero(R̄2):
        Q̄ = _add(Q̄, a2 @ _H(R̄2))
    ā1 = _qr_square_pullback(Q, R[..., :, :m], Q̄, R̄1)
    ā2 = np.zeros(a2.shape, dtype=ā1.dtype) if _zero(R̄2) else Q @ R̄2
    return np.concatenate([ā1, ā2], axis=-1)


@register_frule(np.linalg.qr, object, ...)
def qr_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    mode = _qr_mode(a, rest, kw)
    a = array_or_tracked(a)
    y = np.linalg.qr(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    Q, R = (y.Q, y.R) if mode == "reduced" else np.linalg.qr(a)
    Q̇, Ṙ = _qr_pushforward(Q, R, a, array_or_tracked(ȧ))
    return y, (Tangent[type(y)](Q=Q̇, R=Ṙ) if mode == "reduced" else Ṙ)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


@register_rrule(np.linalg.qr, object, ...)
def qr_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    mode = _qr_mode(a, rest, kw)
    pa = ProjectTo(a)
    a = array_or_tracked(a)
    y = np.linalg.qr(a, *rest, **kw)
    Q, R = (y.Q, y.R) if mode == "reduced" else np.linalg.qr(a)
    nrest = (NO,) * len(rest)

    def qr_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'qr')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        if mode == "reduced":
            Q̄, R̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        else:
            Q̄, R̄ = ZERO, ȳ
        if _zero(Q̄) and _zero(R̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_qr_pullback(Q, R, a, Q̄, R̄)))) + nrest

    return y, qr_pullback


# =============================================================================
# linalg.svd  ->  SVDResult(U, S, Vh), or S with compute_uv=False
# =============================================================================

_SVD_SPEC = (("full_matrices", True), ("compute_uv", True), ("hermitian", False))


def _svd_opts(a: Any, rest: Any, kw: Any) -> Any:
    full, uv, herm = _opts("numpy.linalg.svd", rest, kw, _SVD_SPEC)
    if herm:
        raise ValueError("numpy.linalg.svd: the rule cannot honour hermitian=True; call it without")
    shape = np.shape(a)         # fewer than 2 dimensions: the primal raises LinAlgError
    if uv and full and len(shape) >= 2 and shape[-2] != shape[-1]:
        raise ValueError("numpy.linalg.svd: the rule differentiates the thin SVD; pass "
                         "full_matrices=False (the extra columns of U or V are not unique)")
    return uv


def _svd_pushforward(U: Any, s: Any, Vh: Any, ȧ: Any, need_uv: Any) -> Any:
    V = _H(Vh)
    dP = _H(U) @ ȧ @ V
    ṡ = _diag(dP).real
    if not need_uv:
        return None, ṡ, None
    m, n = U.shape[-2], V.shape[-2]
    k = s.shape[-1]
    F = _inv_gaps(s * s)
    sinv = _safe_inv(s)
    ΩU = F * (dP * s[..., None, :] + s[..., :, None] * _H(dP))
    ΩV = F * (s[..., :, None] * dP + _H(dP) * s[..., None, :])
    if dP.dtype.kind == "c":
        ΩU = ΩU + _diag_embed(1j * _diag(dP).imag * sinv, dtype=dP.dtype)
    U̇ = U @ ΩU
    V̇ = V @ ΩV
    if m > k:
        U̇ = U̇ + (ȧ @ V - U @ dP) * sinv[..., None, :]
    if n > k:
        V̇ = V̇ + (_H(ȧ) @ U - V @ _H(dP)) * sinv[..., None, :]
    return U̇, ṡ, _H(V̇)


def _svd_pullback(U: Any, s: Any, Vh: Any, Ū: Any, s̄: Any, V̄h: Any) -> Any:
    V = _H(Vh)
    m, n = U.shape[-2], V.shape[-2]
    k = s.shape[-1]
    Ū, s̄, V̄h = (t if _zero(t) else array_or_tracked(t) for t in (Ū, s̄, V̄h))
    dtype = np.result_type(U.dtype, *[t.dtype for t in (Ū, s̄, V̄h) if not _zero(t)])
    M = np.zeros(s.shape + (k,), dtype=dtype)
    if not _zero(s̄):
        M = M + _diag_embed(s̄, dtype=dtype)
    if not (_zero(Ū) and _zero(V̄h)):
        F = _inv_gaps(s * s)
        sinv = _safe_inv(s)
    if not _zero(Ū):
        UŪ = _H(U) @ Ū
        J = F * UŪ
        M = M + (J + _H(J)) * s[..., None, :]
        if dtype.kind == "c":
            M = M + _diag_embed(1j * _diag(UŪ).imag * sinv, dtype=dtype)
    if not _zero(V̄h):
        V̄ = _H(V̄h)
        K = F * (_H(V) @ V̄)
        M = M + s[..., :, None] * (K + _H(K))
    ā = U @ M @ Vh
    if not _zero(Ū) and m > k:
        ā = ā + ((Ū - U @ UŪ) * sinv[..., None, :]) @ Vh
    if not _zero(V̄h) and n > k:
        ā = ā + U @ (sinv[..., :, None] * (V̄h - (V̄h @ V) @ Vh))
    return ā


@register_frule(np.linalg.svd, object, ...)
def svd_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    uv = _svd_opts(a, rest, kw)
    a = array_or_tracked(a)
    y = np.linalg.svd(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    U, s, Vh = (y.U, y.S, y.Vh) if uv else np.linalg.svd(a, full_matrices=False)
    U̇, ṡ, V̇h = _svd_pushforward(U, s, Vh, array_or_tracked(ȧ), uv)
    return y, (Tangent[type(y)](U=U̇, S=ṡ, Vh=V̇h) if uv else ṡ)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


@register_rrule(np.linalg.svd, object, ...)
def svd_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    uv = _svd_opts(a, rest, kw)
    pa = ProjectTo(a)
    a = array_or_tracked(a)
    y = np.linalg.svd(a, *rest, **kw)
    U, s, Vh = (y.U, y.S, y.Vh) if uv else np.linalg.svd(a, full_matrices=False)
    nrest = (NO,) * len(rest)

    def svd_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'svd')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        if uv:
            Ū, s̄, V̄h = unthunk(ȳ[0]), unthunk(ȳ[1]), unthunk(ȳ[2])
        else:
            Ū, s̄, V̄h = ZERO, ȳ, ZERO
        if _zero(Ū) and _zero(s̄) and _zero(V̄h):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_svd_pullback(U, s, Vh, Ū, s̄, V̄h)))) + nrest

    return y, svd_pullback


# =============================================================================
# linalg.svdvals (NumPy >= 2): svd(a, compute_uv=False)
# =============================================================================

if hasattr(np.linalg, "svdvals"):
    @register_frule(np.linalg.svdvals, object)
    def svdvals_frule(tangents: Any, a: Any) -> tuple[Any, Any]:
        return svd_frule(tangents, a, compute_uv=False)

    @register_rrule(np.linalg.svdvals, object)
    def svdvals_rrule(a: Any) -> tuple[Any, Pullback]:
        return svd_rrule(a, compute_uv=False)


# =============================================================================
# linalg.eigh  ->  EighResult(eigenvalues, eigenvectors);  linalg.eigvalsh
# =============================================================================

def _uplo(fname: str, rest: Any, kw: Any) -> Any:
    uplo, = _opts(fname, rest, kw, (("UPLO", "L"),))
    uplo = str(uplo).upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"{fname}: UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


def _read_triangle(ȧ: Any, uplo: Any) -> Any:
    """The Hermitian matrix eigh reads from the tangent (triangle `uplo`)."""
    return _hermitian_from_lower(ȧ) if uplo == "L" else _H(_hermitian_from_lower(_H(ȧ)))


def _triangle_adjoint(g: Any, uplo: Any) -> Any:
    return _lower_adjoint(g) if uplo == "L" else _H(_lower_adjoint(_H(g)))


def _eigh_pushforward(w: Any, V: Any, ȧ: Any, uplo: Any, need_vectors: Any) -> Any:
    dP = _H(V) @ _read_triangle(array_or_tracked(ȧ), uplo) @ V
    ẇ = _diag(dP).real
    if not need_vectors:
        return ẇ, None
    return ẇ, V @ (_inv_gaps(w) * dP)


def _eigh_pullback(w: Any, V: Any, w̄: Any, V̄: Any, uplo: Any) -> Any:
    w̄, V̄ = (t if _zero(t) else array_or_tracked(t) for t in (w̄, V̄))
    dtype = np.result_type(V.dtype, *[t.dtype for t in (w̄, V̄) if not _zero(t)])
    M: Any = ZERO
    if not _zero(w̄):
        M = _diag_embed(w̄.real, dtype=dtype)
    if not _zero(V̄):
        M = _add(M, _inv_gaps(w) * (_H(V) @ V̄))
    return _triangle_adjoint(V @ M @ _H(V), uplo)


@register_frule(np.linalg.eigh, object, ...)
def eigh_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    uplo = _uplo("numpy.linalg.eigh", rest, kw)
    y = np.linalg.eigh(a, uplo)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    ẇ, V̇ = _eigh_pushforward(y.eigenvalues, y.eigenvectors, ȧ, uplo, True)
    return y, Tangent[type(y)](eigenvalues=ẇ, eigenvectors=V̇)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


@register_rrule(np.linalg.eigh, object, ...)
def eigh_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    uplo = _uplo("numpy.linalg.eigh", rest, kw)
    pa = ProjectTo(a)
    y = np.linalg.eigh(a, uplo)
    w, V = y.eigenvalues, y.eigenvectors
    nrest = (NO,) * len(rest)

    def eigh_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'eigh')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        w̄, V̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        if _zero(w̄) and _zero(V̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_eigh_pullback(w, V, w̄, V̄, uplo)))) + nrest

    return y, eigh_pullback


@register_frule(np.linalg.eigvalsh, object, ...)
def eigvalsh_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    uplo = _uplo("numpy.linalg.eigvalsh", rest, kw)
    w, V = np.linalg.eigh(a, uplo)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return w, ZERO
    return w, _eigh_pushforward(w, V, ȧ, uplo, False)[0]


@register_rrule(np.linalg.eigvalsh, object, ...)
def eigvalsh_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    uplo = _uplo("numpy.linalg.eigvalsh", rest, kw)
    pa = ProjectTo(a)
    w, V = np.linalg.eigh(a, uplo)
    nrest = (NO,) * len(rest)

    def eigvalsh_pullback(w̄: Any) -> tuple[Any, ...]:
        w̄ = seed(w̄, "eigvalsh")
        if _zero(w̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_eigh_pullback(w, V, w̄, ZERO, uplo)))) + nrest

    return w, eigvalsh_pullback
