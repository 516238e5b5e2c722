"""Rules for higher-order functions: functions that call a function they are
given, whose derivative therefore needs an AD to differentiate that function.

They are registered with `config="reverse"` (rrules) and `config="forward"`
(frules): dispatch calls them only with a `RuleConfig` that has that mode,
and they differentiate the function they are given with
`cr.rrule_via_ad(config, f, …)` / `cr.frule_via_ad(config, tangents, f, …)`.
An AD engine passes such configs, and so does the testing
kit's `TestConfig`.  The function's own tangent (the ∂self of a closure) is
summed over its calls and returned for it.

- `map(f, *iterables)` and `itertools.accumulate(iterable, func)`: the rule's
  Ω is a list of the elements the primal's iterator yields, and its tangent
  is a list.  Why not an iterator: the rule must call f on every element
  before it can return a pullback (an rrule cannot be lazy), so the work is
  done either way; a list can be read many times, indexed and given a
  structural tangent, where a one-shot iterator would be emptied by the
  first reader (an AD's bookkeeping, a test's comparison).  This is also
  what a ChainRules or JAX user meets: Julia's `map` and JAX's `lax.map`,
  `vmap` and `lax.associative_scan` return materialised collections.  Code
  that only iterates the result (`for`, `sum`, `list`, `zip`) sees no
  difference; code calling `next()` on it must call `iter()` first.  The
  testing kit compares a primal's iterator with the rule's list element by
  element (`chainrules.testing.finite_difference_calls.materialize`).
- `functools.reduce(f, xs[, initial])`.
- `np.vectorize(f)(*args)` (no `signature=`, one output) and
  `np.apply_along_axis(f, axis, arr, *args)`.
- `sorted(xs, key=…, reverse=…)`, `min`/`max(xs, key=…)` (and their n-ary
  forms): the key only chooses; the derivative is the permutation or the
  selection, so these two use no AD, only the config registration (which
  keeps them apart from the scalar rows of two-argument `min`/`max`).

Iterable arguments get tangents of their own type: a list for a list, a
`Tangent[tuple]` for a tuple, an array for an array.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import functools
import itertools
import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    frule_via_ad,
    register_frule,
    register_rrule,
    rrule_via_ad,
    unthunk,
    zero_tangent,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
from chainrules.rulesets._arrays import unbroadcast

NO = NoTangent()
ZERO = ZeroTangent()


# ----- helpers ---------------------------------------------------------------

def _part(t: Any, i: Any) -> Any:
    """Element i of the tangent t of a sequence (zeros index to themselves)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return t
    return t[i]


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, AbstractZero) and isinstance(b, AbstractZero):
        return NO if isinstance(a, NoTangent) and isinstance(b, NoTangent) else ZERO
    return a + b


def _sum_self(parts: Any) -> Any:
    """The tangent of a function called many times: the sum of the ∂self of
    each call (NoTangent() for a function without fields)."""
    acc = NO
    for p in parts:
        p = unthunk(p)
        if isinstance(p, NoTangent):
            continue
        acc = p if isinstance(acc, NoTangent) else _add(acc, p)
    return acc


def _elements(xs: Any, who: str) -> Any:
    """The elements of an iterable argument, and whether it can have a tangent."""
    if isinstance(xs, (list, tuple, np.ndarray)):
        return list(xs), True
    if isinstance(xs, (str, bytes, dict, set, frozenset)) or xs is None:
        raise TypeError(f"{who}: cannot differentiate over a {type(xs).__name__}")
    return list(xs), False


