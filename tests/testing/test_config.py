"""TestConfig: a RuleConfig with both modes; via-AD calls use rules, else finite differences."""

import math
from collections import namedtuple

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Tangent, ZeroTangent
from chainrules.testing import TestConfig

Point = namedtuple("Point", "x y")


def test_capabilities():
    c = TestConfig()
    assert isinstance(c, cr.RuleConfig)
    assert c.has_reverse_mode and c.has_forward_mode


def test_rrule_via_ad_uses_an_existing_rule():
    y, pb = cr.rrule_via_ad(TestConfig(), math.sin, 0.5)
    assert y == math.sin(0.5)
    assert pb(1.0) == (NoTangent(), math.cos(0.5))


def test_frule_via_ad_uses_an_existing_rule():
    y, dy = cr.frule_via_ad(TestConfig(), (NoTangent(), 2.0), math.sin, 0.5)
    assert dy == 2.0 * math.cos(0.5)


def test_config_rules_are_found_with_the_config():
    def f(x):
        return 2 * x

    @cr.register_rrule(f, config="reverse")
    def _(config, x):
        assert isinstance(config, TestConfig)
        return f(x), lambda ybar: (NoTangent(), 2 * ybar)

    y, pb = cr.rrule_via_ad(TestConfig(), f, 1.5)
    assert pb(1.0) == (NoTangent(), 2.0)


def test_rrule_via_ad_falls_back_to_finite_differences():
    def cube(x, n):
        return x ** 3 * n

    y, pb = cr.rrule_via_ad(TestConfig(), cube, 2.0, 1)
    assert y == 8.0
    dself, dx, dn = pb(1.0)
    assert dself is NoTangent() and dn is NoTangent()
    assert dx == pytest.approx(12.0, rel=1e-9)


def test_rrule_via_ad_fallback_on_arrays_and_structures():
    def f(p, v):
        return p.x * v + p.y

    y, pb = cr.rrule_via_ad(TestConfig(), f, Point(2.0, 1.0), np.array([1.0, 2.0]))
    _, dp, dv = pb(cr.Thunk(lambda: np.ones(2)))
    assert isinstance(dp, Tangent[Point])
    assert dp.x == pytest.approx(3.0) and dp.y == pytest.approx(2.0)
    np.testing.assert_allclose(dv, [2.0, 2.0])


def test_frule_via_ad_falls_back_to_finite_differences():
    def f(x, y):
        return x * y

    y, dy = cr.frule_via_ad(TestConfig(), (NoTangent(), 1.0, ZeroTangent()), f, 2.0, 3.0)
    assert y == 6.0 and dy == pytest.approx(3.0, rel=1e-9)
    with pytest.raises(ValueError, match="expected 3 tangents"):
        cr.frule_via_ad(TestConfig(), (NoTangent(), 1.0), f, 2.0, 3.0)


def test_fallback_differentiates_a_functor_through_its_fields():
    class Scale:
        def __init__(self, s):
            self.s = s

        def __call__(self, x):
            return self.s * x

    y, pb = cr.rrule_via_ad(TestConfig(), Scale(2.0), 3.0)
    dself, dx = pb(1.0)
    assert dx == pytest.approx(2.0)
    y, dy = cr.frule_via_ad(TestConfig(), (NoTangent(), 1.0), Scale(2.0), 3.0)
    assert dy == pytest.approx(2.0)


def test_custom_fdm():
    from chainrules.finite_differences import central_fdm
    c = TestConfig(fdm=central_fdm(7, 1))
    assert c.fdm.p == 7
    assert repr(c) == "TestConfig()"
