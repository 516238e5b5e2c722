"""test_approx on tangents of every kind, default tolerances by precision,
check_tangent_type and the add_inplace check."""

import dataclasses
from collections import namedtuple

import numpy as np
import pytest

import chainrules as cr
from chainrules import InplaceableThunk, NoTangent, Tangent, Thunk, ZeroTangent
from chainrules.testing import default_tolerance, test_approx
from chainrules.testing.check_result import check_add_inplace, check_tangent_type

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Box:
    a: float
    b: np.ndarray


# ----- test_approx: what passes ---------------------------------------------

@pytest.mark.parametrize("actual,expected", [
    (1.0, 1.0 + 1e-12),
    (1 + 2j, 1 + 2j + 1e-12j),
    (np.float32(1.0), 1.0 + 1e-6),                       # float32: rtol 1e-4
    (np.ones(3), np.ones(3) + 1e-12),
    (np.array(2.0), 2.0),
    (np.zeros(0), np.zeros(0)),
    (Thunk(lambda: 2.0), 2.0),
    (2.0, Thunk(lambda: 2.0)),
    (InplaceableThunk(lambda d: d, Thunk(lambda: np.ones(2))), np.ones(2)),
    (ZeroTangent(), 0.0),
    (ZeroTangent(), np.zeros(3)),
    (NoTangent(), ZeroTangent()),
    (NoTangent(), 0.0),
    (np.zeros(2), ZeroTangent()),
    (Tangent[tuple](1.0, ZeroTangent()), (1.0, 0.0)),
    (Tangent[Point](x=1.0), Tangent[Point](1.0, 0.0)),
    (Tangent[Point](x=1.0), Point(1.0, 0.0)),
    (Tangent[dict]({"a": 1.0}), {"a": 1.0, "b": 0.0}),
    (Tangent[Box](a=1.0, b=np.ones(2)), Box(1.0, np.ones(2))),
    ((1.0, [2.0, np.ones(2)]), (1.0, [2.0, np.ones(2)])),
    ([1.0, ZeroTangent()], [1.0, 0.0]),
    (cr.not_implemented("later"), 5.0),
    ("label", "label"),
    (None, None),
    (np.array([np.nan, 1.0]), np.array([np.nan, 1.0])),
])
def test_approx_passes(actual, expected):
    test_approx(actual, expected)


# ----- test_approx: what fails, and how it says so --------------------------

@pytest.mark.parametrize("actual,expected,fragment", [
    (1.0, 1.001, "difference 0.001"),
    (1 + 2j, 1 - 2j, "difference 4"),
    (np.ones(3), np.ones(2), "shape (3,) differs from the expected shape (2,)"),
    (np.ones(3), np.array([1.0, 1.1, 1.0]), "worst at index (1,)"),
    (np.ones((2, 2)), np.eye(2), "2 of 4 entries off"),
    (ZeroTangent(), 1.0, "one is a zero tangent"),
    (np.ones(2), NoTangent(), "one is a zero tangent"),
    (Tangent[tuple](1.0, 2.0), (1.0, 2.5), "[1]"),
    (Tangent[Point](x=1.0, y=2.0), Tangent[Point](x=1.0, y=3.0), ".y"),
    (Tangent[tuple](1.0), (1.0, 2.0), "got 1 elements, expected 2"),
    (Tangent[dict]({"a": 1.0}), {"a": 1.0, "b": 2.0}, "['b']"),
    ((1.0, 2.0), 3.0, "one is a structure"),
    (Thunk(lambda: 1.0), 2.0, "got 1.0, expected 2.0"),
    ("a", "b", "got 'a', expected 'b'"),
    (np.array([np.nan]), np.array([1.0]), "difference nan"),
    (Tangent[Point](x=1.0), Tangent[tuple](1.0, 0.0), "Tangent[Point]"),
])
def test_approx_fails_with_a_readable_message(actual, expected, fragment):
    with pytest.raises(AssertionError) as e:
        test_approx(actual, expected, "my context")
    msg = str(e.value)
    assert msg.startswith("my context")
    assert fragment in msg, msg


def test_approx_reports_every_failing_field():
    with pytest.raises(AssertionError) as e:
        test_approx(Tangent[Point](x=1.0, y=2.0), Point(0.0, 0.0))
    assert ".x" in str(e.value) and ".y" in str(e.value)


def test_approx_explicit_tolerances():
    test_approx(1.0, 1.1, rtol=0.2, atol=0)
    with pytest.raises(AssertionError, match="rtol=0.01"):
        test_approx(1.0, 1.1, rtol=0.01, atol=0)
    test_approx(0.0, 1e-3, rtol=0, atol=1e-2)


# ----- default tolerances ----------------------------------------------------

