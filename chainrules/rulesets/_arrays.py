"""Helpers shared by every array rule: the one unbroadcast and the argument
checks.  No rule fixes shapes by itself (house style, principle 6)."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from chainrules._core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    StructuralTangent,
    ZeroTangent,
    is_traced,
    untraced,
    register_frule,
    register_rrule,
    unthunk,
    when_traced,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
# The one unbroadcast every array rule uses is compiled (it sits in the
# pullback of every broadcasting ufunc).
from chainrules._core import broadcast_view, unbroadcast
from chainrules._xp import scatter_add
# The one seed check every pullback makes (compiled: the compiled pullbacks
# make it too): `seed(ȳ, name)` unthunks ȳ, views an ndarray subclass as a
# plain ndarray and refuses a seed that is not a tangent, naming the function.
from chainrules._core import pullback_seed as seed

__all__ = ["NO", "ZERO", "is_zero", "zero_for", "is_complex", "like", "once", "traced_call", "register", "methods", "output_parts",
           "seed", "value_of", "plain", "array_or_traced", "project_to", "scatter_traced",
           "unbroadcast", "broadcast_view", "reject_out", "named_options", "register_for_arrays", "TRACED", "numpy_inside", "normalize_axes", "unreduce", "named_rule", "dense"]

NO = NoTangent()
ZERO = ZeroTangent()


# ----- small predicates and adapters every array module uses -------------------

def is_zero(t: Any) -> bool:
    """Is `t` a zero tangent (ZeroTangent or NoTangent)?"""
    return isinstance(t, AbstractZero)


def zero_for(p: Any) -> Any:
    """The zero cotangent for the argument projected by `p`: ZeroTangent()
    where it has a tangent space, NoTangent() for integers and booleans."""
    return ZERO if p.kind else NO


def is_complex(v: Any) -> bool:
    """Is `v` a complex number, NumPy scalar or array, possibly traced (a rule
    called in a nested differentiation)?  (Lists are not
    looked into: rules turn array-likes into arrays first.)"""
    t = type(v)
    if t is np.ndarray:
        return v.dtype.kind == "c"  # type: ignore[no-any-return]  # v is an ndarray
    if t is float or t is np.float64:
        return False
    v = untraced(v)
    return isinstance(v, complex) or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "c")


def value_of(x: Any) -> Any:
    """x's values as an ndarray: a traced x (a rule differentiated) by its
    plain value, for choices that have no derivative (an index, a mask)."""
    return np.asarray(untraced(x))


def plain(x: Any) -> Any:
    """x, an ndarray subclass (np.matrix, whose * is a matrix product and whose
    reductions stay 2-D) viewed as a plain ndarray; anything else as it is.
    Rule bodies compute with plain arrays: element-wise, as they are written."""
    if type(x) is np.ndarray or not isinstance(x, np.ndarray):
        return x
    return np.asarray(x)


def array_or_traced(x: Any) -> Any:
    """x as an ndarray, or as it is when it is traced (a rule differentiated
    by an enclosing differentiation: NumPy's functions and operators trace it,
    np.asarray would drop what it traces)."""
    return x if is_traced(x) else np.asarray(x)




class _RealTraced:
    """ProjectTo of a real traced argument, which also drops the imaginary
    part of a complex cotangent (ProjectTo lets traced values through, leaving that to the reverse engine; a pullback differentiated in
    forward mode needs it done here)."""
    __slots__ = ("p",)

    def __init__(self, p: Any) -> None:
        self.p = p

    @property
    def kind(self) -> Any:
        return self.p.kind

    def __call__(self, g: Any) -> Any:
        return self.p(np.real(g) if is_complex(g) else g)


def project_to(x: Any) -> Any:
    """ProjectTo(x), for a real traced x one that keeps cotangents real."""
    p = ProjectTo(x)
    return _RealTraced(p) if is_traced(x) and p.kind and not is_complex(x) else p


def scatter_traced(shape: Any, dtype: Any, index: Any, v: Any) -> Any:
    """Zeros of `shape` with v added at `index` (repeats accumulating), without
    writes, for a traced v (a pullback differentiated): the
    scatter-add of `chainrules._xp.scatter_add`, made of gathers and sums the
    engines differentiate, O(n + m) for n = prod(shape) and m elements at
    `index` (no n×m one-hot matrix)."""
    n = int(np.prod(shape))
    positions = np.reshape(np.arange(n).reshape(shape)[index], (-1,))
    kind = dtype if dtype.kind in "fc" else np.dtype(float)
    v = np.reshape(np.broadcast_to(v, np.shape(np.arange(n).reshape(shape)[index])), (-1,))
    if v.dtype != kind and not (kind.kind == "f" and v.dtype.kind == "c"):
        v = v * np.ones((), kind)[()]       # the output's dtype (arithmetic: v is tracked)
    return np.reshape(scatter_add(np, positions, v, n), shape)


# ----- NumPy rules that also take traced NumPy values ---------------------------

class _TracedTypes:
    """`register_for_arrays(..., arrays=(..., TRACED))`: every traced type,
    those registered already and those registered later."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "TRACED"


