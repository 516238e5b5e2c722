"""The shapes of rules and pullbacks, as `typing.Protocol`s (for annotations only).

- `Pullback`: what an rrule returns next to Ω; `pullback(ΔΩ)` returns a tuple
  of cotangents, `(∂self, ∂x1, …, ∂xn)`.
- `FruleFunction`: a hand-written frule as `register_frule` takes it,
  `(tangents, *args, **kwargs) -> (Ω, ΔΩ) | None` (a config rule takes the
  `RuleConfig` first).
- `RruleFunction`: a hand-written rrule as `register_rrule` takes it,
  `(*args, **kwargs) -> (Ω, pullback) | None` (a config rule takes the
  `RuleConfig` first).

Any function of that shape satisfies them; nothing subclasses them::

    >>> import math
    >>> import chainrules as cr
    >>> def sin_pullback(ȳ: float) -> tuple[cr.NoTangent, float]:
    ...     return cr.NoTangent(), ȳ * math.cos(0.5)
    >>> pb: cr.Pullback = sin_pullback
    >>> pb(1.0)
    (NoTangent(), 0.8775825618903728)
"""

from typing import Any, Protocol

__all__ = ["Pullback", "FruleFunction", "RruleFunction"]


class Pullback(Protocol):
    """`pullback(ΔΩ) -> (∂self, ∂x1, …, ∂xn)`: one cotangent for f and one per
    positional argument of the call whose rrule returned it."""

    def __call__(self, ȳ: Any, /) -> tuple[Any, ...]: ...


class FruleFunction(Protocol):
    """A hand-written frule: `rule(tangents, *args, **kwargs) -> (Ω, ΔΩ)`, or
    `None` to decline (the arguments are those of the call, the tangents one
    per argument plus one for f); `rule(config, tangents, *args)` for a rule
    registered with `config=`."""

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None: ...


class RruleFunction(Protocol):
    """A hand-written rrule: `rule(*args, **kwargs) -> (Ω, pullback)`, or
    `None` to decline; `rule(config, *args)` for a rule registered with
    `config=`."""

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None: ...