def _seq_tangent(xs: Any, parts: Any) -> Any:
    """The tangent of the sequence xs from the tangents of its elements."""
    if len(xs) == 0:
        return NO
    if isinstance(xs, np.ndarray):
        if xs.dtype.kind not in "fc":
            return NO
        if all(isinstance(unthunk(p), AbstractZero) for p in parts):
            return ZERO
        out = [unthunk(p) for p in parts]
        out = [np.zeros_like(xs[i]) if isinstance(p, AbstractZero) else p for i, p in enumerate(out)]
        return ProjectTo(xs)(np.stack([np.asarray(p) for p in out]) if out else np.zeros_like(xs))
    if isinstance(xs, list):
        return [unthunk(p) for p in parts]
    if isinstance(xs, tuple):
        return Tangent[type(xs)](*[unthunk(p) for p in parts])  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time
    return NO


def _seq_zero(xs: Any, seq_ok: Any) -> Any:
    if not seq_ok or len(xs) == 0:
        return NO
    if isinstance(xs, np.ndarray):
        return ZERO if xs.dtype.kind in "fc" else NO
    return _seq_tangent(xs, [zero_tangent(x) for x in xs])


def _zero_of(x: Any) -> Any:
    z = zero_tangent(x)
    return z


# ===== map(f, *iterables) ======================================================

@register_rrule(map, config="reverse")
def map_rrule(config: Any, f: Any, *iterables: Any) -> tuple[Any, Pullback]:
    if not iterables:
        raise TypeError("map() must have at least two arguments")
    cols, ok = zip(*[_elements(it, "map") for it in iterables])
    n = min(len(c) for c in cols)
    calls = [rrule_via_ad(config, f, *[c[i] for c in cols]) for i in range(n)]
    omega = [y for y, _ in calls]

    def map_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero):
            return (NO, NO) + tuple(_seq_zero(it, k) for it, k in zip(iterables, ok))
        parts = [[ZERO] * len(c) for c in cols]
        dselfs = []
        for i, (_, pb) in enumerate(calls):
            g = pb(_part(ȳ, i))
            dselfs.append(g[0])
            for j in range(len(cols)):
                parts[j][i] = g[j + 1]
        dits = tuple(_seq_tangent(it, [p if not isinstance(p, ZeroTangent) else _zero_of(x)
                                       for p, x in zip(ps, c)]) if k else NO
                     for it, ps, c, k in zip(iterables, parts, cols, ok))
        return (NO, _sum_self(dselfs)) + dits
    return omega, map_pullback


@register_frule(map, config="forward")
def map_frule(config: Any, tangents: Any, f: Any, *iterables: Any) -> tuple[Any, Any]:
    if not iterables:
        raise TypeError("map() must have at least two arguments")
    cols = [_elements(it, "map")[0] for it in iterables]
    n = min(len(c) for c in cols)
    df, dits = tangents[1], tangents[2:]
    omega, domega = [], []
    for i in range(n):
        y, dy = frule_via_ad(config, (df,) + tuple(_part(d, i) for d in dits), f, *[c[i] for c in cols])
        omega.append(y)
        domega.append(dy)
    return omega, domega


# ===== functools.reduce(f, xs[, initial]) ======================================

@register_rrule(functools.reduce, config="reverse")
def reduce_rrule(config: Any, f: Any, xs: Any, *initial: Any) -> tuple[Any, Pullback]:
    elems, ok = _elements(xs, "functools.reduce")
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    if not elems and not initial:
        functools.reduce(f, elems)          # the primal's own error
    acc = initial[0] if initial else elems[0]
    rest = range(0, len(elems)) if initial else range(1, len(elems))
    pbs = []
    for i in rest:
        acc, pb = rrule_via_ad(config, f, acc, elems[i])
        pbs.append((i, pb))

    def reduce_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero):
            return (NO, NO, _seq_zero(xs, ok)) + tuple(_zero_of(v) for v in initial)
        parts = [ZERO] * len(elems)
        dselfs = []
        dacc = ȳ
        for i, pb in reversed(pbs):
            dself, dacc, dx = pb(dacc)
            dselfs.append(dself)
            parts[i] = dx
        if initial:
            dinit: tuple[Any, ...] = (dacc,)
        else:
            parts[0] = dacc
            dinit = ()
        parts = [p if not isinstance(unthunk(p), ZeroTangent) else _zero_of(x) for p, x in zip(parts, elems)]
        return (NO, _sum_self(dselfs), _seq_tangent(xs, parts) if ok else NO) + dinit
    return acc, reduce_pullback


