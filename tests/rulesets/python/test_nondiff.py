"""The non-differentiable functions declared as data
(chainrules/rulesets/python/nondiff.py): every entry gives NoTangent() forward and
backward, at a sample call per entry."""

import builtins
import cmath
import math
import operator

import pytest

from chainrules import NoTangent, frule, rrule
from chainrules.rulesets.python.nondiff import NON_DIFFERENTIABLE

NT = NoTangent()

# a sample call of every entry: f -> arguments
SAMPLES = {
    math.isnan: (1.0,), math.isinf: (1.0,), math.isfinite: (1.0,), math.isclose: (1.0, 1.0),
    math.comb: (5, 2), math.perm: (5, 2), math.factorial: (5,), math.gcd: (12, 18),
    math.lcm: (4, 6), math.isqrt: (17,), math.nextafter: (1.0, 2.0), math.ulp: (1.0,),
    cmath.isnan: (1j,), cmath.isinf: (1j,), cmath.isfinite: (1j,), cmath.isclose: (1j, 1j),
    operator.lt: (1.0, 2.0), operator.le: (1.0, 2.0), operator.eq: (1.0, 2.0),
    operator.ne: (1.0, 2.0), operator.ge: (1.0, 2.0), operator.gt: (1.0, 2.0),
    operator.not_: (1.0,), operator.truth: (1.0,), operator.is_: (1.0, 1.0),
    operator.is_not: (1.0, 2.0), operator.index: (3,), operator.and_: (6, 3),
    operator.or_: (6, 3), operator.xor: (6, 3), operator.invert: (6,), operator.inv: (6,),
    operator.lshift: (1, 3), operator.rshift: (8, 1), operator.iand: (6, 3), operator.ior: (6, 3),
    operator.ixor: (6, 3), operator.ilshift: (1, 3), operator.irshift: (8, 1),
    operator.contains: ([1.0, 2.0], 1.0), operator.countOf: ([1.0, 1.0], 1.0),
    operator.indexOf: ([1.0, 2.0], 2.0), operator.length_hint: ([1.0, 2.0],),
    builtins.int: (2.7,), builtins.bool: (2.7,), builtins.len: ([1.0],),
    builtins.isinstance: (1.0, float), builtins.issubclass: (bool, int), builtins.hash: (1.5,),
    builtins.id: (1.5,), builtins.callable: (len,), builtins.hasattr: (1.0, "real"),
    builtins.all: ([1.0, 0.0],), builtins.any: ([1.0, 0.0],), builtins.range: (3,),
    builtins.ord: ("a",), builtins.chr: (97,), builtins.bin: (5,), builtins.hex: (5,),
    builtins.oct: (5,), builtins.repr: (1.5,), builtins.ascii: (1.5,), builtins.str: (1.5,),
    builtins.format: (1.5, ".2f"), builtins.pow: (2, 10, 7), builtins.float: ("1.5",),
    builtins.complex: ("1+2j",),
}


def _name(f):
    return getattr(f, "__qualname__", repr(f))


def test_every_entry_has_a_sample():
    listed = {entry[0] for entry in NON_DIFFERENTIABLE}
    assert listed == set(SAMPLES), listed ^ set(SAMPLES)


@pytest.mark.parametrize("f", list(SAMPLES), ids=_name)
def test_entry_has_no_tangent(f):
    args = SAMPLES[f]
    y = f(*args)
    Ω, dΩ = frule((NT,) + (1.0,) * len(args), f, *args)
    assert dΩ is NT
    if f is not builtins.id:          # id(1.5) of another float object differs
        assert Ω == y
    Ω, pb = rrule(f, *args)
    assert pb(1.0) == (NT,) * (len(args) + 1)


def test_type_restricted_entries_leave_numbers_to_their_rules():
    # pow(x, y) and float(x) of numbers are differentiable; only pow(x, y, mod)
    # and float("1.5") are declared non-differentiable
    assert rrule(pow, 2.0, 3.0)[1](1.0) == (NT, 12.0, pytest.approx(8.0 * 0.6931471805599453))
    assert rrule(float, 2)[1](1.0) == (NT, 1.0)
    assert rrule(complex, 2.0)[1](1.0) == (NT, 1.0)
