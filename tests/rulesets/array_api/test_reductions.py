"""The array-API rules of chainrules/rulesets/array_api/reductions.py: the
generic bodies checked with the testing kit on NumPy arrays (through
array_api_compat.numpy's functions) at awkward points, then on
array-api-strict, PyTorch, JAX and Dask against the NumPy numbers."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, unthunk
from chainrules.rulesets.array_api import reductions
from chainrules.testing import test_rrule

from ._helpers import F32, array, backend, both, compare_with_numpy, generic  # noqa: F401


@pytest.fixture
def g(registry):
    return generic(reductions.TABLE)


AXES = [((), None), ((4,), None), ((4,), 0), ((4,), -1), ((2, 3), None), ((2, 3), 0), ((2, 3), -1),
        ((2, 3), (0, 1)), ((2, 0), 1), ((0,), None), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3)),
        ((2, 3, 4), 1), ((2, 3), ())]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("shape,axis", AXES, ids=[f"{s}-axis{a}" for s, a in AXES])
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min"])
def test_reductions_over_axes(g, name, shape, axis, keepdims):
    if name in ("mean", "var", "std", "max", "min") and 0 in shape:
        return      # NaN or an error at an empty slice: nothing to differentiate
    x = array(shape)
    both(g[name], x, fkwargs={"axis": axis, "keepdims": keepdims})


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "cumulative_sum", "cumulative_prod"])
def test_float32_and_complex(g, name):
    kw = {"axis": 1}
    both(g[name], array((2, 3), np.float32), fkwargs=kw, **F32)
    both(g[name], array((2, 3), np.complex128), fkwargs=kw)
    both(g[name], array((3,), np.complex64), fkwargs={"axis": 0}, **F32)
    _, pb = cr.rrule(g[name], array((2, 3), np.float32), axis=1)
    Ω = g[name](np.ones((2, 3), np.float32), axis=1)
    x̄ = unthunk(pb(np.ones(np.shape(Ω), np.float32))[1])
    assert x̄.dtype == np.float32 and x̄.shape == (2, 3)


def test_real_input_gets_real_cotangent_from_complex_seed(g):
    _, pb = cr.rrule(g["sum"], array((3,)))
    x̄ = pb(np.asarray(1.0 + 2.0j))[1]
    assert x̄.dtype == np.float64 and np.array_equal(x̄, np.ones(3))


def test_prod_with_zeros(g):
    # one zero: that element gets the product of the others; two: all zero
    for x in ([2.0, 0.0, 3.0], [0.0, 0.0, 3.0], [[1.0, 0.0], [2.0, 3.0]], [0.0]):
        x = np.asarray(x)
        both(g["prod"], x)
        both(g["prod"], x, fkwargs={"axis": -1})
    _, pb = cr.rrule(g["prod"], np.asarray([2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(pb(1.0)[1], [0.0, 6.0, 0.0])
    _, pb = cr.rrule(g["prod"], np.asarray([0.0, 0.0, 3.0]))
    np.testing.assert_array_equal(pb(1.0)[1], [0.0, 0.0, 0.0])
    both(g["prod"], np.asarray([[1.0 + 1j, 0.0], [2.0, 3.0 - 1j]]), fkwargs={"axis": 1})


@pytest.mark.parametrize("name,pick", [("max", np.argmax), ("min", np.argmin)])
def test_max_min_ties_go_to_the_first(g, name, pick):
    x = np.asarray([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]])
    _, pb = cr.rrule(g[name], x, axis=1)
    x̄ = pb(np.asarray([10.0, 20.0]))[1]
    ref = np.zeros_like(x)
    ref[0, pick(x[0])] = 10.0
    ref[1, pick(x[1])] = 20.0
    np.testing.assert_array_equal(x̄, ref)
    # over several axes: one element of the whole slice, NumPy's flattened first
    x = np.ones((2, 2, 2))
    _, pb = cr.rrule(g[name], x, axis=(0, 2))
    x̄ = pb(np.asarray([1.0, 2.0]))[1]
    np.testing.assert_array_equal(x̄[:, 0, :], [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(x̄[:, 1, :], [[2.0, 0.0], [0.0, 0.0]])
    Ω, ΔΩ = cr.frule((NoTangent(), np.arange(8.0).reshape(2, 2, 2)), g[name], x, axis=(0, 2))
    np.testing.assert_array_equal(ΔΩ, [0.0, 2.0])


@pytest.mark.parametrize("correction", [0, 1, 0.5])
def test_var_std_correction(g, correction):
    for name in ("var", "std"):
        both(g[name], array((3, 4)), fkwargs={"axis": 0, "correction": correction})
        both(g[name], array((3, 4), np.complex128), fkwargs={"axis": -1, "correction": correction})


def test_std_of_a_constant_slice_has_zero_cotangent(g):
    x = np.asarray([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    _, pb = cr.rrule(g["std"], x, axis=1)
    x̄ = pb(np.ones(2))[1]
    np.testing.assert_array_equal(x̄[0], 0.0)
    assert np.all(np.isfinite(x̄))
    _, ΔΩ = cr.frule((NoTangent(), np.ones((2, 3))), g["std"], x, axis=1)
    assert ΔΩ[0] == 0.0


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("shape,axis", [((5,), None), ((5,), 0), ((2, 3), 1), ((2, 3), -2), ((0,), 0)])
def test_cumulative_sum(g, shape, axis, include_initial):
    both(g["cumulative_sum"], array(shape), fkwargs={"axis": axis, "include_initial": include_initial})


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("shape,axis", [((5,), None), ((5,), 0), ((2, 3), 1), ((2, 3), -2), ((0,), 0)])
def test_cumulative_prod(g, shape, axis, include_initial):
    both(g["cumulative_prod"], array(shape), fkwargs={"axis": axis, "include_initial": include_initial})


ZEROS = [np.asarray([2.0, 0.0, 3.0, 1.5]), np.asarray([0.0, -2.0, 3.0]), np.asarray([2.0, -3.0, 0.0]),
         np.asarray([1.5, 0.0, -2.0, 0.0, 3.0]), np.asarray([0.0, 0.0, 0.0, 2.0]),
         np.asarray([[1.5, 0.0, -2.0], [0.0, 0.0, 1.0], [-1.0, 2.0, 3.0]]),
         np.asarray([1.0 + 1j, 0.0, 2.0 - 0.5j, 0.0, -1j])]


def test_cumulative_prod_with_zeros(g):
    # ∂y_k/∂x_i = ∏_{j ≤ k, j ≠ i} x_j, with no division by a zero
    for x in ZEROS:
        for kw in ({"axis": -1}, {"axis": -1, "include_initial": True}, {"axis": 0}):
            both(g["cumulative_prod"], x, fkwargs=kw)
        both(g["cumulative_prod"], np.asarray(x, np.complex64 if x.dtype.kind == "c" else np.float32),
             fkwargs={"axis": -1}, **F32)
    _, pb = cr.rrule(g["cumulative_prod"], np.asarray([2.0, 0.0, 3.0]), axis=0)
    np.testing.assert_array_equal(pb(np.ones(3))[1], [1.0, 8.0, 0.0])
    _, pb = cr.rrule(g["cumulative_prod"], np.asarray([2.0, 0.0, 3.0, 0.0]), axis=0)
    np.testing.assert_array_equal(pb(np.ones(4))[1], [1.0, 8.0, 0.0, 0.0])


def test_cumulative_prod_fast_path_is_the_body():
    # NumPy's fast path (a float ndarray without zeros) computes what the body's
    # formulas compute (run on a subclass, which takes them), bit for bit
    class Sub(np.ndarray):
        pass
    for x, axis in ((array((2, 5)), 1), (array((4, 3), lo=-1.5, hi=-0.5), 0), (array((6,), np.complex128), 0),
                    (array((3, 4), np.float32), 1)):
        Ω = np.cumprod(x, axis=axis)
        Δx, ȳ = array(x.shape, x.dtype), array(x.shape, x.dtype)
        fast = reductions._cumprod_body(np, x, Ω, axis)
        body = reductions._cumprod_body(np, x.view(Sub), Ω.view(Sub), axis)
        assert fast[0](Δx).dtype == x.dtype
        np.testing.assert_array_equal(fast[0](Δx), np.asarray(body[0](Δx)))
        np.testing.assert_array_equal(fast[1](ȳ), np.asarray(body[1](ȳ)))


def test_options_and_errors(g):
    x = array((2, 3))
    with pytest.raises(ValueError, match="cumulative_sum"):
        cr.rrule(g["cumulative_sum"], x)
    with pytest.raises(TypeError, match="sum: the rule cannot honour the argument where="):
        cr.rrule(g["sum"], x, where=x > 1)
    _, pb = cr.rrule(g["sum"], x, axis=1, dtype=np.float32)
    assert pb(np.ones(2, np.float32))[1].dtype == np.float64
    _, ΔΩ = cr.frule((NoTangent(), x), g["sum"], x, axis=1, dtype=np.float32)
    assert ΔΩ.dtype == np.float32
    with pytest.raises(TypeError, match="pullback of sum: seed must be a tangent"):
        cr.rrule(g["sum"], x)[1](None)


def test_integer_arrays_have_no_tangent(g):
    test_rrule(g["sum"], np.arange(6).reshape(2, 3), fkwargs={"axis": 0})
    test_rrule(g["max"], np.arange(6))


def test_registered_on_array_api_compat_numpy_where_not_numpys_own():
    xp = pytest.importorskip("array_api_compat.numpy")
    # var, std and cumulative_sum are wrappers: the generic rules; sum is np.sum: NumPy's rule
    for name in ("var", "std", "cumulative_sum"):
        assert getattr(xp, name) is not getattr(np, name, None)
        both(getattr(xp, name), array((3, 2)), fkwargs={"axis": 0})
    both(xp.sum, array((3, 2)), fkwargs={"axis": 0})


# ----- other libraries ---------------------------------------------------------------------------

CASES = [
    ("sum", (array((2, 3)),), {"axis": 1}),
    ("sum", (array((2, 3, 2)),), {"axis": (0, 2), "keepdims": True}),
    ("prod", (np.asarray([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0]]),), {"axis": 1}),
    ("prod", (np.asarray([0.0, 0.0, 3.0]),), {}),
    ("mean", (array((2, 3)),), {"axis": -1}),
    ("var", (array((3, 4)),), {"axis": 0, "correction": 1}),
    ("std", (np.asarray([[2.0, 2.0], [1.0, 3.0]]),), {"axis": 1}),
    ("max", (np.asarray([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]]),), {"axis": 1}),
    ("min", (np.asarray([[1.0, 3.0, 1.0], [2.0, 2.0, 0.5]]),), {}),
    ("cumulative_sum", (array((2, 3)),), {"axis": 1}),
    ("cumulative_sum", (array((4,)),), {"axis": 0, "include_initial": True}),
    ("cumulative_prod", (np.asarray([[2.0, 0.0, -3.0], [1.0, 2.0, 0.5]]),), {"axis": 1}),
    ("cumulative_prod", (np.asarray([0.0, 1.5, 0.0, 2.0]),), {"axis": 0, "include_initial": True}),
]


@pytest.mark.interop
@pytest.mark.parametrize("fname,args,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_other_libraries(backend, fname, args, kwargs):
    compare_with_numpy(backend, fname, args, kwargs)


@pytest.mark.interop
def test_other_libraries_float32(backend):
    x = array((3, 4), np.float32)
    for fname in ("sum", "var", "max"):
        compare_with_numpy(backend, fname, (x,), {"axis": 0}, rtol=1e-5, atol=1e-6)
