"""Arrays of other libraries than NumPy as the engines' leaves.

A value is an array of another library when `chainrules._xp.namespace`
finds a namespace for it that is not NumPy's (array-api-strict and JAX
declare `__array_namespace__`; PyTorch and Dask are found by
array_api_compat).  The engines ask the few things below of such a value
with its own namespace, so its tangents, zeros, projections and Jacobians
stay arrays of that library (same dtype, same device, a Dask array lazy):
nothing here converts to NumPy.  Also here: the library function standing
for a Python operator on such arrays, and the check that a differentiation's
inputs are arrays of one library.
"""

import dataclasses
import operator
from collections.abc import Iterator
from typing import Any

import numpy as np

from chainrules._core import Tracked, _ad_strip_all
from chainrules._xp import NamespaceError, astype, namespace

__all__ = ["xp_of", "is_inexact", "is_real_floating", "zeros_like", "project", "describe",
           "is_real_scalar", "unit_basis", "stack", "ones_like", "operator_function",
           "check_libraries", "plain_numpy"]

_PLAIN = (int, float, complex, bool, str, bytes, type(None), np.ndarray, np.generic, list, tuple, dict)


def xp_of(p: Any) -> Any:
    """The namespace of p when p (a plain value) is an array of a library
    other than NumPy, else None."""
    if isinstance(p, _PLAIN):
        return None
    try:
        xp = namespace(p)
    except NamespaceError:
        return None
    if xp is np or getattr(xp, "__name__", "") == "array_api_compat.numpy":
        return None
    return xp


def _kind(xp: Any, p: Any, kind: Any) -> bool:
    try:
        return bool(xp.isdtype(p.dtype, kind))
    except (AttributeError, TypeError):
        return False


def is_inexact(xp: Any, p: Any) -> Any:
    return _kind(xp, p, ("real floating", "complex floating"))


def is_real_floating(xp: Any, p: Any) -> Any:
    return _kind(xp, p, "real floating")


def zeros_like(xp: Any, p: Any) -> Any:
    return xp.zeros_like(p)


def ones_like(xp: Any, p: Any) -> Any:
    return xp.ones_like(p)


def project(xp: Any, x: Any, g: Any) -> Any:
    """The cotangent g (of x's library, or a Python number) made fit for x:
    x's library, x's dtype, the real part for a real x, x's shape."""
    if isinstance(g, (int, float, complex)):
        if isinstance(g, complex) and is_real_floating(xp, x):
            g = g.real
        return xp.full_like(x, g)
    if is_real_floating(xp, x) and _kind(xp, g, "complex floating"):
        g = xp.real(g)
    if g.dtype != x.dtype:
        g = astype(xp, g, x.dtype)
    if tuple(g.shape) != tuple(x.shape):
        g = xp.broadcast_to(g, tuple(x.shape))
    return g


def is_real_scalar(xp: Any, p: Any) -> Any:
    """p holds one real floating value (or an integer one)."""
    return _size(p) == 1 and (is_real_floating(xp, p) or _kind(xp, p, "integral"))


def _size(p: Any) -> Any:
    n = 1
    for d in p.shape:
        n *= d
    return n


def describe(p: Any) -> str:
    xp = xp_of(p)
    name = getattr(xp, "__name__", "").replace("array_api_compat.", "") or type(p).__name__
    dtype = str(getattr(p, "dtype", "?")).split(".")[-1]
    return f"{name} array[{dtype}, {tuple(p.shape)}]"


def a_(text: Any) -> Any:
    """text with its article."""
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def unit_basis(xp: Any, p: Any, dtype: Any) -> Iterator[Any]:
    """The unit tangents of an array like p (of p's library and device)."""
    shape = tuple(p.shape)
    n = _size(p)
    eye = xp.eye(n, dtype=dtype, device=getattr(p, "device", None)) if n else None
    for j in range(n):
        yield xp.reshape(eye[j, :], shape)  # type: ignore[index]  # n > 0 here


