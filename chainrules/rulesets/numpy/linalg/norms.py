"""Rules for `numpy.linalg.norm`, `vector_norm` and `matrix_norm` (subgradients:
max/min-type norms give the derivative to one extremal element, the first;
`ord=0` is non-differentiable)."""


# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
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
    project_to,
)
from chainrules.rulesets.numpy.linalg._common import (
    _diff,
    _opts,
)


# =============================================================================
# linalg.norm
# =============================================================================

_NORM_SPEC = (("ord", None), ("axis", None), ("keepdims", False))


def _sign(x: Any) -> Any:
    """x/|x| (0 at 0), the derivative of |x| for real and complex x."""
    if x.dtype.kind != "c":
        return np.sign(x)
    ax = np.abs(x)
    return np.where(ax == 0, 0, x / np.where(ax == 0, 1, ax))


def _norm_plan(x: Any, ord: Any, axis: Any) -> Any:
    """('flat'|'vector'|'matrix', axes) as NumPy decides it."""
    nd = x.ndim
    if axis is None:
        if ord is None:
            return "flat", tuple(range(nd))
        if nd == 1:
            return "vector", (0,)
        if nd == 2:
            # the Frobenius norm is the 2-norm of the flattened matrix (issue 11:
            # ord='fro' without axis raised)
            return ("flat", (0, 1)) if ord in ("fro", "f") else ("matrix", (0, 1))
        raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = tuple(int(i) % nd for i in axes)
    if len(axes) == 1:
        return "vector", axes
    if len(axes) == 2:
        return ("flat", axes) if ord in (None, "fro", "f") else ("matrix", axes)
    raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")


def _onehot_extremum(vals: Any, axis: Any, fn: Any) -> Any:
    """A boolean mask, along `axis`, of the first element where `fn` (argmax
    or argmin) lands."""
    idx = np.expand_dims(fn(vals, axis=axis), axis)
    mask = np.zeros(vals.shape, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=axis)
    return mask


def _norm_gradient(x: Any, y: Any, ord: Any, kind: Any, axes: Any) -> Any:
    """∂norm/∂x (same shape as x; x̄ = gradient · ȳ, ẏ = Re Σ conj(gradient)·ẋ),
    or None for ord=0."""
    yk = array_or_tracked(y)
    if kind == "flat" or (kind == "vector" and ord in (None, 2)):
        yb = _keep(yk, axes, x.ndim)
        return np.where(yb == 0, 0, x / np.where(yb == 0, 1, yb))
    if kind == "vector":
        (ax,) = axes
        if ord == 0:
            return None
        if ord == 1:
            return _sign(x)
        if ord == np.inf or ord == -np.inf:
            mask = _onehot_extremum(np.abs(x), ax, np.argmax if ord > 0 else np.argmin)
            return np.where(mask, _sign(x), 0)
        p = float(ord)
        yb = _keep(yk, axes, x.ndim)
        ax_ = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = _sign(x) * (ax_ / np.where(yb == 0, 1, yb)) ** (p - 1)
        return np.where((ax_ == 0) | (yb == 0), 0, g)
    # matrix norms
    r, c = axes
    if ord == "nuc" or ord in (2, -2):
        xm = np.moveaxis(x, (r, c), (-2, -1))
        U, s, Vh = np.linalg.svd(xm, full_matrices=False)
        if ord == "nuc":
            g = U @ Vh
        else:
            k = 0 if ord == 2 else -1
            g = U[..., :, k:k + 1 or None] @ Vh[..., k:k + 1 or None, :]
        return np.moveaxis(g, (-2, -1), (r, c))
    if ord in (1, -1):       # max/min over columns of the column sums
        sums = np.sum(np.abs(x), axis=r, keepdims=True)
        mask = _onehot_extremum(sums, c, np.argmax if ord > 0 else np.argmin)
        return np.where(mask, _sign(x), 0)
    if ord in (np.inf, -np.inf):   # max/min over rows of the row sums
        sums = np.sum(np.abs(x), axis=c, keepdims=True)
        mask = _onehot_extremum(sums, r, np.argmax if ord > 0 else np.argmin)
        return np.where(mask, _sign(x), 0)
    raise ValueError(f"numpy.linalg.norm: invalid norm order {ord!r} for matrices")


def _keep(y: Any, axes: Any, nd: int) -> Any:
    """y with the reduced axes put back (length 1), if they are not there."""
    y = array_or_tracked(y)
    if y.ndim == nd:
        return y
    return np.expand_dims(y, tuple(sorted(axes)))


