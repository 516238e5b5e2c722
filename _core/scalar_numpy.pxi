# RULE CORE: rows of the C scalar table for NumPy ufuncs called on scalars.
# ---------------------------------------------------------------------------
# Rows of the C scalar table for NumPy ufuncs called on scalars (Python
# numbers or NumPy scalars): np.sin(3.0), np.sin(np.float32(1)).  The primal
# computes Ω, so its NumPy type and precision are kept (np.float32 stays
# np.float32, a Python float gives np.float64); the partials come from the
# same C kernels as math's, and the tangents are projected onto the output's
# (frule) or each input's (pullback) type.  Arrays make the rows decline:
# the array rules (chainrules/rulesets/numpy_*.py) handle them.  Multi-output
# ufuncs (modf, frexp, divmod) are Python rules in rulesets/python/.
# ---------------------------------------------------------------------------

# ----- unary ----------------------------------------------------------------

_row1(_np.negative, NULL, d_minus_one, c_minus_one, F_NUMPY)
_row1(_np.positive, NULL, d_one, c_one, F_NUMPY)
_row1(_np.absolute, NULL, d_abs, NULL, F_NUMPY)     # complex: python/cmath.py
_row1(_np.fabs, NULL, d_fabs, NULL, F_NUMPY)
_row1(_np.sign, NULL, d_zero, NULL, F_NUMPY)         # sign' = 0
_row1(_np.conjugate, NULL, d_one, NULL, F_NUMPY)     # complex: python/cmath.py
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
    _row1(_f, NULL, d_deg2rad, NULL, F_NUMPY)
for _f in (_np.rad2deg, _np.degrees):
    _row1(_f, NULL, d_rad2deg, NULL, F_NUMPY)
for _f in (_np.floor, _np.ceil, _np.trunc, _np.rint):  # a numeric zero
    _row1(_f, NULL, d_zero, NULL, F_NUMPY)

# ----- binary ---------------------------------------------------------------

_row2(_np.add, NULL, d2_add, c2_add, F_NUMPY)
_row2(_np.subtract, NULL, d2_sub, c2_sub, F_NUMPY)
_row2(_np.multiply, NULL, d2_multiply, c2_multiply, F_NUMPY)
_row2(_np.divide, NULL, d2_divide, c2_divide, F_NUMPY)
for _f in (_np.power, _np.float_power):
    _row2(_f, NULL, d2_pow, c2_pow, F_NUMPY | F_STRONG_ZERO)
_row2(_np.remainder, NULL, d2_mod, NULL, F_NUMPY)
_row2(_np.fmod, NULL, d2_fmod, NULL, F_NUMPY)
_row2(_np.floor_divide, NULL, d2_zero, NULL, F_NUMPY)
_row2(_np.maximum, NULL, d2_maximum, NULL, F_NUMPY)
_row2(_np.minimum, NULL, d2_min, NULL, F_NUMPY)     # a tie to x, as min (not the table's minimum)
_row2(_np.fmax, NULL, d2_fmax, NULL, F_NUMPY)
_row2(_np.fmin, NULL, d2_fmin, NULL, F_NUMPY)
_row2(_np.arctan2, NULL, d2_atan2, NULL, F_NUMPY)
_row2(_np.hypot, NULL, d2_hypot, NULL, F_NUMPY)
_row2(_np.logaddexp, NULL, d2_logaddexp, NULL, F_NUMPY)
_row2(_np.logaddexp2, NULL, d2_logaddexp2, NULL, F_NUMPY)
_row2(_np.copysign, NULL, d2_copysign, NULL, F_NUMPY)
_row2(_np.ldexp, NULL, d2_ldexp, NULL, F_NUMPY | F_ND2)
del _f


# ---------------------------------------------------------------------------
# chainrules.ad on real scalars with NumPy's semantics (issue 13): np.sin(x)
# on a tracked float, or any operation on a tracked np.float64, computes in C
# what the generic engine computes, so that it can take the engines' compiled
# scalar path (ad_numpy_scalar.pxi).  What the generic engine computes:
# - a ufunc's Ω is an np.float64 from NumPy's own inner loop for float64
#   (NumPy's loops are not libm's: on AVX-512 machines arcsin, exp, tanh…
#   differ in the last bit), and NumPy's floating-point error handling
#   (np.errstate) applies to it;
# - an arithmetic operator with an np.float64 argument is NumPy's scalar
#   arithmetic: an np.float64, IEEE's result, with the same error handling;
# - a `math` function of an np.float64 is the Python float of the C kernel.
# Here: each row's kind for those cases and its NumPy loops; a result that
# raised a floating-point flag (or left the reals) is left to the generic
# engine, which then warns or raises as NumPy would.
# ---------------------------------------------------------------------------

