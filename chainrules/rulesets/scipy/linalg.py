"""Rules for `scipy.linalg` (imported by `chainrules.rulesets` when
`scipy.linalg` is imported; the scaffold reading SciPy's keywords:
`_linalg_common.py`; the factorizations and their solvers:
`_linalg_factor.py`).

- The functions NumPy has too (inv, det, solve, pinv, cholesky, qr, svd,
  eigh, eigvalsh, norm, lstsq, eig, eigvals; pinvh) use the NumPy / array-API rule
  bodies (chainrules/rulesets/array_api/linalg_ext.py,
  numpy/linalg/*.py): the same pushforward and adjoint, with SciPy's primal
  and SciPy's keywords.  `assume_a=` (solve, inv) and `lower=` select the
  part of `a` SciPy reads (a triangle for 'sym', 'her', 'pos', the triangle
  for 'upper/lower triangular', the diagonal for 'diagonal'): the cotangent
  lives there.  eigh(a, b) and eigvalsh(a, b), the generalized problem
  a·v = λ·b·v with Vᴴ·b·V = I, are differentiated in a and b.  'banded' and 'tridiagonal', complex 'sym', eigh's
  subsets and type ≠ 1, qr's pivoting, pinv's return_rank are refused (a TypeError naming
  the argument).  (`scipy.linalg.kron` no longer exists: NumPy's kron has
  its rule.)
- Matrix functions through their Fréchet derivative: expm, logm, cosm,
  sinm, tanm, coshm, sinhm, tanhm and
  fractional_matrix_power (in A; in t: Ω·logm(A)) push E forward as the
  upper-right block of f([[A, E], [0, A]]) and pull Ȳ back as the Fréchet
  derivative at Aᴴ (these functions satisfy f(Aᴴ) = f(A)ᴴ); expm_frechet is
  differentiated the same way, one block size up.  sqrtm solves the Sylvester
  equation X·Ẋ + Ẋ·X = Ȧ (its adjoint: Xᴴ·Ā + Ā·Xᴴ = Ȳ); polar is built on
  it.  Every body calls the rule-bearing SciPy function, so every order works.
- The Sylvester and Lyapunov solvers: the derivative of the solution solves
  the same equation (its adjoint the adjoint equation, solved by the same
  function at the conjugate-transposed coefficients).
- block_diag, toeplitz, circulant are linear: the pullback is the adjoint
  (sums of the blocks and diagonals of Ȳ).  toeplitz(c) of a complex c
  uses conj(c) for its first row, as SciPy does: its cotangent takes that in.
- schur (_linalg_factor.py): a triangular T (output='complex', or a real
  matrix with a real spectrum) through a triangular Sylvester equation; a
  real Schur form with 2×2 blocks gets `not_implemented`; hessenberg of a
  real matrix likewise (Q·e₁ = e₁ fixes Q), complex ones `not_implemented`.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sl

from chainrules._core import Tangent, register_frule, register_rrule
from chainrules._xp import namespace, through_engines
from chainrules.rulesets._arrays import NO, ZERO, is_zero, named_rule, output_parts
from chainrules.rulesets.array_api import linalg_ext as ax
from chainrules.rulesets.numpy.linalg import factorizations as nf
from chainrules.rulesets.numpy.linalg._common import _diag, _diag_embed, _inv_gaps
from chainrules.rulesets.numpy.linalg import norms as nn, solve as ns
from chainrules.rulesets.numpy.linalg import spectral as nsp
from chainrules.rulesets.scipy import _linalg_factor
from chainrules.rulesets._by_signature import H, T, define, refuse, square, tril, triu, value

_sylvester = through_engines(sl.solve_sylvester)
_clyap = through_engines(sl.solve_continuous_lyapunov)
_dlyap = through_engines(sl.solve_discrete_lyapunov)


def _is_complex(x: Any) -> bool:
    return np.asarray(value(x)).dtype.kind == "c"


# ----- what part of `a` SciPy reads (assume_a=, lower=, transposed=) ---------------------------

def _structure(name: str, o: Any) -> Any:
    """(read, adjoint): the matrix SciPy solves with, as a linear map of `a`
    (and of its tangent), and that map's adjoint."""
    kind = o.get("assume_a")
    kind = {"gen": "general", "sym": "symmetric", "her": "hermitian", "pos": "positive definite"}.get(kind, kind)
    lower = bool(o.get("lower", False))
    uplo = "L" if lower else "U"
    if kind in (None, "general"):
        read = adjoint = (lambda x: x)
    elif kind in ("hermitian", "positive definite") or (kind == "symmetric" and not _is_complex(o["a"])):
        def read(x: Any) -> Any:
            return nf._read_triangle(x, uplo)

        def adjoint(g: Any) -> Any:
            return nf._triangle_adjoint(g, uplo)
    elif kind in ("upper triangular", "lower triangular", "diagonal"):
        def read(x: Any) -> Any:
            if kind == "diagonal":
                return x * np.eye(value(x).shape[-1])
            return tril(x) if kind == "lower triangular" else triu(x)
        adjoint = read                                      # a mask is its own adjoint
    else:
        refuse(name, "assume_a", o.get("assume_a"), " (the rules read 'general', 'symmetric' (real), "
               "'hermitian', 'positive definite', 'upper/lower triangular', 'diagonal')")
    if o.get("transposed"):
        if _is_complex(o["a"]):
            refuse(name, "transposed", True, " with a complex a")
        inner: Any = (read, adjoint)
        return (lambda x: T(inner[0](x))), (lambda g: inner[1](T(g)))
    return read, adjoint


