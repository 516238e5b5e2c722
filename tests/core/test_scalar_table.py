"""The machinery of the C scalar rule table (_core/scalar_table.pxi): the fast
path and the generic path, tangents and cotangents of every kind, pullbacks
called every way, bad input, coverage of the issue's list, threads and leaks.
The rows' derivatives are tested in test_scalar_math/cmath/operator/numpy."""

import builtins
import cmath
import functools
import gc
import math
import operator
import sys
import threading
import tracemalloc

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Thunk, ZeroTangent, frule, rrule
from chainrules._core import _scalar_row
from chainrules.testing import TestConfig

NT = NoTangent()
ZT = ZeroTangent()


# ----- the rows: which functions, which arities ------------------------------------------

ROW_FUNCTIONS = {
    1: [math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.sinh, math.cosh,
        math.tanh, math.asinh, math.acosh, math.atanh, math.exp, math.exp2, math.expm1, math.log,
        math.log2, math.log10, math.log1p, math.sqrt, math.cbrt, math.fabs, math.degrees,
        math.radians, math.erf, math.erfc, math.gamma, math.lgamma, math.floor, math.ceil,
        math.trunc, math.hypot, cmath.exp, cmath.log, cmath.log10, cmath.sqrt, cmath.sin,
        cmath.cos, cmath.tan, cmath.asin, cmath.acos, cmath.atan, cmath.sinh, cmath.cosh,
        cmath.tanh, cmath.asinh, cmath.acosh, cmath.atanh, operator.neg, operator.pos,
        operator.abs, builtins.abs, np.sin, np.exp, np.sqrt, np.negative, np.floor],
    2: [math.atan2, math.log, math.pow, math.hypot, math.copysign, math.fmod, math.remainder,
        math.ldexp, cmath.log, operator.add, operator.sub, operator.mul, operator.truediv,
        operator.floordiv, operator.mod, operator.pow, operator.iadd, operator.isub, operator.imul,
        operator.itruediv, operator.ifloordiv, operator.imod, operator.ipow, builtins.pow,
        builtins.max, builtins.min, np.add, np.power, np.arctan2, np.ldexp],
}


@pytest.mark.parametrize("n", [1, 2])
def test_rows_exist_with_their_arities(n):
    for f in ROW_FUNCTIONS[n]:
        row = _scalar_row(f)
        assert row is not None, f
        assert n in row.arities, (f, row.arities)
        assert row.primal is f
        assert repr(row).startswith("<scalar rule row of ")


def test_functions_without_rows():
    assert _scalar_row(len) is None
    assert _scalar_row(lambda x: x) is None


def test_row_names_the_function():
    assert _scalar_row(math.sin).name == "math.sin"
    assert _scalar_row(operator.add).name == "operator.add"
    assert repr(rrule(math.sin, 1.0)[1]) == "<pullback of math.sin>"
    assert repr(rrule(np.sin, np.float32(1.0))[1]) == "<pullback of numpy.sin>"


# ----- the fast path: Python floats and ints ----------------------------------------------

def test_fast_path_types():
    Ω, dΩ = frule((NT, 1.0), math.sin, 0.5)
    assert type(Ω) is float and type(dΩ) is float
    Ω, pb = rrule(math.sin, 0.5)
    assert type(Ω) is float
    assert type(pb).__name__ == "_ScalarPullback"
    assert pb(1.0) == (NT, math.cos(0.5))


def test_int_arguments_are_real_numbers():
    assert frule((NT, 1.0), math.sin, 3) == (math.sin(3), math.cos(3))
    assert rrule(math.sin, 3)[1](1) == (NT, math.cos(3))
    assert rrule(operator.add, 1, 2)[0] == 3
    assert type(rrule(operator.add, 1, 2)[0]) is int


def test_bools_are_not_numbers_here():
    assert rrule(math.sin, True) is None
    assert rrule(operator.add, True, 1.0) is None
    # a NumPy bool goes to the array rules, if any: it has no tangent there
    res = rrule(np.sin, np.bool_(True))
    assert res is None or res[1](1.0) == (NT, NT)


