"""The NumPy rules registered for ndarray arguments also serve the values
`chainrules.ad` tracks (`Tracked`: a rule evaluated inside a
differentiation, at order 2 and beyond) when those hold NumPy arrays or
numbers; tracked values of another library (a torch tensor, a strict array)
are declined (the rule returns None), for the engine's own handling or that
library's rules."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import Tracked, register_frule, register_rrule
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import named_rule

ARRAYS = (np.ndarray, Tracked)


def numpy_inside(args: Any) -> bool:
    """Whether the tracked values among `args` hold NumPy arrays or numbers."""
    for a in args:
        if isinstance(a, Tracked):
            while isinstance(a, Tracked):
                a = a.primal
            if not isinstance(a, (np.ndarray, np.generic, int, float, complex)):
                return False
    return True


def on_tracked(name: str, fr: Any, rr: Any) -> Any:
    """fr, rr for arguments tracked by chainrules.ad: NumPy's inside, else None."""
    def tracked_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        return fr(tangents, *args, **kwargs) if numpy_inside(args) else None

    def tracked_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        return rr(*args, **kwargs) if numpy_inside(args) else None
    return named_rule(tracked_frule, name), named_rule(tracked_rrule, name)


def register_for_arrays(f: Any, fr: Any, rr: Any, *rest: Any, either: Any = True, arrays: Any = ARRAYS, name: str | None = None) -> None:
    """fr, rr registered for f where the first argument (with `rest` =
    (object,) and `either`, or the second) is an ndarray or a tracked NumPy
    value; `rest` types the other arguments (`...`: any number)."""
    name = name or getattr(f, "__name__", "op").strip("_")
    for a in arrays:
        ffr, rrr = (fr, rr) if a is np.ndarray else on_tracked(name, fr, rr)
        register_frule(f, a, *rest)(ffr)
        register_rrule(f, a, *rest)(rrr)
        if rest and either:
            register_frule(f, *rest, a)(ffr)
            register_rrule(f, *rest, a)(rrr)
