"""NumPy's own functions on values tracked by chainrules.ad: the array-API
rule bodies, for the functions whose NumPy rule cannot take tracked values.

A rule evaluated inside a nested differentiation (a Hessian, a derivative of
a derivative) receives values tracked by the enclosing differentiation.  The
NumPy rules written with operators and NumPy functions on their arguments
take them as they are, and the enclosing differentiation differentiates the
rule; those that convert with `np.asarray` or call compiled code on the
arrays cannot.  For those, the rule body of this package, which computes
with `xp = namespace(x)` (NumPy itself for a tracked NumPy value, whose
functions reach the engines through `__array_function__`), is registered on
the NumPy function where an argument is tracked: more specific than the
NumPy rule, it is the one found; plain ndarrays keep the NumPy rules and
their compiled fast paths.

The NumPy names and signatures read by the bodies: np.sort(a, axis, kind,
order) (a stable sort: `kind` does not change the derivative), np.clip(a,
a_min, a_max), np.take(a, indices, axis); an option the body does not know is a TypeError naming it.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import register_frule, register_rrule
from chainrules._xp import through_engines
from chainrules.rulesets._arrays import named_rule
from chainrules.rulesets.array_api import shapes

__all__ = ["register_numpy_on_tracked", "NUMPY_FUNCTIONS"]

# NumPy function -> (its array-API rule factory, the body's name, how many array arguments)
NUMPY_FUNCTIONS: dict[Any, Any] = {
    np.sort: (shapes.sort_rules, "sort", 1),
    np.clip: (shapes.clip_rules, "clip", 1),
    np.take: (shapes.take_rules, "take", 1),
}

_DONE: set[Any] = set()


def _signatures(t: Any, arrays: Any) -> Any:
    """The argument types for which the rule is registered: the tracked type
    at each array argument, anything elsewhere."""
    if arrays == 1:
        return [(t,)]
    return [(t, object), (object, t)]


def register_numpy_on_tracked(*tracked_types: type) -> None:
    """Register the array-API rule bodies for NumPy's functions of
    `NUMPY_FUNCTIONS` where an array argument is one of `tracked_types`
    (chainrules.ad's Dual and Var)."""
    for f, (factory, name, arrays) in NUMPY_FUNCTIONS.items():
        frule, rrule = factory(through_engines(f), name)
        frule, rrule = named_rule(frule, name), named_rule(rrule, name)
        for t in tracked_types:
            if (f, t) in _DONE:
                continue
            _DONE.add((f, t))
            for types in _signatures(t, arrays):
                # the options after the arrays are any number of positional arguments
                for extra in range(4):
                    register_frule(f, *types, *(object,) * extra)(frule)
                    register_rrule(f, *types, *(object,) * extra)(rrule)
