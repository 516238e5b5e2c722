# AD ENGINE: calling functions with rules on tracked values (operators on Dual/Var, Wrapped behind ad.wrap, ad.math/ad.cmath).
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 3: calling a function with a
# rule on tracked values — Python operators on Dual/Var, and `Wrapped`, the
# callable behind chainrules.ad.wrap(f) and the drop-in namespaces
# chainrules.ad.math / chainrules.ad.cmath.
#
# The fast path: a function with a row in the C scalar table, one or two
# arguments that are fast Duals of one tag (or fast Vars of one active tape)
# and plain real numbers.  Ω and the partials come from the row's C kernels
# (a kernel's NaN/inf from finite input defers to the primal, which raises
# its own error or agrees), and the result is a new fast Dual, or a scalar
# node on the tape.  Anything else goes to the generic engine.
# ---------------------------------------------------------------------------

cdef enum:
    OP_ADD = 0
    OP_SUB = 1
    OP_MUL = 2
    OP_TRUEDIV = 3
    OP_FLOORDIV = 4
    OP_MOD = 5
    OP_POW = 6
    OP_NEG = 7
    OP_POS = 8
    OP_ABS = 9
    N_OPS = 10

_ad_builtin_function = type(len)

cdef tuple _ad_op_funcs = (_ad_operator.add, _ad_operator.sub, _ad_operator.mul,
                           _ad_operator.truediv, _ad_operator.floordiv, _ad_operator.mod,
                           _ad_operator.pow, _ad_operator.neg, _ad_operator.pos,
                           _ad_operator.abs)
cdef list _ad_op_rows = None


cdef _ScalarRow _ad_row_of(object f):
    cdef _RuleTable tab = _lookup_table(f)
    return None if tab is None else tab.row


cdef inline _ScalarRow _ad_op_row(int op):
    global _ad_op_rows
    if _ad_op_rows is None:
        # Every row is registered when the module is initialised, before any
        # tracked value can exist.
        _ad_op_rows = [_ad_row_of(f) for f in _ad_op_funcs]
    return <_ScalarRow>_ad_op_rows[op]


# ----- the row's kernels on C doubles ----------------------------------------
# True: Ω and the partials are in r, d (du, dv).  False: not on the fast path
# (rows whose Ω the primal computes, complex and NumPy rows, integer outputs).

cdef int _AD_SLOW = F_CALL_PRIMAL | F_COMPLEX | F_NUMPY | F_INT_OUT

cdef bint _ad_real_result(object omega, double* r) except -1:
    if type(omega) is float:
        r[0] = PyFloat_AS_DOUBLE(omega)
        return True
    return False


cdef inline bint _ad_row1(_ScalarRow row, double x, double* r, double* d) except -1:
    cdef double y
    if row.f1 == NULL or row.d1 == NULL or (row.flags1 & _AD_SLOW):
        return False
    y = row.f1(x)
    if _suspicious(y, x):
        # the primal raises its own error, or agrees, or leaves the reals
        if not _ad_real_result(row.primal(PyFloat_FromDouble(x)), &y):
            return False
    r[0] = y
    d[0] = row.d1(x, y)
    return True


cdef inline bint _ad_row2(_ScalarRow row, double x, double y, double* r,
                          double* du, double* dv) except -1:
    cdef double w
    if row.f2 == NULL or row.d2 == NULL or (row.flags2 & _AD_SLOW):
        return False
    w = row.f2(x, y)
    if _suspicious(w, x) or _suspicious(w, y):
        if not _ad_real_result(row.primal(PyFloat_FromDouble(x), PyFloat_FromDouble(y)), &w):
            return False
    r[0] = w
    row.d2(x, y, w, du, dv)
    return True


cdef inline bint _ad_row_strong_zero(_ScalarRow row):
    """A zero tangent contributes zero even where the partial is inf/NaN (x ** p)."""
    return (row.flags2 & F_STRONG_ZERO) != 0


cdef inline bint _ad_row_nd2(_ScalarRow row):
    """The row's second argument has no tangent (ldexp's integer exponent)."""
    return (row.flags2 & F_ND2) != 0


cdef inline bint _ad_const(object x, double* v) except -1:
    """A plain real number (float or int) as a C double."""
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


cdef inline double _ad_push2(_ScalarRow row, double du, double a, double dv, double b):
    """du·a + dv·b, with the row's strong zeros."""
    if _ad_row_strong_zero(row):
        return (du * a if a != 0.0 else 0.0) + (dv * b if b != 0.0 else 0.0)
    return du * a + dv * b


# ----- one and two arguments ---------------------------------------------------

