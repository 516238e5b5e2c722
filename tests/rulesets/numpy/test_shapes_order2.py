"""Order 2 for every rule of numpy/shapes.py, padding.py, joining.py and
indexing.py (reshaping, joining, splitting, indexing, where, clip, sort,
take...) and for the products of numpy/linalg/products.py that issue 12 covers (matmul, tensordot, vecdot, dot): the
rules are differentiable (test_frule/test_rrule with order=2).  Most are
linear in x, so the derivative of the pullback is zero and what is checked
is that the rule runs on tracked values and stays linear; the products are
bilinear.  Sort, partition and clip are taken at distinct values away from
their bounds; complex and float32 where the rule takes them; broadcasting
for where, clip and the products.  np.pad in every mode, also by nested
differentiation (tracked tangents and cotangents)."""

import operator

import numpy as np
import pytest

from chainrules import NoTangent
from chainrules.testing import PrimalAndTangent

from .._order2 import F32, NESTED_WAYS, Case, array, nested_second_derivative, params, spread

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
    Case("linalg.matrix_transpose", np.linalg.matrix_transpose, X3),
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
    Case("pad-constant-values", np.pad, X, ((1, 2), (0, 1)), fkwargs={"constant_values": 0.5}),
    Case("pad-complex", np.pad, XC, 1),
    Case("pad-edge", np.pad, X, ((1, 2), (2, 0)), "edge"),
    Case("pad-reflect", np.pad, X, 2, "reflect"),
    Case("pad-symmetric", np.pad, X, (1, 3), "symmetric"),
    Case("pad-wrap", np.pad, XC, 2, "wrap"),
    Case("pad-reflect-odd", np.pad, X, ((1, 2), (3, 1)), "reflect", fkwargs={"reflect_type": "odd"}),
    Case("pad-symmetric-odd-complex", np.pad, XC, 2, "symmetric", fkwargs={"reflect_type": "odd"}),
    Case("pad-linear_ramp", np.pad, X, ((1, 2), (2, 1)), "linear_ramp", fkwargs={"end_values": (1.0, -2.0)}),
    Case("pad-linear_ramp-complex", np.pad, XC, 1, "linear_ramp"),
    Case("pad-mean", np.pad, X3, ((1, 0), (2, 1), (0, 2)), "mean"),
    Case("pad-mean-stat_length-complex", np.pad, XC, 2, "mean", fkwargs={"stat_length": (1, 2)}),
    Case("pad-maximum", np.pad, X, ((1, 2), (3, 0)), "maximum"),
    Case("pad-minimum-stat_length", np.pad, X, 2, "minimum", fkwargs={"stat_length": 2}),
    Case("pad-median", np.pad, spread((3, 4)), ((2, 1), (1, 2)), "median"),
    Case("pad-median-stat_length", np.pad, spread((5,)), (2, 3), "median", fkwargs={"stat_length": 3}),
    Case("pad-float32", np.pad, X32, 2, "reflect", fkwargs={"reflect_type": "odd"}, tol=F32),
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
    *([Case("row_stack", np.row_stack, [X, Y])] if hasattr(np, "row_stack") else []),   # vstack's rules
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
    Case("sort_complex", np.sort_complex, XC),
    Case("trim_zeros", np.trim_zeros, X[0]),              # no zero: finite differences keep its shape (1-d: NumPy 2.0's)
    Case("asarray_chkfinite", np.asarray_chkfinite, XC),
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
@pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated:DeprecationWarning")
def test_order_two(case):
    case.run()


# np.pad is linear: the checks above hold its cotangent seed fixed, so they do not
# run its pullback on a tracked cotangent, nor its pushforward on a tracked
# tangent.  Nested differentiation does: the Hessian-vector product of a smooth
# function of the padded array, in every mode and by each pairing of the engines,
# against finite differences of the gradient (first order, tested in test_shapes).
PAD_NESTED = [("constant", {}), ("constant", {"constant_values": (0.5, -1.0)}), ("edge", {}), ("reflect", {}),
              ("symmetric", {}), ("wrap", {}), ("reflect", {"reflect_type": "odd"}),
              ("symmetric", {"reflect_type": "odd"}), ("linear_ramp", {}),
              ("linear_ramp", {"end_values": (1.0, -2.0)}),
              ("mean", {}), ("mean", {"stat_length": 2}), ("maximum", {}), ("minimum", {"stat_length": (1, 2)}),
              ("median", {}), ("median", {"stat_length": ((2, 3), (2, 2))}), ("empty", {})]