@register_frule(functools.reduce, config="forward")
def reduce_frule(config: Any, tangents: Any, f: Any, xs: Any, *initial: Any) -> tuple[Any, Any]:
    elems = _elements(xs, "functools.reduce")[0]
    if not elems and not initial:
        functools.reduce(f, elems)
    df, dxs = tangents[1], tangents[2]
    if initial:
        acc, dacc, start = initial[0], tangents[3], 0
    else:
        acc, dacc, start = elems[0], _part(dxs, 0), 1
    for i in range(start, len(elems)):
        acc, dacc = frule_via_ad(config, (df, dacc, _part(dxs, i)), f, acc, elems[i])
    return acc, dacc


# ===== itertools.accumulate(iterable, func=operator.add) ======================

def _accumulate_args(pos: Any, kwargs: Any) -> Any:
    if len(pos) > 1:
        raise TypeError(f"accumulate() takes at most 2 positional arguments ({1 + len(pos)} given)")
    unknown = set(kwargs) - {"func", "initial"}
    if unknown:
        raise TypeError(f"accumulate(): unexpected keyword arguments {sorted(unknown)}")
    func = pos[0] if pos else kwargs.get("func")
    return (operator.add if func is None else func), kwargs.get("initial")


@register_rrule(itertools.accumulate, config="reverse")
def accumulate_rrule(config: Any, xs: Any, *pos: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    elems, ok = _elements(xs, "itertools.accumulate")
    f, initial = _accumulate_args(pos, kwargs)
    omega, pbs = [], []
    if initial is not None:
        acc, start = initial, 0
        omega.append(acc)
    elif elems:
        acc, start = elems[0], 1
        omega.append(acc)
    else:
        start = 0
    for i in range(start, len(elems)):
        acc, pb = rrule_via_ad(config, f, acc, elems[i])
        omega.append(acc)
        pbs.append((i, pb))
    shift = 1 if initial is not None else 0     # the output index of element i is i + shift

    def accumulate_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero):
            return (NO, _seq_zero(xs, ok)) + (NO,) * len(pos)
        parts = [ZERO] * len(elems)
        dselfs = []
        carry = ZERO
        for i, pb in reversed(pbs):
            dself, carry, dx = pb(_add(_part(ȳ, i + shift), carry))
            dselfs.append(dself)
            parts[i] = dx
        if initial is None and elems:
            parts[0] = _add(_part(ȳ, 0), carry)
        parts = [p if not isinstance(unthunk(p), ZeroTangent) else _zero_of(x) for p, x in zip(parts, elems)]
        dits = _seq_tangent(xs, parts) if ok else NO
        return (NO, dits) + ((_sum_self(dselfs),) if pos else ())
    return omega, accumulate_pullback


@register_frule(itertools.accumulate, config="forward")
def accumulate_frule(config: Any, tangents: Any, xs: Any, *pos: Any, **kwargs: Any) -> tuple[Any, Any]:
    elems = _elements(xs, "itertools.accumulate")[0]
    f, initial = _accumulate_args(pos, kwargs)
    dxs = tangents[1]
    df = tangents[2] if pos else NO
    if initial is not None:
        acc, dacc, start = initial, ZERO, 0
    elif elems:
        acc, dacc, start = elems[0], _part(dxs, 0), 1
    else:
        return [], []
    omega, domega = [acc], [dacc]
    for i in range(start, len(elems)):
        acc, dacc = frule_via_ad(config, (df, dacc, _part(dxs, i)), f, acc, elems[i])
        omega.append(acc)
        domega.append(dacc)
    return omega, domega


# ===== sorted, min, max with key= ==============================================

