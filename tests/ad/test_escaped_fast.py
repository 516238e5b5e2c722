"""A tracked scalar that escaped its differentiation is reported by the
compiled scalar paths as by the generic engine (EscapedTrackedValueError),
in both modes, whatever reaches it: chainrules.ad.math, Python operators
(either side, one or two tracked operands), NumPy ufuncs on it; and the
differentiations under way keep their fast path."""

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import EscapedTrackedValueError
from chainrules.ad import math as admath

ENGINES = {"derivative": ad.derivative, "gradient": ad.gradient}

USES = {
    "math.sin": lambda v: admath.sin(v),
    "math.atan2": lambda v: admath.atan2(v, 2.0),
    "math.atan2 right": lambda v: admath.atan2(2.0, v),
    "x * 2": lambda v: v * 2.0,
    "2 * x": lambda v: 2.0 * v,
    "x * x": lambda v: v * v,
    "x - 1": lambda v: v - 1,
    "2 ** x": lambda v: 2.0 ** v,
    "x ** 2": lambda v: v ** 2.0,
    "-x": lambda v: -v,
    "abs": abs,
    "np.sin": np.sin,
    "np.add": lambda v: np.add(v, 1.0),
}


def _escaped(engine, x=1.0):
    kept = []
    ENGINES[engine](lambda v: (kept.append(v), admath.sin(v))[1], x)
    return kept[0]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("use", sorted(USES))
def test_an_escaped_scalar_raises(engine, use):
    leak = _escaped(engine)
    with pytest.raises(EscapedTrackedValueError, match="escaped"):
        USES[use](leak)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_escaped_numpy_scalar_raises(engine):
    leak = _escaped(engine, np.float64(1.0))
    for use in ("math.sin", "x * 2", "2 * x", "np.sin"):
        with pytest.raises(EscapedTrackedValueError):
            USES[use](leak)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_escaped_inner_value_raises_inside_the_outer_differentiation(engine):
    # the outer differentiation is still under way: its tag is not the newest
    def outer(y):
        leak = _escaped(engine)
        with pytest.raises(EscapedTrackedValueError):
            admath.sin(leak)
        with pytest.raises(EscapedTrackedValueError):
            leak * y
        return admath.sin(y) * y             # the outer values keep working
    for e in ENGINES.values():
        assert e(outer, 0.5) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5), rel=1e-15)


def test_the_outer_derivative_after_a_finished_inner_one():
    def f(y):
        d = ad.derivative(lambda z: admath.sin(z) * y, 0.3)    # inner: finished below
        return d * admath.exp(y) + y * y                        # outer tag, not the newest
    want = np.cos(0.3) * np.exp(0.7) * 1.7 + 1.4             # d/dy of cos(0.3)·y·eʸ + y²
    assert ad.derivative(f, 0.7) == pytest.approx(want, rel=1e-14)
    assert ad.gradient(f, 0.7) == pytest.approx(want, rel=1e-14)
