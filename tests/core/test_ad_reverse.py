"""_core/ad_reverse.pxi: the Tape, its C sweep, Adjoints, Var and the
compiled reverse entry points."""

import math

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules._core import Adjoints, Tape, Var, _ad_gradient_scalar, _ad_value_and_gradient_scalar
from chainrules import finite_differences as FD
from chainrules.ad import _tracing
from chainrules.ad import math as admath


def test_a_tape_records_scalar_nodes_and_sweeps_them():
    tape = Tape()
    try:
        x = tape.var(3.0)
        y = x * x + admath.sin(x)
        assert type(y) is Var and y.tape is tape and y.primal == 9.0 + math.sin(3.0)
        assert len(tape) == 3 and tape.nslots == 4
    finally:
        tape.close()
    adj = tape.backward({y.slot: 1.0})
    assert adj.get(x.slot) == pytest.approx(6.0 + math.cos(3.0))
    assert "closed" in repr(tape) and "3 nodes" in repr(tape)


def test_a_closed_tape_records_nothing():
    tape = Tape()
    x = tape.var(1.0)
    tape.close()
    with pytest.raises(ad.EscapedTrackedValueError):
        x + 1.0


def test_adjoints_add_and_get():
    adj = Adjoints(3)
    assert adj.get(0) == cr.ZeroTangent()
    adj.add(0, 1.0)
    adj.add(0, 2)
    assert adj.get(0) == 3.0
    adj.add(1, np.ones(2))
    adj.add(1, cr.Thunk(lambda: np.ones(2)))
    adj.add(1, cr.ZeroTangent())
    np.testing.assert_array_equal(adj.get(1), 2 * np.ones(2))
    adj.add(2, 1.0)
    adj.add(2, np.ones(2))
    np.testing.assert_array_equal(adj.get(2), 2 * np.ones(2))
    with pytest.raises(IndexError, match="slot 3 is not on this tape"):
        adj.get(3)


def test_records_are_swept_with_scalar_nodes():
    class Double:
        def __init__(self, inp, out):
            self.inp, self.out = inp, out

        def backprop(self, adj):
            adj.add(self.inp, 2 * adj.get(self.out))

    tape = Tape()
    x = tape.var(1.5)
    y = x * x                      # a scalar node
    z = tape.var(2 * y.primal)     # a record: z = 2y
    tape.push_record(Double(y.slot, z.slot))
    w = z * x                      # a scalar node after the record
    tape.close()
    adj = tape.backward({w.slot: 1.0})
    # w = 2x³: dw/dx = 6x²
    assert adj.get(x.slot) == pytest.approx(6 * 1.5 ** 2)


def test_long_tapes_sweep_in_c():
    def f(x):
        for _ in range(200):
            x = x * 1.01 + 0.001
        return x
    g = ad.gradient(f, 1.0)
    assert g == pytest.approx(1.01 ** 200)


def test_the_scalar_entry_points():
    def finish(tape, leaf, y):
        return ("finished", y)

    def by_rule(f, x):
        return ("rule", x)

    assert _ad_gradient_scalar(lambda x: x * x, 3.0, finish, by_rule) == 6.0
    assert _ad_value_and_gradient_scalar(lambda x: x * x, 3.0, finish, by_rule) == (9.0, 6.0)
    assert _ad_gradient_scalar(lambda x: 1.0, 3.0, finish, by_rule) == ("finished", 1.0)
    assert _ad_gradient_scalar(math.sin, 3.0, finish, by_rule) == ("rule", 3.0)


def test_a_var_keeps_slot_tape_and_primal():
    tape = Tape()
    v = tape.var(np.ones(2))
    for _ in range(7):
        tape.new_slot()
    w = tape.var(2.0, 7)
    tape.close()
    assert v.slot == 0 and w.slot == 7 and v.tag == tape.tag
    assert repr(w) == f"Var(2.0, slot=7, tag={tape.tag})"
    assert isinstance(v.primal, np.ndarray)


