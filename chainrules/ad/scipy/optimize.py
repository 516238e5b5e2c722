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
from chainrules.ad._namespace import REQUIRED, by_position, populate_from_library

__all__ = populate_from_library(_optimize, globals())
# the parameters up to `args` (and minimize's `jac`, whose closure the rule reads) by position
_LEADING: dict[str, tuple[tuple[str, Any], ...]] = {
    "root": (("fun", REQUIRED), ("x0", REQUIRED), ("args", ())),
    "root_scalar": (("f", REQUIRED), ("args", ())),
    "newton": (("func", REQUIRED), ("x0", REQUIRED), ("fprime", None), ("args", ())),
    "fixed_point": (("func", REQUIRED), ("x0", REQUIRED), ("args", ())),
    "minimize": (("fun", REQUIRED), ("x0", REQUIRED), ("args", ()), ("method", None), ("jac", None)),
    "minimize_scalar": (("fun", REQUIRED), ("bracket", None), ("bounds", None), ("args", ())),
    **{n: (("f", REQUIRED), ("a", REQUIRED), ("b", REQUIRED), ("args", ()))
       for n in ("brentq", "bisect", "ridder", "brenth", "toms748")},
}
for _name, _leading in _LEADING.items():
    by_position(globals(), _name, _leading)
_least_squares = globals()["least_squares"]


def least_squares(fun: Any, x0: Any, args: Any = (), kwargs: Any = None, **options: Any) -> Any:
    """scipy.optimize.least_squares (loss='linear', no active bound),
    differentiable in args (bound into fun's closure) and fun's closure."""
    extra = kwargs or {}

    def residuals(x: Any) -> Any:
        return fun(x, *args, **extra)
    return _least_squares(residuals, x0, **options)