TRACED = _TracedTypes()


def numpy_inside(args: Any) -> bool:
    """Whether the traced values among `args` hold NumPy arrays or numbers."""
    for a in args:
        if is_traced(a) and not isinstance(untraced(a), (np.ndarray, np.generic, int, float, complex)):
            return False
    return True


def _on_traced(name: str, fr: Any, rr: Any) -> Any:
    """fr, rr for traced arguments: NumPy's inside, else None (declined, for
    the engine's own handling or the other library's rules)."""
    def traced_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        return fr(tangents, *args, **kwargs) if numpy_inside(args) else None

    def traced_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        return rr(*args, **kwargs) if numpy_inside(args) else None
    return named_rule(traced_frule, name), named_rule(traced_rrule, name)


def register_for_arrays(f: Any, fr: Any, rr: Any, *rest: Any, either: Any = True,
                        arrays: Any = (np.ndarray, TRACED), name: str | None = None) -> None:
    """fr, rr registered for f where the first argument (with `rest` =
    (object,) and `either`, or the second) is one of `arrays`: an ndarray, or
    (TRACED) a traced value holding a NumPy array or number (the NumPy rule
    evaluated inside a differentiation, at order 2 and beyond: a traced value
    of another library is declined); `rest` types the other arguments
    (`...`: any number)."""
    label = name or getattr(f, "__name__", "op").strip("_")

    def register_for(a: Any, ffr: Any, rrr: Any) -> None:
        register_frule(f, a, *rest)(ffr)
        register_rrule(f, a, *rest)(rrr)
        if rest and either:
            register_frule(f, *rest, a)(ffr)
            register_rrule(f, *rest, a)(rrr)
    for a in arrays:
        if a is TRACED:
            tfr, trr = _on_traced(label, fr, rr)
            when_traced(lambda t: register_for(t, tfr, trr))
        else:
            register_for(a, fr, rr)


def like(Ω: Any, ΔΩ: Any) -> Any:
    """ΔΩ as an array when Ω is one, as a scalar when Ω is one (NumPy turns
    0-d results into scalars, and not always the same way for both)."""
    if type(Ω) is np.ndarray:
        if not (isinstance(ΔΩ, (np.ndarray, AbstractZero)) or is_traced(ΔΩ)):
            return np.asarray(ΔΩ)
    elif type(ΔΩ) is np.ndarray and ΔΩ.ndim == 0:
        return ΔΩ[()]
    return ΔΩ


def traced_call(f: Any, x: Any, args: Any, kwargs: Any) -> Any:
    """f(x, *args, **kwargs) for a traced x (a rule differentiated): an
    unbound np.ndarray method (np.ndarray.ravel) refuses anything but an
    ndarray, so it is called as the traced value's method, or as NumPy's
    function of that name, both of which the engine traces."""
    if getattr(f, "__objclass__", None) is np.ndarray:
        method = getattr(x, f.__name__, None)
        if method is not None:
            return method(*args, **kwargs)
        return getattr(np, f.__name__)(x, *args, **kwargs)
    return f(x, *args, **kwargs)


def once(fn: Any) -> Any:
    """fn, evaluated at most once: for cotangents that share one computation."""
    cache: list[Any] = []

    def once() -> Any:
        if not cache:
            cache.append(fn())
        return cache[0]
    return once


def register(fs: Any, frule: Any, rrule: Any, *types: Any) -> None:
    """Register the same frule and rrule for each function in `fs` (a
    function and the ndarray methods that take the same arguments), guarded
    for np.matrix arguments (`matrix_safe`).  With types whose first is
    np.ndarray, the rules themselves serve ndarrays (no guard on the hot path:
    getitem's compiled rule) and the guarded ones are registered for an
    np.matrix first argument, which is more specific."""
    for f in fs:
        fr, rr = matrix_safe(f, frule, rrule)
        if types and types[0] is np.ndarray:
            register_frule(f, *types)(frule)
            register_rrule(f, *types)(rrule)
            register_frule(f, np.matrix, *types[1:])(fr)
            register_rrule(f, np.matrix, *types[1:])(rr)
        else:
            register_frule(f, *types)(fr)
            register_rrule(f, *types)(rr)


