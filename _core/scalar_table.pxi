# RULE CORE: the C scalar rule table (rows of C kernels for primal and partials, their rules).
# ---------------------------------------------------------------------------
# The C scalar rule table.  A row holds, for one function, C kernels for the
# primal and for the partials given the output (written in terms of Ω where
# that is cheaper: exp -> Ω, tanh -> 1 - Ω²), for one argument, two, or both
# (math.log(x) and math.log(x, base) share a row).  The rows themselves are in
# scalar_math.pxi, scalar_cmath.pxi, scalar_operator.pxi and scalar_numpy.pxi.
#
# Two paths:
# - the fast path: Python floats and ints, no Python call at all; Ω comes from
#   the C kernel (or from the primal when the row says so: exact ints for
#   operator.add(1, 2), CPython's own gamma).  dispatch.pxi's METH_FASTCALL
#   entries hand it their argument vector (frule_vec/rrule_vec), and its
#   pullback (_ScalarPullback, C doubles) is called by vectorcall;
# - the generic path: complex numbers, NumPy scalars, huge ints, cmath and
#   the NumPy ufuncs.  The primal computes Ω (keeping its type and precision:
#   np.sin(np.float32(1)) is an np.float32), the same kernels give the
#   partials in double (complex) precision, and the tangents are projected
#   onto the output's (frule) or each input's (pullback) tangent space.
#
# Errors: when a kernel's result is NaN or infinite from finite input, the
# Python primal is called instead, so a domain error is exactly the primal's
# own (math.sqrt(-1.0) -> ValueError), nothing is half done, and a primal that
# leaves the reals (operator.pow(-8.0, 1/3) is complex) takes the generic path.
#
# Anything that is not a number (arrays, lists, bools, strings) makes the row
# decline: dispatch then tries the Python rules registered for the function.
# ---------------------------------------------------------------------------

# The kernels (d_<name>, c_<name>, d2_<name>, …) and the complex helpers are
# in chainrules/include/chainrules/kernels.pxd, installed so that Cython code
# outside the package cimports them too (chainrules/include/chainrules/scalar.pxd).
from chainrules.kernels cimport *

from libc.math cimport signbit
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.long cimport PyLong_FromDouble
from cpython.complex cimport PyComplex_ImagAsDouble, PyComplex_RealAsDouble


cdef extern from *:
    """
    /* Compiled callables that sit in inner loops (the scalar pullbacks, the
       compiled array rules and their pullbacks, the drop-in math functions of
       chainrules.ad) are called by vectorcall, without an argument tuple.
       Each such type gets tp_vectorcall_offset at module init
       (cr_enable_vectorcall) and each instance the trampoline of its slot
       (cr_vc_ptr), which calls the Cython implementation in cr_vc_impls. */
    #define CR_VC_SLOTS 10
    typedef PyObject *(*cr_vc_impl_t)(PyObject *, PyObject **, Py_ssize_t, PyObject *);
    static cr_vc_impl_t cr_vc_impls[CR_VC_SLOTS] = {NULL, NULL, NULL, NULL, NULL,
                                                    NULL, NULL, NULL, NULL, NULL};
    #define CR_VC_TRAMPOLINE(k) \
        static PyObject *cr_vc_slot##k(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kw) { \
            return cr_vc_impls[k](self, (PyObject **)args, PyVectorcall_NARGS(nargsf), kw); \
        }
    CR_VC_TRAMPOLINE(0)
    CR_VC_TRAMPOLINE(1)
    CR_VC_TRAMPOLINE(2)
    CR_VC_TRAMPOLINE(3)
    CR_VC_TRAMPOLINE(4)
    CR_VC_TRAMPOLINE(5)
    CR_VC_TRAMPOLINE(6)
    CR_VC_TRAMPOLINE(7)
    CR_VC_TRAMPOLINE(8)
    CR_VC_TRAMPOLINE(9)
    static void *cr_vc_ptr(int slot) {
        static void *ptrs[CR_VC_SLOTS] = {(void *)cr_vc_slot0, (void *)cr_vc_slot1,
                                          (void *)cr_vc_slot2, (void *)cr_vc_slot3,
                                          (void *)cr_vc_slot4, (void *)cr_vc_slot5,
                                          (void *)cr_vc_slot6, (void *)cr_vc_slot7,
                                          (void *)cr_vc_slot8, (void *)cr_vc_slot9};
        return ptrs[slot];
    }
    static void cr_enable_vectorcall(PyObject *type, Py_ssize_t offset) {
        PyTypeObject *t = (PyTypeObject *)type;
        t->tp_vectorcall_offset = offset;
        t->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    }
    """
    ctypedef object (*cr_vc_impl_t)(object, PyObject**, Py_ssize_t, PyObject*)
    cr_vc_impl_t cr_vc_impls[10]
    void* cr_vc_ptr(int slot)
    void cr_enable_vectorcall(object type, Py_ssize_t offset)