cdef object _ad_call1(_ScalarRow row, object f, object a, int kind):
    cdef type ta = type(a)
    cdef Dual da
    cdef Var va
    cdef double r, d
    if row is not None and not row.overridden:
        if ta is Dual:
            da = <Dual>a
            if da.fast and _ad_live(da.tag):       # else escaped: the generic engine reports it
                if not da.np64 and row.adkind != AD_UFUNC:
                    if _ad_row1(row, da.v, &r, &d):
                        return _fast_dual(da.tag, r, d * da.d)
                else:
                    out = _ad_fwd_np(row, 1, a, None)
                    if out is not None:
                        return out
        elif ta is Var:
            va = <Var>a
            if va.fast and va.tape.active:
                if not va.np64 and row.adkind != AD_UFUNC:
                    if _ad_row1(row, va.v, &r, &d):
                        return _fast_var(va.tape, va.tape._push(va.slot, -1, d, 0.0), r)
                else:
                    out = _ad_rev_np(row, 1, a, None)
                    if out is not None:
                        return out
    return _ad_generic(kind, f, (a,), None)


cdef object _ad_call2(_ScalarRow row, object f, object a, object b, int kind):
    cdef type ta = type(a), tb = type(b)
    cdef Dual da, db
    cdef Var va, vb
    cdef Tape tape
    cdef double u, v, r, du, dv
    if row is not None and not row.overridden:
        if row.adkind == AD_UFUNC or _ad_np_arg(a) or _ad_np_arg(b):
            out = _ad_np_call(row, 2, a, b)     # NumPy's semantics
            if out is not None:
                return out
            return _ad_generic(kind, f, (a, b), None)
        if ta is Dual:
            da = <Dual>a
            if da.fast and _ad_live(da.tag):       # else escaped: the generic engine reports it
                if tb is Dual:
                    db = <Dual>b
                    if (db.fast and db.tag == da.tag and not _ad_row_nd2(row)
                            and _ad_row2(row, da.v, db.v, &r, &du, &dv)):
                        return _fast_dual(da.tag, r, _ad_push2(row, du, da.d, dv, db.d))
                elif _ad_const(b, &v) and _ad_row2(row, da.v, v, &r, &du, &dv):
                    return _fast_dual(da.tag, r, du * da.d)
        elif tb is Dual:
            db = <Dual>b
            if (db.fast and _ad_live(db.tag) and not _ad_row_nd2(row) and _ad_const(a, &u)
                    and _ad_row2(row, u, db.v, &r, &du, &dv)):
                return _fast_dual(db.tag, r, dv * db.d)
        elif ta is Var:
            va = <Var>a
            tape = va.tape
            if va.fast and tape.active:
                if tb is Var:
                    vb = <Var>b
                    if (vb.fast and vb.tape is tape and not _ad_row_nd2(row)
                            and _ad_row2(row, va.v, vb.v, &r, &du, &dv)):
                        return _fast_var(tape, tape._push(va.slot, vb.slot, du, dv), r)
                elif _ad_const(b, &v) and _ad_row2(row, va.v, v, &r, &du, &dv):
                    return _fast_var(tape, tape._push(va.slot, -1, du, 0.0), r)
        elif tb is Var:
            vb = <Var>b
            tape = vb.tape
            if (vb.fast and tape.active and not _ad_row_nd2(row) and _ad_const(a, &u)
                    and _ad_row2(row, u, vb.v, &r, &du, &dv)):
                return _fast_var(tape, tape._push(vb.slot, -1, dv, 0.0), r)
    return _ad_generic(kind, f, (a, b), None)


cdef inline bint _ad_np_arg(object x) noexcept:
    """x is an np.float64, tracked on the fast path or not."""
    cdef type t = type(x)
    if t is Dual:
        return (<Dual>x).np64
    if t is Var:
        return (<Var>x).np64
    return cr_is_np_double(x)


cdef object _ad_binary(int op, object a, object b):
    return _ad_call2(_ad_op_row(op), _ad_op_funcs[op], a, b, AK_OP)


cdef object _ad_unary(int op, object a):
    return _ad_call1(_ad_op_row(op), _ad_op_funcs[op], a, AK_OP)


# ----- Wrapped: chainrules.ad.wrap(f) ---------------------------------------------

cdef bint _ad_holds_tracked(object x, int depth):
    """A tracked value at x or inside the lists, tuples and dicts under it."""
    cdef type t = type(x)
    if isinstance(x, Tracked):
        return True
    if depth > 32:
        return False
    if t is list or t is tuple or isinstance(x, tuple):
        for v in x:
            if _ad_holds_tracked(v, depth + 1):
                return True
    elif t is dict:
        for v in (<dict>x).values():
            if _ad_holds_tracked(v, depth + 1):
                return True
    return False


