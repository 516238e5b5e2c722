"""Property tests of the tangent algebra (hypothesis): the zero laws, the
precedence ladder NotImplementedTangent > NoTangent > ZeroTangent > Thunk >
Tangent > anything else, `+` commutative and associative within a tangent
space, `P + Tangent[P]` rebuilding the primal, and `ProjectTo` idempotent.

The cell-by-cell tables of test_tangent_arithmetic.py fix one value per rung;
here every rung holds drawn values.  The profile (tests/conftest.py) is
derandomized: each run draws the same examples."""

import dataclasses
import operator
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import chainrules as cr
from chainrules import NoTangent, NotImplementedTangentError, ProjectTo, Tangent, Thunk, ZeroTangent, unthunk
from chainrules.testing import test_approx

Z = ZeroTangent()
NO = NoTangent()
Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Box:
    w: float
    h: float


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float


# ----- strategies ---------------------------------------------------------------

reals = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
complexes = st.builds(complex, reals, reals)
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)


def arrays(dtype, shape):
    elements = complexes if np.dtype(dtype).kind == "c" else reals
    return hnp.arrays(dtype, shape, elements=elements.map(lambda v: np.dtype(dtype).type(v)))


@st.composite
def spaces(draw):
    """A strategy of values of one tangent space: floats, complex numbers,
    NumPy scalars, arrays of one dtype and shape, Tangent[tuple] /
    Tangent[namedtuple] / Tangent[dict] / Tangent[dataclass] of floats."""
    kind = draw(st.sampled_from(["float", "complex", "float64", "float32", "array", "tuple", "namedtuple",
                                 "dict", "dataclass"]))
    if kind == "float":
        return reals
    if kind == "complex":
        return complexes
    if kind == "float64":
        return reals.map(np.float64)
    if kind == "float32":
        return st.floats(-1e3, 1e3, width=32, allow_nan=False, allow_subnormal=False).map(np.float32)
    if kind == "array":
        dtype = draw(st.sampled_from([np.float64, np.complex128]))
        return arrays(dtype, draw(shapes))
    if kind == "tuple":
        n = draw(st.integers(1, 3))
        return st.lists(reals, min_size=n, max_size=n).map(lambda v: Tangent[tuple](*v))
    if kind == "namedtuple":
        # absent fields are zero
        return st.fixed_dictionaries({}, optional={"x": reals, "y": reals}).map(lambda d: Tangent[Point](**d))
    if kind == "dict":
        return st.fixed_dictionaries({}, optional={"a": reals, "b": reals}).map(lambda d: Tangent[dict](d))
    return st.fixed_dictionaries({}, optional={"w": reals, "h": reals}).map(lambda d: Tangent[Box](**d))


def thunked(values):
    """A value of the space, or the same value behind a Thunk."""
    return st.one_of(values, values.map(lambda v: Thunk(lambda: v)))


def _same(a, b):
    """a and b are the same tangent: equal values of the same type, after unthunking."""
    a, b = unthunk(a), unthunk(b)
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b, (a, b)


# ----- the zero laws ------------------------------------------------------------

@given(spaces().flatmap(thunked))
def test_zero_tangent_is_the_identity_of_addition(v):
    assert v + Z is v and Z + v is v
    assert v - Z is v
    _same(Z - v, -unthunk(v))


@given(spaces().flatmap(thunked))
def test_zero_tangent_absorbs_multiplication(v):
    assert v * Z is Z and Z * v is Z


@given(spaces().flatmap(thunked))
def test_no_tangent_is_the_identity_of_addition_and_absorbs_multiplication(v):
    assert v + NO is v and NO + v is v
    assert v * NO is NO and NO * v is NO


@given(spaces().flatmap(thunked))
def test_not_implemented_wins_addition_and_has_no_difference(v):
    n = cr.not_implemented("a property test")
    assert v + n is n and n + v is n
    with pytest.raises(NotImplementedTangentError):
        v - n
    with pytest.raises(NotImplementedTangentError):
        n - v


