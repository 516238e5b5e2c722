"""The array-API rules of chainrules/rulesets/array_api/shapes.py: the
generic bodies checked with the testing kit on NumPy arrays (through
array_api_compat.numpy's functions), then on array-api-strict, PyTorch, JAX
and Dask against the NumPy numbers."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Tangent, unthunk
from chainrules.rulesets.array_api import shapes
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from ._helpers import F32, array, backend, both, compare_with_numpy, generic  # noqa: F401


@pytest.fixture
def g(registry):
    return generic(shapes.TABLE)


# ----- linear in x ------------------------------------------------------------------------------

@pytest.mark.parametrize("name,args,kwargs", [
    ("reshape", ((2, 3),), {}), ("reshape", ((3, -1),), {}), ("reshape", ((6,),), {"copy": None}),
    ("permute_dims", ((1, 0),), {}), ("matrix_transpose", (), {}),
    ("flip", (), {}), ("flip", (), {"axis": -1}), ("flip", (), {"axis": (0, 1)}),
    ("roll", (1,), {}), ("roll", (-2,), {"axis": 1}), ("roll", ((1, 2),), {"axis": (0, 1)}),
    ("broadcast_to", ((4, 2, 3),), {}),
])
def test_linear_2d(g, name, args, kwargs):
    if name == "reshape" and args[0] == (6,):
        args = ((6,),)
    x = array((2, 3))
    both(g[name], x, *[PrimalAndTangent(a, NoTangent()) for a in args], fkwargs=kwargs)


def test_expand_dims_squeeze_permute_3d(g):
    both(g["expand_dims"], array((2, 3)), fkwargs={"axis": 1})
    both(g["expand_dims"], array((2, 3)), fkwargs={"axis": -1})
    both(g["squeeze"], array((2, 1, 3, 1)), fkwargs={"axis": (1, -1)})
    both(g["permute_dims"], array((2, 3, 4)), PrimalAndTangent((2, 0, 1), NoTangent()))
    both(g["matrix_transpose"], array((4, 2, 3), np.complex128))
    both(g["broadcast_to"], array((3, 1), np.float32), PrimalAndTangent((2, 3, 4), NoTangent()), **F32)
    both(g["reshape"], array((), np.complex128), PrimalAndTangent((1, 1), NoTangent()))


def test_concat_and_stack(g):
    a, b, c = array((2, 3)), array((1, 3)), array((4, 3))
    both(g["concat"], [a, b, c])
    both(g["concat"], (a, b), fkwargs={"axis": -2})
    both(g["concat"], [array((2, 3)), array((2, 1))], fkwargs={"axis": 1})
    both(g["concat"], [array((2, 2)), array((3,))], fkwargs={"axis": None})
    both(g["concat"], [array((2,), np.float32), array((3,))], **F32)
    both(g["concat"], [array((2,), np.complex128), array((3,))])
    both(g["stack"], [array((2, 3)), array((2, 3))])
    both(g["stack"], (array((2, 3)), array((2, 3)), array((2, 3))), fkwargs={"axis": -1})
    both(g["stack"], [array(()), array(())])
    # an integer array gets no tangent; the sequence's cotangent is a Tangent of its type
    _, pb = cr.rrule(g["concat"], (a, np.arange(3).reshape(1, 3)))
    t = pb(np.ones((3, 3)))[1]
    assert isinstance(t, Tangent) and t[1] == NoTangent() and np.array_equal(t[0], np.ones((2, 3)))


# ----- where, clip --------------------------------------------------------------------------------

def test_where_broadcasting_and_scalars(g):
    cond = np.asarray([[True, False, True], [False, False, True]])
    both(g["where"], PrimalAndTangent(cond, NoTangent()), array((2, 3)), array((2, 3)))
    both(g["where"], PrimalAndTangent(cond, NoTangent()), array((1, 3)), array((2, 1)))
    both(g["where"], PrimalAndTangent(cond[0], NoTangent()), array((2, 3)), array(()))
    both(g["where"], PrimalAndTangent(cond, NoTangent()), array((3,), np.complex128), array((2, 3)))
    both(g["where"], PrimalAndTangent(cond, NoTangent()), array((2, 3), np.float32), array((2, 3), np.float32),
         **F32)
    _, pb = cr.rrule(g["where"], cond, array((2, 3)), 2.0)
    cts = pb(np.ones((2, 3)))
    assert cts[:2] == (NoTangent(), NoTangent())
    np.testing.assert_array_equal(cts[2], cond.astype(float))
    assert float(cts[3]) == 3.0


def test_clip(g):
    for lo, hi in [(-1.0, 1.0), (None, 1.0), (-1.0, None)]:
        both(g["clip"], np.asarray([[-2.0, -0.9, 0.0], [0.5, 1.1, 3.0]]), fkwargs={"min": lo, "max": hi})
    x = np.asarray([[-2.0, -1.0, 0.0], [0.5, 1.0, 3.0]])
    # array bounds get cotangents (positional); the bounds themselves go to x
    lo, hi = np.asarray([-1.5, -1.0, 0.2]), np.asarray([[1.0], [0.7]])
    both(g["clip"], np.asarray([[-2.0, -0.5, 0.0], [0.5, 1.5, 3.0]]), lo, hi)
    _, pb = cr.rrule(g["clip"], x, -1.0, 1.0)
    x̄, lō, hī = pb(np.ones((2, 3)))[1:]
    np.testing.assert_array_equal(x̄, [[0, 1, 1], [1, 1, 0]])
    assert float(lō) == 1.0 and float(hī) == 1.0
    both(g["clip"], array((3,), np.float32), fkwargs={"min": 0.7, "max": 1.2}, **F32)


# ----- sort, take ----------------------------------------------------------------------------------

def test_sort(g):
    both(g["sort"], array((5,)))
    both(g["sort"], array((3, 4)), fkwargs={"axis": 0})
    both(g["sort"], array((3, 4)), fkwargs={"axis": -1, "descending": True})
    x = np.asarray([2.0, 1.0, 2.0, 0.0])      # ties keep their order (a stable sort)
    _, pb = cr.rrule(g["sort"], x)
    np.testing.assert_array_equal(pb(np.asarray([10.0, 20.0, 30.0, 40.0]))[1], [30.0, 20.0, 40.0, 10.0])
    _, pb = cr.rrule(g["sort"], x, descending=True)
    np.testing.assert_array_equal(pb(np.asarray([10.0, 20.0, 30.0, 40.0]))[1], [10.0, 30.0, 20.0, 40.0])


def test_take_repeated_and_negative_indices(g):
    x = array((4, 3))
    for idx, axis in [([0, 2, 2, -1], 0), ([1, 1, 1], 1), ([0], -1)]:
        both(g["take"], x, PrimalAndTangent(np.asarray(idx), NoTangent()), fkwargs={"axis": axis})
    both(g["take"], array((5,), np.complex128), PrimalAndTangent(np.asarray([4, 0, 4]), NoTangent()))
    _, pb = cr.rrule(g["take"], array((4,)), np.asarray([1, 1, 3, 1]))
    np.testing.assert_array_equal(pb(np.ones(4))[1], [0.0, 3.0, 0.0, 1.0])


# ----- __getitem__ ----------------------------------------------------------------------------------

def _generic_getitem():
    """x[idx] with the generic indexing rules (operator.getitem on ndarrays
    keeps its NumPy rule)."""
    def getitem(x, idx):
        return x[idx]
    frule, rrule = shapes.getitem_rules(getitem)
    cr.register_frule(getitem)(frule)
    cr.register_rrule(getitem)(rrule)
    return getitem


INDICES = [0, -1, (1, 2), slice(None), slice(1, None), slice(None, None, 2), slice(None, None, -1),
           slice(4, 0, -2), slice(2, 2), (Ellipsis, 1), (None, 1), (slice(1, 3), None, -1),
           (1, Ellipsis, None), (slice(None, None, 3), slice(0, 2)), ()]


@pytest.mark.parametrize("idx", INDICES, ids=str)
def test_getitem_basic(registry, idx):
    getitem = _generic_getitem()
    x = array((5, 4))
    both(getitem, x, PrimalAndTangent(idx, NoTangent()))


@pytest.mark.parametrize("idx", [np.asarray([0, 2, 2]), (np.asarray([1, -1]), slice(None)),
                                 (slice(None), np.asarray([[0, 1], [1, 1]])), np.asarray([True, False, True, False, True])],
                         ids=["ints", "ints-slice", "2d-ints", "mask"])
def test_getitem_advanced_repeats_accumulate(registry, idx):
    getitem = _generic_getitem()
    x = array((5, 4))
    both(getitem, x, PrimalAndTangent(idx, NoTangent()))
    _, pb = cr.rrule(getitem, x, idx)
    ref = np.zeros_like(x)
    np.add.at(ref, idx, 1.0)
    np.testing.assert_array_equal(pb(np.ones(np.shape(x[idx])))[1], ref)


# ----- other libraries ---------------------------------------------------------------------------

A23 = array((2, 3))
CASES = [
    ("reshape", (A23, (6,)), {}),
    ("reshape", (array((2, 2, 3)), (4, 3)), {}),
    ("permute_dims", (array((2, 3, 4)), (2, 0, 1)), {}),
    ("matrix_transpose", (array((2, 2, 3)),), {}),
    ("expand_dims", (A23,), {"axis": 1}),
    ("squeeze", (array((2, 1, 3)),), {"axis": 1}),
    ("flip", (A23,), {"axis": 1}),
    ("roll", (A23, 1), {"axis": 1}),
    ("broadcast_to", (array((3, 1)), (2, 3, 4)), {}),
    ("concat", ([array((2, 3)), array((1, 3))],), {"axis": 0}),
    ("stack", ([array((2, 3)), array((2, 3))],), {"axis": 1}),
    ("where", (np.asarray([[True, False, True], [False, True, True]]), array((2, 3)), array((1, 3))), {}),
    ("where", (np.asarray([True, False, True]), array((2, 3)), 2.0), {}),
    ("clip", (np.asarray([[-2.0, -0.5, 0.0], [0.5, 1.5, 3.0]]),), {"min": -1.0, "max": 1.0}),
    ("clip", (np.asarray([[-2.0, -0.5, 0.0], [0.5, 1.5, 3.0]]), np.asarray([-1.0, 0.0, 0.5]),
              np.asarray([[1.0], [2.0]])), {}),
    ("sort", (np.asarray([[2.0, 1.0, 2.0], [0.5, 3.0, 1.0]]),), {"axis": 1}),
    ("take", (array((4, 3)), np.asarray([0, 2, 2, 3])), {"axis": 0}),
]


@pytest.mark.interop
@pytest.mark.parametrize("fname,args,kwargs", CASES, ids=[c[0] for c in CASES])
def test_other_libraries(backend, fname, args, kwargs):
    compare_with_numpy(backend, fname, args, kwargs)


@pytest.mark.interop
def test_other_libraries_float32(backend):
    x = array((3, 4), np.float32)
    for fname, args, kw in [("reshape", (x, (12,)), {}), ("flip", (x,), {"axis": 0}),
                            ("concat", ([x, x],), {"axis": 1}), ("take", (x, np.asarray([2, 0, 2])), {"axis": 0}),
                            ("sort", (x,), {"axis": 1}), ("where", (x > 1, x, x * 2), {})]:
        compare_with_numpy(backend, fname, args, kw, rtol=1e-5, atol=1e-6)


@pytest.mark.interop
@pytest.mark.parametrize("idx", [(1, Ellipsis), (slice(1, None), -1), (Ellipsis, slice(None, None, -2)),
                                 (None, 0, slice(0, 2)), (slice(None, None, 2), slice(2, 0, -1)), "ints"], ids=str)
def test_getitem_other_libraries(backend, idx):
    name, xp, to_xp, to_numpy = backend
    x = array((4, 3))
    if name == "torch" and idx != "ints" and any(isinstance(e, slice) and (e.step or 1) < 0 for e in idx):
        idx = tuple(slice(e.start, e.stop, -e.step) if isinstance(e, slice) and (e.step or 1) < 0 else e
                    for e in idx)   # PyTorch has no negative steps: the same slice forwards
        idx = tuple(slice(None, None, e.step) if isinstance(e, slice) and e.step else e for e in idx)
    if idx == "ints":
        idx_np = (np.asarray([0, 2, 2, 3]), np.asarray([1, 1, 1, -1]))      # a repeated element
        if name == "dask":      # Dask indexes one axis at a time with an integer array
            idx_np = (np.asarray([0, 2, 2, 3]), slice(None))
        idx = tuple(to_xp(i) if isinstance(i, np.ndarray) else i for i in idx_np)
    else:
        idx_np = idx
    xx = to_xp(x)
    from ._helpers import is_native
    for get in (operator.getitem, type(xx).__getitem__):
        Ω, pb = cr.rrule(get, xx, idx)
        assert is_native(name, xp, Ω)
        np.testing.assert_allclose(to_numpy(Ω), x[idx_np])
        ȳ = np.arange(np.size(x[idx_np]), dtype=float).reshape(np.shape(x[idx_np]))
        _, x̄, nt = pb(to_xp(ȳ))
        ref = np.zeros_like(x)
        np.add.at(ref, idx_np, ȳ)
        assert is_native(name, xp, x̄) and nt == NoTangent()
        np.testing.assert_allclose(to_numpy(x̄), ref)
        t = np.ones_like(x)
        _, ΔΩ = cr.frule((NoTangent(), to_xp(t), NoTangent()), get, xx, idx)
        assert is_native(name, xp, ΔΩ)
        np.testing.assert_allclose(to_numpy(ΔΩ), t[idx_np])


@pytest.mark.parametrize("repeats", [False, True], ids=["permutation", "repeats"])
def test_take_and_getitem_pullbacks_scatter_in_linear_memory(repeats):
    """The adjoint of a gather at n = m = 20000 on array-api-strict: a
    scatter-add in O(n + m) (the former n×m one-hot matrix took 3.2 GB)."""
    xs = pytest.importorskip("array_api_strict")
    n = 20000
    rng = np.random.default_rng(8)
    idx = rng.integers(0, n, n) if repeats else rng.permutation(n)
    x, ȳ = xs.asarray(rng.standard_normal(n)), rng.standard_normal(n)
    expect = np.bincount(idx, weights=ȳ, minlength=n)
    for f, args in [(xs.take, (xs.asarray(idx),)), (operator.getitem, (xs.asarray(idx),))]:
        _, pb = cr.rrule(f, x, *args)
        assert np.allclose(np.asarray(unthunk(pb(xs.asarray(ȳ))[1])), expect)
    x2 = xs.reshape(xs.asarray(rng.standard_normal(2 * n)), (2, n))
    _, pb = cr.rrule(xs.take, x2, xs.asarray(idx), axis=1)
    g = np.asarray(unthunk(pb(xs.asarray(np.stack([ȳ, 2 * ȳ])))[1]))
    assert np.allclose(g, np.stack([expect, 2 * expect]))
