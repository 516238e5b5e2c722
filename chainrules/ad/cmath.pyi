# chainrules.ad.cmath is the `cmath` module with its functions wrapped for the AD engines
# (filled at import time, which a type checker cannot follow): same names, same
# signatures.  Code written with it is typed as code written with `cmath` (inside a
# differentiation the numbers are tracked values that stand for numbers).
from cmath import *

__all__: list[str]