# ----- the precedence ladder ------------------------------------------------------

RUNGS = ["N", "No", "Z", "T", "S", "A"]


@st.composite
def rung_values(draw, rung):
    if rung == "N":
        return cr.not_implemented(draw(st.text(max_size=5)))
    if rung == "No":
        return NO
    if rung == "Z":
        return Z
    if rung == "T":
        v = draw(reals)
        return Thunk(lambda: v)
    if rung == "S":
        return Tangent[tuple](draw(reals), draw(reals))
    return draw(reals)


def _expected(op, ra, rb, a, b):
    """What `a op b` gives by the ladder: one of the operands (by identity),
    'value' (the operation on the unthunked values) or TypeError."""
    pair = {ra, rb}
    if op is operator.add:
        if "N" in pair:
            return a if ra == "N" else b
        if pair <= {"No", "Z"}:
            return NO if "No" in pair else Z
        if ra in ("No", "Z"):
            return b
        if rb in ("No", "Z"):
            return a
        if pair in ({"T", "S"}, {"S", "A"}):
            return TypeError
        return "value"
    if "Z" in pair:
        return Z
    if "No" in pair:
        return NO
    if "N" in pair:
        return a if ra == "N" else b
    if pair == {"S"}:
        return TypeError
    return "value"


@given(st.sampled_from([operator.add, operator.mul]),
       st.sampled_from(RUNGS).flatmap(lambda r: st.tuples(st.just(r), rung_values(r))),
       st.sampled_from(RUNGS).flatmap(lambda r: st.tuples(st.just(r), rung_values(r))))
def test_precedence_ladder(op, left, right):
    (ra, a), (rb, b) = left, right
    want = _expected(op, ra, rb, a, b)
    if want is TypeError:
        with pytest.raises(TypeError):
            op(a, b)
        return
    got = op(a, b)
    if want == "value":
        _same(got, op(unthunk(a), unthunk(b)))
    else:
        assert got is want


# ----- + is commutative and associative within a space -------------------------------

@st.composite
def same_space(draw, n):
    """n values of one drawn space, each possibly thunked or a ZeroTangent."""
    space = draw(spaces())
    # an array space draws one shape: fix it by drawing the first value and matching the rest
    first = draw(space)
    if isinstance(first, np.ndarray):
        space = arrays(first.dtype, first.shape)
    values = [first] + [draw(space) for _ in range(n - 1)]
    out = []
    for v in values:
        how = draw(st.sampled_from(["plain", "plain", "thunk", "zero"]))
        out.append(Thunk(lambda v=v: v) if how == "thunk" else Z if how == "zero" else v)
    return out


@given(same_space(2))
def test_addition_is_commutative(ab):
    a, b = ab
    left, right = a + b, b + a
    if isinstance(left, (ZeroTangent, Thunk)) or isinstance(right, (ZeroTangent, Thunk)):
        test_approx(left, right, rtol=0, atol=0)
    else:
        _same(left, right)


@given(same_space(3))
def test_addition_is_associative(abc):
    a, b, c = abc
    left, right = (a + b) + c, a + (b + c)
    test_approx(left, right)   # tolerance by precision: float32 spaces round
    if not isinstance(left, (ZeroTangent, Thunk)) and not isinstance(right, (ZeroTangent, Thunk)):
        assert type(left) is type(right)


@given(same_space(2))
def test_subtraction_is_adding_the_negation(ab):
    a, b = ab
    test_approx(a - b, a + (-unthunk(b)))


# ----- P + Tangent[P] ---------------------------------------------------------------

