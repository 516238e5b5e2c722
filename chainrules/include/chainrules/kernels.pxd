# cython: cdivision=True
# ---------------------------------------------------------------------------
# The kernels of the C scalar table (chainrules._core's rows in
# _core/scalar_*.pxi): plain C doubles, nogil, inline.  The core cimports
# them from here, and so does chainrules/include/chainrules/scalar.pxd, the
# public Cython interface (f, f′ and the fused (f, f′) of every row): one
# source for the formulas.  This file is installed with the package
# (chainrules.get_include()); its names are the core's and may change.
#
# Kernels: d_<name>(x, Ω) -> ∂Ω/∂x ; c_<name>(z, Ω) -> f'(z) (holomorphic);
# two arguments: d2_<name>(x, y, Ω, &∂x, &∂y), c2_<name>(…); f_<name>: a
# primal where libm has none (Python's %, //, max, …).
# ---------------------------------------------------------------------------

cdef extern from "<complex.h>" nogil:
    double complex csin(double complex)
    double complex ccos(double complex)
    double complex ctan(double complex)
    double complex casin(double complex)
    double complex cacos(double complex)
    double complex catan(double complex)
    double complex csinh(double complex)
    double complex ccosh(double complex)
    double complex ctanh(double complex)
    double complex cexp(double complex)
    double complex clog(double complex)
    double complex csqrt(double complex)
    double complex cpow(double complex, double complex)
    double creal(double complex)
    double cimag(double complex)

cdef extern from *:
    """
    #include <complex.h>
    static inline double _Complex cr_cmplx(double re, double im) {
        double _Complex z;
        ((double *)&z)[0] = re;
        ((double *)&z)[1] = im;
        return z;
    }
    """
    double complex cr_cmplx(double re, double im) nogil

cdef extern from *:
    """
    #define CR_TWO_OVER_SQRT_PI 1.1283791670955126
    """
    double _TWO_OVER_SQRT_PI "CR_TWO_OVER_SQRT_PI"

from libc.math cimport signbit, isnan, isfinite, INFINITY, NAN
from libc.math cimport pow as c_pow
from libc.math cimport (sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh,
                        asinh, acosh, atanh, exp, exp2, expm1, log, log2, log10, log1p,
                        sqrt, cbrt, hypot, fabs, copysign, fmod, remainder, ldexp,
                        erf, erfc, tgamma, lgamma, floor, ceil, trunc, rint,
                        M_PI, M_LN2, M_LN10)


# ----- kernels shared by several modules -------------------------------------

cdef inline double d_zero(double x, double o) noexcept nogil:
    return 0.0

cdef inline double d_one(double x, double o) noexcept nogil:
    return 1.0

cdef inline double d_minus_one(double x, double o) noexcept nogil:
    return -1.0

cdef inline double complex c_one(double complex z, double complex o) noexcept nogil:
    return cr_cmplx(1.0, 0.0)

cdef inline double complex c_minus_one(double complex z, double complex o) noexcept nogil:
    return cr_cmplx(-1.0, 0.0)

cdef inline double f_identity(double x) noexcept nogil:
    return x

cdef inline double f_neg(double x) noexcept nogil:
    return -x

