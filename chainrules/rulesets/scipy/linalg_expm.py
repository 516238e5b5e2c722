"""The fast path of `scipy.linalg.expm`'s rules for a plain ndarray (issue 24:
expm + gradient at or below JAX jit's cost).

The generic body (linalg.py) takes the Fréchet derivative as the upper-right
block of expm([[A, E], [0, A]]): a 2n×2n exponential, about eight times
the cost of expm(A), per tangent.  Here the primal is computed by the
scaling-and-squaring Padé algorithm (Higham 2005, degrees 3, 5, 7, 9, 13
chosen by ‖A‖₁), and the pieces it builds (the even powers of A, the
polynomials U and V, the LU factors of V − U, the squarings) are kept; the
Fréchet derivative of that same approximant in a direction E reuses them
(Al-Mohy and Higham, "Computing the Fréchet derivative of the matrix
exponential", SIAM J. Matrix Anal. Appl. 30 (2009), alg. 6.4: the products
M₂ₖ of E with the powers, one LU solve, the squarings' product rule),
about twice expm's products and no new factorisation.  The pullback is the
derivative at Aᴴ, whose pieces are the conjugate transposes of A's (the
approximant has real coefficients: L(A, ·)* = L(Aᴴ, ·)).

It is the exact derivative of the function the primal computes (the Padé
approximant), as JAX's is; tests/rulesets/scipy/test_linalg_expm.py checks
that it agrees with the generic body and with finite differences.  Other
arguments (tracked values, stacks, float32, other libraries) take the
generic body.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.linalg as sl

from chainrules._core import AbstractZero, ProjectTo, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, named_rule, seed

# the Padé coefficients b₀…b_m of exp (Higham 2005, table 2.3) and the norms θ_m up to which
# degree m meets double precision without scaling
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0,
        3960.0, 90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 5.371920351148152e0}
# degree 13: the rows W₁, Z₁, W₂, Z₂ as combinations of (A⁶, A⁴, A², I)
_B13 = _PADE[13]
_C13 = np.array([[_B13[13], _B13[11], _B13[9], 0.0], [_B13[12], _B13[10], _B13[8], 0.0],
                 [_B13[7], _B13[5], _B13[3], _B13[1]], [_B13[6], _B13[4], _B13[2], _B13[0]]])
# LAPACK's LU factorisation and solve, by dtype (scipy.linalg.lu_factor/lu_solve's checks cost
# more than the 10×10 solve itself)
_LAPACK = {np.dtype(t): sl.get_lapack_funcs(("getrf", "getrs"), dtype=t) for t in (np.float64, np.complex128)}


def _combine(C: Any, Xs: Any) -> Any:
    """The matrices Σⱼ C[i, j]·Xs[j], one per row of C, in one product."""
    n = Xs[0].shape[-1]
    return (C @ np.stack(Xs).reshape(len(Xs), -1)).reshape(len(C), n, n)


def _norm1(X: Any) -> float:
    return float(np.abs(X).sum(axis=0).max()) if X.size else 0.0


def _lu_solve(lu: Any, B: Any, adjoint: bool = False) -> Any:
    x, info = _LAPACK[lu[0].dtype][1](lu[0], lu[1], B, trans=(2 if lu[0].dtype.kind == "c" else 1) if adjoint else 0)
    return x


class ExpmPade:
    """expm(A) by scaling and squaring, keeping what its Fréchet derivative reuses."""

    __slots__ = ("n", "m", "s", "A", "powers", "W", "WZ1", "lu", "squares", "value")

    def __init__(self, A: Any) -> None:
        n = A.shape[-1]
        self.n = n
        norm = _norm1(A)
        self.m = next((m for m in (3, 5, 7, 9) if norm <= _THETA[m]), 13)
        A2 = A @ A
        powers = {2: A2, 4: A2 @ A2}
        if self.m >= 7:
            powers[6] = powers[4] @ A2
        if self.m == 9:
            powers[8] = powers[4] @ powers[4]
        self.s = 0
        if self.m == 13 and norm > _THETA[13]:
            # the squarings by ‖A^k‖^(1/k) rather than ‖A‖ (Al-Mohy and Higham 2009, alg. 5.1, with
            # the bounds ‖A⁸‖ ≤ ‖A⁴‖², ‖A¹⁰‖ ≤ ‖A⁴‖·‖A⁶‖): often fewer than ‖A‖ asks for
            n4, n6 = _norm1(powers[4]), _norm1(powers[6])
            eta = min(max(n6 ** (1 / 6), n4 ** (1 / 4)), max(n4 ** (1 / 4), (n4 * n6) ** (1 / 10)), norm)
            self.s = max(0, math.ceil(math.log2(eta / _THETA[13]))) if eta > 0 else 0
            if self.s:
                A = A / 2.0 ** self.s
                powers = {k: P / 2.0 ** (k * self.s) for k, P in powers.items()}
                A2 = powers[2]
        self.A = A
        self.powers = powers
        b = _PADE[self.m]
        eye = np.eye(n, dtype=A.dtype)
        if self.m == 13:
            # W₁, Z₁, W₂, Z₂: the four combinations of A⁶, A⁴, A², I in one contraction (at 10×10
            # the calls, not the flops, are the cost)
            WZ = _combine(_C13, [powers[6], powers[4], A2, eye])
            self.WZ1 = WZ[:2]                    # (W₁, Z₁), stacked: one batched product below
            W, V = powers[6] @ self.WZ1 + WZ[2:]
        else:
            W, V = b[1] * eye, b[0] * eye
            for k, Pk in powers.items():
                if k < self.m:
                    W += b[k + 1] * Pk
                    V += b[k] * Pk
        self.W = W
        U = A @ W
        lu, piv, info = _LAPACK[A.dtype][0](V - U)
        if info > 0:        # V − U singular (not for the norms θ_m allow): SciPy's error
            raise np.linalg.LinAlgError("scipy.linalg.expm: singular matrix in the Padé denominator")
        self.lu = (lu, piv)
        R = _lu_solve(self.lu, V + U)
        self.squares = []
        for _ in range(self.s):
            self.squares.append(R)
            R = R @ R
        self.value = R

    def frechet(self, E: Any, adjoint: bool = False) -> Any:
        """L(A, E), the derivative of the approximant at A in the direction E;
        with `adjoint`, L(Aᴴ, E) (its adjoint), from A's pieces transposed."""
        real = self.A.dtype.kind != "c"

        def h(X: Any) -> Any:
            return X if not adjoint else X.mT if real else X.conj().mT
        b, m = _PADE[self.m], self.m
        A = h(self.A)
        E = E / 2.0 ** self.s if self.s else E
        P = {k: h(v) for k, v in self.powers.items()}
        M = {2: A @ E + E @ A}
        M[4] = P[2] @ M[2] + M[2] @ P[2]
        if m >= 7:
            M[6] = P[4] @ M[2] + M[4] @ P[2]
        if m == 9:
            M[8] = P[4] @ M[4] + M[4] @ P[4]
        if m == 13:
            L = _combine(_C13[:, :3], [M[6], M[4], M[2]])      # (Lw₁, Lz₁, Lw₂, Lz₂)
            Lw, Lv = P[6] @ L[:2] + M[6] @ h(self.WZ1) + L[2:]
        else:
            Lw, Lv = b[3] * M[2], b[2] * M[2]
            for k in range(4, m, 2):
                Lw += b[k + 1] * M[k]
                Lv += b[k] * M[k]
        Lu = A @ Lw + E @ h(self.W)
        R = h(self.squares[0] if self.squares else self.value)
        # (V − U)·R = V + U, differentiated: (V − U)·L = (Lu + Lv) + (Lu − Lv)·R
        L = _lu_solve(self.lu, Lu + Lv + (Lu - Lv) @ R, adjoint)
        for Rk in self.squares:                     # R ← R²: L ← R·L + L·R
            Rk = h(Rk)
            L = Rk @ L + L @ Rk
        return L


