"""NumPy's spellings of the standard's shape, joining and selection
functions, served by the ONE rule body of each (array_api/shapes.py, written
with `xp`): np.reshape, np.transpose/np.permute_dims, np.matrix_transpose,
np.expand_dims, np.squeeze, np.flip, np.roll, np.broadcast_to,
np.concatenate, np.stack, np.where, np.clip, np.sort, np.take, and the
ndarray methods that are the same function (x.reshape, x.transpose,
x.squeeze, x.clip, x.take; not x.sort, which sorts in place).

NumPy's options the bodies take themselves (reshape's order=, transpose's
axes=None, concatenate's axis=None and dtype=, sort's kind= and axis=None,
take's mode=); `out=` is a TypeError naming it.  The methods' own spellings
(`x.reshape(2, 3)`, `x.transpose(1, 0)`) are respelled as the function's
call.  Array-likes and ndarray subclasses are read as plain arrays
(linalg/_on_numpy.py's `on_numpy`), values traced by an AD (a rule
differentiated) go to the body as they are, so the one body serves every
order.  reshape keeps a NumPy fast path for an ndarray called with a shape
only (a view both ways; tests/rulesets/numpy/test_shapes_one_body.py checks
it against the body bit for bit).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from chainrules._core import AbstractZero, ProjectTo, is_traced, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, dense, like, methods, named_rule, seed
from chainrules.rulesets._arrays import register as _register
from chainrules.rulesets.array_api import shapes as bodies
from chainrules.rulesets.array_api._common import sequence_tangent
from chainrules.rulesets.numpy.linalg._on_numpy import as_array, register_body, register_fast

__all__ = ["respelled", "reshape_fast_rrule"]


def respelled(rules: Any, spell: Any, n: int) -> Any:
    """The rules of a body (`rules`: its frule and rrule for NumPy's function)
    for another spelling of the same call (an ndarray method):
    `spell(options, kwargs)` gives the function's options after the `n`
    arrays; the cotangents of the method's own options are NoTangent."""
    frule, rrule = rules

    def respelled_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        opts, kw = spell(args[n:], kwargs)
        return frule(tangents[:n + 1] + (NO,) * len(opts), *args[:n], *opts, **kw)

    def respelled_rrule(*args: Any, **kwargs: Any) -> Any:
        opts, kw = spell(args[n:], kwargs)
        Ω, pullback = rrule(*args[:n], *opts, **kw)
        rest = (NO,) * (len(args) - n)

        def respelled_pullback(ȳ: Any) -> tuple[Any, ...]:
            return tuple(pullback(ȳ)[:n + 1]) + rest
        return Ω, respelled_pullback

    return respelled_frule, respelled_rrule


def _one_or_many(args: Any) -> Any:
    """A method's shape or axes given as one sequence or as several ints."""
    if len(args) == 1 and (args[0] is None or not isinstance(args[0], (int, np.integer))):
        return args[0]
    return tuple(args)


def _reshape_spelling(args: Any, kwargs: Any) -> Any:
    return (_one_or_many(args),) if args else (), kwargs


def _transpose_spelling(args: Any, kwargs: Any) -> Any:
    return ((_one_or_many(args),) if args else ()), kwargs


def _same(args: Any, kwargs: Any) -> Any:
    return args, kwargs


def _body(factory: Any, f: Any, name: str) -> Any:
    """The body's rules for NumPy's `f`, named after it."""
    frule, rrule = factory(f, name)
    return named_rule(frule, name), named_rule(rrule, name)


def _serve(f: Any, rules: Any, name: str, n: int = 1, methods_: Any = (), spell: Any = _same) -> Any:
    """Register the body's `rules` (for NumPy's `f`) on f and on the ndarray
    methods `methods_` (respelled by `spell`); returns f's NumPy rules."""
    np_rules = register_body([f], rules, f, n, name)
    for m in methods_:
        register_body([m], rules if spell is _same else respelled(rules, spell, n), m, n, f"ndarray.{m.__name__}")
    return np_rules


# ----- reshape: the body, with a fast path for an ndarray and a shape --------------------------

def reshape_fast_rrule(x: Any, *args: Any) -> Any:
    """np.reshape(x, shape) and x.reshape(shape) of an ndarray: what the body
    computes (Ω a view, the cotangent ȳ reshaped to x's shape, in x's dtype)
    without its generic layers (the dispatch would be most of the cost at
    any size).  None for any other call."""
    if len(args) != 1:
        return None
    Ω = x.reshape(args[0])
    shape, dtype, kind = x.shape, x.dtype, x.dtype.kind

    def reshape_pullback(ȳ: Any) -> tuple[Any, ...]:
        if type(ȳ) is not np.ndarray:
            ȳ = seed(ȳ, "reshape")
            if isinstance(ȳ, AbstractZero) or kind not in "fc":
                return NO, (ZERO if kind in "fc" else NO), NO
            if type(ȳ) is not np.ndarray:
                return _reshape_body[1](x, *args)[1](ȳ)  # type: ignore[no-any-return]
        if kind not in "fc":
            return NO, NO, NO
        x̄ = ȳ.reshape(shape)
        # the shape is x's by construction: only the dtype may need projecting
        return NO, (x̄ if x̄.dtype is dtype else ProjectTo(x)(x̄)), NO
    return Ω, reshape_pullback


def _reshape_fast_frule(tangents: Any, x: Any, *args: Any) -> Any:
    Δx = tangents[1]
    if len(args) != 1 or type(Δx) is not np.ndarray or Δx.dtype != x.dtype or Δx.shape != x.shape:
        return None
    return x.reshape(args[0]), Δx.reshape(args[0])


_reshape_body = _body(bodies.reshape_rules, np.reshape, "reshape")
_serve(np.reshape, _reshape_body, "reshape", methods_=methods("reshape"), spell=_reshape_spelling)
register_fast([np.reshape], _reshape_fast_frule, reshape_fast_rrule, _reshape_body, 1, "reshape", more=True)
register_fast(methods("reshape"), _reshape_fast_frule, reshape_fast_rrule,
              respelled(_reshape_body, _reshape_spelling, 1), 1, "ndarray.reshape", more=True)


# ----- axes, reorderings, broadcasting: linear bodies ------------------------------------------

_serve(np.transpose, _body(bodies.permute_dims_rules, np.transpose, "transpose"), "transpose",
       methods_=methods("transpose"), spell=_transpose_spelling)
if hasattr(np, "permute_dims") and np.permute_dims is not np.transpose:
    _serve(np.permute_dims, _body(bodies.permute_dims_rules, np.permute_dims, "permute_dims"), "permute_dims")
for _f in dict.fromkeys(getattr(m, "matrix_transpose", None) for m in (np, np.linalg)):
    if _f is not None:
        _serve(_f, _body(bodies.matrix_transpose_rules, _f, "matrix_transpose"), "matrix_transpose")
_serve(np.expand_dims, _body(bodies.expand_dims_rules, np.expand_dims, "expand_dims"), "expand_dims")
_serve(np.squeeze, _body(bodies.squeeze_rules, np.squeeze, "squeeze"), "squeeze", methods_=methods("squeeze"))
_serve(np.flip, _body(bodies.flip_rules, np.flip, "flip"), "flip")
_serve(np.roll, _body(bodies.roll_rules, np.roll, "roll"), "roll")
_serve(np.broadcast_to, _body(bodies.broadcast_to_rules, np.broadcast_to, "broadcast_to"), "broadcast_to")


# ----- where, clip, sort, take ------------------------------------------------------------------

_serve(np.where, _body(bodies.where_rules, np.where, "where"), "where", n=3)
_serve(np.clip, _body(bodies.clip_rules, np.clip, "clip"), "clip")


def _clip_method(x: Any, *args: Any, **kwargs: Any) -> Any:
    """x.clip as the body's primal: x.clip(lo) is np.clip(x, lo, None), which
    np.clip(x, lo) is not; a traced x (a rule differentiated): its own clip,
    or np.clip."""
    if is_traced(x):
        bound = _CLIP.bind(x, *args, **kwargs).arguments
        return np.clip(x, bound.get("min"), bound.get("max"))
    return x.clip(*args, **kwargs)


def _clip_signature(a: Any, min: Any = None, max: Any = None, out: Any = None) -> None: ...


_CLIP = inspect.signature(_clip_signature)
_clip_method.__signature__ = _CLIP  # type: ignore[attr-defined]  # the body reads its option names
for _m in methods("clip"):
    register_body([_m], _body(bodies.clip_rules, _clip_method, "ndarray.clip"), _m, 1, "ndarray.clip")
_serve(np.sort, _body(bodies.sort_rules, np.sort, "sort"), "sort")
_serve(np.take, _body(bodies.take_rules, np.take, "take"), "take", methods_=methods("take"))


# ----- concatenate, stack: a sequence of arrays ------------------------------------------------

def _plain(a: Any) -> bool:
    return type(a) is np.ndarray or isinstance(a, np.generic) or is_traced(a)


def _joining(rules: Any, f: Any, name: str) -> Any:
    """The body's rules for NumPy's joining function `f(arrays, ...)`: each
    array-like or ndarray subclass of the sequence read as a plain array
    (`as_array`), Ω f's own, its cotangent projected onto it."""
    frule, rrule = rules

    def join_frule(tangents: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(arrays, (list, tuple)) and all(_plain(a) for a in arrays):
            return frule(tangents, arrays, *args, **kwargs)
        Ω = f(arrays, *args, **kwargs)
        Δ = unthunk(tangents[1])
        if not isinstance(arrays, (list, tuple)) and not isinstance(Δ, AbstractZero):
            tangents = (tangents[0], list(dense(Δ))) + tuple(tangents[2:])    # one array: its rows
        res = frule(tangents, [as_array(a) for a in arrays], *args, **kwargs)
        return Ω, like(Ω, res[1])

    def join_rrule(arrays: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if isinstance(arrays, (list, tuple)) and all(_plain(a) for a in arrays):
            return rrule(arrays, *args, **kwargs)  # type: ignore[no-any-return]
        Ω = f(arrays, *args, **kwargs)
        seq = list(arrays)
        _, pullback = rrule([as_array(a) for a in seq], *args, **kwargs)
        projects = [ProjectTo(a) for a in seq]
        # one array is a sequence too (its rows are joined): its cotangent is one array
        whole = None if isinstance(arrays, (list, tuple)) else ProjectTo(arrays)

        def join_pullback(ȳ: Any) -> tuple[Any, ...]:
            cts = pullback(ȳ)
            parts = cts[1]
            if isinstance(parts, AbstractZero):
                return (cts[0], parts if whole is None else whole(parts)) + tuple(cts[2:])
            out = [p(unthunk(c)) for p, c in zip(projects, parts)]
            if whole is not None:
                dense = [np.zeros(np.shape(a)) if isinstance(c, AbstractZero) else c for a, c in zip(seq, out)]
                return (cts[0], whole(np.stack(dense))) + tuple(cts[2:])
            return (cts[0], sequence_tangent(arrays, out)) + tuple(cts[2:])
        return Ω, join_pullback

    return named_rule(join_frule, name), named_rule(join_rrule, name)


_register([np.concatenate], *_joining(_body(bodies.concat_rules, np.concatenate, "concatenate"),
                                       np.concatenate, "concatenate"))
_register([np.stack], *_joining(_body(bodies.stack_rules, np.stack, "stack"), np.stack, "stack"))
