"""chainrules.ad.math: the `math` module, differentiable.

Every function of `math` is here, wrapped with `chainrules.ad.wrap`: on plain
numbers it is the `math` function; on values tracked by chainrules.ad it is
differentiated by its rule (the C scalar table's kernels on real scalars).
Constants (`pi`, `e`, `inf`, …) are those of `math`.  Write differentiable
code with it as with `math`::

    from chainrules.ad import math
    def foo(x):
        return math.asin(0.2 + math.sin(x))
"""

import math as _math

from chainrules.ad._tracing import populate_dropin as _populate_dropin

__all__ = _populate_dropin(globals(), _math)
