"""Rules for Python's scalar functions (ChainRules' `rulesets/Base/`): the
ones that are not a row of the C scalar table (`_core/scalar_table.pxi`)
because they take any number of arguments or a sequence (hypot, dist, fsum,
prod, sum, max, min), return several outputs (modf, frexp, divmod, polar) or
are not holomorphic (abs, phase on complex numbers), one module per module
differentiated (`math`, `cmath`, `builtins`), and the non-differentiable
functions as data (`nondiff`).  ChainRules' conventions: `fastmath_able.jl`
and `base.jl`.

Each rule handles numbers only and declines (returns None) for anything
else, so that other rules (the NumPy array rules) or the AD itself can take
over.  Sequences are lists, tuples or 1-d NumPy arrays of numbers; their
cotangents are projected onto them (`Tangent[list]`, `Tangent[tuple]`, an
array).  Keyword arguments never receive tangents.
"""

from chainrules.rulesets.python import nondiff  # noqa: F401
from chainrules.rulesets.python import math  # noqa: F401
from chainrules.rulesets.python import cmath  # noqa: F401
from chainrules.rulesets.python import builtins  # noqa: F401
