"""Order 2 for the rules of numpy/ufuncs.py and ufuncs_binary.py that
test_ufuncs.py's order-2 tests do not reach: the rounding functions (flat: taken away from
the integers and half-integers), floor_divide, the np.ndarray methods and
operators, and the operator module's functions on arrays."""

import operator

import numpy as np
import pytest

from .._order2 import Case, array, params, spread

# NumPy 2.5 deprecates np.fix, which these tests call themselves (as a primal to check)
pytestmark = pytest.mark.filterwarnings(r"ignore:.*numpy\.fix.*:DeprecationWarning")

RNG = np.random.default_rng(1204)
X = spread((2, 3))
XC = array(RNG, (2, 3), np.complex128)
Y = array(RNG, (3,), lo=1.2, hi=1.8)                 # broadcast against X; positive (powers, divisors)
R = np.array([[0.12, -1.37, 2.21], [-0.66, 3.41, 0.29]])    # no integer or half-integer near
method = np.ndarray.__dict__.__getitem__

CASES = [
    # ----- rounding: flat away from the integers -----
    *[Case(f.__name__, f, R) for f in (np.around, np.round, np.rint, np.ceil, np.trunc, np.fix)],
    Case("round-decimals", np.round, R, 1),
    Case("ndarray.round", method("round"), R),
    Case("floor_divide", np.floor_divide, R, Y),
    # ----- methods -----
    Case("ndarray.conj", method("conj"), XC),
    Case("ndarray.conjugate", method("conjugate"), X),
    *[Case(f"ndarray.{n}", method(n), X) for n in ("__neg__", "__pos__", "__abs__")],
    *[Case(f"ndarray.{n}", method(n), X, Y)
      for n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__")],
    Case("ndarray.__pow__", method("__pow__"), Y + 0.5, X),
    Case("ndarray.__rpow__", method("__rpow__"), X, Y + 0.5),
    Case("ndarray.__mod__", method("__mod__"), R, Y),
    Case("ndarray.__rmod__", method("__rmod__"), Y, R),
    Case("ndarray.__mul__-complex", method("__mul__"), XC, XC[0]),
    # ----- the operator module on arrays (add, mul, truediv, pow, neg, abs: test_ufuncs.py) -----
    Case("operator.sub", operator.sub, X, Y),
    Case("operator.mod", operator.mod, R, Y),
    Case("operator.pos", operator.pos, X),
    # ----- ufunc.outer: f on x with y's axes appended (issue 12; every binary ufunc: test_ufuncs.py) -----
    Case("multiply.outer-2d", np.multiply.outer, X, Y[0]),
    Case("multiply.outer-complex", np.multiply.outer, XC[0], XC[1]),
    Case("add.outer-scalar", np.add.outer, 0.7, Y),
]


@pytest.mark.parametrize("case", params(CASES, {}))
def test_order_two(case):
    case.run()
