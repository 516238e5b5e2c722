"""The generic engine's shared machinery: the one dispatcher every operation
on tracked values reaches when the compiled fast path does not take it, and
the walks over arguments and results that both engines use.

An operation (a Python operator, a ufunc, a NumPy function, a call through
`chainrules.ad.wrap`) may meet values tracked by several differentiations at
once (nested derivatives).  It is done for the innermost one, the largest tag
(see `_core/ad_forward.pxi`): values of that tag are replaced by their primals
and given to the rule, values of smaller tags stay in the primal as constants
and are differentiated by their own engine when the rule computes with them.

Functions passed as arguments (`map(f, xs)`) may capture tracked values in
their closures: they are replaced by a copy of the function whose cells hold
the primals, and the captured values' tangents travel as the function's
tangent, a `Tangent[function]` with one field per captured variable (the
∂self of ChainRules).  Values hidden elsewhere (object attributes) cannot be
seen: if a rule returns a value tracked at its own level, the engine reports
it instead of losing the derivative.
"""

import dataclasses
import functools
import operator
import copy
import types
from typing import Any, Callable, TypeVar, cast

import numpy as np

from chainrules.ad import _foreign
from chainrules._core import (
    AbstractTangent,
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    StructuralTangent,
    Tangent,
    Tracked,
    Wrapped,
    ZeroTangent,
    _ad_is_active,
    _ad_strip_all,
    _rules_of,
    unthunk,
)

__all__ = ["wrap", "dispatch", "NoRuleError", "EscapedTrackedValueError"]

_F = TypeVar("_F", bound=Callable[..., Any])

NO = NoTangent()
ZERO = ZeroTangent()

# The kinds of operation (the enum of _core/ad_forward.pxi).
CALL, OP, UFUNC, ARRAY_FUNCTION = 0, 1, 2, 3

_FunctionType = types.FunctionType
_MAX_DEPTH = 64


class NoRuleError(TypeError):
    """An operation on tracked values has no rule and cannot be traced."""


class EscapedTrackedValueError(RuntimeError):
    """A tracked value was used after its differentiation finished, or a
    rule returned a value tracked at the level it was called for."""


def fname(f: Any) -> str:
    """A function's name for messages."""
    if type(f) is Wrapped:
        f = f.f
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:
        return type(f).__name__ + " object"
    mod = getattr(f, "__module__", None)
    if isinstance(mod, str) and mod not in ("builtins", "__main__", "_operator"):
        return f"{mod.lstrip('_')}.{name}"
    if mod == "_operator":
        return f"operator.{name}"
    return str(name)


def describe(args: Any) -> Any:
    """The argument types of a call, for messages."""
    out = []
    for a in args:
        p = _ad_strip_all(a)
        if isinstance(p, np.ndarray):
            out.append(f"ndarray[{p.dtype}, {p.shape}]")
        elif _foreign.xp_of(p) is not None:
            out.append(_foreign.describe(p))
        else:
            out.append(type(p).__name__)
    return ", ".join(out)


# ----- finding the innermost differentiation -----------------------------------

def _cells(fn: Any) -> Any:
    """(name, value) of the filled closure cells of a function."""
    if not fn.__closure__:
        return ()
    out = []
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        try:
            out.append((name, cell.cell_contents))
        except ValueError:      # an empty cell
            pass
    return out


