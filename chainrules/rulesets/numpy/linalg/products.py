"""Rules for NumPy's products of arrays: matmul and `@` on arrays (and the
ndarray methods), tensordot, dot, inner, vdot, vecdot, outer, kron, cross, and
the NumPy 2 spellings in `numpy.linalg` (matmul, tensordot, vecdot, outer,
cross)."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
    Thunk,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    named_rule,
    reject_out,
    unbroadcast,
    zero_for as _zero_for,
    seed,
    plain,
    array_or_tracked,
    project_to,
)
from chainrules.rulesets.numpy._tracked import register_for_arrays
from chainrules.rulesets.numpy.linalg._common import (
    _fit,
    _H,
    _add,
    _opts,
)


# ----- the frule of a bilinear product --------------------------------------------

def _bilinear_tangent(f: Any, a: Any, b: Any, ȧ: Any, ḃ: Any, *args: Any, **kw: Any) -> Any:
    """The pushforward of a bilinear f: f(ȧ, b) + f(a, ḃ), zeros skipped."""
    ȧ, ḃ = plain(unthunk(ȧ)), plain(unthunk(ḃ))
    a, b = plain(a), plain(b)
    ẏ = ZERO
    if not _zero(ȧ):
        ẏ = f(ȧ, b, *args, **kw)
    if not _zero(ḃ):
        ẏ = _add(ẏ, f(a, ḃ, *args, **kw))
    return ẏ


def _bilinear_frule(f: Any, fname: str) -> FruleFunction:
    """The frule of a bilinear f(a, b) without options: ẏ = f(ȧ, b) + f(a, ḃ)."""
    def bilinear_frule(tangents: Any, a: Any, b: Any, **kw: Any) -> tuple[Any, Any]:
        if kw:
            reject_out(fname, kw)
        return f(a, b, **kw), _bilinear_tangent(f, a, b, tangents[1], tangents[2])
    return named_rule(bilinear_frule, fname.rsplit(".", 1)[1])



# =============================================================================
# matmul, operator.matmul
# =============================================================================

def _matmul_cotangents(ȳ: Any, a: Any, b: Any, pa: Any, pb: Any) -> tuple[Any, Any]:
    """(ā, b̄) for y = a @ b (NumPy's 1-d promotion and batch broadcasting)."""
    if type(ȳ) is not np.ndarray:
        ȳ = array_or_tracked(ȳ)
    if a.ndim == 1 or b.ndim == 1:
        return _matmul_vector_cotangents(ȳ, a, b, pa, pb)

    def matmul_ā() -> Any:
        return _fit(a, ȳ @ _H(b), pa)

    def matmul_b̄() -> Any:
        return _fit(b, _H(a) @ ȳ, pb)

    return (Thunk(matmul_ā) if pa.kind else NO), (Thunk(matmul_b̄) if pb.kind else NO)


def _matmul_vector_cotangents(ȳ: Any, a: Any, b: Any, pa: Any, pb: Any) -> tuple[Any, Any]:
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    ȳ2 = ȳ
    if b.ndim == 1:
        ȳ2 = np.expand_dims(ȳ2, -1)
    if a.ndim == 1:
        ȳ2 = np.expand_dims(ȳ2, -2)

    def matmul_ā() -> Any:
        return pa(unbroadcast(a2, ȳ2 @ _H(b2)).reshape(a.shape))

    def matmul_b̄() -> Any:
        return pb(unbroadcast(b2, _H(a2) @ ȳ2).reshape(b.shape))

    return (Thunk(matmul_ā) if pa.kind else NO), (Thunk(matmul_b̄) if pb.kind else NO)


def _matmul_kw(fname: str, kw: Any) -> None:
    if kw:
        reject_out(fname, kw, "axes", "axis", "signature", "where")


@register_frule(np.matmul, object, object)
@register_frule(np.linalg.matmul, object, object)
def matmul_frule(tangents: Any, a: Any, b: Any, **kw: Any) -> tuple[Any, Any]:
    _matmul_kw("numpy.matmul", kw)
    _, ȧ, ḃ = tangents
    y = np.matmul(a, b, **kw)
    return y, _bilinear_tangent(np.matmul, a, b, ȧ, ḃ)


@register_rrule(np.matmul, object, object)
@register_rrule(np.linalg.matmul, object, object)
def matmul_rrule(a: Any, b: Any, **kw: Any) -> tuple[Any, Pullback]:
    if not kw and type(a) is np.ndarray and type(b) is np.ndarray and a.ndim >= 2 and b.ndim >= 2:
        return _matmul_rrule_arrays(a, b)
    _matmul_kw("numpy.matmul", kw)
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.matmul(a, b, **kw) if kw else a @ b

    def matmul_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'matmul')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        return (NO,) + _matmul_cotangents(ȳ, a, b, pa, pb)

    return y, matmul_pullback


