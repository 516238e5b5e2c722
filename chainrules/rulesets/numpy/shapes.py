"""Rules for NumPy's own shape functions: ravel, swapaxes, moveaxis,
rollaxis, atleast_Nd, broadcast_arrays, tile, repeat, flipud, fliplr, rot90,
diagonal, diag, triu, tril and the copying functions (copy, asarray,
asarray_chkfinite, astype...).  The standard's (reshape, transpose, squeeze,
expand_dims, flip, roll, broadcast_to...) are served by the array-API
bodies (`standard_shapes.py`); padding is in
`padding.py`, joining and splitting in `joining.py`, selection, sorting and
indexing in `indexing.py`, all built on the `_linear` factory here.

Most of these are linear in the array: the frule applies the function itself
to the tangent, the pullback applies its adjoint (a reshape, a transpose, a
sum over the copies, a scatter).  Indices, axes, shapes and masks get
`NoTangent()`.  `np.ndarray` methods with the same arguments as the
functions share their rules.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    StructuralTangent,
    Thunk,
    is_traced,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import sequence_tangent
from chainrules.rulesets.array_api.shapes import memory_order
from chainrules.rulesets._arrays import (
    register_for_arrays,
    traced_call,
    NO,
    ZERO,
    dense,
    like as _like,
    methods as _methods,
    named_rule,
    reject_out,
    unbroadcast,
    seed,
    array_or_traced,
)


def _arg(args: Any, kwargs: Any, i: Any, name: str, default: Any = None) -> Any:
    """The argument at position i after the array (or given by name)."""
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _real_for(dtype: Any, v: Any) -> Any:
    """v ready to be written into an array of `dtype`: real part for real."""
    if dtype.kind != "c":
        vd = getattr(v, "dtype", None)
        if type(v) is complex or (vd is not None and vd.kind == "c"):
            return np.real(v)
    return v


# ----- linear in the array: forward is f on the tangent, back is the adjoint ------------

def _linear(fs: Any, name: str, adjoint: Any, forward: Any = None, refuse: Any = ("out",), thunk: Any = False, check: Any = None) -> None:
    """Rules for functions f(x, *args, **kwargs) linear in x, the other
    arguments being indices and options.  `adjoint(ȳ, x, args, kwargs)`
    gives the cotangent of x (before projection); `forward(Δx, x, args,
    kwargs)` the pushforward (default: f itself on Δx).  `thunk`: the
    adjoint costs a pass over the data.  `check(x, args, kwargs)` raises in
    the forward pass for arguments the rule cannot honour.  Each f in `fs` (a
    function and the ndarray methods that take the same arguments) gets its
    own rules."""
    for f in fs:
        _linear_rules(f, name, adjoint, forward, refuse, thunk, check)


def _linear_rules(f: Any, name: str, adjoint: Any, forward: Any, refuse: Any, thunk: Any, check: Any) -> None:
    def linear_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        if check is not None:
            check(x, args, kwargs)
        Ω = f(x, *args, **kwargs) if not is_traced(x) else traced_call(f, x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        Δx = dense(Δx)
        ΔΩ = f(Δx, *args, **kwargs) if forward is None else forward(Δx, x, args, kwargs)
        return Ω, _like(Ω, ΔΩ)

    def linear_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        if check is not None:
            check(x, args, kwargs)
        Ω = f(x, *args, **kwargs) if not is_traced(x) else traced_call(f, x, args, kwargs)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def linear_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = unthunk(ȳ)
            if thunk:
                return (NO, Thunk(lambda: project(adjoint(ȳ, x, args, kwargs)))) + rest
            return (NO, project(adjoint(ȳ, x, args, kwargs))) + rest
        return Ω, linear_pullback

    register_frule(f)(named_rule(linear_frule, name))
    register_rrule(f)(named_rule(linear_rrule, name))


def _reshape_back(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    return np.reshape(ȳ, np.shape(x))


# ----- reshape, ravel ------------------------------------------------------------------------

def _order(fname: str, x: Any, order: Any) -> Literal["C", "F"]:
    """The memory order 'C'/'F' that `order` ('C', 'F', 'A', 'K') means for x."""
    return memory_order(fname, x if hasattr(x, "flags") or is_traced(x) else np.asarray(x), order)  # type: ignore[no-any-return]


def _ravel_forward(Δx: Any, x: Any, args: Any, kwargs: Any) -> Any:
    return np.ravel(Δx, order=_order("ravel", x, _arg(args, kwargs, 0, "order", "C")))


def _ravel_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    return np.reshape(ȳ, np.shape(x), order=_order("ravel", x, _arg(args, kwargs, 0, "order", "C")))


_linear([np.ravel] + _methods("ravel", "flatten"), "ravel", _ravel_adjoint, _ravel_forward,
        check=lambda x, a, k: _order("ravel", x, _arg(a, k, 0, "order", "C")))


# ----- axes: transpose, swapaxes, moveaxis, rollaxis, squeeze, expand_dims ---------------------

# transpose, permute_dims, matrix_transpose, squeeze, expand_dims, flip, roll and
# broadcast_to: the array-API bodies (standard_shapes.py)

def _swapaxes_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    return np.swapaxes(ȳ, _arg(args, kwargs, 0, "axis1"), _arg(args, kwargs, 1, "axis2"))


_linear([np.swapaxes] + _methods("swapaxes"), "swapaxes", _swapaxes_adjoint)


def _moveaxis_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    return np.moveaxis(ȳ, _arg(args, kwargs, 1, "destination"), _arg(args, kwargs, 0, "source"))


_linear([np.moveaxis], "moveaxis", _moveaxis_adjoint)


def _rollaxis_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    # Read the permutation off a zero-size stand-in whose axis lengths are 1, 2, 3...
    ndim = np.ndim(x)
    stand_in = np.broadcast_to(np.empty(()), tuple(range(1, ndim + 1)))
    perm = [n - 1 for n in np.rollaxis(stand_in, *args, **kwargs).shape]
    return np.transpose(ȳ, np.argsort(perm))


_linear([np.rollaxis], "rollaxis", _rollaxis_adjoint)


# atleast_1d/2d/3d: one array gives one array; several give a tuple.

def _atleast(f: Any, name: str) -> None:
    def atleast_frule(tangents: Any, *arys: Any) -> tuple[Any, Any]:
        Ω = f(*arys)
        if len(arys) == 1:
            Δ = tangents[1]
            return Ω, (Δ if isinstance(Δ, AbstractZero) else _like(Ω, f(dense(Δ))))
        parts = [Δ if isinstance(Δ, AbstractZero) else f(dense(Δ)) for Δ in tangents[1:]]
        return Ω, sequence_tangent(Ω, parts)

    def atleast_rrule(*arys: Any) -> tuple[Any, Pullback]:
        Ω = f(*arys)
        projects = [ProjectTo(a) for a in arys]
        shapes = [np.shape(a) for a in arys]

        def atleast_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            parts = [ȳ] if len(arys) == 1 else _output_parts(ȳ, len(arys))
            return (NO,) + tuple(p(ZERO) if isinstance(g, AbstractZero) or p.kind == 0
                                 else p(np.reshape(unthunk(g), s))
                                 for p, g, s in zip(projects, parts, shapes))
        return Ω, atleast_pullback

    register_frule(f)(named_rule(atleast_frule, name))
    register_rrule(f)(named_rule(atleast_rrule, name))


# ----- sequences of arrays: their tangents and cotangents (broadcast_arrays, joining.py) ----------

def _output_parts(ȳ: Any, n: int) -> Any:
    """The n parts of the cotangent of a tuple or list output."""
    if isinstance(ȳ, AbstractZero):
        return [ȳ] * n
    ȳ = unthunk(ȳ)
    parts = list(ȳ) if isinstance(ȳ, (tuple, list, StructuralTangent)) else None
    if parts is None or len(parts) != n:
        raise ValueError(f"expected the cotangent of a sequence of {n} arrays, got {type(ȳ).__name__}")
    return parts


# ----- broadcast_arrays: the adjoint is the shared unbroadcast ------------------------------------

@register_frule(np.broadcast_arrays)
def broadcast_arrays_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    Ω = np.broadcast_arrays(*args, **kwargs)
    parts = [Δ if isinstance(Δ, AbstractZero) else np.broadcast_to(dense(Δ), np.shape(o))
             for Δ, o in zip(tangents[1:], Ω)]
    return Ω, sequence_tangent(Ω, parts)


@register_rrule(np.broadcast_arrays)
def broadcast_arrays_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    Ω = np.broadcast_arrays(*args, **kwargs)
    projects = [ProjectTo(a) for a in args]

    def broadcast_arrays_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'broadcast_arrays')
        parts = _output_parts(ȳ, len(args))
        return (NO,) + tuple(p(ZERO) if isinstance(g, AbstractZero) or p.kind == 0  # type: ignore[misc]
                             else Thunk(lambda p=p, a=a, g=g: p(unbroadcast(a, g)))  # type: ignore[misc]
                             for p, a, g in zip(projects, args, parts))
    return Ω, broadcast_arrays_pullback


# ----- copies: tile, repeat -------------------------------------------------------------------

def _tile_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    reps = _arg(args, kwargs, 0, "reps")
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    shape = np.shape(x)
    d = max(len(reps), len(shape))
    reps = (1,) * (d - len(reps)) + reps
    full = (1,) * (d - len(shape)) + shape
    # the tiled array viewed as (r0, s0, r1, s1, ...): sum over the copies
    g = np.reshape(ȳ, [v for r, s in zip(reps, full) for v in (r, s)])
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * d, 2))), shape)


_linear([np.tile], "tile", _tile_adjoint, thunk=True)


def _repeat_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    repeats = _arg(args, kwargs, 0, "repeats")
    axis = _arg(args, kwargs, 1, "axis")
    shape: tuple[int, ...] = np.shape(x)
    base: tuple[int, ...]
    if axis is None or not shape:       # NumPy repeats a 0-d array as a 1-element vector
        base, ax = (int(np.prod(shape)),), 0
    else:
        base, ax = shape, int(axis) % len(shape)
    ȳ = array_or_traced(ȳ)
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:
        r = int(np.ravel(repeats)[0])
        g = np.sum(np.reshape(ȳ, base[:ax] + (base[ax], r) + base[ax + 1:]), axis=ax + 1)
    elif is_traced(ȳ):
        # the pullback differentiated: the sums of the segments of ȳ, as differences of its
        # running sum at their ends (no writes into an array)
        ends = np.cumsum(repeats)
        cs: Any = np.cumsum(np.moveaxis(cast(Any, ȳ), ax, 0), axis=0)  # a traced array
        cs = np.concatenate([np.zeros((1,) + tuple(np.shape(cs)[1:]), dtype=ȳ.dtype), cs])
        g = np.moveaxis(np.take(cs, ends, axis=0) - np.take(cs, ends - np.asarray(repeats), axis=0), 0, ax)
    else:
        g = np.zeros(base, dtype=ȳ.dtype)
        np.add.at(np.moveaxis(g, ax, 0), np.repeat(np.arange(base[ax]), repeats), np.moveaxis(ȳ, ax, 0))
    return np.reshape(g, shape)


_linear([np.repeat] + _methods("repeat"), "repeat", _repeat_adjoint, thunk=True)


# ----- reorderings: flipud, fliplr, rot90 ----------------------------------------------------------

_linear([np.flipud], "flipud", lambda ȳ, x, a, k: np.flipud(ȳ))
_linear([np.fliplr], "fliplr", lambda ȳ, x, a, k: np.fliplr(ȳ))
_linear([np.rot90], "rot90",
        lambda ȳ, x, a, k: np.rot90(ȳ, -_arg(a, k, 0, "k", 1), _arg(a, k, 1, "axes", (0, 1))))


# ----- diagonals and triangles -------------------------------------------------------------------

def _diagonal_index(shape: Any, offset: Any, axis1: Any, axis2: Any, length: Any) -> Any:
    """The index tuple of the diagonal (as np.diagonal reads it: the diagonal
    axis last) in an array of `shape`."""
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    i = np.arange(length) + max(0, -offset)
    j = np.arange(length) + max(0, offset)
    others = [d for d in range(nd) if d not in (axis1, axis2)]
    idx: list[Any] = [None] * nd
    for k, d in enumerate(others):
        sh = [1] * (len(others) + 1)
        sh[k] = shape[d]
        idx[d] = np.arange(shape[d]).reshape(sh)
    idx[axis1], idx[axis2] = i, j
    return tuple(idx)


def _diagonal_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    offset = int(_arg(args, kwargs, 0, "offset", 0))
    axis1 = int(_arg(args, kwargs, 1, "axis1", 0))
    axis2 = int(_arg(args, kwargs, 2, "axis2", 1))
    ȳ = array_or_traced(ȳ)
    if is_traced(ȳ):
        return diagonal_embed(ȳ, np.shape(x), offset, axis1, axis2)
    g = np.zeros(np.shape(x), dtype=ȳ.dtype)
    g[_diagonal_index(g.shape, offset, axis1, axis2, ȳ.shape[-1])] = ȳ
    return g


def diagonal_embed(ȳ: Any, shape: Any, offset: Any, axis1: Any, axis2: Any) -> Any:
    """The array of `shape` holding ȳ (the diagonal axis last, as np.diagonal
    gives it) on its diagonal (offset, axis1, axis2) and zeros elsewhere,
    computed without writes (ȳ may be tracked by an AD): ȳ contracted
    with the 0/1 tensor E[l, i, j] = [i, j is the l-th element of the
    diagonal], its two axes then moved into place."""
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    n = ȳ.shape[-1]
    l = np.arange(n)
    E = np.zeros((n, shape[axis1], shape[axis2]))
    E[l, l + max(0, -offset), l + max(0, offset)] = 1.0
    g = np.tensordot(ȳ, E, axes=([ȳ.ndim - 1], [0]))
    return np.moveaxis(g, (nd - 2, nd - 1), (axis1, axis2))


_linear([np.diagonal] + _methods("diagonal"), "diagonal", _diagonal_adjoint, thunk=True)


if hasattr(np.linalg, "diagonal"):      # NumPy >= 2: the diagonal of the last two axes
    @register_frule(np.linalg.diagonal, object)
    def linalg_diagonal_frule(tangents: Any, x: Any, *, offset: Any = 0) -> tuple[Any, Any]:
        Ω = np.linalg.diagonal(x, offset=offset)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, np.diagonal(dense(Δx), offset, -2, -1)

    @register_rrule(np.linalg.diagonal, object)
    def linalg_diagonal_rrule(x: Any, *, offset: Any = 0) -> tuple[Any, Pullback]:
        Ω = np.linalg.diagonal(x, offset=offset)
        project = ProjectTo(x)

        def linalg_diagonal_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, 'linalg_diagonal')
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return NO, project(ZERO)
            ȳ = unthunk(ȳ)
            return NO, Thunk(lambda: project(_diagonal_adjoint(ȳ, x, (offset, -2, -1), {})))
        return Ω, linalg_diagonal_pullback


def _diag_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    k = int(_arg(args, kwargs, 0, "k", 0))
    if np.ndim(x) == 1:
        return np.diagonal(ȳ, k)
    return _diagonal_adjoint(ȳ, x, (k,), {})


_linear([np.diag], "diag", _diag_adjoint, thunk=True)


def _triangle_adjoint(f: Any) -> Any:
    def adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
        g = f(ȳ, _arg(args, kwargs, 0, "k", 0))
        # a 1-d input is repeated as the rows of a square: sum the rows
        return np.sum(g, axis=0) if np.ndim(x) == 1 else g
    return adjoint


_linear([np.triu], "triu", _triangle_adjoint(np.triu))
_linear([np.tril], "tril", _triangle_adjoint(np.tril))


# ----- copies and conversions: the cotangent is projected back ----------------------------------

# np.asarray & co. of a tracked x (the rule differentiated by an AD)
# would convert it: x itself (cast to the dtype asked for) is their value
_AS_ARRAY = {np.array, np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray}


def _copy_primal(f: Any, x: Any, args: Any, kwargs: Any) -> Any:
    if not is_traced(x):
        return f(x, *args, **kwargs)
    if f is np.asarray_chkfinite:
        if not np.all(np.isfinite(x)):
            raise ValueError("array must not contain infs or NaNs")     # NumPy's words
        f = np.asarray
    if f in _AS_ARRAY:
        dtype = args[0] if args else kwargs.get("dtype")
        return x if dtype is None else traced_call(np.ndarray.astype, x, (dtype,), {})
    return traced_call(f, x, args, kwargs)


def _copy_like(f: Any, name: str) -> None:
    def copy_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = _copy_primal(f, x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        ΔΩ = ProjectTo(Ω)(np.array(dense(Δx), copy=True) if type(Ω) is np.ndarray else dense(Δx))
        return Ω, ΔΩ

    def copy_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = _copy_primal(f, x, args, kwargs)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def copy_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            return (NO, project(unthunk(ȳ))) + rest
        return Ω, copy_pullback

    register_for_arrays(f, named_rule(copy_frule, name), named_rule(copy_rrule, name), ..., either=False,
                        name=name.replace(".", "_"))
    if f in (np.real_if_close, np.asarray_chkfinite):       # they take numbers too (their value a 0-d array)
        for t in (int, float, complex, np.generic):
            register_frule(f, t, ...)(named_rule(copy_frule, name))
            register_rrule(f, t, ...)(named_rule(copy_rrule, name))


_COPIES: list[Any] = [(np.copy, "copy"), (np.array, "array"), (np.asarray, "asarray"),
                 (np.asanyarray, "asanyarray"), (np.ascontiguousarray, "ascontiguousarray"),
                 (np.asfortranarray, "asfortranarray"), (np.real_if_close, "real_if_close"),
                 (np.ndarray.copy, "ndarray.copy"), (np.ndarray.astype, "ndarray.astype"),
                 # the identity, raising (NumPy's ValueError) on inf and nan as NumPy does
                 (np.asarray_chkfinite, "asarray_chkfinite")]
for _f, _name in _COPIES:
    _copy_like(_f, _name)


# ----- non-differentiable: shapes, sizes, index builders ------------------------------------------

_NONDIFF: list[Any] = [np.shape, np.ndim, np.size, np.zeros_like, np.ones_like, np.empty_like,
                  np.indices, np.unravel_index, np.ravel_multi_index, np.tril_indices, np.triu_indices,
                  np.diag_indices, np.broadcast_shapes, np.result_type]
for _f in _NONDIFF:
    non_differentiable(_f)
del _f, _name
