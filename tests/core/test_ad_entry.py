"""The compiled entry points of chainrules.ad (`_core/ad_entry.pxi`):
gradient, value_and_gradient and derivative of a Python float take the
compiled path, every other call is the Python function, and the entry
points look like those functions (name, docstring, signature, pickling)."""

import inspect
import math
import pickle

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import forward, reverse
from chainrules.ad import math as admath

ENTRIES = [(reverse.gradient, "gradient"), (reverse.value_and_gradient, "value_and_gradient"),
           (forward.derivative, "derivative")]


@pytest.mark.parametrize("entry,name", ENTRIES)
def test_entry_points_look_like_their_functions(entry, name):
    general = entry.__wrapped__
    assert inspect.isfunction(general) and general.__name__ == name
    assert entry.__name__ == name and entry.__doc__ == general.__doc__
    assert entry.__module__ == general.__module__
    assert inspect.signature(entry) == inspect.signature(general)
    assert pickle.loads(pickle.dumps(entry)) is entry
    assert repr(entry) == repr(general)
    assert getattr(ad, name) is entry


def _outcome(fn):
    try:
        v = fn()
    except Exception as e:
        return ("raised", type(e).__name__, str(e))
    return ("ok", type(v).__name__, repr(v))


@pytest.mark.parametrize("entry,name", ENTRIES)
def test_entry_points_compute_what_their_functions_compute(entry, name):
    general = entry.__wrapped__
    foo = lambda x: admath.asin(0.2 + admath.sin(x))  # noqa: E731
    for f, args in ((foo, (3.0,)), (foo, (3,)), (np.sin, (0.5,)), (lambda x: np.sin(x) * x, (0.5,)),
                    (lambda x: x * x, (np.float64(2.0),)), (lambda x: np.sum(x * x), (np.ones(3),)),
                    (admath.exp, (1.0,)), (lambda x: (x, 2 * x), (1.0,)), (lambda x: 1.0 / x, (0.0,))):
        assert _outcome(lambda: entry(f, *args)) == _outcome(lambda: general(f, *args))
    assert _outcome(lambda: entry(f=foo, x=3.0)) == _outcome(lambda: general(f=foo, x=3.0))


def test_entry_points_report_bad_calls_as_their_functions():
    with pytest.raises(TypeError, match="at least one argument"):
        ad.gradient(math.sin)
    with pytest.raises(TypeError):
        ad.derivative(lambda x: x)
    with pytest.raises(TypeError, match="real scalar output"):
        ad.gradient(lambda x: np.ones(2) * x, 1.0)
    with pytest.raises(TypeError, match="lose its derivative"):
        ad.derivative(lambda x: math.sin(x), 1.0)
    assert ad.gradient(lambda x, y: x * y, 2.0, 3.0) == (3.0, 2.0)
