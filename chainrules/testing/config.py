"""TestConfig: the RuleConfig of the testers.

It claims both AD modes; `rrule_via_ad`/`frule_via_ad` use the rules that
exist (called with this config, so config rules apply recursively) and fall
back to finite differences for functions without a rule, so that higher-order
rules (`map`, `sum(f, xs)`, `functools.reduce`…) can be tested without an AD.
"""

from typing import Any, Callable

from chainrules import NoTangent, RuleConfig, frule, rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.finite_differences import FiniteDifferenceMethod
from chainrules.testing.finite_difference_calls import DEFAULT_FDM
from chainrules.testing.rand_tangent import rand_tangent
from chainrules.finite_differences import jvp, vjp

__all__ = ["TestConfig"]


class TestConfig(RuleConfig):
    """TestConfig(fdm=None)

    A `RuleConfig` with `has_reverse_mode` and `has_forward_mode`.
    `config.rrule_via_ad(f, *args)` is `rrule(config, f, *args)` when a rule
    exists, otherwise `(f(*args), pullback)` with the pullback computed by
    finite differences (`fdm`, default `central_fdm(5, 1, max_range=1e-2)`);
    `frule_via_ad` likewise.  Pass it first to the testers to test a rule
    registered with `config=...`: `test_rrule(TestConfig(), map, f, xs)`.
    Arguments without a tangent space (ints, bools, strings…) get NoTangent()."""

    __test__ = False  # pytest: not a test class
    has_reverse_mode = True
    has_forward_mode = True

    def __init__(self, fdm: FiniteDifferenceMethod | None = None) -> None:
        self.fdm = DEFAULT_FDM if fdm is None else fdm

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        res = rrule(self, f, *args, **kwargs)
        if res is not None:
            return res
        y = f(*args, **kwargs)
        fdm = self.fdm
        differentiable_self = not isinstance(rand_tangent(f), NoTangent)

        def fd_pullback(ybar: Any) -> Any:
            ybar = unthunk(ybar)
            if differentiable_self:
                return vjp(fdm, lambda g, *xs: g(*xs, **kwargs), ybar, f, *args)
            return (NoTangent(),) + vjp(fdm, lambda *xs: f(*xs, **kwargs), ybar, *args)

        return y, fd_pullback

    def frule_via_ad(self, tangents: tuple[Any, ...] | list[Any], f: Callable[..., Any], *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:
        res = frule(self, tangents, f, *args, **kwargs)
        if res is not None:
            return res
        tangents = tuple(tangents)
        if len(tangents) != len(args) + 1:
            raise ValueError(f"frule_via_ad: expected {len(args) + 1} tangents (Δself and one per "
                             f"argument), got {len(tangents)}")
        y = f(*args, **kwargs)
        if isinstance(rand_tangent(f), NoTangent) or isinstance(tangents[0], NoTangent):
            pairs = [(x, dx) for x, dx in zip(args, tangents[1:])]
            return y, jvp(self.fdm, lambda *xs: f(*xs, **kwargs), *pairs)
        pairs = [(x, dx) for x, dx in zip((f,) + args, tangents)]
        return y, jvp(self.fdm, lambda g, *xs: g(*xs, **kwargs), *pairs)

    def __repr__(self) -> str:
        return "TestConfig()"