@pytest.mark.parametrize("slot", [1, 64, 10**6, -2])
def test_a_var_takes_only_a_slot_of_its_tape(slot):
    # issue 11 item 8: any slot used to be accepted; the scalar sweep then
    # wrote outside its 64-double buffer
    tape = Tape()
    tape.var(1.0)
    with pytest.raises(ValueError, match=f"slot {slot} is not on this tape"):
        tape.var(2.0, slot)


def test_gradient_through_a_tape_with_a_handed_out_slot():
    from chainrules.ad import gradient
    assert gradient(lambda x: x * x, 3.0) == 6.0
    tape = Tape()
    s = tape.new_slot()
    assert tape.var(2.0, s).slot == s


# ----- the flat fast path: array operations recorded without the generic engine ----

@pytest.mark.parametrize("f", [
    lambda x: np.sum(np.sin(x) * x),
    lambda x: np.sum(np.exp(x) / (1.0 + x) - x[::2].sum() * 2),
    lambda x: np.sum(np.multiply(x, 3) ** 2),
    lambda x: np.sum(np.abs(x - 0.5) + np.maximum(x, 0.3)),
    lambda x: np.mean(np.cos(x)) + np.sum(x[1:3] * x[0]),
], ids=["sin-mul-sum", "exp-div-slice", "int-constant-pow", "abs-maximum", "mean-getitem"])
def test_flat_array_code_agrees_with_finite_differences(f):
    x = np.linspace(0.1, 0.9, 6)
    g = ad.gradient(f, x)
    fd = FD.grad(FD.central_fdm(5, 1), f, x)[0]
    np.testing.assert_allclose(g, fd, rtol=1e-8, atol=1e-10)


def test_flat_path_outputs_that_are_not_one_real_value():
    x = np.array([0.5, 1.5, 2.5])
    # complex output, tuple output, an integer output between real ones
    g = ad.gradient(lambda x: np.sum(np.real(np.exp(1j * x))), x)
    np.testing.assert_allclose(g, -np.sin(x))
    g = ad.gradient(lambda x: np.sum(np.modf(x * 2.0)[0] * x), x)
    np.testing.assert_allclose(g, np.modf(2 * x)[0] + 2 * x)
    g = ad.gradient(lambda x: np.sum(x * np.argmax(x)), x)
    np.testing.assert_allclose(g, [2.0, 2.0, 2.0])


def test_flat_path_leaves_nested_and_mixed_cases_to_the_generic_engine():
    x = np.array([0.3, 0.7])
    # reverse over reverse: Vars of two tapes in one operation
    h = ad.jacobian(lambda x: ad.gradient(lambda y: np.sum(np.sin(y) * x), x), x)
    np.testing.assert_allclose(h, np.diag(np.cos(x) - x * np.sin(x)), atol=1e-12)
    # forward over reverse (hessian): Vars holding Duals
    hess = ad.hessian(lambda x: np.sum(np.sin(x) * x), x)
    np.testing.assert_allclose(hess, np.diag(2 * np.cos(x) - x * np.sin(x)), atol=1e-12)
    # keyword arguments go the generic way and still work
    g = ad.gradient(lambda x: np.sum(np.sum(x.reshape(1, 2) * x, axis=0)), x)
    np.testing.assert_allclose(g, 2 * x)


def test_flat_path_reports_like_the_generic_engine():
    tape = Tape()
    x = tape.var(np.ones(3))
    tape.close()
    with pytest.raises(ad.EscapedTrackedValueError):
        np.sin(x)
    bad = np.frompyfunc(lambda v: v, 1, 1)          # a ufunc without a rule
    with pytest.raises(TypeError, match="rule"):
        ad.gradient(lambda x: np.sum(bad(x)), np.ones(2))


