"""chainrules.ad.autograd.misc: autograd.misc's helpers (a drop-in).

- `flatten(value)`: a nesting of tuples, lists and dicts holding arrays or
  numbers as one 1-D array, and the function that rebuilds the nesting from
  such an array (`chainrules.ad.autograd.misc.flatten`);
- `optimizers`: `sgd`, `rmsprop`, `adam` over such nestings;
- `fixed_points.fixed_point(f, a, x0, distance, tol)`: the fixed point of
  f(a), differentiable in a by the implicit function theorem.

- `const_graph(fun, *args, **kwargs)`: autograd's, with the same values:
  fun with its leading arguments bound.  autograd's caches its own trace of
  fun to evaluate it faster; chainrules.ad evaluates without a trace, so each
  call runs fun (and can be differentiated, which autograd's cached
  evaluation cannot); `chainrules.ad.compile` is the way to reuse a trace
  of a derivative.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from chainrules.ad.autograd.misc import fixed_points, optimizers
from chainrules.ad.autograd.misc.flatten import flatten, flatten_func

__all__ = ["flatten", "flatten_func", "optimizers", "fixed_points", "const_graph"]


def const_graph(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """autograd.misc.const_graph: fun with the leading arguments `args` and the
    keyword arguments bound, called with the rest (see the module docstring)."""
    bound = functools.partial(fun, *args, **kwargs)

    @functools.wraps(fun)
    def const_graph_fun(*rest: Any) -> Any:
        return bound(*rest)
    return const_graph_fun
