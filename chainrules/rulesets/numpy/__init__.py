"""Rules for NumPy (ChainRules' `rulesets/Base/` and `LinearAlgebra/` for
arrays), one module per family of functions differentiated: element-wise
(`ufuncs`, `ufuncs_by_hand`, `ufuncs_binary`), reductions (`reductions`, `averages`,
`cumulative`), shapes and indexing (`standard_shapes`: the array-API bodies on NumPy's
functions; `shapes`, `padding`, `joining`, `indexing`), linear algebra (`linalg/`), FFT (`fft`), statistics
(`statistics`, `covariance`).  Importing this package registers them, in this order.
"""

from chainrules.rulesets.numpy import ufuncs  # noqa: F401
from chainrules.rulesets.numpy import ufuncs_binary  # noqa: F401
from chainrules.rulesets.numpy import reductions  # noqa: F401
from chainrules.rulesets.numpy import averages  # noqa: F401
from chainrules.rulesets.numpy import cumulative  # noqa: F401
from chainrules.rulesets.numpy import shapes  # noqa: F401
from chainrules.rulesets.numpy import padding  # noqa: F401
from chainrules.rulesets.numpy import joining  # noqa: F401
from chainrules.rulesets.numpy import indexing  # noqa: F401
from chainrules.rulesets.numpy import standard_shapes  # noqa: F401
from chainrules.rulesets.numpy import linalg  # noqa: F401
from chainrules.rulesets.numpy import fft  # noqa: F401
from chainrules.rulesets.numpy import statistics  # noqa: F401
from chainrules.rulesets.numpy import covariance  # noqa: F401
from chainrules.rulesets.numpy import convolution  # noqa: F401
from chainrules.rulesets.numpy import gathers  # noqa: F401
from chainrules.rulesets.numpy import polynomials  # noqa: F401
from chainrules.rulesets.numpy import sequences  # noqa: F401
from chainrules.rulesets.numpy import calculus  # noqa: F401
from chainrules.rulesets.numpy import piecewise  # noqa: F401
