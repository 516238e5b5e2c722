"""ZeroTangent, NoTangent, thunks and NotImplementedTangent."""

import copy
import pickle

import numpy as np
import pytest

import chainrules as cr
from chainrules import (AbstractThunk, AbstractZero, InplaceableThunk, NoTangent, NO_FIELDS,
                        Thunk, ZeroTangent)


@pytest.mark.parametrize("cls", [ZeroTangent, NoTangent])
def test_zeros_are_singletons_that_survive_pickling_and_copying(cls):
    z = cls()
    assert cls() is z
    assert pickle.loads(pickle.dumps(z)) is z
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(z, protocol)) is z
    assert copy.copy(z) is z and copy.deepcopy(z) is z
    assert isinstance(z, AbstractZero) and isinstance(z, cr.AbstractTangent)
    assert repr(z) == f"{cls.__name__}()"
    with pytest.raises(TypeError):
        cls(1)


def test_no_fields_is_notangent():
    assert NO_FIELDS is NoTangent()
    assert ZeroTangent() is not NoTangent()


def test_zero_behaves_as_zero():
    z = ZeroTangent()
    assert not z and not NoTangent()
    assert float(z) == 0.0 and complex(z) == 0j and int(z) == 0
    assert z[3] is z and z["a"] is z and len(z) == 0
    with pytest.raises(TypeError, match="not iterable"):
        iter(z)
    assert hash(z) == hash(ZeroTangent())


def test_thunk_evaluates_every_time_and_unthunk_is_identity_elsewhere():
    calls = []

    def compute():
        calls.append(1)
        return 2.5

    t = Thunk(compute)
    assert isinstance(t, AbstractThunk)
    assert cr.unthunk(t) == 2.5 and t() == 2.5 and t.unthunk() == 2.5
    assert len(calls) == 3
    x = np.ones(2)
    assert cr.unthunk(x) is x and cr.unthunk(1.0) == 1.0
    assert cr.unthunk(ZeroTangent()) is ZeroTangent()


def test_nested_thunks_unthunk_fully():
    t = Thunk(lambda: Thunk(lambda: 3.0))
    assert cr.unthunk(t) == 3.0


def test_thunk_decorator():
    @cr.thunk
    def dx():
        return 4.0
    assert isinstance(dx, Thunk) and cr.unthunk(dx) == 4.0


def test_thunk_rejects_non_callable():
    with pytest.raises(TypeError, match="Thunk"):
        Thunk(3.0)


def test_inplaceable_thunk_unthunks_its_value_and_adds_in_place():
    def add(dest):
        dest += 1.0
        return dest

    it = InplaceableThunk(add, Thunk(lambda: np.ones(3)))
    np.testing.assert_array_equal(cr.unthunk(it), np.ones(3))
    acc = np.zeros(3)
    out = cr.add_inplace(acc, it)
    assert out is acc
    np.testing.assert_array_equal(acc, np.ones(3))
    # not a destination: plain addition with the value
    np.testing.assert_array_equal(cr.add_inplace((2.0), InplaceableThunk(add, Thunk(lambda: 1.0))), 3.0)
    with pytest.raises(TypeError, match="add_fn"):
        InplaceableThunk(1.0, 2.0)


def test_not_implemented():
    n = cr.not_implemented("the derivative in y")
    assert isinstance(n, cr.NotImplementedTangent)
    assert n.info == "the derivative in y"
    assert "the derivative in y" in repr(n)
    assert pickle.loads(pickle.dumps(n)).info == n.info
    with pytest.raises(cr.NotImplementedTangentError):
        n - 1.0
    assert issubclass(cr.NotImplementedTangentError, NotImplementedError)


def test_a_python_subclass_of_abstractthunk_is_unthunked_through_its_override():
    class Lazy(AbstractThunk):
        def unthunk(self):
            return 5.0

    assert cr.unthunk(Lazy()) == 5.0
    assert cr.unthunk(Thunk(lambda: Lazy())) == 5.0
    assert Lazy() + 1.0 == 6.0
