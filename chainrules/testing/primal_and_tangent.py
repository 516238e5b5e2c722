"""PrimalAndTangent: an argument given together with its tangent (ChainRulesTestUtils' `x ⊢ ẋ`)."""

from typing import Any, Iterator

from chainrules import NoTangent

__all__ = ["PrimalAndTangent"]


class PrimalAndTangent:
    """PrimalAndTangent(x, ẋ)

    An argument of a tester given with its tangent: `ẋ` is the tangent fed to
    the frule and the accumulator of the `add_inplace` check of the rrule.
    `PrimalAndTangent(x, NoTangent())` marks x as non-differentiable: the rule
    must return `NoTangent()` for it, and finite differences hold it fixed.
    A Python int given with a float tangent is differentiated as a real number.

    Example::

        test_rrule(getindex, xs, PrimalAndTangent(2, NoTangent()))
        test_frule(math.sin, PrimalAndTangent(1.0, -0.5))
    """

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: Any, tangent: Any) -> None:
        self.primal = primal
        self.tangent = tangent

    @property
    def non_differentiable(self) -> bool:
        return isinstance(self.tangent, NoTangent)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.primal, self.tangent))

    def __repr__(self) -> str:
        return f"PrimalAndTangent({self.primal!r}, {self.tangent!r})"