# the vectorcall slots
cdef enum:
    VC_SCALAR_PULLBACK = 0
    VC_UNARY_RRULE = 1
    VC_UNARY_PULLBACK = 2
    VC_WRAPPED = 3
    VC_GETITEM_PULLBACK = 4
    VC_BINARY_RRULE = 5
    VC_BINARY_PULLBACK = 6
    VC_AD_ENTRY = 7
    VC_UNARY_FRULE = 8
    VC_BINARY_FRULE = 9

ctypedef double (*f1_t)(double) noexcept nogil
ctypedef double (*d1_t)(double, double) noexcept nogil
ctypedef double (*f2_t)(double, double) noexcept nogil
ctypedef void (*d2_t)(double, double, double, double*, double*) noexcept nogil
ctypedef double complex (*cd1_t)(double complex, double complex) noexcept nogil
ctypedef void (*cd2_t)(double complex, double complex, double complex,
                       double complex*, double complex*) noexcept nogil

# Row flags (per arity).
cdef enum:
    F_INT_PRIMAL = 1     # Python ints: the primal computes Ω (operator.add(1, 2) is 3)
    F_CALL_PRIMAL = 2    # the primal always computes Ω (CPython's own gamma and hypot; ldexp's int check)
    F_COMPLEX = 4        # maps into ℂ (cmath): every argument takes the complex path
    F_NUMPY = 8          # a NumPy ufunc: Ω is the primal's NumPy scalar (generic path)
    F_STRONG_ZERO = 16   # a zero tangent contributes zero even where the partial is inf/NaN (x ** p)
    F_ND2 = 32           # the second argument has no tangent (ldexp's integer exponent)
    F_INT_OUT = 64       # Ω is the kernel's value as a Python int (math.floor), as CPython makes it

cdef inline bint _suspicious(double r, double x) noexcept nogil:
    return (isnan(r) and not isnan(x)) or (isinf(r) and isfinite(x))


cdef inline bint _read_double(object x, double* v) except -1:
    """A Python float or int as a C double; False for anything else (and for
    ints too large for a double), which then takes the generic path."""
    cdef type t = type(x)
    if t is float:
        v[0] = PyFloat_AS_DOUBLE(x)
        return True
    if t is int:
        try:
            v[0] = PyLong_AsDouble(x)
        except OverflowError:
            return False
        return True
    return False


cdef double _to_double(object x) except? -1.0:
    """Any real number as a double; ints beyond the double range give ±inf."""
    if type(x) is float:
        return PyFloat_AS_DOUBLE(x)
    try:
        return float(x)
    except OverflowError:
        return INFINITY if x > 0 else -INFINITY


cdef double complex _to_complex(object x) except *:
    if type(x) is complex:
        # part by part: Cython's own conversion (re + im·i) turns a real part
        # of -0.0 into +0.0, the other side of a branch cut (cmath.asinh(-0.0+2j))
        return cr_cmplx(PyComplex_RealAsDouble(x), PyComplex_ImagAsDouble(x))
    if isinstance(x, (complex, _np.complexfloating)):
        z = complex(x)
        return cr_cmplx(z.real, z.imag)
    return cr_cmplx(_to_double(x), 0.0)


cdef inline object _num(double complex z, bint is_complex):
    if is_complex:
        return complex(z.real, z.imag)
    return PyFloat_FromDouble(z.real)


cdef inline double complex _cmul(double complex a, double complex b) noexcept nogil:
    """a·b without the NaNs of inf·0 when either factor is real (a partial of
    inf times a real cotangent stays inf, as in real arithmetic)."""
    if cimag(a) == 0.0:
        if cimag(b) == 0.0:
            return cr_cmplx(creal(a) * creal(b), 0.0)
        return cr_cmplx(creal(a) * creal(b), creal(a) * cimag(b))
    if cimag(b) == 0.0:
        return cr_cmplx(creal(a) * creal(b), cimag(a) * creal(b))
    return a * b


