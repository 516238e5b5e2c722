"""Order 2 for every rule of numpy/shapes.py, padding.py, joining.py and
indexing.py (reshaping, joining, splitting, indexing, where, clip, sort,
take...) and for the products of numpy/linalg/products.py that issue 12 covers (matmul, tensordot, vecdot, dot): the
rules are differentiable (test_frule/test_rrule with order=2).  Most are
linear in x, so the derivative of the pullback is zero and what is checked
is that the rule runs on tracked values and stays linear; the products are
bilinear.  Sort, partition and clip are taken at distinct values away from
their bounds; complex and float32 where the rule takes them; broadcasting
for where, clip and the products."""

import operator

import numpy as np
import pytest

from chainrules import NoTangent
from chainrules.testing import PrimalAndTangent

from .._order2 import F32, Case, array, params, spread

RNG = np.random.default_rng(1203)
X = spread((2, 3))                      # negatives, distinct, no zero
X3 = spread((2, 3, 2))
XC = array(RNG, (2, 3), np.complex128)
X32 = spread((2, 3), dtype=np.float32)
SQ = spread((3, 3))
Y = spread((2, 3), lo=-2.0, hi=2.0)
V = spread((3,))
COND = np.array([[True, False, True], [False, True, True]])
method = np.ndarray.__dict__.__getitem__


def fixed(x):
    """x held fixed (an index, a condition)."""
    return PrimalAndTangent(x, NoTangent())


