"""chainrules.ad.numpy: NumPy for autograd programs (a drop-in for `autograd.numpy`).

Every public name of NumPy is here, NumPy's own object (`np.sum`, `np.linalg`,
`np.random`, dtypes, constants): NumPy's functions and ufuncs already
differentiate values tracked by chainrules.ad through `__array_ufunc__` and
`__array_function__`.  The ufuncs are wrapped (`chainrules.ad.wrap(np.sin)`):
the same function on plain values, with the ufunc's attributes (`.reduce`,
`.outer`, `.nin`…), and on a tracked value the rule called directly, without
NumPy's dispatch (on tracked numbers, the C table's kernels, as
`chainrules.ad.math`).  What `autograd.numpy` does on its boxed values that
NumPy does not do on tracked values is added:

- `array`, `asarray`, `asanyarray` of (nested) lists and tuples holding
  tracked numbers or arrays stack them differentiably (NumPy would convert
  the tracked values to floats and lose the derivative, so it raises);
- `r_[...]` and `c_[...]` of tracked values concatenate them (with ranges
  given as slices, `r_[x, 1:10]`);
- `make_diagonal(D, axis1=-1, axis2=-2)`, autograd's complement of
  `diagonal`; `__version__` is NumPy's.

- NumPy's functions (`np.mean`, `np.linalg.norm`, …) stack (nested) lists and
  tuples of numbers holding tracked ones before NumPy reads them
  (`np.linalg.norm([x, x + 2])`, as autograd's do).

NumPy's subpackages are importable by autograd's spelling,
`import chainrules.ad.numpy.random as npr` (also `.linalg`, `.fft`): `random`
is NumPy's own module, `linalg` and `fft` hold NumPy's names with the
functions stacking as above.

Example::

    import chainrules.ad.numpy as np
    from chainrules.ad.autograd import grad

    def f(x):
        return np.sum(np.array([x, 2.0 * x, 1.0]) ** 2)

    grad(f)(1.5)        # 2x + 8x = 15.0
"""

from __future__ import annotations

from typing import Any

import builtins as _builtins
import functools as _functools
import sys as _sys
import types as _types

import numpy as _np

from chainrules._core import Tracked, Wrapped

_OURS = ("array", "asarray", "asanyarray", "r_", "c_", "make_diagonal")
# NumPy functions with rules that NumPy's __array_function__ does not dispatch (plain Python
# functions converting their argument): wrapped, so that a tracked value reaches the rule
_NOT_DISPATCHED = ("asarray_chkfinite",)


def _populate(namespace: dict[str, Any]) -> list[str]:
    names = []
    for name in dir(_np):
        if name.startswith("_") or name in _OURS:
            continue
        value = getattr(_np, name)
        # a ufunc is wrapped: on a tracked number it goes to the rule (the C table's
        # kernels) without NumPy's __array_ufunc__ dispatch; its attributes are the ufunc's.
        # A function stacks lists of tracked numbers given to it (as autograd's do)
        if isinstance(value, _np.ufunc) or name in _NOT_DISPATCHED:
            value = Wrapped(value)
        elif _is_function(value):
            value = _stacking(value)
        namespace[name] = value
        names.append(name)
    return names + list(_OURS)


def _is_function(v: Any) -> bool:
    return type(v).__name__ in ("_ArrayFunctionDispatcher", "function", "builtin_function_or_method")


def _numbers_tracked(a: Any) -> int:
    """For a (nested) list or tuple of numbers: 2 when some are tracked, 1 when
    none are, 0 when it holds anything else (arrays, strings…)."""
    found = 1
    for e in a:
        t = type(e)
        if t is float or t is int:
            continue
        if t is _np.ndarray:            # a sequence of arrays (concatenate's): NumPy's to read
            return 0
        if t is list or t is tuple:
            k = _numbers_tracked(e)
            if not k:
                return 0
            found = _builtins.max(found, k)
        elif isinstance(e, Tracked):
            if _np.ndim(e) != 0:
                return 0
            found = 2
        elif not isinstance(e, (complex, _np.generic)):
            return 0
    return found


