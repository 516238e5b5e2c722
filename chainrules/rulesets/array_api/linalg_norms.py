"""Rules for the array API standard's `linalg.vector_norm` and
`linalg.matrix_norm`, computed with the namespace of their argument: the
conventions of chainrules' NumPy norm rules (numpy/linalg/norms.py): the
derivative of ∞-type norms (and of the 1-, ∞-matrix norms) goes to the first
extreme element, the 2-norm at zero has derivative 0, ord=0 has none; a
complex argument's cotangent is g·Re(ȳ) with g = ∂‖x‖/∂x (x/‖x‖ for the
2-norm), the tangent Re Σ conj(g)·ẋ."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules.rulesets.array_api._common import cast, is_complex, normalize_axes
from chainrules.rulesets.array_api._linalg_common import _conj, _mat, _safe_div, _sign, _unary, _where0
from chainrules.rulesets.array_api.reductions import _first_extreme, _from_last, _to_last

__all__ = ["vector_norm_rules", "matrix_norm_rules"]


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
