"""ProjectTo, add_inplace, is_inplaceable_destination."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ProjectTo, Thunk, ZeroTangent


def test_real_python_numbers():
    p = ProjectTo(1.5)
    assert p(2.0) == 2.0 and type(p(2)) is float
    assert p(1 + 2j) == 1.0
    assert p(np.float32(2.0)) == 2.0 and type(p(np.float32(2.0))) is float
    assert p(np.array(3.0)) == 3.0
    # ints are real numbers: their tangents are floats
    assert ProjectTo(3)(2) == 2.0 and type(ProjectTo(3)(2)) is float


def test_complex_python_numbers():
    p = ProjectTo(1j)
    assert p(2.0) == 2.0 + 0j and type(p(2.0)) is complex
    assert p(1 + 1j) == 1 + 1j


@pytest.mark.parametrize("x", [True, np.bool_(True), "s", None, np.int64(3), np.arange(3), np.ones(2, bool)])
def test_no_tangent_spaces(x):
    assert ProjectTo(x)(1.0) is NoTangent()


def test_numpy_scalars_keep_their_type():
    assert type(ProjectTo(np.float32(1))(1.0)) is np.float32
    assert type(ProjectTo(np.float64(1))(1.0)) is np.float64
    assert ProjectTo(np.float32(1))(1 + 2j) == 1.0
    assert type(ProjectTo(np.complex64(1))(1.0)) is np.complex64


def test_zeros_pass_and_thunks_unthunk():
    for x in (1.0, 1j, np.ones(2), (1.0, 2.0)):
        assert ProjectTo(x)(ZeroTangent()) is ZeroTangent()
        assert ProjectTo(x)(NoTangent()) is NoTangent()
    assert ProjectTo(1.0)(Thunk(lambda: 1 + 1j)) == 1.0


def test_arrays_dtype_real_part_and_shape():
    p = ProjectTo(np.ones((2, 3), np.float32))
    out = p(np.ones((2, 3)) * (1 + 1j))
    assert out.dtype == np.float32 and out.shape == (2, 3) and (out == 1).all()
    # trivial dimensions removed or added
    assert p(np.ones((1, 2, 3))).shape == (2, 3)
    assert ProjectTo(np.ones((2, 1)))(np.ones(2)).shape == (2, 1)
    # a scalar onto a 0-d array
    assert ProjectTo(np.array(1.0))(2.0).shape == ()
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(2, 3\)"):
        p(np.ones((3, 2)))
    c = ProjectTo(np.ones(2, np.complex64))(np.ones(2))
    assert c.dtype == np.complex64


def test_tuples_project_elementwise_to_a_tangent():
    p = ProjectTo((1.0, np.float32(2.0), True))
    t = p((1 + 1j, 2.0, 3.0))
    assert isinstance(t, cr.Tangent) and t[0] == 1.0
    assert type(t[1]) is np.float32 and t[2] is NoTangent()
    with pytest.raises(ValueError):
        p((1.0, 2.0))


def test_scalar_projector_rejects_arrays_of_many_elements():
    with pytest.raises(ValueError, match="shape"):
        ProjectTo(1.0)(np.ones(3))
    with pytest.raises(TypeError):
        ProjectTo(1.0)("a")


def test_repr_is_informative():
    assert "float32" in repr(ProjectTo(np.ones(2, np.float32)))


def test_is_inplaceable_destination():
    assert cr.is_inplaceable_destination(np.ones(2))
    ro = np.ones(2)
    ro.flags.writeable = False
    assert not cr.is_inplaceable_destination(ro)
    assert not cr.is_inplaceable_destination(np.arange(2))
    assert not cr.is_inplaceable_destination(1.0)
    assert not cr.is_inplaceable_destination((1.0,))


def test_add_inplace():
    x = np.ones(3)
    assert cr.add_inplace(x, np.ones(3)) is x and (x == 2).all()
    assert cr.add_inplace(x, ZeroTangent()) is x
    assert cr.add_inplace(x, Thunk(lambda: np.ones(3))) is x and (x == 3).all()
    # not in place when the sum does not fit: dtype or shape
    y = np.ones(3, np.float32)
    out = cr.add_inplace(y, np.ones(3) * 1j)
    assert out is not y and out.dtype.kind == "c"
    small = np.ones(1)
    out = cr.add_inplace(small, np.ones(3))
    assert out.shape == (3,)
    assert cr.add_inplace(1.0, 2.0) == 3.0
    assert cr.add_inplace(ZeroTangent(), 2.0) == 2.0
    assert cr.add_inplace(cr.Tangent[tuple](1.0), cr.Tangent[tuple](2.0)) == cr.Tangent[tuple](3.0)


def test_an_array_onto_a_list_or_tuple_gives_the_elements_tangents():
    # array rules called on array-likes (np.sum([a, b])) return arrays
    t = ProjectTo([1.0, 2.0])(np.array([3.0, 4.0]))
    assert type(t) is cr.Tangent[list] and list(t) == [3.0, 4.0] and type(t[0]) is float
    nested = ProjectTo(([1.0, 2.0], [3.0, 4.0]))(np.ones((2, 2)) * (1 + 1j))
    assert type(nested) is cr.Tangent[tuple] and list(nested[1]) == [1.0, 1.0]
    with pytest.raises(ValueError, match="3 elements"):
        ProjectTo([1.0, 2.0])(np.ones(3))