cdef inline double complex _cconj(double complex a) noexcept nogil:
    return cr_cmplx(creal(a), -cimag(a))


# ----- tangents and cotangents as C numbers ---------------------------------

cdef enum:
    T_NUM = 0            # a number: read into the double complex
    T_ZERO = 1           # ZeroTangent / NoTangent (returned as such)
    T_OTHER = 2          # anything else: arithmetic by the tangent ladder


cdef object _read_tangent(object t, double complex* z, bint* is_complex, int* kind):
    """Classify a (co)tangent for scalar arithmetic: kind[0] is T_NUM for a
    number (Python or NumPy, or a size-1 array), read into z; T_ZERO for a
    zero; T_OTHER otherwise.  Returns the tangent with thunks evaluated."""
    cdef type tt = type(t)
    kind[0] = T_NUM
    if tt is float:
        z[0] = cr_cmplx(PyFloat_AS_DOUBLE(t), 0.0)
        return t
    if tt is int:
        z[0] = cr_cmplx(_to_double(t), 0.0)
        return t
    if tt is complex:
        z[0] = cr_cmplx((<complex>t).real, (<complex>t).imag)
        is_complex[0] = True
        return t
    if isinstance(t, AbstractThunk):
        return _read_tangent(_unthunk(t), z, is_complex, kind)
    if isinstance(t, AbstractZero):
        kind[0] = T_ZERO
        return t
    if isinstance(t, _ndarray) and t.size == 1 and t.dtype.kind in "fciu":
        t = t.reshape(()).item()
    if isinstance(t, bool) or isinstance(t, _np.bool_):
        kind[0] = T_OTHER
        return t
    if isinstance(t, (float, int, _np.floating, _np.integer)):
        z[0] = cr_cmplx(_to_double(t), 0.0)
        return t
    if isinstance(t, (complex, _np.complexfloating)):
        z[0] = _to_complex(t)
        is_complex[0] = True
        return t
    kind[0] = T_OTHER
    return t


cdef object _POS_ZERO = 0.0
cdef object _NEG_ZERO = -0.0


cdef inline object _scale(double d, object t):
    """d·t for the tangent t of a real input of a real-valued function: a
    float (NumPy and complex tangents are read in double precision and
    projected onto the reals), a zero, or the ladder's product.  A zero
    partial (rounding functions) allocates nothing."""
    cdef double r
    if type(t) is float:
        r = d * PyFloat_AS_DOUBLE(t)
        if r == 0.0:
            return _NEG_ZERO if signbit(r) else _POS_ZERO
        return PyFloat_FromDouble(r)
    return _scale_slow(d, t)


cdef object _scale_slow(double d, object t):
    cdef double complex z
    cdef bint c = False
    cdef int k
    t = _read_tangent(t, &z, &c, &k)
    if k == T_NUM:
        return PyFloat_FromDouble(d * creal(z))
    if k == T_ZERO:
        return t
    return tangent_mul(PyFloat_FromDouble(d), t)


# ---------------------------------------------------------------------------
# The row
# ---------------------------------------------------------------------------