cdef extern from *:
    """
    #include <fenv.h>
    #include <numpy/ufuncobject.h>
    #include <numpy/arrayscalars.h>
    #define CR_FE_ALL (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
    /* The inner loop of the ufunc f (an np.ufunc) for nin float64 inputs and
       one float64 output: 1 and *loop, *data set, or 0. */
    static int cr_ufunc_double_loop(PyObject *f, int nin, void **loop, void **data) {
        PyUFuncObject *u = (PyUFuncObject *)f;
        if (u->nin != nin || u->nout != 1 || u->functions == NULL || u->types == NULL) return 0;
        for (int i = 0; i < u->ntypes; i++) {
            const char *t = u->types + (Py_ssize_t)i * u->nargs;
            int ok = 1;
            for (int k = 0; k <= nin; k++) {
                if (t[k] != NPY_DOUBLE) { ok = 0; break; }
            }
            if (ok && u->functions[i] != NULL) {
                *loop = (void *)u->functions[i];
                *data = u->data != NULL ? u->data[i] : NULL;
                return 1;
            }
        }
        return 0;
    }
    static inline double cr_loop1(void *loop, void *data, double x) {
        double out = 0.0;
        char *args[2] = {(char *)&x, (char *)&out};
        npy_intp n = 1, steps[2] = {sizeof(double), sizeof(double)};
        ((PyUFuncGenericFunction)loop)(args, &n, steps, data);
        return out;
    }
    static inline double cr_loop2(void *loop, void *data, double x, double y) {
        double out = 0.0;
        char *args[3] = {(char *)&x, (char *)&y, (char *)&out};
        npy_intp n = 1, steps[3] = {sizeof(double), sizeof(double), sizeof(double)};
        ((PyUFuncGenericFunction)loop)(args, &n, steps, data);
        return out;
    }
    /* Before a computation whose floating-point flags are read: clear them
       (NumPy clears them before each loop too). */
    static inline void cr_fe_clear(void) {
        if (fetestexcept(CR_FE_ALL)) feclearexcept(CR_FE_ALL);
    }
    static inline int cr_fe_raised(void) {
        return fetestexcept(CR_FE_ALL) != 0;
    }
    /* An np.float64 of value v (a new reference). */
    static PyObject *cr_np_double(double v) {
        PyObject *o = PyArrayScalar_New(Double);
        if (o != NULL) PyArrayScalar_ASSIGN(o, Double, v);
        return o;
    }
    static inline int cr_is_np_double(PyObject *o) {
        return Py_TYPE(o) == &PyDoubleArrType_Type;
    }
    """
    bint cr_ufunc_double_loop(object f, int nin, void** loop, void** data)
    double cr_loop1(void* loop, void* data, double x) noexcept
    double cr_loop2(void* loop, void* data, double x, double y) noexcept
    void cr_fe_clear() noexcept nogil
    bint cr_fe_raised() noexcept nogil
    object cr_np_double(double v)
    bint cr_is_np_double(object o) noexcept


cdef enum:
    AD_DECLINE = 0     # an np.float64 argument goes to the generic engine
    AD_MATH = 1        # Ω is the C kernel's Python float (the functions of math)
    AD_ARITH = 2       # Ω an np.float64 when an argument is one, IEEE's (+ - * / neg pos abs **)
    AD_UFUNC = 3       # Ω an np.float64 from NumPy's loop (the ufunc rows above)

cdef list _ad_rows = []


cdef str _ad_row_name(int ad_id):
    if 0 <= ad_id < len(_ad_rows):
        return (<_ScalarRow>_ad_rows[ad_id]).name
    return "a scalar function"


cdef _ad_kind(object f, int kind):
    cdef _ScalarRow row = _scalar_row(f)
    if row is None:
        return
    row.adkind = kind
    row.ad_id = len(_ad_rows)
    _ad_rows.append(row)


cdef bint _same_double(double a, double b):
    return (isnan(a) and isnan(b)) or (a == b and signbit(a) == signbit(b))


cdef _ad_ufunc(object f):
    """Take f's float64 loops, if they compute what f computes (checked at a
    few points: the loop table is what NumPy calls for float64 arrays)."""
    cdef _ScalarRow row = _scalar_row(f)
    cdef void* loop
    cdef void* data
    if row is None or not isinstance(f, _np.ufunc):
        return
    with _np.errstate(all="ignore"):
        if row.d1 != NULL and cr_ufunc_double_loop(f, 1, &loop, &data):
            if all(_same_double(cr_loop1(loop, data, x), float(f(x))) for x in (0.3, 0.75, -2.5, 7.0)):
                row.nploop1, row.npdata1 = loop, data
        if row.d2 != NULL and not (row.flags2 & F_ND2) and cr_ufunc_double_loop(f, 2, &loop, &data):
            if all(_same_double(cr_loop2(loop, data, x, y), float(f(x, y)))
                   for x, y in ((0.3, 0.75), (0.75, -2.5), (-2.5, 7.0), (7.0, 0.3))):
                row.nploop2, row.npdata2 = loop, data
    if row.nploop1 != NULL or row.nploop2 != NULL:
        _ad_kind(f, AD_UFUNC)


for _f in list(_functions):
    if isinstance(_f, _np.ufunc):
        _ad_ufunc(_f)
    elif getattr(_f, "__module__", None) == "math":
        _ad_kind(_f, AD_MATH)
for _f in (_operator.add, _operator.iadd, _operator.sub, _operator.isub, _operator.mul, _operator.imul,
           _operator.truediv, _operator.itruediv, _operator.pow, _operator.ipow, _builtins.pow,
           _operator.neg, _operator.pos, _operator.abs, _builtins.abs):
    _ad_kind(_f, AD_ARITH)
del _f
