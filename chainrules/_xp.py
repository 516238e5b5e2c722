"""The array namespace of a rule's arguments (the Python array API standard).

A rule body computes with `xp = namespace(*args)`: NumPy itself for
ndarrays (subclasses too), NumPy scalars and Python numbers (a type check,
no call); for other arrays the namespace their library declares:
`x.__array_namespace__()` (JAX, array-api-strict, values tracked by
`chainrules.ad`), else the one `array_api_compat.array_namespace` gives
(PyTorch, CuPy, Dask).  Python numbers and NumPy scalars (np.float64(2.0),
not 0-d arrays) take the namespace of the arrays they meet, as the standard
lets Python scalars stand beside arrays; arrays of two libraries are a
TypeError naming both.

Nothing here imports an array library: a library is only ever reached through
an array of it that the caller passed.

Names: a rule body uses the standard's names that NumPy >= 2.0 also has
(`xp.concat`, `xp.permute_dims`, `xp.pow`, `xp.acos`, `xp.matrix_transpose`,
`xp.vecdot`, `xp.isdtype`, …).  For the few it lacks on its floor
(`astype`, `cumulative_sum` and `cumulative_prod` came with NumPy 2.1) use the functions below.
"""

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules._core import Tracked as _Tracked
from chainrules._core import _ad_strip_all

__all__ = ["namespace", "is_numpy", "astype", "cumulative_sum", "cumulative_prod", "unbroadcast", "NamespaceError",
           "through_engines", "check_tangent", "missing_function", "scatter_add"]

# Types answered without a call.  Python numbers and NumPy scalars are neutral
# (they take the namespace of the arrays they meet: a NumPy scalar bound of
# clip beside a strict array, a np.float64 a NumPy reduction returned); only
# ndarrays are NumPy's.
_NEUTRAL = (int, float, complex, bool, type(None), np.generic)
_ns_of_type: dict[type, Any] = {np.ndarray: np}


class NamespaceError(TypeError):
    """Arrays of two libraries in one call, or an argument whose library
    has no array API namespace."""


def _compat_namespace(x: Any) -> Any:
    try:
        import array_api_compat
    except ImportError:
        return None
    try:
        return array_api_compat.array_namespace(x)
    except TypeError:
        return None


def _namespace_of_type(t: type, x: Any) -> Any:
    """The namespace of an array of type t (x one of them), or None for a
    neutral value (a Python number, a string, None, a tangent type)."""
    if issubclass(t, np.ndarray):
        return np
    if issubclass(t, np.generic):
        return None                 # a NumPy scalar is neutral (it declares NumPy's namespace)
    if issubclass(t, _NEUTRAL) or t.__module__.startswith("chainrules"):
        # chainrules' own tangent types are neutral; its tracked values are
        # not (they declare __array_namespace__ and are found below)
        if not hasattr(t, "__array_namespace__"):
            return None
    get = getattr(t, "__array_namespace__", None)
    if get is not None:
        return get(x)
    xp = _compat_namespace(x)
    if xp is not None:
        _ns_of_type[t] = xp         # torch.Tensor, dask.array.Array: one namespace per type
    return xp


def _library(xp: Any) -> str:
    name = getattr(xp, "__name__", None) or type(xp).__name__
    return name


def namespace(*xs: Any) -> Any:
    """The array namespace of the arrays among xs (NumPy if there are none).

    Lists and tuples are looked into (one level), as NumPy functions take
    them.  Raises NamespaceError when two libraries meet.  (The common case,
    ndarrays and numbers only, is answered by the compiled core without
    calling this; see the end of the module.)"""
    xp = None
    for x in xs:
        t = type(x)
        found = _ns_of_type.get(t)
        if found is None:
            if t is list or t is tuple:
                if not x:
                    continue
                found = namespace(*x)
                if found is np and not any(_namespace_of_type(type(e), e) for e in x):
                    continue            # a list of numbers is neutral too
            elif issubclass(t, _NEUTRAL) or _tracked_scalar(x):
                continue
            else:
                found = _namespace_of_type(t, x)
                if found is None:
                    continue
        if xp is None or found is xp:
            xp = found
        elif _same(xp, found):
            continue
        elif getattr(found, "_xp", None) is xp:
            xp = found                  # the library seen through chainrules.ad: tracked values win
        elif getattr(xp, "_xp", None) is found:
            continue
        else:
            raise NamespaceError(f"arrays of two libraries in one call: {_library(xp)} and "
                                 f"{_library(found)}; convert one of them first")
    return np if xp is None else xp


def _tracked_scalar(x: Any) -> bool:
    """x is a number tracked by chainrules.ad (a Python or NumPy scalar whose
    derivative an enclosing differentiation takes: clip's bound at order 2):
    neutral, as the number itself is."""
    if not hasattr(type(x), "__array_namespace__") or not type(x).__module__.startswith("chainrules"):
        return False
    from chainrules._core import Tracked, _ad_strip_all
    return isinstance(x, Tracked) and isinstance(_ad_strip_all(x), _NEUTRAL)