def test_wrong_arities_decline():
    # a row handles the arities it has kernels for; others go to other rules
    assert rrule(math.sin, 1.0, 2.0) is None
    assert rrule(math.atan2, 1.0) is None
    assert rrule(operator.add, 1.0) is None


# ----- frule tangents of every kind -----------------------------------------------------

@pytest.mark.parametrize("f, args", [(math.sin, (0.5,)), (np.sin, (np.float32(0.5),)),
                                     (cmath.exp, (0.5 + 1j,)), (operator.mul, (2.0, 3.0)),
                                     (np.multiply, (np.float32(2.0), 3.0))])
def test_zero_tangents_give_zeros(f, args):
    n = len(args)
    assert frule((NT,) + (ZT,) * n, f, *args)[1] is ZT
    assert frule((NT,) + (NT,) * n, f, *args)[1] is NT
    assert frule((NT,) + (Thunk(lambda: ZT),) * n, f, *args)[1] is ZT


def test_frule_tangent_kinds():
    c = math.cos(0.5)
    assert frule((NT, 2), math.sin, 0.5)[1] == 2 * c
    assert frule((NT, Thunk(lambda: 2.0)), math.sin, 0.5)[1] == 2 * c
    # NumPy tangents are read in double precision; the output is a float
    d = frule((NT, np.float32(0.1)), math.sin, 0.5)[1]
    assert type(d) is float and d == c * float(np.float32(0.1))
    # a complex tangent of a real argument of a real function: projected to the reals
    d = frule((NT, 2 + 1j), math.sin, 0.5)[1]
    assert type(d) is float and d == 2 * c
    # a size-1 array reads as a number; other arrays go through the tangent ladder
    assert frule((NT, np.array([2.0])), math.sin, 0.5)[1] == 2 * c
    d = frule((NT, np.array([1.0, 2.0])), math.sin, 0.5)[1]
    assert isinstance(d, np.ndarray) and np.allclose(d, [c, 2 * c])
    # two arguments, one of them zero
    assert frule((NT, ZT, 1.0), operator.mul, 2.0, 3.0)[1] == 2.0
    assert frule((NT, 1.0, NT), operator.mul, 2.0, 3.0)[1] == 3.0


def test_frule_tangents_checked_by_dispatch():
    with pytest.raises(ValueError, match="expected 2 tangents"):
        frule((NT,), math.sin, 0.5)
    with pytest.raises(TypeError, match="tangents must be a tuple"):
        frule(1.0, math.sin, 0.5)
    # a list of tangents is accepted
    assert frule([NT, 1.0], math.sin, 0.5) == frule((NT, 1.0), math.sin, 0.5)


# ----- pullbacks: calling conventions and cotangents -----------------------------------------

def _pullbacks():
    return [("fast", rrule(math.sin, 0.5)[1], math.cos(0.5)),
            ("generic", rrule(math.sin, np.float64(0.5))[1], math.cos(0.5)),
            ("numpy", rrule(np.sin, 0.5)[1], math.cos(0.5))]


@pytest.mark.parametrize("kind", ["fast", "generic", "numpy"])
def test_pullback_cotangent_kinds(kind):
    name, pb, c = next(p for p in _pullbacks() if p[0] == kind)
    assert pb(2.0)[1] == 2 * c
    assert pb(2)[1] == 2 * c
    assert pb(np.float32(0.5))[1] == c * 0.5
    assert pb(Thunk(lambda: 2.0))[1] == 2 * c
    assert pb(np.array(2.0))[1] == 2 * c
    assert pb(np.array([2.0]))[1] == 2 * c
    # the argument is real: a complex cotangent gives the real part
    assert pb(2 + 5j)[1] == 2 * c
    assert pb(ZT) == (NT, ZT)
    assert pb(NT) == (NT, NT)
    with pytest.raises(ValueError, match=r"pullback of math.sin|numpy.sin: expected a scalar cotangent.*\(3,\)"):
        pb(np.ones(3))
    with pytest.raises(TypeError, match="seed must be a tangent"):
        pb("a")


