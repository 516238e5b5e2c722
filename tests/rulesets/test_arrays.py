"""The helpers shared by the array rules (chainrules/rulesets/_arrays.py):
unbroadcast, reject_out, normalize_axes, unreduce, named_rule, methods."""

import types

import numpy as np
import pytest

from chainrules import NoTangent, Thunk, ZeroTangent
from chainrules.rulesets import _arrays
from chainrules.rulesets._arrays import methods, named_rule, normalize_axes, reject_out, unbroadcast, unreduce


@pytest.mark.parametrize("xshape,dshape", [((3,), (3,)), ((3, 1), (3, 4)), ((4,), (3, 4)), ((), (2, 3)),
                                           ((1, 4), (2, 3, 4)), ((2, 1, 1), (2, 3, 4)), ((0,), (5, 0))],
                         ids=str)
def test_unbroadcast_sums_back_to_the_input_shape(xshape, dshape):
    dx = np.arange(float(np.prod(dshape))).reshape(dshape)
    out = unbroadcast(np.ones(xshape), dx)
    assert np.shape(out) == xshape
    # the adjoint of broadcasting: <broadcast(v), dx> = <v, unbroadcast(dx)>
    v = np.linspace(1, 2, int(np.prod(xshape))).reshape(xshape)
    assert np.isclose(np.sum(np.broadcast_to(v, dshape) * dx), np.sum(v * out))


def test_unbroadcast_accepts_scalars_shapes_thunks_and_zeros():
    assert unbroadcast(2.0, np.ones((2, 3))) == 6.0
    assert unbroadcast((3,), np.ones((2, 3))).shape == (3,)
    assert np.array_equal(unbroadcast(np.ones(2), Thunk(lambda: np.ones((3, 2)))), [3.0, 3.0])
    assert unbroadcast(np.ones(2), ZeroTangent()) is ZeroTangent()
    assert unbroadcast(np.ones(2), NoTangent()) is NoTangent()
    same = np.ones(3)
    assert unbroadcast(np.zeros(3), same) is same          # nothing to do: no copy
    # a smaller cotangent (a scalar seed) is spread over the input
    assert unbroadcast(np.ones((2, 2)), 1.5).shape == (2, 2)


def test_methods_keeps_only_the_callable_ndarray_attributes(monkeypatch):
    # NumPy 2.0-2.3 keep the removed `ndarray.ptp` as a getset descriptor that
    # raises when read from an array; registering it broke `import chainrules`.
    class Removed:
        def __get__(self, obj, cls=None):
            if obj is None:
                return self
            raise AttributeError("`ptp` was removed from the ndarray class")

    class FakeNdarray:
        sum = np.ndarray.sum
        ptp = Removed()

    monkeypatch.setattr(_arrays, "np", types.SimpleNamespace(ndarray=FakeNdarray))
    assert methods("sum", "ptp", "no_such_method") == [np.ndarray.sum]


def test_methods_on_this_numpy_are_callable():
    found = methods("sum", "ptp", "max", "cumsum")
    assert found and all(callable(m) for m in found)


def test_reject_out_names_the_argument():
    reject_out("f", {"out": None, "axis": 1})
    with pytest.raises(TypeError, match="f: .*out="):
        reject_out("f", {"out": np.empty(2)})
    with pytest.raises(TypeError, match="g: .*where="):
        reject_out("g", {"where": np.ones(2, bool)}, "where")


def test_normalize_axes():
    assert normalize_axes(None, 3) == (0, 1, 2)
    assert normalize_axes(-1, 3) == (2,)
    assert normalize_axes((2, -3), 3) == (0, 2)
    assert normalize_axes(np.intp(1), 2) == (1,)
    assert normalize_axes((), 2) == ()
    assert normalize_axes(None, 0) == ()


@pytest.mark.parametrize("keepdims", [False, True])
def test_unreduce_spreads_a_reduced_cotangent_as_a_read_only_view(keepdims):
    x = np.ones((2, 3, 4))
    dy = np.sum(np.arange(24.0).reshape(2, 3, 4), axis=(0, 2), keepdims=keepdims)
    out = unreduce(dy, x.shape, (0, 2), keepdims)
    assert out.shape == x.shape and not out.flags.writeable
    assert np.array_equal(out[1, :, 3], np.ravel(dy))
    f32 = unreduce(dy + 1j, x.shape, (0, 2), keepdims, np.dtype(np.float32))
    assert f32.dtype == np.float32 and np.array_equal(f32[0, :, 0], np.ravel(dy))
    assert unreduce(2.0, (), (), False).shape == ()


def test_named_rule_renames_the_rule_and_its_pullback():
    def make():
        def unary_rrule(x):
            def unary_pullback(ȳ):
                raise RuntimeError("boom")
            return x, unary_pullback
        return unary_rrule
    rule = named_rule(make(), "sin")
    assert rule.__name__ == "sin_rrule"
    _, pb = rule(1.0)
    assert pb.__name__ == "sin_pullback"
    with pytest.raises(RuntimeError) as info:
        pb(1.0)
    assert info.traceback[-1].name == "sin_pullback"