def test_default_tolerance_follows_the_least_precise_float():
    assert default_tolerance(1.0, np.ones(2)) == 1e-9
    assert default_tolerance(np.float32(1.0)) == 1e-4
    assert default_tolerance(1.0, (np.ones(2, dtype=np.float32),)) == 1e-4
    assert default_tolerance(np.complex64(1j)) == 1e-4
    assert default_tolerance({"a": np.float16(1)}) == 1e-2
    assert default_tolerance(Tangent[tuple](np.float32(1.0))) == 1e-4
    assert default_tolerance(np.arange(3)) == 1e-9


def test_float32_does_not_fail_on_1e_9():
    x = np.float32(1.0) / np.float32(3.0)
    test_approx(x, 1 / 3)           # off by 1e-8: fine at float32 precision
    with pytest.raises(AssertionError):
        test_approx(float(x), 1 / 3)


# ----- check_tangent_type ----------------------------------------------------

@pytest.mark.parametrize("primal,dx", [
    (1.0, 2.0), (1, 2.0), (1.0, np.float64(2.0)), (1 + 1j, 2.0), (1 + 1j, 2j),
    (np.float32(1), np.float32(2)), (np.complex64(1), np.complex64(2j)),
    (np.ones(2), np.ones(2)), (np.ones(2, dtype=np.float32), np.ones(2, dtype=np.float32)),
    (np.ones(2, dtype=np.complex128), np.ones(2, dtype=np.complex128)),
    (np.ones(2), ZeroTangent()), (np.ones(2), Thunk(lambda: np.ones(2))),
    ((1.0, np.ones(2)), Tangent[tuple](1.0, np.ones(2))),
    (np.arange(3), NoTangent()), ("s", NoTangent()),
])
def test_tangent_type_accepted(primal, dx):
    check_tangent_type(primal, dx, "x")


@pytest.mark.parametrize("primal,dx,fragment", [
    (1.0, 2j, "must be real"),
    (1.0, np.ones(1), "must be a number"),
    (1.0, "s", "must be a number"),
    (np.float32(1), 2.0, "keep its precision"),
    (np.float32(1), np.float64(2.0), "keep its precision"),
    (np.ones(2), 1.0, "must be an array"),
    (np.ones(2), np.ones(3), "shape (3,) differs"),
    (np.ones(2, dtype=np.float32), np.ones(2), "dtype float64 differs"),
    (np.ones(2), np.ones(2, dtype=np.complex128), "dtype complex128 differs"),
    # tangents have the primal's dtype, always (issue 11): no real tangent of a complex array
    (np.ones(2, dtype=np.complex128), np.ones(2), "dtype float64 differs"),
    (np.complex64(1), np.float32(1), "keep its precision"),
    (np.complex128(1), np.float64(1), "keep its precision"),
    ((1.0, np.ones(2, dtype=np.float32)), Tangent[tuple](1.0, np.ones(2)), "[1]"),
    ((1.0, 2.0), Tangent[Point](1.0, 2.0), "is not a tangent of a tuple"),
])
def test_tangent_type_rejected(primal, dx, fragment):
    with pytest.raises(AssertionError) as e:
        check_tangent_type(primal, dx, "the cotangent")
    assert fragment in str(e.value)


# ----- add_inplace against + -------------------------------------------------

def test_add_inplace_check_passes_for_plain_values_and_right_thunks():
    check_add_inplace(np.ones(3), np.arange(3.0), "x", 1e-9, 1e-9)
    check_add_inplace(1.0, 2.0, "x", 1e-9, 1e-9)
    check_add_inplace(Tangent[tuple](1.0, 2.0), Tangent[tuple](1.0, ZeroTangent()), "x", 1e-9, 1e-9)
    check_add_inplace([1.0, 2.0], [3.0, 4.0], "x", 1e-9, 1e-9)
    good = InplaceableThunk(lambda acc: np.add(acc, 1.0, out=acc), Thunk(lambda: np.ones(3)))
    check_add_inplace(np.zeros(3), good, "x", 1e-9, 1e-9)
    check_add_inplace(ZeroTangent(), good, "x", 1e-9, 1e-9)


def test_add_inplace_check_catches_a_wrong_add_fn():
    bad = InplaceableThunk(lambda acc: np.add(acc, 2.0, out=acc), Thunk(lambda: np.ones(3)))
    with pytest.raises(AssertionError, match="InplaceableThunk's add_fn"):
        check_add_inplace(np.zeros(3), bad, "∂x", 1e-9, 1e-9)


def test_add_inplace_check_does_not_mutate_the_accumulator():
    acc = np.zeros(3)
    check_add_inplace(acc, np.ones(3), "x", 1e-9, 1e-9)
    assert not acc.any()


def test_add_inplace_check_catches_a_wrong_dtype_from_add_fn():
    bad = InplaceableThunk(lambda acc: acc.astype(np.float64) + 1, Thunk(lambda: np.ones(2, dtype=np.float32)))
    with pytest.raises(AssertionError, match="dtype float64"):
        check_add_inplace(np.zeros(2, dtype=np.float32), bad, "∂x", 1e-4, 1e-4)
