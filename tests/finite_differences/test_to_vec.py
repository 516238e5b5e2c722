"""to_vec: round trips for every supported type, complex numbers as two reals,
untouched leaves, and the tangent layout used by jvp/vjp."""

import dataclasses
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Tangent, ZeroTangent
from chainrules.finite_differences import to_vec
from chainrules.finite_differences.to_vec import layout_of

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Particle:
    position: np.ndarray
    mass: float
    label: str = "p"


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: complex


def same(a, b):
    """Structural equality with types, dtypes and shapes."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            same(u, v)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, cr.StructuralTangent):
        assert a == b
    else:
        assert a == b or (a != a and b != b)


ROUND_TRIPS = [
    1.5,
    -2.0,
    3 + 4j,
    np.float32(1.25),
    np.float64(2.5),
    np.complex64(1 - 2j),
    np.complex128(3 + 1j),
    np.arange(6.0).reshape(2, 3),
    np.arange(6, dtype=np.float32).reshape(3, 2),
    np.array([1 + 2j, 3 - 4j], dtype=np.complex64),
    np.array([[1 + 2j], [3 - 4j]]),
    np.array(2.5),
    np.array(1 + 1j),
    np.zeros((0,)),
    np.zeros((2, 0, 3), dtype=np.float32),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    (1.0, 2.0),
    [1.0, np.ones(2)],
    (),
    Point(1.0, 2j),
    {"a": 1.0, "b": np.ones(2)},
    OrderedDict(b=2.0, a=1.0),
    Particle(np.array([1.0, 2.0]), 3.0),
    Frozen(1.0, 2j),
    Tangent[tuple](1.0, np.ones(2)),
    Tangent[Point](x=1.0, y=ZeroTangent()),
    Tangent[Particle](position=np.ones(2), mass=2.0),
    Tangent[dict]({"a": 1.0}),
    ((1.0, [2.0, (3j,)]), {"k": Point(4.0, 5.0)}),
]


@pytest.mark.parametrize("x", ROUND_TRIPS, ids=lambda x: type(x).__name__)
def test_round_trip(x):
    v, back = to_vec(x)
    assert isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype == np.float64
    same(back(v), x)


@pytest.mark.parametrize("x", ROUND_TRIPS, ids=lambda x: type(x).__name__)
def test_back_is_linear_in_the_vector(x):
    v, back = to_vec(x)
    w, _ = to_vec(back(2 * v))
    np.testing.assert_allclose(w, 2 * v, rtol=1e-6)


def test_complex_is_two_reals():
    v, back = to_vec(3 + 4j)
    np.testing.assert_array_equal(v, [3.0, 4.0])
    assert back(np.array([1.0, -1.0])) == 1 - 1j
    v, _ = to_vec(np.array([1 + 2j, 3 + 4j]))
    np.testing.assert_array_equal(v, [1, 2, 3, 4])


def test_numpy_scalars_keep_their_type():
    v, back = to_vec(np.float32(1.5))
    y = back(v + 1)
    assert type(y) is np.float32 and y == np.float32(2.5)
    v, back = to_vec(np.complex64(1j))
    assert type(back(v)) is np.complex64


def test_arrays_keep_dtype_and_shape():
    x = np.ones((2, 3), dtype=np.float32)
    v, back = to_vec(x)
    assert v.shape == (6,)
    y = back(v)
    assert y.dtype == np.float32 and y.shape == (2, 3)


def test_back_returns_a_new_array():
    x = np.ones(3)
    v, back = to_vec(x)
    v[0] = 5.0
    assert x[0] == 1.0
    assert back(v) is not x


NON_DIFFERENTIABLE = [3, True, np.int64(2), np.bool_(True), "s", b"b", None, np.arange(3),
                      np.array([True]), len, int, ZeroTangent(), NoTangent(), object()]


@pytest.mark.parametrize("x", NON_DIFFERENTIABLE, ids=lambda x: type(x).__name__)
def test_leaves_without_tangent_space_are_untouched(x):
    v, back = to_vec(x)
    assert v.shape == (0,)
    assert back(v) is x


def test_mixed_structure_leaves_ints_alone():
    x = (1.0, 2, "a", np.arange(2), np.ones(2))
    v, back = to_vec(x)
    np.testing.assert_array_equal(v, [1.0, 1.0, 1.0])
    y = back(np.array([5.0, 6.0, 7.0]))
    assert y[0] == 5.0 and y[1] == 2 and y[2] == "a" and y[3] is x[3]
    np.testing.assert_array_equal(y[4], [6.0, 7.0])


def test_thunk_is_flattened_by_value():
    v, back = to_vec(cr.Thunk(lambda: np.array([1.0, 2.0])))
    np.testing.assert_array_equal(v, [1.0, 2.0])


def test_wrong_length_is_an_error():
    _, back = to_vec((1.0, 2.0))
    with pytest.raises(ValueError, match="length 2"):
        back(np.zeros(3))


# ----- the tangent layout ---------------------------------------------------

def test_tangent_vec_accepts_tangents_and_primal_shaped_values():
    x = Point(1.0, np.array([1.0, 2.0]))
    lay = layout_of(x)
    np.testing.assert_array_equal(lay.tangent_vec(Tangent[Point](y=np.array([3.0, 4.0]))), [0, 3, 4])
    np.testing.assert_array_equal(lay.tangent_vec(Point(1.0, np.array([3.0, 4.0]))), [1, 3, 4])
    np.testing.assert_array_equal(lay.tangent_vec(ZeroTangent()), [0, 0, 0])
    np.testing.assert_array_equal(lay.tangent_vec(cr.Thunk(lambda: (2.0, ZeroTangent()))), [2, 0, 0])


def test_tangent_vec_of_dict_and_dataclass():
    lay = layout_of({"a": 1.0, "b": 2j})
    np.testing.assert_array_equal(lay.tangent_vec(Tangent[dict]({"b": 1j})), [0, 0, 1])
    np.testing.assert_array_equal(lay.tangent_vec({"a": 3.0}), [3, 0, 0])
    lay = layout_of(Particle(np.ones(2), 1.0))
    np.testing.assert_array_equal(lay.tangent_vec(Tangent[Particle](mass=2.0)), [0, 0, 2])


def test_tangent_from_vector_is_a_tangent():
    x = (1.0, 2, {"a": np.float32(1.0)}, Particle(np.ones(2), 1.0), [3.0, "s"])
    lay = layout_of(x)
    t = lay.tangent(np.arange(1.0, 7.0))
    assert isinstance(t, Tangent[tuple])
    assert t[0] == 1.0 and t[1] is NoTangent()
    assert isinstance(t[2], Tangent[dict]) and type(t[2]["a"]) is np.float32
    assert isinstance(t[3], Tangent[Particle]) and t[3].mass == 5.0
    np.testing.assert_array_equal(t[3].position, [3.0, 4.0])
    assert t[4] == [6.0, NoTangent()]


def test_structure_without_tangent_space_has_no_tangent():
    assert layout_of((1, "a")).tangent(np.zeros(0)) is NoTangent()


def test_tangent_vec_rejects_mismatches():
    with pytest.raises(ValueError, match="imaginary part"):
        layout_of(1.0).tangent_vec(1j)
    with pytest.raises(ValueError, match="shape"):
        layout_of(np.ones(3)).tangent_vec(np.ones(2))
    with pytest.raises(ValueError, match="elements"):
        layout_of((1.0, 2.0)).tangent_vec((1.0,))
    with pytest.raises(TypeError, match="not a tangent"):
        layout_of(1.0).tangent_vec("a")
    with pytest.raises(ValueError, match="keys"):
        layout_of({"a": 1.0}).tangent_vec({"b": 1.0})