# ----- inv, det, pinv, cholesky, solve: the array-API bodies -------------------------------------

def _unary_body(body: Any, opts: Any = None, check: Any = None) -> Any:
    """A body of array_api/linalg_ext.py (`body(xp, a, Ω, opts)`) for
    `define`, the matrix read through `_structure`."""
    def make(o: Any, Ω: Any) -> Any:
        read: Any = lambda x: x
        adjoint: Any = lambda g: g
        if check is not None:
            read, adjoint = check(o)
        a = read(o["a"])
        forward, adj = body(namespace(a), a, Ω, opts(o) if opts else {})
        return (lambda Δ: forward(read(Δ["a"]))), (lambda ȳ: {"a": adjoint(adj(ȳ))})
    return make


define(sl.inv, "scipy.linalg.inv", ("a",),
       _unary_body(ax._inv_body, check=lambda o: _structure("scipy.linalg.inv", o)))
define(sl.det, "scipy.linalg.det", ("a",), _unary_body(ax._det_body))


def _pinv_check(o: Any) -> None:
    if o["return_rank"]:
        refuse("scipy.linalg.pinv", "return_rank", True)


define(sl.pinv, "scipy.linalg.pinv", ("a",), _unary_body(ax._pinv_body), _pinv_check)
# pinvh reads the Hermitian matrix of one triangle of a (lower= as eigh's)
define(sl.pinvh, "scipy.linalg.pinvh", ("a",),
       _unary_body(ax._pinv_body, check=lambda o: _structure("scipy.linalg.pinvh", dict(o, assume_a="her"))),
       _pinv_check)
define(sl.cholesky, "scipy.linalg.cholesky", ("a",),
       _unary_body(ax._cholesky_body_of("upper"), opts=lambda o: {"upper": not o["lower"]}))


def _solve_body(o: Any, y: Any) -> Any:
    read, adjoint = _structure("scipy.linalg.solve", o)
    a, b = read(o["a"]), o["b"]
    xp = namespace(a, b)

    def forward(Δ: Any) -> Any:
        Δa = read(Δ["a"]) if "a" in Δ else None
        return ax._solve_forward(xp, a, b, y, Δa, Δ.get("b"))

    def adjoint_(ȳ: Any) -> Any:
        ā, b̄ = ax._solve_adjoints(xp, ȳ, a, b, y)
        return {"a": adjoint(ā()), "b": b̄()}
    return forward, adjoint_


define(sl.solve, "scipy.linalg.solve", ("a", "b"), _solve_body)


# ----- qr, svd, eigh, eigvalsh: the NumPy bodies, SciPy's primal --------------------------------

def _qr_check(o: Any) -> None:
    if o["pivoting"]:
        refuse("scipy.linalg.qr", "pivoting", True)
    m, n = np.shape(value(o["a"]))[-2:]
    if o["mode"] not in ("full", "economic", "r") or (o["mode"] == "full" and m > n):
        refuse("scipy.linalg.qr", "mode", o["mode"], " (the thin factorisation: mode='economic', 'r', "
               "or 'full' of a square or wide matrix)")


