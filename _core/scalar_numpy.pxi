# ---------------------------------------------------------------------------
# Rows of the C scalar table for NumPy ufuncs called on scalars (Python
# numbers or NumPy scalars): np.sin(3.0), np.sin(np.float32(1)).  The primal
# computes Ω, so its NumPy type and precision are kept (np.float32 stays
# np.float32, a Python float gives np.float64); the partials come from the
# same C kernels as math's, and the tangents are projected onto the output's
# (frule) or each input's (pullback) type.  Arrays make the rows decline:
# the array rules (chainrules/rulesets/numpy_*.py) handle them.  Multi-output
# ufuncs (modf, frexp, divmod) are Python rules in python_scalars.py.
# ---------------------------------------------------------------------------

# ----- unary ----------------------------------------------------------------

_row1(_np.negative, NULL, d_minus_one, c_minus_one, F_NUMPY)
_row1(_np.positive, NULL, d_one, c_one, F_NUMPY)
_row1(_np.absolute, NULL, d_sign, NULL, F_NUMPY)     # complex: python_scalars.py
_row1(_np.fabs, NULL, d_sign, NULL, F_NUMPY)
_row1(_np.sign, NULL, d_zero, NULL, F_NUMPY)         # sign' = 0
_row1(_np.conjugate, NULL, d_one, NULL, F_NUMPY)     # complex: python_scalars.py
_row1(_np.sqrt, NULL, d_sqrt, c_sqrt, F_NUMPY)
_row1(_np.cbrt, NULL, d_cbrt, NULL, F_NUMPY)
_row1(_np.square, NULL, d_square, c_square, F_NUMPY)
_row1(_np.reciprocal, NULL, d_reciprocal, c_reciprocal, F_NUMPY)
_row1(_np.exp, NULL, d_exp, c_exp, F_NUMPY)
_row1(_np.exp2, NULL, d_exp2, c_exp2, F_NUMPY)
_row1(_np.expm1, NULL, d_expm1, c_expm1, F_NUMPY)
_row1(_np.log, NULL, d_log, c_log, F_NUMPY)
_row1(_np.log2, NULL, d_log2, c_log2, F_NUMPY)
_row1(_np.log10, NULL, d_log10, c_log10, F_NUMPY)
_row1(_np.log1p, NULL, d_log1p, c_log1p, F_NUMPY)
_row1(_np.sin, NULL, d_sin, c_sin, F_NUMPY)
_row1(_np.cos, NULL, d_cos, c_cos, F_NUMPY)
_row1(_np.tan, NULL, d_tan, c_tan, F_NUMPY)
_row1(_np.arcsin, NULL, d_asin, c_asin, F_NUMPY)
_row1(_np.arccos, NULL, d_acos, c_acos, F_NUMPY)
_row1(_np.arctan, NULL, d_atan, c_atan, F_NUMPY)
_row1(_np.sinh, NULL, d_sinh, c_sinh, F_NUMPY)
_row1(_np.cosh, NULL, d_cosh, c_cosh, F_NUMPY)
_row1(_np.tanh, NULL, d_tanh, c_tanh, F_NUMPY)
_row1(_np.arcsinh, NULL, d_asinh, c_asinh, F_NUMPY)
_row1(_np.arccosh, NULL, d_acosh, c_acosh, F_NUMPY)
_row1(_np.arctanh, NULL, d_atanh, c_atanh, F_NUMPY)
for _f in (_np.deg2rad, _np.radians):
    _row1(_f, NULL, d_radians, NULL, F_NUMPY)
for _f in (_np.rad2deg, _np.degrees):
    _row1(_f, NULL, d_degrees, NULL, F_NUMPY)
for _f in (_np.floor, _np.ceil, _np.trunc, _np.rint):  # a numeric zero
    _row1(_f, NULL, d_zero, NULL, F_NUMPY)

# ----- binary ---------------------------------------------------------------

_row2(_np.add, NULL, d2_add, c2_add, F_NUMPY)
_row2(_np.subtract, NULL, d2_sub, c2_sub, F_NUMPY)
_row2(_np.multiply, NULL, d2_mul, c2_mul, F_NUMPY)
_row2(_np.divide, NULL, d2_truediv, c2_truediv, F_NUMPY)
for _f in (_np.power, _np.float_power):
    _row2(_f, NULL, d2_pow, c2_pow, F_NUMPY | F_STRONG_ZERO)
_row2(_np.remainder, NULL, d2_mod, NULL, F_NUMPY)
_row2(_np.fmod, NULL, d2_fmod, NULL, F_NUMPY)
_row2(_np.floor_divide, NULL, d2_zero, NULL, F_NUMPY)
_row2(_np.maximum, NULL, d2_max, NULL, F_NUMPY)
_row2(_np.minimum, NULL, d2_min, NULL, F_NUMPY)
_row2(_np.fmax, NULL, d2_fmax, NULL, F_NUMPY)
_row2(_np.fmin, NULL, d2_fmin, NULL, F_NUMPY)
_row2(_np.arctan2, NULL, d2_atan2, NULL, F_NUMPY)
_row2(_np.hypot, NULL, d2_hypot, NULL, F_NUMPY)
_row2(_np.logaddexp, NULL, d2_logaddexp, NULL, F_NUMPY)
_row2(_np.logaddexp2, NULL, d2_logaddexp2, NULL, F_NUMPY)
_row2(_np.copysign, NULL, d2_copysign, NULL, F_NUMPY)
_row2(_np.ldexp, NULL, d2_ldexp, NULL, F_NUMPY | F_ND2)
del _f
