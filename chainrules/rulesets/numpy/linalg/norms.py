"""`numpy.linalg`'s norms, served by the ONE array-API body of each
(array_api/linalg_norms.py): np.linalg.vector_norm and matrix_norm as they
are; np.linalg.norm(x, ord, axis, keepdims) as NumPy reads it -- the 2-norm
of the flattened array (ord=None, or 'fro' over two axes) and a vector norm
(one axis, or a 1-d x) are vector_norm's body, a matrix norm ('nuc', ±1, ±2,
±inf over two axes) matrix_norm's with those axes moved last.  Subgradients:
max/min-type norms give the derivative to one extreme element (the first),
the 2-norm at 0 has derivative 0, `ord=0` has none."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.rulesets._arrays import named_rule
from chainrules.rulesets.array_api.linalg_norms import _vector_norm_body, matrix_norm_rules, vector_norm_rules
from chainrules.rulesets.numpy.linalg._common import _opts
from chainrules.rulesets.numpy.linalg._on_numpy import as_array, composed, register_body, register_unary_fast

__all__ = ["norm_frule", "norm_rrule"]

register_body([np.linalg.vector_norm], vector_norm_rules(np.linalg.vector_norm), np.linalg.vector_norm, 1,
              "vector_norm")
register_body([np.linalg.matrix_norm], matrix_norm_rules(np.linalg.matrix_norm), np.linalg.matrix_norm, 1,
              "matrix_norm")


def _flat_or_vector(x: Any, ord: Any = 2, axis: Any = None, keepdims: bool = False) -> Any:
    """np.linalg.norm for vector_norm's body (Ω is NumPy's own number)."""
    return np.linalg.norm(x, None if ord == 2 else ord, axis, keepdims)


def _matrix(x: Any, ord: Any = "fro", keepdims: bool = False) -> Any:
    """np.linalg.norm of the last two axes for matrix_norm's body."""
    return np.linalg.norm(x, ord, (-2, -1), keepdims)


_vector = vector_norm_rules(_flat_or_vector, "norm")
_matrix_rules = matrix_norm_rules(_matrix, "norm")

_NORM_SPEC = (("ord", None), ("axis", None), ("keepdims", False))
_ORDERS = (0, 1, -1, 2, -2, np.inf, -np.inf)


def _identity(t: Any) -> Any:
    return t


def _moved(src: Any, dst: Any) -> Any:
    def move(t: Any) -> Any:
        return np.moveaxis(t, src, dst)
    return move


def _plan(args: Any, kwargs: Any) -> Any:
    """(the body's rules, x, its options, the axes moved last or None)."""
    ord, axis, keepdims = _opts("numpy.linalg.norm", args[1:], kwargs, _NORM_SPEC)
    x = as_array(args[0])
    if ord is not None and not isinstance(ord, (str, int, float)):
        # a traced number (cond's p at order 2), which the body compares: by its value
        ord = next((c for c in _ORDERS if ord == c), ord)
    nd = x.ndim
    if axis is None and ord is not None and nd > 2:
        raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")
    axes = tuple(range(nd)) if axis is None else ((axis,) if np.ndim(axis) == 0 else tuple(axis))
    axes = tuple(int(a) % nd for a in axes) if nd else axes
    vector = {"ord": 2 if ord is None else ord, "axis": axis, "keepdims": keepdims}
    if ord is None or len(axes) == 1 or (len(axes) == 2 and ord in ("fro", "f")):
        return _vector, x, vector if ord not in ("fro", "f") else dict(vector, ord=2), None
    if len(axes) != 2:
        raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")
    return _matrix_rules, x, {"ord": ord, "keepdims": keepdims}, axes


def _composed_plan(args: Any, kwargs: Any) -> Any:
    rules, x, opts, axes = _plan(args, kwargs)
    if axes is None:
        return (x,), opts, (_identity,), (_identity,), _identity, _identity
    last = (-2, -1)
    out, out_adjoint = (_moved(last, axes), _moved(axes, last)) if opts["keepdims"] else (_identity, _identity)
    return (np.moveaxis(x, axes, last),), opts, (_moved(axes, last),), (_moved(last, axes),), out, out_adjoint


_vector_composed = composed(_vector, _composed_plan, "norm")
_matrix_composed = composed(_matrix_rules, _composed_plan, "norm")


def norm_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    rules = _plan((x,) + args, kwargs)[0]
    return (_vector_composed if rules is _vector else _matrix_composed)[0](tangents, x, *args, **kwargs)


def norm_rrule(x: Any, *args: Any, **kwargs: Any) -> Any:
    rules = _plan((x,) + args, kwargs)[0]
    return (_vector_composed if rules is _vector else _matrix_composed)[1](x, *args, **kwargs)


norm_frule = named_rule(norm_frule, "norm")
norm_rrule = named_rule(norm_rrule, "norm")
_norm_rules = register_body([np.linalg.norm], (norm_frule, norm_rrule), np.linalg.norm, 1, "norm")


def _flat_norm_body(xp: Any, x: Any, Ω: Any, opts: Any) -> Any:
    """np.linalg.norm(x) without options: vector_norm's body, the 2-norm of
    every element.  For a nonzero norm of an array on NumPy, its adjoint
    without the namespace's wrappers: (x/Ω)·Re(ȳ) (the body's x/Ω where Ω ≠
    0, then the product with the seed: the same NumPy operations on the same
    values, checked bit for bit by tests/rulesets/numpy/test_linalg_one_body.py)."""
    if type(x) is not np.ndarray or not x.ndim or Ω == 0:
        return _vector_norm_body(xp, x, Ω, {"ord": 2, "axis": None, "keepdims": False})

    def flat_norm_adjoint(ȳ: Any) -> Any:
        return np.multiply(x / Ω, ȳ.real if ȳ.dtype.kind == "c" else ȳ)
    return None, flat_norm_adjoint


def _flat_norm(x: Any) -> Any:
    """np.linalg.norm(x) of a real float ndarray as NumPy computes it (the
    square root of the flattened x's dot product with itself), without its
    Python layer."""
    r = x.ravel(order="K")
    return np.sqrt(r.dot(r))


register_unary_fast([np.linalg.norm], _flat_norm_body, np.linalg.norm, _norm_rules, "norm", primal=_flat_norm)
