"""Rules for the array API standard's `linalg` extension
(https://data-apis.org/array-api/latest/extensions/linear_algebra_functions.html),
computed with the namespace of their arguments (`xp.linalg.*`, never NumPy):
inv, det, slogdet, solve, cholesky, matrix_norm, vector_norm, trace,
diagonal, outer, cross, matrix_power.

The math and conventions are those of the NumPy rules
(chainrules/rulesets/numpy/linalg/): ChainRules' complex convention (the
cotangent of a holomorphic map is conj(∂)·ȳ), a real argument gets a real
cotangent, float32 stays float32; the norms' subgradients give ∞-type norms'
derivative to the first extreme element, the 2-norm at zero has derivative
0, ord=0 has none.  The bodies write into no array and branch on no value:
they run on chainrules.ad's tracked values for second derivatives (a
product of a plain seed or tangent with a tracked value is xp.multiply: some
libraries' operators refuse a tracked right operand).  det's
derivative is det(a)·a⁻ᵀ (the NumPy rule's adjugate at a singular matrix
needs the SVD of a value: not here).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

from chainrules._core import Tangent, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import seed
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
    normalize_axes,
    options,
    positional_names,
    register_table,
    unbroadcast,
)
from chainrules.rulesets.array_api.linalg import _bilinear, _conj
from chainrules.rulesets.array_api.reductions import _first_extreme, _from_last, _to_last

__all__ = ["register", "TABLE"]


# ----- helpers ------------------------------------------------------------------------------------

def _H(xp: Any, x: Any) -> Any:
    return _conj(xp, xp.matrix_transpose(x))


def _col(xp: Any, v: Any) -> Any:
    """v[..., None]"""
    return xp.expand_dims(v, axis=-1)


def _mat(xp: Any, v: Any) -> Any:
    """v[..., None, None] (a per-matrix scalar spread over its matrix)."""
    return xp.reshape(v, tuple(v.shape) + (1, 1))


def _eye(xp: Any, n: int, m: int, k: int, like: Any) -> Any:
    dtype = like.dtype if not is_complex(xp, like) else xp.real(like).dtype
    return xp.eye(n, m, k=k, dtype=dtype, **device_kw(xp, like))


def _where0(xp: Any, cond: Any, v: Any) -> Any:
    """v, zero where cond."""
    return xp.where(cond, xp.zeros_like(v), v)


def _safe_div(xp: Any, x: Any, d: Any) -> Any:
    """x / d, 0 where d == 0."""
    z = d == 0
    return _where0(xp, z, x / xp.where(z, xp.ones_like(d), d))


def _tril(xp: Any, x: Any, k: int) -> Any:
    """The lower triangle of x (below its k-th diagonal): a `where` with a
    constant mask (xp.tril has no rule on the tracked values of every
    library)."""
    n, m = x.shape[-2], x.shape[-1]
    rows = xp.arange(n, **device_kw(xp, x))
    cols = xp.arange(m, **device_kw(xp, x))
    above = xp.reshape(cols, (1, m)) - xp.reshape(rows, (n, 1)) > k
    return _where0(xp, above, x)


def _sign(xp: Any, x: Any) -> Any:
    """x/|x| (0 at 0): the derivative of |x|, real and complex."""
    if not is_complex(xp, x):
        return xp.sign(x)
    return _safe_div(xp, x, xp.abs(x))


def _unary(fname: str, f: Any, names_fallback: Any, known: Any, defaults: Any, body: Any) -> Any:
    """The frule and rrule of f(x, *options): `body(xp, x, Ω, opts)` gives
    (pushforward(Δx), adjoint(ȳ)), the adjoint's result before projection
    (None: zero); a pushforward of None: Ω has no tangent (ord=0).  A tuple
    Ω (slogdet's) gets a structural tangent, its cotangent taken as it is."""
    names = positional_names(f, 1, names_fallback)

    def setup(x: Any, args: Any, kwargs: Any) -> Any:
        Ω = f(x, *args, **kwargs)               # first: the library checks the arguments
        opts = options(fname, names, args, kwargs, known, defaults)
        xp = namespace(x)
        return xp, Ω, opts

    def unary_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, Ω, opts = setup(x, args, kwargs)
        forward, _ = body(xp, x, Ω, opts)
        if forward is None:
            return Ω, NO
        Δx = unthunk(tangents[1])
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        ΔΩ = forward(cast(xp, Δx, x))
        return Ω, ΔΩ if isinstance(Ω, tuple) else cast(xp, ΔΩ, Ω)

    def unary_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp, Ω, opts = setup(x, args, kwargs)
        project = Projector(xp, x)
        rest = (NO,) * len(args)

        def unary_pullback(ȳ: Any) -> tuple[Any, ...]:
            forward, adjoint = body(xp, x, Ω, opts)
            if forward is None:
                seed(ȳ, fname)
                return (NO, NO) + rest
            ȳ = seed(ȳ, fname) if isinstance(Ω, tuple) else as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            x̄ = adjoint(ȳ)
            return (NO, project(ZERO) if x̄ is None else project(x̄)) + rest
        return Ω, unary_pullback

    return unary_frule, unary_rrule


# ----- inv, det, slogdet --------------------------------------------------------------------------

def _inv_body(xp: Any, a: Any, y: Any, opts: Any) -> Any:
    def forward(Δa: Any) -> Any:
        return -xp.matmul(xp.matmul(y, Δa), y)

    def adjoint(ȳ: Any) -> Any:
        yh = _H(xp, y)
        return -xp.matmul(xp.matmul(yh, ȳ), yh)
    return forward, adjoint


def _det_body(xp: Any, a: Any, d: Any, opts: Any) -> Any:
    def cofactor() -> Any:                      # ∂det/∂a = det(a)·a⁻ᵀ
        return _mat(xp, d) * xp.matrix_transpose(xp.linalg.inv(a))

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
    return y.ndim < max(a.ndim, b.ndim)


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


# ----- vector_norm, matrix_norm: ∂‖x‖/∂x = g; ẏ = Re Σ conj(g)·ẋ, x̄ = g·Re(ȳ) -------------------

def _inf(ord: Any) -> Any:
    return isinstance(ord, (int, float)) and abs(ord) == float("inf")


def _keep(xp: Any, y: Any, shape: Any, axes: Any) -> Any:
    """y with the reduced axes of an array of `shape` put back (length 1)."""
    return xp.reshape(y, tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _vector_gradient(xp: Any, x: Any, y: Any, ord: Any, axes: Any) -> Any:
    """∂vector_norm/∂x over `axes` (ord ≠ 0)."""
    if ord == 1:
        return _sign(xp, x)
    if _inf(ord):
        xt, mask, order = _first_extreme(xp, xp.abs(x), axes, xp.argmax if ord > 0 else xp.argmin)
        st, _ = _to_last(xp, _sign(xp, x), axes)
        return _from_last(xp, _where0(xp, ~mask, st), tuple(x.shape), order)
    yb = _keep(xp, y, x.shape, axes)
    if ord == 2:
        return _safe_div(xp, x, xp.broadcast_to(yb, tuple(x.shape)))
    ax = xp.abs(x)
    yb = xp.broadcast_to(yb, tuple(x.shape))
    p = float(ord)
    g = xp.multiply(_sign(xp, x), cast(xp, _safe_div(xp, ax, yb) ** (p - 1), ax))
    return _where0(xp, (ax == 0) | (yb == 0), g)


def _norm_forward(xp: Any, g: Any, Δx: Any, axes: Any, keepdims: Any) -> Any:
    v = xp.multiply(_conj(xp, g), Δx)
    v = xp.real(v) if is_complex(xp, v) else v
    return xp.sum(v, axis=axes, keepdims=keepdims)


def _vector_norm_body(xp: Any, x: Any, y: Any, opts: Any) -> Any:
    ord, keepdims = opts["ord"], opts["keepdims"]
    if ord == 0:
        return None, None
    axes = normalize_axes("vector_norm", opts["axis"], x.ndim)

    def forward(Δx: Any) -> Any:
        return _norm_forward(xp, _vector_gradient(xp, x, y, ord, axes), Δx, axes, keepdims)

    def adjoint(ȳ: Any) -> Any:
        ȳ = xp.real(ȳ) if is_complex(xp, ȳ) else ȳ
        return xp.multiply(_vector_gradient(xp, x, y, ord, axes), _keep(xp, ȳ, x.shape, axes))
    return forward, adjoint


def vector_norm_rules(f: Any, name: str = "vector_norm") -> Any:
    return _unary(name, f, ("ord", "axis", "keepdims"), ("ord", "axis", "keepdims"),
                  {"ord": 2, "axis": None, "keepdims": False}, _vector_norm_body)


def _one_hot_sums(xp: Any, x: Any, sum_axis: int, pick_axis: int, ord: Any) -> Any:
    """sign(x) on the first column (sum over rows) or row whose absolute sum
    is extreme, 0 elsewhere (the 1-, ∞-norms and their negatives)."""
    nd = x.ndim
    sums = xp.sum(xp.abs(x), axis=sum_axis, keepdims=True)
    _, mask, order = _first_extreme(xp, sums, (pick_axis % nd,), xp.argmax if ord > 0 else xp.argmin)
    mask = _from_last(xp, mask, tuple(sums.shape), order)
    return _where0(xp, ~xp.broadcast_to(mask, tuple(x.shape)), _sign(xp, x))


def _matrix_gradient(xp: Any, x: Any, y: Any, ord: Any) -> Any:
    if ord == "fro":
        return _safe_div(xp, x, xp.broadcast_to(_mat(xp, y), tuple(x.shape)))
    if ord in ("nuc", 2, -2):
        U, _, Vh = xp.linalg.svd(x, full_matrices=False)
        if ord == "nuc":
            return xp.matmul(U, Vh)
        k = 0 if ord == 2 else U.shape[-1] - 1
        return xp.matmul(U[..., :, k:k + 1], Vh[..., k:k + 1, :])
    if ord in (1, -1):                          # over columns, of the column sums
        return _one_hot_sums(xp, x, -2, -1, ord)
    if _inf(ord):                               # over rows, of the row sums
        return _one_hot_sums(xp, x, -1, -2, ord)
    raise ValueError(f"matrix_norm: invalid norm order {ord!r}")


def _matrix_norm_body(xp: Any, x: Any, y: Any, opts: Any) -> Any:
    ord, keepdims = opts["ord"], opts["keepdims"]
    if opts.get("axis") not in (None, (-2, -1), [-2, -1]):
        raise TypeError(f"matrix_norm: the rule takes the last two axes only, got axis={opts['axis']}")
    axes = (x.ndim - 2, x.ndim - 1)
    yk = y if keepdims else _mat(xp, y)
    yk = xp.reshape(yk, tuple(yk.shape[:-2]))

    def forward(Δx: Any) -> Any:
        return _norm_forward(xp, _matrix_gradient(xp, x, yk, ord), Δx, axes, keepdims)

    def adjoint(ȳ: Any) -> Any:
        ȳ = xp.real(ȳ) if is_complex(xp, ȳ) else ȳ
        return xp.multiply(_matrix_gradient(xp, x, yk, ord), _keep(xp, ȳ, x.shape, axes))
    return forward, adjoint


def matrix_norm_rules(f: Any, name: str = "matrix_norm") -> Any:
    return _unary(name, f, ("ord", "axis", "keepdims"), ("ord", "axis", "keepdims"),
                  {"ord": "fro", "axis": None, "keepdims": False}, _matrix_norm_body)


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
}


def register(functions: Any) -> Any:
    """Register the rules of this file on the functions of these names in
    `functions` (a library's `linalg` namespace, or a dict {standard name:
    function}); returns the names registered."""
    return register_table(TABLE, functions)
