"""`checkpoint(f)`: gradient checkpointing (rematerialisation) for the
reverse engines.  Memory for time: the reverse pass of a checkpointed call
keeps its inputs and output only, and recomputes f's intermediate values when
the backward pass reaches it.

How: calling the checkpointed function on tracked values calls
`_checkpoint_call(f, *args)` through the engines, whose rules are below.  Its
rrule runs f on the plain values (no tape: the intermediates are freed as the
forward pass goes) and its pullback differentiates f then, with the engine's
`rrule_via_ad`, on a tape of its own that lives until the pullback returns.
A closure over tracked values is an argument of `_checkpoint_call` like any
other: the engine hands the rule a copy holding the plain values and routes
the cotangent of f (a `Tangent` of its closure) back to them.  Any engine with
reverse mode runs the rule, through its config.  Forward mode keeps no
intermediates: its rule is f's own pushforward (`frule_via_ad`).  Nested
differentiation (an `hvp` through a checkpointed function) recomputes on the
enclosing differentiation's tracked values.  `ad.compile` records the call as a
step (f, a function holding no traced value, is one of its constants) and
recomputes on every replay.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from chainrules._core import NoTangent, Wrapped, frule_via_ad, register_frule, register_rrule, rrule_via_ad
from chainrules._protocols import Pullback

__all__ = ["checkpoint"]

_F = TypeVar("_F", bound=Callable[..., Any])
NO = NoTangent()


def _checkpoint_call(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """f(*args, **kwargs), differentiated by recomputation (see the module)."""
    return f(*args, **kwargs)


_CALL = Wrapped(_checkpoint_call)


@register_rrule(_checkpoint_call, config="reverse")
def _checkpoint_call_rrule(config: Any, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    Ω = f(*args, **kwargs)

    def checkpoint_pullback(ȳ: Any) -> tuple[Any, ...]:
        # the recomputation: f on a tape of the engine's, freed when this returns
        _, pullback = rrule_via_ad(config, f, *args, **kwargs)
        return (NO,) + tuple(pullback(ȳ))
    return Ω, checkpoint_pullback


@register_frule(_checkpoint_call, config="forward")
def _checkpoint_call_frule(config: Any, tangents: Any, f: Callable[..., Any], *args: Any,
                           **kwargs: Any) -> tuple[Any, Any]:
    return frule_via_ad(config, tuple(tangents)[1:], f, *args, **kwargs)


def checkpoint(f: _F) -> _F:
    """checkpoint(f) -> f whose intermediate values reverse mode does not keep:
    the backward pass recomputes them when it reaches the call (memory for
    time; `jax.checkpoint`, `torch.utils.checkpoint`, autograd's `checkpoint`).
    Values and derivatives are f's, to every order.  f may close over values
    being differentiated.  A decorator too::

        >>> import numpy as np
        >>> from chainrules import ad
        >>> @ad.checkpoint
        ... def layer(x):
        ...     return np.tanh(np.tanh(x) * 2.0)
        >>> ad.gradient(lambda x: np.sum(layer(layer(x))), np.array([0.1, 0.2]))
        array([3.16171637, 1.78776352])

    A chain of checkpointed segments keeps one segment's intermediates at a
    time in the backward pass, instead of all of them."""
    if not callable(f):
        raise TypeError(f"checkpoint: f must be callable, got {type(f).__name__}")

    @functools.wraps(f)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        return _CALL(f, *args, **kwargs)
    return checkpointed  # type: ignore[return-value]  # f's signature, kept by functools.wraps
