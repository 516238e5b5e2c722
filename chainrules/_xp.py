"""The array namespace of a rule's arguments (the Python array API standard).

A rule body computes with `xp = namespace(*args)`: NumPy itself for
ndarrays (subclasses too), NumPy scalars and Python numbers (a type check,
no call); for other arrays the namespace their library declares:
`x.__array_namespace__()` (JAX, array-api-strict, values tracked by
`chainrules.ad`), else the one `array_api_compat.array_namespace` gives
(PyTorch, CuPy, Dask).  Python numbers take the namespace of the arrays they
meet; arrays of two libraries are a TypeError naming both.

Nothing here imports an array library: a library is only ever reached through
an array of it that the caller passed.

Names: a rule body uses the standard's names that NumPy >= 2.0 also has
(`xp.concat`, `xp.permute_dims`, `xp.pow`, `xp.acos`, `xp.matrix_transpose`,
`xp.vecdot`, `xp.isdtype`, …).  For the few it lacks on its floor
(`astype`, `cumulative_sum` came with NumPy 2.1) use the functions below.
"""

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["namespace", "is_numpy", "astype", "cumulative_sum", "unbroadcast", "NamespaceError",
           "through_engines"]

# Types answered without a call.  Python numbers are neutral (they take the
# namespace of the arrays they meet); NumPy's own types are NumPy's.
_NEUTRAL = (int, float, complex, bool, type(None))
_ns_of_type: dict[type, Any] = {np.ndarray: np, np.float64: np, np.float32: np, np.complex128: np,
               np.complex64: np, np.int64: np, np.bool_: np}


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
    if issubclass(t, (np.ndarray, np.generic)):
        return np
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
            elif issubclass(t, _NEUTRAL):
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
