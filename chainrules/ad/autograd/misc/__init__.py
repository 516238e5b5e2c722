"""chainrules.ad.autograd.misc: autograd.misc's helpers (a drop-in).

- `flatten(value)`: a nesting of tuples, lists and dicts holding arrays or
  numbers as one 1-D array, and the function that rebuilds the nesting from
  such an array (`chainrules.ad.autograd.misc.flatten`);
- `optimizers`: `sgd`, `rmsprop`, `adam` over such nestings;
- `fixed_points.fixed_point(f, a, x0, distance, tol)`: the fixed point of
  f(a), differentiable in a by the implicit function theorem.

`autograd.misc.tracers.const_graph` (a cache of autograd's own traces) has
no counterpart: chainrules.ad.compile is the way to reuse a trace.
"""

from chainrules.ad.autograd.misc import fixed_points, optimizers
from chainrules.ad.autograd.misc.flatten import flatten, flatten_func

__all__ = ["flatten", "flatten_func", "optimizers", "fixed_points"]