def _qr_body(o: Any, Ω: Any) -> Any:
    a = o["a"]
    Q, R = (Ω[0], Ω[1]) if o["mode"] != "r" else through_engines(sl.qr)(a, mode="economic")

    def forward(Δ: Any) -> Any:
        Q̇, Ṙ = nf._qr_pushforward(Q, R, a, Δ["a"])
        return (Q̇, Ṙ) if o["mode"] != "r" else (Ṙ,)

    def adjoint(ȳ: Any) -> Any:
        Q̄, R̄ = ȳ if o["mode"] != "r" else (ZERO, ȳ[0])
        return {"a": nf._qr_pullback(Q, R, a, Q̄, R̄)}
    return forward, adjoint


define(sl.qr, "scipy.linalg.qr", ("a",), _qr_body, _qr_check)


def _svd_check(o: Any) -> None:
    m, n = np.shape(value(o["a"]))[-2:]
    if o["compute_uv"] and o["full_matrices"] and m != n:
        refuse("scipy.linalg.svd", "full_matrices", True, " of a non-square matrix (its extra singular "
               "vectors are not unique); pass full_matrices=False")


def _svd_body(o: Any, Ω: Any) -> Any:
    a, uv = o["a"], o["compute_uv"]
    U, s, Vh = Ω if uv else through_engines(sl.svd)(a, full_matrices=False)

    def forward(Δ: Any) -> Any:
        U̇, ṡ, V̇h = nf._svd_pushforward(U, s, Vh, Δ["a"], uv)
        return (U̇, ṡ, V̇h) if uv else ṡ

    def adjoint(ȳ: Any) -> Any:
        Ū, s̄, V̄h = ȳ if uv else (ZERO, ȳ, ZERO)
        return {"a": nf._svd_pullback(U, s, Vh, Ū, s̄, V̄h)}
    return forward, adjoint


define(sl.svd, "scipy.linalg.svd", ("a",), _svd_body, _svd_check)


def _eigh_check_of(name: str) -> Any:
    def check(o: Any) -> None:
        for arg in ("subset_by_index", "subset_by_value"):
            if o[arg] is not None:
                refuse(name, arg, "...", " (the rule differentiates the full spectrum)")
        if o["b"] is not None and o["type"] != 1:
            refuse(name, "type", o["type"], " (the generalized problem a·v = λ·b·v: type=1)")
        square(name, "a", o["a"])
    return check


def _generalized_eigh(w: Any, V: Any, uplo: str) -> Any:
    """(pushforward, adjoint) of a·V = b·V·diag(w), Vᴴ·b·V = I: with P = Vᴴ·ȧ·V,
    Q = Vᴴ·ḃ·V, ẇ = diag(P) − w·diag(Q), V̇ = V·C, C_ij = (P_ij − w_j·Q_ij)/(w_j − w_i)
    off the diagonal (degenerate pairs dropped), C_ii = −Q_ii/2."""
    F = _inv_gaps(w)

    def forward(ȧ: Any, ḃ: Any, need_vectors: bool) -> Any:
        P = 0 if ȧ is None else H(V) @ nf._read_triangle(ȧ, uplo) @ V
        Q = 0 if ḃ is None else H(V) @ nf._read_triangle(ḃ, uplo) @ V
        M = P - Q * w[..., None, :]
        ẇ = np.real(_diag(M + 0 * V))
        if not need_vectors:
            return ẇ, None
        return ẇ, V @ (F * M - _diag_embed(_diag(Q + 0 * V)) / 2)

    def adjoint(w̄: Any, V̄: Any) -> Any:
        P̄ = _diag_embed(np.real(w̄) + 0 * w) if not is_zero(w̄) else 0 * (V @ H(V))
        Q̄ = -(P̄ * w[..., None, :])
        if not is_zero(V̄):
            G = F * (H(V) @ V̄)
            P̄ = P̄ + G
            Q̄ = Q̄ - G * w[..., None, :] - _diag_embed(np.real(_diag(H(V) @ V̄))) / 2
        ā = nf._triangle_adjoint(V @ P̄ @ H(V), uplo)
        b̄ = nf._triangle_adjoint(V @ Q̄ @ H(V), uplo)
        return ā, b̄
    return forward, adjoint


