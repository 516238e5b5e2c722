"""The finite difference calls of the testers: the jvp and vjp of `f` with
respect to the differentiable arguments only, the others held fixed.

`f` itself counts as argument 0 (a callable object with fields is
differentiated through its fields, giving ∂self); keyword arguments are fixed.
"""

import collections.abc
import copy
import dataclasses
from typing import Any

import numpy as np

from chainrules.finite_differences import central_fdm, jvp, vjp

__all__ = ["DEFAULT_FDM", "fd_jvp", "fd_vjp", "materialize"]

#: ChainRulesTestUtils' choice: 5 points, and never evaluate further than 1e-2
#: from the primal (keeps the evaluations inside the domain of most functions).
DEFAULT_FDM = central_fdm(5, 1, max_range=1e-2)


def promote(x: Any) -> Any:
    """x with every float16/float32/complex64 value raised to double precision.

    The finite differences of the testers run in double precision: moving a
    float32 input by a step of 1e-3 rounds the step itself to a relative 1e-4,
    an error larger than any tolerance a float32 rule can be held to.  The
    rule is still run, and judged, in its own precision."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f" and x.dtype.itemsize < 8:
            return x.astype(np.float64)
        if x.dtype.kind == "c" and x.dtype.itemsize < 16:
            return x.astype(np.complex128)
        return x
    if isinstance(x, np.floating) and x.dtype.itemsize < 8:
        return np.float64(x)
    if isinstance(x, np.complexfloating) and x.dtype.itemsize < 16:
        return np.complex128(x)
    if isinstance(x, tuple):
        vals = [promote(v) for v in x]
        if all(a is b for a, b in zip(vals, x)):
            return x
        return type(x)(*vals) if hasattr(type(x), "_fields") else type(x)(vals)
    if isinstance(x, list):
        return [promote(v) for v in x]
    if type(x) is dict:
        return {k: promote(v) for k, v in x.items()}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        changed = {f.name: promote(getattr(x, f.name)) for f in dataclasses.fields(x)}
        if all(changed[k] is getattr(x, k) for k in changed):
            return x
        out = copy.copy(x)
        for k, v in changed.items():
            object.__setattr__(out, k, v)
        return out
    return x


def materialize(y: Any) -> Any:
    """The output of a primal as the testers compare and differentiate it: a
    one-shot iterator (what `map`, `itertools.accumulate`, generators return)
    becomes the list of its elements, everything else is kept.

    A rule for such a function computes the elements eagerly (its pullback
    needs every call) and returns them as a list, with a list as tangent, so
    the testers compare that list with the elements the primal's iterator
    yields (see `chainrules.rulesets.higher_order`)."""
    if isinstance(y, collections.abc.Iterator) and not isinstance(y, (np.ndarray, np.generic)):
        return list(y)
    return y


def _partial(f: Any, fkwargs: Any, primals: Any, active: Any) -> Any:
    """g(*active primals) = f(*all primals, **fkwargs); primals[0] is f itself."""
    fixed = list(primals)

    def call(*vals: Any) -> Any:
        full = list(fixed)
        for i, v in zip(active, vals):
            full[i] = v
        return materialize(full[0](*full[1:], **fkwargs))

    return call


def fd_jvp(fdm: Any, f: Any, fkwargs: Any, primals: Any, tangents: Any, active: Any) -> Any:
    """ΔΩ by finite differences; `primals`/`tangents` start with f and its
    tangent, `active` lists the indices that are perturbed."""
    primals = [promote(x) for x in primals]
    g = _partial(f, fkwargs, primals, active)
    return jvp(fdm, g, *[(primals[i], tangents[i]) for i in active])


def fd_vjp(fdm: Any, f: Any, fkwargs: Any, ybar: Any, primals: Any, active: Any) -> Any:
    """{index: cotangent} by finite differences for the indices in `active`."""
    primals = [promote(x) for x in primals]
    g = _partial(f, fkwargs, primals, active)
    cts = vjp(fdm, g, ybar, *[primals[i] for i in active])
    return dict(zip(active, cts))