@cython.final
cdef class Wrapped:
    """Wrapped(f): f, callable on tracked values by its rule (see
    `chainrules.ad.wrap`).

    Called on plain values it is f.  Called on values tracked by
    chainrules.ad it uses the rule of the wrapper if one is registered for it,
    else the rule of f (`frule`/`rrule`, including rules registered with a
    config and user rules); without a rule it runs f itself on the tracked
    values (the engine traces inside).  Scalar functions with a row in the C
    table run their C kernels directly."""
    cdef void* vc
    cdef readonly object f
    cdef _ScalarRow row
    cdef bint holder          # f may hold tracked values (a closure, an object)
    cdef object gf            # what the generic engine is called with: self, or (ufunc, "__call__")
    cdef int gkind            # and how: AK_CALL, or AK_UFUNC as NumPy's own dispatch would
    cdef dict __dict__

    def __cinit__(self, f):
        if not callable(f):
            raise TypeError(f"wrap(f): f must be callable, got {type(f).__name__}")
        self.vc = cr_vc_ptr(VC_WRAPPED)
        self.f = f
        self.row = _ad_row_of(f)
        self.holder = not isinstance(f, (_ad_builtin_function, _np.ufunc, type))
        if isinstance(f, _np.ufunc):        # a wrapped ufunc: the engine sees NumPy's ufunc call
            self.gf, self.gkind = (f, "__call__"), AK_UFUNC
        else:
            self.gf, self.gkind = self, AK_CALL

    def __init__(self, f):
        object.__setattr__(self, "__wrapped__", f)
        for name in ("__name__", "__qualname__", "__doc__", "__module__"):
            value = getattr(f, name, None)
            if value is not None:
                object.__setattr__(self, name, value)

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs)

    cdef object _call(self, tuple args, dict kwargs):
        cdef Py_ssize_t n = PyTuple_GET_SIZE(args)
        if not kwargs:
            if n == 1:
                return self._call1(args[0])
            if n == 2:
                return self._call2(args[0], args[1])
        for a in args:
            if _ad_holds_tracked(a, 0):
                return _ad_generic(self.gkind, self.gf, args, kwargs)
        if kwargs:
            for a in kwargs.values():
                if _ad_holds_tracked(a, 0):
                    return _ad_generic(self.gkind, self.gf, args, kwargs)
        if self.holder:
            # the engine looks into f for values it captures
            return _ad_generic(AK_CALL, self, args, kwargs)
        return self.f(*args, **kwargs) if kwargs else self.f(*args)

    cdef inline object _call1(self, object a):
        if type(a) is float and not self.holder:
            return self.f(a)
        if isinstance(a, Tracked):
            return _ad_call1(self.row, self.gf, a, self.gkind)
        if self.holder or _ad_holds_tracked(a, 0):
            return _ad_generic(self.gkind, self.gf, (a,), None)
        return self.f(a)

    cdef inline object _call2(self, object a, object b):
        if isinstance(a, Tracked) or isinstance(b, Tracked):
            return _ad_call2(self.row, self.gf, a, b, self.gkind)
        if self.holder or _ad_holds_tracked(a, 0) or _ad_holds_tracked(b, 0):
            return _ad_generic(self.gkind, self.gf, (a, b), None)
        return self.f(a, b)

    def __getattr__(self, str name):
        # attributes the wrapper does not have are f's (a wrapped ufunc's reduce, outer, nin…)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.f, name)

    def __repr__(self):
        return f"chainrules.ad.wrap({_fname(self.f)})"

    def __reduce__(self):
        return (Wrapped, (self.f,))

    def __get__(self, obj, objtype):
        # Used as a method decorator: bind like a function.
        if obj is None:
            return self
        return _ad_functools.partial(self, obj)


cdef object _wrapped_vectorcall(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    cdef Wrapped w = <Wrapped>self
    if kwnames == NULL:
        if nargs == 1:
            return w._call1(<object>args[0])
        if nargs == 2:
            return w._call2(<object>args[0], <object>args[1])
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    return w._call(pos, kwargs)


cdef _enable_wrapped_vectorcall():
    cdef Wrapped probe = Wrapped.__new__(Wrapped, abs)
    cr_enable_vectorcall(Wrapped, <Py_ssize_t>(<char*>&probe.vc - <char*><void*>probe))

cr_vc_impls[VC_WRAPPED] = _wrapped_vectorcall
_enable_wrapped_vectorcall()


import functools as _ad_functools