@st.composite
def primal_and_tangent(draw):
    """(primal, tangent, expected primal + tangent) for tuples, namedtuples,
    dicts and dataclasses of floats, fields of the tangent possibly absent."""
    kind = draw(st.sampled_from(["tuple", "namedtuple", "dict", "dataclass", "frozen", "nested"]))
    u, v, du, dv = (draw(reals) for _ in range(4))
    if kind == "tuple":
        return (u, v), Tangent[tuple](du, dv), (u + du, v + dv)
    if kind == "namedtuple":
        given_ = draw(st.sampled_from([("x",), ("y",), ("x", "y")]))
        t = Tangent[Point](**{k: d for k, d in zip(("x", "y"), (du, dv)) if k in given_})
        return Point(u, v), t, Point(u + du if "x" in given_ else u, v + dv if "y" in given_ else v)
    if kind == "dict":
        t = Tangent[dict]({"a": du})
        return {"a": u, "b": v}, t, {"a": u + du, "b": v}
    if kind == "dataclass":
        return Box(u, v), Tangent[Box](h=dv), Box(u, v + dv)
    if kind == "frozen":
        return Frozen(u, v), Tangent[Frozen](a=du, b=dv), Frozen(u + du, v + dv)
    return (Point(u, v), v), Tangent[tuple](Tangent[Point](x=du), dv), (Point(u + du, v), v + dv)


@given(primal_and_tangent())
def test_primal_plus_tangent_rebuilds_the_primal(case):
    p, t, want = case
    for got in (p + t, t + p):
        assert type(got) is type(want)
        assert got == want


@given(primal_and_tangent())
def test_primal_plus_zero_is_the_primal(case):
    p, _, _ = case
    assert p + Z is p and Z + p is p


# ----- ProjectTo is idempotent ---------------------------------------------------

DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int64, np.bool_,
          np.dtype(">f8"), np.dtype(">c16")]


@st.composite
def array_primal_and_tangent(draw):
    shape = draw(shapes)
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    x = np.zeros(shape, dtype)
    ddtype = draw(st.sampled_from([np.float32, np.float64, np.complex128]))
    dx = draw(arrays(ddtype, shape))
    return x, dx


@given(array_primal_and_tangent())
def test_projecting_an_array_tangent_twice_is_projecting_it_once(case):
    x, dx = case
    p = ProjectTo(x)
    once = p(dx)
    twice = p(once)
    _same(twice, once)
    if not isinstance(once, NoTangent):
        assert once.shape == x.shape
        assert once.dtype == x.dtype or (x.dtype.kind == "c" and once.dtype.kind == "f")
        if x.dtype.kind == "f":
            np.testing.assert_array_equal(once, dx.real.astype(x.dtype))


SCALARS = st.one_of(reals, complexes, reals.map(np.float64), reals.map(np.float32), complexes.map(np.complex64),
                    complexes.map(np.complex128), st.integers(-10, 10), st.booleans())


@given(SCALARS, st.one_of(reals, complexes, reals.map(np.float32), complexes.map(np.complex128),
                          reals.map(np.array)))
def test_projecting_a_scalar_tangent_twice_is_projecting_it_once(x, dx):
    p = ProjectTo(x)
    once = p(dx)
    _same(p(once), once)


@given(st.lists(st.one_of(reals, complexes, st.booleans(), st.integers(-3, 3),
                          hnp.arrays(np.float32, st.integers(0, 3), elements=st.floats(-10, 10, width=32))),
                min_size=1, max_size=3).map(tuple), st.data())
def test_projecting_a_tuple_tangent_twice_is_projecting_it_once(x, data):
    dx = tuple(data.draw(arrays(np.complex128, v.shape)) if isinstance(v, np.ndarray) else data.draw(complexes)
               for v in x)
    p = ProjectTo(x)
    once = p(dx)
    twice = p(once)
    assert type(twice) is type(once)
    test_approx(twice, once, rtol=0, atol=0)
    for part, v in zip(once, x):
        if isinstance(v, np.ndarray):
            assert part.dtype == v.dtype and part.shape == v.shape