CASES = [
    # ----- reshaping and transposing -----
    Case("reshape", np.reshape, X, (3, 2)),
    Case("reshape-complex", np.reshape, XC, -1),
    Case("ndarray.reshape", method("reshape"), X, (6,)),
    Case("ravel", np.ravel, X),
    Case("ndarray.ravel", method("ravel"), X),
    Case("ndarray.flatten", method("flatten"), XC),
    Case("transpose", np.transpose, X3, (2, 0, 1)),
    Case("ndarray.transpose", method("transpose"), X),
    Case("matrix_transpose", np.matrix_transpose, X3),
    Case("swapaxes", np.swapaxes, X3, 0, -1),
    Case("ndarray.swapaxes", method("swapaxes"), X, 0, 1),
    Case("moveaxis", np.moveaxis, X3, 0, -1),
    Case("rollaxis", np.rollaxis, X3, -1),
    Case("squeeze", np.squeeze, spread((2, 1, 3))),
    Case("ndarray.squeeze", method("squeeze"), spread((1, 3))),
    Case("expand_dims", np.expand_dims, X, 1),
    Case("atleast_1d", np.atleast_1d, np.array(0.7)),
    Case("atleast_2d", np.atleast_2d, V),
    Case("atleast_3d", np.atleast_3d, X),
    Case("broadcast_to", np.broadcast_to, V, (2, 3)),
    Case("broadcast_arrays", np.broadcast_arrays, X, V),
    Case("flip", np.flip, X, 1),
    Case("flip-float32", np.flip, X32, tol=F32),
    Case("flipud", np.flipud, X),
    Case("fliplr", np.fliplr, XC),
    Case("rot90", np.rot90, X),
    Case("roll", np.roll, X, 1),
    Case("roll-axis", np.roll, X, -2, fkwargs={"axis": 1}),
    Case("tile", np.tile, X, 2),
    Case("repeat", np.repeat, X, 2),
    Case("repeat-array-axis", np.repeat, X, [2, 0, 1], fkwargs={"axis": 1}),
    Case("ndarray.repeat", method("repeat"), X, 2, fkwargs={"axis": -1}),
    Case("pad", np.pad, X, 1),
    # ----- diagonals and triangles -----
    Case("diag", np.diag, SQ),
    Case("diag-vector", np.diag, V),
    Case("diagonal", np.diagonal, SQ),
    Case("diagonal-3d-offset", np.diagonal, X3, -1, 2, 0),
    Case("diag-offset", np.diag, SQ, 1),
    Case("ndarray.diagonal", method("diagonal"), SQ),
    Case("linalg.diagonal", np.linalg.diagonal, SQ),
    Case("triu", np.triu, SQ),
    Case("tril", np.tril, SQ, -1),
    # ----- copies and conversions -----
    Case("copy", np.copy, X),
    Case("ndarray.copy", method("copy"), XC),
    Case("array", np.array, X),
    Case("asarray", np.asarray, X),
    Case("asanyarray", np.asanyarray, X),
    Case("ascontiguousarray", np.ascontiguousarray, X.T),
    Case("asfortranarray", np.asfortranarray, X),
    Case("ndarray.astype", method("astype"), X, np.float64),
    Case("real_if_close", np.real_if_close, X),
    # ----- joining and splitting -----
    Case("concatenate", np.concatenate, [X, Y]),
    Case("concatenate-axis1", np.concatenate, [X, Y[:, :2]], fkwargs={"axis": 1}),
    Case("stack", np.stack, [X, Y]),
    Case("stack-axis-1", np.stack, [X, Y], fkwargs={"axis": -1}),
    Case("hstack", np.hstack, [X, Y]),
    Case("vstack", np.vstack, [X, Y]),
    Case("dstack", np.dstack, [X, Y]),
    Case("column_stack", np.column_stack, [V, V + 1]),
    Case("append", np.append, X, Y),
    Case("split", np.split, X, 3, fkwargs={"axis": 1}),
    Case("array_split", np.array_split, X, 2, fkwargs={"axis": 1}),
    Case("hsplit", np.hsplit, X, 3),
    Case("vsplit", np.vsplit, X, 2),
    Case("dsplit", np.dsplit, X3, 2),
    # ----- selection: where, clip, sort, take, indexing -----
    Case("where", np.where, fixed(COND), X, Y),
    Case("where-broadcast", np.where, fixed(COND), X, V),
    Case("where-complex", np.where, fixed(COND), XC, XC + 1),
    Case("clip", np.clip, X, -0.9, 0.8),                     # the bounds between the values
    Case("clip-array-bounds", np.clip, X, np.full(3, -1.0), np.full((2, 1), 1.0)),
    Case("ndarray.clip", method("clip"), X, -0.5, 0.5),
    Case("sort", np.sort, X),
    Case("sort-axis0", np.sort, X, fkwargs={"axis": 0}),
    Case("sort-float32", np.sort, X32, tol=F32),
    Case("partition", np.partition, spread((5,)), 2),
    Case("take", np.take, X, [0, 4, 4, 2]),
    Case("take-axis", np.take, X, [2, 0], fkwargs={"axis": 1}),
    Case("ndarray.take", method("take"), X, [1, 1], fkwargs={"axis": 0}),
    Case("take_along_axis", np.take_along_axis, X, np.array([[2, 0], [1, 1]]), 1),
    Case("getitem-slice", operator.getitem, X, (Ellipsis, slice(None, None, -2))),
    Case("getitem-int", operator.getitem, X, 1),
    Case("getitem-fancy", operator.getitem, X, ([0, 1, 1], [2, 2, 0])),
    Case("getitem-mask", operator.getitem, X, COND),
    Case("ndarray.__getitem__", method("__getitem__"), XC, (1, slice(1, None))),
    Case("ndarray.item", method("item"), X, 4),
    # ----- products (numpy/linalg/products.py): bilinear -----
    Case("matmul", np.matmul, X, SQ),
    Case("matmul-broadcast", np.matmul, X3.transpose(0, 2, 1), spread((3, 2))),
    Case("matmul-vector", np.matmul, X, V),
    Case("matmul-complex", np.matmul, XC, XC.T.conj()),
    Case("matmul-float32", np.matmul, X32, X32.T, tol=F32),
    Case("linalg.matmul", np.linalg.matmul, X, SQ),
    Case("operator.matmul", operator.matmul, X, SQ),
    Case("ndarray.__matmul__", method("__matmul__"), X, SQ),
    Case("ndarray.__rmatmul__", method("__rmatmul__"), SQ, X),
    Case("dot", np.dot, X, SQ),
    Case("dot-vectors", np.dot, V, V + 1),
    Case("ndarray.dot", method("dot"), X, V),
    Case("tensordot", np.tensordot, X3, X, ([0, 1], [0, 1])),
    Case("tensordot-int", np.tensordot, X, SQ, 1),
    Case("linalg.tensordot", np.linalg.tensordot, X, X.T, fkwargs={"axes": 1}),
    Case("vecdot", np.vecdot, X, Y),
    Case("vecdot-complex-broadcast", np.vecdot, XC, XC[0]),
    Case("linalg.vecdot", np.linalg.vecdot, X, Y, fkwargs={"axis": 0}),
]

@pytest.mark.parametrize("case", params(CASES, {}))
def test_order_two(case):
    case.run()