def _scan(x: Any, best: Any, depth: int) -> Any:
    if type(x) in FLAT_TYPES:
        return best                 # an ndarray, a number, a slice: nothing tracked inside
    if isinstance(x, Tracked):
        if not _ad_is_active(x.tag):
            raise EscapedTrackedValueError(
                f"met a tracked {type(x).__name__} whose differentiation has finished (it escaped, "
                "e.g. stored in a global or returned inside an object); tracked values are only "
                "valid inside the function being differentiated")
        return x if best is None or x.tag > best.tag else best
    if depth > _MAX_DEPTH:
        return best
    t = type(x)
    if t is list or isinstance(x, tuple):
        for v in x:
            best = _scan(v, best, depth + 1)
    elif t is dict:
        for v in x.values():
            best = _scan(v, best, depth + 1)
    elif t is _FunctionType:
        for _, v in _cells(x):
            best = _scan(v, best, depth + 1)
    elif t is functools.partial:
        best = _scan(x.func, best, depth + 1)
        best = _scan(x.args, best, depth + 1)
        for v in x.keywords.values():
            best = _scan(v, best, depth + 1)
    elif t is Wrapped:
        best = _scan(x.f, best, depth + 1)
    elif t is np.vectorize:
        best = _scan(x.pyfunc, best, depth + 1)
    return best


def top_tracked(*values: Any) -> Any:
    """The tracked value of the innermost differentiation among values (and
    inside their lists, tuples, dicts and closures), or None."""
    best = None
    for v in values:
        best = _scan(v, best, 0)
    return best


def holds_tag(x: Any, tag: Any) -> bool:
    """Whether a value tracked at `tag` is in x."""
    t = top_tracked(x)
    return t is not None and t.tag >= tag


# ----- rebuilding containers and closures -------------------------------------

def rebuild(x: Any, parts: Any) -> Any:
    """A container of x's type with the elements `parts` (a list, or a dict)."""
    t = type(x)
    if t is list:
        return list(parts)
    if t is tuple:
        return tuple(parts)
    if isinstance(x, tuple):
        return t(*parts) if hasattr(t, "_fields") else t(parts)
    if t is dict:
        return dict(parts)
    raise TypeError(f"cannot rebuild a {t.__name__}")


def copy_dict(x: Any, items: Any) -> Any:
    """A copy of the dict subclass x (OptimizeResult…) holding `items`."""
    out = copy.copy(x)
    out.clear()
    out.update(items)
    return out


def with_cells(fn: Any, values: Any) -> Any:
    """A copy of the function fn whose closure cells named in `values` hold
    the given values instead."""
    cells = []
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        cells.append(types.CellType(values[name]) if name in values else cell)
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells))
    g.__kwdefaults__ = fn.__kwdefaults__
    g.__qualname__ = fn.__qualname__
    g.__dict__.update(fn.__dict__)
    return g


def split(x: Any, tag: Any, leaf: Any, depth: int = 0) -> Any:
    """Replace the values tracked at `tag` in x (and in its lists, tuples,
    dicts, closures and partials) by `leaf(value, path)`; returns the new x
    (x itself when nothing changed) and whether something changed.  `path` is
    the tuple of keys leading to the value (list index, dict key, closure
    variable name)."""
    return _split(x, tag, leaf, (), depth)


def _split(x: Any, tag: Any, leaf: Any, path: Any, depth: int) -> Any:
    if isinstance(x, Tracked):
        if x.tag == tag:
            return leaf(x, path), True
        if x.tag > tag:
            raise EscapedTrackedValueError(
                f"a value tracked by a differentiation (tag {x.tag}) inside the one being "
                f"processed (tag {tag}) was met")
        return x, False
    if depth > _MAX_DEPTH:
        return x, False
    t = type(x)
    if t is list or isinstance(x, tuple):
        parts: Any
        parts, changed = [], False
        for i, v in enumerate(x):
            p, c = _split(v, tag, leaf, path + (i,), depth + 1)
            parts.append(p)
            changed |= c
        return (rebuild(x, parts), True) if changed else (x, False)
    if t is dict:
        parts, changed = {}, False
        for k, v in x.items():
            p, c = _split(v, tag, leaf, path + (k,), depth + 1)
            parts[k] = p
            changed |= c
        return (parts, True) if changed else (x, False)
    if t is _FunctionType and x.__closure__:
        new = {}
        for name, v in _cells(x):
            p, c = _split(v, tag, leaf, path + (name,), depth + 1)
            if c:
                new[name] = p
        return (with_cells(x, new), True) if new else (x, False)
    if t is functools.partial:
        func, c1 = _split(x.func, tag, leaf, path + ("func",), depth + 1)
        args, c2 = _split(x.args, tag, leaf, path + ("args",), depth + 1)
        kws, c3 = _split(x.keywords, tag, leaf, path + ("keywords",), depth + 1)
        if c1 or c2 or c3:
            return functools.partial(func, *args, **kws), True
        return x, False
    if t is np.vectorize:
        pyfunc, c = _split(x.pyfunc, tag, leaf, path + ("pyfunc",), depth + 1)
        if c:
            return np.vectorize(pyfunc, otypes=x.otypes, doc=x.__doc__, excluded=x.excluded,
                                cache=x.cache, signature=x.signature), True
        return x, False
    return x, False


