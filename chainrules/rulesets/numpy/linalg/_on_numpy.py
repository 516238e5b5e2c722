"""How the array-API linear-algebra bodies (array_api/linalg*.py) are
registered on NumPy's functions: the arguments NumPy takes and the bodies do
not (array-likes, ndarray subclasses) read as plain arrays, and NumPy's
spellings that are a body composed with linear maps of its arguments and
result (np.cross's axisa/axisb/axisc, np.trace's axis1/axis2, np.vdot's and
np.outer's flattening) as the body between those maps.

A body computes with `xp`, the namespace of its arguments: on a value traced
by an AD (the rule differentiated) it runs as it is, so the one body serves
every order.  Only ndarrays' fast paths (in the family modules) look at
types; everything else is the body's.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import ProjectTo, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, dense, is_zero, like, named_rule, register, seed

__all__ = ["as_array", "on_numpy", "composed", "register_body", "register_fast", "register_fast_rrule",
           "register_unary_fast"]


def as_array(x: Any) -> Any:
    """x as a body reads it: an ndarray, a NumPy scalar or any other array
    (a value traced by an AD has a shape and a dtype) as it is; an ndarray
    subclass (a masked array) viewed as a plain ndarray; an array-like (a
    list, a Python number) made an ndarray."""
    if type(x) is np.ndarray:
        return x
    if isinstance(x, np.ndarray):
        return np.asarray(x)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return x
    return np.asarray(x)


def _tangent(t: Any) -> Any:
    """A tangent as a body reads it: zeros as they are, a list's structural
    tangent stacked, a number a 0-d array."""
    if type(t) is np.ndarray:
        return t
    t = dense(t)
    if isinstance(t, (int, float, complex)):
        return np.asarray(t)
    return t


def on_numpy(frule: Any, rrule: Any, f: Any, n: int, name: str) -> Any:
    """The body's rules (`frule`, `rrule`, made for NumPy's `f` of `n` array
    arguments) taking what NumPy takes: array-likes and ndarray subclasses
    are read as plain arrays (`as_array`), Ω is f's own, and each such
    argument's cotangent is projected onto it (a list's is a structural
    tangent)."""

    def np_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        arrays = tuple(as_array(a) for a in args[:n])
        ts = tangents[:1] + tuple(_tangent(t) for t in tangents[1:n + 1]) + tuple(tangents[n + 1:])
        if all(p is a for p, a in zip(arrays, args)):
            return frule(ts, *args, **kwargs)
        Ω = f(*args, **kwargs)
        res = frule(ts, *arrays, *args[n:], **kwargs)
        return None if res is None else (Ω, like(Ω, res[1]))

    def np_rrule(*args: Any, **kwargs: Any) -> Any:
        arrays = tuple(as_array(a) for a in args[:n])
        if all(p is a for p, a in zip(arrays, args)):
            return rrule(*args, **kwargs)
        Ω = f(*args, **kwargs)
        res = rrule(*arrays, *args[n:], **kwargs)
        if res is None:
            return None
        pullback = res[1]
        projects = [None if p is a else ProjectTo(a) for p, a in zip(arrays, args)]

        def np_pullback(ȳ: Any) -> tuple[Any, ...]:
            cts = pullback(ȳ)
            out = [p(unthunk(c)) if p is not None and not is_zero(c) else c
                   for p, c in zip(projects, cts[1:n + 1])]
            return (cts[0], *out) + tuple(cts[n + 1:])
        return Ω, np_pullback

    return named_rule(np_frule, name), named_rule(np_rrule, name)


def composed(rules: Any, prepare: Any, name: str) -> Any:
    """Rules for a NumPy function that is a body (`rules`: its frule and
    rrule) between linear maps:
    `prepare(args, kwargs)` gives (arrays, options, ins, ins_adjoint, out,
    out_adjoint) -- the body's array arguments and keyword options, and per
    array argument the map of its tangent to the body's argument's and its
    adjoint, and the map of the body's result to the function's and its
    adjoint -- or None when there is no rule.  The options after the arrays
    get no cotangent."""
    frule, rrule = rules

    def composed_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        plan = prepare(args, kwargs)
        if plan is None:
            return None
        arrays, opts, ins, _, out, _ = plan
        ts = tuple(t if is_zero(t) else m(_tangent(t)) for t, m in zip(tangents[1:], ins))
        res = frule((tangents[0],) + ts, *arrays, **opts)
        Ω, ΔΩ = res
        return out(Ω), ΔΩ if is_zero(ΔΩ) else out(ΔΩ)

    def composed_rrule(*args: Any, **kwargs: Any) -> Any:
        plan = prepare(args, kwargs)
        if plan is None:
            return None
        arrays, opts, _, ins_adjoint, out, out_adjoint = plan
        Ω, pullback = rrule(*arrays, **opts)
        rest = (NO,) * (len(args) - len(arrays))

        def composed_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if is_zero(ȳ):
                return (NO,) + tuple(ZERO for _ in arrays) + rest
            cts = pullback(out_adjoint(ȳ))
            return (NO,) + tuple(c if is_zero(c) else m(unthunk(c)) for c, m in zip(cts[1:], ins_adjoint)) + rest
        return out(Ω), composed_pullback

    return named_rule(composed_frule, name), named_rule(composed_rrule, name)


def register_body(fs: Any, rules: Any, f: Any, n: int, name: str) -> Any:
    """Register the body's rules (frule, rrule) on NumPy's functions `fs` (f the first,
    whose Ω an array-like call returns), through `on_numpy`, np.matrix
    arguments guarded (`_arrays.register`); returns the rules."""
    np_rules = on_numpy(rules[0], rules[1], f, n, name)
    register(list(fs), *np_rules)
    return np_rules


def register_fast(fs: Any, fast_frule: Any, fast_rrule: Any, rules: Any, n: int, name: str, more: bool = False) -> None:
    """Register NumPy fast paths on `fs` for `n` ndarray arguments (`more`:
    and any options after them; the most specific signature: no other layer
    in the way).  A fast rule returns
    None when the call is not its own (an np.matrix, another dtype, an
    option); that call goes to `rules`, the body's registered ones."""
    frule, rrule = rules

    def fast_or_body_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        res = None if kwargs else fast_frule(tangents, *args)
        return frule(tangents, *args, **kwargs) if res is None else res

    def fast_or_body_rrule(*args: Any, **kwargs: Any) -> Any:
        res = None if kwargs else fast_rrule(*args)
        return rrule(*args, **kwargs) if res is None else res

    types = (np.ndarray,) * n + ((...,) if more else ())
    for f in fs:
        register_frule(f, *types)(named_rule(fast_or_body_frule, name))
        register_rrule(f, *types)(named_rule(fast_or_body_rrule, name))