def _matmul_rrule_arrays(a: Any, b: Any) -> tuple[Any, Pullback]:
    """matmul_rrule of two plain ndarrays of at least 2 dimensions, no options:
    the common call, with no conversions (a 3 × 3 product costs about as much
    as the Python around it)."""
    pa, pb = ProjectTo(a), ProjectTo(b)
    y = a @ b

    def matmul_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'matmul')
        if type(ȳ) is not np.ndarray:
            if _zero(ȳ):
                return NO, _zero_for(pa), _zero_for(pb)
            ȳ = array_or_tracked(ȳ)
        return (NO,) + _matmul_cotangents(ȳ, a, b, pa, pb)

    return y, matmul_pullback


def operator_matmul_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    return matmul_rrule(a, b)


# operator.matmul on arrays (either argument) and x.__matmul__(y), which is
# x @ y; the reflected x.__rmatmul__(y) is y @ x (the methods for ndarrays and
# tracked NumPy values: _tracked.py; operator.matmul on tracked values of any
# library has the array-API rule: array_api/on_tracked.py)
register_for_arrays(operator.matmul, matmul_frule, operator_matmul_rrule, object, arrays=(np.ndarray,))
register_for_arrays(np.ndarray.__matmul__, matmul_frule, operator_matmul_rrule, object, either=False)


def rmatmul_frule(tangents: Any, x: Any, y: Any) -> tuple[Any, Any]:
    return matmul_frule((tangents[0], tangents[2], tangents[1]), y, x)


def rmatmul_rrule(x: Any, y: Any) -> tuple[Any, Pullback]:
    Ω, matmul_pullback = matmul_rrule(y, x)

    def rmatmul_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'rmatmul')
        s, ȳ_y, x̄ = matmul_pullback(ȳ)
        return s, x̄, ȳ_y
    return Ω, rmatmul_pullback


register_for_arrays(np.ndarray.__rmatmul__, rmatmul_frule, rmatmul_rrule, object, either=False)


# =============================================================================
# tensordot (and the contractions built on it: dot, inner)
# =============================================================================

def _tensordot_axes(a: Any, b: Any, axes: Any) -> Any:
    """Normalised (ia, ib) lists of contracted axes."""
    try:
        n = operator.index(axes)
    except TypeError:
        ia, ib = axes
        ia = [ia] if np.ndim(ia) == 0 else list(ia)
        ib = [ib] if np.ndim(ib) == 0 else list(ib)
    else:
        ia = list(range(a.ndim - n, a.ndim))
        ib = list(range(n))
    ia = [int(i) % a.ndim if a.ndim else int(i) for i in ia]
    ib = [int(i) % b.ndim if b.ndim else int(i) for i in ib]
    return ia, ib


def _tensordot_ā(ȳ: Any, a: Any, b: Any, ia: Any, ib: Any) -> Any:
    fa = [i for i in range(a.ndim) if i not in ia]
    fb = [j for j in range(b.ndim) if j not in ib]
    nfa = len(fa)
    g = np.tensordot(ȳ, b.conj(), axes=(list(range(nfa, nfa + len(fb))), fb))
    src = fa + [ia[ib.index(j)] for j in sorted(ib)]
    return np.transpose(g, np.argsort(src)) if src != sorted(src) else g