def structural_tangent(x: Any, tangents: Any) -> Any:
    """The tangent of the container or closure x from the tangents of its
    tracked parts, `tangents` mapping paths (as in `split`) to tangents."""
    return _tangent_at(x, tangents, (), 0)


def _tangent_at(x: Any, tangents: Any, path: Any, depth: int) -> Any:
    if path in tangents:
        return tangents[path]
    if depth > _MAX_DEPTH:
        return const_tangent(x)
    t = type(x)
    if t is list:
        return [_tangent_at(v, tangents, path + (i,), depth + 1) for i, v in enumerate(x)]
    if isinstance(x, tuple):
        return Tangent[t](*[_tangent_at(v, tangents, path + (i,), depth + 1) for i, v in enumerate(x)])  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    if t is dict:
        return Tangent[dict]({k: _tangent_at(v, tangents, path + (k,), depth + 1) for k, v in x.items()})  # type: ignore[type-arg]
    if t is _FunctionType:
        fields = {}
        for name, v in _cells(x):
            if _has_prefix(tangents, path + (name,)):
                fields[name] = _tangent_at(v, tangents, path + (name,), depth + 1)
        return Tangent[_FunctionType](**fields) if fields else NO
    if t is functools.partial:
        fields = {}
        for name, v in (("func", x.func), ("args", x.args), ("keywords", x.keywords)):
            if _has_prefix(tangents, path + (name,)):
                fields[name] = _tangent_at(v, tangents, path + (name,), depth + 1)
        return Tangent[functools.partial](**fields) if fields else NO  # type: ignore[type-arg]
    if t is np.vectorize and _has_prefix(tangents, path + ("pyfunc",)):
        return Tangent[np.vectorize](pyfunc=_tangent_at(x.pyfunc, tangents, path + ("pyfunc",), depth + 1))
    return const_tangent(x)


def _has_prefix(tangents: Any, prefix: Any) -> bool:
    n = len(prefix)
    return any(p[:n] == prefix for p in tangents)


def index_tangent(g: Any, key: Any) -> Any:
    """The part `key` of the tangent g of a container or closure."""
    g = unthunk(g)
    if isinstance(g, AbstractZero):
        return g
    if isinstance(g, StructuralTangent):
        return g[key]
    if isinstance(g, dict):
        return g.get(key, ZERO)
    if isinstance(g, NotImplementedTangent):     # every part of it is not implemented either
        return g
    return g[key]


def map_structural(t: Any, fn: Any) -> Any:
    """A structural tangent of the same type with fn applied to each field
    (fn(key, value))."""
    b = t.backing
    if isinstance(b, tuple):
        return type(t)(*[fn(i, v) for i, v in enumerate(b)])
    vals = {k: fn(k, v) for k, v in b.items()}
    if t.primal_type is dict:
        return type(t)(vals)
    return type(t)(**vals)


