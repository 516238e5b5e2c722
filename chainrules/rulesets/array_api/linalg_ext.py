"""Rules for the array API standard's `linalg` extension
(https://data-apis.org/array-api/latest/extensions/linear_algebra_functions.html),
computed with the namespace of their arguments (`xp.linalg.*`, never NumPy):
inv, det, slogdet, solve, cholesky, matrix_norm, vector_norm, trace,
diagonal, outer, cross, matrix_power, pinv (the norms' bodies:
linalg_norms.py; what they share: _linalg_common.py).

The math and conventions are those of the NumPy rules
(chainrules/rulesets/numpy/linalg/): ChainRules' complex convention (the
cotangent of a holomorphic map is conj(∂)·ȳ), a real argument gets a real
cotangent, float32 stays float32; the norms' subgradients give ∞-type norms'
derivative to the first extreme element, the 2-norm at zero has derivative
0, ord=0 has none.  The bodies write into no array and branch on no value:
they run on an AD's traced values for second derivatives (a
product of a plain seed or tangent with a tracked value is xp.multiply: some
libraries' operators refuse a tracked right operand).  det's
derivative is adj(a)ᵀ, exact at singular matrices (`_adjugate`).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

from chainrules._core import Tangent, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    as_seed,
    cast,
    device_kw,
    is_complex,
    is_zero,
    namespace,
    options,
    register_table,
    unbroadcast,
)
from chainrules.rulesets.array_api._linalg_common import _H, _col, _conj, _eye, _mat, _tril, _unary
from chainrules.rulesets.array_api.linalg import _bilinear
from chainrules.rulesets.array_api.linalg_norms import matrix_norm_rules, vector_norm_rules

__all__ = ["register", "TABLE"]


# ----- inv, det, slogdet --------------------------------------------------------------------------

def _inv_body(xp: Any, a: Any, y: Any, opts: Any) -> Any:
    def forward(Δa: Any) -> Any:
        return -xp.matmul(xp.matmul(y, Δa), y)

    def adjoint(ȳ: Any) -> Any:
        yh = _H(xp, y)
        return -xp.matmul(xp.matmul(yh, ȳ), yh)
    return forward, adjoint


# the largest matrices whose adjugate is Faddeev–LeVerrier's polynomial (exact, any order)
_SMALL = 4


def _adjugate(xp: Any, a: Any) -> Any:
    """adj(a), exact at singular matrices too (where det(a)·a⁻¹ fails).  Up
    to _SMALL×_SMALL, Faddeev–LeVerrier's recursion M₁ = I, M_k = a·M_{k−1} −
    tr(a·M_{k−1})/(k−1)·I, adj(a) = (−1)^{n+1}·M_n: products and traces only,
    a polynomial in a, so that its derivatives of every order are exact
    there as well.  Larger: by the SVD a = U S Vᴴ, adj(a) = det(U)·det(Vᴴ)·V
    diag(Π_{j≠i} s_j) Uᴴ (a branch on the shape, never on a value)."""
    n = a.shape[-1]
    eye = _eye(xp, n, n, 0, a)
    if n <= _SMALL:
        m = cast(xp, eye if a.ndim == 2 else xp.broadcast_to(eye, tuple(a.shape)), a)
        for k in range(2, n + 1):
            am = xp.matmul(a, m)
            m = am - _mat(xp, xp.linalg.trace(am)) * eye / (k - 1)
        return m if n % 2 else -m
    U, s, Vh = xp.linalg.svd(a, full_matrices=False)
    others = xp.prod(xp.where(eye == 1, xp.ones_like(eye), xp.expand_dims(s, axis=-2)), axis=-1)
    phase = xp.multiply(xp.linalg.det(U), xp.linalg.det(Vh))
    return _mat(xp, phase) * xp.matmul(_H(xp, Vh) * xp.expand_dims(others, axis=-2), _H(xp, U))


def _det_body(xp: Any, a: Any, d: Any, opts: Any) -> Any:
    def cofactor() -> Any:                      # ∂det/∂a = adj(a)ᵀ
        return xp.matrix_transpose(_adjugate(xp, a))

    def forward(Δa: Any) -> Any:
        return xp.sum(cofactor() * Δa, axis=(-2, -1))

    def adjoint(ȳ: Any) -> Any:
        return xp.multiply(_mat(xp, ȳ), _conj(xp, cofactor()))
    return forward, adjoint


def _field(t: Any, i: int, name: str) -> Any:
    v = getattr(t, name, None) if not isinstance(t, tuple) or hasattr(t, "_fields") else None
    return unthunk(t[i] if v is None else v)


def _slogdet_body(xp: Any, a: Any, Ω: Any, opts: Any) -> Any:
    sign, logabsdet = _field(Ω, 0, "sign"), _field(Ω, 1, "logabsdet")
    complex_ = is_complex(xp, a)

    def forward(Δa: Any) -> Any:
        t = xp.sum(xp.matrix_transpose(xp.linalg.inv(a)) * Δa, axis=(-2, -1))     # tr(a⁻¹ Δa)
        # sign = exp(i·Im log det): its tangent sign·i·Im(t) (t − Re t: no complex scalar)
        Δs = sign * (t - xp.real(t)) if complex_ else ZERO
        Δl = cast(xp, xp.real(t) if complex_ else t, logabsdet)
        return Tangent[type(Ω)](Δs, Δl)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time

    def adjoint(ȳ: Any) -> Any:
        s̄, l̄ = _field(ȳ, 0, "sign"), _field(ȳ, 1, "logabsdet")
        if isinstance(l̄, (int, float, complex)):
            l̄ = xp.asarray(l̄.real, dtype=logabsdet.dtype, **device_kw(xp, logabsdet))
        # ā = (l̄ + i·Im(conj(sign)·s̄))·a⁻ᴴ
        c = None if is_zero(l̄) else xp.real(l̄) if is_complex(xp, l̄) else l̄
        if complex_ and not is_zero(s̄):
            z = xp.conj(sign) * s̄
            c = z - xp.real(z) if c is None else xp.add(c, z - xp.real(z))
        if c is None:
            return None
        return xp.multiply(_mat(xp, c), _H(xp, xp.linalg.inv(a)))
    return forward, adjoint


def inv_rules(f: Any, name: str = "inv") -> Any:
    return _unary(name, f, (), (), {}, _inv_body)


def det_rules(f: Any, name: str = "det") -> Any:
    return _unary(name, f, (), (), {}, _det_body)


def slogdet_rules(f: Any, name: str = "slogdet") -> Any:
    return _unary(name, f, (), (), {}, _slogdet_body)


# ----- solve ----------------------------------------------------------------------------------------
# x2 is a vector (shape (M,), or PyTorch's batch of vectors (..., M)) when the
# result has fewer dimensions than the arguments: it is then a column.

def _solve_vector(a: Any, b: Any, y: Any) -> bool:
    return bool(y.ndim < max(a.ndim, b.ndim))


def _solve_forward(xp: Any, a: Any, b: Any, y: Any, Δa: Any, Δb: Any) -> Any:
    vec = _solve_vector(a, b, y)
    y2 = _col(xp, y) if vec else y
    rhs = None if Δb is None else (_col(xp, Δb) if vec else Δb)
    if Δa is not None:
        t = -xp.matmul(Δa, y2)
        rhs = t if rhs is None else xp.add(rhs, t)
    ẏ = xp.linalg.solve(a, xp.broadcast_to(rhs, tuple(y2.shape)))
    return ẏ[..., 0] if vec else ẏ


def _solve_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, y: Any) -> Any:
    vec = _solve_vector(a, b, y)
    y2 = _col(xp, y) if vec else y
    b2 = tuple(b.shape) + (1,) if vec else tuple(b.shape)
    ȳ2 = _col(xp, ȳ) if vec else ȳ
    g = xp.linalg.solve(_H(xp, a), xp.broadcast_to(ȳ2, tuple(y2.shape)))    # a⁻ᴴ ȳ, shared

    def solve_da() -> Any:
        return unbroadcast(xp, -xp.matmul(g, _H(xp, y2)), tuple(a.shape))

    def solve_db() -> Any:
        return xp.reshape(unbroadcast(xp, g, b2), tuple(b.shape))
    return solve_da, solve_db


def _solve_options(name: str, args: Any, kwargs: Any) -> None:
    """solve takes no option (PyTorch's left=True is its default: a left=False
    solve is a TypeError)."""
    opts = options(name, (), args, kwargs, ("left",), {})
    if opts.get("left") not in (None, True):
        raise TypeError(f"{name}: the rule cannot honour left={opts['left']}; call the primal without it")


def solve_rules(f: Any, name: str = "solve") -> Any:
    def solve_frule(tangents: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp = namespace(a, b)                    # two libraries: a NamespaceError naming both
        y = f(a, b, *args, **kwargs)
        _solve_options(name, args, kwargs)
        Δa, Δb = unthunk(tangents[1]), unthunk(tangents[2])
        Δa = None if is_zero(Δa) or not Projector(xp, a).kind else cast(xp, Δa, a)
        Δb = None if is_zero(Δb) or not Projector(xp, b).kind else cast(xp, Δb, b)
        if Δa is None and Δb is None:
            return y, ZERO
        return y, cast(xp, _solve_forward(xp, a, b, y, Δa, Δb), y)

    def solve_rrule(a: Any, b: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp = namespace(a, b)
        y = f(a, b, *args, **kwargs)
        _solve_options(name, args, kwargs)
        pa, pb = Projector(xp, a), Projector(xp, b)

        def solve_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, y)
            if is_zero(ȳ):
                return NO, pa(ZERO), pb(ZERO)
            ā, b̄ = _solve_adjoints(xp, ȳ, a, b, y)
            return NO, pa(ā()) if pa.kind else NO, pb(b̄()) if pb.kind else NO
        return y, solve_pullback

    return solve_frule, solve_rrule


# ----- cholesky (reads the lower triangle; the upper one with upper=True) -----------------------------

def _phi(xp: Any, x: Any) -> Any:
    """The lower triangle of x with its diagonal halved."""
    eye = _eye(xp, x.shape[-1], x.shape[-1], 0, x)
    return _tril(xp, x, -1) + (x * eye) / 2


def _hermitian_from_lower(xp: Any, x: Any) -> Any:
    """The Hermitian matrix the factorization reads from x's lower triangle."""
    low = _tril(xp, x, -1)
    eye = _eye(xp, x.shape[-1], x.shape[-1], 0, x)
    return low + _H(xp, low) + cast(xp, xp.real(x) * eye if is_complex(xp, x) else x * eye, x)


