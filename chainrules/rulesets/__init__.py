"""The rule sets, one module per domain; importing this package registers them.

The scalar rules of math, cmath, operator and the builtins are rows of the C
table in `chainrules._core`; the modules here hold the rules written in Python.
`scipy_special` is imported only when SciPy is installed.
"""

import importlib.util as _importlib_util

from chainrules.rulesets import nondiff  # noqa: E402,F401
from chainrules.rulesets import python_scalars  # noqa: E402,F401
from chainrules.rulesets import numpy_ufuncs  # noqa: E402,F401
from chainrules.rulesets import numpy_reductions  # noqa: E402,F401
from chainrules.rulesets import numpy_shapes  # noqa: E402,F401
from chainrules.rulesets import numpy_linalg  # noqa: E402,F401
from chainrules.rulesets import numpy_fft  # noqa: E402,F401
from chainrules.rulesets import numpy_statistics  # noqa: E402,F401
from chainrules.rulesets import higher_order  # noqa: E402,F401

if _importlib_util.find_spec("scipy") is not None:
    from chainrules.rulesets import scipy_special  # noqa: E402,F401
