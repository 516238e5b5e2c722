"""Rules for NumPy's own selection, sorting and indexing: partition,
sort_complex, trim_zeros, take_along_axis, `operator.getitem` and
`np.ndarray.__getitem__` with basic, advanced and boolean indices, and
`x.item(...)`.  The standard's where, clip, sort and take are served by the
array-API bodies (`standard_shapes.py`).

Where the adjoint scatters into an array of the input's size (getitem,
take_along_axis) the cotangent is an `InplaceableThunk`: its add_fn
accumulates into an existing array with `np.add.at` (repeated indices
accumulate) or `dest[idx] += ȳ` (basic indices and masks, which cannot
repeat), without building the zeros.

Conventions: `partition` moves the cotangent with the permutation read off
its result (stable ranks, so ties keep their order).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    InplaceableThunk,
    ProjectTo,
    Thunk,
    is_traced,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules._core import _getitem_rrule, _set_getitem_tracked_pullback
from chainrules.rulesets.array_api.getitem import getitem_rules
from chainrules.rulesets._arrays import (
    register_for_arrays,
    TRACED,
    NO,
    ZERO,
    dense,
    named_rule,
    register as _register,
    seed,
    scatter_traced,
    array_or_traced,
)
from chainrules.rulesets._arrays import value_of as _value
from chainrules.rulesets.numpy.shapes import (
    _arg,
    _real_for,
)


# ----- where, clip ----------------------------------------------------------------------------------

# np.where(condition, x, y), np.clip, np.sort, np.take: the array-API bodies (standard_shapes.py)

non_differentiable(np.where, object)       # np.where(condition): indices


# ----- sort: the cotangent follows the permutation ----------------------------------------------

def _dtype(x: Any) -> Any:
    return x.dtype if isinstance(x, np.ndarray) or is_traced(x) else np.asarray(x).dtype


# partition: a permutation along the axis, like sort.  NumPy does not say
# which permutation argpartition's and partition's results share, so the
# permutation is read off the result: the element of rank r in Ω is the
# element of rank r in x (stable ranks; ties are equal values).

def _partition_setup(x: Any, args: Any, kwargs: Any) -> Any:
    if _arg(args, kwargs, 3, "order") is not None:
        raise TypeError("partition: the rule cannot honour the argument order= (structured arrays)")
    kth = _arg(args, kwargs, 0, "kth")
    axis = _arg(args, kwargs, 1, "axis", -1)
    xs = np.ravel(x) if axis is None else x if is_traced(x) else np.asarray(x)
    axis = -1 if axis is None else int(axis)
    Ω = np.partition(xs, kth, axis)
    rank = np.argsort(np.argsort(_value(Ω), axis=axis, kind="stable"), axis=axis)
    perm = np.take_along_axis(np.argsort(_value(xs), axis=axis, kind="stable"), rank, axis)
    return xs, axis, perm, Ω


def _permuting(name: str, setup: Any) -> Any:
    """Rules for a function that permutes x along an axis: `setup(x, args,
    kwargs)` gives (x or its ravel, the axis, the permutation, Ω)."""
    def permute_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xs, axis, perm, Ω = setup(x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        Δs = np.broadcast_to(dense(Δx), np.shape(x)).reshape(xs.shape)
        return Ω, np.take_along_axis(Δs, perm, axis)

    def permute_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xs, axis, perm, Ω = setup(x, args, kwargs)
        project = ProjectTo(x)
        shape = np.shape(x)
        rest = (NO,) * len(args)

        def permute_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = _real_for(xs.dtype, unthunk(ȳ))
            if is_traced(ȳ):      # the pullback differentiated: the inverse permutation, no writes
                x̄: Any = np.take_along_axis(ȳ, np.argsort(perm, axis=axis), axis)
                return (NO, project(np.reshape(x̄, shape))) + rest
            x̄ = np.empty(xs.shape, dtype=xs.dtype)
            np.put_along_axis(x̄, perm, ȳ, axis)
            return (NO, project(x̄.reshape(shape))) + rest
        return Ω, permute_pullback

    return named_rule(permute_frule, name), named_rule(permute_rrule, name)


def _sort_complex_setup(x: Any, args: Any, kwargs: Any) -> Any:
    if args or kwargs:
        raise TypeError(f"sort_complex: takes one array, not the arguments {list(kwargs) or args}")
    xs = array_or_traced(x)
    perm = np.argsort(_value(xs), axis=-1, kind="stable")   # complex: by real part, then imaginary
    Ω = np.take_along_axis(xs, perm, -1)
    dt = _dtype(xs)
    if dt.kind == "c":
        return xs, -1, perm, Ω
    # NumPy's result dtype: complex64 for the small integers, complex128 for float32 and float64
    to = np.complex64 if dt.char in "bhBH" else np.clongdouble if dt.char == "g" else np.complex128
    return xs, -1, perm, Ω + np.zeros((), to)


_register([np.partition], *_permuting("partition", _partition_setup))
_sort_complex_frule, _sort_complex_rrule = _permuting("sort_complex", _sort_complex_setup)


def sort_complex_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    Ω, ΔΩ = _sort_complex_frule(tangents, x, *args, **kwargs)
    # a real x's tangent, moved, is complex as Ω is
    return Ω, ΔΩ if isinstance(ΔΩ, AbstractZero) or _dtype(ΔΩ).kind == "c" else ΔΩ + np.zeros((), _dtype(Ω))


_register([np.sort_complex], sort_complex_frule, _sort_complex_rrule)


# ----- trim_zeros: a slice of its input (the zeros' positions have no derivative) -----------------

def _trim_slices(x: Any, args: Any, kwargs: Any) -> Any:
    """The slices of x that np.trim_zeros(x, trim, axis) keeps: the bounding
    box of x's nonzero values along the trimmed axes (empty when all are
    zero), None when no axis is trimmed (the result is x)."""
    unknown = set(kwargs) - {"trim", "axis"}
    if unknown or len(args) > 2:
        raise TypeError(f"trim_zeros: unexpected arguments {sorted(unknown) or args[2:]}")
    trim = str(_arg(args, kwargs, 0, "trim", "fb")).lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"numpy.trim_zeros: unexpected character(s) in `trim`: {trim!r}")
    v = _value(x)
    axis = _arg(args, kwargs, 1, "axis")
    axes = range(v.ndim) if axis is None else np.lib.array_utils.normalize_axis_tuple(axis, v.ndim, "axis")
    if not axes:
        return None
    nz = np.argwhere(v != 0)
    start, stop = (nz.min(axis=0), nz.max(axis=0) + 1) if len(nz) else ([0] * v.ndim, [0] * v.ndim)
    keep_all = len(nz) and "f" not in trim, len(nz) and "b" not in trim
    return tuple(slice(None if keep_all[0] else int(start[a]), None if keep_all[1] else int(stop[a]))
                 if a in axes else slice(None) for a in range(v.ndim))


def trim_zeros_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    sl = _trim_slices(x, args, kwargs)
    Ω = x if sl is None else x[sl]
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero) or sl is None:
        return Ω, Δx
    return Ω, np.broadcast_to(dense(Δx), np.shape(x))[sl]


def trim_zeros_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    sl = _trim_slices(x, args, kwargs)
    Ω = x if sl is None else x[sl]
    project = ProjectTo(x)
    shape = np.shape(x)
    # the cotangent padded with zeros back to x's shape (np.pad: differentiable at order 2)
    widths = None if sl is None else [(s.indices(n)[0], n - max(s.indices(n)[1], s.indices(n)[0]))
                                      for s, n in zip(sl, shape)]
    rest = (NO,) * len(args)

    def trim_zeros_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "trim_zeros")
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        ȳ = np.broadcast_to(_real_for(_dtype(x), unthunk(ȳ)), np.shape(Ω))
        return (NO, project(ȳ if widths is None else np.pad(ȳ, widths))) + rest
    return Ω, trim_zeros_pullback


register_for_arrays(np.trim_zeros, named_rule(trim_zeros_frule, "trim_zeros"),
                    named_rule(trim_zeros_rrule, "trim_zeros"), ..., either=False)


# ----- take, take_along_axis, getitem: scatter back, repeated indices accumulate -------------------

def _scatter(project: Any, shape: Any, dtype: Any, index: Any, ȳ: Any, repeats_possible: Any) -> Any:
    """The cotangent that adds ȳ at `index` of a zero array of `shape`, as
    an InplaceableThunk accumulating into an existing array.  `project`:
    None when the primal is an ndarray (the zeros already fit it)."""
    v = _real_for(dtype, ȳ)
    if is_traced(v):
        dest = scatter_traced(shape, dtype, index, v)
        return dest if project is None else project(dest)

    def scatter_add(dest: Any) -> Any:
        if repeats_possible:
            np.add.at(dest, index, v)
        else:
            dest[index] += v
        return dest

    def scatter() -> Any:
        dest = np.zeros(shape, dtype)
        if repeats_possible:
            np.add.at(dest, index, v)
        else:
            dest[index] = v
        return dest if project is None else project(dest)
    return InplaceableThunk(scatter_add, Thunk(scatter))


def _along_axis_index(shape: Any, indices: Any, axis: Any) -> Any:
    if axis is None:
        return np.unravel_index(indices, shape)
    nd = len(shape)
    axis = int(axis) % nd
    idx = []
    for d in range(nd):
        if d == axis:
            idx.append(np.asarray(indices))
        else:
            sh = [1] * nd
            sh[d] = shape[d]
            idx.append(np.arange(shape[d]).reshape(sh))
    return tuple(idx)


@register_frule(np.take_along_axis)
def take_along_axis_frule(tangents: Any, arr: Any, indices: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    Ω = np.take_along_axis(arr, indices, *args, **kwargs)
    Δ = tangents[1]
    if isinstance(Δ, AbstractZero):
        return Ω, Δ
    return Ω, np.take_along_axis(np.broadcast_to(dense(Δ), np.shape(arr)), indices, *args, **kwargs)


@register_rrule(np.take_along_axis)
def take_along_axis_rrule(arr: Any, indices: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    Ω = np.take_along_axis(arr, indices, *args, **kwargs)
    project = ProjectTo(arr)
    axis = _arg(args, kwargs, 0, "axis", -1)
    shape, dtype = np.shape(arr), _dtype(arr)
    rest = (NO,) * len(args)

    def take_along_axis_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'take_along_axis')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO), NO) + rest
        index = _along_axis_index(shape, indices, axis)
        return (NO, _scatter(project, shape, dtype, index, unthunk(ȳ), True), NO) + rest
    return Ω, take_along_axis_pullback


# x[idx]: the array-API body (array_api/getitem.py) is the rule; for an ndarray its rrule
# is compiled (`_getitem_rrule` in _core/array_rules.pxi: at small sizes the closures and
# thunks of a Python rule cost several times the indexing itself, issue 5), computing what
# the body computes (tests/rulesets/numpy/test_shapes_one_body.py), as an
# InplaceableThunk an AD can add in place where the array is large.
getitem_frule, getitem_rrule = (named_rule(r, "getitem") for r in getitem_rules(operator.getitem))
_register([operator.getitem, np.ndarray.__getitem__], getitem_frule, _getitem_rrule, np.ndarray, object)


def _getitem_tracked_pullback(x: Any, idx: Any, ȳ: Any) -> tuple[Any, ...]:
    """The compiled getitem pullback's path for a cotangent tracked by
    the calling AD (the indexed array plain: a mixed partial): the body's
    differentiable scatter."""
    return getitem_rrule(x, idx)[1](ȳ)  # type: ignore[no-any-return]


_set_getitem_tracked_pullback(_getitem_tracked_pullback)


# x.__getitem__(i) on a tracked NumPy value (operator.getitem on tracked values of
# any library has the same body: the AD's routing)
register_for_arrays(np.ndarray.__getitem__, getitem_frule, getitem_rrule, object, either=False, arrays=(TRACED,),
                    name="getitem")


# x.item(*index): one element as a Python number.

def _item_index(x: Any, args: Any) -> Any:
    if not args:
        return (0,) * np.ndim(x)                   # a one-element array
    if len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    if len(args) == 1:
        return np.unravel_index(int(args[0]) % np.size(x), np.shape(x))
    return args


def _item(x: Any, args: Any) -> Any:
    """x.item(*args); of a tracked x, the tracked element."""
    return x.item(*args) if not is_traced(x) else x[_item_index(x, args)]


def item_frule(tangents: Any, x: Any, *args: Any) -> tuple[Any, Any]:
    Ω = _item(x, args)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, Δx
    return Ω, np.asarray(np.broadcast_to(dense(Δx), x.shape)).item(*args)


def item_rrule(x: Any, *args: Any) -> tuple[Any, Pullback]:
    Ω = _item(x, args)
    project = ProjectTo(x)
    rest = (NO,) * len(args)

    def item_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'item')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        index = _item_index(x, args)
        dtype = _value(x).dtype
        return (NO, _scatter(None if type(x) is np.ndarray else project, np.shape(x), dtype, index, unthunk(ȳ),
                             False)) + rest
    return Ω, item_pullback


_register([np.ndarray.item], item_frule, item_rrule, np.ndarray, ...)
register_for_arrays(np.ndarray.item, item_frule, item_rrule, ..., either=False, arrays=(TRACED,))
