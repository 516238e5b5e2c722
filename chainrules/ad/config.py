"""The RuleConfigs of the reference engines.

A rule registered with `config="forward"` (`"reverse"`) is called by the
forward (reverse) engine with its config first, and may call back into the
engine through `cr.frule_via_ad(config, tangents, f, *args)`
(`cr.rrule_via_ad(config, f, *args)`): that is how higher-order functions
(`map`, `functools.reduce`, …, see `chainrules.rulesets.higher_order`)
differentiate the function they are given.

Example::

    >>> import chainrules as cr
    >>> from chainrules.ad import ReverseConfig, math
    >>> y, pb = cr.rrule_via_ad(ReverseConfig(), lambda x: x * math.sin(x), 1.0)
    >>> pb(1.0)
    (NoTangent(), 1.3817732906760363)
"""

from typing import Any, Callable

from chainrules._core import RuleConfig
from chainrules._protocols import Pullback

__all__ = ["ForwardConfig", "ReverseConfig", "FORWARD", "REVERSE"]


class ForwardConfig(RuleConfig):
    """ForwardConfig(): the config of the forward engine (`has_forward_mode`);
    `frule_via_ad(tangents, f, *args)` runs f on dual numbers, or uses f's
    own frule when it has one."""
    has_forward_mode = True

    def frule_via_ad(self, tangents: tuple[Any, ...] | list[Any], f: Callable[..., Any], *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:
        from chainrules.ad.forward import frule_via_ad
        return frule_via_ad(tangents, f, args, kwargs)

    def __repr__(self) -> str:
        return "ForwardConfig()"


class ReverseConfig(RuleConfig):
    """ReverseConfig(): the config of the reverse engine (`has_reverse_mode`);
    `rrule_via_ad(f, *args)` runs f on a tape, or uses f's own rrule when it
    has one.  The pullback's ∂self is the tangent of f's closure variables."""
    has_reverse_mode = True

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        from chainrules.ad.reverse import rrule_via_ad
        return rrule_via_ad(f, args, kwargs)

    def __repr__(self) -> str:
        return "ReverseConfig()"


FORWARD = ForwardConfig()
REVERSE = ReverseConfig()