def _library_of(v: Any) -> Any:
    """The namespace of the array v, or None for a neutral value (a number,
    a zero, a thunk, a container: what check_tangent does not look into)."""
    t = type(v)
    found = _ns_of_type.get(t)
    if found is not None:
        return found
    if t in _neutral_types or t is list or t is tuple or issubclass(t, _NEUTRAL) or _tracked_scalar(v):
        return None
    found = _namespace_of_type(t, v)
    if found is None and t.__module__.startswith("chainrules"):
        _neutral_types.add(t)       # a tangent type, a thunk: neutral, answered by one lookup next time
    return found


_neutral_types: set[type] = set()


def _one_library(a: Any, b: Any) -> bool:
    return (a is b or _same(a, b) or getattr(a, "_xp", None) is b or getattr(b, "_xp", None) is a
            or (getattr(a, "_xp", 0) is getattr(b, "_xp", 1)))


def check_tangent(who: str, what: str, t: Any, x: Any) -> None:
    """t, a tangent or cotangent of the value x, is an array of x's library
    (tracked by chainrules.ad or not), a number or a zero: else a
    NamespaceError (a TypeError) naming `who` (the function), `what` (the
    argument) and both libraries.  A rule would otherwise compute with arrays
    of two libraries: an AttributeError deep inside it, or a silent
    conversion.  The same types, the common case, cost one comparison."""
    tt = type(t)
    if tt is type(x) or tt in _neutral_types or tt is float or tt is int or tt is complex:
        return
    if isinstance(x, _Tracked) or isinstance(t, _Tracked):
        # a tracked value is of its primal's library: compare those (a plain cotangent of
        # a value an enclosing differentiation tracks, in a second derivative)
        x, t = _ad_strip_all(x), _ad_strip_all(t)
        tt = type(t)
        if tt is type(x) or tt in _neutral_types or tt is float or tt is int or tt is complex:
            return
    a = _library_of(t)
    if a is None:
        return
    b = _library_of(x)
    if b is None or _one_library(a, b):
        return
    raise NamespaceError(f"{who}: {what} is an array of {_plain_library(a)} but the value it belongs to "
                         f"is an array of {_plain_library(b)}; give it as an array of "
                         f"{_plain_library(b)} (tangents and cotangents are arrays of their primal's "
                         "library)")


def missing_function(who: str, e: Any, xp: Any = None) -> Any:
    """The TypeError for the AttributeError e when it says an array namespace
    (xp, or any module or chainrules.ad's namespace of tracked values) lacks
    a function a rule needs, naming the rule `who`, the namespace and the
    function; else e itself."""
    obj = getattr(e, "obj", None)
    if obj is None or not (obj is xp or isinstance(obj, types.ModuleType)
                           or type(obj).__name__ == "TrackedNamespace"):
        return e
    return TypeError(f"{who}: the array namespace {_plain_library(obj)!r} has no function {e.name!r}, "
                     "which the rule needs")


def _plain_library(xp: Any) -> str:
    return _library(getattr(xp, "_xp", xp)).replace("array_api_compat.", "")


def _same(a: Any, b: Any) -> bool:
    """array_api_compat.numpy and numpy are the same library (arrays of both
    are ndarrays)."""
    names = {getattr(a, "__name__", ""), getattr(b, "__name__", "")}
    return names <= {"numpy", "array_api_compat.numpy"}


def is_numpy(xp: Any) -> bool:
    """xp is NumPy (itself or array_api_compat's wrapper): the rule may use
    NumPy's own functions and the compiled fast paths."""
    return xp is np or getattr(xp, "__name__", "") == "array_api_compat.numpy"


def astype(xp: Any, x: Any, dtype: Any) -> Any:
    """x as dtype (xp.astype where the namespace has it: NumPy < 2.1 lacks it,
    and NumPy 2.0's refuses NumPy scalars, whose own .astype does the same)."""
    if xp is np:
        if isinstance(x, np.generic):
            return x.astype(dtype)
        if isinstance(x, (bool, int, float, complex)):
            return np.asarray(x, dtype=dtype)[()]
        if type(x) is not np.ndarray:
            from chainrules._core import Tracked, _ad_strip_all
            if isinstance(x, Tracked) and not isinstance(_ad_strip_all(x), (np.ndarray, np.generic)):
                # a tracked Python number (a rule differentiated), which np.astype
                # refuses: converted by arithmetic, which the engines differentiate
                dt = np.dtype(dtype)
                return (x if dt.kind == "c" else np.real(x)) * np.ones((), dt)[()]
    f = getattr(xp, "astype", None)
    if f is not None:
        return f(x, dtype)
    return x.astype(dtype)


def cumulative_sum(xp: Any, x: Any, axis: int | None = None) -> Any:
    """xp.cumulative_sum (NumPy < 2.1: np.cumsum)."""
    f = getattr(xp, "cumulative_sum", None)
    if f is not None:
        return f(x, axis=axis)
    return xp.cumsum(x, axis=axis)