def _tensordot_b̄(ȳ: Any, a: Any, b: Any, ia: Any, ib: Any) -> Any:
    fa = [i for i in range(a.ndim) if i not in ia]
    fb = [j for j in range(b.ndim) if j not in ib]
    g = np.tensordot(a.conj(), ȳ, axes=(fa, list(range(len(fa)))))
    src = [ib[ia.index(i)] for i in sorted(ia)] + fb
    return np.transpose(g, np.argsort(src)) if src != sorted(src) else g


def _tensordot_pullback_parts(ȳ: Any, a: Any, b: Any, ia: Any, ib: Any, pa: Any, pb: Any) -> tuple[Any, Any]:
    ȳ = array_or_tracked(ȳ)

    def tensordot_ā() -> Any:
        return pa(_tensordot_ā(ȳ, a, b, ia, ib))

    def tensordot_b̄() -> Any:
        return pb(_tensordot_b̄(ȳ, a, b, ia, ib))

    return (Thunk(tensordot_ā) if pa.kind else NO), (Thunk(tensordot_b̄) if pb.kind else NO)


@register_frule(np.tensordot, object, object, ...)
@register_frule(np.linalg.tensordot, object, object)
def tensordot_frule(tangents: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    axes, = _opts("numpy.tensordot", rest, kw, (("axes", 2),))
    _, ȧ, ḃ = tangents[:3]
    y = np.tensordot(a, b, axes)
    return y, _bilinear_tangent(np.tensordot, a, b, ȧ, ḃ, axes)


@register_rrule(np.tensordot, object, object, ...)
@register_rrule(np.linalg.tensordot, object, object)
def tensordot_rrule(a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    axes, = _opts("numpy.tensordot", rest, kw, (("axes", 2),))
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.tensordot(a, b, axes)
    ia, ib = _tensordot_axes(a, b, axes)
    nrest = (NO,) * len(rest)

    def tensordot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'tensordot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb) + nrest

    return y, tensordot_pullback


# =============================================================================
# dot
# =============================================================================

def _dot_axes(a: Any, b: Any) -> Any:
    if a.ndim == 0 or b.ndim == 0:
        return [], []
    return [a.ndim - 1], [max(b.ndim - 2, 0)]


dot_frule = _bilinear_frule(np.dot, "numpy.dot")
register_frule(np.dot, object, object)(dot_frule)


@register_rrule(np.dot, object, object)
def dot_rrule(a: Any, b: Any, **kw: Any) -> tuple[Any, Pullback]:
    reject_out("numpy.dot", kw)
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.dot(a, b)
    as_matmul = 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2
    ia, ib = _dot_axes(a, b)

    def dot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'dot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        if as_matmul:
            return (NO,) + _matmul_cotangents(ȳ, a, b, pa, pb)
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb)

    return y, dot_pullback


register_for_arrays(np.ndarray.dot, dot_frule, dot_rrule, object, either=False)


# =============================================================================
# inner
# =============================================================================

inner_frule = _bilinear_frule(np.inner, "numpy.inner")
register_frule(np.inner, object, object)(inner_frule)


@register_rrule(np.inner, object, object)
def inner_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.inner(a, b)
    if a.ndim == 0 or b.ndim == 0:
        ia, ib = [], []
    else:
        ia, ib = [a.ndim - 1], [b.ndim - 1]

    def inner_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'inner')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb)

    return y, inner_pullback


# =============================================================================
# vdot: conj(a)·b over the flattened arrays (antilinear in a)
# =============================================================================

vdot_frule = _bilinear_frule(np.vdot, "numpy.vdot")
register_frule(np.vdot, object, object)(vdot_frule)


