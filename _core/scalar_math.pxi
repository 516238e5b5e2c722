# RULE CORE: rows of the C scalar table for math.
# ---------------------------------------------------------------------------
# Rows of the C scalar table for `math` (ChainRules' fastmath_able.jl and
# base.jl).  math functions take real numbers only: a complex argument makes
# the row decline (there is no rule; the primal raises its TypeError).
#
# Where CPython computes the primal itself rather than with libm (gamma,
# lgamma, hypot) the row calls the primal so that Ω is exactly math's; the
# rounding functions (floor, ceil, trunc) call it for their int, and give a
# numeric zero derivative, as ChainRules does.  n-ary hypot, dist, fsum, prod,
# modf and frexp are Python rules in chainrules/rulesets/python/math.py.
# ---------------------------------------------------------------------------

import math as _math


# ----- trigonometric ------------------------------------------------------

_row1(_math.sin, sin, d_sin)
_row1(_math.cos, cos, d_cos)
_row1(_math.tan, tan, d_tan)
_row1(_math.asin, asin, d_asin)
_row1(_math.acos, acos, d_acos)
_row1(_math.atan, atan, d_atan)
_row2(_math.atan2, f_atan2, d2_atan2)

# ----- hyperbolic ---------------------------------------------------------

_row1(_math.sinh, sinh, d_sinh)
_row1(_math.cosh, cosh, d_cosh)
_row1(_math.tanh, tanh, d_tanh)
_row1(_math.asinh, asinh, d_asinh)
_row1(_math.acosh, acosh, d_acosh)
_row1(_math.atanh, atanh, d_atanh)

# ----- exponentials and logarithms ----------------------------------------

_row1(_math.exp, exp, d_exp)
if hasattr(_math, "exp2"):
    _row1(_math.exp2, exp2, d_exp2)
_row1(_math.expm1, expm1, d_expm1)
_row1(_math.log, log, d_log)
_row2(_math.log, f_logb, d2_logb)            # math.log(x, base)
_row1(_math.log2, log2, d_log2)
_row1(_math.log10, log10, d_log10)
_row1(_math.log1p, log1p, d_log1p)

# ----- powers and roots ---------------------------------------------------

_row1(_math.sqrt, sqrt, d_sqrt)              # sqrt'(0) = inf
if hasattr(_math, "cbrt"):
    _row1(_math.cbrt, cbrt, d_cbrt)
_row2(_math.pow, f_pow, d2_pow, NULL, F_STRONG_ZERO)
_row1(_math.hypot, NULL, d_fabs)             # hypot(x) = |x|
_row2(_math.hypot, NULL, d2_hypot)           # hypot(0, 0): zeros

# ----- sign, remainders, scaling ------------------------------------------

_row1(_math.fabs, fabs, d_fabs)              # fabs'(0) = 0
_row2(_math.copysign, f_copysign, d2_copysign)
_row2(_math.fmod, f_fmod, d2_fmod)
_row2(_math.remainder, f_remainder, d2_remainder)
_row2(_math.ldexp, NULL, d2_ldexp, NULL, F_ND2)   # the primal checks the int exponent
_row1(_math.degrees, f_degrees, d_rad2deg)
_row1(_math.radians, f_radians, d_deg2rad)

# ----- special functions --------------------------------------------------

_row1(_math.erf, erf, d_erf)
_row1(_math.erfc, erfc, d_erfc)
_row1(_math.gamma, NULL, d_gamma)            # Γ' = Γ·ψ
_row1(_math.lgamma, NULL, d_lgamma)          # ψ

# ----- rounding: a numeric zero; Ω an int, made as CPython makes it --------

_row1(_math.floor, f_floor, d_zero, NULL, F_INT_OUT | F_INT_PRIMAL)
_row1(_math.ceil, f_ceil, d_zero, NULL, F_INT_OUT | F_INT_PRIMAL)
_row1(_math.trunc, f_trunc, d_zero, NULL, F_INT_OUT | F_INT_PRIMAL)
