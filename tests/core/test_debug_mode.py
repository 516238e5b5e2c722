"""Debug mode (issue 11 item 7): the mutation contract of rules, checked.

Off (the default), a pullback reads the values of its forward pass when it
is called, so mutating an argument in between changes its answer silently;
on, the mutation is a MutationError naming the function and the argument."""

import dataclasses
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import chainrules as cr
from chainrules import MutationError, NoTangent, Tangent, ZeroTangent, frule, rrule
from chainrules import ad


@pytest.fixture
def debug():
    with cr.debug_mode(True):
        yield
    assert not cr.debug_mode()


def test_off_by_default_and_the_contract_is_what_it_says():
    assert cr.debug_mode() is False
    x = np.array([0.5, 1.0])
    _, pb = rrule(np.sin, x)
    x += 10
    # without debug mode the pullback reads the mutated x: the contract is
    # the user's to keep (this is what debug mode is for)
    np.testing.assert_allclose(pb(np.ones(2))[1], np.cos(x))


def test_the_switch_and_the_context_manager():
    assert not cr.debug_mode()
    switch = cr.debug_mode(True)
    try:
        assert cr.debug_mode() is True and bool(switch)
    finally:
        cr.debug_mode(False)
    assert cr.debug_mode() is False
    with cr.debug_mode(True):
        assert cr.debug_mode()
        with cr.debug_mode(False):
            assert not cr.debug_mode()
        assert cr.debug_mode()
    assert not cr.debug_mode()


def test_an_argument_mutated_before_the_pullback_is_named(debug):
    x = np.array([0.5, 1.0])
    _, pb = rrule(np.sin, x)
    x += 10
    with pytest.raises(MutationError) as e:
        pb(np.ones(2))
    msg = str(e.value)
    assert msg.startswith("numpy.sin: argument 1 (x) was mutated in place after rrule returned")
    assert "x[0] was 0.5, is 10.5" in msg


def test_the_second_argument_of_a_binary_rule_and_its_position(debug):
    a, b = np.ones((2, 2)), np.arange(4.0).reshape(2, 2)
    _, pb = rrule(np.multiply, a, b)
    b[1, 0] = -1.0
    with pytest.raises(MutationError, match=r"numpy.multiply: argument 2 \(x2\) .*x2\[1, 0\] was 2.0, is -1.0"):
        pb(np.ones((2, 2)))


def test_the_output_mutated_is_named(debug):
    x = np.array([0.1, 0.2])
    y, pb = rrule(np.exp, x)           # exp's pullback reads Ω
    y *= 2
    with pytest.raises(MutationError, match=r"numpy.exp: its output Ω was mutated in place"):
        pb(np.ones(2))


def test_a_python_function_rule_names_its_parameter(debug, registry):
    def scale(v, factor):
        return v * factor

    @cr.register_rrule(scale, object, object)
    def scale_rrule(v, factor):
        return v * factor, lambda ȳ: (NoTangent(), ȳ * factor, float(np.sum(ȳ * v)))

    v = np.ones(3)
    _, pb = rrule(scale, v, 2.0)
    v[2] = 7
    with pytest.raises(MutationError, match=r"scale: argument 1 \(v\) .*v\[2\] was 1.0, is 7.0"):
        pb(np.ones(3))


def test_lists_and_objects_inside_arguments(debug):
    xs = [np.array([1.0, 2.0]), np.array([3.0])]
    _, pb = rrule(np.concatenate, xs)
    xs[1][0] = 5.0
    # (NumPy < 2.1 gives np.concatenate no signature: the argument has no name then)
    with pytest.raises(MutationError, match=r"numpy.concatenate: argument 1 (\(arrays\) )?.*\[1\]\[0\] was 3.0, is 5.0"):
        pb(np.ones(3))
    xs = [1.0, 2.0, 3.0]
    _, pb = rrule(np.sum, xs)
    xs.append(4.0)
    with pytest.raises(MutationError, match="the length of"):
        pb(1.0)


def test_keyword_arguments_are_watched(debug):
    x, w = np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 2.0])
    _, pb = rrule(np.average, x, weights=w)
    w[0] = 3.0
    with pytest.raises(MutationError, match=r"numpy.average: keyword argument weights .*weights\[0\]"):
        pb(1.0)


def test_without_mutation_nothing_changes(debug):
    x = np.array([0.3, -0.7])
    y, pb = rrule(np.sin, x)
    np.testing.assert_array_equal(y, np.sin(x))
    np.testing.assert_array_equal(pb(np.ones(2))[1], np.cos(x))
    np.testing.assert_array_equal(pb(np.full(2, 2.0))[1], 2 * np.cos(x))   # called twice
    assert rrule(math.sin, 1.0)[1](1.0)[1] == math.cos(1.0)                  # scalars: nothing to watch
    assert frule((NoTangent(), np.ones(2)), np.sin, x)[1].tolist() == np.cos(x).tolist()
    assert rrule(lambda v: v, 1.0) is None
    assert "checked by debug mode" in repr(pb)


