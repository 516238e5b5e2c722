"""The array libraries the testers can run a rule on (`backend=`): finding
the library of a namespace, `to_backend` (NumPy arrays in), `to_numpy`
(that library's arrays out) and the check that a value is an array of it.

Nothing here imports an array library at chainrules import time: each is
imported when a test names it.  A namespace is any module the array API
lets `x.__array_namespace__()` or `array_api_compat.array_namespace(x)`
return (`torch`, `array_api_compat.torch`, `jax.numpy`, `dask.array`,
`array_api_strict`, `numpy`, `array_api_compat.numpy`…), or its name.
"""

import importlib
import types
from typing import Any

import numpy as np

from chainrules import AbstractThunk, AbstractZero, NotImplementedTangent, NoTangent, Tangent, unthunk

__all__ = ["Backend", "resolve_backend", "to_backend", "to_numpy"]


class Backend:
    """An array library as the testers see it: `xp` (the namespace given),
    `library` (numpy, torch, jax, dask, array_api_strict, or the root module
    of another) and its array type."""

    def __init__(self, xp: Any, library: str) -> None:
        self.xp = xp
        self.library = library

    @property
    def name(self) -> Any:
        return getattr(self.xp, "__name__", self.library)

    @property
    def lazy(self) -> bool:
        return self.library == "dask"

    def array_type(self) -> Any:
        lib = self.library
        if lib == "numpy":
            return np.ndarray
        if lib == "torch":
            return importlib.import_module("torch").Tensor
        if lib == "jax":
            return importlib.import_module("jax").Array
        if lib == "dask":
            return importlib.import_module("dask.array").Array
        if lib == "array_api_strict":
            xps = importlib.import_module("array_api_strict")
            return type(xps.asarray(0.0))
        return None

    def is_array(self, x: Any) -> bool:
        """Whether x is an array of this library (a NumPy scalar counts as a 0-d NumPy array)."""
        t = self.array_type()
        if t is not None:
            return isinstance(x, t) or (self.library == "numpy" and isinstance(x, np.generic))
        return _root(type(x).__module__) == self.library

    def __repr__(self) -> str:
        return f"Backend({self.name})"


def _root(module_name: str | None) -> str:
    root = (module_name or "").split(".")[0]
    return "jax" if root == "jaxlib" else root


def _library_of_namespace(name: str) -> str:
    if name.startswith("array_api_compat."):
        name = name[len("array_api_compat."):]
    root = _root(name)
    return {"jaxlib": "jax"}.get(root, root)


def resolve_backend(backend: Any, who: str = "backend") -> Any:
    """resolve_backend(backend) -> Backend: a namespace module, or its name
    as a string ("torch", "jax.numpy", "dask.array", "array_api_strict",
    "array_api_compat.numpy"…), imported when named."""
    if isinstance(backend, Backend):
        return backend
    if isinstance(backend, str):
        try:
            xp = importlib.import_module(backend)
        except ImportError as e:
            raise ValueError(f"{who}={backend!r}: cannot import {backend!r} ({e})") from None
    elif isinstance(backend, types.ModuleType):
        xp = backend
    else:
        raise TypeError(f"{who}: expected an array namespace (a module such as array_api_strict, torch, "
                        f"jax.numpy, dask.array) or its name, got {type(backend).__name__}")
    library = _library_of_namespace(xp.__name__)
    if library == "jax":
        _require_x64(f"{who}={xp.__name__}")
    return Backend(xp, library)


def _require_x64(who: str) -> None:
    jax = importlib.import_module("jax")
    if not jax.config.read("jax_enable_x64"):
        raise ValueError(f"{who}: JAX runs in single precision unless 64-bit mode is on, so float64 "
                         "tests would silently become float32 ones; enable it first with "
                         "`jax.config.update('jax_enable_x64', True)` (or JAX_ENABLE_X64=1)")


def _check_dtype(x: Any, who: str) -> None:
    if x.dtype.kind not in "fcbiu":
        raise TypeError(f"{who}: cannot convert an array of dtype {x.dtype} (float32, float64, complex64, "
                        "complex128, integer and bool arrays are converted)")


