# RULE CORE: rows of the C scalar table for cmath (the holomorphic functions).
# ---------------------------------------------------------------------------
# Rows of the C scalar table for `cmath`: the holomorphic functions.  They
# map into ℂ for real arguments too (cmath.sqrt(-1.0) is 1j), so every call
# takes the complex path: the primal computes Ω (its branch cuts, its
# errors), the C complex kernel f'(z); the pushforward is f'(z)·Δz, the
# pullback conj(f'(z))·ΔΩ, projected to the real part for a real argument.
# phase, polar and rect (not holomorphic) are Python rules in
# chainrules/rulesets/python/cmath.py.
# ---------------------------------------------------------------------------

import cmath as _cmath

_row1(_cmath.exp, NULL, NULL, c_exp, F_COMPLEX)
_row1(_cmath.log, NULL, NULL, c_log, F_COMPLEX)
_row2(_cmath.log, NULL, NULL, c2_logb, F_COMPLEX)     # cmath.log(z, base)
_row1(_cmath.log10, NULL, NULL, c_log10, F_COMPLEX)
_row1(_cmath.sqrt, NULL, NULL, c_sqrt, F_COMPLEX)
_row1(_cmath.sin, NULL, NULL, c_sin, F_COMPLEX)
_row1(_cmath.cos, NULL, NULL, c_cos, F_COMPLEX)
_row1(_cmath.tan, NULL, NULL, c_tan, F_COMPLEX)
_row1(_cmath.asin, NULL, NULL, c_asin, F_COMPLEX)
_row1(_cmath.acos, NULL, NULL, c_acos, F_COMPLEX)
_row1(_cmath.atan, NULL, NULL, c_atan, F_COMPLEX)
_row1(_cmath.sinh, NULL, NULL, c_sinh, F_COMPLEX)
_row1(_cmath.cosh, NULL, NULL, c_cosh, F_COMPLEX)
_row1(_cmath.tanh, NULL, NULL, c_tanh, F_COMPLEX)
_row1(_cmath.asinh, NULL, NULL, c_asinh, F_COMPLEX)
_row1(_cmath.acosh, NULL, NULL, c_acosh, F_COMPLEX)
_row1(_cmath.atanh, NULL, NULL, c_atanh, F_COMPLEX)