def _eigh_body(o: Any, Ω: Any) -> Any:
    uplo = "L" if o["lower"] else "U"
    only = o.get("eigvals_only", True)
    b = o["b"]
    w, V = (through_engines(sl.eigh)(o["a"], b, lower=o["lower"]) if b is not None
            else through_engines(sl.eigh)(o["a"], lower=o["lower"])) if only else Ω
    if b is not None:
        gfwd, gadj = _generalized_eigh(w, V, uplo)

        def gen_forward(Δ: Any) -> Any:
            ẇ, V̇ = gfwd(Δ.get("a"), Δ.get("b"), not only)
            return ẇ if only else (ẇ, V̇)

        def gen_adjoint(ȳ: Any) -> Any:
            w̄, V̄ = (ȳ, ZERO) if only else ȳ
            ā, b̄ = gadj(w̄, V̄)
            return {"a": ā, "b": b̄}
        return gen_forward, gen_adjoint

    def forward(Δ: Any) -> Any:
        ẇ, V̇ = nf._eigh_pushforward(w, V, Δ["a"], uplo, not only)
        return ẇ if only else (ẇ, V̇)

    def adjoint(ȳ: Any) -> Any:
        w̄, V̄ = (ȳ, ZERO) if only else ȳ
        return {"a": nf._eigh_pullback(w, V, w̄, V̄, uplo)}
    return forward, adjoint


define(sl.eigh, "scipy.linalg.eigh", ("a", "b"), _eigh_body, _eigh_check_of("scipy.linalg.eigh"))
define(sl.eigvalsh, "scipy.linalg.eigvalsh", ("a", "b"), _eigh_body, _eigh_check_of("scipy.linalg.eigvalsh"))


def _eig_check_of(name: str) -> Any:
    def check(o: Any) -> None:
        if o["b"] is not None:
            refuse(name, "b", "...", " (the generalized problem)")
        if o.get("left") or o.get("right") is False:
            refuse(name, "left/right", (o.get("left"), o.get("right")), " (the rule gives the right vectors)")
        if o["homogeneous_eigvals"]:
            refuse(name, "homogeneous_eigvals", True)
        square(name, "a", o["a"])
    return check


def _eig_body(o: Any, Ω: Any) -> Any:
    only = "right" not in o
    w, V = through_engines(sl.eig)(o["a"]) if only else Ω
    body = nsp.eig_body(w, V)

    def forward(Δ: Any) -> Any:
        ẇ, V̇ = body[0](Δ["a"], not only)
        return nsp.cast_like(ẇ, w) if only else (nsp.cast_like(ẇ, w), nsp.cast_like(V̇, V))

    def adjoint(ȳ: Any) -> Any:
        w̄, V̄ = (ȳ, ZERO) if only else ȳ
        return {"a": body[1](w̄, V̄)}
    return forward, adjoint


define(sl.eig, "scipy.linalg.eig", ("a",), _eig_body, _eig_check_of("scipy.linalg.eig"))
define(sl.eigvals, "scipy.linalg.eigvals", ("a",), _eig_body, _eig_check_of("scipy.linalg.eigvals"))


# norm and lstsq: NumPy's rules, SciPy's extra keywords read first, SciPy's primal
def _delegate(f: Any, name: str, frule: Any, rrule: Any, translate: Any, fit: Any = None) -> None:
    """NumPy's rules (frule, rrule) on the call `translate(args, kwargs)`;
    `fit(t, like)` reshapes a part of a tangent to its output's shape."""
    fe = through_engines(f)

    def fitted(t: Any, Ω: Any) -> Any:
        if fit is None or not isinstance(Ω, tuple) or is_zero(t):
            return t
        return Tangent[tuple](*[fit(p, q) for p, q in zip(t, Ω)])  # type: ignore[type-arg]

    def delegated_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        a2, k2 = translate(args, kwargs)
        Ω = fe(*args, **kwargs)
        return Ω, fitted(frule(tangents[:1 + len(a2)], *a2, **k2)[1], Ω)

    def delegated_rrule(*args: Any, **kwargs: Any) -> Any:
        a2, k2 = translate(args, kwargs)
        Ω = fe(*args, **kwargs)
        Ωn, pb = rrule(*a2, **k2)

        def delegated_pullback(ȳ: Any) -> Any:
            out = pb(fitted(output_parts(ȳ, len(Ω), name), Ωn) if isinstance(Ω, tuple) else ȳ)
            return tuple(out) + (NO,) * (len(args) + 1 - len(out))
        return Ω, delegated_pullback
    register_frule(f)(named_rule(delegated_frule, name))
    register_rrule(f)(named_rule(delegated_rrule, name))


