"""Rules for the functions of the array API standard in every array library
(https://data-apis.org/array-api/latest/): one rule body per function,
computed with the namespace of its arguments, registered on each library's
function of that name when the library is imported (never by importing it
ourselves).

- `reductions`: sum, prod, mean, var, std, max, min, cumulative_sum;
- `shapes`: reshape, permute_dims, matrix_transpose, expand_dims, squeeze,
  flip, roll, broadcast_to, concat, stack, where, clip, sort, take, and
  `__getitem__` of each array type;
- `linalg`: matmul, tensordot, vecdot;
- `linalg_ext`: the `linalg` extension (inv, det, slogdet, solve, cholesky,
  matrix_norm, vector_norm, trace, diagonal, outer, cross, matrix_power, pinv),
  registered on each library's `linalg` namespace only (jax.numpy's own
  trace, diagonal, outer and cross take other axes); on Dask, inv and solve
  only (2-D, square chunks: dask.array.linalg's, which
  array_api_compat.dask.array re-exports; its cholesky gives the upper
  factor by default, its eye with k ≠ 0 and float32 inv misbehave);
- `dtypes`: astype.

`register_for(module_name, module)` registers them for one imported module;
the import hook calls it.  NumPy's own functions keep their NumPy rules
(`array_api_compat.numpy` re-exports some of them: those are left alone).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import sys
from typing import Any

from chainrules.rulesets.array_api import dtypes, linalg, linalg_ext, reductions, shapes

__all__ = ["register_for", "MODULES", "register", "register_linalg"]

# PyTorch's own functions that mean what the standard's do (read with the
# aliases dim/keepdim/dims/shifts).  Not: var/std (correction 1 by default),
# max/min/sort (a (values, indices) tuple with a dim), take (flat indices).
TORCH_NAMES = ("sum", "prod", "mean", "reshape", "squeeze", "flip", "roll", "broadcast_to", "concat",
               "stack", "where", "clip", "matmul", "tensordot")
# torch.linalg's functions that mean what the standard's linalg ones do (solve's
# batch of vectors is read from its result's shape; pinv's atol= and hermitian= are a
# TypeError naming them).
TORCH_LINALG_NAMES = ("inv", "det", "slogdet", "solve", "cholesky", "matrix_norm", "vector_norm", "diagonal",
                      "cross", "matrix_power", "pinv", "matmul", "vecdot")
# dask.array.linalg's that mean the standard's (its cholesky(a, lower=False) does not)
DASK_LINALG_NAMES = ("inv", "solve")


def register(functions: Any) -> Any:
    """Register every rule of the package on the functions of `functions` (a
    namespace or a dict {standard name: function}); returns the names."""
    return (reductions.register(functions) + shapes.register(functions) + linalg.register(functions)
            + dtypes.register(functions))


def register_linalg(functions: Any) -> Any:
    """Register the rules of the `linalg` extension (and matmul, tensordot,
    vecdot, matrix_transpose, which it holds too) on the functions of
    `functions` (a library's `linalg` namespace, or a dict {standard name:
    function}); returns the names."""
    return register(functions) + linalg_ext.register(functions)


def _with_linalg(module: Any) -> None:
    register(module)
    ns = getattr(module, "linalg", None)
    if ns is not None:
        register_linalg(ns)


def _some(ns: Any, names: Any) -> Any:
    return {name: getattr(ns, name) for name in names if hasattr(ns, name)}


def _torch(module: Any) -> None:
    register({name: getattr(module, name) for name in TORCH_NAMES if hasattr(module, name)})
    register_linalg(_some(module.linalg, TORCH_LINALG_NAMES))
    shapes.register_getitem(module.Tensor)


def _compat_torch(module: Any) -> None:
    _with_linalg(module)
    torch = sys.modules.get("torch")
    if torch is not None:
        register_for("torch", torch)


def _strict(module: Any) -> None:
    _with_linalg(module)
    array = getattr(sys.modules.get("array_api_strict._array_object"), "Array", None)
    shapes.register_getitem(array if array is not None else type(module.asarray(0.0)))


def _jax_numpy(module: Any) -> None:
    _with_linalg(module)
    shapes.register_getitem(module.ndarray)          # jax.Array
    impl = getattr(sys.modules.get("jax._src.array"), "ArrayImpl", None)
    if impl is not None and impl.__getitem__ is not module.ndarray.__getitem__:
        shapes.register_getitem(impl)


def _dask_array(module: Any) -> None:
    register(module)
    register_linalg(_some(module.linalg, DASK_LINALG_NAMES))
    shapes.register_getitem(module.Array)


def _compat_dask(module: Any) -> None:
    register(module)
    register_linalg(_some(module.linalg, DASK_LINALG_NAMES))


# module name -> what registers its rules once it is imported
MODULES = {
    "array_api_strict": _strict,
    "array_api_compat.numpy": _with_linalg,
    "array_api_compat.torch": _compat_torch,
    "torch": _torch,
    "jax.numpy": _jax_numpy,
    "dask.array": _dask_array,
    "array_api_compat.dask.array": _compat_dask,
}


_DONE: set[Any] = set()


def register_for(module_name: Any, module: Any) -> None:
    """Register the rules for the imported module `module_name` (one of
    MODULES; any other name does nothing).  Calling it again does nothing."""
    action = MODULES.get(module_name)
    if action is not None and module_name not in _DONE:
        _DONE.add(module_name)
        action(module)
