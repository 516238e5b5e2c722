"""Rule bodies for the `linalg` extension's factorizations, computed with the
namespace of their argument: qr, svd, svdvals, eigh, eigvalsh (cholesky's:
linalg_ext.py).  The conventions (numpy/linalg/__init__.py gathers them):

- degenerate spectra: F_ij = 1/(λ_j − λ_i) is set to zero for |λ_j − λ_i| ≤
  100·n·eps·max|λ| (JAX's convention), and svd's 1/σ terms for σ below the
  same tolerance: never inf/NaN, the exact derivative of every function that
  does not depend on the basis inside a degenerate eigenspace;
- the phases of complex vectors are fixed as ChainRules does (Vᴴ dV with a
  zero diagonal for svd's V and eigh's V, Uᴴ dU with the imaginary diagonal
  term);
- qr differentiates the reduced factorisation of a full-rank matrix (tall,
  square or wide); svd the thin one;
- eigh and eigvalsh read one triangle (`UPLO`, the lower one by default) and
  the real part of the diagonal: the cotangent lives there.

A body is `body(xp, a, Ω, opts) -> (pushforward(Δa), adjoint(ȳ))` for
`_linalg_common._unary`; the tuple results (QRResult, SVDResult,
EighResult) get structural tangents, built positionally (every library
names their fields its own way).  The bodies write into no array: on an
AD's traced values they are differentiated as they are.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules._core import Tangent, unthunk
from chainrules.rulesets.array_api._common import device_kw, is_complex, is_zero, register_table
from chainrules.rulesets.array_api._linalg_common import _H, _eye, _tril, _unary, _where0
from chainrules.rulesets.array_api.linalg_ext import _hermitian_from_lower, _lower_adjoint

__all__ = ["qr_rules", "svd_rules", "svdvals_rules", "eigh_rules", "eigvalsh_rules", "TABLE", "register"]


# ----- shared: diagonals, gaps, parts of tuple cotangents ------------------------------------------------

def _diag(xp: Any, x: Any) -> Any:
    return xp.linalg.diagonal(x)


def _diag_embed(xp: Any, d: Any) -> Any:
    """Matrices with d on the diagonal (a product with the identity: no writes)."""
    k = d.shape[-1]
    return xp.multiply(xp.expand_dims(d, axis=-2), _eye(xp, k, k, 0, d))


def _mm(xp: Any, *xs: Any) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = xp.matmul(out, x)
    return out


def _add(t: Any, u: Any) -> Any:
    """t + u, either None (zero)."""
    if t is None:
        return u
    return t if u is None else t + u


def _tolerance(xp: Any, v: Any) -> Any:
    """100·n·eps·max|v| per stacked vector (the last axis kept, length 1)."""
    n = v.shape[-1]
    if n == 0:
        return xp.zeros(tuple(v.shape[:-1]) + (1,), dtype=v.dtype, **device_kw(xp, v))
    eps = xp.finfo(v.dtype).eps
    return xp.max(xp.abs(v), axis=-1, keepdims=True) * (100 * n * eps)


def _inv_gaps(xp: Any, lam: Any) -> Any:
    """F_ij = 1/(λ_j − λ_i), zero on the diagonal and for degenerate pairs."""
    d = xp.expand_dims(lam, axis=-2) - xp.expand_dims(lam, axis=-1)
    degenerate = xp.abs(d) <= xp.expand_dims(_tolerance(xp, lam), axis=-1)
    return _where0(xp, degenerate, 1 / xp.where(degenerate, xp.ones_like(d), d))


def _safe_inv(xp: Any, s: Any) -> Any:
    """1/σ, zero for σ at or below the degeneracy tolerance (a pseudo-inverse)."""
    small = xp.abs(s) <= _tolerance(xp, s)
    return _where0(xp, small, 1 / xp.where(small, xp.ones_like(s), s))


def _parts(ȳ: Any, n: int) -> Any:
    """The n parts of a tuple's cotangent, None for a zero."""
    parts = [unthunk(ȳ[i]) for i in range(n)]
    return [None if is_zero(p) else p for p in parts]


def _i_imag_diag(xp: Any, x: Any) -> Any:
    """i·Im diag(x) on the diagonal (complex x)."""
    return _diag_embed(xp, xp.imag(_diag(xp, x)) * 1j)


