"""Rules for the array API standard's shape, joining, selection and
indexing functions, computed with the namespace of their arguments:
reshape, permute_dims, matrix_transpose, expand_dims, squeeze, flip, roll,
broadcast_to, concat, stack, where, clip, sort, take (`__getitem__` is in
getitem.py, re-exported here).  These bodies are NumPy's rules too
(rulesets/numpy/standard_shapes.py registers them on np.reshape & co.), so
they also take NumPy's options where the standard's function has none:
reshape's order=, transpose's axes=None, concatenate's axis=None and dtype=,
sort's axis=None and kind=, take's mode=.

All but where, clip and sort are linear in the array: the frule applies the
function itself to the tangent (with the caller's own arguments), the
pullback its adjoint.  take's adjoint is a scatter-add (repeated indices add up).
Conventions: clip gives the cotangent to x at the bounds; sort moves the cotangent with
the stable permutation that sorts.  Indices, axes and shapes get NoTangent.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    along,
    as_seed,
    cast,
    device_kw,
    is_zero,
    namespace,
    size_of,
    normalize_axes,
    options,
    positional_names,
    register_table,
    sequence_parts,
    sequence_tangent,
    unbroadcast,
)
from chainrules._xp import scatter_add
from chainrules.rulesets.array_api.getitem import getitem_rules, register_getitem

__all__ = ["register", "register_getitem", "getitem_rules", "TABLE"]


# ----- linear in x: the frule is f on the tangent, the pullback an adjoint -------------------------

def _linear(fname: str, f: Any, fallback: Any, known: Any, defaults: Any, adjoint: Any) -> Any:
    """Rules for f(x, *options), linear in x: `adjoint(xp, ȳ, x, Ω, opts)`."""
    names = positional_names(f, 1, fallback)

    def linear_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        return Ω, f(cast(xp, xp.broadcast_to(Δx, tuple(x.shape)), x), *args, **kwargs)

    def linear_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = f(x, *args, **kwargs)          # first: the library checks the arguments
        opts = options(fname, names, args, kwargs, known, defaults)
        xp = namespace(x)
        project = Projector(xp, x)
        rest = (NO,) * len(args)

        def linear_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            return (NO, project(adjoint(xp, xp.broadcast_to(ȳ, tuple(Ω.shape)), x, Ω, opts))) + rest
        return Ω, linear_pullback

    return linear_frule, linear_rrule


def _reshape_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    return xp.reshape(ȳ, tuple(x.shape))


def memory_order(fname: str, x: Any, order: Any) -> Any:
    """The index order 'C' or 'F' that NumPy's `order` ('C', 'F', 'A', 'K',
    None) means for x: 'A' and 'K' read x's layout (`flags`, an ndarray's;
    an array without them is read in 'C' order, as it is stored)."""
    if order is None or order == "C" or order == "F":
        return order or "C"
    flags = getattr(x, "flags", None)
    if order not in ("A", "K"):
        raise ValueError(f"{fname}: order must be one of 'C', 'F', 'A' or 'K', got {order!r}")
    if flags is None or flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    if order == "A":
        return "C"
    raise TypeError(f"{fname}: the rule cannot honour the argument order='K' for an array that is "
                    "neither C- nor Fortran-contiguous; pass order='C' or 'F'")


def reshape_in(xp: Any, v: Any, shape: Any, order: Any) -> Any:
    """v reshaped to `shape` reading and writing its elements in `order`
    ('F': the first index fastest, as reversing the axes, reshaping to the
    reversed shape and reversing back does)."""
    if order != "F":
        return xp.reshape(v, tuple(shape))
    v = xp.permute_dims(v, tuple(range(v.ndim - 1, -1, -1)))
    v = xp.reshape(v, tuple(shape)[::-1])
    return xp.permute_dims(v, tuple(range(v.ndim - 1, -1, -1)))


def _reshape_order_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    return reshape_in(xp, ȳ, tuple(x.shape), memory_order("reshape", x, opts.get("order")))


def _permute_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    if opts.get("axes") is None:         # NumPy's transpose: the axes reversed
        return xp.permute_dims(ȳ, tuple(range(ȳ.ndim - 1, -1, -1)))
    axes = [int(a) % x.ndim for a in opts["axes"]]
    inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
    return xp.permute_dims(ȳ, inverse)


def _transpose_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    return xp.matrix_transpose(ȳ)


def _flip_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    return xp.flip(ȳ, axis=opts["axis"])


def _roll_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    shift = opts["shift"]
    try:
        back: Any = -operator.index(shift)
    except TypeError:                   # a sequence (or NumPy array) of shifts
        back = tuple(-int(s) for s in shift)
    return xp.roll(ȳ, back, axis=opts["axis"])


def _broadcast_back(xp: Any, ȳ: Any, x: Any, Ω: Any, opts: Any) -> Any:
    return unbroadcast(xp, ȳ, tuple(x.shape))


def reshape_rules(f: Any, name: str = "reshape") -> Any:
    # NumPy's reshape: order= and its older spelling newshape= of the shape
    known = ("shape", "copy", "order", "newshape")
    frule, rrule = _linear(name, f, ("shape",), known, {}, _reshape_order_back)
    names = positional_names(f, 1, ("shape",))

    def reshape_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        order = options(name, names, args, kwargs, known, {}).get("order")
        if order not in ("A", "K"):
            return frule(tangents, x, *args, **kwargs)  # type: ignore[no-any-return]
        # the order x's layout means: the tangent's own layout may be another
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        Δx = cast(xp, xp.broadcast_to(Δx, tuple(x.shape)), x)
        return Ω, reshape_in(xp, Δx, tuple(Ω.shape), memory_order(name, x, order))

    return reshape_frule, rrule


def permute_dims_rules(f: Any, name: str = "permute_dims") -> Any:
    return _linear(name, f, ("axes",), ("axes",), {"axes": None}, _permute_back)


def matrix_transpose_rules(f: Any, name: str = "matrix_transpose") -> Any:
    return _linear(name, f, (), (), {}, _transpose_back)


def expand_dims_rules(f: Any, name: str = "expand_dims") -> Any:
    return _linear(name, f, ("axis",), ("axis",), {}, _reshape_back)


def squeeze_rules(f: Any, name: str = "squeeze") -> Any:
    return _linear(name, f, ("axis",), ("axis",), {}, _reshape_back)


def flip_rules(f: Any, name: str = "flip") -> Any:
    return _linear(name, f, ("axis",), ("axis",), {"axis": None}, _flip_back)


def roll_rules(f: Any, name: str = "roll") -> Any:
    return _linear(name, f, ("shift", "axis"), ("shift", "axis"), {"axis": None}, _roll_back)


def broadcast_to_rules(f: Any, name: str = "broadcast_to") -> Any:
    return _linear(name, f, ("shape",), ("shape", "subok"), {}, _broadcast_back)


# ----- concat, stack: the cotangent is cut back into the arrays' pieces ------------------------------

def _joiner(fname: str, f: Any, pieces: Any, known: Any = ("axis",)) -> Any:
    """Rules for f(arrays, axis=...): `pieces(xp, ȳ, arrays, axis)` cuts ȳ."""
    names = positional_names(f, 1, ("axis",))

    def join_frule(tangents: Any, arrays: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        namespace(*arrays)                  # two libraries: a NamespaceError naming both
        Ω = f(arrays, *args, **kwargs)
        parts = sequence_parts(tangents[1], arrays, fname)
        if parts is None:
            return Ω, ZERO
        xp = namespace(*arrays)
        return Ω, cast(xp, f(parts, *args, **kwargs), Ω)

    def join_rrule(arrays: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        namespace(*arrays)
        Ω = f(arrays, *args, **kwargs)
        opts = options(fname, names, args, kwargs, known, {"axis": 0})
        xp = namespace(*arrays)
        projects = [Projector(xp, a) for a in arrays]
        rest = (NO,) * len(args)

        def join_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ):
                return (NO, sequence_tangent(arrays, [p(ZERO) for p in projects])) + rest
            ȳ = xp.broadcast_to(ȳ, tuple(Ω.shape))
            cut = pieces(xp, ȳ, arrays, opts["axis"])
            return (NO, sequence_tangent(arrays, [p(g) for p, g in zip(projects, cut)])) + rest
        return Ω, join_pullback

    return join_frule, join_rrule


def _concat_pieces(xp: Any, ȳ: Any, arrays: Any, axis: Any) -> Any:
    if axis is None:
        sizes = [size_of(a.shape) for a in arrays]
        cuts, start = [], 0
        for a, n in zip(arrays, sizes):
            cuts.append(xp.reshape(ȳ[start:start + n], tuple(a.shape)))
            start += n
        return cuts
    axis = int(axis) % ȳ.ndim
    cuts, start = [], 0
    for a in arrays:
        n = a.shape[axis]
        cuts.append(ȳ[along(axis, slice(start, start + n))])
        start += n
    return cuts


def _stack_pieces(xp: Any, ȳ: Any, arrays: Any, axis: Any) -> Any:
    axis = int(axis) % ȳ.ndim
    return [ȳ[along(axis, i)] for i in range(len(arrays))]


# NumPy's concatenate and stack also take dtype= and casting= (the result's dtype: each
# piece of the cotangent is projected back onto its array's)
def concat_rules(f: Any, name: str = "concat") -> Any:
    return _joiner(name, f, _concat_pieces, ("axis", "dtype", "casting"))


def stack_rules(f: Any, name: str = "stack") -> Any:
    return _joiner(name, f, _stack_pieces, ("axis", "dtype", "casting"))


# ----- where, clip ------------------------------------------------------------------------------------

def _as_array(xp: Any, v: Any, like: Any) -> Any:
    """A Python number as a 0-d array of xp in the dtype of `like`."""
    if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
        return xp.asarray(v, dtype=like.dtype, **device_kw(xp, like))
    return v


def _shape(v: Any) -> Any:
    return () if v is None or isinstance(v, (int, float, complex)) else tuple(v.shape)


def _masked(xp: Any, mask: Any, v: Any, shape: Any) -> Any:
    """v where mask holds, 0 elsewhere, summed back to `shape`."""
    return unbroadcast(xp, xp.where(mask, v, xp.zeros_like(v)), shape)


def where_rules(f: Any, name: str = "where") -> Any:
    def where_frule(tangents: Any, condition: Any, *rest: Any) -> tuple[Any, Any] | None:
        if len(rest) != 2:
            return None                     # where(condition) alone gives indices
        x1, x2 = rest
        xp = namespace(condition, x1, x2)
        Ω = f(condition, x1, x2)
        Δ1, Δ2 = tangents[2], tangents[3]
        if is_zero(Δ1) and is_zero(Δ2):
            return Ω, ZERO
        z = xp.zeros_like(Ω)
        Δ1 = z if is_zero(Δ1) else cast(xp, _as_array(xp, Δ1, Ω), Ω)
        Δ2 = z if is_zero(Δ2) else cast(xp, _as_array(xp, Δ2, Ω), Ω)
        return Ω, xp.where(condition, Δ1, Δ2)

    def where_rrule(condition: Any, *rest: Any) -> tuple[Any, Pullback] | None:
        if len(rest) != 2:
            return None
        x1, x2 = rest
        xp = namespace(condition, x1, x2)
        Ω = f(condition, x1, x2)
        p1, p2 = Projector(xp, x1), Projector(xp, x2)
        s1, s2 = _shape(x1), _shape(x2)

        def where_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ):
                return NO, NO, p1(ZERO), p2(ZERO)
            ȳ = xp.broadcast_to(ȳ, tuple(Ω.shape))
            x̄1 = p1(_masked(xp, condition, ȳ, s1)) if p1.kind else NO
            x̄2 = p2(_masked(xp, ~condition, ȳ, s2)) if p2.kind else NO
            return NO, NO, x̄1, x̄2
        return Ω, where_pullback

    return where_frule, where_rrule


def _clip_masks(xp: Any, x: Any, lo: Any, hi: Any) -> Any:
    """Where Ω is x, lo and hi (x at the bounds: ChainRules' clamp)."""
    above = None if lo is None else x >= lo
    below: Any
    if hi is None:
        below = None
    elif above is None:
        below = x <= hi
    else:
        below = xp.where(above, x <= hi, lo <= hi)
    if above is None and below is None:
        return xp.ones_like(x) == 1, None, None
    if above is None:
        return below, None, ~below
    if below is None:
        return above, ~above, None
    return above & below, ~above & below, ~below


def clip_rules(f: Any, name: str = "clip") -> Any:
    names = positional_names(f, 1, ("min", "max"))

    def bounds(x: Any, args: Any, kwargs: Any) -> Any:
        opts = options(name, names, args, kwargs, ("min", "max"), {"min": None, "max": None})
        xp = namespace(x, opts["min"], opts["max"])
        return xp, _as_array(xp, opts["min"], x), _as_array(xp, opts["max"], x)

    def clip_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, lo, hi = bounds(x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        masks = _clip_masks(xp, x, lo, hi)
        ΔΩ = None
        for Δ, m in zip(tangents[1:], masks):
            if is_zero(Δ) or m is None:
                continue
            t = xp.where(m, cast(xp, _as_array(xp, Δ, Ω), Ω), xp.zeros_like(Ω))
            ΔΩ = t if ΔΩ is None else ΔΩ + t
        return Ω, ZERO if ΔΩ is None else ΔΩ

    def clip_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp, lo, hi = bounds(x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        primals = (x,) + tuple(args[:2])
        projects = [Projector(xp, p) for p in primals]
        shapes = [_shape(p) for p in primals]

        def clip_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ):
                return (NO,) + tuple(p(ZERO) for p in projects)
            ȳ = xp.broadcast_to(ȳ, tuple(Ω.shape))
            masks = _clip_masks(xp, x, lo, hi)
            return (NO,) + tuple(p(ZERO) if m is None or not p.kind else p(_masked(xp, m, ȳ, s))
                                 for p, m, s in zip(projects, masks, shapes))
        return Ω, clip_pullback

    return clip_frule, clip_rrule


# ----- sort: the cotangent follows the permutation ---------------------------------------------------

def _gather(xp: Any, v: Any, perm: Any, axis: Any) -> Any:
    """v[..., perm[..., j], ...] along `axis` (take_along_axis; a one-hot
    contraction where the namespace lacks it)."""
    take = getattr(xp, "take_along_axis", None)
    if take is not None:
        return take(v, perm, axis=axis)
    vt = xp.moveaxis(v, axis, -1) if hasattr(xp, "moveaxis") else v
    pt = xp.moveaxis(perm, axis, -1) if hasattr(xp, "moveaxis") else perm
    n = vt.shape[-1]
    onehot = xp.expand_dims(pt, axis=-1) == xp.arange(n, **device_kw(xp, v))
    out = xp.sum(xp.where(onehot, xp.expand_dims(vt, axis=-2), xp.zeros_like(xp.expand_dims(vt, axis=-2))),
                 axis=-1)
    return xp.moveaxis(out, -1, axis) if hasattr(xp, "moveaxis") else out


def sort_rules(f: Any, name: str = "sort") -> Any:
    names = positional_names(f, 1, ("axis",))
    # NumPy's kind= chooses an algorithm, not the result: the derivative is the stable
    # sort's (a tie's cotangent may go to another of the equal elements); axis=None
    # sorts the flattened array
    known = ("axis", "descending", "stable", "kind")

    def setup(x: Any, args: Any, kwargs: Any) -> Any:
        opts = options(name, names, args, kwargs, known, {"axis": -1, "descending": False, "stable": True})
        xp = namespace(x)
        flat = opts["axis"] is None
        v = xp.reshape(x, (-1,)) if flat else x
        axis = 0 if flat else normalize_axes(name, opts["axis"], x.ndim)[0]
        # descending and stable: an ascending stable sort of -x keeps ties in order
        perm = xp.argsort(-v if opts["descending"] else v, axis=axis, stable=True)
        return xp, axis, perm, flat

    def sort_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        xp, axis, perm, flat = setup(x, args, kwargs)
        Δx = cast(xp, xp.broadcast_to(Δx, tuple(x.shape)), x)
        return Ω, _gather(xp, xp.reshape(Δx, (-1,)) if flat else Δx, perm, axis)

    def sort_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = f(x, *args, **kwargs)
        xp, axis, perm, flat = setup(x, args, kwargs)
        project = Projector(xp, x)
        rest = (NO,) * len(args)

        def sort_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            inverse = xp.argsort(perm, axis=axis)
            x̄ = _gather(xp, xp.broadcast_to(ȳ, tuple(Ω.shape)), inverse, axis)
            return (NO, project(xp.reshape(x̄, tuple(x.shape)) if flat else x̄)) + rest
        return Ω, sort_pullback

    return sort_frule, sort_rrule


# ----- take: the adjoint of a gather is a scatter-add, repeated indices add up ----------------------

def _wrapped(xp: Any, ids: Any, n: int, mode: Any) -> Any:
    """The indices as positions 0 … n - 1: negative ones counted from the end
    (mode 'raise', the standard's), or NumPy's take's mode 'wrap' (modulo n)
    or 'clip' (clipped to the ends)."""
    if mode == "wrap":
        return ids % n
    if mode == "clip":
        return xp.clip(ids, 0, n - 1)
    return xp.where(ids < 0, ids + n, ids)


def take_rules(f: Any, name: str = "take") -> Any:
    names = positional_names(f, 2, ("axis",))

    def take_frule(tangents: Any, x: Any, indices: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = f(x, indices, *args, **kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        return Ω, f(cast(xp, xp.broadcast_to(Δx, tuple(x.shape)), x), indices, *args, **kwargs)

    def take_rrule(x: Any, indices: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = f(x, indices, *args, **kwargs)
        opts = options(name, names, args, kwargs, ("axis", "mode"), {"axis": None})
        xp = namespace(x)
        project = Projector(xp, x)
        axis, mode = opts["axis"], opts.get("mode")
        rest = (NO,) * len(args)

        def take_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO), NO) + rest
            g = cast(xp, xp.broadcast_to(ȳ, tuple(Ω.shape)), x)
            if axis is None:                # the flattened x
                ids = indices if hasattr(indices, "shape") else xp.asarray(indices)
                n = size_of(x.shape)
                x̄ = scatter_add(xp, _wrapped(xp, xp.reshape(ids, (-1,)), n, mode), xp.reshape(g, (-1,)), n)
                return (NO, project(xp.reshape(x̄, tuple(x.shape))), NO) + rest
            a = normalize_axes(name, axis, x.ndim)[0]
            # the indices' axes (a, ..., a + m - 1 of the result; m = 1 in the standard,
            # any m for NumPy's take) first, the rest flattened: one scatter-add of the
            # flat positions index·r + j (r the length of the rest)
            ids = indices if hasattr(indices, "shape") else xp.asarray(indices)
            n, k, m = x.shape[a], size_of(ids.shape), ids.ndim
            rest_axes = [i for i in range(x.ndim) if i != a]
            front = xp.permute_dims(g, (*range(a, a + m), *range(a), *range(a + m, g.ndim)))
            r = size_of(front.shape[m:])
            ids = xp.reshape(ids, (-1,))
            ids = _wrapped(xp, ids, n, mode)
            flat = xp.reshape(xp.reshape(ids, (k, 1)) * r + xp.reshape(xp.arange(r, dtype=ids.dtype,
                                                                                 **device_kw(xp, ids)), (1, r)), (-1,))
            x̄ = xp.reshape(scatter_add(xp, flat, xp.reshape(front, (-1,)), n * r), (n,) + tuple(front.shape[m:]))
            order = [0] * x.ndim
            for j, i in enumerate(rest_axes):
                order[i] = j + 1
            return (NO, project(xp.permute_dims(x̄, tuple(order))), NO) + rest
        return Ω, take_pullback

    return take_frule, take_rrule


# ----- the table --------------------------------------------------------------------------------------

TABLE = {
    "reshape": reshape_rules,
    "permute_dims": permute_dims_rules,
    "matrix_transpose": matrix_transpose_rules,
    "expand_dims": expand_dims_rules,
    "squeeze": squeeze_rules,
    "flip": flip_rules,
    "roll": roll_rules,
    "broadcast_to": broadcast_to_rules,
    "concat": concat_rules,
    "stack": stack_rules,
    "where": where_rules,
    "clip": clip_rules,
    "sort": sort_rules,
    "take": take_rules,
}


def register(functions: Any) -> Any:
    """Register the rules of this file on the functions of these names in
    `functions` (an array namespace, or a dict {standard name: function});
    returns the names registered."""
    return register_table(TABLE, functions)