@cython.final
cdef class _ScalarRow:
    """One function's C kernels: f1/d1/cd1 for one argument, f2/d2/cd2 for
    two (NULL where the arity or the complex case is not supported)."""
    cdef f1_t f1
    cdef d1_t d1
    cdef cd1_t cd1
    cdef int flags1
    cdef f2_t f2
    cdef d2_t d2
    cdef cd2_t cd2
    cdef int flags2
    cdef readonly object primal
    cdef readonly str name
    # a rule registered by the user for this function (a rule, opt_out,
    # non_differentiable): the row then yields to it where it matches
    cdef readonly bint overridden
    # chainrules.ad on real scalars with NumPy semantics (scalar_numpy.pxi):
    # what Ω is when an argument is an np.float64 (AD_*), NumPy's own inner
    # loops of a ufunc for float64, and the row's number in _ad_rows
    cdef int adkind
    cdef void* nploop1
    cdef void* npdata1
    cdef void* nploop2
    cdef void* npdata2
    cdef int ad_id

    @property
    def arities(self):
        """The numbers of arguments the row handles."""
        out = []
        if self.d1 != NULL or self.cd1 != NULL:
            out.append(1)
        if self.d2 != NULL or self.cd2 != NULL:
            out.append(2)
        return tuple(out)

    def __repr__(self):
        return f"<scalar rule row of {self.name}, arities {self.arities}>"

    # -- Ω on the fast path ----------------------------------------------

    cdef inline object _omega1(self, object x, double v, double* r, bint* real):
        """Ω for one real argument, r[0] its value.  real[0] False: Ω left the
        reals and the generic path takes it from here."""
        cdef double y
        if (self.flags1 & F_CALL_PRIMAL) or ((self.flags1 & F_INT_PRIMAL) and type(x) is int):
            return _primal_value(self.primal(x), r, real)
        y = self.f1(v)
        if _suspicious(y, v):
            # raises the primal's own error, or agrees
            return _primal_value(self.primal(x), r, real)
        r[0] = y
        real[0] = True
        if self.flags1 & F_INT_OUT:
            if not isfinite(y):
                return _primal_value(self.primal(x), r, real)
            return PyLong_FromDouble(y)
        return PyFloat_FromDouble(y)

    cdef inline object _omega2(self, object x, object y, double u, double v, double* r, bint* real):
        cdef double w
        if (self.flags2 & F_CALL_PRIMAL) or ((self.flags2 & F_INT_PRIMAL) and
                                              (type(x) is int or type(y) is int)):
            return _primal_value(self.primal(x, y), r, real)
        w = self.f2(u, v)
        if _suspicious(w, u) or _suspicious(w, v):
            return _primal_value(self.primal(x, y), r, real)
        r[0] = w
        real[0] = True
        return PyFloat_FromDouble(w)

    # -- frule and rrule ----------------------------------------------------
    # The arguments come as a C array (xs, n): the fast entries below pass the
    # caller's own vectorcall arguments, so the fast path builds no tuple.

    cdef object frule(self, tuple tangents, tuple xs):
        return self.frule_vec(tangents, PySequence_Fast_ITEMS(xs), PyTuple_GET_SIZE(xs))

    cdef object rrule(self, tuple xs):
        return self.rrule_vec(PySequence_Fast_ITEMS(xs), PyTuple_GET_SIZE(xs))

    @cython.boundscheck(False)     # n and len(tangents) are checked by dispatch
    @cython.wraparound(False)
    cdef object frule_vec(self, tuple tangents, PyObject** xs, Py_ssize_t n):
        cdef double u, v, r, du, dv
        cdef bint real
        cdef object omega
        if n == 1:
            if self.d1 == NULL or (self.flags1 & (F_COMPLEX | F_NUMPY)):
                return self._generic(_as_tuple(xs, n), None, tangents, False)
            x = <object>xs[0]
            if not _read_double(x, &u):
                return self._generic(_as_tuple(xs, n), None, tangents, False)
            omega = self._omega1(x, u, &r, &real)
            if not real:
                return self._generic(_as_tuple(xs, n), omega, tangents, False)
            return omega, _scale(self.d1(u, r), tangents[1])
        if n == 2:
            if self.d2 == NULL or (self.flags2 & (F_COMPLEX | F_NUMPY)):
                return self._generic(_as_tuple(xs, n), None, tangents, False)
            x = <object>xs[0]
            y = <object>xs[1]
            if not (_read_double(x, &u) and _read_double(y, &v)):
                return self._generic(_as_tuple(xs, n), None, tangents, False)
            omega = self._omega2(x, y, u, v, &r, &real)
            if not real:
                return self._generic(_as_tuple(xs, n), omega, tangents, False)
            self.d2(u, v, r, &du, &dv)
            return omega, self._push2(du, dv, tangents[1], tangents[2])
        return None

    cdef object _push2(self, double du, double dv, object t1, object t2):
        """du·t1 + dv·t2 for real inputs and a real output."""
        cdef bint strong = self.flags2 & F_STRONG_ZERO
        cdef bint nd = self.flags2 & F_ND2
        cdef double a, b
        if type(t1) is float and (nd or type(t2) is float):
            a = PyFloat_AS_DOUBLE(t1)
            if nd:
                if strong and a == 0.0:
                    return PyFloat_FromDouble(0.0)
                return PyFloat_FromDouble(du * a)
            b = PyFloat_AS_DOUBLE(t2)
            if strong:
                return PyFloat_FromDouble((du * a if a != 0.0 else 0.0) + (dv * b if b != 0.0 else 0.0))
            return PyFloat_FromDouble(du * a + dv * b)
        s1 = self._strong(du, t1)
        if nd:
            return s1
        s2 = self._strong(dv, t2)
        if type(s1) is float and type(s2) is float:
            return PyFloat_FromDouble(PyFloat_AS_DOUBLE(s1) + PyFloat_AS_DOUBLE(s2))
        return tangent_add(s1, s2)

    cdef object _strong(self, double d, object t):
        if (self.flags2 & F_STRONG_ZERO) and _is_num_zero(t):
            return PyFloat_FromDouble(0.0)
        return _scale(d, t)

    @cython.boundscheck(False)     # n and len(tangents) are checked by dispatch
    @cython.wraparound(False)
    cdef object rrule_vec(self, PyObject** xs, Py_ssize_t n):
        cdef double u, v, r
        cdef bint real
        cdef _ScalarPullback pb
        cdef object omega
        if n == 1:
            if self.d1 == NULL or (self.flags1 & (F_COMPLEX | F_NUMPY)):
                return self._generic(_as_tuple(xs, n), None, None, True)
            x = <object>xs[0]
            if not _read_double(x, &u):
                return self._generic(_as_tuple(xs, n), None, None, True)
            omega = self._omega1(x, u, &r, &real)
            if not real:
                return self._generic(_as_tuple(xs, n), omega, None, True)
            pb = _ScalarPullback.__new__(_ScalarPullback)
            pb.vc = cr_vc_ptr(VC_SCALAR_PULLBACK)
            pb.row = self
            pb.n = 1
            pb.d0 = self.d1(u, r)
            return omega, pb
        if n == 2:
            if self.d2 == NULL or (self.flags2 & (F_COMPLEX | F_NUMPY)):
                return self._generic(_as_tuple(xs, n), None, None, True)
            x = <object>xs[0]
            y = <object>xs[1]
            if not (_read_double(x, &u) and _read_double(y, &v)):
                return self._generic(_as_tuple(xs, n), None, None, True)
            omega = self._omega2(x, y, u, v, &r, &real)
            if not real:
                return self._generic(_as_tuple(xs, n), omega, None, True)
            pb = _ScalarPullback.__new__(_ScalarPullback)
            pb.vc = cr_vc_ptr(VC_SCALAR_PULLBACK)
            pb.row = self
            pb.n = 2
            pb.nd2 = (self.flags2 & F_ND2) != 0
            self.d2(u, v, r, &pb.d0, &pb.d1)
            return omega, pb
        return None

    # -- the generic path: complex numbers, NumPy scalars, cmath, ufuncs ---

    cdef int _flags(self, Py_ssize_t n):
        return self.flags1 if n == 1 else self.flags2

    cdef bint _numbers(self, tuple xs, bint* any_complex) except -1:
        """True when every argument is a number (Python or NumPy, not a
        bool); any_complex[0] set when one of them is complex."""
        cdef type t
        for x in xs:
            t = type(x)
            if t is float or t is int:
                continue
            if t is complex:
                any_complex[0] = True
            elif t is bool or isinstance(x, (bool, _np.bool_)):
                return False
            elif isinstance(x, (_np.floating, _np.integer, float, int)):
                continue
            elif isinstance(x, (_np.complexfloating, complex)):
                any_complex[0] = True
            else:
                return False
        return True

    cdef bint _partials(self, tuple xs, object omega, bint cplx, double complex* p) except -1:
        """The partials at xs (Ω given) in p; False when the row has no kernel
        for this case (a complex argument to a real-only function)."""
        cdef Py_ssize_t n = PyTuple_GET_SIZE(xs)
        cdef double a, b
        if cplx:
            if n == 1:
                if self.cd1 == NULL:
                    return False
                p[0] = self.cd1(_to_complex(xs[0]), _to_complex(omega))
            else:
                if self.cd2 == NULL:
                    return False
                self.cd2(_to_complex(xs[0]), _to_complex(xs[1]), _to_complex(omega), &p[0], &p[1])
            return True
        if n == 1:
            if self.d1 == NULL:
                return False
            p[0] = cr_cmplx(self.d1(_to_double(xs[0]), _to_double(omega)), 0.0)
        else:
            if self.d2 == NULL:
                return False
            self.d2(_to_double(xs[0]), _to_double(xs[1]), _to_double(omega), &a, &b)
            p[0] = cr_cmplx(a, 0.0)
            p[1] = cr_cmplx(b, 0.0)
        return True

    cdef object _generic(self, tuple xs, object omega, tuple tangents, bint reverse):
        """frule (tangents given) or rrule (reverse) on the generic path."""
        cdef Py_ssize_t i, n = PyTuple_GET_SIZE(xs)
        cdef double complex p[2]
        cdef bint cplx = False
        cdef int flags
        if n != 1 and n != 2:
            return None
        if (n == 1 and self.d1 == NULL and self.cd1 == NULL) or \
                (n == 2 and self.d2 == NULL and self.cd2 == NULL):
            return None
        if not self._numbers(xs, &cplx):
            return None
        flags = self._flags(n)
        if flags & F_COMPLEX:
            cplx = True
        if cplx and ((n == 1 and self.cd1 == NULL) or (n == 2 and self.cd2 == NULL)):
            return None            # e.g. math.sin(1j): no rule; the primal raises its TypeError
        if omega is None:
            omega = self.primal(*xs)
        if not cplx and isinstance(omega, (complex, _np.complexfloating)):
            cplx = True            # a real power with a complex result
        if not self._partials(xs, omega, cplx, p):
            return None
        if reverse:
            return omega, _GenericPullback.make(self, xs, p, flags)
        return omega, _generic_push(xs, omega, tangents, p, cplx, flags)

    cdef object partials(self, tuple xs, object omega):
        """derivatives_given_output: ((∂Ω/∂x1, …),) or None."""
        cdef Py_ssize_t n = len(xs)
        cdef double complex p[2]
        cdef bint cplx = False
        if n != 1 and n != 2:
            return None
        if not self._numbers(xs, &cplx):
            return None
        if (self._flags(n) & F_COMPLEX) or isinstance(omega, (complex, _np.complexfloating)):
            cplx = True
        if not self._partials(xs, omega, cplx, p):
            return None
        if n == 1:
            return ((_num(p[0], cplx),),)
        if self.flags2 & F_ND2:
            return ((_num(p[0], cplx), NO_TANGENT),)
        return ((_num(p[0], cplx), _num(p[1], cplx)),)