def _plain(A: Any, kwargs: Any) -> bool:
    """A matrix the fast path serves: a square 2-d float64/complex128 ndarray, no options."""
    return (not kwargs and type(A) is np.ndarray and A.ndim == 2 and A.shape[0] == A.shape[1]
            and A.dtype in (np.float64, np.complex128) and bool(np.isfinite(A).all()))


def _direction(A: Any, E: Any) -> Any:
    """E in A's dtype: the real part for a real A (L is real-linear: Re L(A, E) = L(A, Re E))."""
    if A.dtype.kind != "c" and E.dtype.kind == "c":
        E = E.real
    return E.astype(A.dtype, copy=False)


def _register(generic_frule: Any, generic_rrule: Any) -> None:
    """The fast path on sl.expm for ndarrays, the generic rules for anything else."""

    def expm_frule(tangents: Any, A: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        ΔA = unthunk(tangents[1])
        if args or not _plain(A, kwargs) or isinstance(ΔA, AbstractZero) or type(ΔA) is not np.ndarray:
            out: tuple[Any, Any] = generic_frule(tangents, A, *args, **kwargs)
            return out
        pade = ExpmPade(A)
        return pade.value, pade.frechet(_direction(A, ΔA))

    def expm_rrule(A: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if args or not _plain(A, kwargs):
            generic: tuple[Any, Pullback] = generic_rrule(A, *args, **kwargs)
            return generic
        pade = ExpmPade(A)
        project = ProjectTo(A)

        def expm_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, "scipy.linalg.expm")
            if isinstance(ȳ, AbstractZero):
                return NO, project(ȳ)
            ȳ = unthunk(ȳ)
            if type(ȳ) is not np.ndarray:           # a tracked seed (the pullback differentiated)
                cotangents: tuple[Any, ...] = generic_rrule(A)[1](ȳ)
                return cotangents
            return NO, project(pade.frechet(_direction(A, ȳ), adjoint=True))
        return pade.value, expm_pullback

    register_frule(sl.expm, np.ndarray)(named_rule(expm_frule, "scipy.linalg.expm"))
    register_rrule(sl.expm, np.ndarray)(named_rule(expm_rrule, "scipy.linalg.expm"))


# linalg.py imports this module last, after defining the generic rules
from chainrules.rulesets.scipy import linalg as _generic  # noqa: E402

_register(*_generic.EXPM_RULES)
