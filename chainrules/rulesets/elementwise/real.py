"""The element-wise rules' arithmetic on real arrays, shared by their fast paths: the
product of a partial and a tangent (`times`), the unary rules' `RealUnary` (what they
compute on a real array, carried by them as `real_rule` for the adapters), and the test
of the layouts under which the rules' seed, conjugate and projection layers have nothing
to do (`traced_real`, `same_real`: arrays traced by an enclosing differentiation, issue 25).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import is_traced, untraced
from chainrules.rulesets.elementwise import NEG_ONE, ONE

__all__ = ["times", "RealUnary", "traced_real", "same_real"]


def times(xp: Any, d: Any, v: Any) -> Any:
    if d is ONE:
        return v
    if d is NEG_ONE:
        return -v
    if is_traced(v) and not is_traced(d):
        return v * d        # a library array times a tracked value: the tracked value's product
    return d * v            # (array_api_strict's Array.__mul__ refuses other types)


def traced_real(vs: Any) -> Any:
    """(shape, dtype) when every v is a real NumPy array of one shape and
    dtype, plain or traced by an enclosing differentiation, and one at least
    traced (a rule differentiated: ad.hvp's inner gradient on Duals); else
    None.  There the rules' seeds, conjugates and projections have nothing
    to do on a cotangent of that shape and dtype (`same_real`)."""
    layout, traced = None, False
    for v in vs:
        if type(v) is not np.ndarray:
            if not is_traced(v):
                return None
            traced, v = True, untraced(v)
            if type(v) is not np.ndarray:
                return None
        dtype = v.dtype
        if layout is None:
            if dtype.kind != "f":
                return None
            layout = (v.shape, dtype)
        elif v.shape != layout[0] or (dtype is not layout[1] and dtype != layout[1]):
            return None
    return layout if traced else None


def same_real(v: Any, layout: Any) -> bool:
    """v (Ω or a cotangent) is a real array of this (shape, dtype), plain or traced."""
    if type(v) is not np.ndarray:
        if not is_traced(v):
            return False
        v = untraced(v)
        if type(v) is not np.ndarray:
            return False
    dtype = v.dtype
    return bool(v.shape == layout[0] and (dtype is layout[1] or dtype == layout[1]))


class RealUnary:
    """The unary rules' arithmetic on a real array x of a namespace xp, the
    rules' own (the ones `_unary_rules` makes, which carry it as `real_rule`):
    `Ω = primal(x)`, and `times(xp, x, Ω, v)` is ∂Ω/∂x·v, the frule's ΔΩ for
    v = Δx and the rrule's cotangent for v = ȳ (of Ω's shape and dtype: the
    projection has nothing to do)."""
    __slots__ = ("primal", "d")

    def __init__(self, primal: Any, d: Any) -> None:
        self.primal, self.d = primal, d

    def times(self, xp: Any, x: Any, Ω: Any, v: Any) -> Any:
        d = self.d
        return times(xp, d(xp, x, Ω) if callable(d) else d, v)