def to_backend(x: Any, xp: str | types.ModuleType) -> Any:
    """to_backend(x, xp) -> x with every NumPy array in it converted to an array
    of the namespace `xp` (a module or its name), dtype and shape kept.

    NumPy float and complex scalars become 0-d arrays (the library's
    reductions return those); arrays inside tuples, lists and dicts are
    converted; Python numbers and other values are kept.  Dask arrays are made with `from_array` (up to two chunks
    per axis, so that a rule meets a real chunked array); torch with
    `torch.asarray` (a copy, float64 kept); JAX needs 64-bit mode (a
    ValueError says how to enable it).

    Example::

        >>> to_backend(np.ones(3), "torch").dtype
        torch.float64"""
    b = resolve_backend(xp, "to_backend")
    return _convert_in(x, b)


def _convert_in(x: Any, b: Any) -> Any:
    if isinstance(x, np.ndarray):
        _check_dtype(x, f"to_backend(x, {b.name})")
        return _array_in(x, b)
    if isinstance(x, np.generic) and x.dtype.kind in "fc" and b.library != "numpy":
        return _array_in(np.asarray(x), b)
    t = type(x)
    if t is list:
        return [_convert_in(v, b) for v in x]
    if t is tuple:
        return tuple(_convert_in(v, b) for v in x)
    if t is dict:
        return {k: _convert_in(v, b) for k, v in x.items()}
    return x


def _array_in(x: Any, b: Any) -> Any:
    lib = b.library
    if lib == "numpy":
        return np.array(x, copy=True)
    if lib == "torch":
        torch = importlib.import_module("torch")
        return torch.asarray(np.array(x, copy=True, order="C"), copy=True)
    if lib == "jax":
        if x.dtype.itemsize == 8 and x.dtype.kind in "fiu" or x.dtype == np.complex128:
            _require_x64(f"to_backend(x, {b.name})")
        return importlib.import_module("jax.numpy").asarray(x)
    if lib == "dask":
        da = importlib.import_module("dask.array")
        chunks = tuple(max(1, (n + 1) // 2) for n in x.shape)
        return da.from_array(np.array(x, copy=True), chunks=chunks)
    if lib == "array_api_strict":
        return importlib.import_module("array_api_strict").asarray(np.array(x, copy=True))
    return b.xp.asarray(x)


def to_numpy(x: Any) -> Any:
    """to_numpy(x) -> x with every array of another library in it (torch,
    JAX, Dask, array-api-strict, anything with `__dlpack__` or `__array__`)
    converted to a NumPy array; thunks are unthunked, zeros and numbers kept,
    tuples, lists and dicts converted element-wise.  A Dask array is computed:
    call it in a test, never inside a rule."""
    if isinstance(x, AbstractThunk):
        x = unthunk(x)
    if isinstance(x, (np.ndarray, np.generic, AbstractZero, NoTangent, NotImplementedTangent)):
        return x
    if isinstance(x, (bool, int, float, complex)) or x is None:
        return x
    t = type(x)
    if t is list:
        return [to_numpy(v) for v in x]
    if t is tuple:
        return tuple(to_numpy(v) for v in x)
    if t is dict:
        return {k: to_numpy(v) for k, v in x.items()}
    if isinstance(x, Tangent) and x.primal_type in (list, tuple) and isinstance(x.backing, tuple):
        return Tangent[x.primal_type](*(to_numpy(v) for v in x.backing))    # the cotangent of a sequence
    root = _root(t.__module__)
    if root == "torch":
        return x.detach().cpu().resolve_conj().resolve_neg().numpy().copy()
    if root == "dask" and hasattr(x, "compute"):
        return np.array(x.compute(), copy=True)
    if hasattr(x, "__dlpack__") or hasattr(x, "__array__"):
        try:
            return np.array(x, copy=True)
        except (TypeError, ValueError, RuntimeError):
            pass
        try:
            return np.from_dlpack(x).copy()
        except BufferError:
            # a read-only array (a broadcast view, say) cannot go through
            # DLPack before NumPy 2.1: copy it in its own library first
            return np.from_dlpack(x.__array_namespace__().asarray(x, copy=True)).copy()
    return x


def library_of_value(x: Any) -> Any:
    """The library an array value belongs to, for messages."""
    if isinstance(x, (np.ndarray, np.generic)):
        return "numpy"
    return _root(type(x).__module__) or type(x).__name__


def describe(x: Any) -> Any:
    """A short description of a value of any library: type, dtype, shape."""
    x = unthunk(x) if isinstance(x, AbstractThunk) else x
    dt, sh = getattr(x, "dtype", None), getattr(x, "shape", None)
    if dt is not None and sh is not None:
        try:
            sh = tuple(int(n) for n in sh)
        except TypeError:
            pass
        return f"{type(x).__module__.split('.')[0]}.{type(x).__name__}[{dt}, shape={sh}]"
    return type(x).__name__
