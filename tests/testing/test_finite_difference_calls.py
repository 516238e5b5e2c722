"""The testers' finite difference calls: fixed arguments, f as argument 0, double precision."""

import dataclasses
from collections import namedtuple

import numpy as np
import pytest

from chainrules import NoTangent
from chainrules.testing.finite_difference_calls import DEFAULT_FDM, fd_jvp, fd_vjp, materialize, promote

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Box:
    a: np.ndarray
    n: int


def mul(x, y):
    return x * y


def test_jvp_with_a_fixed_argument():
    d = fd_jvp(DEFAULT_FDM, mul, {}, [mul, 2.0, 3.0], [NoTangent(), 1.0, 100.0], [1])
    assert d == pytest.approx(3.0, abs=1e-10)


def test_vjp_only_for_active_arguments():
    cts = fd_vjp(DEFAULT_FDM, mul, {}, 1.0, [mul, 2.0, 3.0], [2])
    assert list(cts) == [2] and cts[2] == pytest.approx(2.0, abs=1e-10)


def test_keyword_arguments_are_passed_and_fixed():
    def f(x, *, scale):
        return x * scale

    assert fd_vjp(DEFAULT_FDM, f, {"scale": 4.0}, 1.0, [f, 1.0], [1])[1] == pytest.approx(4.0)


def test_float32_is_differentiated_in_double_precision():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return np.sin(x)

    x = np.array([0.3, 0.7], dtype=np.float32)
    d = fd_jvp(DEFAULT_FDM, f, {}, [f, x], [NoTangent(), np.ones(2, dtype=np.float32)], [1])
    assert set(seen) == {np.dtype(np.float64)}
    np.testing.assert_allclose(d, np.cos(x.astype(np.float64)), rtol=1e-10)


def test_promote():
    assert promote(np.float32(1)).dtype == np.float64
    assert promote(np.complex64(1j)).dtype == np.complex128
    assert promote(np.ones(2, dtype=np.float16)).dtype == np.float64
    assert promote(np.ones(2, dtype=np.complex64)).dtype == np.complex128
    p = promote(Point(np.float32(1), 2))
    assert type(p) is Point and p.x.dtype == np.float64 and p.y == 2
    b = promote(Box(np.ones(1, dtype=np.float32), 3))
    assert b.a.dtype == np.float64 and b.n == 3
    assert promote([np.float32(1)])[0].dtype == np.float64
    assert promote({"k": np.float32(1)})["k"].dtype == np.float64
    x = np.ones(2)
    assert promote(x) is x and promote((x, 1)) is not None
    t = (x, 1)
    assert promote(t) is t


def test_materialize_turns_one_shot_iterators_into_lists():
    assert materialize(map(float, [1, 2])) == [1.0, 2.0]
    assert materialize(x * 2 for x in (1.0, 3.0)) == [2.0, 6.0]
    keep = [np.ones(2), (1.0, 2.0), [3.0], np.float64(2.0)]
    for x in keep:
        assert materialize(x) is x


def test_fd_of_a_function_returning_an_iterator():
    xs = [1.0, 2.0]
    f = lambda v: map(lambda t: t * t, v)     # noqa: E731
    cts = fd_vjp(DEFAULT_FDM, f, {}, [1.0, 0.5], [f, xs], [1])
    np.testing.assert_allclose(cts[1], [2.0, 2.0], rtol=1e-8)
