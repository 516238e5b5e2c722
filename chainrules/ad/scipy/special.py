"""chainrules.ad.scipy.special: scipy.special for autograd programs.

Every public name of scipy.special.  Its ufuncs are SciPy's own (they reach
the engines through `__array_ufunc__`: differentiated where chainrules has a
rule, see chainrules.rulesets.scipy.special); its other functions are wrapped
with `chainrules.ad.wrap`'s library form, so `logsumexp`, `softmax` and
`log_softmax` are differentiated by their rules and the others raise a
NoRuleError naming the function on tracked values (SciPy's code would convert
them to floats).
"""

from __future__ import annotations

from typing import Any

import numpy as _np
import scipy.special as _sp

import chainrules.rulesets.scipy.special  # noqa: F401  (the rules)
from chainrules.ad._namespace import library_function as _library_function


def _populate(namespace: dict[str, Any]) -> list[str]:
    names = []
    for name in dir(_sp):
        if name.startswith("_"):
            continue
        value = getattr(_sp, name)
        if callable(value) and not isinstance(value, (type, _np.ufunc)):
            value = _library_function(value)
        namespace[name] = value
        names.append(name)
    return names


__all__ = _populate(globals())