@register_rrule(np.vdot, object, object)
def vdot_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.vdot(a, b)

    def vdot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'vdot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        # y = Σ conj(a)·b:  ā = b·conj(ȳ),  b̄ = a·ȳ
        ā = Thunk(lambda: pa((b * np.conj(ȳ)).reshape(a.shape))) if pa.kind else NO
        b̄ = Thunk(lambda: pb((a * ȳ).reshape(b.shape))) if pb.kind else NO
        return NO, ā, b̄

    return y, vdot_pullback


# =============================================================================
# vecdot (numpy.vecdot, numpy.linalg.vecdot): Σ conj(x1)·x2 along an axis
# =============================================================================

def _vecdot_axis(kw: Any) -> Any:
    reject_out("numpy.vecdot", kw, "axes", "keepdims", "signature", "where")
    return kw.get("axis", -1)


@register_frule(np.linalg.vecdot, object, object)
def vecdot_frule(tangents: Any, x1: Any, x2: Any, **kw: Any) -> tuple[Any, Any]:
    _vecdot_axis(kw)
    y = np.linalg.vecdot(x1, x2, **kw)
    return y, _bilinear_tangent(np.linalg.vecdot, x1, x2, tangents[1], tangents[2], **kw)


@register_rrule(np.linalg.vecdot, object, object)
def vecdot_rrule(x1: Any, x2: Any, **kw: Any) -> tuple[Any, Pullback]:
    axis = _vecdot_axis(kw)
    p1, p2 = project_to(x1), project_to(x2)
    x1, x2 = array_or_tracked(x1), array_or_tracked(x2)
    y = np.linalg.vecdot(x1, x2, **kw)

    def vecdot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'vecdot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(p1), _zero_for(p2)
        # y = Σ conj(x1)·x2:  x̄1 = x2·conj(ȳ),  x̄2 = x1·ȳ  (ȳ spread along the axis)
        nd = max(x1.ndim, x2.ndim)
        ȳe = np.expand_dims(array_or_tracked(ȳ), axis % nd if nd else axis)
        x̄1 = Thunk(lambda: p1(unbroadcast(x1, x2 * ȳe.conj()))) if p1.kind else NO
        x̄2 = Thunk(lambda: p2(unbroadcast(x2, x1 * ȳe))) if p2.kind else NO
        return NO, x̄1, x̄2

    return y, vecdot_pullback


if isinstance(getattr(np, "vecdot", None), np.ufunc):      # NumPy >= 2.0
    register_frule(np.vecdot, object, object)(vecdot_frule)
    register_rrule(np.vecdot, object, object)(vecdot_rrule)


# =============================================================================
# outer (flattens its arguments)
# =============================================================================

def _outer_rrule(f: Any, fname: str) -> RruleFunction:
    """The rrule of np.outer, or of np.linalg.outer (the same for 1-d
    arguments, an error for others): f computes Ω."""
    def outer_rrule(a: Any, b: Any, **kw: Any) -> tuple[Any, Pullback]:
        reject_out(fname, kw)
        pa, pb = project_to(a), project_to(b)
        a, b = array_or_tracked(a), array_or_tracked(b)
        y = f(a, b)
        return y, _outer_pullback(pa, pb, a, b)
    return named_rule(outer_rrule, "outer")


def _outer_pullback(pa: Any, pb: Any, a: Any, b: Any) -> Pullback:

    def outer_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'outer')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        ȳ = array_or_tracked(ȳ)
        ā = Thunk(lambda: pa((ȳ @ b.ravel().conj()).reshape(a.shape))) if pa.kind else NO
        b̄ = Thunk(lambda: pb((a.ravel().conj() @ ȳ).reshape(b.shape))) if pb.kind else NO
        return NO, ā, b̄

    return outer_pullback


register_frule(np.outer, object, object)(_bilinear_frule(np.outer, "numpy.outer"))
register_rrule(np.outer, object, object)(_outer_rrule(np.outer, "numpy.outer"))
if hasattr(np.linalg, "outer"):      # NumPy >= 2
    register_frule(np.linalg.outer, object, object)(_bilinear_frule(np.linalg.outer, "numpy.linalg.outer"))
    register_rrule(np.linalg.outer, object, object)(_outer_rrule(np.linalg.outer, "numpy.linalg.outer"))


