# RULE CORE: rows of the C scalar table for operator and the builtins abs, pow, max, min.
# ---------------------------------------------------------------------------
# Rows of the C scalar table for `operator` and the builtins abs, pow, max,
# min.  On immutable numbers the in-place operators (iadd, …) are the same
# functions.  Python ints go through the primal (exact int results); the
# arithmetic operators are holomorphic on complex numbers; abs on complex
# numbers is not, and is a Python rule (rulesets/python/), as are n-ary
# max/min, pow(x, y, mod) (non-differentiable), divmod and round.
# ---------------------------------------------------------------------------

import operator as _operator
import builtins as _builtins


for _f in (_operator.add, _operator.iadd):
    _row2(_f, f_add, d2_add, c2_add, F_INT_PRIMAL)
for _f in (_operator.sub, _operator.isub):
    _row2(_f, f_sub, d2_sub, c2_sub, F_INT_PRIMAL)
for _f in (_operator.mul, _operator.imul):
    _row2(_f, f_mul, d2_multiply, c2_multiply, F_INT_PRIMAL)
for _f in (_operator.truediv, _operator.itruediv):
    _row2(_f, f_truediv, d2_divide, c2_divide, F_INT_PRIMAL)
for _f in (_operator.floordiv, _operator.ifloordiv):       # piecewise constant
    _row2(_f, f_pyfloordiv, d2_zero, NULL, F_INT_PRIMAL)
for _f in (_operator.mod, _operator.imod):                 # ChainRules' mod
    _row2(_f, f_pymod, d2_mod, NULL, F_INT_PRIMAL)
for _f in (_operator.pow, _operator.ipow, _builtins.pow):  # the x ** p table at x = 0
    _row2(_f, f_pypow, d2_pow, c2_pow, F_INT_PRIMAL | F_STRONG_ZERO)

_row1(_operator.neg, f_neg, d_minus_one, c_minus_one, F_INT_PRIMAL)
_row1(_operator.pos, f_identity, d_one, c_one, F_INT_PRIMAL)
for _f in (_operator.abs, _builtins.abs):                  # abs'(0) = 0
    _row1(_f, f_fabs, d_abs, NULL, F_INT_PRIMAL)

# max/min of two numbers; a tie sends the derivative to y (max) / x (min).
_row2(_builtins.max, f_pymax, d2_maximum, NULL, F_INT_PRIMAL)
_row2(_builtins.min, f_pymin, d2_min, NULL, F_INT_PRIMAL)
del _f
