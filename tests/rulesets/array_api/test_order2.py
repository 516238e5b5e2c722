"""Order 2 for every array-API rule (reductions.py, shapes.py, linalg.py and
`__getitem__`): the generic bodies, registered on thin wrappers of
array_api_compat.numpy's functions, are differentiable (test_frule and
test_rrule with order=2 on NumPy arrays); and the rules registered for
array-api-strict pass the testing kit with `backend="array_api_strict"` at
order 1 and order 2 (compared with NumPy's function of the same name)."""

import importlib
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent
from chainrules.rulesets.array_api import shapes
from chainrules.testing import PrimalAndTangent

from .._order2 import F32, Case, params, spread
from ._helpers import ALL, array, generic

X = spread((2, 3))
Y = spread((2, 3), lo=-2.0, hi=2.0)
X3 = spread((2, 3, 2))
XC = array((2, 3), np.complex128)
X32 = spread((2, 3), dtype=np.float32)
SQ = spread((3, 3))
V = spread((3,))
COND = np.array([[True, False, True], [False, True, True]])


def fixed(x):
    """x held fixed (a shape, an index, a condition)."""
    return PrimalAndTangent(x, NoTangent())


# (id, the standard's name, args, fkwargs, tolerances): "getitem" is x[idx]
SPECS = [
    # ----- reductions.py -----
    ("sum", "sum", (X,), {}, {}),
    ("sum-axis1-keepdims", "sum", (X,), {"axis": 1, "keepdims": True}, {}),
    ("sum-complex", "sum", (XC,), {"axis": 0}, {}),
    ("sum-float32", "sum", (X32,), {}, F32),
    ("prod", "prod", (X,), {"axis": 1}, {}),
    ("prod-zero", "prod", (np.array([[0.7, 0.0, -1.3], [1.1, -0.6, 0.9]]),), {"axis": 1}, {}),
    # two zeros in a slice: ∂²Ω/∂x₁∂x₃ ≠ 0 there
    ("prod-zeros", "prod", (np.array([[0.7, 0.0, -1.3, 0.0], [1.1, -0.6, 0.9, 0.0]]),), {"axis": 1}, {}),
    ("prod-complex", "prod", (XC,), {}, {}),
    ("mean", "mean", (X,), {"axis": 0}, {}),
    ("mean-complex", "mean", (XC,), {}, {}),
    ("var", "var", (X,), {}, {}),
    ("var-axis1-correction", "var", (X,), {"axis": 1, "correction": 1}, {}),
    ("var-complex", "var", (XC,), {"axis": 0}, {}),
    ("std", "std", (X,), {"axis": 0}, {}),
    ("std-complex", "std", (XC,), {}, {}),
    ("max", "max", (X,), {}, {}),
    ("max-axis1-keepdims", "max", (X,), {"axis": 1, "keepdims": True}, {}),
    ("min", "min", (X,), {"axis": 0}, {}),
    ("cumulative_sum", "cumulative_sum", (X,), {"axis": 1}, {}),
    ("cumulative_sum-complex", "cumulative_sum", (XC,), {"axis": 0}, {}),
    ("cumulative_prod", "cumulative_prod", (Y,), {"axis": 1}, {}),
    ("cumulative_prod-zero", "cumulative_prod", (np.array([[0.7, 0.0, -1.3], [0.0, -0.6, 0.9]]),), {"axis": 1}, {}),
    # two zeros in a slice: ∂²y/∂x₁∂x₃ ≠ 0 after the second
    ("cumulative_prod-zeros", "cumulative_prod", (np.array([[0.7, 0.0, -1.3, 0.0, 1.2], [0.0, 0.0, 0.0, 1.1, -0.8]]),),
     {"axis": 1}, {}),
    ("cumulative_prod-initial", "cumulative_prod", (np.array([1.5, 0.0, -2.0, 0.5]),), {"include_initial": True}, {}),
    ("cumulative_prod-complex", "cumulative_prod", (XC,), {"axis": 0}, {}),
    ("cumulative_prod-float32", "cumulative_prod", (X32,), {"axis": 1}, F32),
    # ----- shapes.py -----
    ("reshape", "reshape", (X, fixed((3, 2))), {}, {}),
    ("permute_dims", "permute_dims", (X3, fixed((2, 0, 1))), {}, {}),
    ("matrix_transpose", "matrix_transpose", (X3,), {}, {}),
    ("expand_dims", "expand_dims", (X,), {"axis": 1}, {}),
    ("squeeze", "squeeze", (spread((2, 1, 3)),), {"axis": 1}, {}),
    ("flip", "flip", (X,), {"axis": 1}, {}),
    ("flip-complex", "flip", (XC,), {}, {}),
    ("roll", "roll", (X, fixed(1)), {}, {}),
    ("roll-axis", "roll", (X, fixed(-2)), {"axis": 1}, {}),
    ("broadcast_to", "broadcast_to", (V, fixed((2, 3))), {}, {}),
    ("concat", "concat", ([X, Y],), {}, {}),
    ("concat-axis1", "concat", ([X, Y[:, :2]],), {"axis": 1}, {}),
    ("stack", "stack", ([X, Y],), {"axis": -1}, {}),
    ("where", "where", (fixed(COND), X, Y), {}, {}),
    ("where-broadcast", "where", (fixed(COND), X, V), {}, {}),
    ("clip", "clip", (X, -0.9, 0.8), {}, {}),                   # the bounds between the values
    ("sort", "sort", (X,), {}, {}),
    ("sort-axis0", "sort", (X,), {"axis": 0}, {}),
    ("take", "take", (X, fixed(np.array([2, 0, 2]))), {"axis": 1}, {}),
    ("getitem-slice", "getitem", (X, fixed((Ellipsis, slice(None, None, -2)))), {}, {}),
    ("getitem-int", "getitem", (X, fixed((1, 2))), {}, {}),
    ("getitem-newaxis", "getitem", (X, fixed((None, Ellipsis, slice(1, None)))), {}, {}),
    # ----- linalg.py -----
    ("matmul", "matmul", (X, SQ), {}, {}),
    ("matmul-vector", "matmul", (X, V), {}, {}),
    ("matmul-complex", "matmul", (XC, XC.T), {}, {}),
    ("matmul-float32", "matmul", (X32, X32.T), {}, F32),
    ("tensordot", "tensordot", (X, SQ), {"axes": 1}, {}),
    ("tensordot-pairs", "tensordot", (X3, X), {"axes": ([0, 1], [0, 1])}, {}),
    ("vecdot", "vecdot", (X, Y), {}, {}),
    ("vecdot-complex", "vecdot", (XC, XC[0]), {}, {}),
]
NAMES = {name for _, name, *_ in SPECS}