# =============================================================================
# kron
# =============================================================================

def _kron_shapes(a: Any, b: Any) -> Any:
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    return nd, sa, sb


kron_frule = _bilinear_frule(np.kron, "numpy.kron")
register_frule(np.kron, object, object)(kron_frule)


@register_rrule(np.kron, object, object)
def kron_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.kron(a, b)
    nd, sa, sb = _kron_shapes(a, b)

    def kron_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'kron')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        # y[i0*p0+k0, …] = a[i0, …]·b[k0, …]: view ȳ as (a0, b0, a1, b1, …)
        ȳ4 = np.reshape(ȳ, [d for pair in zip(sa, sb) for d in pair])
        ev, od = list(range(0, 2 * nd, 2)), list(range(1, 2 * nd, 2))

        def kron_ā() -> Any:
            return pa(np.tensordot(ȳ4, b.reshape(sb).conj(), axes=(od, list(range(nd)))).reshape(a.shape))

        def kron_b̄() -> Any:
            return pb(np.tensordot(a.reshape(sa).conj(), ȳ4, axes=(list(range(nd)), ev)).reshape(b.shape))

        return NO, (Thunk(kron_ā) if pa.kind else NO), (Thunk(kron_b̄) if pb.kind else NO)

    return y, kron_pullback


# =============================================================================
# cross (3-vectors; NumPy 2 deprecates 2-vectors, which get no rule)
# =============================================================================

_CROSS_SPEC = (("axisa", -1), ("axisb", -1), ("axisc", -1), ("axis", None))


def _cross_axes(a: Any, b: Any, rest: Any, kw: Any) -> Any:
    axisa, axisb, axisc, axis = _opts("numpy.cross", rest, kw, _CROSS_SPEC)
    if axis is not None:
        axisa = axisb = axisc = axis
    try:
        three = np.shape(a)[axisa] == 3 and np.shape(b)[axisb] == 3
    except IndexError:          # no such axis (a 0-d argument): no rule; the primal raises
        return None
    if not three:
        return None
    return axisa, axisb, axisc


@register_frule(np.cross, object, object, ...)
@register_frule(np.linalg.cross, object, object)
def cross_frule(tangents: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any] | None:
    axes = _cross_axes(a, b, rest, kw)
    if axes is None:
        return None
    axisa, axisb, axisc = axes
    y = np.cross(a, b, axisa, axisb, axisc)
    return y, _bilinear_tangent(np.cross, a, b, tangents[1], tangents[2], axisa, axisb, axisc)


@register_rrule(np.cross, object, object, ...)
@register_rrule(np.linalg.cross, object, object)
def cross_rrule(a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    axes = _cross_axes(a, b, rest, kw)
    if axes is None:
        return None
    axisa, axisb, axisc = axes
    pa, pb = project_to(a), project_to(b)
    a, b = array_or_tracked(a), array_or_tracked(b)
    y = np.cross(a, b, axisa, axisb, axisc)
    nrest = (NO,) * len(rest)
    a3, b3 = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)

    def cross_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'cross')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        ȳ3 = np.moveaxis(array_or_tracked(ȳ), axisc, -1)

        # Jᵀ of a ↦ a × b is c̄ ↦ conj(b) × c̄;  of b ↦ a × b: c̄ ↦ c̄ × conj(a)
        def cross_ā() -> Any:
            return pa(np.moveaxis(unbroadcast(a3, np.cross(b3.conj(), ȳ3)), -1, axisa))

        def cross_b̄() -> Any:
            return pb(np.moveaxis(unbroadcast(b3, np.cross(ȳ3, a3.conj())), -1, axisb))

        return (NO, (Thunk(cross_ā) if pa.kind else NO), (Thunk(cross_b̄) if pb.kind else NO)) + nrest

    return y, cross_pullback
