"""chainrules.ad.scipy.interpolate: scipy.interpolate's interpolants for
chainrules.ad programs, differentiable in the data values and the evaluation
points.

`CubicSpline(x, y, ...)`, `make_interp_spline(x, y, k=3, ...)`,
`interp1d(x, y, kind=...)` and `RegularGridInterpolator(points, values, ...)`
are drop-ins that keep their data (tracked or not) and, when called, evaluate
SciPy's interpolant through `chainrules.rulesets.scipy.interpolate.evaluate`,
whose rules differentiate in y (values) and in the points (xi for
RegularGridInterpolator, except with method 'pchip'; not the knots x).  Everything else of
scipy.interpolate is wrapped as in `chainrules.ad.scipy.linalg` (plain values
pass through; tracked values raise a NoRuleError naming the function).  SciPy's
own objects are not tracked by chainrules.ad: build them from plain values, or
use these classes.  Example::

    >>> import numpy as np
    >>> from chainrules import ad
    >>> from chainrules.ad.scipy.interpolate import CubicSpline
    >>> x = np.linspace(0.0, 3.0, 7)
    >>> round(float(ad.gradient(lambda y: CubicSpline(x, y)(1.25), np.sin(x)).sum()), 12)  # constants reproduced
    1.0
"""

from __future__ import annotations

from typing import Any

import scipy.interpolate as _interpolate

from chainrules._core import Wrapped
from chainrules.ad._namespace import populate_from_library
from chainrules.rulesets.scipy.interpolate import evaluate as _evaluate_plain

__all__ = populate_from_library(_interpolate, globals())
_evaluate = Wrapped(_evaluate_plain)


class _Interpolant:
    _make: Any = None

    def __init__(self, x: Any, y: Any, **options: Any) -> None:
        self.x, self.y, self.options = x, y, options

    def __call__(self, xs: Any, nu: int = 0) -> Any:
        if nu:
            return _evaluate(self._make, self.x, self.y, xs, nu, **self.options)
        return _evaluate(self._make, self.x, self.y, xs, **self.options)


class CubicSpline(_Interpolant):
    """scipy.interpolate.CubicSpline(x, y, axis=0, bc_type='not-a-knot', extrapolate=None),
    called as SciPy's: spline(xs, nu=0)."""
    _make = _interpolate.CubicSpline


class _InterpSpline(_Interpolant):
    _make = staticmethod(_interpolate.make_interp_spline)


def make_interp_spline(x: Any, y: Any, k: int = 3, **options: Any) -> Any:
    """scipy.interpolate.make_interp_spline(x, y, k=3, ...), called as SciPy's BSpline."""
    return _InterpSpline(x, y, k=k, **options)


class interp1d(_Interpolant):
    """scipy.interpolate.interp1d(x, y, kind='linear', ...), called as SciPy's: f(xs)."""
    _make = _interpolate.interp1d


class RegularGridInterpolator(_Interpolant):
    """scipy.interpolate.RegularGridInterpolator(points, values, method='linear', ...),
    called as SciPy's: f(xi), differentiable in values and in xi."""
    _make = _interpolate.RegularGridInterpolator

    def __call__(self, xi: Any, nu: int = 0) -> Any:
        return _evaluate(self._make, self.x, self.y, xi, **self.options)