def _real_diag(xp: Any, x: Any) -> Any:
    """Re diag(x) on the diagonal, in x's dtype."""
    d = _diag_embed(xp, xp.real(_diag(xp, x)) if is_complex(xp, x) else _diag(xp, x))
    return d


# ----- qr (reduced; R with LAPACK's real diagonal) ----------------------------------------------------------

def _qr_square_forward(xp: Any, Q: Any, R: Any, Δa: Any) -> Any:
    """(Q̇, Ṙ) of a = QR with m ≥ n."""
    Y = xp.matmul(Δa, xp.linalg.inv(R))
    X = xp.matmul(_H(xp, Q), Y)
    low = _tril(xp, X, -1)
    Ω = low - _H(xp, low)
    if is_complex(xp, X):
        Ω = Ω + _i_imag_diag(xp, X)
    return xp.matmul(Q, Ω - X) + Y, xp.matmul(X - Ω, R)


def _qr_square_adjoint(xp: Any, Q: Any, R: Any, Q̄: Any, R̄: Any) -> Any:
    W = None if R̄ is None else xp.matmul(R̄, _H(xp, R))
    if Q̄ is not None:
        W = _add(W, -xp.matmul(_H(xp, Q), Q̄))
    # Z = W − Ω*(W), Ω*(W) = tril(W,−1) − tril(Wᴴ,−1) + i·Im diag(W)
    Z = (W - _tril(xp, W, 0)) + _tril(xp, _H(xp, W), -1) + _real_diag(xp, W)
    Ȳ = xp.matmul(Q, Z) if Q̄ is None else Q̄ + xp.matmul(Q, Z)
    return _H(xp, xp.linalg.solve(R, _H(xp, Ȳ)))         # Ȳ R⁻ᴴ


def qr_forward(xp: Any, Q: Any, R: Any, a: Any, Δa: Any) -> Any:
    m = a.shape[-2]
    if m >= a.shape[-1]:
        return _qr_square_forward(xp, Q, R, Δa)
    Q̇, Ṙ1 = _qr_square_forward(xp, Q, R[..., :, :m], Δa[..., :, :m])
    Ṙ2 = xp.matmul(_H(xp, Q̇), a[..., :, m:]) + xp.matmul(_H(xp, Q), Δa[..., :, m:])
    return Q̇, xp.concat([Ṙ1, Ṙ2], axis=-1)


def qr_adjoint(xp: Any, Q: Any, R: Any, a: Any, Q̄: Any, R̄: Any) -> Any:
    """ā from the cotangents of Q and R (None: zero)."""
    m = a.shape[-2]
    if m >= a.shape[-1]:
        return _qr_square_adjoint(xp, Q, R, Q̄, R̄)
    a2 = a[..., :, m:]
    R̄1, R̄2 = (None, None) if R̄ is None else (R̄[..., :, :m], R̄[..., :, m:])
    if R̄2 is not None:
        Q̄ = _add(Q̄, xp.matmul(a2, _H(xp, R̄2)))
    ā1 = _qr_square_adjoint(xp, Q, R[..., :, :m], Q̄, R̄1)
    ā2 = xp.zeros(tuple(a2.shape), dtype=ā1.dtype, **device_kw(xp, a)) if R̄2 is None else xp.matmul(Q, R̄2)
    return xp.concat([ā1, ā2], axis=-1)


def _qr_mode(name: str, a: Any, mode: Any) -> str:
    if mode == "complete" and a.shape[-2] <= a.shape[-1]:
        return "reduced"
    if mode not in ("reduced", "r"):
        raise ValueError(f"{name}: the rule differentiates mode='reduced' and mode='r' "
                         f"(and 'complete' for wide matrices), not mode={mode!r}")
    return str(mode)


def _qr_body(xp: Any, a: Any, Ω: Any, opts: Any) -> Any:
    mode = _qr_mode("qr", a, opts["mode"])
    Q, R = (Ω[0], Ω[1]) if mode == "reduced" else xp.linalg.qr(a)

    def forward(Δa: Any) -> Any:
        Q̇, Ṙ = qr_forward(xp, Q, R, a, Δa)
        return Tangent[type(Ω)](Q̇, Ṙ) if mode == "reduced" else Ṙ  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time

    def adjoint(ȳ: Any) -> Any:
        Q̄, R̄ = _parts(ȳ, 2) if mode == "reduced" else (None, ȳ)
        return None if Q̄ is None and R̄ is None else qr_adjoint(xp, Q, R, a, Q̄, R̄)
    return forward, adjoint


