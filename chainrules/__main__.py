"""`python -m chainrules`: the seed example (docs/introduction.md), worked and printed."""

import math
import operator

from chainrules import ZeroTangent, ad, frule, rrule
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm


def foo(x):
    """The seed's function, written with plain math (for finite differences)."""
    return math.asin(0.2 + math.sin(x))


def foo_ad(x):
    """The same function for the reference ADs: the drop-in math namespace
    differentiates tracked values (plain math.sin would raise on them)."""
    return admath.asin(0.2 + admath.sin(x))


def rrule_chain(x):
    a, a_pb = rrule(math.sin, x)
    b, b_pb = rrule(operator.add, 0.2, a)
    c, c_pb = rrule(math.asin, b)
    _, b̄ = c_pb(1)
    _, _, ā = b_pb(b̄)
    _, x̄ = a_pb(ā)
    return x̄


def frule_chain(x):
    nofields = ZeroTangent()
    a, ȧ = frule((nofields, 1), math.sin, x)
    b, ḃ = frule((nofields, ZeroTangent(), ȧ), operator.add, 0.2, a)
    c, ċ = frule((nofields, ḃ), math.asin, b)
    return ċ


def main():
    x = 3
    print("chainrules: the seed example, foo(x) = asin(0.2 + sin(x)) at x = 3")
    print(f"  rrule chain (reverse, by hand):  {rrule_chain(x)!r}")
    print(f"  frule chain (forward, by hand):  {frule_chain(x)!r}")
    print(f"  central_fdm(5, 1)(foo, 3):       {central_fdm(5, 1)(foo, x)!r}")
    print(f"  forward AD (ad.derivative):      {ad.derivative(foo_ad, x)!r}")
    print(f"  reverse AD (ad.gradient):        {ad.gradient(foo_ad, x)!r}")


if __name__ == "__main__":
    main()
