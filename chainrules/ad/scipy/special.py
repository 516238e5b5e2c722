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

import numpy as _np
import scipy.special as _sp

import chainrules.rulesets.scipy.special  # noqa: F401  (the rules)
from chainrules.ad._namespace import populate_from_library

__all__ = populate_from_library(_sp, globals(), as_is=(type, _np.ufunc))
