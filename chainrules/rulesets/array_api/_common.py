"""What every array-API rule shares: reading its options, projecting a
cotangent onto its argument, zeros, unbroadcast, and registering a table of
rule factories on a library's functions.

Everything here computes with `xp`, the namespace of the rule's arguments
(chainrules/_xp.py): no NumPy call on another library's arrays, no `.item()`,
no branch on an array's values (a Dask array stays lazy; an AD tracing the
rule sees every operation).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    StructuralTangent,
    Tangent,
    is_traced,
    register_frule,
    register_rrule,
    unthunk,
    untraced,
)
from chainrules._xp import astype, check_tangent, is_numpy, missing_function, namespace, through_engines
from chainrules.rulesets._arrays import NO, ZERO, named_rule, seed

__all__ = ["NO", "ZERO", "is_zero", "options", "positional_names", "Projector", "as_seed",
           "zeros", "cast", "device_kw", "unbroadcast", "along", "size_of", "is_complex", "normalize_axes", "sequence_tangent",
           "sequence_parts", "register_table", "registered", "mark_registered", "namespace"]

# Other libraries' names for the standard's options (PyTorch's dim/keepdim).
ALIASES = {"dim": "axis", "dims": "axis", "keepdim": "keepdims", "shifts": "shift", "a_min": "min", "a_max": "max",
           "ddof": "correction"}
# NumPy's "argument not given" (np._NoValue, the default of keepdims=, initial=, where= of its
# reductions): an option given as that is the default.
_NOVALUE = getattr(np, "_NoValue", None)


def is_zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


# ----- options --------------------------------------------------------------------------------

def positional_names(f: Any, n_arrays: Any, fallback: Any) -> Any:
    """The names of f's positional parameters after its `n_arrays` array
    arguments (read from its signature; `fallback`, the standard's order,
    when it has none, as PyTorch's builtins)."""
    try:
        params = list(inspect.signature(f).parameters.values())[n_arrays:]
    except (TypeError, ValueError):
        return tuple(fallback)
    names = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name == "xp":
            break
        names.append(ALIASES.get(p.name, p.name))
    return tuple(names)


def options(fname: str, names: Any, args: Any, kwargs: Any, known: Any, defaults: Any) -> Any:
    """The options of a call by the standard's names: positional ones after
    the arrays matched to `names`, keywords renamed by ALIASES; an option the
    rule does not know is a TypeError naming it (never a wrong derivative)."""
    if len(args) > len(names):
        raise TypeError(f"{fname}: the rule takes at most {len(names)} positional options after the "
                        f"array, got {len(args)}")
    opts = dict(defaults)
    for name, v in zip(names, args):
        if v is not _NOVALUE:
            opts[ALIASES.get(name, name)] = v
    for k, v in kwargs.items():
        if v is not _NOVALUE:
            opts[ALIASES.get(k, k)] = v
    for k, v in opts.items():
        if k not in known and v is not None:
            raise TypeError(f"{fname}: the rule cannot honour the argument {k}=; call the primal without it")
    return opts


def normalize_axes(fname: str, axis: Any, ndim: int) -> Any:
    """The sorted tuple of non-negative axes `axis` (None, int or sequence)
    names in an array of `ndim` dimensions."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and 0 <= axis < ndim:      # the common call
        return (axis,)
    if isinstance(axis, (tuple, list)):
        axes = [int(a) for a in axis]
    else:
        axes = [int(axis)]
    if ndim == 0:
        if any(a not in (0, -1) for a in axes):
            raise ValueError(f"{fname}: axis {axis} is out of range for a 0-d array")
        return ()
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{fname}: axis {a} is out of range for an array of {ndim} dimensions")
    return tuple(sorted(a % ndim for a in axes))


# ----- dtypes, projection, seeds ----------------------------------------------------------------

def is_complex(xp: Any, x: Any) -> Any:
    dt = x.dtype
    if isinstance(dt, np.dtype):        # NumPy's arrays and scalars, tracked ones: the kind
        return dt.kind == "c"
    return xp.isdtype(dt, "complex floating")


def _is_inexact(xp: Any, x: Any) -> Any:
    dt = x.dtype
    if isinstance(dt, np.dtype):
        return dt.kind in "fc"
    return xp.isdtype(dt, ("real floating", "complex floating"))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, complex, np.generic))


class Projector:
    """ProjectTo for an array of any library: the cotangent of `x` in x's
    dtype (the real part for a real x) and shape; NoTangent for integer and
    boolean arrays; a Python number's cotangent is a 0-d array of the
    namespace (float for an int or a float, complex for a complex)."""

    __slots__ = ("xp", "dtype", "shape", "kind", "scalar")

    def __init__(self, xp: Any, x: Any) -> None:
        self.xp = xp
        if is_traced(x) and _is_number(untraced(x)):
            x = untraced(x)        # a tracked number (a bound of clip at order 2): a number
        self.scalar = isinstance(x, np.generic)
        if isinstance(x, bool) or x is None:
            self.kind = 0
        elif isinstance(x, (int, float, complex)):
            self.kind = 2
            self.dtype = "complex" if isinstance(x, complex) else "real"
            self.shape = ()
        elif _is_inexact(xp, x):
            self.kind = 1
            self.dtype = x.dtype
            self.shape = tuple(x.shape)
        else:
            self.kind = 0

    def __call__(self, dx: Any) -> Any:
        if self.kind == 0:
            return NO
        if isinstance(dx, AbstractZero):
            return ZERO
        xp = self.xp
        if self.kind == 2:
            dx = dx if self.dtype == "complex" or not is_complex(xp, dx) else xp.real(dx)
            return dx[()] if type(dx) is np.ndarray and dx.ndim == 0 else dx
        if is_complex(xp, dx) and not xp.isdtype(self.dtype, "complex floating"):
            dx = xp.real(dx)
        if dx.dtype != self.dtype:
            dx = astype(xp, dx, self.dtype)
        if tuple(dx.shape) != self.shape:
            dx = xp.broadcast_to(dx, self.shape)
        if self.scalar:
            return dx[()] if type(dx) is np.ndarray else dx
        return np.asarray(dx) if isinstance(dx, np.generic) else dx


def cast(xp: Any, v: Any, like: Any) -> Any:
    """v in the dtype of the array `like` (the real part for a real one): a
    tangent in its primal's dtype; a NumPy scalar's tangent a NumPy scalar."""
    if is_complex(xp, v) and not is_complex(xp, like):
        v = xp.real(v)
    if v.dtype != like.dtype:
        v = astype(xp, v, like.dtype)
    if isinstance(like, np.generic) and type(v) is np.ndarray and v.ndim == 0:
        v = v[()]
    elif type(like) is np.ndarray and isinstance(v, np.generic):
        v = np.asarray(v)
    return v


def as_seed(xp: Any, ȳ: Any, name: str, Ω: Any) -> Any:
    """The pullback's seed as an array of xp with Ω's dtype family: unthunked
    and checked (a TypeError naming `name` for a non-tangent), a Python
    number made an array of xp (the real part when Ω is real)."""
    ȳ = seed(ȳ, name)
    if isinstance(ȳ, AbstractZero):
        return ȳ
    if isinstance(ȳ, (int, float, complex, np.generic)) and not is_numpy(xp):
        real = not is_complex(xp, Ω)
        v = np.real(ȳ) if real else ȳ
        return xp.asarray(v, dtype=Ω.dtype, **device_kw(xp, Ω))
    if isinstance(ȳ, (int, float, complex)):
        return xp.asarray(ȳ)
    check_tangent(f"pullback of {name}", "the cotangent", ȳ, Ω)    # two libraries: NamespaceError
    return ȳ


def device_kw(xp: Any, like: Any) -> Any:
    if is_numpy(xp):
        return {}
    d = getattr(like, "device", None)
    return {} if d is None else {"device": d}


def zeros(xp: Any, shape: Any, like: Any) -> Any:
    """Zeros of `shape` with the dtype and device of the array `like`."""
    return xp.zeros(tuple(shape), dtype=like.dtype, **device_kw(xp, like))


def along(axis: int, sl: Any) -> Any:
    """An index selecting `sl` along `axis` (everything along the others; the
    standard wants every axis named or an Ellipsis)."""
    return (slice(None),) * axis + (sl, Ellipsis)


def size_of(shape: Any) -> int:
    """The number of elements of an array of `shape` (Python ints)."""
    n = 1
    for s in shape:
        n *= s
    return n


def unbroadcast(xp: Any, g: Any, shape: Any) -> Any:
    """g summed back to `shape` (the shape of an argument that broadcasting
    grew to g's shape)."""
    shape = tuple(shape)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and gshape[lead + i] != 1)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return xp.reshape(g, shape)


# ----- sequences of arrays (concat's and stack's argument) ----------------------------------

def sequence_tangent(primal: Any, parts: Any) -> Any:
    """The tangent of a tuple or list of arrays from its parts' tangents."""
    if all(p is NO for p in parts):
        return NO
    if all(isinstance(p, AbstractZero) for p in parts):
        return ZERO
    return Tangent[type(primal)](*parts)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


def sequence_parts(Δ: Any, arrays: Any, name: str) -> Any:
    """The tangents of the arrays of a sequence (a Tangent[tuple] or list),
    zeros materialised; None when they are all zero."""
    Δ = unthunk(Δ)
    if isinstance(Δ, AbstractZero):
        return None
    if not isinstance(Δ, (StructuralTangent, tuple, list)):
        raise TypeError(f"{name}: the tangent of a sequence of arrays must be a tuple, a list or a "
                        f"Tangent, got a {type(Δ).__name__}")
    parts = [unthunk(p) for p in Δ]
    if len(parts) != len(arrays):
        raise ValueError(f"{name}: {len(arrays)} arrays but {len(parts)} tangents")
    if all(isinstance(p, AbstractZero) for p in parts):
        return None
    xp = namespace(*arrays)
    return [xp.zeros_like(a) if isinstance(p, AbstractZero) else p for p, a in zip(parts, arrays)]


# ----- registration ---------------------------------------------------------------------------------

_NUMPY_OBJECTS = None


def _is_numpys_own(f: Any) -> bool:
    """f is one of NumPy's own functions (array_api_compat.numpy re-exports
    some): those keep their NumPy rules in this step."""
    global _NUMPY_OBJECTS
    if _NUMPY_OBJECTS is None:
        _NUMPY_OBJECTS = {id(v) for v in vars(np).values() if callable(v)}
        _NUMPY_OBJECTS |= {id(v) for v in vars(np.ndarray).values() if callable(v)}
        _NUMPY_OBJECTS |= {id(v) for v in vars(np.linalg).values() if callable(v)}
    return id(f) in _NUMPY_OBJECTS


# id -> function: each gets its rules once (libraries re-export each other's)
_REGISTERED: dict[Any, Any] = {}


def registered() -> Any:
    """The functions that have array-API rules (registered by this package)."""
    return list(_REGISTERED.values())


def mark_registered(f: Any) -> None:
    _REGISTERED[id(f)] = f


def register_table(table: Any, functions: Any) -> Any:
    """Register each factory of `table` ({standard name: factory(f, name) ->
    (frule, rrule)}) on the function of that name in `functions` (a module or
    a dict), once per function object.  Returns the names registered."""
    get: Any = functions.get if isinstance(functions, dict) else (lambda n: getattr(functions, n, None))
    done = []
    for name, factory in table.items():
        f = get(name)
        if f is None or not callable(f) or _is_numpys_own(f):
            continue
        if _REGISTERED.get(id(f)) is f:
            done.append(name)
            continue
        _REGISTERED[id(f)] = f
        frule, rrule = factory(through_engines(f), name)
        register_frule(f)(named_rule(_checking_tangents(frule, name), name))
        register_rrule(f)(named_rule(_naming_missing(rrule, name), name))
        done.append(name)
    return done


def _checking_tangents(frule: Any, name: str) -> Any:
    """frule, first checking that each tangent is an array of its argument's
    library (or a number, a zero, a structural tangent): a NamespaceError
    naming the function, the argument and both libraries, before any work.
    A namespace lacking a function the rule needs: a TypeError naming it."""

    def checked_frule(tangents: Any, *args: Any, **kwargs: Any) -> Any:
        for i, (Δ, a) in enumerate(zip(tangents[1:], args)):
            if type(Δ) is not type(a):
                check_tangent(name, f"the tangent of argument {i + 1}", unthunk(Δ), a)
        try:
            return frule(tangents, *args, **kwargs)
        except AttributeError as e:
            raise missing_function(name, e) from e
    return checked_frule


def _naming_missing(rrule: Any, name: str) -> Any:
    """rrule, whose pullback too turns a namespace lacking a function the
    rule needs into a TypeError naming it (never an AttributeError from deep
    inside the rule)."""

    def checked_rrule(*args: Any, **kwargs: Any) -> Any:
        try:
            res = rrule(*args, **kwargs)
        except AttributeError as e:
            raise missing_function(name, e) from e
        if res is None:
            return None
        Ω, pullback = res

        def checked_pullback(ȳ: Any) -> Any:
            try:
                return pullback(ȳ)
            except AttributeError as e:
                raise missing_function(f"pullback of {name}", e) from e
        return Ω, checked_pullback
    return checked_rrule
