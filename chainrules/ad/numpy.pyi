# chainrules.ad.numpy is NumPy (filled at import time, which a type checker cannot follow);
# its `array`, `asarray`, `asanyarray`, `r_` and `c_` also take lists of tracked values,
# which stand for NumPy's numbers and arrays: code written with it is typed as NumPy code.
from numpy import *

__all__: list[str]
