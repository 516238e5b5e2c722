"""Array-API code on tracked values: the namespace a tracked value declares.

`x.__array_namespace__()` of a value tracked by `chainrules.ad` (and so
`array_api_compat.array_namespace(x)`) is the namespace of its primal's
library seen through the engines:

- NumPy values: NumPy itself.  Its functions and ufuncs reach the engines
  through `__array_function__`/`__array_ufunc__`.
- other libraries (PyTorch, JAX, Dask, array-api-strict): a
  `TrackedNamespace` whose functions use their rules when an argument is
  tracked (as `chainrules.ad.wrap` does) and are the library's own on plain
  values.  Functions without a derivative (creation, comparisons, queries of
  dtypes) see the primals.

So `xp = array_namespace(x); xp.sum(xp.sin(x) * x)` is differentiated on
each library, and a rule body written with `xp` is itself differentiated when
it meets values tracked by an enclosing differentiation.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from chainrules._core import Tracked, Wrapped, _ad_strip_all
from chainrules._xp import is_numpy, namespace

__all__ = ["tracked_namespace", "TrackedNamespace", "library_function"]

# Functions whose result has no derivative: called on the primals.
_PLAIN = frozenset("""
    arange empty empty_like eye full full_like linspace meshgrid ones ones_like zeros zeros_like
    tril_indices triu_indices from_dlpack
    finfo iinfo isdtype result_type can_cast
    argmax argmin argsort nonzero searchsorted count_nonzero
    unique_all unique_counts unique_inverse unique_values
    equal not_equal less less_equal greater greater_equal
    isnan isinf isfinite signbit logical_and logical_or logical_not logical_xor
    bitwise_and bitwise_or bitwise_xor bitwise_invert bitwise_left_shift bitwise_right_shift
    any all
""".split())


def _has_tracked(args: Any, kwargs: Any) -> bool:
    for a in args:
        if isinstance(a, Tracked):
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(e, Tracked) for e in a):
            return True
    return any(isinstance(v, Tracked) for v in kwargs.values())


def _strip(a: Any) -> Any:
    if isinstance(a, (list, tuple)):
        return type(a)(_ad_strip_all(e) for e in a)
    return _ad_strip_all(a)


def _plain(f: Any) -> Any:
    """f on the primals of its arguments (no derivative)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return f(*[_strip(a) for a in args], **{k: _strip(v) for k, v in kwargs.items()})
    call.__name__ = getattr(f, "__name__", "f")
    call.__wrapped__ = f  # type: ignore[attr-defined]
    return call


class TrackedNamespace:
    """The array namespace `xp` of a library, for values tracked by
    chainrules.ad: `xp.f` uses f's rule when an argument is tracked."""

    def __init__(self, xp: Any) -> None:
        self._xp = xp
        self.__name__ = f"chainrules.ad[{getattr(xp, '__name__', type(xp).__name__)}]"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            a = getattr(self._xp, name)
        except AttributeError:
            raise AttributeError(f"{self.__name__}: the namespace {self._xp.__name__} has no "
                                 f"function {name!r}", name=name, obj=self) from None
        if name == "asarray":
            w = _asarray(a)
        elif isinstance(a, types.ModuleType):
            w = TrackedNamespace(a)                 # xp.linalg, xp.fft
        elif not callable(a) or isinstance(a, type):
            w = a                                   # dtypes, constants, classes
        elif name in _PLAIN:
            w = _plain(a)
        else:
            w = library_function(a)
        setattr(self, name, w)                      # looked up once
        return w

    def __repr__(self) -> str:
        return f"<array namespace {self.__name__}>"


def library_function(f: Any) -> Any:
    """`Wrapped(f)` for a function of an array library: on tracked values
    it uses f's rule, and without one it is a NoRuleError naming f (the
    library's code cannot take tracked values, so it is never traced)."""
    w = Wrapped(f)
    w._library_function = True  # type: ignore[attr-defined]  # not in the core's stub
    return w


def populate_from_library(module: Any, namespace: dict[str, Any], rename: dict[str, str] | None = None,
                          as_is: tuple[type, ...] = (type,)) -> list[str]:
    """Every public name of a library module (scipy.linalg, ...) into a
    module's `namespace`, its functions as `library_function`s (their rules
    differentiate them on tracked values, the others are a NoRuleError) but
    instances of `as_is` (classes; NumPy's ufuncs, which dispatch themselves);
    `rename` maps a name to the one it is given here.  Returns the names."""
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if callable(value) and not isinstance(value, as_is):
            value = library_function(value)
        name = (rename or {}).get(name, name)
        namespace[name] = value
        names.append(name)
    return names


REQUIRED = object()     # a parameter of `by_position` without a default


def by_position(namespace: dict[str, Any], name: str, leading: tuple[tuple[str, Any], ...]) -> None:
    """Replace the library function namespace[name] by one that passes its
    first parameters, `leading` ((name, default or REQUIRED), ...), by
    position even when the caller names them: the engines differentiate the
    positional arguments of a call (`odeint(f, y0, t, args=(a, b))` holds
    tracked values in a keyword argument), which is where the rules read them."""
    wrapped = namespace[name]

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) < len(leading):
            args = args + tuple(_take(kwargs, name, p, default) for p, default in leading[len(args):])
        return wrapped(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"{getattr(wrapped, '__doc__', None) or name}\n\n(chainrules.ad: "
                    f"{', '.join(p for p, _ in leading)} are passed on by position.)")
    namespace[name] = call


def _take(kwargs: dict[str, Any], fname: str, name: str, default: Any) -> Any:
    value = kwargs.pop(name, default)
    if value is REQUIRED:
        raise TypeError(f"{fname}() missing required argument: {name!r}")
    return value


def _asarray(f: Any) -> Any:
    def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None) -> Any:
        if isinstance(obj, Tracked) and dtype is None:
            return obj                              # already an array of this library
        if _has_tracked((obj,), {}):
            raise TypeError(f"asarray of a tracked value with dtype={dtype!r}: use xp.astype, which "
                            "has a derivative")
        kw = {k: v for k, v in (("dtype", dtype), ("device", device), ("copy", copy)) if v is not None}
        return f(obj, **kw)
    return asarray


_namespaces: dict[Any, Any] = {}


def tracked_namespace(primal: Any) -> Any:
    """The namespace a value tracked at `primal` declares."""
    xp = namespace(primal)
    if is_numpy(xp):
        return np
    ns = _namespaces.get(xp)
    if ns is None:
        ns = _namespaces[xp] = TrackedNamespace(xp)
    return ns
