"""The rules of `scipy.linalg.funm(A, func, disp=True)`, the matrix function
of an arbitrary scalar function `func` (SciPy's Schur–Parlett algorithm),
differentiated in A (func and disp have no tangent; with disp=False the
result (F, err) has the tangent (Ḟ, NoTangent())).

The Fréchet derivative of f at A in the direction E is the upper-right block
of f([[A, E], [0, A]]) (Higham, Functions of Matrices, thm 3.6) — but that
block has every eigenvalue twice, which the Parlett recurrence of funm
divides by (it returns an error of 1 there).  So the rule uses the
eigendecomposition A = V·Λ·V⁻¹ (the Daleckiĭ–Kreĭn formula):

    L(A, E) = V·((V⁻¹·E·V) ∘ D)·V⁻¹,   D_ij = f[λ_i, λ_j],

the divided differences (f(λ_i) − f(λ_j)) / (λ_i − λ_j), and f′(λ_i) where
the eigenvalues coincide (|λ_i − λ_j| ≤ 1e-8·max(1, |λ_i|, |λ_j|)).  f′ is
not known (func is any Python function of a complex vector, as funm calls
it): it is the five-point central difference of func at step
ε^(1/5)·max(1, |λ|), one call of func on 4n points, accurate to about 1e-12
relative for a smooth f.  The pullback is the exact adjoint of that linear
map, Ā = V⁻ᴴ·((Vᴴ·Ȳ·V⁻ᴴ) ∘ conj(D))·Vᴴ: it needs no symmetry of f (the
identity L(A, ·)* = L(Aᴴ, ·) holds only for f with real Taylor
coefficients; conj(D) is its general form).  A real A with a real F gets the
real part.

Where it holds: A diagonalizable with a well-conditioned eigenvector matrix,
which is also where funm's own result is accurate (distinct eigenvalues).
The formula's error grows as cond(V)·ε; a defective A (a Jordan block, such
as [[1, 1], [0, 1]], where funm itself reports err = 1 and returns a wrong
F) has a numerically singular V, and the finite number the formula gives
there is wrong.  So when cond(V) > 1/√ε (`DEFECTIVE_ABOVE`, about 7e7) the
tangent and the cotangent are NaN, no exception beyond funm's own, as issue 24 asks ("a defective matrix gives what JAX gives:
inf/NaN").  (The block-matrix form f([[A, E], [0, A]]) does not rescue it:
funm's Parlett recurrence fails on the repeated eigenvalues of that matrix.)
Below that threshold a nearly defective A loses digits: the error of the
divided differences, about ε·|f′|/gap, is amplified by cond(V)² (measured on
[[1, 1], [0, 1 + g]]: 1e-7 absolute at g = 1e-3, 3e-4 at g = 1e-4).  The body computes with
NumPy's functions that have rules (eig, inv, matmul, func on the eigenvalues),
so a nested differentiation differentiates it (order 2) when func is itself
differentiable code (np.exp, np.sin, a polynomial…).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sl

from chainrules.rulesets._arrays import NO, ZERO
from chainrules.rulesets._by_signature import H, define, square, value

_CLOSE = 1e-8
# cond(V) above which A counts as defective: the derivative is NaN (see the module's docstring)
DEFECTIVE_ABOVE = 1.0 / np.sqrt(np.finfo(np.float64).eps)
_STEP = np.finfo(np.float64).eps ** 0.2


def divided_differences(func: Any, λ: Any) -> Any:
    """D_ij = f[λ_i, λ_j]: (f(λ_i) − f(λ_j)) / (λ_i − λ_j), and f′ by a
    five-point stencil of func where λ_i and λ_j (nearly) coincide."""
    λv = np.asarray(value(λ))
    n = λv.shape[-1]
    scale = np.maximum(1.0, np.abs(λv))
    h = _STEP * scale
    # f at λ and at the stencil's four points around each λ: one call of func
    pts = λ[..., None] + np.array([0.0, -2.0, -1.0, 1.0, 2.0]) * h[..., None]
    fp = func(np.reshape(pts, (-1,))) * np.ones(5 * n)       # a constant func gives a scalar
    fp = np.reshape(fp, (n, 5))
    fλ = fp[:, 0]
    dfλ = (fp[:, 1] - 8.0 * fp[:, 2] + 8.0 * fp[:, 3] - fp[:, 4]) / (12.0 * h)
    gap = λ[:, None] - λ[None, :]
    gv = np.abs(λv[:, None] - λv[None, :])
    close = gv <= _CLOSE * np.maximum(scale[:, None], scale[None, :])
    mid = (dfλ[:, None] + dfλ[None, :]) / 2.0               # f′ at a pair of (nearly) equal λ
    return np.where(close, mid, (fλ[:, None] - fλ[None, :]) / np.where(close, 1.0, gap))


def _funm_check(o: Any) -> None:
    square("scipy.linalg.funm", "A", o["A"])
    if not callable(o["func"]):
        raise TypeError(f"scipy.linalg.funm: the argument func must be callable, got {type(o['func']).__name__}")
    if not isinstance(o["disp"], (bool, np.bool_)):
        raise TypeError(f"scipy.linalg.funm: the argument disp must be True or False, got {o['disp']!r}")


def _funm_body(o: Any, Ω: Any) -> Any:
    A, func = o["A"], o["func"]
    F = Ω if o["disp"] else Ω[0]
    λ, V = np.linalg.eig(A + 0j)             # complex: the same code for every real spectrum
    Vi = np.linalg.inv(V)
    D = divided_differences(func, λ)
    if np.linalg.cond(np.asarray(value(V))) > DEFECTIVE_ABOVE:
        D = D * np.nan          # defective A: NaN, not the wrong finite number the formula gives
    real = np.asarray(value(F)).dtype.kind != "c" and np.asarray(value(A)).dtype.kind != "c"

    def out(X: Any) -> Any:
        return np.real(X) if real else X

    def forward(Δ: Any) -> Any:
        Ḟ = out(V @ ((Vi @ Δ["A"] @ V) * D) @ Vi)
        return Ḟ if o["disp"] else (Ḟ, NO)

    def adjoint(ȳ: Any) -> Any:
        F̄ = ȳ if o["disp"] else ȳ[0]
        if isinstance(F̄, type(ZERO)):
            return {}
        return {"A": H(Vi) @ ((H(V) @ F̄ @ H(Vi)) * np.conj(D)) @ H(V)}
    return forward, adjoint


FUNM_RULES = define(sl.funm, "scipy.linalg.funm", ("A",), _funm_body, _funm_check)
