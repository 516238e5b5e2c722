"""The element-wise rules of Python's scalar functions (math, operator, abs,
max, min) on values tracked by an AD whose plain values are real
Python numbers: the rows computed with Python scalars.

Inside a nested differentiation `math.sin(x)` on a tracked x runs the
table's row (`elementwise.rules.rules_for(..., python_scalars=True)`).  With
NumPy as its namespace, the row's partials (`xp.cos(x)`, `xp.where(…)`)
would turn the Python floats under x into NumPy float64s, so a second
derivative of Python float code would come back as an `np.float64`.  This
namespace `PYTHON_SCALARS` keeps them Python numbers, as first derivatives
are: its functions are `math`'s, called through `Wrapped` (on a tracked value
the enclosing differentiation applies math's own rule, the C scalar table's
kernels on plain floats), and the piecewise-constant helpers (sign, round,
where, isnan…) are computed on the plain values.

Only for real numbers: complex Python numbers keep the NumPy namespace
(cmath has no real/imag/conj functions for tracked values).
"""

# Types: numbers, tracked or not, are Any (a tracked value is not a float to mypy).
from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules._core import AbstractZero, ProjectTo, Wrapped, is_traced, untraced
from chainrules.rulesets._arrays import NO

__all__ = ["PYTHON_SCALARS", "ScalarProject", "real_python_scalars"]

_REAL = (float, int, bool)


def real_python_scalars(*args: Any) -> bool:
    """Every argument is a real Python number, or a tracked value whose plain
    value is one."""
    for a in args:
        if type(untraced(a)) not in _REAL:
            return False
    return True


def _plain(v: Any) -> Any:
    return untraced(v)


class _PythonScalars:
    """The array namespace of the rows on real Python numbers (the names the
    rows and `elementwise.rules` use)."""
    __name__ = "chainrules.python_scalars"

    # differentiable: math's functions, by their rules on tracked values
    cos = staticmethod(Wrapped(math.cos))
    sin = staticmethod(Wrapped(math.sin))
    cosh = staticmethod(Wrapped(math.cosh))
    sinh = staticmethod(Wrapped(math.sinh))
    exp = staticmethod(Wrapped(math.exp))
    log = staticmethod(Wrapped(math.log))
    sqrt = staticmethod(Wrapped(math.sqrt))

    @staticmethod
    def exp2(x: Any) -> Any:
        return 2.0 ** x

    @staticmethod
    def pow(x: Any, y: Any) -> Any:
        return x ** y

    @staticmethod
    def abs(x: Any) -> Any:
        return abs(x)

    # piecewise constant (no derivative): computed on the plain values
    @staticmethod
    def sign(x: Any) -> Any:
        p = _plain(x)
        return math.nan if p != p else float((p > 0) - (p < 0))

    @staticmethod
    def round(x: Any) -> Any:
        return float(round(_plain(x)))

    @staticmethod
    def isnan(x: Any) -> Any:
        return math.isnan(_plain(x))

    @staticmethod
    def copysign(x: Any, y: Any) -> Any:
        return math.copysign(_plain(x), _plain(y))

    @staticmethod
    def ldexp(x: Any, e: Any) -> Any:
        return math.ldexp(_plain(x), int(_plain(e)))

    @staticmethod
    def logical_not(c: Any) -> Any:
        return not c

    @staticmethod
    def where(c: Any, x: Any, y: Any) -> Any:
        return x if c else y

    @staticmethod
    def ones_like(x: Any) -> Any:
        return 1.0

    @staticmethod
    def zeros_like(x: Any) -> Any:
        return 0.0

    # conversions: Python numbers stay what they are
    @staticmethod
    def asarray(x: Any, dtype: Any = None) -> Any:
        return x

    @staticmethod
    def astype(x: Any, dtype: Any) -> Any:
        return float(x) if type(x) is bool else x

    @staticmethod
    def isdtype(dtype: Any, kind: Any) -> bool:
        return np.isdtype(dtype, kind)

    def __repr__(self) -> str:
        return "<array namespace of real Python numbers>"


PYTHON_SCALARS = _PythonScalars()


class ScalarProject:
    """The projection onto the tangent space of a real Python-number argument
    (ProjectTo's, no broadcasting: every value is a scalar).  A cotangent
    tracked by an enclosing differentiation is let through."""
    __slots__ = ("project", "kind", "shape")

    def __init__(self, x: Any) -> None:
        self.project = ProjectTo(x)
        self.kind = self.project.kind
        self.shape = ()

    def __call__(self, x̄: Any) -> Any:
        if self.kind == 0:
            return NO
        if isinstance(x̄, AbstractZero) or is_traced(x̄):
            return x̄
        return self.project(x̄)