def _order(elems: Any, key: Any, reverse: Any) -> Any:
    if key is None:
        return sorted(range(len(elems)), key=elems.__getitem__, reverse=reverse)
    keys = [key(x) for x in elems]
    return sorted(range(len(elems)), key=keys.__getitem__, reverse=reverse)


@register_rrule(sorted, config="reverse")
def sorted_rrule(config: Any, xs: Any, key: Any = None, reverse: Any = False) -> tuple[Any, Pullback]:
    elems, ok = _elements(xs, "sorted")
    perm = _order(elems, key, reverse)
    omega = [elems[p] for p in perm]

    def sorted_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero) or not ok:
            return NO, _seq_zero(xs, ok) if ok else NO
        parts = [None] * len(elems)
        for k, p in enumerate(perm):
            parts[p] = _part(ȳ, k)
        parts = [p if not isinstance(unthunk(p), AbstractZero) else _zero_of(x) for p, x in zip(parts, elems)]
        return NO, _seq_tangent(xs, parts)
    return omega, sorted_pullback


@register_frule(sorted, config="forward")
def sorted_frule(config: Any, tangents: Any, xs: Any, key: Any = None, reverse: Any = False) -> tuple[Any, Any]:
    elems = _elements(xs, "sorted")[0]
    perm = _order(elems, key, reverse)
    dxs = tangents[1]
    return [elems[p] for p in perm], [_part(dxs, p) for p in perm]


def _select(fname: str, args: Any, key: Any, default: Any, pick: Any) -> Any:
    """(elements, index of the chosen one or None for the default, n-ary?, ok)."""
    if len(args) == 1:
        elems, ok = _elements(args[0], fname)
        nary = False
    elif len(args) > 1:
        if default is not _NODEFAULT:
            raise TypeError(f"Cannot specify a default for {fname}() with multiple positional arguments")
        elems, ok, nary = list(args), True, True
    else:
        raise TypeError(f"{fname} expected at least 1 argument, got 0")
    if not elems:
        if default is _NODEFAULT:
            raise ValueError(f"{fname}() iterable argument is empty")
        return elems, None, nary, ok
    keys = elems if key is None else [key(x) for x in elems]
    best = 0
    for i in range(1, len(keys)):
        if pick(keys[i], keys[best]):     # strict: ties keep the first, as Python does
            best = i
    return elems, best, nary, ok


_NODEFAULT = object()


def _select_rrule(fname: str, pick: Any) -> RruleFunction:
    def select_rrule(config: Any, *args: Any, key: Any = None, default: Any = _NODEFAULT) -> tuple[Any, Pullback]:
        elems, best, nary, ok = _select(fname, args, key, default, pick)
        omega = default if best is None else elems[best]

        def select_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = unthunk(ȳ)
            if best is None or isinstance(ȳ, AbstractZero):
                if nary:
                    return (NO,) + tuple(_zero_of(x) for x in elems)
                return NO, _seq_zero(args[0], ok)
            parts = [_zero_of(x) for x in elems]
            parts[best] = ȳ
            if nary:
                return (NO,) + tuple(parts)
            return NO, _seq_tangent(args[0], parts) if ok else NO
        select_pullback.__name__ = f"{fname}_pullback"
        return omega, select_pullback
    select_rrule.__name__ = f"{fname}_rrule"
    return select_rrule


def _select_frule(fname: str, pick: Any) -> FruleFunction:
    def select_frule(config: Any, tangents: Any, *args: Any, key: Any = None, default: Any = _NODEFAULT) -> tuple[Any, Any]:
        elems, best, nary, ok = _select(fname, args, key, default, pick)
        if best is None:
            return default, ZERO
        if nary:
            return elems[best], tangents[best + 1]
        return elems[best], _part(tangents[1], best)
    select_frule.__name__ = f"{fname}_frule"
    return select_frule


def _gt(a: Any, b: Any) -> Any:
    return a > b


def _lt(a: Any, b: Any) -> Any:
    return a < b


