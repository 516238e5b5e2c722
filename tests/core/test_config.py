"""RuleConfig, capabilities, rrule_via_ad / frule_via_ad and config-first dispatch."""

import math

import pytest

import chainrules as cr
from chainrules import NoTangent, frule, rrule


class ReverseConfig(cr.RuleConfig):
    has_reverse_mode = True

    def rrule_via_ad(self, f, *args):
        return cr.rrule(f, *args)


def test_config_rules_are_preferred_and_need_their_capability():
    def apply(f, x):
        return f(x)

    @cr.register_rrule(apply, config="reverse")
    def apply_rrule(config, f, x):
        y, pb = cr.rrule_via_ad(config, f, x)

        def apply_pullback(ȳ):
            _, dx = pb(ȳ)
            return NoTangent(), NoTangent(), dx
        return y, apply_pullback

    @cr.register_rrule(apply)
    def apply_plain(f, x):
        return "plain", None

    y, pb = rrule(ReverseConfig(), apply, math.sin, 1.0)
    assert y == math.sin(1.0) and pb(1.0)[2] == math.cos(1.0)
    assert rrule(apply, math.sin, 1.0)[0] == "plain"
    # a config without reverse mode falls back to the config-free rule
    assert rrule(cr.RuleConfig(), apply, math.sin, 1.0)[0] == "plain"
    # and the config-free form of a C-table function works with a config too
    assert rrule(ReverseConfig(), math.sin, 1.0)[0] == math.sin(1.0)
    assert frule(ReverseConfig(), (NoTangent(), 1.0), math.sin, 1.0)[1] == math.cos(1.0)


def test_via_ad_without_capability_is_a_clear_error():
    with pytest.raises(TypeError, match="no reverse mode"):
        cr.rrule_via_ad(cr.RuleConfig(), math.sin, 1.0)
    with pytest.raises(TypeError, match="no forward mode"):
        cr.frule_via_ad(ReverseConfig(), (NoTangent(), 1.0), math.sin, 1.0)
    with pytest.raises(TypeError, match="RuleConfig"):
        cr.rrule_via_ad(object(), math.sin, 1.0)