def _lower_adjoint(xp: Any, g: Any) -> Any:
    """The adjoint of `_hermitian_from_lower`."""
    eye = _eye(xp, g.shape[-1], g.shape[-1], 0, g)
    d = xp.real(g) * eye if is_complex(xp, g) else g * eye
    return _tril(xp, g + _H(xp, g), -1) + cast(xp, d, g)


def _cholesky_forward(xp: Any, L: Any, Δa: Any) -> Any:
    Linv = xp.linalg.inv(L)
    return xp.matmul(L, _phi(xp, xp.matmul(xp.matmul(Linv, _hermitian_from_lower(xp, Δa)), _H(xp, Linv))))


def _cholesky_adjoint(xp: Any, L: Any, L̄: Any) -> Any:
    Linv = xp.linalg.inv(L)
    g = xp.matmul(xp.matmul(_H(xp, Linv), _phi(xp, xp.matmul(_H(xp, L), L̄))), Linv)
    return _lower_adjoint(xp, g)


def _cholesky_reading(f: Any) -> str:
    """Which triangle f reads with upper=True (the standard does not say: its
    matrices are Hermitian): NumPy's and PyTorch's the upper one,
    array-api-compat's and array-api-strict's the lower one (they transpose
    the lower factor), JAX's neither (it uses the Hermitian part, always)."""
    module = getattr(f, "__module__", None) or ""
    if module.startswith("jax"):
        return "hermitian"
    if module.startswith(("numpy", "torch")):
        return "upper"
    return "lower"