@register_frule(np.linalg.norm, object, ...)
def norm_frule(tangents: Any, x: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ord, axis, keepdims = _opts("numpy.linalg.norm", rest, kw, _NORM_SPEC)
    x = array_or_tracked(x)
    y = np.linalg.norm(x, ord, axis, keepdims)
    ẋ = plain(unthunk(tangents[1]))
    if not _diff(x):
        return y, NO
    kind, axes = _norm_plan(x, ord, axis)
    if kind == "vector" and ord == 0:
        return y, NO
    if _zero(ẋ):
        return y, ZERO
    g = _norm_gradient(x, y, ord, kind, axes)
    ẏ = np.sum((g.conj() * ẋ).real, axis=axes, keepdims=keepdims)
    return y, (ẏ.astype(np.asarray(y).dtype) if isinstance(ẏ, np.ndarray) else ẏ)


@register_rrule(np.linalg.norm, object, ...)
def norm_rrule(x: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    ord, axis, keepdims = _opts("numpy.linalg.norm", rest, kw, _NORM_SPEC)
    px = project_to(x)
    x = array_or_tracked(x)
    y = np.linalg.norm(x, ord, axis, keepdims)
    kind, axes = _norm_plan(x, ord, axis)
    nrest = (NO,) * len(rest)
    nondiff = kind == "vector" and ord == 0

    def norm_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'norm')
        ȳ = unthunk(ȳ)
        if nondiff:
            return (NO, NO) + nrest
        if _zero(ȳ):
            return (NO, _zero_for(px)) + nrest

        def norm_x̄() -> Any:
            return px(_norm_gradient(x, y, ord, kind, axes) * _keep(np.real(ȳ), axes, x.ndim))

        return (NO, Thunk(norm_x̄) if px.kind else NO) + nrest

    return y, norm_pullback


# =============================================================================
# linalg.vector_norm, linalg.matrix_norm (NumPy >= 2)
# =============================================================================

def _vector_norm_gradient(x: Any, y: Any, ord: Any, axes: Any) -> Any:
    """∂vector_norm/∂x over several axes: the vector gradient of the
    flattened axes."""
    if ord in (2, None):
        return _norm_gradient(x, y, None, "flat", axes)
    back = list(range(x.ndim - len(axes), x.ndim))
    xm = np.moveaxis(x, axes, back)
    rest = xm.shape[:x.ndim - len(axes)]
    g = _norm_gradient(xm.reshape(rest + (-1,)), np.reshape(y, rest), ord, "vector", (len(rest),))
    return np.moveaxis(g.reshape(xm.shape), back, axes)


def _vector_norm_axes(x: Any, axis: Any) -> Any:
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(sorted(int(i) % x.ndim for i in ((axis,) if np.ndim(axis) == 0 else axis)))


if hasattr(np.linalg, "vector_norm"):
    @register_frule(np.linalg.vector_norm, object)
    def vector_norm_frule(tangents: Any, x: Any, **kw: Any) -> tuple[Any, Any]:
        x = array_or_tracked(x)
        y = np.linalg.vector_norm(x, **kw)
        ord, keepdims = kw.get("ord", 2), kw.get("keepdims", False)
        ẋ = plain(unthunk(tangents[1]))
        if not _diff(x) or ord == 0:
            return y, NO
        if _zero(ẋ):
            return y, ZERO
        axes = _vector_norm_axes(x, kw.get("axis"))
        g = _vector_norm_gradient(x, y, ord, axes)
        ẏ = np.sum((g.conj() * ẋ).real, axis=axes, keepdims=keepdims)
        return y, ProjectTo(y)(ẏ)

    @register_rrule(np.linalg.vector_norm, object)
    def vector_norm_rrule(x: Any, **kw: Any) -> tuple[Any, Pullback]:
        px = ProjectTo(x)
        x = array_or_tracked(x)
        y = np.linalg.vector_norm(x, **kw)
        ord = kw.get("ord", 2)
        axes = _vector_norm_axes(x, kw.get("axis"))

        def vector_norm_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, 'vector_norm')
            ȳ = unthunk(ȳ)
            if ord == 0:
                return NO, NO
            if _zero(ȳ) or not px.kind:
                return NO, _zero_for(px)
            return NO, Thunk(lambda: px(_vector_norm_gradient(x, y, ord, axes)
                                        * _keep(np.real(ȳ), axes, x.ndim)))

        return y, vector_norm_pullback

if hasattr(np.linalg, "matrix_norm"):
    @register_frule(np.linalg.matrix_norm, object)
    def matrix_norm_frule(tangents: Any, x: Any, **kw: Any) -> tuple[Any, Any]:
        return norm_frule(tangents, x, ord=kw.get("ord", "fro"), axis=(-2, -1),
                          keepdims=kw.get("keepdims", False))

    @register_rrule(np.linalg.matrix_norm, object)
    def matrix_norm_rrule(x: Any, **kw: Any) -> tuple[Any, Pullback]:
        return norm_rrule(x, ord=kw.get("ord", "fro"), axis=(-2, -1), keepdims=kw.get("keepdims", False))