cdef object _primal_value(object omega, double* r, bint* real):
    """Read the primal's Ω: real[0] False when it is not a float or an int."""
    cdef type t = type(omega)
    real[0] = True
    if t is float:
        r[0] = PyFloat_AS_DOUBLE(omega)
    elif t is int:
        r[0] = _to_double(omega)
    else:
        real[0] = False
    return omega


cdef bint _is_num_zero(object t) except -1:
    cdef type tt = type(t)
    if tt is float or tt is int or tt is complex:
        return t == 0
    if isinstance(t, (_np.floating, _np.complexfloating, _np.integer)):
        return t == 0
    return False


cdef object _generic_push(tuple xs, object omega, tuple tangents, double complex* p,
                          bint cplx, int flags):
    """ΔΩ = Σ ∂ᵢ·Δxᵢ computed in double (complex) precision, then projected
    onto Ω's tangent space (an np.float32 Ω gets an np.float32 tangent)."""
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(xs)
    cdef double complex acc = cr_cmplx(0.0, 0.0), z
    cdef bint c = cplx, any_num = False
    cdef object zero = None, other = None
    cdef int k
    for i in range(n):
        if i == 1 and (flags & F_ND2):
            continue
        t = _read_tangent(tangents[i + 1], &z, &c, &k)
        if k == T_NUM:
            if (flags & F_STRONG_ZERO) and creal(z) == 0.0 and cimag(z) == 0.0:
                any_num = True
                continue
            acc = acc + _cmul(p[i], z)
            any_num = True
        elif k == T_ZERO:
            zero = t if zero is None else tangent_add(zero, t)
        else:
            term = tangent_mul(_num(p[i], cplx), t)
            other = term if other is None else tangent_add(other, term)
    if other is not None:
        if any_num:
            other = tangent_add(other, _num(acc, c))
        return ProjectTo(omega).project(other)
    if not any_num:
        return zero
    return ProjectTo(omega).project(_num(acc, c or cimag(acc) != 0.0))


