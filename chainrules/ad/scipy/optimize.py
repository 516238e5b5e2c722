"""chainrules.ad.scipy.optimize: scipy.optimize for chainrules.ad programs.

Every public function of scipy.optimize, wrapped as in
`chainrules.ad.scipy.linalg`: those with rules
(chainrules.rulesets.scipy.optimize: root, root_scalar, brentq, bisect,
ridder, brenth, toms748, newton, fixed_point, minimize, minimize_scalar,
least_squares) are differentiated by the implicit function theorem in the
values of `args` and in the variables the user function's closure captures;
the others raise a NoRuleError naming the function on tracked values.
Tracked values may come in `args` given by keyword: the wrappers pass it on by
position, where the rules find them (least_squares, whose `args` comes late in
its signature, binds them into a closure).  See docs/guide/optimize.md.
"""

from __future__ import annotations

from typing import Any

import scipy.optimize as _optimize

import chainrules.rulesets.scipy.optimize  # noqa: F401  (the rules)
from chainrules.ad._namespace import populate_from_library

__all__ = populate_from_library(_optimize, globals())
_w = {k: globals()[k] for k in ("root", "root_scalar", "brentq", "bisect", "ridder", "brenth", "toms748",
                                "newton", "fixed_point", "minimize", "minimize_scalar", "least_squares")}


def root(fun: Any, x0: Any, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.root, differentiable in args and fun's closure."""
    return _w["root"](fun, x0, args, **kwargs)


def root_scalar(f: Any, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.root_scalar, differentiable in args and f's closure."""
    return _w["root_scalar"](f, args, **kwargs)


def _bracketing(name: str) -> Any:
    def solve(f: Any, a: Any, b: Any, args: Any = (), **kwargs: Any) -> Any:
        return _w[name](f, a, b, args, **kwargs)
    solve.__name__ = solve.__qualname__ = name
    solve.__doc__ = f"scipy.optimize.{name}, differentiable in args and f's closure."
    return solve


brentq, bisect, ridder, brenth, toms748 = (_bracketing(n) for n in ("brentq", "bisect", "ridder", "brenth",
                                                                   "toms748"))


def newton(func: Any, x0: Any, fprime: Any = None, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.newton, differentiable in args and func's closure."""
    return _w["newton"](func, x0, fprime, args, **kwargs)


def fixed_point(func: Any, x0: Any, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.fixed_point, differentiable in args and func's closure."""
    return _w["fixed_point"](func, x0, args, **kwargs)


def minimize(fun: Any, x0: Any, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.minimize (unconstrained optima), differentiable in args and fun's closure."""
    method, jac = kwargs.pop("method", None), kwargs.pop("jac", None)
    return _w["minimize"](fun, x0, args, method, jac, **kwargs)       # jac by position: its closure is seen


def minimize_scalar(fun: Any, bracket: Any = None, bounds: Any = None, args: Any = (), **kwargs: Any) -> Any:
    """scipy.optimize.minimize_scalar, differentiable in args and fun's closure."""
    return _w["minimize_scalar"](fun, bracket, bounds, args, **kwargs)


def least_squares(fun: Any, x0: Any, args: Any = (), kwargs: Any = None, **options: Any) -> Any:
    """scipy.optimize.least_squares (loss='linear', no active bound),
    differentiable in args (bound into fun's closure) and fun's closure."""
    extra = kwargs or {}

    def residuals(x: Any) -> Any:
        return fun(x, *args, **extra)
    return _w["least_squares"](residuals, x0, **options)
