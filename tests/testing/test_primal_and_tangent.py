"""PrimalAndTangent: holding an argument with its tangent, marking non-differentiable ones."""

import numpy as np

from chainrules import NoTangent, ZeroTangent
from chainrules.testing import PrimalAndTangent


def test_holds_primal_and_tangent():
    p = PrimalAndTangent(1.0, 2.0)
    assert p.primal == 1.0 and p.tangent == 2.0
    x, dx = p
    assert (x, dx) == (1.0, 2.0)
    assert not p.non_differentiable


def test_no_tangent_marks_non_differentiable():
    assert PrimalAndTangent(3, NoTangent()).non_differentiable
    assert not PrimalAndTangent(np.ones(2), ZeroTangent()).non_differentiable


def test_repr_shows_both():
    assert repr(PrimalAndTangent(1.0, NoTangent())) == "PrimalAndTangent(1.0, NoTangent())"
