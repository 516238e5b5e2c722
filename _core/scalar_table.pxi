# ---------------------------------------------------------------------------
# The C scalar rule table.  A row holds, for one function, C kernels for the
# primal and for the partials given the output (written in terms of Ω where
# that is cheaper: exp -> Ω, tanh -> 1 - Ω²).  Python floats and ints go
# through the kernels with no Python call; complex numbers use the complex
# kernels when the row has them; NumPy scalars call the primal (keeping its
# type and precision) and use the same kernels for the partials.
#
# Errors: when a kernel's result is NaN or infinite from a finite input, the
# Python primal is called instead, so a domain error is exactly the primal's
# own (math.sqrt(-1.0) -> ValueError) and nothing is half done.
# ---------------------------------------------------------------------------

cdef extern from "<complex.h>" nogil:
    double complex csin(double complex)
    double complex ccos(double complex)
    double complex casin(double complex)
    double complex csqrt(double complex)

cdef extern from *:
    """
    #define cr_tuple_items(t) (((PyTupleObject *)(t))->ob_item)
    """
    PyObject** cr_tuple_items(object t)

ctypedef double (*f1_t)(double) noexcept nogil
ctypedef double (*d1_t)(double, double) noexcept nogil
ctypedef double (*f2_t)(double, double) noexcept nogil
ctypedef void (*d2_t)(double, double, double, double*, double*) noexcept nogil
ctypedef double complex (*cd1_t)(double complex, double complex) noexcept nogil
ctypedef void (*cd2_t)(double complex, double complex, double complex,
                       double complex*, double complex*) noexcept nogil


cdef inline bint _suspicious(double r, double x) noexcept nogil:
    return (isnan(r) and not isnan(x)) or (isinf(r) and isfinite(x))


cdef object _scale(double d, object dx):
    """d·dx for a tangent dx of any kind (the ladder decides for zeros)."""
    cdef type t = type(dx)
    if t is float:
        return PyFloat_FromDouble(d * PyFloat_AS_DOUBLE(dx))
    if t is int:
        return PyFloat_FromDouble(d * <double>dx)
    return tangent_mul(PyFloat_FromDouble(d), dx)


cdef object _scalar_cotangent(str name, object dy):
    """Read a cotangent for a real scalar output: a float, a zero, or None
    when it is something else (complex, NumPy) to be handled generically."""
    cdef type t = type(dy)
    if t is float:
        return dy
    if t is int:
        return float(dy)
    if isinstance(dy, AbstractThunk):
        return _scalar_cotangent(name, _unthunk(dy))
    if isinstance(dy, _ndarray) and dy.size != 1:
        raise ValueError(f"pullback of {name}: expected a scalar cotangent, got an array of shape {dy.shape}")
    if isinstance(dy, (AbstractTangent, complex, _np_generic, _ndarray)):
        return None
    raise TypeError(f"pullback of {name}: expected a number as cotangent, got {type(dy).__name__}")


