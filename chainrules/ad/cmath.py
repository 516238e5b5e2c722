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

import cmath as _cmath

from chainrules.ad._tracing import populate_dropin as _populate_dropin

__all__ = _populate_dropin(globals(), _cmath)