register_rrule(max, object, ..., config="reverse")(_select_rrule("max", _gt))
register_frule(max, object, ..., config="forward")(_select_frule("max", _gt))
register_rrule(min, object, ..., config="reverse")(_select_rrule("min", _lt))
register_frule(min, object, ..., config="forward")(_select_frule("min", _lt))


# ===== np.vectorize(f)(*args) ====================================================

def _vectorize_ok(vec: Any, kwargs: Any) -> bool:
    return vec.signature is None and not vec.excluded and not kwargs


def _vectorize_args(vec: Any, args: Any) -> Any:
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    return [np.broadcast_to(a, shape) for a in arrays], shape


def _vectorize_output(vec: Any, values: Any, shape: Any) -> Any:
    if vec.otypes:
        dtype = np.dtype(vec.otypes[0])
    else:
        dtype = np.asarray(values[0]).dtype if values else np.dtype(float)
    out = np.empty(len(values), dtype=dtype)
    for i, v in enumerate(values):
        out[i] = v
    out = out.reshape(shape)
    return out[()] if out.ndim == 0 else out


@register_rrule(np.vectorize, config="reverse", instances=True)
def vectorize_rrule(config: Any, vec: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
    if not _vectorize_ok(vec, kwargs) or not args:
        return None
    arrays, shape = _vectorize_args(vec, args)
    calls = [rrule_via_ad(config, vec.pyfunc, *[a[idx] for a in arrays]) for idx in np.ndindex(shape)]
    if any(isinstance(y, tuple) for y, _ in calls):
        return None                  # several outputs: not handled
    omega = _vectorize_output(vec, [y for y, _ in calls], shape)
    projectors = [ProjectTo(a) for a in args]

    def vectorize_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero):
            return (NO,) + tuple(p(ZERO) if p.kind else NO for p in projectors)
        ȳ = np.broadcast_to(np.asarray(ȳ), shape)
        grads = [np.zeros(shape, dtype=np.result_type(np.asarray(a).dtype, ȳ.dtype, float)) for a in args]
        dselfs = []
        for k, idx in enumerate(np.ndindex(shape)):
            g = calls[k][1](ȳ[idx])
            dselfs.append(g[0])
            for j in range(len(args)):
                d = unthunk(g[j + 1])
                if not isinstance(d, AbstractZero):
                    grads[j][idx] += d
        dself = _sum_self(dselfs)
        if not isinstance(dself, NoTangent):
            dself = Tangent[np.vectorize](pyfunc=dself)
        return (dself,) + tuple(p(unbroadcast(np.shape(a), gr)) if p.kind else NO
                                for p, a, gr in zip(projectors, args, grads))
    return omega, vectorize_pullback


