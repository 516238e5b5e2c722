"""Second-order information for nested differentiation: the partial
derivatives of the scalar functions, written as code.

A rule gives first derivatives.  A derivative of a derivative (a Hessian, a
Hessian-vector product, `derivative(derivative(f))`) needs the partials
themselves to be differentiable: when an operation meets values tracked by an
enclosing differentiation, the engine computes Ω and each partial ∂Ω/∂xᵢ with
the functions below, which are themselves differentiated by the enclosing
engine (as ForwardDiff does with DiffRules' expressions).  The C kernels of
the scalar table cannot be: they only take doubles.

Each entry maps (function, number of arguments) to one function per argument,
`∂ᵢ(*xs, Ω)`, called only for arguments that carry a tangent.  Functions that
are not here fall back to their rule, which then receives the enclosing
differentiation's tracked values (Python rules written with operators and
NumPy functions work; others raise a clear error).
"""

import cmath
import math
import operator

import numpy as np

from chainrules._core import Wrapped, _ad_strip_all

__all__ = ["lookup", "primal"]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _pick(np_f, math_f, cmath_f):
    """A function of tracked or plain values: the math version for real
    Python scalars, cmath for complex ones, NumPy for everything else."""
    w_math = Wrapped(math_f) if math_f is not None else None
    w_cmath = Wrapped(cmath_f) if cmath_f is not None else None

    def pick(x):
        t = type(_ad_strip_all(x))
        if (t is float or t is int) and w_math is not None:
            return w_math(x)
        if t is complex and w_cmath is not None:
            return w_cmath(x)
        return np_f(x)
    pick.__name__ = np_f.__name__
    return pick


_sin = _pick(np.sin, math.sin, cmath.sin)
_cos = _pick(np.cos, math.cos, cmath.cos)
_sinh = _pick(np.sinh, math.sinh, cmath.sinh)
_cosh = _pick(np.cosh, math.cosh, cmath.cosh)
_exp = _pick(np.exp, math.exp, cmath.exp)
_log = _pick(np.log, math.log, cmath.log)
_sqrt = _pick(np.sqrt, math.sqrt, cmath.sqrt)


def _sign(x):
    """The sign of x's primal, a constant."""
    p = _ad_strip_all(x)
    return np.sign(p) if isinstance(p, (np.ndarray, np.generic)) else (1.0 if p > 0 else -1.0 if p < 0 else 0.0)


def _ge(x, y):
    """1 where x >= y else 0, a constant (ties go to the first argument)."""
    p, q = _ad_strip_all(x), _ad_strip_all(y)
    r = p >= q
    return r * 1.0 if isinstance(r, np.ndarray) else (1.0 if r else 0.0)


def _one(*args):
    return 1.0


def _minus_one(*args):
    return -1.0


def _zero(*args):
    return 0.0


# ----- one argument: ∂(x, Ω) -------------------------------------------------------

_UNARY = {
    "sin": lambda x, o: _cos(x),
    "cos": lambda x, o: -_sin(x),
    "tan": lambda x, o: 1 + o * o,
    "asin": lambda x, o: 1 / _sqrt(1 - x * x),
    "acos": lambda x, o: -1 / _sqrt(1 - x * x),
    "atan": lambda x, o: 1 / (1 + x * x),
    "sinh": lambda x, o: _cosh(x),
    "cosh": lambda x, o: _sinh(x),
    "tanh": lambda x, o: 1 - o * o,
    "asinh": lambda x, o: 1 / _sqrt(x * x + 1),
    "acosh": lambda x, o: 1 / _sqrt(x * x - 1),
    "atanh": lambda x, o: 1 / (1 - x * x),
    "exp": lambda x, o: o,
    "exp2": lambda x, o: o * _LN2,
    "expm1": lambda x, o: o + 1,
    "log": lambda x, o: 1 / x,
    "log2": lambda x, o: 1 / (x * _LN2),
    "log10": lambda x, o: 1 / (x * _LN10),
    "log1p": lambda x, o: 1 / (1 + x),
    "sqrt": lambda x, o: 0.5 / o,
    "cbrt": lambda x, o: o / (3 * x),
    "erf": lambda x, o: (2 / math.sqrt(math.pi)) * _exp(-x * x),
    "erfc": lambda x, o: (-2 / math.sqrt(math.pi)) * _exp(-x * x),
    "degrees": lambda x, o: 180 / math.pi,
    "radians": lambda x, o: math.pi / 180,
    "fabs": lambda x, o: _sign(x),
    "square": lambda x, o: 2 * x,
    "reciprocal": lambda x, o: -o * o,
}
_NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                "acosh": "arccosh", "atanh": "arctanh"}