def stack(xp: Any, parts: Any, out_shape: Any, in_shape: Any, axis: Any) -> Any:
    """The Jacobian out_shape + in_shape from one part per input element
    (axis=-1) or per output element (axis=0), in the parts' library."""
    one = out_shape if axis == -1 else in_shape
    jac = xp.stack([xp.reshape(q, one) for q in parts], axis=axis)
    return xp.reshape(jac, out_shape + in_shape)


# ----- in the engines ------------------------------------------------------------

# The same operators on arrays of another library fall back to that library's
# function of the standard (its rule is registered when the library is imported).
XP_NAME_OF = {operator.add: "add", operator.sub: "subtract", operator.mul: "multiply",
              operator.truediv: "divide", operator.floordiv: "floor_divide",
              operator.mod: "remainder", operator.pow: "pow", operator.neg: "negative",
              operator.pos: "positive", operator.abs: "abs", operator.matmul: "matmul",
              abs: "abs", pow: "pow"}


def operator_function(f: Any, primals: Any) -> Any:
    """The function of the standard of the arrays' library standing for the
    operator f, when an argument is an array of another library than NumPy;
    else None."""
    name = XP_NAME_OF.get(f)
    if name is None:
        return None
    for a in primals:
        xp = xp_of(_ad_strip_all(a))
        if xp is not None:
            return getattr(xp, name, None)
    return None


def plain_numpy(args: Any) -> bool:
    """Every argument is a Python float or a float/complex NumPy array, or
    such a value tracked by an enclosing differentiation (a nested one: hvp,
    hessian): the checks of a differentiation's inputs (types, libraries, a
    tangent space) have nothing to say, and are skipped (the common case,
    checked by type first: these checks cost as much as a small array's rule)."""
    for a in args:
        t = type(a)
        if t is float:
            continue
        if t is np.ndarray and a.dtype.kind in "fc":
            continue
        if isinstance(a, Tracked):
            p = _ad_strip_all(a)
            if type(p) is float or (type(p) is np.ndarray and p.dtype.kind in "fc"):
                continue
        return False
    return bool(args)


def check_libraries(args: Any, who: str) -> None:
    """Arrays of two libraries among a differentiation's inputs: a TypeError
    naming both (the rules would meet them in one call)."""
    if _numpy_only(args, 0):
        return                      # NumPy arrays and numbers only: the common case, no walk
    found: dict[str, Any] = {}
    _libraries(args, found, 0)
    if len(found) > 1:
        a, b = list(found)[:2]
        raise TypeError(f"{who}: the inputs hold arrays of two libraries, {a} and {b}; "
                        "convert them to one library first")


def _numpy_only(args: Any, depth: int) -> bool:
    """Every element of args (lists and tuples looked into) is a NumPy array
    or a number: the inputs cannot hold two libraries."""
    for a in args:
        t = type(a)
        if t in _ONE_LIBRARY:
            continue
        if (t is tuple or t is list) and depth < 8 and _numpy_only(a, depth + 1):
            continue
        if isinstance(a, Tracked) and type(_ad_strip_all(a)) in _ONE_LIBRARY:
            continue                # an enclosing differentiation's value of NumPy (a hessian)
        return False
    return True


_SCALARS = (float, int, complex, bool, str, bytes, type(None))
_ONE_LIBRARY = frozenset(_SCALARS + (np.ndarray, np.float64, np.float32, np.complex128, np.complex64))


def _libraries(x: Any, found: Any, depth: int) -> None:
    p = _ad_strip_all(x) if isinstance(x, Tracked) else x
    if type(p) in _SCALARS:
        return
    if isinstance(p, (np.ndarray, np.generic)):
        if not isinstance(p, np.generic):
            found.setdefault("numpy", None)
        return
    if depth > 64:
        return
    t = type(p)
    if t is list or isinstance(p, tuple):
        for v in p:
            _libraries(v, found, depth + 1)
        return
    if t is dict:
        for v in p.values():
            _libraries(v, found, depth + 1)
        return
    fields = _dataclass_fields(p)
    if fields is not None:
        for v in fields.values():
            _libraries(v, found, depth + 1)
        return
    xp = xp_of(p)
    if xp is not None:
        found.setdefault(getattr(xp, "__name__", type(xp).__name__).replace("array_api_compat.", ""), None)


def _dataclass_fields(x: Any) -> Any:
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
    return None
