"""The element-wise rules registered for the functions and operators of other
array libraries, when each library is imported.

`LIBRARIES` maps a module name to the function that registers the rules for
it; `chainrules.rulesets` calls that function once the module has been
imported (at once if it already is, else from an import hook): chainrules
never imports an array library itself.

For every row of the element-wise table (`elementwise/table.py`), the function of
that name (and of the row's NumPy names) in the library's namespace gets the
rules of `elementwise/rules.py`; so do the `operator` functions and the array
type's dunders (`x.__add__`, the reflected `x.__radd__`, `x.__neg__`, ...).
NumPy's own ufuncs keep their NumPy rules, except on Dask arrays (which
array_api_compat's Dask namespace hands to NumPy's ufuncs): there the generic
rules, which keep the array lazy, are registered for the Dask array type.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import builtins
import math
import operator
import sys
import warnings
from typing import Any

import numpy as np

from chainrules.rulesets.elementwise import STAND_INS, TABLE
from chainrules.rulesets.elementwise.rules import register_name, register_row, rules_for

__all__ = ["LABELS", "LIBRARIES", "NUMPY_OWN", "REGISTERED", "register_namespace", "register_operators",
           "SCALAR_ROW_OF", "scalar_row"]

# the other libraries' functions and dunders given the table's rules here
# (tests/rulesets/test_elementwise_interop.py checks them against NumPy's)
REGISTERED: set[Any] = set()
# the dunders among them, by the name they are shown under ("jax.Array.__add__"):
# several libraries' dunders share a __qualname__ (JAX's `_operator_add`)
LABELS: dict[Any, Any] = {}

# NumPy's own functions: they keep the NumPy rules (numpy_ufuncs.py)
NUMPY_OWN = frozenset(f for r in TABLE.values() for n in (r.name,) + r.numpy
                       if (f := getattr(np, n, None)) is not None)

# operator function / dunder stem -> row
_BINARY_OPS = [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
               ("pow", "pow"), ("mod", "remainder"), ("floordiv", "floor_divide")]
_UNARY_OPS = [("neg", "negative"), ("pos", "positive"), ("abs", "abs")]


def register_namespace(module: Any) -> None:
    """Register the table's rules for the functions of `module` named as the
    rows (and as their NumPy names); NumPy's own functions are left alone."""
    for row in TABLE.values():
        for n in dict.fromkeys((row.name,) + row.numpy):
            f = register_name(module, n, row, NUMPY_OWN)
            if f is not None:
                REGISTERED.add(f)


def register_operators(array_type: Any, label: str) -> None:
    """Register the table's rules for `operator.add(x, y)`… where x or y is an
    `array_type`, and for the type's dunders (`__add__`, `__radd__`, …)."""
    for op, row in _BINARY_OPS:
        f = getattr(operator, op)
        for types in ((array_type, object), (object, array_type)):
            register_row(f, row, *types, name=f"operator.{op}")
        forward = getattr(array_type, f"__{op}__", None)
        if forward is not None:
            register_row(forward, row, name=f"{label}.__{op}__")
            REGISTERED.add(forward)
            LABELS[forward] = f"{label}.__{op}__"
        reflected = getattr(array_type, f"__r{op}__", None)
        if reflected is not None and reflected is not forward:
            register_row(reflected, row, name=f"{label}.__r{op}__", reflected=True)
            REGISTERED.add(reflected)
            LABELS[reflected] = f"{label}.__r{op}__"
    for op, row in _UNARY_OPS:
        register_row(getattr(operator, op), row, array_type, name=f"operator.{op}")
        dunder = getattr(array_type, f"__{op}__", None)
        if dunder is not None:
            register_row(dunder, row, name=f"{label}.__{op}__")
            REGISTERED.add(dunder)
            LABELS[dunder] = f"{label}.__{op}__"


# ----- one function per library --------------------------------------------------

def _array_api_strict(module: Any) -> None:
    register_namespace(module)
    array_type = getattr(sys.modules.get("array_api_strict._array_object"), "Array", None)
    if array_type is not None:
        register_operators(array_type, "array_api_strict.Array")


def _torch(module: Any) -> None:
    _torch_ldexp(module)
    register_namespace(module)
    register_operators(module.Tensor, "torch.Tensor")


def _compat_torch(module: Any) -> None:
    """array_api_compat's torch namespace, its sign given a stand-in computing the
    same values that torch.func.vmap can batch (see elementwise.STAND_INS)."""
    import torch

    def sign(x: Any, /) -> Any:
        if x.dtype.is_complex:
            return torch.sgn(x)
        if x.dtype.is_floating_point:
            return torch.where(torch.isnan(x), x, torch.sign(x))
        return torch.sign(x)
    sign.__name__ = sign.__qualname__ = "sign"
    STAND_INS[module.sign] = sign
    # the same rules, which a nested differentiation calls on tracked values
    register_row(sign, TABLE["sign"], name="array_api_compat.torch.sign")
    register_namespace(module)


