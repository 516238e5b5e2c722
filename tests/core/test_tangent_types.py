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


# ----- issue 11 item 10: copies and pickles ----------------------------------------------

def test_thunks_tangents_and_projectors_copy_and_deepcopy():
    import copy
    import pickle
    import numpy as np
    import chainrules as cr
    t = cr.Thunk(lambda: 2.0)
    it = cr.InplaceableThunk(lambda d: d, t)
    for cp in (copy.copy, copy.deepcopy):
        assert cr.unthunk(cp(t)) == 2.0
        assert cr.unthunk(cp(it)) == 2.0
        tg = cp(cr.Tangent[tuple](t, 1.0))
        assert cr.unthunk(tg[0]) == 2.0 and tg[1] == 1.0
        p = cp(cr.ProjectTo(np.ones(3, np.float32)))
        assert p(np.ones(3)).dtype == np.float32
        q = cp(cr.ProjectTo([1.0, np.ones(2)]))
        assert q([1j, np.ones(2)])[0] == 0.0
    p = pickle.loads(pickle.dumps(cr.ProjectTo(np.ones((2, 2), np.complex64))))
    assert p(np.ones((2, 2))).dtype == np.complex64


def test_a_compiled_pullback_copies_as_itself_and_refuses_pickling_in_our_words():
    import copy
    import pickle
    import numpy as np
    import pytest
    import chainrules as cr
    for f, x in [(np.sin, 1.0), (np.sin, np.ones(3)), (np.multiply, np.ones(2)), (abs, -1.0)]:
        args = (x, x) if f is np.multiply else (x,)
        pb = cr.rrule(f, *args)[1]
        assert copy.copy(pb) is pb and copy.deepcopy(pb) is pb
        with pytest.raises(TypeError, match="cannot be pickled: a pullback holds the values"):
            pickle.dumps(pb)


def test_an_abstract_tangent_without_arithmetic_raises_instead_of_recursing():
    import pytest
    import chainrules as cr

    class Odd(cr.AbstractTangent):
        pass
    with pytest.raises(TypeError):
        Odd() + 1.0
    with pytest.raises(TypeError):
        -Odd()
