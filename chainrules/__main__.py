"""`python -m chainrules`: the seed example (docs/introduction.md), worked and printed."""

import math
import operator
from typing import TypeVar

from chainrules import ZeroTangent, ad, frule, rrule
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm

_R = TypeVar("_R")


def foo(x: float) -> float:
    """The seed's function, written with plain math (for finite differences)."""
    return math.asin(0.2 + math.sin(x))


def foo_ad(x: float) -> float:
    """The same function for the reference ADs: the drop-in math namespace
    differentiates tracked values (plain math.sin would raise on them)."""
    return admath.asin(0.2 + admath.sin(x))


def found(result: _R | None) -> _R:
    """frule and rrule return None for a function without a rule; every function
    of the seed has one."""
    if result is None:
        raise LookupError("python -m chainrules: a rule of the seed example is missing")
    return result


def rrule_chain(x: float) -> float:
    a, a_pb = found(rrule(math.sin, x))
    b, b_pb = found(rrule(operator.add, 0.2, a))
    c, c_pb = found(rrule(math.asin, b))
    _, b̄ = c_pb(1)
    _, _, ā = b_pb(b̄)
    _, x̄ = a_pb(ā)
    return float(x̄)


def frule_chain(x: float) -> float:
    nofields = ZeroTangent()
    a, ȧ = found(frule((nofields, 1), math.sin, x))
    b, ḃ = found(frule((nofields, ZeroTangent(), ȧ), operator.add, 0.2, a))
    c, ċ = found(frule((nofields, ḃ), math.asin, b))
    return float(ċ)


def main() -> None:
    x = 3
    print("chainrules: the seed example, foo(x) = asin(0.2 + sin(x)) at x = 3")
    print(f"  rrule chain (reverse, by hand):  {rrule_chain(x)!r}")
    print(f"  frule chain (forward, by hand):  {frule_chain(x)!r}")
    print(f"  central_fdm(5, 1)(foo, 3):       {central_fdm(5, 1)(foo, x)!r}")
    print(f"  forward AD (ad.derivative):      {ad.derivative(foo_ad, x)!r}")
    print(f"  reverse AD (ad.gradient):        {ad.gradient(foo_ad, x)!r}")


if __name__ == "__main__":
    main()