def is_differentiable_leaf(x: Any) -> Any:
    """Numbers and float/complex arrays: values with a tangent space.  Python
    ints are real numbers; bools and integer NumPy values are not."""
    t = type(x)
    if t is float or t is complex or t is int:
        return True
    if t is bool or x is None:
        return False
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind in "fc"
    if isinstance(x, (float, complex)) or (isinstance(x, int) and not isinstance(x, bool)):
        return True
    xp = _foreign.xp_of(x)          # an array of another library
    return xp is not None and _foreign.is_inexact(xp, x)


def is_real(x: Any) -> Any:
    """Whether the plain value under x (any level of tracking) has a real
    tangent space: a real number or a real floating array."""
    p = _ad_strip_all(x)
    t = type(p)
    if t is float or t is int:
        return True
    if isinstance(p, (np.ndarray, np.generic)):
        return p.dtype.kind == "f"
    if isinstance(p, (float, int)):
        return not isinstance(p, bool)
    xp = _foreign.xp_of(p)
    return xp is not None and _foreign.is_real_floating(xp, p)


def project_real(g: Any) -> Any:
    """A cotangent for a real input: g's real part when g is complex, tracked
    or not (the projection rules make with `ProjectTo`, which lets values
    tracked by an enclosing differentiation through untouched)."""
    g = unthunk(g)
    p = _ad_strip_all(g)
    if isinstance(p, complex) or (isinstance(p, (np.ndarray, np.generic)) and p.dtype.kind == "c"):
        return np.real(g) if isinstance(g, Tracked) else cast(Any, p).real
    xp = _foreign.xp_of(p)
    if xp is not None and _foreign.is_inexact(xp, p) and not _foreign.is_real_floating(xp, p):
        # the namespace of g: a tracked g's records the real part
        return g.__array_namespace__().real(g) if isinstance(g, Tracked) else xp.real(g)
    return g


def no_tangent_space(x: Any) -> bool:
    """Values without a tangent space, or locally constant ones: ints (an
    int-valued function of reals has a zero derivative), bools, integer
    arrays, strings, None, the zero tangents."""
    t = type(x)
    if t is int or t is bool or t is str or t is bytes or x is None:
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind not in "fc"
    if isinstance(x, (AbstractZero, bool, int, str, bytes)):
        return True
    xp = _foreign.xp_of(x)
    return xp is not None and not _foreign.is_inexact(xp, x)


def const_tangent(x: Any) -> Any:
    """The tangent of a constant: ZeroTangent() where x has a tangent space,
    NoTangent() where it has none."""
    if isinstance(x, Tracked) or is_differentiable_leaf(x):
        return ZERO
    return NO


def strip(x: Any) -> Any:
    """x with every tracked value (any level) replaced by its plain value,
    inside lists, tuples and dicts too."""
    if isinstance(x, Tracked):
        return _ad_strip_all(x)
    t = type(x)
    if t is list or isinstance(x, tuple):
        return rebuild(x, [strip(v) for v in x])
    if t is dict:
        return {k: strip(v) for k, v in x.items()}
    return x


def traceable(f: Any, wrapper: Any = None) -> bool:
    """Whether running f on tracked values can work: not a builtin or a ufunc
    (compiled code converts its arguments to plain numbers), nor a function of
    an array library reached through a tracked value's namespace (`wrapper`
    marked by `_namespace.library_function`: the library's code cannot take
    tracked values)."""
    if wrapper is not None and type(wrapper) is Wrapped and wrapper.__dict__.get("_library_function"):
        return False
    return not isinstance(f, (types.BuiltinFunctionType, np.ufunc, type(operator.add)))


def has_rules(f: Any) -> bool:
    """Whether any frule or rrule is registered for f."""
    fr, rr = _rules_of(f)
    return bool(fr or rr)


def resolve(f: Any) -> Any:
    """(the function whose rule is looked up, the callable traced without a
    rule): a wrapper's own rules come first, then those of the function."""
    if type(f) is Wrapped:
        inner = f.f
        return (f if has_rules(f) else inner), inner
    return f, f