cdef class _ScalarRow:
    cdef readonly int nin
    cdef f1_t f1
    cdef d1_t d1
    cdef f2_t f2
    cdef d2_t d2
    cdef cd1_t cd1
    cdef cd2_t cd2
    cdef readonly object primal
    cdef readonly str name
    cdef bint int_primal       # ints: the Python primal computes Ω (operator.add(1, 2) is 3)

    # -- the real fast path: Python floats and ints -----------------------
    # One fast path, on the argument array of a vectorcall (dispatch.pxi
    # passes it without building a tuple); the tuple entry points wrap it.

    cdef inline bint _read_real(self, PyObject** xs, double* v) except -1:
        cdef Py_ssize_t i
        cdef type t
        for i in range(self.nin):
            x = <object>xs[i]
            t = type(x)
            if t is float:
                v[i] = PyFloat_AS_DOUBLE(x)
            elif t is int:
                try:
                    v[i] = PyLong_AsDouble(x)
                except OverflowError:
                    return False
            else:
                return False
        return True

    cdef bint _has_int(self, PyObject** xs):
        cdef Py_ssize_t i
        for i in range(self.nin):
            if type(<object>xs[i]) is int:
                return True
        return False

    cdef object _primal_real(self, PyObject** xs, double* v, double* r):
        """Ω as a Python object; r[0] receives its value."""
        cdef double y
        if self.int_primal and self._has_int(xs):
            omega = self.primal(*_pack(xs, 0, self.nin))
            r[0] = <double>omega
            return omega
        y = self.f1(v[0]) if self.nin == 1 else self.f2(v[0], v[1])
        if _suspicious(y, v[0]) or (self.nin == 2 and _suspicious(y, v[1])):
            omega = self.primal(*_pack(xs, 0, self.nin))   # raises the primal's own error, or agrees
            r[0] = <double>omega
            return omega
        r[0] = y
        return PyFloat_FromDouble(y)

    cdef object frule_vec(self, tuple tangents, PyObject** xs, Py_ssize_t n):
        cdef double v[2]
        cdef double r, dx, dy
        if n != self.nin:
            return None
        if not self._read_real(xs, v):
            return self._frule_generic(tangents, _pack(xs, 0, n))
        omega = self._primal_real(xs, v, &r)
        if self.nin == 1:
            return omega, _scale(self.d1(v[0], r), tangents[1])
        self.d2(v[0], v[1], r, &dx, &dy)
        t1 = tangents[1]
        t2 = tangents[2]
        if type(t1) is float and type(t2) is float:
            return omega, PyFloat_FromDouble(dx * PyFloat_AS_DOUBLE(t1) + dy * PyFloat_AS_DOUBLE(t2))
        return omega, tangent_add(_scale(dx, t1), _scale(dy, t2))

    cdef object rrule_vec(self, PyObject** xs, Py_ssize_t n):
        cdef double v[2]
        cdef double r, dx, dy
        cdef _ScalarPullback pb
        if n != self.nin:
            return None
        if not self._read_real(xs, v):
            return self._rrule_generic(_pack(xs, 0, n))
        omega = self._primal_real(xs, v, &r)
        pb = _ScalarPullback.__new__(_ScalarPullback)
        pb.row = self
        if self.nin == 1:
            pb.d0 = self.d1(v[0], r)
        else:
            self.d2(v[0], v[1], r, &dx, &dy)
            pb.d0 = dx
            pb.d1 = dy
        return omega, pb

    cdef object frule(self, tuple tangents, tuple xs):
        return self.frule_vec(tangents, cr_tuple_items(xs), PyTuple_GET_SIZE(xs))

    cdef object rrule(self, tuple xs):
        return self.rrule_vec(cr_tuple_items(xs), PyTuple_GET_SIZE(xs))

    # -- the generic path: complex numbers and NumPy scalars --------------

    cdef object _numbers_ok(self, tuple xs):
        """0: not numbers (let other rules try); 1: real; 2: complex."""
        kind = 1
        for x in xs:
            if isinstance(x, bool) or isinstance(x, _np.bool_):
                return 0
            if isinstance(x, (complex, _np.complexfloating)):
                kind = 2
            elif not isinstance(x, (float, int, _np.floating, _np.integer)):
                return 0
        if kind == 2 and ((self.nin == 1 and self.cd1 == NULL) or (self.nin == 2 and self.cd2 == NULL)):
            return 0
        return kind

    cdef tuple _generic_partials(self, tuple xs, object omega, int kind):
        cdef double dx, dy
        cdef double complex cx, cy
        if kind == 1:
            if self.nin == 1:
                return (PyFloat_FromDouble(self.d1(float(xs[0]), float(omega))),)
            self.d2(float(xs[0]), float(xs[1]), float(omega), &dx, &dy)
            return (PyFloat_FromDouble(dx), PyFloat_FromDouble(dy))
        if self.nin == 1:
            return (complex(self.cd1(complex(xs[0]), complex(omega))),)
        self.cd2(complex(xs[0]), complex(xs[1]), complex(omega), &cx, &cy)
        return (complex(cx), complex(cy))

    cdef object _frule_generic(self, tuple tangents, tuple xs):
        kind = self._numbers_ok(xs)
        if not kind:
            return None
        omega = self.primal(*xs)
        parts = self._generic_partials(xs, omega, kind)
        return omega, ProjectTo(omega).project(_pushforward(parts, tangents))

    cdef object _rrule_generic(self, tuple xs):
        cdef _ScalarRulePullback pb
        kind = self._numbers_ok(xs)
        if not kind:
            return None
        omega = self.primal(*xs)
        pb = _ScalarRulePullback.__new__(_ScalarRulePullback)
        pb.name = self.name
        pb.rows = (self._generic_partials(xs, omega, kind),)
        pb.multi = False
        pb.scalar_out = True
        pb.projectors = tuple([ProjectTo(x) for x in xs])
        return omega, pb

    cdef object partials(self, tuple xs, object omega):
        if len(xs) != self.nin:
            return None
        kind = self._numbers_ok(xs)
        if not kind:
            return None
        return (self._generic_partials(xs, omega, kind),)