def _norm_args(args: Any, kwargs: Any) -> Any:
    kwargs = dict(kwargs)
    kwargs.pop("check_finite", None)
    return args[:4], kwargs


def _lstsq_args(args: Any, kwargs: Any) -> Any:
    kwargs = dict(kwargs)
    for k in ("overwrite_a", "overwrite_b", "check_finite", "lapack_driver"):
        kwargs.pop(k, None)
    cond = args[2] if len(args) > 2 else kwargs.pop("cond", None)
    kwargs.pop("cond", None)
    return args[:2], dict(kwargs, rcond=cond)


def _fit(t: Any, like: Any) -> Any:
    """t reshaped as `like` (SciPy's residues of a vector b are a 0-d array, NumPy's shape (1,))."""
    if is_zero(t) or not hasattr(value(like), "shape") or np.shape(value(t)) == np.shape(value(like)):
        return t
    t = np.reshape(t, np.shape(value(like)))
    return t[()] if isinstance(value(like), np.generic) else t


_delegate(sl.norm, "scipy.linalg.norm", nn.norm_frule, nn.norm_rrule, _norm_args)
_delegate(sl.lstsq, "scipy.linalg.lstsq", ns.lstsq_frule, ns.lstsq_rrule, _lstsq_args, _fit)


# ----- matrix functions through the Fréchet derivative ------------------------------------------

def _block(f: Any, A: Any, E: Any) -> Any:
    """The Fréchet derivative of f at A in the direction E: the upper-right
    block of f([[A, E], [0, A]]) (Higham, Functions of Matrices, thm 3.6).
    It is linear in E: E is scaled to A's norm first (a constant c, read from
    the values), so that the block costs f(A)'s scaling steps, not E's."""
    n = value(A).shape[-1]
    na, ne = np.max(np.abs(value(A)).sum(axis=-2)), np.max(np.abs(value(E)).sum(axis=-2))
    c = float(ne / na) if na > 0 and ne > na else 1.0
    Z = np.zeros(np.shape(value(E)), dtype=np.result_type(value(A), value(E)))
    M = np.concatenate([np.concatenate([A + Z, E / c + Z], axis=-1), np.concatenate([Z, A + Z], axis=-1)], axis=-2)
    return f(M)[..., :n, n:] * c


def _frechet_body(f: Any) -> Any:
    fe = through_engines(f)

    def body(o: Any, Ω: Any) -> Any:
        A = o["A"]
        return (lambda Δ: _block(fe, A, Δ["A"])), (lambda ȳ: {"A": _block(fe, H(A), ȳ)})
    return body


def _matrix_check_of(name: str) -> Any:
    def check(o: Any) -> None:
        s = np.shape(value(o["A"]))
        if len(s) < 2 or s[-1] != s[-2]:
            raise ValueError(f"{name}: the argument A must be a square matrix (or a stack of them), got shape {s}")
    return check


# a square float64/complex128 ndarray takes linalg_expm's fast path (the Padé pieces reused),
# which falls back on these
EXPM_RULES: tuple[Any, Any] = define(sl.expm, "scipy.linalg.expm", ("A",), _frechet_body(sl.expm), _matrix_check_of("scipy.linalg.expm"))
define(sl.logm, "scipy.linalg.logm", ("A",), _frechet_body(sl.logm), _matrix_check_of("scipy.linalg.logm"))
for _f in (sl.cosm, sl.sinm, sl.tanm, sl.coshm, sl.sinhm, sl.tanhm):
    define(_f, f"scipy.linalg.{_f.__name__}", ("A",), _frechet_body(_f), _matrix_check_of(f"scipy.linalg.{_f.__name__}"))


def _sqrtm_body(o: Any, X: Any) -> Any:
    return (lambda Δ: _sylvester(X, X, Δ["A"] + 0 * X)), (lambda ȳ: {"A": _sylvester(H(X), H(X), ȳ + 0 * X)})


define(sl.sqrtm, "scipy.linalg.sqrtm", ("A",), _sqrtm_body, _matrix_check_of("scipy.linalg.sqrtm"))