@cython.final
@cython.freelist(64)
cdef class _ScalarPullback(_CompiledPullback):
    """The pullback of a C-table rule at real arguments: the partials are C
    doubles; the cotangent of each (real) input is real.  Called through
    vectorcall (vc, see _pullback_vectorcall) with no argument tuple."""
    cdef void* vc
    cdef _ScalarRow row
    cdef double d0
    cdef double d1
    cdef int n
    cdef bint nd2

    def __call__(self, *args, **kwargs):
        if len(args) != 1 or kwargs:
            _pullback_arity_error(self.row.name, len(args) + len(kwargs))
        return self.call(args[0])

    cdef object call(self, object dy):
        cdef double v
        if type(dy) is float:
            v = PyFloat_AS_DOUBLE(dy)
            if self.n == 1:
                return NO_TANGENT, PyFloat_FromDouble(self.d0 * v)
            if self.nd2:
                return NO_TANGENT, PyFloat_FromDouble(self.d0 * v), NO_TANGENT
            return NO_TANGENT, PyFloat_FromDouble(self.d0 * v), PyFloat_FromDouble(self.d1 * v)
        return self._slow(dy)

    cdef object _slow(self, object dy):
        cdef double complex z
        cdef bint c = False
        cdef int k
        cdef double v
        out = _read_tangent(dy, &z, &c, &k)
        if k == T_NUM:
            v = creal(z)        # the inputs are real: Re(conj(∂)·ΔΩ) with ∂ real
            a = PyFloat_FromDouble(self.d0 * v)
            if self.n == 1:
                return NO_TANGENT, a
            return NO_TANGENT, a, (NO_TANGENT if self.nd2 else PyFloat_FromDouble(self.d1 * v))
        if k == T_ZERO:
            if self.n == 1:
                return NO_TANGENT, out
            return NO_TANGENT, out, (NO_TANGENT if self.nd2 else out)
        a = _tracked_cotangent(self.row.name, cr_cmplx(self.d0, 0.0), out, _REAL_PROJ)
        if self.n == 1:
            return NO_TANGENT, a
        return NO_TANGENT, a, (NO_TANGENT if self.nd2 else
                               _tracked_cotangent(self.row.name, cr_cmplx(self.d1, 0.0), out, _REAL_PROJ))

    def __repr__(self):
        return f"<pullback of {self.row.name}>"


