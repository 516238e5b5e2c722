"""_core/ad_forward.pxi: tags, the Tracked base, the Dual type and the compiled
forward entry point."""

import math

import numpy as np
import pytest

from chainrules import ad  # noqa: F401  (installs the generic engine)
from chainrules._core import Dual, Tracked, _ad_close, _ad_is_active, _ad_new_tag, _ad_strip_all


@pytest.fixture
def tag():
    t = _ad_new_tag()
    yield t
    _ad_close(t)


def test_tags_increase_and_open_and_close():
    a = _ad_new_tag()
    b = _ad_new_tag()
    assert b > a and _ad_is_active(a) and _ad_is_active(b)
    _ad_close(b)
    _ad_close(a)
    assert not _ad_is_active(a) and not _ad_is_active(b)


def test_a_dual_holds_its_primal_tangent_and_tag(tag):
    d = Dual(2.0, 1.5, tag)
    assert isinstance(d, Tracked)
    assert (d.primal, d.tangent, d.tag) == (2.0, 1.5, tag)
    assert repr(d) == f"Dual(2.0, 1.5, tag={tag})"
    a = Dual(np.ones(2), np.zeros(2), tag)
    assert isinstance(a.primal, np.ndarray) and a.shape == (2,)


def test_strip_goes_through_every_level(tag):
    inner = Dual(3.0, 1.0, tag)
    outer = Dual(inner, 0.0, tag + 1)
    assert _ad_strip_all(outer) == 3.0 and outer.primal is inner


@pytest.mark.parametrize("op, da, db", [
    (lambda a, b: a + b, lambda a, b: 1.0, lambda a, b: 1.0),
    (lambda a, b: a - b, lambda a, b: 1.0, lambda a, b: -1.0),
    (lambda a, b: a * b, lambda a, b: b, lambda a, b: a),
    (lambda a, b: a / b, lambda a, b: 1 / b, lambda a, b: -a / b ** 2),
    (lambda a, b: a ** b, lambda a, b: b * a ** (b - 1), lambda a, b: a ** b * math.log(a)),
])
def test_the_fast_binary_operators(tag, op, da, db):
    a, b = 1.7, 0.6
    out = op(Dual(a, 2.0, tag), Dual(b, 3.0, tag))
    assert type(out) is Dual and out.tag == tag
    assert out.primal == op(a, b)
    assert out.tangent == pytest.approx(2.0 * da(a, b) + 3.0 * db(a, b), rel=1e-14)
    # a constant on either side (float or int)
    assert op(Dual(a, 1.0, tag), 2).tangent == pytest.approx(da(a, 2.0), rel=1e-14)
    assert op(2.0, Dual(b, 1.0, tag)).tangent == pytest.approx(db(2.0, b), rel=1e-14)


def test_the_fast_unary_operators(tag):
    d = Dual(-1.5, 2.0, tag)
    assert ((-d).primal, (-d).tangent) == (1.5, -2.0)
    assert ((+d).primal, (+d).tangent) == (-1.5, 2.0)
    assert (abs(d).primal, abs(d).tangent) == (1.5, -2.0)


def test_strong_zero_of_pow(tag):
    # x ** p at x = 0 with a constant or zero-tangent exponent: no NaN from log(0)
    assert (Dual(0.0, 1.0, tag) ** 2.0).tangent == 0.0
    assert (Dual(0.0, 1.0, tag) ** Dual(2.0, 0.0, tag)).tangent == 0.0
    assert (Dual(-2.0, 1.0, tag) ** 2).tangent == -4.0


def test_domain_errors_are_the_primal_errors(tag):
    with pytest.raises(ZeroDivisionError):
        Dual(1.0, 1.0, tag) / 0.0
    with pytest.raises(ZeroDivisionError):
        1.0 % Dual(0.0, 1.0, tag)


def test_huge_ints_leave_the_fast_path_and_fail_as_the_primal(tag):
    with pytest.raises(OverflowError):
        2.0 * 10 ** 400
    with pytest.raises(OverflowError):
        Dual(2.0, 1.0, tag) * 10 ** 400
    assert (Dual(2.0, 1.0, tag) * 10 ** 20).tangent == 1e20


def test_mixed_tags_are_done_for_the_larger(tag):
    outer = Dual(2.0, 1.0, tag)
    inner_tag = _ad_new_tag()
    try:
        inner = Dual(3.0, 1.0, inner_tag)
        out = outer * inner
        assert out.tag == inner_tag and out.tangent == outer and out.primal.tag == tag
        assert out.primal.primal == 6.0 and out.primal.tangent == 3.0
    finally:
        _ad_close(inner_tag)


def test_derivative_scalar_entry_point():
    from chainrules._core import _ad_derivative_scalar

    def finish(tag, y):
        return ("finished", y)

    def by_rule(f, x):
        return ("rule", x)

    assert _ad_derivative_scalar(lambda x: x * x, 3.0, finish, by_rule) == 6.0
    assert _ad_derivative_scalar(lambda x: 1.0, 3.0, finish, by_rule) == ("finished", 1.0)
    assert _ad_derivative_scalar(math.sin, 3.0, finish, by_rule) == ("rule", 3.0)


def test_array_priority_puts_tracked_values_first(tag):
    out = np.ones(2) * Dual(np.ones(2), np.ones(2), tag)
    assert type(out) is Dual