def _cholesky_body_of(reading: str) -> Any:
    def cholesky_body(xp: Any, a: Any, y: Any, opts: Any) -> Any:
        upper = bool(opts["upper"])
        L = _H(xp, y) if upper else y

        def forward(Δa: Any) -> Any:
            if reading == "hermitian":
                Δa = (Δa + _H(xp, Δa)) / 2
            elif upper and reading == "upper":
                Δa = _H(xp, Δa)             # the upper triangle read as the lower one of aᴴ
            ΔL = _cholesky_forward(xp, L, Δa)
            return _H(xp, ΔL) if upper else ΔL

        def adjoint(ȳ: Any) -> Any:
            ā = _cholesky_adjoint(xp, L, _H(xp, ȳ) if upper else ȳ)
            if reading == "hermitian":
                return (ā + _H(xp, ā)) / 2
            return _H(xp, ā) if upper and reading == "upper" else ā
        return forward, adjoint
    return cholesky_body


def cholesky_rules(f: Any, name: str = "cholesky") -> Any:
    return _unary(name, f, (), ("upper",), {"upper": False}, _cholesky_body_of(_cholesky_reading(f)))

# ----- trace, diagonal: linear -------------------------------------------------------------------------

def _trace_body(xp: Any, x: Any, y: Any, opts: Any) -> Any:
    k = int(opts["offset"])

    def forward(Δx: Any) -> Any:
        return xp.linalg.trace(Δx, offset=k)

    def adjoint(ȳ: Any) -> Any:
        return _mat(xp, ȳ) * _eye(xp, x.shape[-2], x.shape[-1], k, x)
    return forward, adjoint


