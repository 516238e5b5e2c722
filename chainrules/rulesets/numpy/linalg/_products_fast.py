"""The NumPy fast paths of matmul's and tensordot's bodies
(array_api/linalg.py) on small ndarrays, served inside np.dot's, np.inner's
and np.tensordot's registrations (products.py): for two float ndarrays of
one dtype and a seed of Ω's dtype and shape, what the body's adjoints
compute -- the same NumPy calls on the same views, so the same numbers,
checked bit for bit by tests/rulesets/numpy/test_linalg_one_body.py --
without its generic layers (options, namespace, seed and projection
objects); any other seed takes the body's pullback."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import Thunk
from chainrules.rulesets._arrays import NO, seed
from chainrules.rulesets.array_api import linalg as body

__all__ = ["bilinear_pullback_for", "vectors_pullback_for", "matmul_small_adjoints", "tensordot_fast", "tensordot_np"]


def bilinear_pullback_for(a: Any, b: Any, Ω: Any, adjoints: Any, axes: Any, name: str, slow: Any) -> Any:
    """The pullback of a bilinear body for ndarrays a, b: `adjoints(ȳ, a,
    b, axes)` gives (ā, b̄) as functions, each already of its argument's
    dtype and shape (what the body's projection returns as it is); `slow(a,
    b)` is the body's rrule, for any other seed."""
    dtype, shape = Ω.dtype, Ω.shape

    def bilinear_fast_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, name)
        if type(ȳ) is not np.ndarray:
            if type(ȳ) is float or isinstance(ȳ, np.generic):        # a number: the body's seed is a 0-d array
                ȳ = np.asarray(ȳ)
            else:
                return slow(a, b)[1](ȳ)  # type: ignore[no-any-return]
        if ȳ.dtype != dtype or ȳ.shape != shape:
            return slow(a, b)[1](ȳ)  # type: ignore[no-any-return]
        ā, b̄ = adjoints(ȳ, a, b, axes)
        return NO, Thunk(ā), Thunk(b̄)          # as the body's: one product per cotangent used
    return bilinear_fast_pullback


def vectors_pullback_for(a: Any, b: Any, dtype: Any, name: str, slow: Any) -> Any:
    """The pullback of matmul's or tensordot's body for two real vectors
    (np.dot, np.inner), for a seed of Ω's dtype: each cotangent is ȳ times
    the other vector, one product per element (the body's 1×1 by 1×n
    product adds it to a zero: the same numbers, but for the sign of a
    zero), computed at once (a Thunk would cost what the product does)."""
    double = dtype.char == "d"

    def vectors_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, name)
        if (type(ȳ) is float and double) or (isinstance(ȳ, (np.ndarray, np.generic)) and type(ȳ) is not np.matrix
                                            and ȳ.dtype == dtype and ȳ.shape == ()):
            return NO, ȳ * b, ȳ * a
        return slow(a, b)[1](ȳ)  # type: ignore[no-any-return]
    return vectors_pullback


def matmul_small_adjoints(ȳ: Any, a: Any, b: Any, axes: Any) -> Any:
    """matmul's adjoints (array_api/linalg.py's `_matmul_adjoints`) for 1-
    and 2-d a and b: a vector made a matrix, no batch to sum over."""
    conj = a.dtype.kind == "c"
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    shape = ȳ.shape
    if a.ndim == 1:
        shape = shape[:-1] + (1,) + shape[-1:]
    if b.ndim == 1:
        shape = shape + (1,)
    g = ȳ.reshape(shape)

    def matmul_da() -> Any:
        return np.matmul(g, (np.conj(b2) if conj else b2).mT).reshape(a.shape)

    def matmul_db() -> Any:
        return np.matmul((np.conj(a2) if conj else a2).mT, g).reshape(b.shape)
    return matmul_da, matmul_db


def tensordot_np(x: Any, y: Any, cx: Any, cy: Any) -> Any:
    """np.tensordot(x, y, axes=(cx, cy)) as NumPy computes it -- x's free
    axes then its contracted ones, y's contracted then its free ones, as two
    matrices multiplied by np.dot -- without its argument checks: the same
    views, the same np.dot, the same numbers."""
    if x.ndim == 2 and y.ndim == 2 and len(cx) == 1:
        # two matrices over one axis: the transposes and reshapes are views with x's and y's
        # strides or their transposes'
        return np.dot(x if cx[0] == 1 else x.T, y if cy[0] == 0 else y.T)
    fx = [i for i in range(x.ndim) if i not in cx]
    fy = [i for i in range(y.ndim) if i not in cy]
    sx, sy = x.shape, y.shape
    k = 1
    for i in cx:
        k *= sx[i]
    m = 1
    for i in fx:
        m *= sx[i]
    n = 1
    for i in fy:
        n *= sy[i]
    xt = x.transpose(fx + list(cx)).reshape((m, k))
    yt = y.transpose(list(cy) + fy).reshape((k, n))
    return np.dot(xt, yt).reshape(tuple(sx[i] for i in fx) + tuple(sy[i] for i in fy))


def matrices_adjoints(ȳ: Any, a: Any, b: Any, axes: Any) -> Any:
    """`tensordot_small_adjoints` for two matrices contracted over a's axis
    `i` and b's `j` (axes = (i, j)): each tensordot one np.dot of the
    arguments or their transposes (the views np.tensordot multiplies), its
    result transposed back where the body's permutation is not the identity."""
    i, j = axes
    if a.dtype.kind == "c":
        a, b = np.conj(a), np.conj(b)

    def matrices_da() -> Any:
        t = np.dot(ȳ, b if j == 1 else b.T)
        return t if i == 1 else t.T

    def matrices_db() -> Any:
        t = np.dot(a if i == 0 else a.T, ȳ)
        return t if j == 0 else t.T
    return matrices_da, matrices_db


def tensordot_small_adjoints(ȳ: Any, a: Any, b: Any, axes: Any) -> Any:
    """tensordot's adjoints (array_api/linalg.py's `_tensordot_adjoints`)
    over the contracted axes `axes` = (ca, cb), with `tensordot_np`."""
    ca, cb, fa, fb, inv_a, inv_b = axes
    na = len(fa)
    conj = a.dtype.kind == "c"

    def tensordot_da() -> Any:
        t = tensordot_np(ȳ, np.conj(b) if conj else b, list(range(na, ȳ.ndim)), fb)
        return t if inv_a is None else t.transpose(inv_a)

    def tensordot_db() -> Any:
        t = tensordot_np(np.conj(a) if conj else a, ȳ, fa, list(range(na)))
        return t if inv_b is None else t.transpose(inv_b)
    return tensordot_da, tensordot_db


def tensordot_fast(a: Any, b: Any, Ω: Any, ca: Any, cb: Any, name: str, slow: Any) -> Any:
    """(Ω, the pullback) of tensordot's body for ndarrays a, b contracted
    over a's axes `ca` and b's `cb` (non-negative, paired), Ω the product
    (an ndarray or a NumPy scalar); None for a repeated axis."""
    if a.ndim == 2 and b.ndim == 2 and len(ca) == 1 and len(cb) == 1:      # two matrices over one axis
        return Ω, bilinear_pullback_for(a, b, Ω, matrices_adjoints, (ca[0], cb[0]), name, slow)
    if len(set(ca)) != len(ca) or len(set(cb)) != len(cb):
        return None
    fa = [i for i in range(a.ndim) if i not in ca]
    fb = [i for i in range(b.ndim) if i not in cb]
    pair_b, pair_a = dict(zip(cb, ca)), dict(zip(ca, cb))
    order_a = fa + [pair_b[j] for j in sorted(cb)]
    order_b = [pair_a[i] for i in sorted(ca)] + fb
    inv_a, inv_b = body._inverse(order_a), body._inverse(order_b)
    ident = tuple(range(len(order_a))), tuple(range(len(order_b)))
    axes = (ca, cb, fa, fb, None if inv_a == ident[0] else inv_a, None if inv_b == ident[1] else inv_b)
    return Ω, bilinear_pullback_for(a, b, Ω, tensordot_small_adjoints, axes, name, slow)
