"""Every cell of the tangent arithmetic tables: the precedence ladder
NotImplementedTangent > NoTangent > ZeroTangent > Thunk > Tangent > Any."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, NotImplementedTangentError, Tangent, Thunk, ZeroTangent

N = cr.not_implemented("test partial")
NO = NoTangent()
Z = ZeroTangent()
T = Thunk(lambda: 2.0)
S = Tangent[tuple](1.0, 2.0)
A = 3.0

# (name, value) rows of the ladder, highest first
LADDER = [("N", N), ("No", NO), ("Z", Z), ("T", T), ("S", S), ("A", A)]

RAISES = "raises"
TYPEERR = "typeerror"


def _check(result_fn, expected):
    if expected == RAISES:
        with pytest.raises(NotImplementedTangentError):
            result_fn()
        return
    if expected == TYPEERR:
        with pytest.raises(TypeError):
            result_fn()
        return
    got = result_fn()
    if isinstance(expected, (cr.AbstractZero, cr.NotImplementedTangent, cr.Thunk)):
        # zeros return the other operand itself (a thunk stays unevaluated)
        assert got is expected
    elif isinstance(expected, cr.Tangent):
        assert isinstance(got, cr.Tangent) and got == expected
    else:
        assert type(got) is type(expected) and got == expected


ADD = {
    ("N", "N"): N, ("N", "No"): N, ("N", "Z"): N, ("N", "T"): N, ("N", "S"): N, ("N", "A"): N,
    ("No", "No"): NO, ("No", "Z"): NO, ("No", "T"): T, ("No", "S"): S, ("No", "A"): A,
    ("Z", "Z"): Z, ("Z", "T"): T, ("Z", "S"): S, ("Z", "A"): A,
    ("T", "T"): 4.0, ("T", "S"): TYPEERR, ("T", "A"): 5.0,
    ("S", "S"): Tangent[tuple](2.0, 4.0), ("S", "A"): TYPEERR,
    ("A", "A"): 6.0,
}

MUL = {
    ("N", "N"): N, ("N", "No"): NO, ("N", "Z"): Z, ("N", "T"): N, ("N", "S"): N, ("N", "A"): N,
    ("No", "No"): NO, ("No", "Z"): Z, ("No", "T"): NO, ("No", "S"): NO, ("No", "A"): NO,
    ("Z", "Z"): Z, ("Z", "T"): Z, ("Z", "S"): Z, ("Z", "A"): Z,
    ("T", "T"): 4.0, ("T", "S"): Tangent[tuple](2.0, 4.0), ("T", "A"): 6.0,
    ("S", "S"): TYPEERR, ("S", "A"): Tangent[tuple](3.0, 6.0),
    ("A", "A"): 9.0,
}

# a - b, not symmetric: every ordered pair
SUB = {
    ("No", "No"): NO, ("No", "Z"): NO, ("Z", "No"): NO,
    ("No", "T"): -2.0, ("T", "No"): T, ("No", "S"): Tangent[tuple](-1.0, -2.0), ("S", "No"): S,
    ("No", "A"): -3.0, ("A", "No"): A,
    ("Z", "Z"): Z, ("Z", "T"): -2.0, ("T", "Z"): T, ("Z", "S"): Tangent[tuple](-1.0, -2.0),
    ("S", "Z"): S, ("Z", "A"): -3.0, ("A", "Z"): A,
    ("T", "T"): 0.0, ("T", "A"): -1.0, ("A", "T"): 1.0, ("T", "S"): TYPEERR, ("S", "T"): TYPEERR,
    ("S", "S"): Tangent[tuple](0.0, 0.0), ("S", "A"): TYPEERR, ("A", "S"): TYPEERR,
    ("A", "A"): 0.0,
}
for _name, _ in LADDER:
    SUB[("N", _name)] = RAISES
    SUB[(_name, "N")] = RAISES

# a / b
DIV = {
    ("No", "A"): NO, ("Z", "A"): Z, ("No", "No"): NO, ("Z", "Z"): Z, ("No", "Z"): NO, ("Z", "No"): TYPEERR,
    ("T", "A"): 2.0 / 3.0, ("A", "T"): 1.5, ("T", "T"): 1.0,
    ("S", "A"): Tangent[tuple](1.0 / 3.0, 2.0 / 3.0), ("A", "S"): TYPEERR, ("S", "S"): TYPEERR,
    ("A", "Z"): TYPEERR, ("A", "No"): TYPEERR, ("T", "Z"): TYPEERR, ("S", "Z"): TYPEERR,
    ("A", "A"): 1.0,
}
for _name, _ in LADDER:
    DIV[("N", _name)] = RAISES
    DIV[(_name, "N")] = RAISES

VALUES = dict(LADDER)


def _symmetric_cells(table):
    cells = []
    for (a, b), expected in table.items():
        cells.append((a, b, expected))
        if a != b:
            cells.append((b, a, expected))
    return cells


@pytest.mark.parametrize("a,b,expected", _symmetric_cells(ADD), ids=lambda v: str(v)[:12])
def test_add_cell(a, b, expected):
    _check(lambda: VALUES[a] + VALUES[b], expected)


@pytest.mark.parametrize("a,b,expected", _symmetric_cells(MUL), ids=lambda v: str(v)[:12])
def test_mul_cell(a, b, expected):
    _check(lambda: VALUES[a] * VALUES[b], expected)


@pytest.mark.parametrize("a,b,expected", list((a, b, e) for (a, b), e in SUB.items()), ids=lambda v: str(v)[:12])
def test_sub_cell(a, b, expected):
    _check(lambda: VALUES[a] - VALUES[b], expected)


@pytest.mark.parametrize("a,b,expected", list((a, b, e) for (a, b), e in DIV.items()), ids=lambda v: str(v)[:12])
def test_div_cell(a, b, expected):
    _check(lambda: VALUES[a] / VALUES[b], expected)


def test_every_ordered_pair_of_the_ladder_has_a_cell():
    names = [n for n, _ in LADDER]
    for a in names:
        for b in names:
            assert (a, b) in ADD or (b, a) in ADD
            assert (a, b) in MUL or (b, a) in MUL
            assert (a, b) in SUB
    # division by anything of the ladder from each rung (N rows/columns raise)
    for a in names:
        assert (a, "N") in DIV and ("N", a) in DIV


@pytest.mark.parametrize("name,expected", [
    ("N", N), ("No", NO), ("Z", Z), ("T", -2.0), ("S", Tangent[tuple](-1.0, -2.0)), ("A", -3.0)])
def test_negation(name, expected):
    _check(lambda: -VALUES[name], expected)


@pytest.mark.parametrize("name", ["No", "Z", "T", "S"])
def test_unary_plus_is_identity(name):
    assert +VALUES[name] is VALUES[name]


def test_conj_real_imag():
    for z in (NO, Z):
        assert z.conj() is z and z.real is z and z.imag is z
    assert N.conj() is N
    t = Thunk(lambda: 1 + 2j)
    assert t.conj() == 1 - 2j and t.real == 1.0 and t.imag == 2.0
    s = Tangent[tuple](1 + 2j, 3.0)
    assert s.conj() == Tangent[tuple](1 - 2j, 3.0)
    assert s.real == Tangent[tuple](1.0, 3.0)
    assert s.imag == Tangent[tuple](2.0, 0.0)


# ----- mixing with NumPy, both ways -----------------------------------------

def test_numpy_array_plus_zero_is_the_array_both_ways():
    x = np.ones(3)
    for z in (Z, NO):
        left, right = x + z, z + x
        assert left.dtype == np.float64 and right.dtype == np.float64
        np.testing.assert_array_equal(left, x)
        np.testing.assert_array_equal(right, x)
        assert (x - z).dtype == np.float64
        np.testing.assert_array_equal(z - x, -x)


def test_numpy_array_times_zero_is_the_zero_both_ways():
    x = np.ones(3)
    assert x * Z is Z and Z * x is Z
    assert x * NO is NO and NO * x is NO
    assert x / 2 * Z is Z


def test_numpy_array_with_thunk_and_notimplemented():
    x = np.arange(3.0)
    t = Thunk(lambda: np.ones(3))
    np.testing.assert_array_equal(x + t, x + 1)
    np.testing.assert_array_equal(t + x, x + 1)
    np.testing.assert_array_equal(t * x, x)
    assert x + N is N and N + x is N


def test_numpy_scalars_and_zero():
    for s in (np.float64(2.0), np.float32(2.0), np.complex128(1j)):
        assert s + Z == s and type(s + Z) is type(s)
        assert Z + s == s
        assert s * Z is Z


def test_structural_tangent_with_arrays():
    s = Tangent[tuple](np.ones(2), 1.0)
    d = s + s
    np.testing.assert_array_equal(d[0], 2 * np.ones(2))
    assert d[1] == 2.0
    with pytest.raises(TypeError):
        s * np.ones(2)


def test_notimplemented_needs_its_value():
    with pytest.raises(NotImplementedTangentError, match="test partial"):
        float(N)
    with pytest.raises(NotImplementedTangentError):
        bool(N)