def _stacking(f: Any) -> Any:
    """NumPy's function f, which first turns (nested) lists and tuples of
    numbers holding tracked ones into arrays (NumPy would convert the tracked
    numbers to floats and lose the derivative, so it raises)."""
    def stacking(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            t = type(a)
            if (t is list or t is tuple) and _numbers_tracked(a) == 2:
                args = tuple(_stacked(f.__name__, b) if type(b) in (list, tuple) and _numbers_tracked(b) == 2
                             else b for b in args)
                break
        return f(*args, **kwargs)
    _functools.update_wrapper(stacking, f)
    return stacking


def _holds_tracked(a: Any) -> bool:
    if isinstance(a, Tracked):
        return True
    return type(a) in (list, tuple) and _builtins.any(_holds_tracked(e) for e in a)


def _stacked(who: str, a: Any) -> Any:
    """The array of a (nested) list or tuple holding tracked values, stacked
    differentiably (plain parts are NumPy's arrays of them)."""
    if isinstance(a, Tracked):
        return a
    if type(a) in (list, tuple):
        if not a:
            return _np.array(a)
        parts = [_stacked(who, e) for e in a]
        shapes = {_np.shape(p) for p in parts}
        if len(shapes) != 1:
            raise ValueError(f"{who}: the elements of the list have different shapes "
                             f"({', '.join(map(str, sorted(shapes)))}); they must stack into an array")
        return _np.stack(parts)
    return _np.asarray(a)


def _tracked_array(who: str, obj: Any, dtype: Any, ndmin: int) -> Any:
    out = _stacked(who, obj)
    if dtype is not None:
        dtype = _np.dtype(dtype)
        if dtype.kind in "biu":         # integers: the values, which have no derivative (as int(x))
            return _np.asarray(out, dtype=dtype, copy=None) if ndmin <= _np.ndim(out) else _np.array(
                out, dtype=dtype, ndmin=ndmin)
        if dtype.kind not in "fc":
            raise TypeError(f"{who}: dtype={dtype} of tracked values would lose their derivative; "
                            "give a float, complex or integer dtype")
        if dtype != _np.result_type(out):
            out = _np.astype(out, dtype)
    if ndmin > _np.ndim(out):
        out = _np.reshape(out, (1,) * (ndmin - _np.ndim(out)) + _np.shape(out))
    return out


def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",  # noqa: A002  (NumPy's name)
          subok: bool = False, ndmin: int = 0, like: Any = None) -> Any:
    """numpy.array, which also stacks (nested) lists and tuples of tracked
    values differentiably, as autograd.numpy.array does."""
    if _holds_tracked(object):
        return _tracked_array("array", object, dtype, ndmin)
    kw = {} if like is None else {"like": like}
    return _np.array(object, dtype, copy=copy, order=order, subok=subok, ndmin=ndmin, **kw)


def asarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> Any:
    """numpy.asarray, which also stacks (nested) lists and tuples of tracked
    values differentiably; a tracked value is returned as it is."""
    if _holds_tracked(a):
        return _tracked_array("asarray", a, dtype, 0)
    return _np.asarray(a, dtype, order, **kwargs)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> Any:
    """numpy.asanyarray, which also stacks lists of tracked values (see `asarray`)."""
    if _holds_tracked(a):
        return _tracked_array("asanyarray", a, dtype, 0)
    return _np.asanyarray(a, dtype, order, **kwargs)


class _Concatenator:
    """`r_` / `c_`: NumPy's index tricks, concatenating tracked values differentiably
    (plain numbers, arrays and slices as NumPy does; no string directives with tracked values)."""

    def __init__(self, plain: Any, name: str) -> None:
        self._plain = plain
        self._name = name

    def __getitem__(self, key: Any) -> Any:
        items = key if type(key) is tuple else (key,)
        if not _builtins.any(_holds_tracked(e) for e in items):
            return self._plain[key]
        parts = []
        for e in items:
            if isinstance(e, str):
                raise TypeError(f"{self._name}[...]: string directives cannot be combined "
                                "with tracked values; use concatenate")
            if isinstance(e, slice):            # a range, as NumPy reads it (1:10, 0:1:5j)
                e = _np.r_[e]
            e = _stacked(self._name, e) if _holds_tracked(e) else _np.asarray(e)
            parts.append(_np.atleast_1d(e) if self._name == "r_" else _column(e))
        return _np.concatenate(parts, axis=0 if self._name == "r_" else 1)

    def __repr__(self) -> str:
        return f"<chainrules.ad.numpy.{self._name}>"


def _column(e: Any) -> Any:
    return _np.reshape(e, (-1, 1)) if _np.ndim(e) < 2 else e


def make_diagonal(D: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """autograd.numpy's complement of `diagonal`: the array of D's last axis
    laid on the diagonal of two new last axes, `make_diagonal(D, axis1=-1,
    axis2=-2)[..., i, i] == D[..., i]`, zeros elsewhere; differentiable (D
    times an identity).  As autograd's, only offset=0, axis1=-1, axis2=-2."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError("make_diagonal: only offset=0, axis1=-1, axis2=-2 (as autograd's)")
    n = _np.shape(D)[-1]
    return _np.expand_dims(D, -1) * _np.eye(n)


__version__ = _np.__version__

r_ = _Concatenator(_np.r_, "r_")
c_ = _Concatenator(_np.c_, "c_")

__all__ = _populate(globals())



def _subpackage(name: str) -> Any:
    """chainrules.ad.numpy.linalg / .fft: NumPy's module's names, its functions
    stacking lists of tracked numbers first (`np.linalg.norm([x, x + 2])`)."""
    plain = getattr(_np, name)
    module = _types.ModuleType(f"{__name__}.{name}", plain.__doc__)
    names = [n for n in dir(plain) if not n.startswith("_")]
    for n in names:
        value = getattr(plain, n)
        setattr(module, n, _stacking(value) if _is_function(value) else value)
    module.__all__ = names      # type: ignore[attr-defined]
    return module


linalg = _subpackage("linalg")
fft = _subpackage("fft")
# `import chainrules.ad.numpy.random` finds the module here (the import system looks in
# sys.modules once the package is imported), so that module import and attribute agree;
# random is NumPy's own (nothing in it is differentiated)
for _name in ("random", "linalg", "fft"):
    _sys.modules[f"{__name__}.{_name}"] = globals()[_name]
