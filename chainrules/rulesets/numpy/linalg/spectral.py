"""Rules for `numpy.linalg.eig`, `eigvals` (general real or complex matrices)
and `cond`; the eig body serves scipy.linalg.eig/eigvals too.

eig: A = V·diag(w)·V⁻¹, NumPy's V with unit columns.  With G = V⁻¹·Ȧ·V:
ẇ = diag(G), V̇ = V·(F∘G) − V·diag(Re diag(Vᴴ·V·(F∘G))) (the second term keeps
the columns of unit length), F_ij = 1/(w_j − w_i), zero on the diagonal and
for degenerate pairs (numpy/linalg/__init__.py's tolerance).  The pullback is
its adjoint: Ā = V⁻ᴴ·(diag(w̄) + conj(F)∘(C − Vᴴ·V·diag(Re diag C)))·Vᴴ with
C = Vᴴ·V̄.  As JAX documents for its eig: each complex eigenvector is defined
up to a phase, LAPACK picks one, and only cotangents invariant to that phase
(functions of the vectors that do not depend on it) have a well-defined
pullback; for a real matrix with a real spectrum the vectors are real and the
sign LAPACK picks is locally constant, so V itself is differentiable.  At a
defective or degenerate matrix the derivative of V does not exist: the
degenerate pairs' terms are dropped (as eigh's).

cond(x, p): for p = None, 2, −2 the ratio of the extreme singular values
(σ̇ = Re(uᴴ·ẋ·v)); for the other p, norm(x, p)·norm(inv(x), p) through the
rules of norm and inv.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import frule as _frule, rrule as _rrule, unthunk
from chainrules.rulesets._arrays import NO, ZERO, is_zero
from chainrules.rulesets._by_signature import H, define, square, value
from chainrules.rulesets.numpy.linalg._common import _diag, _diag_embed, _inv_gaps

__all__ = ["eig_body", "cast_like"]


def eig_body(w: Any, V: Any) -> Any:
    """(pushforward(Ȧ, need_vectors) → (ẇ, V̇), adjoint(w̄, V̄) → Ā) of eig at (w, V)."""
    Vinv = np.linalg.inv(V)
    F = _inv_gaps(w)

    def forward(ȧ: Any, need_vectors: bool) -> Any:
        G = Vinv @ ȧ @ V
        ẇ = _diag(G)
        if not need_vectors:
            return ẇ, None
        V̇ = V @ (F * G)
        return ẇ, V̇ - V * np.real(np.sum(np.conj(V) * V̇, axis=-2))[..., None, :]

    def adjoint(w̄: Any, V̄: Any) -> Any:
        Ḡ: Any = ZERO
        if not is_zero(V̄):
            C = H(V) @ V̄
            Ḡ = np.conj(F) * (C - (H(V) @ V) * np.real(_diag(C))[..., None, :])
        if not is_zero(w̄):
            d = _diag_embed(w̄)
            Ḡ = d if is_zero(Ḡ) else Ḡ + d
        return H(Vinv) @ Ḡ @ H(V)
    return forward, adjoint


def cast_like(t: Any, like: Any) -> Any:
    """t in like's kind: the real part for a real spectrum, complex for a complex one."""
    complex_t, complex_like = np.iscomplexobj(value(t)), np.iscomplexobj(value(like))
    if complex_t and not complex_like:
        return np.real(t)
    return t + 0j if complex_like and not complex_t else t


def _eig_check(o: Any) -> None:
    s = np.shape(value(o["a"]))
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"numpy.linalg.eig: the argument a must be a square matrix (or a stack), got shape {s}")


def _np_eig_body(o: Any, Ω: Any) -> Any:
    only = not isinstance(Ω, tuple)
    w, V = np.linalg.eig(o["a"]) if only else Ω
    fwd, adj = eig_body(w, V)

    def forward(Δ: Any) -> Any:
        ẇ, V̇ = fwd(Δ["a"], not only)
        return cast_like(ẇ, w) if only else (cast_like(ẇ, w), cast_like(V̇, V))

    def adjoint(ȳ: Any) -> Any:
        w̄, V̄ = (ȳ, ZERO) if only else ȳ
        return {"a": adj(w̄, V̄)}
    return forward, adjoint


define(np.linalg.eig, "numpy.linalg.eig", ("a",), _np_eig_body, _eig_check)
define(np.linalg.eigvals, "numpy.linalg.eigvals", ("a",), _np_eig_body, _eig_check)


# ----- cond --------------------------------------------------------------------------------

# the rules of norm, called from cond's body (Any: a rule may decline, here they never do)
frule: Any = _frule
rrule: Any = _rrule


def _cond_body(o: Any, κ: Any) -> Any:
    x, p = o["x"], o["p"]
    if p in (None, 2, -2):
        U, s, Vh = np.linalg.svd(x, full_matrices=False)
        big, small = (0, -1) if p != -2 else (-1, 0)
        u1, v1 = U[..., :, big], np.conj(Vh[..., big, :])
        u2, v2 = U[..., :, small], np.conj(Vh[..., small, :])
        s2 = s[..., small]

        def sdot(u: Any, ẋ: Any, v: Any) -> Any:            # Re(uᴴ·ẋ·v)
            return np.real(np.sum(np.conj(u)[..., :, None] * ẋ * v[..., None, :], axis=(-2, -1)))

        def forward(Δ: Any) -> Any:
            return (sdot(u1, Δ["x"], v1) - κ * sdot(u2, Δ["x"], v2)) / s2

        def adjoint(ȳ: Any) -> Any:
            c = np.reshape(ȳ / s2, np.shape(value(s2)) + (1, 1))
            outer1 = u1[..., :, None] * np.conj(v1)[..., None, :]
            outer2 = u2[..., :, None] * np.conj(v2)[..., None, :]
            return {"x": c * (outer1 - np.reshape(κ, np.shape(value(κ)) + (1, 1)) * outer2)}
        return forward, adjoint
    # κ = norm(x, p)·norm(inv(x), p): the rules of norm and inv
    xi = np.linalg.inv(x)
    n1, n2 = np.linalg.norm(x, p, axis=(-2, -1)), np.linalg.norm(xi, p, axis=(-2, -1))

    def forward_p(Δ: Any) -> Any:
        ẋi = -(xi @ Δ["x"] @ xi)
        ṅ1 = unthunk(frule((NO, Δ["x"], NO, NO), np.linalg.norm, x, p, (-2, -1))[1])
        ṅ2 = unthunk(frule((NO, ẋi, NO, NO), np.linalg.norm, xi, p, (-2, -1))[1])
        return ṅ1 * n2 + n1 * ṅ2

    def adjoint_p(ȳ: Any) -> Any:
        x̄ = unthunk(rrule(np.linalg.norm, x, p, (-2, -1))[1](ȳ * n2)[1])
        x̄i = unthunk(rrule(np.linalg.norm, xi, p, (-2, -1))[1](ȳ * n1)[1])
        return {"x": x̄ - H(xi) @ x̄i @ H(xi)}
    return forward_p, adjoint_p


def _cond_check(o: Any) -> None:
    if o["p"] not in (None, 2, -2) and np.ndim(value(o["x"])) == 2:
        square("numpy.linalg.cond", "x", o["x"])            # norm(inv(x), p)


define(np.linalg.cond, "numpy.linalg.cond", ("x",), _cond_body, _cond_check)