def cumulative_prod(xp: Any, x: Any, axis: int | None = None) -> Any:
    """xp.cumulative_prod (NumPy < 2.1: np.cumprod)."""
    f = getattr(xp, "cumulative_prod", None)
    if f is not None:
        return f(x, axis=axis)
    return xp.cumprod(x, axis=axis)


def scatter_add(xp: Any, positions: Any, v: Any, n: int) -> Any:
    """Zeros of length n with v[i] added at positions[i] (1-d arrays of
    xp; negative positions count from the end; repeats add up), in O(n + m)
    memory for m positions (an n×m one-hot matrix took GBs at n = m = 20000),
    with gathers, a sort, a cumulative sum and differences only: every
    library has them and the engines differentiate them (v tracked: the
    pullback differentiated).  Where the positions are a NumPy array (never a
    lazy one), positions hit at most once take a plain gather (exact); else v
    sorted by position, its cumulative sums differenced at each position's
    segment ends."""
    m = positions.shape[0]
    device = {} if is_numpy(xp) or getattr(v, "device", None) is None else {"device": v.device}
    if m == 0:
        return xp.zeros((n,), dtype=v.dtype, **device)
    positions = xp.where(positions < 0, positions + n, positions)
    order = xp.argsort(positions, stable=True)
    ordered = xp.take(positions, order)
    targets = xp.arange(n, dtype=positions.dtype, **device)
    starts = xp.searchsorted(ordered, targets, side="left")
    ends = xp.searchsorted(ordered, targets, side="right")

    def gather(values: Any, index: Any, hit: Any) -> Any:
        """values[index] where hit, else 0 (a constant 0/1 factor: no
        concatenation of a tracked value with a plain one, which a nested
        differentiation of a nested differentiation cannot take)."""
        return xp.take(values, index) * astype(xp, hit, v.dtype)

    if type(ends) is np.ndarray and np.all(ends - starts <= 1):
        source = np.take(order, np.minimum(starts, m - 1))
        return gather(v, xp.asarray(source), xp.asarray(ends > starts))
    ordered_v = xp.take(v, order)
    # (np.cumsum on NumPy: the engines have its rule, and NumPy < 2.1 has no cumulative_sum)
    sums = xp.cumsum(ordered_v) if is_numpy(xp) else cumulative_sum(xp, ordered_v)
    # the segment of position j is sums[ends[j] - 1] - sums[starts[j] - 1], with sums[-1] = 0
    zero = xp.zeros_like(ends)
    return (gather(sums, xp.where(ends > 0, ends - 1, zero), ends > 0)
            - gather(sums, xp.where(starts > 0, starts - 1, zero), starts > 0))


def unbroadcast(xp: Any, ȳ: Any, shape: Any) -> Any:
    """The cotangent ȳ of a broadcast result summed back to an argument of
    `shape`: xp.sum over the axes broadcasting added or stretched."""
    shape = tuple(shape)
    have = tuple(ȳ.shape)
    if have == shape:
        return ȳ
    lead = len(have) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and have[lead + i] != 1)
    if axes:
        ȳ = xp.sum(ȳ, axis=axes, keepdims=True)
    return xp.reshape(ȳ, shape)


def through_engines(f: Callable[..., Any]) -> Callable[..., Any]:
    """f for a rule body: called on values tracked by `chainrules.ad` (the
    rule evaluated inside a nested differentiation), it hands the call to the
    engines (`chainrules.ad.wrap(f)`: f's own rule at the enclosing level)
    instead of giving the tracked values to a library that cannot take them
    (torch.sin, jnp.sin, array_api_strict.sin); on plain values it is f.

    NumPy's ufuncs and functions and the `operator` functions reach the
    engines through the tracked values' own protocols: returned as they are."""
    if isinstance(f, np.ufunc) or getattr(f, "__module__", None) in ("_operator", "operator", "numpy"):
        return f
    from chainrules._core import Tracked, Wrapped
    wrapped = Wrapped(f)
    wrapped._library_function = True       # type: ignore[attr-defined]  # never traced: a NoRuleError without a rule

    def holds(a: object) -> bool:
        if isinstance(a, Tracked):
            return True
        if type(a) is list or type(a) is tuple:
            for e in a:
                if isinstance(e, Tracked):
                    return True
        return False

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if holds(a):
                return wrapped(*args, **kwargs)
        if kwargs:
            for a in kwargs.values():
                if holds(a):
                    return wrapped(*args, **kwargs)
        return f(*args, **kwargs)
    return call


# The compiled lookup answers ndarrays, NumPy float64s and Python numbers with
# type checks alone (the cost of every generic rule body on NumPy: issue 12's
# "≤ 30 ns per rule" bench row) and hands anything else to `namespace` above.
_general_namespace = namespace
try:
    from chainrules._core import _namespace as _compiled_namespace, _set_namespace_fallback
except ImportError:         # the uncompiled sources (chainrules/__init__ says what to do)
    pass
else:
    _set_namespace_fallback(_general_namespace)
    namespace = _compiled_namespace     # noqa: F811
