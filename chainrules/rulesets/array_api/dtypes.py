"""The rule of the array API standard's `astype` (any array library): a cast
is linear; its tangent is the cast tangent and its cotangent is cast back to
the argument's dtype (the real part for a real argument).  A cast to an
integer or boolean dtype has no tangent."""

import numpy as np

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


def _inexact(xp, dtype):
    return xp.isdtype(dtype, ("real floating", "complex floating"))


def _cast(f, x, dtype, args, kwargs):
    """The primal f(x, dtype, ...); a NumPy scalar cast by its own .astype
    (NumPy 2.0's np.astype refuses scalars; later ones give the same scalar)."""
    if isinstance(x, np.generic) and not args and not kwargs:
        return x.astype(dtype)
    return f(x, dtype, *args, **kwargs)


def astype_rules(f, name="astype"):
    def astype_frule(tangents, x, dtype, *args, **kwargs):
        Ω = _cast(f, x, dtype, args, kwargs)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind or not _inexact(xp, Ω.dtype):
            return Ω, ZERO
        Δx = xp.broadcast_to(Δx, tuple(x.shape))
        if is_complex(xp, Δx) and not is_complex(xp, Ω):
            Δx = xp.real(Δx)
        return Ω, astype(xp, Δx, Ω.dtype)

    def astype_rrule(x, dtype, *args, **kwargs):
        Ω = _cast(f, x, dtype, args, kwargs)
        xp = namespace(x)
        project = Projector(xp, x)
        rest = (NO,) * (1 + len(args))
        if not project.kind or not _inexact(xp, Ω.dtype):
            zero = ZERO if project.kind else NO

            def astype_zero_pullback(ȳ):
                return (NO, zero) + rest
            return Ω, astype_zero_pullback

        def astype_pullback(ȳ):
            ȳ = as_seed(xp, ȳ, name, Ω)
            if is_zero(ȳ):
                return (NO, ZERO) + rest
            return (NO, project(ȳ)) + rest
        return Ω, astype_pullback
    return astype_frule, astype_rrule


TABLE = {"astype": astype_rules}


def register(functions):
    """Register `astype`'s rules on the function of that name in `functions`."""
    return register_table(TABLE, functions)


def _register_numpy():
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
