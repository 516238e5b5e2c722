"""rand_tangent: the right type, dtype and shape for every kind of primal."""

import dataclasses
import math
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

from chainrules import NoTangent, Tangent
from chainrules.testing import rand_tangent

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Params:
    w: np.ndarray
    n: int


@dataclasses.dataclass
class Labels:
    name: str
    count: int


class Plain:
    def __init__(self):
        self.a = 1.0
        self.b = "s"


@pytest.mark.parametrize("x", [1.0, -3.5, np.float64(2.0), np.float32(1.0), np.float16(1.0)])
def test_real_numbers_keep_their_type(x):
    t = rand_tangent(x)
    assert type(t) is type(x) and t != 0


@pytest.mark.parametrize("x", [1j, np.complex64(1j), np.complex128(1 + 1j)])
def test_complex_numbers_keep_their_type(x):
    t = rand_tangent(x)
    assert type(t) is type(x) and t.real != 0 and t.imag != 0


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 1)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_arrays_keep_dtype_and_shape(shape, dtype):
    x = np.ones(shape, dtype=dtype)
    t = rand_tangent(x)
    assert isinstance(t, np.ndarray) and t.dtype == dtype and t.shape == shape
    if t.size:
        assert np.all(t != 0)
        if np.dtype(dtype).kind == "c":
            assert np.any(t.imag != 0)


@pytest.mark.parametrize("x", [3, True, np.int64(1), np.bool_(False), np.arange(3), np.array([True]),
                               "s", b"b", None, math.sin, int, (1, "a"), [1, 2], {"k": 1},
                               Labels("a", 1), ()])
def test_no_tangent_space(x):
    assert rand_tangent(x) is NoTangent()


def test_tuple_and_namedtuple_get_a_tangent():
    t = rand_tangent((1.0, 2, np.ones(2)))
    assert isinstance(t, Tangent[tuple])
    assert isinstance(t[0], float) and t[1] is NoTangent() and t[2].shape == (2,)
    p = rand_tangent(Point(1.0, np.float32(2.0)))
    assert isinstance(p, Tangent[Point]) and type(p.y) is np.float32


def test_list_gets_a_list():
    t = rand_tangent([1.0, 2])
    assert isinstance(t, list) and isinstance(t[0], float) and t[1] is NoTangent()


def test_dict_gets_a_tangent():
    t = rand_tangent({"a": 1.0, "n": 2})
    assert isinstance(t, Tangent[dict]) and isinstance(t["a"], float) and t["n"] is NoTangent()
    o = rand_tangent(OrderedDict(a=1j))
    assert isinstance(o, Tangent[OrderedDict]) and isinstance(o["a"], complex)


def test_dataclass_gets_a_tangent():
    t = rand_tangent(Params(np.ones(2, dtype=np.float32), 3))
    assert isinstance(t, Tangent[Params])
    assert t.w.dtype == np.float32 and t.n is NoTangent()


def test_plain_object_with_fields():
    t = rand_tangent(Plain())
    assert isinstance(t, Tangent[Plain]) and isinstance(t.a, float) and t.b is NoTangent()


def test_object_arrays_element_wise():
    x = np.empty(2, dtype=object)
    x[0], x[1] = 1.0, 2
    t = rand_tangent(x)
    assert t.dtype == object and isinstance(t[0], float) and t[1] is NoTangent()


def test_rng_is_used_and_reproducible():
    a = rand_tangent(np.ones(4), rng=np.random.default_rng(1))
    b = rand_tangent(np.ones(4), rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert rand_tangent(1.0, rng=np.random.default_rng(2)) == rand_tangent(1.0, rng=np.random.default_rng(2))


def test_scalars_are_readable_and_away_from_zero():
    rng = np.random.default_rng(0)
    for _ in range(50):
        t = rand_tangent(1.0, rng)
        assert 0.5 <= abs(t) <= 3.0 and round(t, 2) == t


def test_testers_draw_the_same_tangents_whatever_ran_before():
    import importlib
    rt = importlib.import_module("chainrules.testing.rand_tangent")

    def draws():
        rt.reseed_for(np.sin)
        return rt.rand_tangent(np.ones(4))

    first = draws()
    rt.rand_tangent(np.ones(100))          # another test's draws in between
    np.testing.assert_array_equal(draws(), first)