cdef object _bad_cotangent(str name, object dy):
    if isinstance(dy, _ndarray):
        raise ValueError(f"pullback of {name}: expected a scalar cotangent, got an array of shape "
                         f"{dy.shape}")
    raise _seed_error(name, dy)


# The tangent space of a real scalar input (float, np.float64…): what a
# tracked cotangent is projected onto (ProjectTo._tracked: its real part).
cdef ProjectTo _REAL_PROJ = ProjectTo(0.0)


cdef object _tracked_cotangent(str name, double complex p, object dy, ProjectTo proj):
    """conj(p)·ȳ for a seed ȳ tracked by an enclosing differentiation, computed
    with ȳ's own arithmetic so that the enclosing engine records it, projected
    by proj (issue 21: a mixed partial ∂x∂y of x·sin(y) seeds the pullback of
    sin at a plain y with x's tracked value).  Any other seed is refused."""
    if not _is_traced(dy):
        _bad_cotangent(name, dy)
    c = PyFloat_FromDouble(creal(p)) if cimag(p) == 0.0 else complex(creal(p), -cimag(p))
    return proj.project(tangent_mul(c, dy))


cdef object _pullback_arity_error(str name, Py_ssize_t n):
    raise TypeError(f"pullback of {name}: takes one cotangent (ΔΩ), got {n} arguments")