def _fmp_body(o: Any, Ω: Any) -> Any:
    A, t = o["A"], o["t"]
    fe = through_engines(sl.fractional_matrix_power)

    def power(M: Any) -> Any:
        return fe(M, t)

    def dt() -> Any:                         # ∂Ω/∂t = Ω·logm(A)
        return Ω @ through_engines(sl.logm)(A)

    def forward(Δ: Any) -> Any:
        out = _block(power, A, Δ["A"]) if "A" in Δ else 0
        return out + dt() * Δ["t"] if "t" in Δ else out

    def adjoint(ȳ: Any) -> Any:
        return {"A": _block(power, H(A), ȳ), "t": np.sum(np.conj(dt()) * ȳ)}
    return forward, adjoint


define(sl.fractional_matrix_power, "scipy.linalg.fractional_matrix_power", ("A", "t"), _fmp_body,
       _matrix_check_of("scipy.linalg.fractional_matrix_power"))


def _expm_frechet_check(o: Any) -> None:
    _matrix_check_of("scipy.linalg.expm_frechet")(o)
    if np.shape(value(o["E"])) != np.shape(value(o["A"])):
        raise ValueError("scipy.linalg.expm_frechet: the argument E must have A's shape")


def _expm_frechet_body(o: Any, Ω: Any) -> Any:
    # (expm(A), L(A, E)) are blocks of expm([[A, E], [0, A]]): differentiate that (linear in the block)
    A, E = o["A"], o["E"]
    n = value(A).shape[-1]
    fe = through_engines(sl.expm)

    def big(a: Any, e: Any) -> Any:
        Z = np.zeros(np.shape(value(a)), dtype=np.result_type(value(a), value(e)))
        return np.concatenate([np.concatenate([a + Z, e + Z], -1), np.concatenate([Z, a + Z], -1)], -2)

    def forward(Δ: Any) -> Any:
        zero = np.zeros(np.shape(value(A)))
        d = _block(fe, big(A, E), big(Δ.get("A", zero), Δ.get("E", zero)))
        return (d[..., :n, :n], d[..., :n, n:]) if o["compute_expm"] else d[..., :n, n:]

    def adjoint(ȳ: Any) -> Any:
        parts = list(ȳ) if o["compute_expm"] else [ZERO, ȳ]
        live = [value(p) for p in parts if not is_zero(p)]
        z = np.zeros(np.shape(value(A)), dtype=np.result_type(value(A), value(E), *live))
        top = np.concatenate([z if is_zero(p) else p + z for p in parts], axis=-1)
        Ȳ = np.concatenate([top, np.concatenate([z, z], axis=-1)], axis=-2)    # [[Ȳ₁, Ȳ₂], [0, 0]]
        G = _block(fe, H(big(A, E)), Ȳ)
        return {"A": G[..., :n, :n] + G[..., n:, n:], "E": G[..., :n, n:]}
    return forward, adjoint


define(sl.expm_frechet, "scipy.linalg.expm_frechet", ("A", "E"), _expm_frechet_body, _expm_frechet_check)


def _polar_check(o: Any) -> None:
    if o["side"] not in ("right", "left"):
        raise ValueError(f"scipy.linalg.polar: side must be 'right' or 'left', got {o['side']!r}")
    m, n = np.shape(value(o["a"]))
    if (m < n and o["side"] == "right") or (m > n and o["side"] == "left"):
        refuse("scipy.linalg.polar", "side", o["side"], f" for a {m}×{n} matrix (the rule needs P invertible)")


def _polar_right(a: Any, U: Any, P: Any) -> Any:
    """(pushforward, adjoint) of a = U·P, P = sqrtm(aᴴa), U = a·P⁻¹."""
    Pinv = np.linalg.inv(P)

    def forward(ȧ: Any) -> Any:
        Ṗ = _sylvester(P, P, H(ȧ) @ a + H(a) @ ȧ)
        return (ȧ - U @ Ṗ) @ Pinv, Ṗ

    def adjoint(Ū: Any, P̄: Any) -> Any:
        ā = 0
        if not is_zero(Ū):
            ā = Ū @ H(Pinv)
            P̄ = -(H(U) @ Ū @ H(Pinv)) if is_zero(P̄) else P̄ - H(U) @ Ū @ H(Pinv)
        S̄ = _sylvester(H(P), H(P), P̄)
        return ā + a @ (S̄ + H(S̄))
    return forward, adjoint


