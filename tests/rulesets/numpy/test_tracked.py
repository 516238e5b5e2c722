"""The NumPy rules registered for ndarrays serve the values chainrules.ad
tracks when those hold NumPy arrays (register_for_arrays in chainrules/rulesets/_arrays.py),
and decline (None) the tracked values of another library."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.rulesets._arrays import numpy_inside

X = np.array([1.0, 2.0])


def _inside_jvp(check, x):
    """check(tracked x) run inside a forward differentiation; its result's tangent."""
    from chainrules._xp import namespace
    return ad.jvp(check, (x,), (namespace(x).ones_like(x),))       # a tangent of x's library


def test_numpy_inside_reads_only_the_tracked_arguments():
    seen = []

    def check(x):
        seen.append((numpy_inside((x, (0, slice(None)), np.float32)), numpy_inside((x, X)),
                     numpy_inside(((0, 1), "text"))))
        return x
    _inside_jvp(check, X)
    assert seen == [(True, True, True)]


def test_a_tracked_numpy_array_gets_the_numpy_rule():
    def through_rules(x):
        Ω, _ = cr.rrule(operator.mul, x, np.array([3.0, 4.0]))
        Ω2, _ = cr.rrule(operator.getitem, Ω, 1)
        _, Ω3 = cr.frule((cr.NoTangent(), 1.0, cr.ZeroTangent()), np.ndarray.__add__, x, x)
        return Ω2 + Ω3[0]
    Ω, ΔΩ = _inside_jvp(through_rules, X)
    assert Ω == 8.0 + 1.0 and ΔΩ == 4.0          # d/dx (4·x₁) along ones; the frule's tangent is constant


@pytest.mark.parametrize("f, args", [(np.ndarray.__add__, (1.0,)), (np.ndarray.__getitem__, (0,)), (np.asarray, ())])
def test_a_tracked_array_of_another_library_is_declined(f, args):
    xs = pytest.importorskip("array_api_strict")
    results = []

    def check(x):
        results.append((numpy_inside((x,)), cr.rrule(f, x, *args),
                        cr.frule((cr.NoTangent(), 1.0) + tuple(cr.NoTangent() for _ in args), f, x, *args)))
        return x
    _inside_jvp(check, xs.asarray([1.0, 2.0]))
    assert results == [(False, None, None)]


@pytest.mark.parametrize("f, args", [(operator.mul, (2.0,)), (operator.neg, ()), (operator.getitem, (0,))])
def test_the_operator_functions_on_a_tracked_array_of_another_library_get_the_generic_rule(f, args):
    xs = pytest.importorskip("array_api_strict")
    results = []

    def check(x):
        res = cr.rrule(f, x, *args)
        results.append(None if res is None else res[0])
        return x
    x = xs.asarray([1.0, 2.0])
    ad.jvp(check, (x,), (xs.ones_like(x),))
    [Ω] = results
    assert type(Ω) is ad.Dual and type(Ω.primal) is type(x)   # computed with strict's own functions