def test_pullback_called_every_way():
    pb = rrule(math.sin, 0.5)[1]
    expected = (NT, math.cos(0.5))
    assert pb(1.0) == expected
    assert pb(*[1.0]) == expected
    assert pb.__call__(1.0) == expected
    assert functools.partial(pb, 1.0)() == expected
    assert list(map(pb, [1.0])) == [expected]
    with pytest.raises(TypeError, match=r"pullback of math.sin: takes one cotangent .* got 2"):
        pb(1.0, 2.0)
    with pytest.raises(TypeError, match=r"pullback of math.sin: takes one cotangent .* got 0"):
        pb()
    with pytest.raises(TypeError, match=r"pullback of math.sin: takes one cotangent"):
        pb(dy=1.0)
    with pytest.raises(TypeError, match=r"pullback of math.sin: takes one cotangent"):
        pb.__call__(1.0, extra=2)


def test_pullback_of_two_arguments_and_no_tangent_argument():
    pb = rrule(operator.mul, 2.0, 3.0)[1]
    assert pb(1.0) == (NT, 3.0, 2.0)
    assert pb(ZT) == (NT, ZT, ZT)
    assert pb(1 + 1j) == (NT, 3.0, 2.0)
    pb = rrule(math.ldexp, 3.0, 2)[1]
    assert pb(1.0) == (NT, 4.0, NT)
    assert pb(ZT) == (NT, ZT, NT)
    assert pb(np.float32(1.0)) == (NT, 4.0, NT)


def test_pullbacks_are_independent():
    # the freelist recycles pullback objects: each keeps its own partials
    pbs = [rrule(math.sin, x)[1] for x in (0.1, 0.2, 0.3)]
    del pbs[1]
    gc.collect()
    more = [rrule(math.cos, x)[1] for x in (0.4, 0.5)]
    assert pbs[0](1.0)[1] == math.cos(0.1) and pbs[1](1.0)[1] == math.cos(0.3)
    assert more[1](1.0)[1] == -math.sin(0.5)


# ----- the generic path ------------------------------------------------------------------

def test_generic_path_projects_onto_each_argument():
    # np.float32 in, Python float out (math), np.float32 cotangent
    Ω, pb = rrule(math.sin, np.float32(0.5))
    assert type(Ω) is float
    assert type(pb(1.0)[1]) is np.float32
    # complex and real arguments mixed: the real one gets a real cotangent
    Ω, pb = rrule(operator.mul, 2.0, 1 + 1j)
    _, gx, gy = pb(1.0)
    assert type(gx) is float and type(gy) is complex
    assert gx == 1.0 and gy == 2.0
    # np.complex64 stays np.complex64
    _, g = rrule(cmath.exp, np.complex64(1j))[1](1.0)
    assert type(g) is np.complex64


def test_generic_frule_projects_onto_the_output():
    Ω, dΩ = frule((NT, np.float32(1.0)), np.exp, np.float32(0.5))
    assert type(Ω) is np.float32 and type(dΩ) is np.float32
    Ω, dΩ = frule((NT, 1.0), math.sin, np.float32(0.5))
    assert type(Ω) is float and type(dΩ) is float
    Ω, dΩ = frule((NT, 1.0), cmath.exp, 0.5)
    assert type(Ω) is complex and type(dΩ) is complex


def test_float_subclasses_take_the_generic_path():
    class F(float):
        pass
    Ω, pb = rrule(math.exp, F(0.5))
    assert Ω == math.exp(0.5) and pb(1.0)[1] == math.exp(0.5)


def test_rows_decline_what_is_not_a_number():
    for x in ("a", [1.0], (1.0,), None, np.ones(3), Thunk(lambda: 1.0), ZT):
        assert rrule(math.sin, x) is None
        assert frule((NT, 1.0), math.sin, x) is None
        assert rrule(cmath.exp, x) is None


