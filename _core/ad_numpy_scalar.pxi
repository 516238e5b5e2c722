# AD ENGINE: NumPy on tracked real scalars (np.sin of a tracked float, tracked np.float64).
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 2b: NumPy on real scalars
# (issue 13).  np.sin(x) on a tracked float, and any operation on a tracked
# np.float64, take the engines' compiled scalar path: the result is a fast
# Dual (a scalar node on the tape for Var) whose value is flagged np64 when
# the generic engine's would be an np.float64.  What is computed is exactly
# what the generic engine computes (see the end of scalar_numpy.pxi); in
# forward mode its tangent sum Σ ∂ᵢ·ẋᵢ starts at 0.0 and skips the constants
# (and, for x ** p, the zero tangents), and in reverse mode the node is swept
# as the generic engine's record of the rule (N_R in ad_reverse.pxi).
# Anything else, and every error, goes to the generic engine.
# ---------------------------------------------------------------------------

cdef struct _ADArg:
    double v              # the value
    double d              # its tangent (forward mode)
    Py_ssize_t slot       # its slot (reverse mode); -1: a constant
    bint np               # an np.float64
    bint tracked


cdef inline bint _ad_np_const(object x, _ADArg* r) except -1:
    """A constant: a Python float or int, or an np.float64."""
    cdef type t = type(x)
    r.tracked = False
    r.slot = -1
    r.d = 0.0
    r.np = False
    if t is float:
        r.v = PyFloat_AS_DOUBLE(x)
        return True
    if cr_is_np_double(x):
        r.v = PyFloat_AS_DOUBLE(x)
        r.np = True
        return True
    if t is int:
        try:
            r.v = PyLong_AsDouble(x)
        except OverflowError:
            return False
        return True
    return False


cdef inline bint _ad_np_eval(_ScalarRow row, int n, _ADArg* x, double* r, double* p) except -1:
    """Ω (in r) and the partials (in p) of the row at the arguments, as the
    generic engine computes them; False when this case is the generic
    engine's (no kernel, a floating-point flag raised, Ω left the reals).
    The result is an np.float64 unless the row is a `math` function."""
    cdef int k = row.adkind
    cdef int flags = row.flags1 if n == 1 else row.flags2
    cdef double y
    if k == AD_UFUNC:
        if n == 1:
            if row.nploop1 == NULL:
                return False
            cr_fe_clear()
            y = cr_loop1(row.nploop1, row.npdata1, x[0].v)
        else:
            if row.nploop2 == NULL:
                return False
            cr_fe_clear()
            y = cr_loop2(row.nploop2, row.npdata2, x[0].v, x[1].v)
        if cr_fe_raised():
            return False
    elif k == AD_ARITH or k == AD_MATH:
        if (n == 1 and row.f1 == NULL) or (n == 2 and row.f2 == NULL) or (flags & _AD_SLOW):
            return False
        if k == AD_ARITH:
            cr_fe_clear()
        y = row.f1(x[0].v) if n == 1 else row.f2(x[0].v, x[1].v)
        if k == AD_ARITH and cr_fe_raised():
            return False
    else:
        return False
    if _suspicious(y, x[0].v) or (n == 2 and _suspicious(y, x[1].v)):
        return False
    r[0] = y
    if n == 1:
        if row.d1 == NULL:
            return False
        p[0] = row.d1(x[0].v, y)
    else:
        if row.d2 == NULL or (flags & F_ND2):
            return False
        row.d2(x[0].v, x[1].v, y, &p[0], &p[1])
    return True


cdef inline bint _ad_np_out(_ScalarRow row, int n, _ADArg* x) noexcept:
    """Is Ω an np.float64?"""
    if row.adkind == AD_UFUNC:
        return True
    return row.adkind == AD_ARITH and (x[0].np or (n == 2 and x[1].np))