def trace_rules(f: Any, name: str = "trace") -> Any:
    return _unary(name, f, (), ("offset",), {"offset": 0}, _trace_body)


def _diagonal_body(xp: Any, x: Any, y: Any, opts: Any) -> Any:
    k = int(opts["offset"])

    def forward(Δx: Any) -> Any:
        return xp.linalg.diagonal(Δx, offset=k)

    def adjoint(ȳ: Any) -> Any:
        # x̄[r, c] = Σᵢ ȳᵢ·[r = i + max(−k, 0)]·[c = i + max(k, 0)]: two selections, no scatter
        n, m, d = x.shape[-2], x.shape[-1], ȳ.shape[-1]
        rows = _eye(xp, n, d, -max(-k, 0), x)
        cols = _eye(xp, d, m, max(k, 0), x)
        return xp.matmul(rows * xp.expand_dims(ȳ, axis=-2), cols)
    return forward, adjoint


def diagonal_rules(f: Any, name: str = "diagonal") -> Any:
    return _unary(name, f, (), ("offset",), {"offset": 0}, _diagonal_body)


# ----- outer, cross: bilinear -----------------------------------------------------------------------------

def _outer_forward(xp: Any, a: Any, b: Any, opts: Any) -> Any:
    return xp.linalg.outer(a, b)


def _outer_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, opts: Any) -> Any:
    return (lambda: xp.matmul(ȳ, _conj(xp, b))), (lambda: xp.matmul(_conj(xp, a), ȳ))


def outer_rules(f: Any, name: str = "outer") -> Any:
    return _bilinear(name, f, (), (), {}, _outer_forward, _outer_adjoints)


def _cross_forward(xp: Any, a: Any, b: Any, opts: Any) -> Any:
    return xp.linalg.cross(a, b, axis=opts["axis"])


def _cross_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, opts: Any) -> Any:
    # a × b = −b × a: ā = conj(b) × ȳ, b̄ = ȳ × conj(a), summed over broadcast dimensions
    axis = opts["axis"]

    def cross_da() -> Any:
        return unbroadcast(xp, xp.linalg.cross(_conj(xp, b), ȳ, axis=axis), tuple(a.shape))

    def cross_db() -> Any:
        return unbroadcast(xp, xp.linalg.cross(ȳ, _conj(xp, a), axis=axis), tuple(b.shape))
    return cross_da, cross_db


def cross_rules(f: Any, name: str = "cross") -> Any:
    return _bilinear(name, f, ("axis",), ("axis",), {"axis": -1}, _cross_forward, _cross_adjoints)


# ----- matrix_power (integer n, negative: powers of the inverse) -------------------------------------

def _powers(xp: Any, a: Any, n: int) -> Any:
    """[a⁰, a¹, …, a^(n−1)]"""
    out = [xp.broadcast_to(_eye(xp, a.shape[-1], a.shape[-1], 0, a), tuple(a.shape))]
    out[0] = cast(xp, out[0], a)
    for _ in range(n - 1):
        out.append(xp.matmul(out[-1], a))
    return out