def split_callee(f: Any, tag: Any, leaf: Any) -> Any:
    """The function whose rule is used, when it captures values tracked at
    `tag` (a closure, a functools.partial, an np.vectorize): a copy holding
    their primals, for which a rule exists (rules of classes such as
    np.vectorize apply to the copy); else None."""
    g, changed = split(f, tag, leaf)
    if changed and has_rules(g):
        return g
    return None


def populate_dropin(namespace: dict[str, Any], module: types.ModuleType) -> list[str]:
    """Fill a drop-in namespace (chainrules.ad.math, .cmath) with every public
    name of `module`, its functions wrapped (`Wrapped`); returns `__all__`."""
    from chainrules._core import Wrapped
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        namespace[name] = Wrapped(value) if callable(value) else value
        names.append(name)
    return names


# Typed as returning f's own type: on plain values the wrapper is f, and on tracked
# values it stands for f (the annotations users wrote stay useful).
def wrap(f: _F) -> _F:
    """wrap(f) -> f, callable on tracked values by its rule.

    On plain values the wrapper is f.  On values tracked by chainrules.ad the
    engine uses the rule registered for the wrapper or for f (`frule` /
    `rrule`, config rules included) and does not look inside f; without a
    rule it runs f on the tracked values (traces it).  Also a decorator::

        @ad.wrap
        def softplus(x):
            return np.log1p(np.exp(x))

    Rules registered later for f are used too: the lookup happens per call."""
    if type(f) is Wrapped:
        return f
    return Wrapped(f)  # type: ignore[return-value]


# ----- the dispatcher ------------------------------------------------------------

# NumPy functions that only look at shapes and types: the plain values answer.
_STRUCTURAL = {np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj, np.isrealobj,
               np.may_share_memory, np.shares_memory, np.min_scalar_type, np.can_cast}

# Python operators (and abs, pow) on arrays fall back to the equivalent ufunc's
# rule; so do they on any value tracked by an enclosing differentiation, which
# the rules registered for float and complex do not match.
UFUNC_OF: dict[Any, Any] = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
            operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
            operator.mod: np.remainder, operator.pow: np.power, operator.neg: np.negative,
            operator.pos: np.positive, operator.abs: np.absolute, operator.matmul: np.matmul,
            divmod: np.divmod, abs: np.absolute, pow: np.power}

_REFLECTED = {operator.add: "__radd__", operator.sub: "__rsub__", operator.mul: "__rmul__",
              operator.truediv: "__rtruediv__"}

ENGINES: dict[type, Any] = {}   # the tracked type -> its engine's apply(top, kind, f, args, kwargs)


# Values that hold no tracked value inside: an operation whose arguments are
# these and tracked values ("flat" arguments, the common case) skips the
# recursive walks over containers and closures.
FLAT_TYPES = frozenset({float, int, complex, bool, str, bytes, type(None), np.ndarray, np.float64,
                        np.float32, np.complex128, np.complex64, np.int64, np.int32, np.intp,
                        np.bool_, np.dtype, slice, type(Ellipsis)})
_NOT_FLAT = object()


def flat_top(args: Any, kwargs: Any) -> Any:
    """The innermost tracked value among flat arguments (None when there is
    none), or `_NOT_FLAT` when an argument may hold tracked values inside."""
    top = None
    for a in args:
        t = type(a)
        if t in FLAT_TYPES:
            continue
        if not isinstance(a, Tracked):
            return _NOT_FLAT
        if top is None or a.tag > top.tag:
            top = a
    if kwargs:
        for v in kwargs.values():
            if type(v) not in FLAT_TYPES:
                return _NOT_FLAT
    return top