cdef object _ad_fwd_np(_ScalarRow row, int n, object a, object b):
    """Forward mode: the row at (a[, b]), fast Duals of one tag and
    constants; None for the generic engine."""
    cdef _ADArg x[2]
    cdef double r, acc
    cdef double p[2]
    cdef long tag = 0
    cdef bint have = False
    cdef int i
    cdef Dual d
    cdef Dual out
    if not _ad_np_enabled:
        return None
    for i in range(n):
        v = a if i == 0 else b
        if type(v) is Dual:
            d = <Dual>v
            if not d.fast or (have and d.tag != tag):
                return None
            tag = d.tag
            have = True
            x[i].v = d.v
            x[i].d = d.d
            x[i].np = d.np64
            x[i].tracked = True
            x[i].slot = -1
        elif not _ad_np_const(v, &x[i]):
            return None
    if not have or not _ad_live(tag) or not _ad_np_eval(row, n, x, &r, p):
        return None                     # (an escaped Dual: the generic engine reports it)
    acc = 0.0
    for i in range(n):
        if x[i].tracked and not ((row.flags2 & F_STRONG_ZERO) and n == 2 and x[i].d == 0.0):
            acc = acc + p[i] * x[i].d
    out = _fast_dual(tag, r, acc)
    out.np64 = _ad_np_out(row, n, x)
    return out


cdef object _ad_rev_np(_ScalarRow row, int n, object a, object b):
    """Reverse mode: the row at (a[, b]), fast Vars of one active tape and
    constants; None for the generic engine."""
    cdef _ADArg x[2]
    cdef double r
    cdef double p[2]
    cdef Tape tape = None
    cdef int i
    cdef int32_t flags
    cdef Var v
    cdef Var out
    if not _ad_np_enabled:
        return None
    p[1] = 0.0
    for i in range(n):
        w = a if i == 0 else b
        if type(w) is Var:
            v = <Var>w
            if not v.fast or (tape is not None and v.tape is not tape):
                return None
            tape = v.tape
            x[i].v = v.v
            x[i].np = v.np64
            x[i].tracked = True
            x[i].slot = v.slot
        elif not _ad_np_const(w, &x[i]):
            return None
    if tape is None or not tape.active or not _ad_np_eval(row, n, x, &r, p):
        return None
    flags = N_R | (row.ad_id << N_ROW_SHIFT)
    if x[0].np and x[0].tracked:
        flags |= N_NP0
    if n == 2 and x[1].np and x[1].tracked:
        flags |= N_NP1
    out = _fast_var(tape, tape._push_flags(x[0].slot, x[1].slot if n == 2 else -1, p[0], p[1], flags), r)
    out.np64 = _ad_np_out(row, n, x)
    return out


cdef bint _ad_np_enabled = True


def _ad_numpy_scalar_fast(bint enabled):
    """Turn the NumPy-semantics scalar fast path on or off; returns the
    previous setting (chainrules.ad internal: the tests compare it with the
    generic engine)."""
    global _ad_np_enabled
    was = _ad_np_enabled
    _ad_np_enabled = enabled
    return was


cdef object _ad_np_call(_ScalarRow row, int n, object a, object b):
    """The NumPy-semantics fast path for either engine (a or b tracked), or None."""
    if type(a) is Dual or (n == 2 and type(b) is Dual):
        return _ad_fwd_np(row, n, a, b)
    if type(a) is Var or (n == 2 and type(b) is Var):
        return _ad_rev_np(row, n, a, b)
    return None


cdef dict _ad_ufunc_rows = {}


cdef object _ad_ufunc_fast(object ufunc, tuple inputs):
    """A ufunc called on tracked real scalars (and constants), on the fast
    path; None for the generic engine."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(inputs)
    cdef _ScalarRow row
    if n != 1 and n != 2:
        return None
    r = _ad_ufunc_rows.get(ufunc, _AD_NOT_FLAT)
    if r is _AD_NOT_FLAT:
        r = _ad_row_of(ufunc)
        if r is not None and (<_ScalarRow>r).adkind != AD_UFUNC:
            r = None
        _ad_ufunc_rows[ufunc] = r
    if r is None:
        return None
    row = <_ScalarRow>r
    if row.overridden:
        return None
    return _ad_np_call(row, <int>n, inputs[0], inputs[1] if n == 2 else None)
