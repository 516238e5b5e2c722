"""`checkpoint(f)`: gradient checkpointing (rematerialisation) for the
reverse engines.  Memory for time: the reverse pass of a checkpointed call
keeps its inputs and output only, and recomputes f's intermediate values when
the backward pass reaches it.

How: calling the checkpointed function on tracked values calls
`_checkpoint_call(preserve_rng_state, f, *args)` through the engines, whose
rules are below.  Its rrule runs f on the plain values (no tape: the intermediates are freed as the
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

Randomness: the recomputation must draw the numbers the forward pass drew (a
checkpointed dropout's mask), so the rrule keeps the state of NumPy's global
generator and of `random`'s when f first runs, and the pullback runs the
recomputation from those states, then puts back the states it found (as
`torch.utils.checkpoint(..., preserve_rng_state=True)` does for PyTorch's
generators).  A generator that f reaches by itself (an `np.random.Generator`
object, a `random.Random` instance, another library's) is f's own state: it
is not saved, and a recomputation draws from it anew.
"""

from __future__ import annotations

import contextlib
import functools
import random
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from chainrules._core import NoTangent, Wrapped, frule_via_ad, register_frule, register_rrule, rrule_via_ad
from chainrules._protocols import Pullback

__all__ = ["checkpoint"]

_F = TypeVar("_F", bound=Callable[..., Any])
NO = NoTangent()


def _checkpoint_call(preserve_rng_state: bool, f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """f(*args, **kwargs), differentiated by recomputation (see the module)."""
    return f(*args, **kwargs)


_CALL = Wrapped(_checkpoint_call)
_RngStates = tuple[Any, Any]


def _rng_states() -> _RngStates:
    """The states of the generators a recomputation replays: NumPy's global
    one (np.random.rand, np.random.seed…) and `random`'s."""
    return np.random.get_state(), random.getstate()


@contextlib.contextmanager
def _replaying(states: _RngStates | None) -> Iterator[None]:
    """Run the block from the generators' states `states` (None: as they
    are), and give them back the states they had before it."""
    if states is None:
        yield
        return
    found = _rng_states()
    np.random.set_state(states[0])
    random.setstate(states[1])
    try:
        yield
    finally:
        np.random.set_state(found[0])
        random.setstate(found[1])


@register_rrule(_checkpoint_call, config="reverse")
def _checkpoint_call_rrule(config: Any, preserve_rng_state: bool, f: Callable[..., Any], *args: Any,
                           **kwargs: Any) -> tuple[Any, Pullback]:
    states = _rng_states() if preserve_rng_state else None
    Ω = f(*args, **kwargs)

    def checkpoint_pullback(ȳ: Any) -> tuple[Any, ...]:
        # the recomputation: f on a tape of the engine's, freed when this returns,
        # drawing the random numbers the forward pass drew
        with _replaying(states):
            _, pullback = rrule_via_ad(config, f, *args, **kwargs)
        return (NO, NO) + tuple(pullback(ȳ))
    return Ω, checkpoint_pullback


@register_frule(_checkpoint_call, config="forward")
def _checkpoint_call_frule(config: Any, tangents: Any, preserve_rng_state: bool, f: Callable[..., Any],
                           *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    return frule_via_ad(config, tuple(tangents)[2:], f, *args, **kwargs)


def checkpoint(f: _F, *, preserve_rng_state: bool = True) -> _F:
    """checkpoint(f, *, preserve_rng_state=True) -> f whose intermediate values
    reverse mode does not keep: the backward pass recomputes them when it
    reaches the call (memory for time; `jax.checkpoint`,
    `torch.utils.checkpoint`, autograd's `checkpoint`).  Values and
    derivatives are f's, to every order.  f may close over values being
    differentiated.  A decorator too::

        >>> import numpy as np
        >>> from chainrules import ad
        >>> @ad.checkpoint
        ... def layer(x):
        ...     return np.tanh(np.tanh(x) * 2.0)
        >>> ad.gradient(lambda x: np.sum(layer(layer(x))), np.array([0.1, 0.2]))
        array([3.16171637, 1.78776352])

    A chain of checkpointed segments keeps one segment's intermediates at a
    time in the backward pass, instead of all of them.

    Randomness: with `preserve_rng_state=True` (the default, as in
    `torch.utils.checkpoint`), the recomputation draws the numbers f drew in
    the forward pass from NumPy's global generator (`np.random.rand`,
    `np.random.binomial`…) and from `random`'s, so a checkpointed dropout
    keeps its mask, and the generators are left as the backward pass found
    them.  Not covered: a generator object that f holds or is given
    (`np.random.default_rng()`, `random.Random()`, another library's): its
    state is f's, and a recomputation draws new numbers from it (pass the
    mask or the seed as an argument instead).  `preserve_rng_state=False`
    skips saving the states (a few µs per call) for an f that draws nothing.

    See also: `chainrules.ad.autograd.checkpoint`."""
    if not callable(f):
        raise TypeError(f"checkpoint: f must be callable, got {type(f).__name__}")
    if type(preserve_rng_state) is not bool:
        raise TypeError(f"checkpoint: preserve_rng_state must be True or False, got "
                        f"{type(preserve_rng_state).__name__}")

    @functools.wraps(f)
    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        return _CALL(preserve_rng_state, f, *args, **kwargs)
    return checkpointed  # type: ignore[return-value]  # f's signature, kept by functools.wraps
