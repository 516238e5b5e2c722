"""chainrules.ad.cmath: the `cmath` module, differentiable.

Every function of `cmath` is here, wrapped with `chainrules.ad.wrap`: on plain
numbers it is the `cmath` function; on values tracked by chainrules.ad it is
differentiated by its rule.
Constants (`pi`, `e`, `inf`, …) are those of `cmath`.  Write differentiable
code with it as with `cmath`::

    from chainrules.ad import cmath
    def foo(x):
        return cmath.exp(1j * x)
"""

import cmath as _math

from chainrules._core import Wrapped as _Wrapped

__all__ = []
for _name in dir(_math):
    if _name.startswith("_"):
        continue
    _value = getattr(_math, _name)
    globals()[_name] = _Wrapped(_value) if callable(_value) else _value
    __all__.append(_name)
del _name, _value
