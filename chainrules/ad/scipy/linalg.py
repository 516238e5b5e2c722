"""chainrules.ad.scipy.linalg: scipy.linalg for autograd programs.

Every public function of scipy.linalg, wrapped with `chainrules.ad.wrap`'s
library form: those with rules (chainrules.rulesets.scipy.linalg: expm,
logm, sqrtm, solve_sylvester, the Lyapunov solvers, the factorizations and
their solvers, ...) are differentiated by them on tracked values; the others
raise a NoRuleError naming the function (SciPy's code would convert the
tracked values to floats).
"""

from __future__ import annotations

import scipy.linalg as _sl

import chainrules.rulesets.scipy.linalg  # noqa: F401  (the rules)
from chainrules.ad._namespace import populate_from_library

__all__ = populate_from_library(_sl, globals())