def dispatch(kind: Any, f: Any, args: Any, kwargs: Any) -> Any:
    """Do the operation `f(*args, **kwargs)` on tracked values (the hook of
    `_core/ad_forward.pxi`): find the innermost differentiation among the
    arguments and let its engine apply the rule of f."""
    if kind == UFUNC:
        ufunc, method = f
        if kwargs and kwargs.get("out") is not None:
            raise TypeError(f"numpy.{ufunc.__name__}: out= cannot hold tracked values; "
                            "use the returned value instead")
        f = ufunc if method == "__call__" else getattr(ufunc, method)
    elif kind == ARRAY_FUNCTION and f in _STRUCTURAL:
        if not kwargs and len(args) == 1 and isinstance(args[0], Tracked):
            return f(_ad_strip_all(args[0]))        # np.shape(x), np.iscomplexobj(x)
        return f(*strip(args), **strip(kwargs or {}))
    elif kind == OP and len(args) == 2 and isinstance(args[1], AbstractTangent):
        # a tracked value and a zero, thunk or structural tangent: the tangent ladder
        reflected = _REFLECTED.get(f)
        if reflected is not None:
            return getattr(args[1], reflected)(args[0])
    elif kind == OP and len(args) == 2 and (type(args[0]) is bool or type(args[1]) is bool):
        # a bool operand is a constant (no tangent space) whose arithmetic is its int's, to
        # the bit (x * True is x * 1): as an int, the scalar table (which declines bools) takes it
        args = (int(args[0]) if type(args[0]) is bool else args[0],
                int(args[1]) if type(args[1]) is bool else args[1])
    kwargs = kwargs or {}
    top: Any = flat_top(args, kwargs) if type(f) is not Wrapped else _NOT_FLAT
    if top is _NOT_FLAT:
        top = top_tracked(args, kwargs, f.f) if type(f) is Wrapped else top_tracked(args, kwargs)
    if top is None:
        return f.f(*args, **kwargs) if type(f) is Wrapped else f(*args, **kwargs)
    if not _ad_is_active(top.tag):
        raise EscapedTrackedValueError(
            f"{fname(f)}: met a tracked {type(top).__name__} whose differentiation has finished "
            "(it escaped, e.g. stored in a global or returned inside an object); tracked values "
            "are only valid inside the function being differentiated")
    return ENGINES[type(top)](top, kind, f, args, kwargs)


def reject_tracked_kwargs(f: Any, kwargs: Any, tag: Any) -> None:
    """Rules give no tangent to keyword arguments: refuse tracked ones."""
    for k, v in kwargs.items():
        if holds_tag(v, tag):
            raise TypeError(f"{fname(f)}: the keyword argument {k}= holds a tracked value, but "
                            "rules take tangents for positional arguments only; pass it positionally")


def no_rule(f: Any, args: Any, mode: Any) -> Any:
    which = "frule" if mode == "forward" else "rrule"
    return NoRuleError(
        f"chainrules.ad ({mode} mode): {fname(f)}({describe(args)}) has no {which} for these "
        f"arguments, and it cannot be traced: register one with chainrules.register_{which}, "
        "or write the computation with functions that have rules")


def nested_rule_error(f: Any, e: Any, mode: Any) -> Any:
    """The error for a rule that cannot take values tracked by an enclosing
    differentiation (second derivatives through a rule written for plain values)."""
    return NoRuleError(
        f"chainrules.ad ({mode} mode, nested differentiation): the rule of {fname(f)} met values "
        f"tracked by an enclosing differentiation and cannot compute with them ({type(e).__name__}: "
        f"{e}).  Second derivatives through {fname(f)} need a rule written with operators and "
        "NumPy functions and operators on its arguments (no np.asarray, ufunc.at or writes into "
        "arrays on them: see register_for_arrays in chainrules.rulesets._arrays)")


def is_array(x: Any) -> bool:
    """A NumPy array or scalar (tracked or not)."""
    return isinstance(_ad_strip_all(x), (np.ndarray, np.generic))


def dataclass_fields(x: Any) -> Any:
    """The fields of a dataclass instance, or None."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
    return None