def qr_rules(f: Any, name: str = "qr") -> Any:
    return _unary(name, f, ("mode",), ("mode",), {"mode": "reduced"}, _qr_body)


# ----- svd (thin), svdvals ---------------------------------------------------------------------------------

def svd_forward(xp: Any, U: Any, s: Any, Vh: Any, Δa: Any, need_uv: bool) -> Any:
    """(U̇, ṡ, V̇h); U̇ and V̇h None unless need_uv."""
    V = _H(xp, Vh)
    dP = _mm(xp, _H(xp, U), Δa, V)
    d = _diag(xp, dP)
    ṡ = xp.real(d) if is_complex(xp, dP) else d
    if not need_uv:
        return None, ṡ, None
    m, n, k = U.shape[-2], V.shape[-2], s.shape[-1]
    F = _inv_gaps(xp, s * s)
    sinv = _safe_inv(xp, s)
    row, col = xp.expand_dims(s, axis=-2), xp.expand_dims(s, axis=-1)
    ΩU = F * (dP * row + col * _H(xp, dP))
    ΩV = F * (col * dP + _H(xp, dP) * row)
    if is_complex(xp, dP):
        ΩU = ΩU + _diag_embed(xp, xp.imag(d) * sinv * 1j)
    U̇, V̇ = xp.matmul(U, ΩU), xp.matmul(V, ΩV)
    if m > k:
        U̇ = U̇ + (xp.matmul(Δa, V) - xp.matmul(U, dP)) * xp.expand_dims(sinv, axis=-2)
    if n > k:
        V̇ = V̇ + (xp.matmul(_H(xp, Δa), U) - xp.matmul(V, _H(xp, dP))) * xp.expand_dims(sinv, axis=-2)
    return U̇, ṡ, _H(xp, V̇)


def svd_adjoint(xp: Any, U: Any, s: Any, Vh: Any, Ū: Any, s̄: Any, V̄h: Any) -> Any:
    """ā from the cotangents of U, s and Vh (None: zero)."""
    V = _H(xp, Vh)
    m, n, k = U.shape[-2], V.shape[-2], s.shape[-1]
    M = None if s̄ is None else _diag_embed(xp, xp.real(s̄) if is_complex(xp, s̄) else s̄)
    if Ū is not None or V̄h is not None:
        F = _inv_gaps(xp, s * s)
        sinv = _safe_inv(xp, s)
    if Ū is not None:
        UŪ = xp.matmul(_H(xp, U), Ū)
        J = F * UŪ
        M = _add(M, (J + _H(xp, J)) * xp.expand_dims(s, axis=-2))
        if is_complex(xp, UŪ):
            M = M + _diag_embed(xp, xp.imag(_diag(xp, UŪ)) * sinv * 1j)
    if V̄h is not None:
        K = F * xp.matmul(Vh, _H(xp, V̄h))
        M = _add(M, xp.expand_dims(s, axis=-1) * (K + _H(xp, K)))
    ā = _mm(xp, U, M, Vh)
    if Ū is not None and m > k:
        ā = ā + xp.matmul((Ū - xp.matmul(U, UŪ)) * xp.expand_dims(sinv, axis=-2), Vh)
    if V̄h is not None and n > k:
        ā = ā + xp.matmul(U, xp.expand_dims(sinv, axis=-1) * (V̄h - _mm(xp, V̄h, V, Vh)))
    return ā


def _svd_body(xp: Any, a: Any, Ω: Any, opts: Any) -> Any:
    if opts.get("hermitian"):
        raise TypeError("svd: the rule cannot honour the argument hermitian=True; call the primal without it")
    uv = bool(opts.get("compute_uv", True))
    if uv and opts.get("full_matrices", True) and a.shape[-2] != a.shape[-1]:
        raise ValueError("svd: the rule differentiates the thin SVD; pass full_matrices=False "
                         "(the extra columns of U or V are not unique)")
    U, s, Vh = (Ω[0], Ω[1], Ω[2]) if uv else xp.linalg.svd(a, full_matrices=False)

    def forward(Δa: Any) -> Any:
        U̇, ṡ, V̇h = svd_forward(xp, U, s, Vh, Δa, uv)
        return Tangent[type(Ω)](U̇, ṡ, V̇h) if uv else ṡ  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time

    def adjoint(ȳ: Any) -> Any:
        Ū, s̄, V̄h = _parts(ȳ, 3) if uv else (None, ȳ, None)
        return None if Ū is None and s̄ is None and V̄h is None else svd_adjoint(xp, U, s, Vh, Ū, s̄, V̄h)
    return forward, adjoint


