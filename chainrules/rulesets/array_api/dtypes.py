"""The rule of the array API standard's `astype` (any array library): a cast
is linear; its tangent is the cast tangent and its cotangent is cast back to
the argument's dtype (the real part for a real argument).  A cast to an
integer or boolean dtype has no tangent."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    as_seed,
    is_complex,
    is_zero,
    namespace,
    register_table,
)
from chainrules._xp import astype

__all__ = ["register", "TABLE"]


def _inexact(xp: Any, dtype: Any) -> Any:
    return xp.isdtype(dtype, ("real floating", "complex floating"))


def _cast(f: Any, x: Any, dtype: Any, args: Any, kwargs: Any) -> Any:
    """The primal f(x, dtype, ...); a NumPy scalar cast by its own .astype
    (NumPy 2.0's np.astype refuses scalars; later ones give the same scalar)."""
    if isinstance(x, np.generic) and not args and not kwargs:
        return x.astype(dtype)
    return f(x, dtype, *args, **kwargs)


def astype_rules(f: Any, name: str = "astype") -> Any:
    def astype_frule(tangents: Any, x: Any, dtype: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        Ω = _cast(f, x, dtype, args, kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind or not _inexact(xp, Ω.dtype):
            return Ω, ZERO
        Δx = xp.broadcast_to(Δx, tuple(x.shape))
        if is_complex(xp, Δx) and not is_complex(xp, Ω):
            Δx = xp.real(Δx)
        return Ω, astype(xp, Δx, Ω.dtype)

    def astype_rrule(x: Any, dtype: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        Ω = _cast(f, x, dtype, args, kwargs)
        xp = namespace(x)
        project = Projector(xp, x)
        rest = (NO,) * (1 + len(args))
        if not project.kind or not _inexact(xp, Ω.dtype):
            zero = ZERO if project.kind else NO

            def astype_zero_pullback(ȳ: Any) -> tuple[Any, ...]:
                return (NO, zero) + rest
            return Ω, astype_zero_pullback

        def astype_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ):
                return (NO, ZERO) + rest
            return (NO, project(ȳ)) + rest
        return Ω, astype_pullback
    return astype_frule, astype_rrule


TABLE = {"astype": astype_rules}


def register(functions: Any) -> Any:
    """Register `astype`'s rules on the function of that name in `functions`."""
    return register_table(TABLE, functions)


def _register_numpy() -> None:
    """NumPy >= 2.1's own np.astype (the rule bodies call it through
    `chainrules._xp.astype`): the same rule, registered at import."""
    import numpy as np
    from chainrules._core import register_frule, register_rrule
    from chainrules.rulesets._arrays import named_rule
    f = getattr(np, "astype", None)
    if f is not None:
        frule, rrule = astype_rules(f)
        register_frule(f)(named_rule(frule, "astype"))
        register_rrule(f)(named_rule(rrule, "astype"))


_register_numpy()
