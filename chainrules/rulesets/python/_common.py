"""What the hand-written rules of Python's scalar functions share
(`python/math.py`, `python/cmath.py`, `python/builtins.py`): the number and
sequence tests, the tangents of sequences and tuple outputs, the scalar seed.
"""


# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractTangent,
    AbstractZero,
    NoTangent,
    ProjectTo,
    StructuralTangent,
    ZeroTangent,
    backing,
    pullback_seed,
    unthunk,
)


NO = NoTangent()
ZERO = ZeroTangent()

_REAL = (int, float, np.floating, np.integer)
_COMPLEX = (complex, np.complexfloating)
_BOOL = (bool, np.bool_)


def _is_real(x: Any) -> bool:
    return isinstance(x, _REAL) and not isinstance(x, _BOOL)


def _is_number(x: Any) -> Any:
    return _is_real(x) or isinstance(x, _COMPLEX)


def _numbers(xs: Any, real: Any = False) -> bool:
    ok = _is_real if real else _is_number
    return all(ok(x) for x in xs)


def _is_sequence(xs: Any) -> bool:
    """A list, tuple or 1-d float/int/complex array: something the rule can
    read twice and whose cotangent it can build."""
    if isinstance(xs, np.ndarray):
        return xs.ndim == 1 and xs.dtype.kind in "fciu"
    return isinstance(xs, (list, tuple))


def _elements(t: Any, n: int) -> Any:
    """The n element tangents of a sequence's tangent: a list, tuple,
    `Tangent[list]`, array, or a zero (which stands for every element)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [t] * n
    if isinstance(t, StructuralTangent):
        t = backing(t)
    if isinstance(t, (list, tuple, np.ndarray)) and len(t) == n:
        return list(t)
    raise TypeError(f"expected the tangent of a sequence of {n} numbers, got {type(t).__name__}")


def _outputs(ȳ: Any, n: int, name: str) -> Any:
    """The n cotangents of a tuple output: a Tangent[tuple], a tuple, or a zero."""
    ȳ = pullback_seed(ȳ, name)
    if isinstance(ȳ, AbstractZero):
        return [ȳ] * n
    if isinstance(ȳ, StructuralTangent):
        ȳ = backing(ȳ)
    if isinstance(ȳ, (tuple, list)) and len(ȳ) == n:
        return [unthunk(v) for v in ȳ]
    raise TypeError(f"pullback of {name}: expected a Tangent[tuple] of {n} cotangents, got "
                    f"{type(ȳ).__name__}")


def _scalar(ȳ: Any, name: str) -> Any:
    """A scalar cotangent, unthunked; arrays of one element are read as numbers."""
    ȳ = pullback_seed(ȳ, name)
    if isinstance(ȳ, np.ndarray):
        if ȳ.size != 1:
            raise ValueError(f"pullback of {name}: expected a scalar cotangent, got an array of "
                             f"shape {ȳ.shape}")
        ȳ = ȳ.reshape(()).item()
    if not (isinstance(ȳ, AbstractTangent) or _is_number(ȳ)):
        raise TypeError(f"pullback of {name}: seed must be a tangent (number, array, ZeroTangent, Thunk, ...), "
                        f"got a {type(ȳ).__name__}")
    return ȳ


def _dot(partials: Any, tangents: Any) -> Any:
    """Σ ∂ᵢ·Δxᵢ with zeros short-circuiting (the tangent ladder)."""
    acc = ZERO
    for p, t in zip(partials, tangents):
        acc = acc + p * unthunk(t)
    return acc


def _project_seq(xs: Any, cts: Any) -> Any:
    """The cotangent of a sequence: `Tangent[list]`/`Tangent[tuple]` or an array."""
    if isinstance(xs, np.ndarray):
        if all(isinstance(c, AbstractZero) for c in cts):
            return ZERO
        return ProjectTo(xs)(np.array([0.0 if isinstance(c, AbstractZero) else c for c in cts]))
    return ProjectTo(xs)(list(cts))


def _real_part(ȳ: Any) -> Any:
    return ȳ.real if isinstance(ȳ, _COMPLEX) else ȳ


def _conj(x: Any) -> Any:
    return x.conjugate() if isinstance(x, _COMPLEX) else x