def _polar_body(o: Any, Ω: Any) -> Any:
    a, (U, P) = o["a"], Ω
    if o["side"] == "right":
        fwd, adj = _polar_right(a, U, P)
        return (lambda Δ: fwd(Δ["a"])), (lambda ȳ: {"a": adj(*ȳ)})
    # a = P·U: aᴴ = Uᴴ·P is the right polar decomposition of aᴴ
    fwd, adj = _polar_right(H(a), H(U), P)

    def forward(Δ: Any) -> Any:
        U̇h, Ṗ = fwd(H(Δ["a"]))
        return H(U̇h), Ṗ

    def adjoint(ȳ: Any) -> Any:
        Ū, P̄ = ȳ
        return {"a": H(adj(Ū if is_zero(Ū) else H(Ū), P̄))}
    return forward, adjoint


define(sl.polar, "scipy.linalg.polar", ("a",), _polar_body, _polar_check)


# ----- Sylvester and Lyapunov equations ----------------------------------------------------------

def _sylvester_body(o: Any, X: Any) -> Any:
    a, b = o["a"], o["b"]

    def forward(Δ: Any) -> Any:
        rhs = Δ.get("q", 0) + 0 * X
        if "a" in Δ:
            rhs = rhs - Δ["a"] @ X
        if "b" in Δ:
            rhs = rhs - X @ Δ["b"]
        return _sylvester(a, b, rhs)

    def adjoint(X̄: Any) -> Any:
        Q̄ = _sylvester(H(a), H(b), X̄ + 0 * X)
        return {"q": Q̄, "a": -(Q̄ @ H(X)), "b": -(H(X) @ Q̄)}
    return forward, adjoint


def _squares(name: str, *args: str) -> Any:
    def check(o: Any) -> None:
        for arg in args:
            square(name, arg, o[arg])
    return check


define(sl.solve_sylvester, "scipy.linalg.solve_sylvester", ("a", "b", "q"), _sylvester_body,
       _squares("scipy.linalg.solve_sylvester", "a", "b"))


def _clyap_body(o: Any, X: Any) -> Any:
    a = o["a"]       # a·X + X·aᴴ = q

    def forward(Δ: Any) -> Any:
        rhs = Δ.get("q", 0) + 0 * X
        if "a" in Δ:
            rhs = rhs - Δ["a"] @ X - X @ H(Δ["a"])
        return _clyap(a, rhs)

    def adjoint(X̄: Any) -> Any:
        Q̄ = _clyap(H(a), X̄ + 0 * X)
        return {"q": Q̄, "a": -(Q̄ @ H(X) + H(Q̄) @ X)}
    return forward, adjoint


define(sl.solve_continuous_lyapunov, "scipy.linalg.solve_continuous_lyapunov", ("a", "q"), _clyap_body,
       _squares("scipy.linalg.solve_continuous_lyapunov", "a", "q"))


def _dlyap_body(o: Any, X: Any) -> Any:
    a, method = o["a"], o["method"]      # a·X·aᴴ − X + q = 0

    def forward(Δ: Any) -> Any:
        rhs = Δ.get("q", 0) + 0 * X
        if "a" in Δ:
            rhs = rhs + Δ["a"] @ X @ H(a) + a @ X @ H(Δ["a"])
        return _dlyap(a, rhs, method)

    def adjoint(X̄: Any) -> Any:
        Q̄ = _dlyap(H(a), X̄ + 0 * X, method)
        return {"q": Q̄, "a": Q̄ @ a @ H(X) + H(Q̄) @ a @ X}
    return forward, adjoint


define(sl.solve_discrete_lyapunov, "scipy.linalg.solve_discrete_lyapunov", ("a", "q"), _dlyap_body,
       _squares("scipy.linalg.solve_discrete_lyapunov", "a", "q"))


_linalg_factor.register()

# expm's fast path, registered on import (it reads EXPM_RULES: imported last)
from chainrules.rulesets.scipy import linalg_expm  # noqa: E402,F401
# funm's rules (the eigendecomposition's divided differences), in their own file
from chainrules.rulesets.scipy import linalg_funm  # noqa: E402,F401
