"""What the hand-written scalar rules share
(chainrules/rulesets/python/_common.py): cotangents of every kind (thunks, zeros, arrays, non-tangents) and ints in
sequences, through the rules of math, cmath and the builtins."""

import cmath
import math

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, Thunk, ZeroTangent, frule, rrule

NT = NoTangent()
ZT = ZeroTangent()


# ----- cotangents of every kind reach the hand-written rules too -------------------------------

def test_thunks_and_zeros_as_cotangents():
    pb = rrule(cmath.phase, 1 + 1j)[1]
    assert pb(Thunk(lambda: 1.0)) == pb(1.0)
    assert pb(ZT) == (NT, ZT)
    with pytest.raises(ValueError, match="pullback of cmath.phase: expected a scalar cotangent"):
        pb(np.ones(2))
    with pytest.raises(TypeError, match="pullback of math.modf"):
        rrule(math.modf, 1.5)[1]("a")


def test_ints_in_sequences_are_real_numbers():
    # the project's decision: a Python int is a real number with a float tangent
    assert rrule(sum, [1, 2])[1](1.0) == (NT, Tangent[list](1.0, 1.0))
    assert rrule(max, [1, 3, 2])[1](1.0) == (NT, Tangent[list](0.0, 1.0, 0.0))
    assert frule((NT, [1.0, 2.0]), math.fsum, [1, 2]) == (3.0, 3.0)
