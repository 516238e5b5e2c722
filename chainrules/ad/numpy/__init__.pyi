# chainrules.ad.numpy is NumPy (filled at import time, which a type checker cannot follow);
# its `array`, `asarray`, `asanyarray`, `r_` and `c_` also take lists of tracked values,
# which stand for NumPy's numbers and arrays: code written with it is typed as NumPy code.
# (NumPy 2.0's stubs declare `__all__` without its names, so the star import brings
# nothing there: the module's other names are then typed Any.)
from typing import Any

from numpy import *

def __getattr__(name: str) -> Any: ...