def _power_sum(xp: Any, P: Any, Δ: Any) -> Any:
    """Σₖ P[k]·Δ·P[n−1−k]"""
    n = len(P)
    out = None
    for k in range(n):
        t = xp.matmul(xp.matmul(P[k], Δ), P[n - 1 - k])
        out = t if out is None else out + t
    return out


def _matrix_power_body(xp: Any, a: Any, y: Any, opts: Any) -> Any:
    n = operator.index(opts["n"])

    def forward(Δa: Any) -> Any:
        if n == 0:
            return xp.zeros_like(y)
        base, Δ, m = a, Δa, n
        if n < 0:
            base = xp.linalg.inv(a)
            Δ, m = -xp.matmul(xp.matmul(base, Δa), base), -n
        return _power_sum(xp, _powers(xp, base, m), Δ)

    def adjoint(ȳ: Any) -> Any:
        if n == 0:
            return None
        base, m = (xp.linalg.inv(a), -n) if n < 0 else (a, n)
        b̄ = _power_sum(xp, [_H(xp, p) for p in _powers(xp, base, m)], ȳ)
        if n < 0:
            bh = _H(xp, base)
            b̄ = -xp.matmul(xp.matmul(bh, b̄), bh)
        return b̄
    return forward, adjoint


def matrix_power_rules(f: Any, name: str = "matrix_power") -> Any:
    return _unary(name, f, ("n",), ("n",), {"n": None}, _matrix_power_body)


# ----- pinv (of constant rank: the derivative of the Moore–Penrose inverse) --------------------------

def _pinv_body(xp: Any, a: Any, X: Any, opts: Any) -> Any:
    mm, sub, add = xp.matmul, xp.subtract, xp.add

    def forward(Δa: Any) -> Any:
        # Ẋ = −X Δa X + X Xᴴ (Δaᴴ − Δaᴴ a X) + (Δaᴴ − X a Δaᴴ) Xᴴ X
        Δh, Xh = _H(xp, Δa), _H(xp, X)
        t = add(-mm(mm(X, Δa), X), mm(X, mm(Xh, sub(Δh, mm(mm(Δh, a), X)))))
        return add(t, mm(sub(Δh, mm(X, mm(a, Δh))), mm(Xh, X)))

    def adjoint(X̄: Any) -> Any:
        # ā = −Xᴴ X̄ Xᴴ + (X̄ᴴ − a X X̄ᴴ) X Xᴴ + Xᴴ X (X̄ᴴ − X̄ᴴ X a)
        X̄h, Xh = _H(xp, X̄), _H(xp, X)
        t = add(-mm(mm(Xh, X̄), Xh), mm(sub(X̄h, mm(a, mm(X, X̄h))), mm(X, Xh)))
        return add(t, mm(mm(Xh, X), sub(X̄h, mm(mm(X̄h, X), a))))
    return forward, adjoint


def _pinv_checked_body(xp: Any, a: Any, X: Any, opts: Any) -> Any:
    """pinv's body; the cutoff (rtol, NumPy's rcond) changes X, not its
    derivative at constant rank; hermitian=True (a triangle read as the
    matrix) is a TypeError naming it."""
    if opts.get("hermitian"):
        raise TypeError("pinv: the rule cannot honour the argument hermitian=True; call the primal without it")
    return _pinv_body(xp, a, X, opts)


def pinv_rules(f: Any, name: str = "pinv") -> Any:
    return _unary(name, f, ("rtol",), ("rtol", "rcond", "hermitian"), {"rtol": None}, _pinv_checked_body)


# ----- the table --------------------------------------------------------------------------------------

TABLE = {
    "inv": inv_rules,
    "det": det_rules,
    "slogdet": slogdet_rules,
    "solve": solve_rules,
    "cholesky": cholesky_rules,
    "vector_norm": vector_norm_rules,
    "matrix_norm": matrix_norm_rules,
    "trace": trace_rules,
    "diagonal": diagonal_rules,
    "outer": outer_rules,
    "cross": cross_rules,
    "matrix_power": matrix_power_rules,
    "pinv": pinv_rules,
}


def register(functions: Any) -> Any:
    """Register the rules of this file on the functions of these names in
    `functions` (a library's `linalg` namespace, or a dict {standard name:
    function}); returns the names registered."""
    return register_table(TABLE, functions)