def _generic_getitem():
    """x[idx] with the generic indexing rules (operator.getitem on ndarrays
    keeps NumPy's own rule)."""
    def getitem(x, idx):
        return x[idx]
    frule, rrule = shapes.getitem_rules(getitem)
    cr.register_frule(getitem)(frule)
    cr.register_rrule(getitem)(rrule)
    return getitem


def _cases(make):
    return [Case(id, make(name), *args, fkwargs=kw or None, tol=tol) for id, name, args, kw, tol in SPECS]


# ----- the generic bodies on NumPy arrays (tracked by chainrules.ad at order 2) ----------------

GENERIC_XFAIL: dict = {}


@pytest.mark.parametrize("spec", params([Case(s[0], None) for s in SPECS], GENERIC_XFAIL))
def test_generic_order_two(registry, spec):
    g = generic(ALL)
    getitem = _generic_getitem()
    (case,) = [c for c in _cases(lambda n: getitem if n == "getitem" else g[n]) if c.id == spec.id]
    case.run(order=2)


# ----- array-api-strict through the testing kit's backend= ---------------------------------------

def _strict_cases():
    xs = pytest.importorskip("array_api_strict")

    def numpy_and_strict(name):
        if name == "getitem":
            return operator.getitem, operator.getitem
        f = getattr(np, name, None)
        if f is None:                   # NumPy < 2.1 lacks cumulative_sum: array-api-compat's
            f = getattr(importlib.import_module("array_api_compat.numpy"), name)
        return f, getattr(xs, name)
    cases = []
    for id, name, args, kw, tol in SPECS:
        if id in STRICT_UNSUPPORTED:
            continue
        f, bf = numpy_and_strict(name)
        cases.append(Case(id, f, *args, fkwargs=kw or None, tol=tol, backend="array_api_strict", backend_f=bf))
    return cases


# array-api-strict takes real floating-point arrays only in var and std (the standard's signature)
STRICT_UNSUPPORTED = {"var-complex", "std-complex"}
STRICT_SPECS = [s for s in SPECS if s[0] not in STRICT_UNSUPPORTED]


def _strict(spec_id):
    (case,) = [c for c in _strict_cases() if c.id == spec_id]
    return case


STRICT_XFAIL = {}
STRICT_ORDER2_XFAIL = {}


@pytest.mark.parametrize("spec", params([Case(s[0], None) for s in STRICT_SPECS], STRICT_XFAIL))
def test_strict_order_one(spec):
    _strict(spec.id).run(order=1)


@pytest.mark.parametrize("spec", params([Case(s[0], None) for s in STRICT_SPECS], STRICT_ORDER2_XFAIL))
def test_strict_order_two(spec):
    _strict(spec.id).run(order=2)