def test_a_rule_that_mutates_its_argument_is_caught(debug, registry):
    def bad(v):
        return v.sum()

    @cr.register_rrule(bad, np.ndarray)
    def bad_rrule(v):
        v -= 1                                   # the bug: the caller's array changes
        return v.sum(), lambda ȳ: (NoTangent(), np.full(v.shape, ȳ))

    with pytest.raises(MutationError, match=r"bad: argument 1 \(v\) was mutated in place by its own rrule"):
        rrule(bad, np.ones(2))


def test_an_frule_that_mutates_its_tangent_is_caught(debug, registry):
    def twice(v):
        return 2 * v

    @cr.register_frule(twice, np.ndarray)
    def twice_frule(tangents, v):
        Δv = tangents[1]
        Δv *= 2                                  # the bug: writes into the caller's tangent
        return 2 * v, Δv

    with pytest.raises(MutationError, match=r"twice: the tangent of argument 1 was mutated in place by its own frule"):
        frule((NoTangent(), np.ones(2)), twice, np.ones(2))


def test_a_pullback_that_writes_into_its_seed_is_caught(debug, registry):
    def ident(v):
        return v

    @cr.register_rrule(ident, np.ndarray)
    def ident_rrule(v):
        def pb(ȳ):
            ȳ *= 1.5                             # the bug
            return NoTangent(), ȳ
        return v.copy(), pb

    _, pb = rrule(ident, np.ones(2))
    with pytest.raises(MutationError, match=r"ident: cotangent 1 .*was mutated in place by the pullback"):
        pb(np.ones(2))


def test_dataclass_fields_are_watched(debug, registry):
    @dataclasses.dataclass
    class Params:
        w: np.ndarray

    def energy(p):
        return float(np.sum(p.w ** 2))

    @cr.register_rrule(energy, Params)
    def energy_rrule(p):
        return energy(p), lambda ȳ: (NoTangent(), Tangent[Params](w=2 * ȳ * p.w))

    p = Params(np.array([1.0, 2.0]))
    _, pb = rrule(energy, p)
    p.w[1] = 0.0
    with pytest.raises(MutationError, match=r"energy: argument 1 \(p\) .*the fields of p\['w'\]\[1\] was 2.0, is 0.0"):
        pb(1.0)
    p.w = np.array([1.0, 2.0])                   # a field replaced
    _, pb = rrule(energy, p)
    p.w = np.zeros(2)
    with pytest.raises(MutationError, match=r"\['w'\] was replaced"):
        pb(1.0)


def test_chainrules_ad_checks_closed_over_arrays(debug):
    c = np.array([1.0, 2.0, 3.0])

    def f(x):
        return np.sum(np.sin(x * c))

    g = ad.gradient(f, np.array([0.1, 0.2, 0.3]))        # fine: nothing mutated
    np.testing.assert_allclose(g, c * np.cos(np.array([0.1, 0.2, 0.3]) * c))

    def g_mutating(x):
        y = np.sum(np.sin(x * c))
        c[0] = 100.0                                     # mutated after its use was recorded
        return y

    with pytest.raises(MutationError, match=r"operator.mul: argument 2 \(b\) .*b\[0\] was 1.0, is 100.0"):
        ad.gradient(g_mutating, np.array([0.1, 0.2, 0.3]))


def test_nan_and_negative_zero_are_not_changes(debug):
    x = np.array([np.nan, -0.0, 1.0])
    _, pb = rrule(np.negative, x)
    x[1] = -0.0                                          # same bits
    pb(np.ones(3))
    x[1] = 0.0                                           # other bits: +0.0 is a mutation
    with pytest.raises(MutationError, match=r"x\[1\] was -0.0, is 0.0"):
        pb(np.ones(3))


def test_the_environment_variable_turns_it_on():
    script = ("import numpy as np, chainrules as cr\n"
              "assert cr.debug_mode()\n"
              "x = np.ones(2); _, pb = cr.rrule(np.sin, x); x[0] = 3\n"
              "try:\n    pb(np.ones(2))\nexcept cr.MutationError as e:\n    print('caught', e)\n")
    env = dict(os.environ, CHAINRULES_DEBUG="1")
    proc = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("caught numpy.sin: argument 1 (x)")


def test_zero_seeds_and_thunks_pass(debug):
    x = np.array([0.3, 0.4])
    _, pb = rrule(np.sin, x)
    assert isinstance(pb(ZeroTangent())[1], (ZeroTangent, np.ndarray))
    np.testing.assert_allclose(cr.unthunk(pb(cr.Thunk(lambda: np.ones(2)))[1]), np.cos(x))