def test_flat_array_code_does_not_reach_the_generic_engine():
    def refuse(*args):
        raise AssertionError(f"the generic engine was called: {args[:2]}")
    x = np.linspace(0.1, 0.9, 6)
    cr._core._ad_set_dispatch(refuse)
    try:
        g = ad.gradient(lambda x: np.sum(np.sin(x) * x - x[::2].sum() / 2.0), x)
    finally:
        cr._core._ad_set_dispatch(_tracing.dispatch)
    expected = np.cos(x) * x + np.sin(x)
    expected[::2] -= 3.0                       # x[::2].sum() / 2 is subtracted from all 6 elements
    np.testing.assert_allclose(g, expected)


def test_flat_record_errors_are_the_generic_engines(registry):
    # a vjp pullback called with a cotangent tracked by another differentiation: a
    # pullback that cannot compute with it (np.asarray of a tracked value) is reported by
    # the flat record as the generic record would, naming the rule
    x0 = np.array([0.2, 0.4, 0.6])

    @cr.register_rrule(np.cumsum, np.ndarray)
    def cumsum_rrule(x):
        def cumsum_pullback(ȳ):
            return cr.NoTangent(), np.cumsum(np.asarray(ȳ)[::-1])[::-1]
        return np.cumsum(x), cumsum_pullback
    with pytest.raises(ad.NoRuleError, match=r"nested differentiation.*numpy\.cumsum"):
        ad.gradient(lambda c: np.sum(ad.vjp(lambda x: np.cumsum(np.sin(x) * x), x0)[1](c * np.ones(3))[0]), 1.5)


def test_a_vjp_pullback_differentiated_by_another_differentiation():
    # sum's pullback projects the tracked cotangent onto x's plain array (ProjectTo)
    x0 = np.array([0.2, 0.4, 0.6])
    g = ad.gradient(lambda c: np.sum(ad.vjp(lambda x: np.sum(np.sin(x) * x), x0)[1](c)[0]), 1.5)
    assert math.isclose(g, np.sum(np.sin(x0) + x0 * np.cos(x0)), rel_tol=1e-12)


# ----- the tape's layout (issue 13: at most 48 bytes per recorded operation) -------

def _tape_of(f, x):
    seen = {}

    def g(v):
        seen["tape"] = v.tape
        return f(v)
    return ad.gradient(g, x), seen["tape"]


def test_tape_nodes_are_32_bytes_in_blocks():
    ops = 3 * 4096 + 77                      # the first block, two more and part of a fourth

    def f(x):
        y = x
        for _ in range(ops):
            y = y * 0.9999
        return y
    g, tape = _tape_of(f, 0.5)
    assert len(tape) == ops
    assert math.isclose(g, 0.9999 ** ops, rel_tol=1e-12)
    assert tape.nbytes <= 32 * (ops + 4096) + 8 * 8      # one block of slack at most
    assert tape.nbytes >= 32 * ops


def test_long_tapes_mix_nodes_records_and_numpy_scalars():
    """Nodes of every kind across block boundaries: the generic sweep and the
    scalar sweep give the closed form."""
    n = 5000

    def f(x):
        y = x
        for i in range(n):
            y = y * 0.999 + np.sin(x) * 1e-4     # scalar nodes and NumPy-semantics nodes
        return y + np.sum(np.array([1.0, 2.0]) * x)   # and records
    g, tape = _tape_of(f, 0.3)
    geo = sum(0.999 ** k for k in range(n))
    assert math.isclose(g, 0.999 ** n + 1e-4 * math.cos(0.3) * geo + 3.0, rel_tol=1e-10)
    assert len(tape) > 2 * 4096
    g2, _ = _tape_of(lambda x: f(x) - np.sum(np.array([1.0, 2.0]) * x), 0.3)
    assert math.isclose(g2, g - 3.0, rel_tol=1e-10)


def test_short_tapes_live_in_the_tape_object():
    _, tape = _tape_of(lambda x: x * x + 1.0, 2.0)
    assert len(tape) == 2 and tape.nbytes == 8 * 32 + 8