def _torch_ldexp(module: Any) -> None:
    """torch.ldexp(x, e) with e broadcasting x larger writes into an output of x's
    shape and resizes it, which PyTorch deprecates with a UserWarning (PyTorch 2.x):
    its rules compute the same values with x broadcast first (a stand-in with the
    same rules, which a nested differentiation calls on tracked values)."""
    plain = module.ldexp

    def ldexp(x: Any, e: Any, **kwargs: Any) -> Any:
        if isinstance(x, module.Tensor) and isinstance(e, module.Tensor) and x.shape != e.shape:
            x = module.broadcast_tensors(x, e)[0]
        return plain(x, e, **kwargs)
    ldexp.__name__ = ldexp.__qualname__ = "ldexp"
    STAND_INS[plain] = ldexp
    register_row(ldexp, TABLE["ldexp"], name="torch.ldexp")


def _jax_numpy(module: Any) -> None:
    register_namespace(module)
    # jax.Array declares the dunders; the concrete ArrayImpl has its own
    for modname, typename in (("jax._src.basearray", "Array"), ("jax._src.array", "ArrayImpl")):
        array_type = getattr(sys.modules.get(modname), typename, None)
        if array_type is not None:
            register_operators(array_type, f"jax.{typename}")


def _dask_array(module: Any) -> None:
    register_namespace(module)
    register_operators(module.Array, "dask.array.Array")
    # NumPy's ufuncs on Dask arrays (array_api_compat's Dask namespace is made
    # of some of them): the generic rules, which keep the array lazy
    for row in TABLE.values():
        for n in dict.fromkeys((row.name,) + row.numpy):
            f = getattr(np, n, None)
            if isinstance(f, np.ufunc) and f.nin == row.arity:
                if row.arity == 1:
                    register_row(f, row, module.Array, name=f"numpy.{n}")
                else:
                    register_row(f, row, module.Array, object, name=f"numpy.{n}")
                    register_row(f, row, object, module.Array, name=f"numpy.{n}")


def _registering(fn: Any, label: str) -> Any:
    def register(module: Any) -> None:
        try:
            fn(module)
        except Exception as e:          # never break the user's import of the library
            warnings.warn(f"chainrules: registering the rules for {label} failed: {e!r}",
                          RuntimeWarning, stacklevel=2)
    register.__name__ = register.__qualname__ = f"register_{label.replace('.', '_')}"
    return register


LIBRARIES = {name: _registering(fn, name) for name, fn in [
    ("array_api_strict", _array_api_strict),
    ("array_api_compat.numpy", register_namespace),
    ("array_api_compat.torch", _compat_torch),
    ("array_api_compat.dask.array", register_namespace),
    ("torch", _torch),
    ("jax.numpy", _jax_numpy),
    ("dask.array", _dask_array),
]}


# ----- the table's row of a Python scalar function -------------------------------------

# The scalar functions (math, cmath, operator, builtins) whose table row has
# another name than theirs; the others are found by name (math.sin → sin,
# math.asin → asin, math.fabs → fabs).
SCALAR_ROW_OF = {
    operator.add: "add", operator.iadd: "add", operator.sub: "subtract", operator.isub: "subtract",
    operator.mul: "multiply", operator.imul: "multiply", operator.truediv: "divide",
    operator.itruediv: "divide", operator.floordiv: "floor_divide", operator.ifloordiv: "floor_divide",
    operator.mod: "remainder", operator.imod: "remainder", operator.pow: "pow", operator.ipow: "pow",
    builtins.pow: "pow", operator.neg: "negative", operator.pos: "positive", operator.abs: "abs",
    builtins.abs: "abs", builtins.max: "maximum", builtins.min: "minimum",
    math.degrees: "rad2deg", math.radians: "deg2rad", math.remainder: "remainder"}


def scalar_row(f: Any, arity: Any) -> Any:
    """The table row giving the derivatives of the scalar function f (math,
    cmath, operator, builtins) called with `arity` arguments, or None."""
    from chainrules.rulesets.elementwise import row_for_numpy_name
    try:
        name = SCALAR_ROW_OF.get(f)
    except TypeError:
        return None
    row = TABLE.get(name) if name else (row_for_numpy_name(f.__name__) or TABLE.get(f.__name__))
    return row if row is not None and row.arity == arity else None
