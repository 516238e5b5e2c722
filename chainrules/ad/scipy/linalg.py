"""chainrules.ad.scipy.linalg: scipy.linalg for autograd programs.

Every public function of scipy.linalg, wrapped with `chainrules.ad.wrap`'s
library form: those with rules (chainrules.rulesets.scipy.linalg: expm,
logm, sqrtm, solve_sylvester, the Lyapunov solvers, the factorizations and
their solvers, ...) are differentiated by them on tracked values; the others
raise a NoRuleError naming the function (SciPy's code would convert the
tracked values to floats).
"""

from __future__ import annotations

from typing import Any

import scipy.linalg as _sl

import chainrules.rulesets.scipy.linalg  # noqa: F401  (the rules)
from chainrules.ad._namespace import library_function as _library_function


def _populate(namespace: dict[str, Any]) -> list[str]:
    names = []
    for name in dir(_sl):
        if name.startswith("_"):
            continue
        value = getattr(_sl, name)
        if callable(value) and not isinstance(value, type):
            value = _library_function(value)
        namespace[name] = value
        names.append(name)
    return names


__all__ = _populate(globals())
