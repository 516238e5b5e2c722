"""Rules for NumPy's own joining and splitting functions (concatenate and
stack are the array-API bodies', standard_shapes.py): h/v/dstack (and row_stack, vstack's alias), column_stack, append, split and friends.  Sequences of arrays
(concatenate's argument, split's result) have as tangent a `Tangent[tuple]`
or a `Tangent[list]` (lists and tuples of tangents are accepted as
cotangents too).
"""


# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
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
    dense,
    named_rule,
    project_to,
    reject_out,
    seed,
)
from chainrules.rulesets.array_api._common import sequence_tangent
from chainrules.rulesets.numpy.shapes import (
    _output_parts,
    _arg,
    _atleast,
)


# ----- sequences of arrays: joining and splitting ----------------------------------------------

def _dense(parts: Any, like: Any) -> Any:
    """The tangents of the parts as arrays (zeros materialised), or None when
    all are zero."""
    if all(isinstance(p, AbstractZero) for p in parts):
        return None
    return [np.zeros(np.shape(a), dtype=np.result_type(a, 0.0)) if isinstance(p, AbstractZero)
            else unthunk(p) for p, a in zip(parts, like)]


def _stand_in(shape: Any) -> Any:
    return np.broadcast_to(np.empty(()), shape)


def _joiner(f: Any, name: str, layout: Any, refuse: Any = ("out",), aliases: Any = ()) -> None:
    """Rules for a function joining a sequence of arrays along one axis.
    `layout(arrays, args, kwargs)` gives (axis, shapes): each array, reshaped
    to its shape in `shapes`, is concatenated along `axis`.  The same rules
    (computing with f) are registered on the `aliases` of f."""

    def join_frule(tangents: Any, arrays: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        Ω = f(arrays, *args, **kwargs)
        Δ = tangents[1]
        if isinstance(Δ, AbstractZero):
            return Ω, Δ
        full = _dense(list(unthunk(Δ)), arrays)
        return Ω, ZERO if full is None else f(full, *args, **kwargs)

    def join_rrule(arrays: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        Ω = f(arrays, *args, **kwargs)
        projects = [ProjectTo(a) for a in arrays]
        # one array is a valid sequence (its rows are joined): its cotangent is one array
        # (an array an enclosing differentiation traces too)
        whole = project_to(arrays) if not isinstance(arrays, (list, tuple)) else None
        originals = [np.shape(a) for a in arrays]
        axis, shapes = layout(arrays, args, kwargs)
        bounds = np.cumsum([s[axis] for s in shapes])[:-1]
        rest = (NO,) * len(args)

        def join_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero):
                return (NO, sequence_tangent(arrays, [p(ZERO) for p in projects]) if whole is None
                        else whole(ZERO)) + rest
            ȳ = np.reshape(unthunk(ȳ), np.shape(Ω))
            pieces = np.split(ȳ, bounds, axis=axis)
            parts = [p(np.reshape(g, s)) for p, g, s in zip(projects, pieces, originals)]
            if whole is not None:
                full = _dense(parts, arrays)
                return (NO, whole(ZERO if full is None else np.stack(full))) + rest
            return (NO, sequence_tangent(arrays, parts)) + rest
        return Ω, join_pullback

    for g in (f, *aliases):
        register_frule(g)(named_rule(join_frule, name))
        register_rrule(g)(named_rule(join_rrule, name))


def _atleast_layout(f: Any, axis_of: Any) -> Any:
    def layout(arrays: Any, args: Any, kwargs: Any) -> Any:
        shapes = [f(_stand_in(np.shape(a))).shape for a in arrays]
        return axis_of(shapes), shapes
    return layout


def _column_stack_layout(arrays: Any, args: Any, kwargs: Any) -> Any:
    shapes = [np.shape(a) if np.ndim(a) >= 2 else (int(np.size(a)), 1) for a in arrays]
    return 1, shapes


# concatenate and stack: the array-API bodies (standard_shapes.py)
_joiner(np.hstack, "hstack", _atleast_layout(np.atleast_1d, lambda s: 0 if len(s[0]) == 1 else 1))
# row_stack: vstack's alias, deprecated by NumPy 2.0 (its rules compute with vstack: no warning
# beyond the one the caller's own np.row_stack gives)
_joiner(np.vstack, "vstack", _atleast_layout(np.atleast_2d, lambda s: 0),
        aliases=[np.row_stack] if hasattr(np, "row_stack") else [])
_joiner(np.dstack, "dstack", _atleast_layout(np.atleast_3d, lambda s: 2))
_joiner(np.column_stack, "column_stack", _column_stack_layout)


@register_frule(np.append)
def append_frule(tangents: Any, arr: Any, values: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    Ω = np.append(arr, values, *args, **kwargs)
    full = _dense([tangents[1], tangents[2]], [arr, values])
    return Ω, ZERO if full is None else np.append(*full, *args, **kwargs)


@register_rrule(np.append)
def append_rrule(arr: Any, values: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    Ω = np.append(arr, values, *args, **kwargs)
    axis = _arg(args, kwargs, 0, "axis")
    pa, pv = ProjectTo(arr), ProjectTo(values)
    sa, sv = np.shape(arr), np.shape(values)
    n = int(np.prod(sa)) if axis is None else sa[int(axis) % len(sa)]
    rest = (NO,) * len(args)

    def append_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'append')
        if isinstance(ȳ, AbstractZero):
            return (NO, pa(ZERO), pv(ZERO)) + rest
        ȳ = unthunk(ȳ)
        ax = 0 if axis is None else int(axis) % len(sa)
        g_a, g_v = np.split(ȳ, [n], axis=ax)
        return (NO, pa(np.reshape(g_a, sa)), pv(np.reshape(g_v, sv))) + rest
    return Ω, append_pullback


def _splitter(f: Any, name: str, axis_of: Any) -> None:
    """Rules for a function splitting an array into a list of pieces along
    one axis; the adjoint concatenates the pieces' cotangents."""

    def split_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, sequence_tangent(Ω, list(f(dense(Δx), *args, **kwargs)))

    def split_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = f(x, *args, **kwargs)
        project = ProjectTo(x)
        axis = axis_of(x, args, kwargs)
        rest = (NO,) * len(args)

        def split_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            full = _dense(_output_parts(ȳ, len(Ω)), Ω)
            if full is None:
                return (NO, project(ZERO)) + rest
            return (NO, Thunk(lambda: project(np.concatenate(full, axis=axis)))) + rest
        return Ω, split_pullback

    register_frule(f)(named_rule(split_frule, name))
    register_rrule(f)(named_rule(split_rrule, name))


def _split_axis(x: Any, args: Any, kwargs: Any) -> Any:
    return int(_arg(args, kwargs, 1, "axis", 0)) % np.ndim(x)


_splitter(np.split, "split", _split_axis)
_splitter(np.array_split, "array_split", _split_axis)
_splitter(np.hsplit, "hsplit", lambda x, a, k: 1 if np.ndim(x) > 1 else 0)
_splitter(np.vsplit, "vsplit", lambda x, a, k: 0)
_splitter(np.dsplit, "dsplit", lambda x, a, k: 2)

_atleast(np.atleast_1d, "atleast_1d")
_atleast(np.atleast_2d, "atleast_2d")
_atleast(np.atleast_3d, "atleast_3d")