def _has_matrix(args: Any) -> bool:
    for a in args:
        if isinstance(a, np.matrix):
            return True
    return False


def _unmatrix(args: Any) -> Any:
    return tuple(np.asarray(a) if isinstance(a, np.matrix) else a for a in args)


def _same_result(f: Any, Ω: Any, Ωp: Any) -> None:
    """NumPy's result for the np.matrix arguments (Ω) holds the numbers of
    the plain arrays' (Ωp), whatever its shape; else the rule would
    differentiate another function than the one called."""
    same = np.size(Ω) == np.size(Ωp) and np.array_equal(np.ravel(Ω), np.ravel(Ωp), equal_nan=True)
    if not same:
        raise TypeError(f"{_name(f)}: NumPy computes another result for np.matrix arguments than for "
                        "their arrays (np.matrix keeps two dimensions), which the rule does not "
                        "differentiate; call it with np.asarray(m)")


def _name(f: Any) -> str:
    mod = getattr(f, "__module__", None) or "numpy"
    return f"{mod.lstrip('_').split('.')[0]}.{getattr(f, '__name__', f)}"


def matrix_safe(f: Any, frule: FruleFunction, rrule: RruleFunction) -> Any:
    """The rules of f, for np.matrix arguments too: a reduction of a matrix
    is a matrix (cumsum of a 2×2 matrix is 1×4), so the rules run on the
    plain arrays and the results are checked to be the same numbers; the
    tangents are plain ndarrays of Ω's shape.  Other arguments: the rules
    themselves, one type check added."""

    def matrix_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        if not _has_matrix(args):
            return frule(tangents, *args, **kwargs)
        Ω = f(*args, **kwargs)
        res = frule((tangents[0],) + _unmatrix(tangents[1:]), *_unmatrix(args), **kwargs)
        if res is None:
            return None
        Ωp, ΔΩ = res
        _same_result(f, Ω, Ωp)
        if isinstance(unthunk(ΔΩ), np.ndarray):
            ΔΩ = np.reshape(unthunk(ΔΩ), np.shape(Ω))
        return Ω, ΔΩ

    def matrix_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        if not _has_matrix(args):
            return rrule(*args, **kwargs)
        Ω = f(*args, **kwargs)
        res = rrule(*_unmatrix(args), **kwargs)
        if res is None:
            return None
        Ωp, pullback = res
        _same_result(f, Ω, Ωp)
        shape = np.shape(Ωp)

        def matrix_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, _name(f))
            if isinstance(ȳ, np.ndarray) and np.size(ȳ) == np.prod(shape, dtype=int):
                ȳ = np.reshape(np.asarray(ȳ), shape)
            return pullback(ȳ)
        return Ω, matrix_pullback

    for name in ("__name__", "__qualname__", "__doc__"):
        setattr(matrix_frule, name, getattr(frule, name, None))
        setattr(matrix_rrule, name, getattr(rrule, name, None))
    return matrix_frule, matrix_rrule


def output_parts(ȳ: Any, n: int, name: str = "a tuple-valued function") -> Any:
    """The n cotangents of a tuple output of `name`, from a Tangent[tuple], a
    tuple/list or a zero; each part a seed (see `seed`) or a zero."""
    if isinstance(ȳ, AbstractZero):
        return (ȳ,) * n
    ȳ = seed(ȳ, name)
    if not isinstance(ȳ, (StructuralTangent, tuple, list)):
        raise TypeError(f"pullback of {name}: the seed of a tuple output must be a tuple or a "
                        f"Tangent[tuple] of {n} parts, got a {type(ȳ).__name__}")
    parts = tuple(ȳ)
    if len(parts) != n:
        raise ValueError(f"pullback of {name}: expected a cotangent with {n} parts for a tuple output, "
                         f"got {len(parts)}")
    return tuple(p if isinstance(p, AbstractZero) else seed(p, name) for p in parts)


def methods(*names: Any) -> Any:
    """The `np.ndarray` methods of these names that this NumPy has.  NumPy
    2.0-2.3 keep a removed method (`ptp`) as a non-callable attribute that
    raises when read from an array: that is not a method."""
    found = (getattr(np.ndarray, n, None) for n in names)
    return [m for m in found if callable(m)]


