"""The hand-written rules of `cmath` and complex numbers
(chainrules/rulesets/python/cmath.py): polar, phase, rect, abs and conjugate
of complex numbers, against finite differences and ChainRules' conventions."""

import builtins
import cmath
import operator

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, ZeroTangent, frule, rrule
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()
ZT = ZeroTangent()


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


# ----- cmath.polar ----------------------------------------------------------------------------

# the arguments of the cases (also the registry sweep's samples: tests/rulesets/test_registry_sweep.py)
POLAR_ARGS = [1 + 1j, -2 + 0.5j, 3.0, -3.0, np.complex64(0.5 - 1j)]
PHASE_ARGS = [1 + 1j, -2 + 0.5j, 0.5 - 3j, 2.0, -2.0, np.complex64(1 - 1j)]
RECT_ARGS = [(2.0, 0.5), (0.5, -2.0), (3, 1.0), (np.float32(1.5), np.float32(0.25))]


@pytest.mark.parametrize("z", POLAR_ARGS)
def test_polar(z):
    _both(cmath.polar, z)


def test_polar_at_zero_gives_zeros():
    assert rrule(cmath.polar, 0j)[1](Tangent[tuple](1.0, 1.0)) == (NT, 0j)


# ----- cmath.phase, cmath.rect, abs and conjugate of complex numbers ------------------------

@pytest.mark.parametrize("z", PHASE_ARGS)
def test_phase(z):
    test_scalar(cmath.phase, z)


def test_phase_conventions():
    # the gradient is (-y + ix)/|z|²; 0 at the origin; a real argument's cotangent is 0
    assert rrule(cmath.phase, 1 + 1j)[1](1.0) == (NT, pytest.approx(complex(-0.5, 0.5)))
    assert rrule(cmath.phase, 0j)[1](1.0) == (NT, 0j)
    assert rrule(cmath.phase, -2.0)[1](1.0) == (NT, 0.0)
    assert frule((NT, 1j), cmath.phase, 2.0)[1] == pytest.approx(0.5)


@pytest.mark.parametrize("r, φ", RECT_ARGS)
def test_rect(r, φ):
    _both(cmath.rect, PrimalAndTangent(r, 1.0) if type(r) is int else r, φ)


@pytest.mark.parametrize("f", [builtins.abs, operator.abs])
@pytest.mark.parametrize("z", [3 - 4j, -1j, np.complex64(1 + 2j), np.complex128(-0.5 + 0.5j)])
def test_abs_of_complex(f, z):
    test_scalar(f, z)


def test_abs_of_complex_at_zero_is_zero():
    assert rrule(abs, 0j)[1](1.0) == (NT, 0j)
    assert frule((NT, 1 + 1j), abs, 0j) == (0.0, 0.0)
    Ω, g = rrule(abs, np.complex64(0))[0], rrule(abs, np.complex64(0))[1](np.float32(1.0))[1]
    assert type(Ω) is np.float32 and type(g) is np.complex64 and g == 0


@pytest.mark.parametrize("z", [1 + 2j, -0.5 - 3j])
def test_complex_conjugate(z):
    _both(complex.conjugate, z)
    assert frule((NT, 1j), complex.conjugate, z) == (z.conjugate(), -1j)
    # the rule differentiated: chainrules.ad's tracked complex numbers are complex numbers
    test_frule(complex.conjugate, z, order=2)
    test_rrule(complex.conjugate, z, order=2)
