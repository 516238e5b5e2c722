"""The array-API rules of chainrules/rulesets/array_api/linalg.py: matmul
(1-d operands, batches that broadcast), tensordot and vecdot, with the
testing kit on NumPy arrays, then on array-api-strict, PyTorch, JAX and Dask
against the NumPy numbers."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent
from chainrules.rulesets.array_api import linalg
from chainrules.testing import PrimalAndTangent

from ._helpers import F32, array, backend, both, compare_with_numpy, generic  # noqa: F401


@pytest.fixture
def g(registry):
    return generic(linalg.TABLE)


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)),
                                   ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
                                   ((4,), (2, 4, 3)), ((2, 2, 3), (3,))], ids=str)
def test_matmul_shapes(g, sa, sb):
    both(g["matmul"], array(sa), array(sb))


def test_matmul_dtypes(g):
    both(g["matmul"], array((2, 3), np.complex128), array((3, 2), np.complex128))
    both(g["matmul"], array((2, 3)), array((3, 2), np.complex128))       # the real one's cotangent is real
    both(g["matmul"], array((2, 3), np.float32), array((3, 2), np.float32), **F32)
    _, pb = cr.rrule(g["matmul"], array((2, 3)), array((3, 2), np.complex128))
    ā, b̄ = (cr.unthunk(c) for c in pb(np.ones((2, 2), np.complex128))[1:])     # Thunks: one product each
    assert ā.dtype == np.float64 and b̄.dtype == np.complex128
    both(g["matmul"], array((2, 3)), PrimalAndTangent(np.ones((3, 2), int), NoTangent()))


@pytest.mark.parametrize("sa,sb,axes", [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
                                        ((2, 3, 4), (4, 2, 5), ([0, 2], [1, 0])), ((3, 4), (4, 3), ((1, 0), (0, 1))),
                                        ((2, 3, 4), (5, 3), ([-2], [-1]))], ids=str)
def test_tensordot(g, sa, sb, axes):
    both(g["tensordot"], array(sa), array(sb), fkwargs={"axes": axes})


def test_tensordot_complex(g):
    both(g["tensordot"], array((2, 3), np.complex128), array((3, 2), np.complex128), fkwargs={"axes": 1})


@pytest.mark.parametrize("sa,sb,axis", [((3,), (3,), -1), ((2, 3), (2, 3), -1), ((2, 3), (3,), -1),
                                        ((4, 3), (2, 1, 3), -1), ((3, 2), (3, 2), -2), ((3, 2), (3, 2), 0)],
                         ids=str)
def test_vecdot(g, sa, sb, axis):
    both(g["vecdot"], array(sa), array(sb), fkwargs={"axis": axis})


def test_vecdot_conjugates_the_first_argument(g):
    a, b = array((2, 3), np.complex128), array((2, 3), np.complex128)
    np.testing.assert_allclose(g["vecdot"](a, b), np.sum(np.conj(a) * b, axis=-1))
    both(g["vecdot"], a, b)
    both(g["vecdot"], array((2, 3)), b)


# ----- other libraries ---------------------------------------------------------------------------

CASES = [
    ("matmul", (array((2, 3)), array((3, 4))), {}),
    ("matmul", (array((3,)), array((2, 3, 4))), {}),
    ("matmul", (array((5, 2, 3)), array((3,))), {}),
    ("tensordot", (array((2, 3, 4)), array((4, 3, 5))), {"axes": ([1, 2], [1, 0])}),
    ("tensordot", (array((2, 3)), array((3, 4))), {"axes": 1}),
    ("vecdot", (array((2, 3)), array((3,))), {}),
    ("vecdot", (array((2, 3), np.complex128), array((2, 3), np.complex128)), {"axis": -1}),
]


@pytest.mark.interop
@pytest.mark.parametrize("fname,args,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_other_libraries(backend, fname, args, kwargs):
    compare_with_numpy(backend, fname, args, kwargs)


@pytest.mark.interop
def test_other_libraries_float32(backend):
    a, b = array((2, 3), np.float32), array((3, 4), np.float32)
    compare_with_numpy(backend, "matmul", (a, b), {}, rtol=1e-5, atol=1e-6)
    compare_with_numpy(backend, "tensordot", (a, b), {"axes": 1}, rtol=1e-5, atol=1e-6)
    compare_with_numpy(backend, "vecdot", (a, a), {}, rtol=1e-5, atol=1e-6)