def reject_out(fname: str, kwargs: Any, *names: Any) -> None:
    """Raise a clear error for arguments a rule cannot honour (`out=` and the
    like).  `names` lists them; `None`-valued ones are allowed."""
    for name in ("out",) + names:
        if kwargs.get(name) is not None:
            raise TypeError(f"{fname}: the rule cannot honour the argument {name}=; "
                            "call the primal without it")


def named_options(fname: str, names: Any, args: Any, kwargs: Any, refused: Any = ()) -> dict[str, Any]:
    """The optional arguments after a function's fixed ones by name: `args`
    (by position, matched to `names`) then `kwargs`.  Too many positional
    ones, an unknown or repeated keyword, or one of `refused` given a true
    value is a TypeError naming `fname` (the function) and the argument.
    `out=` is refused first, naming it."""
    reject_out(fname, kwargs)
    if len(args) > len(names):
        raise TypeError(f"{fname}: too many positional arguments for the rule "
                        f"({len(args)} for at most {len(names)})")
    opts = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in opts:
            raise TypeError(f"{fname}: unexpected argument {k}=")
        opts[k] = v
    for k in refused:
        if opts.get(k):
            raise TypeError(f"{fname}: the rule does not cover the argument {k}={opts[k]!r}")
    return opts


def dense(t: Any) -> Any:
    """A tangent as NumPy can compute with it: unthunked, and the Tangent of
    a list or tuple (the tangent of an array-like such as `np.sum([a, b])`)
    stacked into an array, zeros filled in; an ndarray subclass as a plain
    ndarray (see `plain`)."""
    if type(t) is np.ndarray:
        return t
    t = unthunk(t)
    if isinstance(t, StructuralTangent) or isinstance(t, (list, tuple)):
        parts = [dense(v) for v in t]
        like = next((np.shape(p) for p in parts if not isinstance(p, AbstractZero)), ())
        return np.asarray([np.zeros(like) if isinstance(p, AbstractZero) else p for p in parts])
    return plain(t)


# ----- helpers for rules that reduce over axes -------------------------------

def normalize_axes(axis: Any, ndim: int) -> Any:
    """The sorted tuple of non-negative axes that `axis` (None, an int or a
    sequence of ints, negative allowed) names in an array of `ndim`
    dimensions.  The primal has already validated them; NumPy lets some
    reductions name axis 0 or -1 of a 0-d array, which is no axis."""
    if axis is None or ndim == 0:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim if ndim else int(a) for a in axis))
    a = int(axis)
    return (a % ndim if ndim else a,)


def unreduce(dy: Any, shape: Any, axes: Any, keepdims: Any, dtype: Any = None) -> Any:
    """The cotangent `dy` of a reduction over `axes` spread back over the
    input's `shape`: a read-only broadcast view (tangents are values; nothing
    is copied).  `dtype`, when given, is applied to the small `dy` first, so
    the projection afterwards copies nothing.  A traced `dy` (the rule
    differentiated) is spread with NumPy's functions, which trace it."""
    if is_traced(dy):
        if dtype is not None and dtype.kind != "c" and dy.dtype.kind == "c":
            dy = np.real(dy)
        if not keepdims and axes:
            dy = np.reshape(dy, [1 if i in axes else n for i, n in enumerate(shape)])
        return np.broadcast_to(dy, shape)
    dy = np.asarray(dy)
    if dtype is not None and dy.dtype != dtype:
        if dtype.kind != "c" and dy.dtype.kind == "c":
            dy = dy.real
        dy = dy.astype(dtype)
    if not keepdims and axes:
        kept = [1 if i in axes else n for i, n in enumerate(shape)]
        dy = dy.reshape(kept)
    return broadcast_view(dy, shape)


# ----- readable tracebacks for rules made by factories ------------------------

_F = TypeVar("_F", bound="Callable[..., Any]")


def named_rule(fn: _F, name: str) -> _F:
    """Rename a rule made by a factory, and the functions defined inside it,
    after the primal: a factory's `unary_rrule` / `unary_pullback` become
    `sin_rrule` / `sin_pullback` (the names that start like the rule's own,
    up to its first underscore, get `name` in place of that prefix), so that
    tracebacks say which rule failed.  Returns `fn`."""
    prefix = fn.__code__.co_name.split("_", 1)[0] + "_"

    def rename(code: Any) -> Any:
        consts = tuple(rename(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        new = code.co_name
        if new.startswith(prefix):
            new = name + "_" + new[len(prefix):]
        return code.replace(co_consts=consts, co_name=new, co_qualname=new)
    fn.__code__ = rename(fn.__code__)
    fn.__name__ = fn.__qualname__ = fn.__code__.co_name
    return fn