@cython.freelist(64)
cdef class _ScalarPullback:
    """The pullback of a C-table rule at real arguments: the partials are C
    doubles; the cotangent of each (real) input is real."""
    cdef _ScalarRow row
    cdef double d0
    cdef double d1

    def __call__(self, *args):
        if PyTuple_GET_SIZE(args) != 1:
            raise TypeError(f"pullback of {self.row.name}: takes one cotangent (ΔΩ), "
                            f"got {len(args)} arguments")
        dy = args[0]
        if type(dy) is not float:
            dy = _scalar_cotangent(self.row.name, dy)
            if dy is None:
                return self._generic(args[0])
        cdef double v = PyFloat_AS_DOUBLE(dy)
        if self.row.nin == 1:
            return NO_TANGENT, PyFloat_FromDouble(self.d0 * v)
        return NO_TANGENT, PyFloat_FromDouble(self.d0 * v), PyFloat_FromDouble(self.d1 * v)

    cdef object _generic(self, object dy):
        dy = _unthunk(dy)
        out = [NO_TANGENT]
        parts = (self.d0, self.d1)
        for i in range(self.row.nin):
            # The inputs were real: keep the real part (ProjectTo(float)).
            d = tangent_mul(PyFloat_FromDouble(parts[i]), dy)
            if isinstance(d, (complex, _np_generic, _ndarray)):
                d = float(_np.real(d))
            out.append(d)
        return tuple(out)

    def __repr__(self):
        return f"<pullback of {self.row.name}>"


cdef _ScalarRow _new_row(object f, int nin, str name):
    cdef _ScalarRow row = _ScalarRow.__new__(_ScalarRow)
    row.nin = nin
    row.primal = f
    row.name = name if name is not None else _fname(f)
    with _registry_lock:
        _table_for(f, False, True).row = row
    return row


cdef _ScalarRow _row1(object f, f1_t fn, d1_t d, cd1_t cd=NULL, bint int_primal=False, str name=None):
    cdef _ScalarRow row = _new_row(f, 1, name)
    row.f1 = fn
    row.d1 = d
    row.cd1 = cd
    row.int_primal = int_primal
    return row


cdef _ScalarRow _row2(object f, f2_t fn, d2_t d, cd2_t cd=NULL, bint int_primal=False, str name=None):
    cdef _ScalarRow row = _new_row(f, 2, name)
    row.f2 = fn
    row.d2 = d
    row.cd2 = cd
    row.int_primal = int_primal
    return row


# ----- the rows ----------------------------------------------------------
# Kernels: d_<name>(x, Ω) -> ∂Ω/∂x ; complex: c_<name>(z, Ω) -> f'(z).

import math as _math
import operator as _operator
from libc.math cimport sin, cos, asin, sqrt

cdef double d_sin(double x, double o) noexcept nogil:
    return cos(x)

cdef double complex c_sin(double complex z, double complex o) noexcept nogil:
    return ccos(z)

cdef double d_asin(double x, double o) noexcept nogil:
    return 1.0 / sqrt(1.0 - x * x)

cdef double complex c_asin(double complex z, double complex o) noexcept nogil:
    return 1.0 / csqrt(1.0 - z * z)

cdef double f_add(double x, double y) noexcept nogil:
    return x + y

cdef void d_add(double x, double y, double o, double* dx, double* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = 1.0

cdef void c_add(double complex x, double complex y, double complex o,
                double complex* dx, double complex* dy) noexcept nogil:
    dx[0] = 1.0
    dy[0] = 1.0

_row1(_math.sin, sin, d_sin)
_row1(_math.asin, asin, d_asin)
_row2(_operator.add, f_add, d_add, c_add, True)