_TABLE = {}

for _name, _d in _UNARY.items():
    for _mod in (math, cmath):
        if hasattr(_mod, _name):
            _TABLE[(getattr(_mod, _name), 1)] = (_d,)
    _npf = getattr(np, _NUMPY_NAMES.get(_name, _name), None)
    if isinstance(_npf, np.ufunc):
        _TABLE[(_npf, 1)] = (_d,)

_TABLE[(operator.neg, 1)] = (_minus_one,)
_TABLE[(np.negative, 1)] = (_minus_one,)
_TABLE[(operator.pos, 1)] = (_one,)
_TABLE[(np.positive, 1)] = (_one,)
for _f in (operator.abs, abs, np.absolute):
    # real arguments only: |z| of a complex z is not holomorphic
    _TABLE[(_f, 1)] = (lambda x, o: _sign(x),)


# ----- two arguments: ∂ₓ(x, y, Ω), ∂ᵧ(x, y, Ω) -----------------------------------

def _pow_dx(x, y, o):
    return y * x ** (y - 1)


def _pow_dy(x, y, o):
    return _log(x) * o


_BINARY = {
    (operator.add, np.add): (_one, _one),
    (operator.sub, np.subtract): (_one, _minus_one),
    (operator.mul, np.multiply): (lambda x, y, o: y, lambda x, y, o: x),
    (operator.truediv, np.true_divide): (lambda x, y, o: 1 / y, lambda x, y, o: -o / y),
    (operator.pow, np.power, pow, math.pow): (_pow_dx, _pow_dy),
    (operator.floordiv, np.floor_divide): (_zero, _zero),
    (math.atan2, np.arctan2): (lambda y, x, o: x / (x * x + y * y),
                               lambda y, x, o: -y / (x * x + y * y)),
    (math.hypot, np.hypot): (lambda x, y, o: x / o, lambda x, y, o: y / o),
    (np.maximum, max): (lambda x, y, o: _ge(x, y), lambda x, y, o: 1 - _ge(x, y)),
    (np.minimum, min): (lambda x, y, o: _ge(y, x), lambda x, y, o: 1 - _ge(y, x)),
    (math.log, cmath.log): (lambda x, b, o: 1 / (x * _log(b)),
                            lambda x, b, o: -o / (b * _log(b))),
}

for _fs, _ds in _BINARY.items():
    for _f in _fs:
        _TABLE[(_f, 2)] = _ds


_REAL_ONLY = {operator.abs, abs, np.absolute, math.fabs, np.maximum, np.minimum, max, min}


def lookup(f, primals):
    """The partials-as-code of f called with these primals, or None."""
    try:
        entry = _TABLE.get((f, len(primals)))
    except TypeError:       # unhashable f
        return None
    if entry is not None and f in _REAL_ONLY and any(np.iscomplexobj(_ad_strip_all(x)) for x in primals):
        return None
    return entry


_PRIMALS = {}


def primal(f):
    """f, callable on tracked values (the enclosing differentiation computes
    Ω through f's rule)."""
    w = _PRIMALS.get(f)
    if w is None:
        w = _PRIMALS[f] = Wrapped(f)
    return w
