# chainrules.ad.math is the `math` module with its functions wrapped for the AD engines
# (filled at import time, which a type checker cannot follow): same names, same
# signatures.  Code written with it is typed as code written with `math` (inside a
# differentiation the numbers are tracked values that stand for floats).
from math import *

__all__: list[str]