def register_fast_rrule(fs: Any, fast_rrule: Any, rules: Any, n: int, name: str, more: bool = False) -> None:
    """Register the rrule `fast_rrule` on `fs` for `n` ndarray arguments
    (`more`: and any options after them) as it is (its pullback keeps its
    name): a fast path that calls the body's registered rrule itself for any
    call not its own (one Python call less than `register_fast`'s); the
    frule there is the body's (`rules`' first)."""
    types = (np.ndarray,) * n + ((...,) if more else ())
    for f in fs:
        register_frule(f, *types)(rules[0])
        register_rrule(f, *types)(fast_rrule)


def _decline(*args: Any, **kwargs: Any) -> None:
    return None


def register_unary_fast(fs: Any, body: Any, f: Any, rules: Any, name: str, names: Any = (),
                        primal: Any = None) -> None:
    """A NumPy fast path for the rrule of a one-array body (`body(xp, x, Ω,
    opts) -> (pushforward, adjoint)`, `_linalg_common._unary`'s): for a float
    ndarray x, options only positional ones named by `names`, an array or
    NumPy-scalar Ω, it is the body itself on NumPy without the generic layers
    (options, namespace, seed and projection objects): its adjoint's result
    is returned when it is already x's dtype and shape, as the projection
    would return it.  Any other call or seed: `rules`, the body's.
    `primal(x)`, when given, is f(x) without options, computed as f computes
    it (without its Python layer) for a real float x."""
    rrule = rules[1]

    def unary_fast_rrule(x: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or type(x) is not np.ndarray or x.dtype.kind not in "fc" or len(args) > len(names):
            return rrule(x, *args, **kwargs)       # an ndarray subclass: read as a plain array by the body's
        Ω = primal(x) if primal is not None and not args and x.dtype.kind == "f" else f(x, *args)
        if type(Ω) is not np.ndarray and not isinstance(Ω, np.generic):
            return rrule(x, *args)
        adjoint = body(np, x, Ω, dict(zip(names, args)) if args else {})[1]
        if adjoint is None:
            return rrule(x, *args)
        dtype, shape, Ωdtype, Ωshape = x.dtype, x.shape, Ω.dtype, Ω.shape
        rest = (NO,) * len(args) if args else ()

        def unary_fast_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if type(ȳ) is not np.ndarray and isinstance(ȳ, (float, np.generic)):
                ȳ = np.asarray(ȳ)           # a number: the body's seed is a 0-d array
            if type(ȳ) is np.ndarray and ȳ.dtype == Ωdtype and ȳ.shape == Ωshape:
                x̄ = adjoint(ȳ)
                if type(x̄) is np.ndarray and x̄.dtype == dtype and x̄.shape == shape:
                    return (NO, x̄) + rest
            return rrule(x, *args)[1](ȳ)  # type: ignore[no-any-return]
        return Ω, unary_fast_pullback

    register_fast_rrule(fs, unary_fast_rrule, rules, 1, name, more=bool(names))
