"""_core/ad_reverse.pxi: the Tape, its C sweep, Adjoints, Var and the
compiled reverse entry points."""

import math

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules._core import Adjoints, Tape, Var, _ad_gradient_scalar, _ad_value_and_gradient_scalar
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
    w = tape.var(2.0, 7)
    tape.close()
    assert v.slot == 0 and w.slot == 7 and v.tag == tape.tag
    assert repr(w) == f"Var(2.0, slot=7, tag={tape.tag})"
    assert isinstance(v.primal, np.ndarray)
