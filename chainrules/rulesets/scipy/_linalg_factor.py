"""Rules for scipy.linalg's triangular, Cholesky, LU and banded solvers and
factorizations, and its linear constructors (registered by
`scipy/linalg.py`, which calls `register()`):

- solve_triangular(a, b, trans, lower, unit_diagonal): X = op(T)⁻¹·b with T
  the triangle of a SciPy reads (its diagonal taken as 1 with
  unit_diagonal): Ẋ = op(T)⁻¹·(ḃ − op(Ṫ)·X); b̄ = op(T)⁻ᴴ·X̄, T̄ = op⁻¹-adjoint
  of −b̄·Xᴴ, kept in that triangle.
- cho_factor / cho_solve, lu_factor / lu_solve, lu: the factors' derivatives
  (Cholesky: the array-API cholesky body; LU: F = L⁻¹·P·Ȧ·U⁻¹, L̇ = L·tril(F, −1),
  U̇ = triu(F)·U) and the solves' (as solve's, with A = LLᴴ or PᵀLU).
  cho_factor's other triangle holds a's entries (LAPACK leaves them): their
  derivative is a's.  cho_solve's and lu_solve's first argument is a tuple:
  its tangent is a Tangent[tuple] whose first part is the array's.  lu's
  permutation has a zero tangent; square matrices only.
- schur, hessenberg (real): see `_schur_body`, `_hessenberg_body`.
- solve_banded, solveh_banded: as solve, through the dense matrix of the
  band storage (a gather) and back (the adjoint gather).
- block_diag, toeplitz, hankel, circulant: linear; the pullbacks gather Ȳ's blocks
  and sum its diagonals.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sl

from chainrules._core import not_implemented
from chainrules._xp import namespace, through_engines
from chainrules.rulesets._arrays import NO, ZERO, is_zero
from chainrules.rulesets._by_signature import H, T, define, refuse, square, tril, triu, value
from chainrules.rulesets.array_api import linalg_ext as ax
from chainrules.rulesets.numpy.linalg import factorizations as nf

_st = through_engines(sl.solve_triangular)
_cs = through_engines(sl.cho_solve)
_ls = through_engines(sl.lu_solve)
_sb = through_engines(sl.solve_banded)
_shb = through_engines(sl.solveh_banded)

_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def _op(trans: int) -> Any:
    return {0: lambda x: x, 1: T, 2: H}[trans]


def _columns(b: Any, x: Any) -> Any:
    """(x as a matrix, back to x's shape): a vector right-hand side is a column."""
    if np.ndim(value(b)) == 1:
        return x[:, None], (lambda y: y[:, 0])
    return x, (lambda y: y)


def _trans_of(name: str, o: Any) -> int:
    if o["trans"] not in _TRANS:
        raise ValueError(f"{name}: trans must be 0, 1, 2, 'N', 'T' or 'C', got {o['trans']!r}")
    return _TRANS[o["trans"]]


def _adjoint_solve(solve: Any, trans: int, ȳ: Any) -> Any:
    """op(A)⁻ᴴ·ȳ with `solve(rhs, trans)` = op_trans(A)⁻¹·rhs."""
    if trans == 1:
        return np.conj(solve(np.conj(ȳ), 0))
    return solve(ȳ, 2 - trans)


# ----- solve_triangular ---------------------------------------------------------------------------

def _triangular_body(o: Any, X: Any) -> Any:
    name = "scipy.linalg.solve_triangular"
    a, b, lower, unit = o["a"], o["b"], bool(o["lower"]), bool(o["unit_diagonal"])
    trans = _trans_of(name, o)
    op = _op(trans)
    k = (-1 if lower else 1) if unit else 0

    def mask(x: Any) -> Any:
        return tril(x, k) if lower else triu(x, k)

    def solve(rhs: Any, t: int) -> Any:
        return _st(a, rhs, trans=t, lower=lower, unit_diagonal=unit)
    X2, back = _columns(b, X)

    def forward(Δ: Any) -> Any:
        rhs = Δ["b"] + 0 * X if "b" in Δ else 0 * X
        if "a" in Δ:
            rhs = rhs - back(op(mask(Δ["a"])) @ X2)
        return solve(rhs, trans)

    def adjoint(X̄: Any) -> Any:
        b̄ = _adjoint_solve(solve, trans, X̄ + 0 * X)
        Ā = -(_columns(b, b̄)[0] @ H(X2))
        return {"b": b̄, "a": mask(op(Ā) if trans != 2 else H(Ā))}
    return forward, adjoint


# ----- cho_factor, cho_solve ------------------------------------------------------------------------

def _cho_factor_body(o: Any, Ω: Any) -> Any:
    a, lower = o["a"], bool(o["lower"])
    c = Ω[0]
    factor = tril(c) if lower else triu(c)
    other: Any = (lambda x: triu(x, 1)) if lower else (lambda x: tril(x, -1))
    fwd, adj = ax._cholesky_body_of("upper")(namespace(a), a, factor, {"upper": not lower})

    def forward(Δ: Any) -> Any:
        return fwd(Δ["a"]) + other(Δ["a"]), NO

    def adjoint(ȳ: Any) -> Any:
        c̄ = ȳ[0]
        if is_zero(c̄):
            return {}
        return {"a": adj(c̄ - other(c̄)) + other(c̄)}
    return forward, adjoint


def _cho_solve_body(o: Any, x: Any) -> Any:
    (c, lower), b = o["c_and_lower"], o["b"]
    mask = tril if lower else triu
    F = mask(c)
    x2, back = _columns(b, x)

    def forward(Δ: Any) -> Any:
        rhs = Δ["b"] + 0 * x if "b" in Δ else 0 * x
        if "c_and_lower" in Δ:
            Ḟ = mask(Δ["c_and_lower"])
            Ȧ = Ḟ @ H(F) + F @ H(Ḟ) if lower else H(Ḟ) @ F + H(F) @ Ḟ
            rhs = rhs - back(Ȧ @ x2)
        return _cs((c, lower), rhs)

    def adjoint(x̄: Any) -> Any:
        b̄ = _cs((c, lower), x̄ + 0 * x)
        Ā = -(_columns(b, b̄)[0] @ H(x2))
        S = Ā + H(Ā)
        return {"b": b̄, "c_and_lower": mask(S @ F if lower else F @ S)}
    return forward, adjoint


# ----- lu_factor, lu_solve, lu --------------------------------------------------------------------

def _perm(piv: Any) -> Any:
    """perm with a[perm] = L·U from LAPACK's row interchanges."""
    piv = np.asarray(value(piv))
    perm = np.arange(piv.shape[-1])
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return perm


def _lu_parts(lu: Any) -> Any:
    return tril(lu, -1) + np.eye(value(lu).shape[-1]), triu(lu)


def _lu_forward(L: Any, U: Any, PȦ: Any) -> Any:
    """(L̇, U̇) of P·A = L·U."""
    F = np.linalg.inv(L) @ PȦ @ np.linalg.inv(U)
    return L @ tril(F, -1), triu(F) @ U


def _lu_adjoint(L: Any, U: Any, L̄: Any, Ū: Any) -> Any:
    """The cotangent of P·A from those of L and U."""
    G = 0
    if not is_zero(L̄):
        G = tril(H(L) @ L̄, -1)
    if not is_zero(Ū):
        G = G + triu(Ū @ H(U))
    return H(np.linalg.inv(L)) @ G @ H(np.linalg.inv(U))


def _lu_factor_body(o: Any, Ω: Any) -> Any:
    lu, piv = Ω
    perm = _perm(piv)
    inverse = np.argsort(perm)
    L, U = _lu_parts(lu)

    def forward(Δ: Any) -> Any:
        L̇, U̇ = _lu_forward(L, U, Δ["a"][perm])
        return L̇ + U̇, NO

    def adjoint(ȳ: Any) -> Any:
        if is_zero(ȳ[0]):
            return {}
        return {"a": _lu_adjoint(L, U, tril(ȳ[0], -1), triu(ȳ[0]))[inverse]}
    return forward, adjoint


def _lu_solve_body(o: Any, x: Any) -> Any:
    name = "scipy.linalg.lu_solve"
    (lu, piv), b = o["lu_and_piv"], o["b"]
    trans = _trans_of(name, o)
    op = _op(trans)
    perm = _perm(piv)
    inverse = np.argsort(perm)
    L, U = _lu_parts(lu)
    x2, back = _columns(b, x)

    def solve(rhs: Any, t: int) -> Any:
        return _ls((lu, piv), rhs, trans=t)

    def forward(Δ: Any) -> Any:
        rhs = Δ["b"] + 0 * x if "b" in Δ else 0 * x
        if "lu_and_piv" in Δ:
            d = Δ["lu_and_piv"]
            Ȧ = (tril(d, -1) @ U + L @ triu(d))[inverse]          # A = Pᵀ·L·U
            rhs = rhs - back(op(Ȧ) @ x2)
        return solve(rhs, trans)

    def adjoint(x̄: Any) -> Any:
        b̄ = _adjoint_solve(solve, trans, x̄ + 0 * x)
        Ā = -(_columns(b, b̄)[0] @ H(x2))
        G = (op(Ā) if trans != 2 else H(Ā))[perm]                # the cotangent of L·U
        return {"b": b̄, "lu_and_piv": tril(G @ H(U), -1) + triu(H(L) @ G)}
    return forward, adjoint


def _lu_check(o: Any) -> None:
    square("scipy.linalg.lu", "a", o["a"])
    if o["p_indices"]:
        refuse("scipy.linalg.lu", "p_indices", True)


def _lu_body(o: Any, Ω: Any) -> Any:
    pl = bool(o["permute_l"])
    p, L, U = through_engines(sl.lu)(o["a"]) if pl else Ω
    p = np.asarray(value(p))

    def forward(Δ: Any) -> Any:
        L̇, U̇ = _lu_forward(L, U, p.T @ Δ["a"])
        return (p @ L̇, U̇) if pl else (ZERO, L̇, U̇)

    def adjoint(ȳ: Any) -> Any:
        L̄, Ū = (ȳ[0] if is_zero(ȳ[0]) else p.T @ ȳ[0], ȳ[1]) if pl else ȳ[1:]
        return {"a": p @ _lu_adjoint(L, U, L̄, Ū)}
    return forward, adjoint


# ----- schur (triangular T: complex output, or a real matrix with a real spectrum) --------------------

def _schur_check(o: Any) -> None:
    square("scipy.linalg.schur", "a", o["a"])
    if o["sort"] is not None:
        refuse("scipy.linalg.schur", "sort", o["sort"])


def _schur_body(o: Any, Ω: Any) -> Any:
    """A = Z·T·Zᴴ: with Ż = Z·K (K skew-Hermitian, zero diagonal: the gauge)
    and M = Zᴴ·Ȧ·Z, Ṫ = M − (K·T − T·K) is triangular, so the strictly lower
    part L of K solves the triangular Sylvester equation
    low(L·T − T·L) = low(M): a linear system in the n(n−1)/2 entries of L
    (solved with the rule-bearing solve; Kronecker form, for moderate n).
    A real Schur form with 2×2 blocks (complex eigenvalues, output='real')
    has no derivative here (not_implemented)."""
    T, Z = Ω
    n = value(T).shape[-1]
    if n > 1 and np.any(np.diag(value(T), -1) != 0):
        raise _QuasiTriangular
    i, j = np.tril_indices(n, -1)
    idx = i * n + j
    eye = np.eye(n)
    op = np.kron(eye, T.T if hasattr(T, "T") else np.transpose(T)) - np.kron(T, eye)   # vec(L·T − T·L), rows
    S = op[idx][:, idx]
    P = _scatter(idx, n)

    def lower(vec: Any) -> Any:
        return np.reshape(P @ vec, (n, n))

    def forward(Δ: Any) -> Any:
        M = H(Z) @ Δ["a"] @ Z
        L = lower(np.linalg.solve(S + 0 * M[0, 0], np.reshape(M, (-1,))[idx])) if len(idx) else 0 * M
        K = L - H(L)
        return triu(M - (K @ T - T @ K)), Z @ K

    def adjoint(ȳ: Any) -> Any:
        T̄, Z̄ = ȳ
        T̄u = 0 if is_zero(T̄) else triu(T̄)
        K̄ = (0 if is_zero(Z̄) else H(Z) @ Z̄) + (0 if is_zero(T̄) else H(T) @ T̄u - T̄u @ H(T))
        M̄ = T̄u + 0 * Z
        if len(idx):
            L̄ = tril(K̄ - H(K̄) + 0 * Z, -1)
            m̄ = np.linalg.solve(H(S) + 0 * M̄[0, 0], np.reshape(L̄, (-1,))[idx])
            M̄ = M̄ + lower(m̄)
        return {"a": Z @ M̄ @ H(Z)}
    return forward, adjoint


class _QuasiTriangular(Exception):
    pass


def _schur_or_not(o: Any, Ω: Any) -> Any:
    try:
        return _schur_body(o, Ω)
    except _QuasiTriangular:
        why = ("scipy.linalg.schur: the derivative of a real Schur form with 2×2 blocks (complex eigenvalues) "
               "is not implemented; pass output='complex'")
        return (lambda Δ: (not_implemented(why), not_implemented(why))), (lambda ȳ: {"a": not_implemented(why)})


# ----- hessenberg (real matrices) ----------------------------------------------------------------------

def _hessenberg_body(o: Any, Ω: Any) -> Any:
    """A = Q·Hs·Qᵀ with Q·e₁ = e₁ (Householder: the implicit-Q theorem makes
    it locally unique): with Q̇ = Q·K (K skew, its first row and column zero)
    and M = Qᵀ·Ȧ·Q, Ḣs = M − (K·Hs − Hs·K) is upper Hessenberg, so the
    entries K_ij, i > j ≥ 1, solve the (n−1)(n−2)/2 equations of the entries
    below the first subdiagonal (a linear system, Kronecker form).  Complex
    matrices: not_implemented (the equation is only R-linear there)."""
    calc_q = bool(o["calc_q"])
    Hs, Q = Ω if calc_q else through_engines(sl.hessenberg)(o["a"], calc_q=True)
    n = value(Hs).shape[-1]
    i, j = np.tril_indices(n, -1)
    unknown = j >= 1
    iu, ju = i[unknown], j[unknown]
    ie, je = np.tril_indices(n, -2)
    # vec(K) = B·u (K = L − Lᵀ, L the unknowns below the diagonal); vec(K·Hs − Hs·K) = op·vec(K)
    B = np.zeros((n * n, len(iu)))
    B[iu * n + ju, np.arange(len(iu))] = 1
    B[ju * n + iu, np.arange(len(iu))] = -1
    eye = np.eye(n)
    op = np.kron(eye, np.transpose(Hs)) - np.kron(Hs, eye)
    S = (op @ B)[ie * n + je]

    def skew(u: Any) -> Any:
        return np.reshape(B @ u, (n, n))

    def forward(Δ: Any) -> Any:
        M = np.transpose(Q) @ Δ["a"] @ Q
        K = skew(np.linalg.solve(S + 0 * M[0, 0], np.reshape(M, (-1,))[ie * n + je])) if len(iu) else 0 * M
        Ḣ = M - (K @ Hs - Hs @ K)
        Ḣ = triu(Ḣ, -1)                                     # upper Hessenberg (the rest is zero up to rounding)
        return (Ḣ, Q @ K) if calc_q else Ḣ

    def adjoint(ȳ: Any) -> Any:
        H̄, Q̄ = ȳ if calc_q else (ȳ, ZERO)
        H̄u = 0 * Q if is_zero(H̄) else triu(H̄, -1)
        K̄ = (0 if is_zero(Q̄) else np.transpose(Q) @ Q̄) + (np.transpose(Hs) @ H̄u - H̄u @ np.transpose(Hs))
        M̄ = H̄u + 0 * Q
        if len(iu):
            ū = np.transpose(B) @ np.reshape(K̄, (-1,))
            m̄ = np.linalg.solve(np.transpose(S) + 0 * M̄[0, 0], ū)
            M̄ = M̄ + np.reshape(_scatter(ie * n + je, n) @ m̄, (n, n))
        return {"a": Q @ M̄ @ np.transpose(Q)}
    return forward, adjoint


def _scatter(flat: Any, n: int) -> Any:
    """The (n², k) selection putting k values at the flat positions `flat`."""
    P = np.zeros((n * n, len(flat)))
    P[flat, np.arange(len(flat))] = 1
    return P


def _hessenberg_or_not(o: Any, Ω: Any) -> Any:
    if np.iscomplexobj(value(o["a"])):
        why = "scipy.linalg.hessenberg: the derivative for complex matrices is not implemented"
        ni = not_implemented(why)
        return (lambda Δ: (ni, ni) if o["calc_q"] else ni), (lambda ȳ: {"a": ni})
    return _hessenberg_body(o, Ω)


# ----- banded -----------------------------------------------------------------------------------------

def _from_band(ab: Any, l: int, u: int) -> Any:
    """The dense matrix of band storage ab: A[i, j] = ab[u + i − j, j]."""
    n = value(ab).shape[-1]
    i, j = np.indices((n, n))
    r = u + i - j
    return np.where((r >= 0) & (r <= l + u), ab[np.clip(r, 0, l + u), j], 0)


def _to_band(M: Any, l: int, u: int) -> Any:
    """The band storage of M (the adjoint of `_from_band`)."""
    n = value(M).shape[-1]
    r, j = np.indices((l + u + 1, n))
    i = r - u + j
    return np.where((i >= 0) & (i < n), M[np.clip(i, 0, n - 1), j], 0)


def _banded_body(o: Any, x: Any) -> Any:
    (l, u), ab, b = o["l_and_u"], o["ab"], o["b"]
    A = _from_band(ab, l, u)
    x2, back = _columns(b, x)

    def forward(Δ: Any) -> Any:
        rhs = Δ["b"] + 0 * x if "b" in Δ else 0 * x
        if "ab" in Δ:
            rhs = rhs - back(_from_band(Δ["ab"], l, u) @ x2)
        return _sb((l, u), ab, rhs)

    def adjoint(x̄: Any) -> Any:
        b̄ = _sb((u, l), _to_band(H(A), u, l), x̄ + 0 * x)
        return {"b": b̄, "ab": _to_band(-(_columns(b, b̄)[0] @ H(x2)), l, u)}
    return forward, adjoint


def _hbanded_body(o: Any, x: Any) -> Any:
    ab, b, lower = o["ab"], o["b"], bool(o["lower"])
    k = value(ab).shape[0] - 1
    l, u = (k, 0) if lower else (0, k)
    uplo = "L" if lower else "U"
    x2, back = _columns(b, x)

    def forward(Δ: Any) -> Any:
        rhs = Δ["b"] + 0 * x if "b" in Δ else 0 * x
        if "ab" in Δ:
            rhs = rhs - back(nf._read_triangle(_from_band(Δ["ab"], l, u), uplo) @ x2)
        return _shb(ab, rhs, lower=lower)

    def adjoint(x̄: Any) -> Any:
        b̄ = _shb(ab, x̄ + 0 * x, lower=lower)
        Ā = -(_columns(b, b̄)[0] @ H(x2))
        return {"b": b̄, "ab": _to_band(nf._triangle_adjoint(Ā, uplo), l, u)}
    return forward, adjoint


# ----- block_diag, toeplitz, circulant: linear ------------------------------------------------------------

def _block_diag_body(o: Any, Ω: Any) -> Any:
    arrs = o["arrs"]
    shapes = [np.shape(value(a)) for a in arrs]
    sizes = [(1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else s for s in shapes]

    def forward(Δ: Any) -> Any:
        dtype = np.result_type(value(Ω), *[value(t) for t in Δ.values()])
        return _block_diag_of([Δ.get(i, np.zeros(s, dtype=dtype)) for i, s in enumerate(shapes)], sizes)

    def adjoint(ȳ: Any) -> Any:
        out, r, c = {}, 0, 0
        for i, (s, (m, n)) in enumerate(zip(shapes, sizes)):
            out[i] = np.reshape(ȳ[r:r + m, c:c + n], s)
            r, c = r + m, c + n
        return out
    return forward, adjoint


def _block_diag_of(parts: Any, sizes: Any) -> Any:
    """block_diag by concatenations (a tangent may be tracked: a rule differentiated)."""
    rows, total = [], sum(n for _, n in sizes)
    c = 0
    for p, (m, n) in zip(parts, sizes):
        p = np.reshape(p, (m, n))
        row = [np.zeros((m, c))] if c else []
        row += [p] + ([np.zeros((m, total - c - n))] if total - c - n else [])
        rows.append(np.concatenate(row, axis=1) if len(row) > 1 else p)
        c += n
    return np.concatenate(rows, axis=0)


def _diagonal_sums(ȳ: Any, count: int, below: bool) -> Any:
    """s[k] = Σ ȳ[i, j] over i − j = k (below) or j − i = k, k < count."""
    m, n = value(ȳ).shape
    k, t = np.indices((count, max(m, n)))
    i, j = (k + t, t) if below else (t, k + t)
    ok = (i < m) & (j < n)
    return np.sum(np.where(ok, ȳ[np.clip(i, 0, m - 1), np.clip(j, 0, n - 1)], 0), axis=1)


def _vectors(name: str, *names: str) -> Any:
    def check(o: Any) -> None:
        for arg in names:
            if o[arg] is not None and np.ndim(value(o[arg])) != 1:
                raise ValueError(f"{name}: the rule takes a 1-d {arg}, got shape {np.shape(value(o[arg]))}")
    return check


def _toeplitz_body(o: Any, Ω: Any) -> Any:
    c, r = o["c"], o["r"]
    m = np.shape(value(c))[0]

    def forward(Δ: Any) -> Any:
        ċ = Δ.get("c", np.zeros(m, dtype=np.result_type(value(c), 0.0)))
        if r is None:
            return _toeplitz(ċ, None)
        return _toeplitz(ċ, Δ.get("r", np.zeros(np.shape(value(r)), dtype=np.result_type(value(r), 0.0))))

    def adjoint(ȳ: Any) -> Any:
        n = value(ȳ).shape[1]
        c̄ = _diagonal_sums(ȳ, m, True)
        r̄ = _diagonal_sums(ȳ, n, False) * (np.arange(n) > 0)
        if r is None:                   # the first row is conj(c)
            return {"c": c̄ + np.conj(r̄)}
        return {"c": c̄, "r": r̄}
    return forward, adjoint


def _toeplitz(c: Any, r: Any) -> Any:
    """toeplitz as a gather (a tangent may be tracked: a rule differentiated)."""
    if r is None:
        r = np.conj(c)
    m, n = value(c).shape[0], value(r).shape[0]
    i, j = np.indices((m, n))
    return np.where(i >= j, c[np.clip(i - j, 0, m - 1)], r[np.clip(j - i, 0, n - 1)])


def _hankel_body(o: Any, Ω: Any) -> Any:
    # hankel(c, r) = flipud(toeplitz(c[::-1], r)), r = zeros when not given (r[0] ignored)
    c, r = o["c"], o["r"]
    m = np.shape(value(c))[0]
    n = m if r is None else np.shape(value(r))[0]

    def forward(Δ: Any) -> Any:
        ċ = Δ.get("c", np.zeros(m, dtype=np.result_type(value(c), 0.0)))
        ṙ = Δ.get("r", np.zeros(n, dtype=np.result_type(value(c) if r is None else value(r), 0.0)))
        return _toeplitz(ċ[::-1], ṙ)[::-1]

    def adjoint(ȳ: Any) -> Any:
        g = ȳ[::-1]
        return {"c": _diagonal_sums(g, m, True)[::-1], "r": _diagonal_sums(g, n, False) * (np.arange(n) > 0)}
    return forward, adjoint


def _circulant_body(o: Any, Ω: Any) -> Any:
    n = np.shape(value(o["c"]))[0]
    i, j = np.indices((n, n))

    def forward(Δ: Any) -> Any:
        return Δ["c"][(i - j) % n]

    def adjoint(ȳ: Any) -> Any:
        return {"c": np.sum(ȳ[(i + j) % n, j], axis=1)}     # c̄[k] = Σⱼ ȳ[(j + k) mod n, j]
    return forward, adjoint


def _triangular_check(o: Any) -> None:
    square("scipy.linalg.solve_triangular", "a", o["a"])
    _trans_of("scipy.linalg.solve_triangular", o)


def register() -> None:
    define(sl.solve_triangular, "scipy.linalg.solve_triangular", ("a", "b"), _triangular_body,
           _triangular_check)
    define(sl.cho_factor, "scipy.linalg.cho_factor", ("a",), _cho_factor_body,
           lambda o: square("scipy.linalg.cho_factor", "a", o["a"]))
    define(sl.cho_solve, "scipy.linalg.cho_solve", ("c_and_lower", "b"), _cho_solve_body,
           packed=("c_and_lower",))
    define(sl.lu_factor, "scipy.linalg.lu_factor", ("a",), _lu_factor_body,
           lambda o: square("scipy.linalg.lu_factor", "a", o["a"]))
    define(sl.lu_solve, "scipy.linalg.lu_solve", ("lu_and_piv", "b"), _lu_solve_body,
           lambda o: _trans_of("scipy.linalg.lu_solve", o), packed=("lu_and_piv",))
    define(sl.lu, "scipy.linalg.lu", ("a",), _lu_body, _lu_check)
    define(sl.schur, "scipy.linalg.schur", ("a",), _schur_or_not, _schur_check)
    define(sl.hessenberg, "scipy.linalg.hessenberg", ("a",), _hessenberg_or_not,
           lambda o: square("scipy.linalg.hessenberg", "a", o["a"]))
    define(sl.solve_banded, "scipy.linalg.solve_banded", ("ab", "b"), _banded_body)
    define(sl.solveh_banded, "scipy.linalg.solveh_banded", ("ab", "b"), _hbanded_body)
    define(sl.block_diag, "scipy.linalg.block_diag", (), _block_diag_body)
    define(sl.toeplitz, "scipy.linalg.toeplitz", ("c", "r"), _toeplitz_body,
           _vectors("scipy.linalg.toeplitz", "c", "r"))
    define(sl.hankel, "scipy.linalg.hankel", ("c", "r"), _hankel_body, _vectors("scipy.linalg.hankel", "c", "r"))
    define(sl.circulant, "scipy.linalg.circulant", ("c",), _circulant_body,
           _vectors("scipy.linalg.circulant", "c"))
