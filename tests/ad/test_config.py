"""chainrules.ad.config: the engines' RuleConfigs."""

import math as pymath

import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import math as admath


def test_capabilities():
    assert isinstance(ad.ForwardConfig(), cr.RuleConfig) and isinstance(ad.ReverseConfig(), cr.RuleConfig)
    assert ad.ForwardConfig.has_forward_mode and not ad.ForwardConfig.has_reverse_mode
    assert ad.ReverseConfig.has_reverse_mode and not ad.ReverseConfig.has_forward_mode
    assert repr(ad.ForwardConfig()) == "ForwardConfig()" and repr(ad.ReverseConfig()) == "ReverseConfig()"


def test_each_config_refuses_the_other_mode():
    with pytest.raises(TypeError, match="has no reverse mode"):
        cr.rrule_via_ad(ad.ForwardConfig(), pymath.sin, 1.0)
    with pytest.raises(TypeError, match="has no forward mode"):
        cr.frule_via_ad(ad.ReverseConfig(), (cr.NoTangent(), 1.0), pymath.sin, 1.0)


def test_via_ad_differentiates_code_without_rules():
    def f(x, y):
        return admath.exp(x) * y

    y, dy = cr.frule_via_ad(ad.ForwardConfig(), (cr.NoTangent(), 1.0, 2.0), f, 0.5, 3.0)
    assert y == pymath.exp(0.5) * 3.0
    assert dy == pytest.approx(pymath.exp(0.5) * 3.0 + 2.0 * pymath.exp(0.5))
    y, pb = cr.rrule_via_ad(ad.ReverseConfig(), f, 0.5, 3.0)
    assert pb(1.0) == (cr.NoTangent(), pytest.approx(pymath.exp(0.5) * 3.0), pytest.approx(pymath.exp(0.5)))


def test_reverse_config_rules_are_chosen_by_the_reverse_engine():
    def twice(f, x):
        return f(f(x))

    @cr.register_rrule(twice, config="reverse")
    def twice_rrule(config, f, x):
        y1, pb1 = cr.rrule_via_ad(config, f, x)
        y2, pb2 = cr.rrule_via_ad(config, f, y1)

        def twice_pullback(ȳ):
            df2, dy1 = pb2(ȳ)
            df1, dx = pb1(dy1)
            return cr.NoTangent(), df1 + df2, dx
        return y2, twice_pullback

    @cr.register_frule(twice, config="forward")
    def twice_frule(config, tangents, f, x):
        y1, dy1 = cr.frule_via_ad(config, (tangents[1], tangents[2]), f, x)
        return cr.frule_via_ad(config, (tangents[1], dy1), f, y1)

    g = ad.wrap(twice)
    # d/dx sin(sin(x)) = cos(sin(x)) cos(x)
    expected = pymath.cos(pymath.sin(0.4)) * pymath.cos(0.4)
    assert ad.gradient(lambda x: g(admath.sin, x), 0.4) == pytest.approx(expected)
    assert ad.derivative(lambda x: g(admath.sin, x), 0.4) == pytest.approx(expected)
    # a closure: the tangent of its captured variable flows through ∂self / Δself
    assert ad.gradient(lambda a: g(lambda x: a * x, 2.0), 3.0) == pytest.approx(2 * 3.0 * 2.0)
    assert ad.derivative(lambda a: g(lambda x: a * x, 2.0), 3.0) == pytest.approx(2 * 3.0 * 2.0)
