# chainrules.ad.numpy is NumPy (filled at import time, which a type checker cannot follow)
# with `array`, `asarray`, `asanyarray`, `r_` and `c_` that also take lists of tracked values.
from typing import Any

from numpy import *

def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",
          subok: bool = False, ndmin: int = 0, like: Any = None) -> Any: ...
def asarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> Any: ...
def asanyarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> Any: ...

class _Concatenator:
    def __getitem__(self, key: Any) -> Any: ...

r_: _Concatenator
c_: _Concatenator
__all__: list[str]