cdef object _pullback_vectorcall(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if nargs != 1 or (kwnames != NULL and PyTuple_GET_SIZE(<object>kwnames) != 0):
        _pullback_arity_error((<_ScalarPullback>self).row.name,
                              nargs + (PyTuple_GET_SIZE(<object>kwnames) if kwnames != NULL else 0))
    return (<_ScalarPullback>self).call(<object>args[0])


cdef inline tuple _as_tuple(PyObject** xs, Py_ssize_t n):
    return _pack(xs, 0, n)


@cython.final
cdef class _GenericPullback(_CompiledPullback):
    """The pullback of a C-table rule on the generic path: conj(∂ᵢ)·ΔΩ in
    double complex precision, projected onto each input's tangent space."""
    cdef _ScalarRow row
    cdef double complex p0
    cdef double complex p1
    cdef int n
    cdef bint nd2
    cdef tuple projectors

    @staticmethod
    cdef _GenericPullback make(_ScalarRow row, tuple xs, double complex* p, int flags):
        cdef _GenericPullback pb = _GenericPullback.__new__(_GenericPullback)
        pb.row = row
        pb.n = PyTuple_GET_SIZE(xs)
        pb.p0 = p[0]
        pb.p1 = p[1] if pb.n == 2 else cr_cmplx(0.0, 0.0)
        pb.nd2 = (flags & F_ND2) != 0
        pb.projectors = tuple([ProjectTo(x) for x in xs])
        return pb

    def __call__(self, dy):
        cdef double complex z, g
        cdef bint c = False
        cdef int k
        cdef Py_ssize_t i
        out = _read_tangent(dy, &z, &c, &k)
        if k == T_OTHER and not _is_traced(out):
            _bad_cotangent(self.row.name, dy)
        res = [NO_TANGENT]
        cdef ProjectTo proj
        for i in range(self.n):
            proj = <ProjectTo>self.projectors[i]
            if (i == 1 and self.nd2) or proj.kind == K_NONE:
                res.append(NO_TANGENT)
            elif k == T_ZERO:
                res.append(out)
            elif k == T_OTHER:
                res.append(_tracked_cotangent(self.row.name, self.p0 if i == 0 else self.p1, out, proj))
            else:
                g = _cmul(_cconj(self.p0 if i == 0 else self.p1), z)
                if proj.kind == K_FLOAT:
                    res.append(PyFloat_FromDouble(creal(g)))
                else:
                    res.append(proj.project(_num(g, cimag(g) != 0.0 or proj.kind == K_COMPLEX or
                                                 (proj.kind == K_NPSCALAR and proj.dtype.kind == "c"))))
        return tuple(res)

    def __repr__(self):
        return f"<pullback of {self.row.name}>"


# ----- building rows ---------------------------------------------------------

cdef _ScalarRow _row_for(object f, str name):
    cdef _RuleTable tab
    with _registry_lock:
        tab = _table_for(f, False, True)
        if tab.row is None:
            tab.row = _ScalarRow.__new__(_ScalarRow)
            tab.row.primal = f
            tab.row.name = name if name is not None else _fname(f)
        return tab.row


cdef _ScalarRow _row1(object f, f1_t fn, d1_t d, cd1_t cd=NULL, int flags=0, str name=None):
    """Register the one-argument kernels of f: fn the primal (may be NULL when
    the row always calls the primal), d the partial, cd the complex derivative."""
    cdef _ScalarRow row = _row_for(f, name)
    if fn == NULL and not (flags & (F_CALL_PRIMAL | F_COMPLEX | F_NUMPY)):
        flags |= F_CALL_PRIMAL
    row.f1 = fn
    row.d1 = d
    row.cd1 = cd
    row.flags1 = flags
    return row


cdef _ScalarRow _row2(object f, f2_t fn, d2_t d, cd2_t cd=NULL, int flags=0, str name=None):
    """Register the two-argument kernels of f (see _row1)."""
    cdef _ScalarRow row = _row_for(f, name)
    if fn == NULL and not (flags & (F_CALL_PRIMAL | F_COMPLEX | F_NUMPY)):
        flags |= F_CALL_PRIMAL
    row.f2 = fn
    row.d2 = d
    row.cd2 = cd
    row.flags2 = flags
    return row


def _scalar_rows():
    """Debugging aid: {f: row} for every function with a C-table row."""
    with _registry_lock:
        return {f: (<_RuleTable>tab).row for f, tab in _functions.items()
                if (<_RuleTable>tab).row is not None}


def _scalar_row(f):
    """Debugging aid: the C-table row of f, or None."""
    tab = _lookup_table(f)
    if tab is None:
        return None
    return (<_RuleTable>tab).row


# ----- pullbacks called by vectorcall ------------------------------------------

cdef _enable_pullback_vectorcall():
    cdef _ScalarPullback probe = _ScalarPullback.__new__(_ScalarPullback)
    cr_enable_vectorcall(_ScalarPullback, <Py_ssize_t>(<char*>&probe.vc - <char*><void*>probe))

cr_vc_impls[VC_SCALAR_PULLBACK] = _pullback_vectorcall
_enable_pullback_vectorcall()
