"""The rule sets, one module per domain; importing this package registers them.

The scalar rules of math, cmath, operator and the builtins are rows of the C
table in `chainrules._core`; the modules here hold the rules written in Python.
"""

from chainrules.rulesets import nondiff  # noqa: E402,F401
from chainrules.rulesets import python_scalars  # noqa: E402,F401
from chainrules.rulesets import numpy_ufuncs  # noqa: E402,F401
from chainrules.rulesets import numpy_reductions  # noqa: E402,F401
from chainrules.rulesets import numpy_shapes  # noqa: E402,F401
from chainrules.rulesets import higher_order  # noqa: E402,F401