# ----- derivatives_given_output and configs ------------------------------------------------

def test_derivatives_given_output():
    assert cr.derivatives_given_output(math.sin(0.5), math.sin, 0.5) == ((math.cos(0.5),),)
    assert cr.derivatives_given_output(6.0, operator.mul, 2.0, 3.0) == ((3.0, 2.0),)
    assert cr.derivatives_given_output(math.exp(1.0), math.exp, 1.0) == ((math.exp(1.0),),)
    z = 0.5 + 1j
    assert cr.derivatives_given_output(cmath.exp(z), cmath.exp, z) == ((cmath.exp(z),),)
    assert cr.derivatives_given_output(12.0, math.ldexp, 3.0, 2) == ((4.0, NT),)
    assert cr.derivatives_given_output(0.0, math.sin, "a") is None


def test_rows_serve_calls_with_a_config():
    config = TestConfig()
    assert frule(config, (NT, 1.0), math.sin, 0.5) == frule((NT, 1.0), math.sin, 0.5)
    Ω, pb = rrule(config, math.sin, 0.5)
    assert Ω == math.sin(0.5) and pb(1.0) == (NT, math.cos(0.5))


# ----- threads and leaks ---------------------------------------------------------------------

def test_threads_get_their_own_answers():
    errors = []
    fs = [math.sin, math.cos, math.exp, math.tanh, np.sin]

    def work(k):
        try:
            for i in range(2000):
                f = fs[(i + k) % len(fs)]
                x = 0.001 * i
                Ω, pb = rrule(f, x)
                assert Ω == f(x)
                assert pb(1.0)[1] == frule((NT, 1.0), f, x)[1]
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def _many_calls(n):
    t1, t2 = (NT, 1.0), (NT, 1.0, 0.5)
    for i in range(n):
        x = 0.5 + 1e-6 * i
        frule(t1, math.sin, x)
        rrule(math.exp, x)[1](1.0)
        rrule(operator.mul, x, 2)[1](ZT)
        frule(t2, math.pow, x, 2.5)
        frule(t1, math.floor, x)
        if i % 10 == 0:
            rrule(np.sin, np.float32(x))[1](1.0)
            frule(t1, cmath.sqrt, x + 1j)
            rrule(operator.pow, -x, 0.5)[1](1.0)
            try:
                rrule(math.log, -x)
            except ValueError:
                pass


def test_no_leaks_over_many_calls():
    _many_calls(1000)
    gc.collect()
    tracemalloc.start()
    before_blocks = sys.getallocatedblocks()
    snap0 = tracemalloc.take_snapshot()
    _many_calls(30_000)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    after_blocks = sys.getallocatedblocks()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert grown < 64 * 1024, f"traced memory grew by {grown} bytes"
    assert after_blocks - before_blocks < 1000, f"{after_blocks - before_blocks} blocks leaked"
    for obj in (math.sin, math.exp, operator.mul, ZT, NT, np.sin):
        before = sys.getrefcount(obj)
        _many_calls(2000)
        assert sys.getrefcount(obj) == before, obj


def test_every_row_is_tested_against_finite_differences():
    # the row tables of test_scalar_math/cmath/operator/numpy cover the whole C table
    from . import test_scalar_cmath, test_scalar_math, test_scalar_numpy, test_scalar_operator
    tested = set(test_scalar_math.UNARY) | set(test_scalar_math.BINARY) | {math.ldexp}
    tested |= set(test_scalar_cmath.ROWS)
    tested |= set(test_scalar_operator.HOLOMORPHIC + test_scalar_operator.POWERS +
                  test_scalar_operator.REAL_ONLY)
    tested |= {f for f, _ in test_scalar_operator.UNARY_CASES}
    tested |= set(test_scalar_numpy.UNARY) | set(test_scalar_numpy.BINARY) | {np.ldexp}
    rows = set(cr._core._scalar_rows())
    assert rows - tested == set(), f"rows without tests: {rows - tested}"
