"""What the engines' entry points accept as the values to differentiate.

Every entry point (`gradient`, `value_and_gradient`, `vjp`, `jvp`,
`derivative`, `jacobian`, `hvp`, `hessian`, `compile` and the autograd front
door `chainrules.ad.autograd`) checks its arguments here, once per call and
only off the fast path (plain floats and float ndarrays skip these checks).

Two rules live here:

- ndarray subclasses are refused, `np.memmap` excepted.  The engines trace
  NumPy's ndarray operations; a subclass may give them another meaning
  (`np.matrix`: `*` and `**` are matrix products; `np.ma.MaskedArray`:
  reductions skip masked entries), and tracing it as an ndarray would
  differentiate another function than the one the user wrote.  A memmap is
  an ndarray on a file: its operations are ndarray's.
- an argument without a tangent space (a bool, a NumPy integer array or
  scalar, an object) is a constant; a differentiation whose every argument is
  one is an error naming it (Python ints are real numbers, and are
  differentiated as floats).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import Tracked, _ad_strip_all
from chainrules.ad._tracing import dataclass_fields, is_differentiable_leaf

__all__ = ["reject_subclass", "has_leaf", "check_input", "no_tangent_space_hint"]

# ndarray subclasses whose operations are ndarray's own
_SAME_AS_NDARRAY = (np.memmap,)

# why a subclass is refused, for the ones users meet most
_CHANGES = {
    np.matrix: "`*` and `**` of a numpy.matrix are matrix products",
    np.ma.MaskedArray: "its mask would be ignored (the engines compute on every entry)",
}

_MAX_DEPTH = 32


def reject_subclass(x: Any, who: str, depth: int = 0) -> None:
    """TypeError, naming the subclass and `who`, for an ndarray subclass
    (other than memmap) at x or inside its tuples, lists, dicts and dataclasses."""
    t = type(x)
    if t is float or t is np.ndarray or depth > _MAX_DEPTH:
        return
    if isinstance(x, Tracked):
        x = _ad_strip_all(x)
        t = type(x)
    if isinstance(x, np.ndarray):
        if t is not np.ndarray and not isinstance(x, _SAME_AS_NDARRAY):
            name = f"{t.__module__}.{t.__qualname__}"
            why = next((r for c, r in _CHANGES.items() if isinstance(x, c)),
                       "its operations may mean something else than ndarray's")
            raise TypeError(f"{who}: cannot differentiate with respect to a {name} (an ndarray "
                            f"subclass): the engines trace ndarray operations, and {why}. "
                            "Pass np.asarray(x) and write the function with ndarray operations "
                            "(`@` for matrix products)")
        return
    if t is list or isinstance(x, tuple):
        for v in x:
            reject_subclass(v, who, depth + 1)
    elif t is dict:
        for v in x.values():
            reject_subclass(v, who, depth + 1)
    else:
        fields = dataclass_fields(x)
        if fields is not None:
            for v in fields.values():
                reject_subclass(v, who, depth + 1)


def has_leaf(x: Any, depth: int = 0) -> bool:
    """Whether x has a tangent space: a number, a float/complex array, or a
    container or dataclass holding one."""
    if isinstance(x, Tracked) or is_differentiable_leaf(x):
        return True
    if depth > _MAX_DEPTH:
        return False
    if type(x) is list or isinstance(x, tuple):
        return any(has_leaf(v, depth + 1) for v in x)
    if type(x) is dict:
        return any(has_leaf(v, depth + 1) for v in x.values())
    fields = dataclass_fields(x)
    return fields is not None and any(has_leaf(v, depth + 1) for v in fields.values())


def check_input(x: Any, who: str) -> None:
    """TypeError for an argument that cannot be differentiated: a string,
    None, an array of strings or objects, an ndarray subclass."""
    p = _ad_strip_all(x)
    if isinstance(p, (str, bytes)) or p is None:
        raise TypeError(f"{who}: cannot differentiate with respect to a {type(p).__name__}")
    if isinstance(p, np.ndarray) and p.dtype.kind not in "fciub":
        raise TypeError(f"{who}: cannot differentiate with respect to an array of dtype {p.dtype}")
    reject_subclass(p, who)


def no_tangent_space_hint(xs: Any) -> str:
    """What to do about arguments xs none of which has a tangent space."""
    for x in xs:
        p = _ad_strip_all(x)
        if isinstance(p, (np.ndarray, np.integer)) and p.dtype.kind in "iu":
            return ("NumPy integer arrays and scalars are constants (indices, counts), while Python "
                    "ints are differentiated as floats; pass a float array (x.astype(float)) to "
                    "differentiate with respect to it")
    return ("differentiate with respect to numbers, float/complex arrays, or containers and "
            "dataclasses holding them")