PAD_X = spread((3, 4), lo=0.3, hi=1.7)
PAD_V = np.cos(np.arange(12.0)).reshape(3, 4)
PAD_W = np.sin(np.arange(1.0, 57.0)).reshape(7, 8)


def _padded(mode, kw):
    def f(z):
        y = np.pad(z * z + z, ((2, 2), (1, 3)), mode, **kw)
        if mode == "empty":         # its padding is undetermined: only the interior is read
            y = y[2:5, 1:5]
            return np.sum(np.sin(y) * PAD_W[:3, :4])
        return np.sum(np.sin(y) * PAD_W)
    return f


@pytest.mark.parametrize("how", NESTED_WAYS)
@pytest.mark.parametrize("mode,kw", PAD_NESTED, ids=str)
def test_pad_second_derivatives(mode, kw, how):
    nested_second_derivative(_padded(mode, kw), PAD_X, PAD_V, how, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("mode,kw", [("edge", {}), ("reflect", {"reflect_type": "odd"}), ("mean", {}),
                                     ("median", {})], ids=str)
def test_pad_third_derivatives(mode, kw):
    # forward over forward-over-reverse: the rule on values tracked by two enclosing differentiations
    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp
    f = _padded(mode, kw)
    x, v = PAD_X, PAD_V
    want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda z: ad.hvp(f, z, v), (x, v))
    np.testing.assert_allclose(ad.jvp(lambda z: ad.hvp(f, z, v), (x,), (v,))[1], want, rtol=1e-5, atol=1e-6)


def test_pad_second_derivatives_complex():
    # reverse over reverse with complex values: a real function of a complex padded array
    z = array(RNG, (2, 3), np.complex128)
    w = array(RNG, (2, 3), np.complex128)
    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp
    for mode, kw in [("reflect", {"reflect_type": "odd"}), ("linear_ramp", {}), ("mean", {}), ("wrap", {})]:
        def f(u):
            return np.sum(np.real(np.sin(np.pad(u * u, 2, mode, **kw)) * np.conj(np.pad(u, 2, mode, **kw))))

        got = ad.gradient(lambda u: np.sum(np.real(np.conj(ad.gradient(f, u)) * w)), z)
        want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda u: ad.gradient(f, u), (z, w))
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8, err_msg=mode)


# The joining functions take one array as the sequence of its rows; a tracked array
# (the rule differentiated) is one too: its cotangent is one array, not a sequence's
# (autograd's own test_vstack_1d found it).
@pytest.mark.parametrize("how", NESTED_WAYS)
def test_joining_one_array_nested(how):
    x = spread((3, 2), lo=0.3, hi=1.7)
    v = np.cos(np.arange(6.0)).reshape(3, 2)
    for join in (np.vstack, np.hstack, np.column_stack, np.stack, np.concatenate, np.dstack):
        w = np.sin(np.arange(1.0, 1.0 + join(x).size)).reshape(join(x).shape)
        nested_second_derivative(lambda z: np.sum(np.sin(join(z * z)) * w), x, v, how, 1e-6, 1e-8)


# np.take's indices may have any number of dimensions (the standard's take: one); a
# traced x goes to the array-API body, whose pullback moves the indices' axes first
# (autograd's own convolve tests found a 0-d and a 2-d index failing there).
@pytest.mark.parametrize("how", NESTED_WAYS)
def test_take_nd_indices_nested(how):
    x = spread((2, 3, 4), lo=0.3, hi=1.7)
    v = np.cos(np.arange(24.0)).reshape(2, 3, 4)
    for idx, axis in ((np.array(1), 1), (np.array([[0, 2], [1, 1]]), 2), (np.array([[1], [0]]), 0),
                      (np.array([2, 0, 2]), 1), (np.array([[5, 0], [23, 5]]), None)):
        w = np.sin(np.arange(1.0, 1.0 + np.take(x, idx, axis=axis).size)).reshape(np.take(x, idx, axis=axis).shape)
        nested_second_derivative(lambda z: np.sum(np.sin(np.take(z * z, idx, axis=axis)) * w), x, v, how,
                                 1e-6, 1e-8)