def svd_rules(f: Any, name: str = "svd") -> Any:
    return _unary(name, f, ("full_matrices",), ("full_matrices", "compute_uv", "hermitian"),
                  {"full_matrices": True, "compute_uv": True}, _svd_body)


def _svdvals_body(xp: Any, a: Any, s: Any, opts: Any) -> Any:
    return _svd_body(xp, a, s, {"compute_uv": False})


def svdvals_rules(f: Any, name: str = "svdvals") -> Any:
    return _unary(name, f, (), (), {}, _svdvals_body)


# ----- eigh, eigvalsh (one triangle read) --------------------------------------------------------------------

def read_triangle(xp: Any, Δa: Any, uplo: str) -> Any:
    """The Hermitian matrix eigh reads from Δa (its triangle `uplo`)."""
    if uplo == "L":
        return _hermitian_from_lower(xp, Δa)
    return _H(xp, _hermitian_from_lower(xp, _H(xp, Δa)))


def triangle_adjoint(xp: Any, g: Any, uplo: str) -> Any:
    return _lower_adjoint(xp, g) if uplo == "L" else _H(xp, _lower_adjoint(xp, _H(xp, g)))


def eigh_forward(xp: Any, w: Any, V: Any, Δa: Any, uplo: str, need_vectors: bool) -> Any:
    dP = _mm(xp, _H(xp, V), read_triangle(xp, Δa, uplo), V)
    d = _diag(xp, dP)
    ẇ = xp.real(d) if is_complex(xp, d) else d
    return ẇ, (xp.matmul(V, _inv_gaps(xp, w) * dP) if need_vectors else None)


def eigh_adjoint(xp: Any, w: Any, V: Any, w̄: Any, V̄: Any, uplo: str) -> Any:
    M = None if w̄ is None else _diag_embed(xp, xp.real(w̄) if is_complex(xp, w̄) else w̄)
    if V̄ is not None:
        M = _add(M, _inv_gaps(xp, w) * xp.matmul(_H(xp, V), V̄))
    return triangle_adjoint(xp, _mm(xp, V, M, _H(xp, V)), uplo)


def _uplo(name: str, opts: Any) -> str:
    uplo = str(opts.get("UPLO") or "L").upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"{name}: UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


def _eigh_body(xp: Any, a: Any, Ω: Any, opts: Any) -> Any:
    uplo = _uplo("eigh", opts)
    w, V = Ω[0], Ω[1]

    def forward(Δa: Any) -> Any:
        return Tangent[type(Ω)](*eigh_forward(xp, w, V, Δa, uplo, True))  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time

    def adjoint(ȳ: Any) -> Any:
        w̄, V̄ = _parts(ȳ, 2)
        return None if w̄ is None and V̄ is None else eigh_adjoint(xp, w, V, w̄, V̄, uplo)
    return forward, adjoint


def _eigvalsh_body(xp: Any, a: Any, w: Any, opts: Any) -> Any:
    uplo = _uplo("eigvalsh", opts)
    V = (xp.linalg.eigh(a) if uplo == "L" else xp.linalg.eigh(a, UPLO=uplo))[1]

    def forward(Δa: Any) -> Any:
        return eigh_forward(xp, w, V, Δa, uplo, False)[0]

    def adjoint(w̄: Any) -> Any:
        return eigh_adjoint(xp, w, V, w̄, None, uplo)
    return forward, adjoint


def eigh_rules(f: Any, name: str = "eigh") -> Any:
    return _unary(name, f, ("UPLO",), ("UPLO",), {}, _eigh_body)


def eigvalsh_rules(f: Any, name: str = "eigvalsh") -> Any:
    return _unary(name, f, ("UPLO",), ("UPLO",), {}, _eigvalsh_body)


# the factorizations' rules by the standard's names (registered on NumPy's functions by
# numpy/linalg/factorizations.py; on other libraries' namespaces by `register`)
TABLE = {"qr": qr_rules, "svd": svd_rules, "svdvals": svdvals_rules, "eigh": eigh_rules,
         "eigvalsh": eigvalsh_rules}


def register(functions: Any) -> Any:
    """Register the rules of this file on the functions of these names in
    `functions`; returns the names registered."""
    return register_table(TABLE, functions)