@register_frule(np.vectorize, config="forward", instances=True)
def vectorize_frule(config: Any, tangents: Any, vec: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
    if not _vectorize_ok(vec, kwargs) or not args:
        return None
    arrays, shape = _vectorize_args(vec, args)
    dvec = unthunk(tangents[0])
    df = NO if isinstance(dvec, AbstractZero) else dvec.pyfunc
    targs = []
    for a, t in zip(args, tangents[1:]):
        t = unthunk(t)
        targs.append(t if isinstance(t, AbstractZero) else np.broadcast_to(np.asarray(t), shape))
    values, dvalues = [], []
    for idx in np.ndindex(shape):
        y, dy = frule_via_ad(config, (df,) + tuple(t if isinstance(t, AbstractZero) else t[idx] for t in targs),
                             vec.pyfunc, *[a[idx] for a in arrays])
        if isinstance(y, tuple):
            return None
        values.append(y)
        dvalues.append(dy)
    omega = _vectorize_output(vec, values, shape)
    if all(isinstance(unthunk(d), AbstractZero) for d in dvalues):
        return omega, ZERO
    dtype = np.result_type(np.asarray(omega).dtype, float)
    domega = np.array([0.0 if isinstance(unthunk(d), AbstractZero) else unthunk(d) for d in dvalues],
                      dtype=dtype).reshape(shape)
    return omega, (domega[()] if domega.ndim == 0 else domega)


# ===== np.apply_along_axis(f, axis, arr, *args) =================================

def _along(axis: Any, arr: Any) -> Any:
    arr = np.asarray(arr)
    axis = int(axis) % arr.ndim if arr.ndim else 0
    if arr.ndim == 0:
        raise ValueError("np.apply_along_axis needs an array of at least one dimension")
    return axis, np.moveaxis(arr, axis, -1)


def _place(outs: Any, outer: Any, axis: Any) -> Any:
    """Stack the outputs of the slices into np.apply_along_axis's layout."""
    first = np.asarray(outs[0])
    res = np.stack([np.asarray(o) for o in outs]).reshape(outer + first.shape)
    k = first.ndim
    if k:
        res = np.moveaxis(res, list(range(len(outer), len(outer) + k)), list(range(axis, axis + k)))
    return res, k


@register_rrule(np.apply_along_axis, config="reverse")
def apply_along_axis_rrule(config: Any, func1d: Any, axis: Any, arr: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
    axis, moved = _along(axis, arr)
    outer = moved.shape[:-1]
    idxs = list(np.ndindex(outer))
    if not idxs:
        return None
    calls = [rrule_via_ad(config, func1d, moved[idx], *args, **kwargs) for idx in idxs]
    omega, k = _place([y for y, _ in calls], outer, axis)
    project_arr = ProjectTo(arr)
    project_args = [ProjectTo(a) for a in args]

    def apply_along_axis_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = unthunk(ȳ)
        if isinstance(ȳ, AbstractZero):
            return (NO, NO, NO, project_arr(ZERO)) + tuple(p(ZERO) if p.kind else NO for p in project_args)
        ȳ = np.asarray(ȳ)
        if k:
            ȳ = np.moveaxis(ȳ, list(range(axis, axis + k)), list(range(len(outer), len(outer) + k)))
        darr = np.zeros(moved.shape, dtype=np.result_type(moved.dtype, ȳ.dtype, float))
        dargs = [ZERO] * len(args)
        dselfs = []
        for (y, pb), idx in zip(calls, idxs):
            g = pb(ȳ[idx])
            dselfs.append(g[0])
            d = unthunk(g[1])
            if not isinstance(d, AbstractZero):
                darr[idx] += d
            for j in range(len(args)):
                dargs[j] = _add(dargs[j], unthunk(g[j + 2]))
        return (NO, _sum_self(dselfs), NO, project_arr(np.moveaxis(darr, -1, axis))) + \
            tuple(p(d) if p.kind else NO for p, d in zip(project_args, dargs))
    return omega, apply_along_axis_pullback


@register_frule(np.apply_along_axis, config="forward")
def apply_along_axis_frule(config: Any, tangents: Any, func1d: Any, axis: Any, arr: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
    axis, moved = _along(axis, arr)
    outer = moved.shape[:-1]
    idxs = list(np.ndindex(outer))
    if not idxs:
        return None
    df, darr = tangents[1], unthunk(tangents[3])
    dmoved = darr if isinstance(darr, AbstractZero) else np.moveaxis(np.asarray(darr), axis, -1)
    dargs = tangents[4:]
    values, dvalues = [], []
    for idx in idxs:
        y, dy = frule_via_ad(config, (df, _part(dmoved, idx)) + tuple(dargs), func1d, moved[idx], *args,
                             **kwargs)
        values.append(y)
        dvalues.append(dy)
    omega, k = _place(values, outer, axis)
    if all(isinstance(unthunk(d), AbstractZero) for d in dvalues):
        return omega, ZERO
    dvalues = [np.zeros_like(np.asarray(values[i], dtype=float)) if isinstance(unthunk(d), AbstractZero)
               else unthunk(d) for i, d in enumerate(dvalues)]
    domega, _ = _place(dvalues, outer, axis)
    return omega, domega