cdef inline double d_sign(double x, double o) noexcept nogil:
    """abs'(x) = sign(x), 0 at 0 (ChainRules' abs'(0) = 0)."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return x * 0.0           # 0 at ±0, NaN at NaN


cdef inline double cr_digamma(double x) noexcept nogil:
    """ψ(x) = Γ'(x)/Γ(x): reflection below 0, recurrence up to 10, then the
    asymptotic series (error below 1e-15 relative)."""
    cdef double r = 0.0, f
    if x <= 0.0 and floor(x) == x:
        return NAN
    if x < 0.0:
        # ψ(1 - x) - ψ(x) = π cot(πx)
        return cr_digamma(1.0 - x) - M_PI / tan(M_PI * x)
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (
        1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12.0))))))


cdef inline double d_exp(double x, double o) noexcept nogil:
    return o

cdef inline double d_sqrt(double x, double o) noexcept nogil:
    return 0.5 / fabs(o)     # +inf at 0 (ChainRules' sqrt'(0) = inf), also at -0.0

cdef inline double d_log(double x, double o) noexcept nogil:
    return 1.0 / x

cdef inline double d_sin(double x, double o) noexcept nogil:
    return cos(x)

cdef inline double d_cos(double x, double o) noexcept nogil:
    return -sin(x)

cdef inline double d_tan(double x, double o) noexcept nogil:
    return 1.0 + o * o

cdef inline double d_asin(double x, double o) noexcept nogil:
    return 1.0 / sqrt(1.0 - x * x)

cdef inline double d_acos(double x, double o) noexcept nogil:
    return -1.0 / sqrt(1.0 - x * x)

cdef inline double d_atan(double x, double o) noexcept nogil:
    return 1.0 / (1.0 + x * x)

cdef inline double d_sinh(double x, double o) noexcept nogil:
    return cosh(x)

cdef inline double d_cosh(double x, double o) noexcept nogil:
    return sinh(x)

cdef inline double d_tanh(double x, double o) noexcept nogil:
    return 1.0 - o * o

cdef inline double d_asinh(double x, double o) noexcept nogil:
    return 1.0 / hypot(x, 1.0)

cdef inline double d_acosh(double x, double o) noexcept nogil:
    return 1.0 / (sqrt(x - 1.0) * sqrt(x + 1.0))

cdef inline double d_atanh(double x, double o) noexcept nogil:
    return 1.0 / (1.0 - x * x)

cdef inline double d_exp2(double x, double o) noexcept nogil:
    return o * M_LN2

cdef inline double d_expm1(double x, double o) noexcept nogil:
    return o + 1.0

cdef inline double d_log2(double x, double o) noexcept nogil:
    return 1.0 / (x * M_LN2)

cdef inline double d_log10(double x, double o) noexcept nogil:
    return 1.0 / (x * M_LN10)

cdef inline double d_log1p(double x, double o) noexcept nogil:
    return 1.0 / (1.0 + x)

cdef inline double d_cbrt(double x, double o) noexcept nogil:
    return 1.0 / (3.0 * o * o)   # +inf at 0

cdef inline double f_degrees(double x) noexcept nogil:
    return x * (180.0 / M_PI)    # CPython's math.degrees, to the bit

cdef inline double f_radians(double x) noexcept nogil:
    return x * (M_PI / 180.0)

cdef inline double d_degrees(double x, double o) noexcept nogil:
    return 180.0 / M_PI

cdef inline double d_radians(double x, double o) noexcept nogil:
    return M_PI / 180.0


# -- complex derivatives (holomorphic: f'(z)) --

cdef inline double complex c_exp(double complex z, double complex o) noexcept nogil:
    return o

cdef inline double complex c_log(double complex z, double complex o) noexcept nogil:
    return 1.0 / z

cdef inline double complex c_log10(double complex z, double complex o) noexcept nogil:
    return 1.0 / (z * M_LN10)

cdef inline double complex c_log2(double complex z, double complex o) noexcept nogil:
    return 1.0 / (z * M_LN2)

cdef inline double complex c_sqrt(double complex z, double complex o) noexcept nogil:
    if creal(o) == 0.0 and cimag(o) == 0.0:
        return cr_cmplx(INFINITY, 0.0)
    return 0.5 / o

cdef inline double complex c_sin(double complex z, double complex o) noexcept nogil:
    return ccos(z)

cdef inline double complex c_cos(double complex z, double complex o) noexcept nogil:
    return -csin(z)

cdef inline double complex c_tan(double complex z, double complex o) noexcept nogil:
    return 1.0 + o * o

# 1 - z and 1 + z with z's signed zero kept (Cython adds 1.0 as 1 + 0j, and
# -0.0 + 0.0 is +0.0): on a branch cut the sign of Im z picks the side, as in
# the primal (cmath.asin(2.0) is on the cut, its upper side).
cdef inline double complex _one_minus(double complex z) noexcept nogil:
    return cr_cmplx(1.0 - creal(z), -cimag(z))

cdef inline double complex _one_plus(double complex z) noexcept nogil:
    return cr_cmplx(1.0 + creal(z), cimag(z))

cdef inline double complex c_asin(double complex z, double complex o) noexcept nogil:
    # not 1/sqrt(1 - z²): that takes the other side of the cut at real |z| > 1
    return 1.0 / (csqrt(_one_minus(z)) * csqrt(_one_plus(z)))

cdef inline double complex c_acos(double complex z, double complex o) noexcept nogil:
    return -1.0 / (csqrt(_one_minus(z)) * csqrt(_one_plus(z)))

cdef inline double complex c_atan(double complex z, double complex o) noexcept nogil:
    return 1.0 / (1.0 + z * z)

cdef inline double complex c_sinh(double complex z, double complex o) noexcept nogil:
    return ccosh(z)

cdef inline double complex c_cosh(double complex z, double complex o) noexcept nogil:
    return csinh(z)

cdef inline double complex c_tanh(double complex z, double complex o) noexcept nogil:
    return 1.0 - o * o

cdef inline double complex c_asinh(double complex z, double complex o) noexcept nogil:
    # asin'(iz) (C99: casinh(z) = -i casin(iz)), iz = (-Im z, Re z) exactly:
    # z * z + 1 loses the sign of a zero real part on the cut |Im z| > 1
    return 1.0 / (csqrt(cr_cmplx(1.0 + cimag(z), -creal(z))) * csqrt(cr_cmplx(1.0 - cimag(z), creal(z))))

cdef inline double complex c_acosh(double complex z, double complex o) noexcept nogil:
    # not sqrt(z² - 1): that has the wrong sign for Re z < 0
    return 1.0 / (csqrt(cr_cmplx(creal(z) - 1.0, cimag(z))) * csqrt(_one_plus(z)))

cdef inline double complex c_atanh(double complex z, double complex o) noexcept nogil:
    return 1.0 / (1.0 - z * z)

cdef inline double complex c_expm1(double complex z, double complex o) noexcept nogil:
    return o + 1.0

cdef inline double complex c_exp2(double complex z, double complex o) noexcept nogil:
    return o * M_LN2

cdef inline double complex c_log1p(double complex z, double complex o) noexcept nogil:
    return 1.0 / (1.0 + z)


# -- two arguments --

cdef inline double f_add(double x, double y) noexcept nogil:
    return x + y

cdef inline double f_sub(double x, double y) noexcept nogil:
    return x - y

cdef inline double f_mul(double x, double y) noexcept nogil:
    return x * y

cdef inline double f_truediv(double x, double y) noexcept nogil:
    return x / y             # y = 0 gives inf/NaN: the primal raises ZeroDivisionError

cdef inline void d2_add(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = 1.0

cdef inline void d2_sub(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = -1.0

cdef inline void d2_mul(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = y
    dy[0] = x

cdef inline void d2_truediv(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = 1.0 / y
    dy[0] = -o / y

cdef inline void d2_zero(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = 0.0
    dy[0] = 0.0

cdef inline void c2_add(double complex x, double complex y, double complex o,
                 double complex* dx, double complex* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = 1.0

cdef inline void c2_sub(double complex x, double complex y, double complex o,
                 double complex* dx, double complex* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = -1.0

cdef inline void c2_mul(double complex x, double complex y, double complex o,
                 double complex* dx, double complex* dy) noexcept nogil:
    dx[0] = y
    dy[0] = x

cdef inline void c2_truediv(double complex x, double complex y, double complex o,
                     double complex* dx, double complex* dy) noexcept nogil:
    dx[0] = 1.0 / y
    dy[0] = -o / y


# x ** p.  At x = 0 the partials follow ChainRules' table (the removable
# singularities of p·x^(p-1) and x^p·log x):
#   ∂x: p < 0 -> p·Ω/x;  p = 1 -> 1;  p = 0 or p > 1 -> 0;  0 < p < 1 -> inf
#   ∂p: p > 0 -> 0;  otherwise NaN
# For x < 0 (integer p), ∂p = Ω·log|x|, the real part of Ω·log(x).

cdef inline double _pow_grad_x(double x, double p, double o) noexcept nogil:
    if x != 0.0 or p < 0.0:
        return p * o / x
    if p == 1.0:
        return 1.0
    if p == 0.0 or p > 1.0:
        return 0.0
    if isnan(p):
        return NAN
    return INFINITY


cdef inline double _pow_grad_p(double x, double p, double o) noexcept nogil:
    if x != 0.0:
        return o * log(fabs(x))
    if p > 0.0:
        return 0.0
    return NAN


cdef inline void d2_pow(double x, double p, double o, double* dx, double* dp) noexcept nogil:
    dx[0] = _pow_grad_x(x, p, o)
    dp[0] = _pow_grad_p(x, p, o)


cdef inline void c2_pow(double complex x, double complex p, double complex o,
                 double complex* dx, double complex* dp) noexcept nogil:
    if creal(x) == 0.0 and cimag(x) == 0.0 and cimag(p) == 0.0:
        dx[0] = cr_cmplx(_pow_grad_x(0.0, creal(p), creal(o)), 0.0)
        dp[0] = cr_cmplx(_pow_grad_p(0.0, creal(p), creal(o)), 0.0)
        return
    dx[0] = p * o / x
    dp[0] = o * clog(x)


# Python's float floor division and modulo (CPython's float_divmod), to the
# bit.  y = 0 gives NaN: the primal then raises ZeroDivisionError.

cdef inline void _py_divmod(double vx, double wx, double* floordiv, double* mod) noexcept nogil:
    cdef double div, m, fd
    m = fmod(vx, wx)
    div = (vx - m) / wx
    if m != 0.0:
        if (wx < 0) != (m < 0):
            m += wx
            div -= 1.0
    else:
        m = copysign(0.0, wx)
    if div != 0.0:
        fd = floor(div)
        if div - fd > 0.5:
            fd += 1.0
    else:
        fd = copysign(0.0, vx / wx)
    floordiv[0] = fd
    mod[0] = m


cdef inline double f_pymod(double x, double y) noexcept nogil:
    cdef double q, m
    if y == 0.0:
        return NAN
    _py_divmod(x, y, &q, &m)
    return m


cdef inline double f_pyfloordiv(double x, double y) noexcept nogil:
    cdef double q, m
    if y == 0.0:
        return NAN
    _py_divmod(x, y, &q, &m)
    return q


cdef inline bint _isinteger(double u) noexcept nogil:
    return isfinite(u) and floor(u) == u


cdef inline void d2_mod(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """mod (floored, Python's %): (1, -floor(x/y)); NaN at integer quotients,
    where it jumps (ChainRules' convention)."""
    cdef double u = x / y
    if _isinteger(u):
        dx[0] = NAN
        dy[0] = NAN
    else:
        dx[0] = 1.0
        dy[0] = -floor(u)


cdef inline void d2_fmod(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """fmod (truncated, C's fmod, ChainRules' rem): (1, -trunc(x/y)); NaN at
    integer quotients."""
    cdef double u = x / y
    if _isinteger(u):
        dx[0] = NAN
        dy[0] = NAN
    else:
        dx[0] = 1.0
        dy[0] = -trunc(u)


cdef inline void d2_remainder(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """IEEE remainder x - n·y, n the integer nearest x/y: (1, -n); NaN at
    half-integer quotients, where n jumps."""
    cdef double u = x / y
    if _isinteger(u - 0.5):
        dx[0] = NAN
        dy[0] = NAN
    else:
        dx[0] = 1.0
        dy[0] = -rint((x - o) / y)


cdef inline double f_atan2(double y, double x) noexcept nogil:
    return atan2(y, x)

cdef inline void d2_atan2(double y, double x, double o, double* dy, double* dx) noexcept nogil:
    cdef double u = x * x + y * y
    dy[0] = x / u
    dx[0] = -y / u


cdef inline void d2_hypot(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """x/Ω, y/Ω; zeros at (0, 0) (ChainRules' hypot convention)."""
    cdef double n = o if o != 0.0 else 1.0
    dx[0] = x / n
    dy[0] = y / n


cdef inline double f_copysign(double x, double y) noexcept nogil:
    return copysign(x, y)

cdef inline void d2_copysign(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """±1 by whether the sign changes; the sign source gets a numeric zero."""
    dx[0] = -1.0 if signbit(x) != signbit(y) else 1.0
    dy[0] = 0.0


cdef inline void d2_ldexp(double x, double i, double o, double* dx, double* di) noexcept nogil:
    cdef double e = i
    if e > 100000.0:
        e = 100000.0
    elif e < -100000.0:
        e = -100000.0
    dx[0] = ldexp(1.0, <int>e)
    di[0] = 0.0


cdef inline double f_logb(double x, double b) noexcept nogil:
    return log(x) / log(b)   # CPython's math.log(x, base); log(b) = 0 gives inf: the primal raises

cdef inline void d2_logb(double x, double b, double o, double* dx, double* db) noexcept nogil:
    cdef double lb = log(b)
    dx[0] = 1.0 / (x * lb)
    db[0] = -o / (b * lb)

cdef inline void c2_logb(double complex x, double complex b, double complex o,
                  double complex* dx, double complex* db) noexcept nogil:
    cdef double complex lb = clog(b)
    dx[0] = 1.0 / (x * lb)
    db[0] = -o / (b * lb)


# max and min of two: ChainRules' @scalar_rule max(x, y) (gt, !gt), min (!gt, gt)
# with gt = x > y: on a tie max's derivative goes to y and min's to x.

cdef inline double f_pymax(double x, double y) noexcept nogil:
    return y if y > x else x        # Python's max(x, y), NaNs included

cdef inline double f_pymin(double x, double y) noexcept nogil:
    return y if y < x else x

cdef inline void d2_max(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    cdef bint gt = x > y
    dx[0] = 1.0 if gt else 0.0
    dy[0] = 0.0 if gt else 1.0

cdef inline void d2_min(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    cdef bint gt = x > y
    dx[0] = 0.0 if gt else 1.0
    dy[0] = 1.0 if gt else 0.0



# ----- kernels of math alone ------------------------------------------------


cdef inline double f_pow(double x, double p) noexcept nogil:
    return c_pow(x, p)

cdef inline double f_fmod(double x, double y) noexcept nogil:
    return fmod(x, y)

cdef inline double f_remainder(double x, double y) noexcept nogil:
    return remainder(x, y)

cdef inline double d_erf(double x, double o) noexcept nogil:
    return _TWO_OVER_SQRT_PI * exp(-x * x)

cdef inline double d_erfc(double x, double o) noexcept nogil:
    return -_TWO_OVER_SQRT_PI * exp(-x * x)

cdef inline double d_gamma(double x, double o) noexcept nogil:
    return o * cr_digamma(x)

cdef inline double d_lgamma(double x, double o) noexcept nogil:
    return cr_digamma(x)


cdef inline double f_floor(double x) noexcept nogil:
    return floor(x)

cdef inline double f_ceil(double x) noexcept nogil:
    return ceil(x)

cdef inline double f_trunc(double x) noexcept nogil:
    return trunc(x)


# ----- kernels of operator and the builtins ----------------------------------

cdef inline double f_pypow(double x, double p) noexcept nogil:
    # Python's float ** : a NaN here (negative base, fractional power) sends
    # the call to the primal, which answers with a complex number.
    return c_pow(x, p)

cdef inline double f_fabs(double x) noexcept nogil:
    return fabs(x)



# ----- kernels of the NumPy ufuncs -------------------------------------------

cdef inline double d_square(double x, double o) noexcept nogil:
    return 2.0 * x

cdef inline double complex c_square(double complex z, double complex o) noexcept nogil:
    return 2.0 * z

cdef inline double d_reciprocal(double x, double o) noexcept nogil:
    return -o * o

cdef inline double complex c_reciprocal(double complex z, double complex o) noexcept nogil:
    return -o * o

cdef inline void d2_fmax(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    """fmax ignores a NaN: the derivative goes to the other argument."""
    if isnan(y):
        dx[0] = 1.0
        dy[0] = 0.0
    elif isnan(x):
        dx[0] = 0.0
        dy[0] = 1.0
    else:
        d2_max(x, y, o, dx, dy)

cdef inline void d2_fmin(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    if isnan(y):
        dx[0] = 1.0
        dy[0] = 0.0
    elif isnan(x):
        dx[0] = 0.0
        dy[0] = 1.0
    else:
        d2_min(x, y, o, dx, dy)

cdef inline void d2_logaddexp(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = exp(x - o)
    dy[0] = exp(y - o)

cdef inline void d2_logaddexp2(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = exp2(x - o)
    dy[0] = exp2(y - o)


