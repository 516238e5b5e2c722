# ---------------------------------------------------------------------------
# Compiled fast paths of the hottest array rules (issue 5: at 10 elements the
# rule's overhead over hand-written NumPy below 2x).  At that size a NumPy
# call costs ~200 ns, so every Python-level step of a rule body (closure
# cells, attribute lookups, a lambda call) shows in the ratio.
#
# _UnaryRrule serves the common call of a unary ufunc rule -- one float or
# complex ndarray, no keyword arguments -- and hands every other call (kwargs,
# scalars, array-likes, integer arrays) to the Python rule it was built from
# (`_unary` in `chainrules/rulesets/numpy_ufuncs.py`), so the behaviour is
# that rule's.  The derivative is given as in that file's table: a function
# of (x, Ω), a one-argument function of x (a ufunc: sin -> cos), or the
# output itself (exp -> Ω); the last two skip a Python-level call.
# ---------------------------------------------------------------------------

cdef enum:
    D_CALL = 0        # f'(x) = deriv(x, Ω)
    D_OF_X = 1        # f'(x) = deriv(x)
    D_OMEGA = 2       # f'(x) = Ω

cdef extern from *:
    """
    /* The leading fields of NumPy's PyArrayObject (public and ABI-stable in
       NumPy 1.x and 2.x): enough to compare two arrays' dtype and shape
       without building the `.dtype` and `.shape` objects. */
    typedef struct {
        PyObject_HEAD
        char *data;
        int nd;
        Py_ssize_t *dimensions;
        Py_ssize_t *strides;
        PyObject *base;
        PyObject *descr;
    } cr_ndarray_head;
    /* a and b are exact ndarrays: same dtype object and same shape. */
    static inline int cr_same_layout(PyObject *a, PyObject *b) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        const cr_ndarray_head *q = (const cr_ndarray_head *)b;
        if (p->descr != q->descr || p->nd != q->nd) return 0;
        for (int i = 0; i < p->nd; i++)
            if (p->dimensions[i] != q->dimensions[i]) return 0;
        return 1;
    }
    /* a is an exact ndarray: its dtype, borrowed. */
    static inline PyObject *cr_descr(PyObject *a) {
        return ((const cr_ndarray_head *)a)->descr;
    }
    /* a is an exact ndarray: its number of elements. */
    static inline Py_ssize_t cr_size(PyObject *a) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        Py_ssize_t n = 1;
        for (int i = 0; i < p->nd; i++) n *= p->dimensions[i];
        return n;
    }
    """
    bint cr_same_layout(PyObject* a, PyObject* b)
    Py_ssize_t cr_size(PyObject* a)
    PyObject* cr_descr(PyObject* a)

cdef object _conj_ufunc = _np.conj
# NumPy's built-in dtypes are singletons: identity checks are the fast test.
cdef object _F64 = _np.dtype(_np.float64)
cdef object _F32 = _np.dtype(_np.float32)
cdef object _C128 = _np.dtype(_np.complex128)
cdef object _C64 = _np.dtype(_np.complex64)


cdef class _UnaryRrule:
    """_UnaryRrule(f, deriv, mode, name, fallback): the rrule of a unary
    holomorphic (or real) ufunc; `mode` 0: deriv(x, Ω) = f'(x), 1: deriv(x) =
    f'(x), 2: f'(x) = Ω (deriv unused).  `fallback` is the Python rule for
    every call that is not `f(float or complex ndarray)`."""
    cdef readonly object f
    cdef readonly object deriv
    cdef readonly int mode
    cdef readonly str name
    cdef readonly object fallback
    cdef void* vc                # vectorcall entry: dispatch calls the rule without a tuple

    def __cinit__(self, f, deriv, int mode, str name, fallback):
        if mode < D_CALL or mode > D_OMEGA:
            raise ValueError(f"_UnaryRrule({name}): mode must be 0, 1 or 2, got {mode}")
        self.f = f
        self.deriv = deriv
        self.mode = mode
        self.name = name
        self.fallback = fallback
        self.vc = cr_vc_ptr(VC_UNARY_RRULE)

    def __call__(self, *args, **kwargs):
        if kwargs or PyTuple_GET_SIZE(args) != 1:
            return self.fallback(*args, **kwargs)
        return self._rrule1(args[0])

    cdef object _rrule1(self, object x):
        cdef bint conj
        if type(x) is not _ndarray:
            return self.fallback(x)
        cdef PyObject* dt = cr_descr(<PyObject*>x)
        if dt == <PyObject*>_F64 or dt == <PyObject*>_F32:
            conj = False
        elif dt == <PyObject*>_C128 or dt == <PyObject*>_C64:
            conj = True
        elif (<object>dt).kind == "f":
            conj = False
        elif (<object>dt).kind == "c":
            conj = True
        else:                               # integer or boolean input: NoTangent
            return self.fallback(x)
        Ω = self.f(x)
        cdef _UnaryPullback pb = _UnaryPullback.__new__(_UnaryPullback)
        pb.vc = cr_vc_ptr(VC_UNARY_PULLBACK)
        pb.rule = self
        pb.x = x
        pb.Ω = Ω
        # x is kept: its dtype and shape are what ProjectTo(x) keeps; the
        # projector itself is built only when the cotangent does not fit.
        pb.conj = conj
        return Ω, pb

    @property
    def __name__(self):
        return f"{self.name}_rrule"

    def __repr__(self):
        return f"<compiled rrule of {self.name}>"


@cython.freelist(8)
cdef class _UnaryPullback:
    """The pullback of `_UnaryRrule`: x̄ = project(conj(f'(x)) · ȳ)."""
    cdef _UnaryRrule rule
    cdef object x
    cdef object Ω
    cdef bint conj
    cdef void* vc                # vectorcall entry

    def __call__(self, *args):
        if PyTuple_GET_SIZE(args) != 1:
            raise TypeError(f"pullback of {self.rule.name}: takes one cotangent (ΔΩ), "
                            f"got {len(args)} arguments")
        return self._pull(args[0])

    cdef object _pull(self, object ȳ):
        cdef int mode = self.rule.mode
        if type(ȳ) is not _ndarray:
            if isinstance(ȳ, AbstractZero):
                return NO_TANGENT, ZERO
            ȳ = _unthunk(ȳ)
        if mode == D_OMEGA:
            d = self.Ω
        elif mode == D_OF_X:
            d = self.rule.deriv(self.x)
        else:
            d = self.rule.deriv(self.x, self.Ω)
        try:
            x̄ = (_conj_ufunc(d) if self.conj else d) * ȳ
            if type(x̄) is _ndarray and cr_same_layout(<PyObject*>x̄, <PyObject*>self.x):
                return NO_TANGENT, x̄
            return NO_TANGENT, ProjectTo.__new__(ProjectTo, self.x).project(x̄)
        except ValueError as e:
            raise ValueError(f"pullback of {self.rule.name}: a cotangent of shape {_np.shape(ȳ)} does not "
                             f"fit the output of shape {_np.shape(self.Ω)}") from e

    @property
    def __name__(self):
        return f"{self.rule.name}_pullback"

    def __repr__(self):
        return f"<pullback of {self.rule.name}>"


cdef object _unary_rrule_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 1:
        return (<_UnaryRrule>self)._rrule1(<object>args[0])
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    return (<_UnaryRrule>self).fallback(*pos, **kwargs)


cdef object _unary_pullback_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 1:
        return (<_UnaryPullback>self)._pull(<object>args[0])
    raise TypeError(f"pullback of {(<_UnaryPullback>self).rule.name}: takes one cotangent (ΔΩ), "
                    f"got {nargs + (len(<object>kwnames) if kwnames != NULL else 0)} arguments")


cdef _enable_unary_vectorcall():
    cdef _UnaryRrule rr = _UnaryRrule.__new__(_UnaryRrule, None, None, 0, "probe", None)
    cdef _UnaryPullback pb = _UnaryPullback.__new__(_UnaryPullback)
    cr_vc_impls[VC_UNARY_RRULE] = _unary_rrule_vc
    cr_vc_impls[VC_UNARY_PULLBACK] = _unary_pullback_vc
    cr_enable_vectorcall(_UnaryRrule, <Py_ssize_t>(<char*>&rr.vc - <char*><void*>rr))
    cr_enable_vectorcall(_UnaryPullback, <Py_ssize_t>(<char*>&pb.vc - <char*><void*>pb))

_enable_unary_vectorcall()


# ----- getitem on an ndarray: x[idx], the cotangent scattered back -----------
# The Python module (`numpy_shapes.py`) registers `_getitem_rrule` for
# operator.getitem and np.ndarray.__getitem__; take & co. keep their Python
# rules.  The cotangent is an InplaceableThunk (repeated indices accumulate,
# and an AD can add it into an existing array without a temporary) whose
# parts are one compiled object, `_Scatter`, instead of two closures and a
# Thunk.

cdef object _add_at = _np.add.at
cdef object _zeros = _np.zeros
cdef object _real_ufunc = _np.real


cdef bint _repeats_possible(object idx) except -1:
    """False for indices that cannot name an element twice: ints, slices,
    Ellipsis, None and a single boolean mask; True when integer arrays or
    lists are involved."""
    cdef type t = type(idx)
    if t is slice or t is int or idx is None or idx is Ellipsis:
        return False
    if t is tuple:
        for i in <tuple>idx:
            if _repeats_possible(i):
                return True
        return False
    if isinstance(idx, tuple):
        return any([_repeats_possible(i) for i in idx])
    if isinstance(idx, (int, _np.integer, slice)):
        return False
    if isinstance(idx, _ndarray) and idx.dtype == bool:
        return False
    return True


cdef object _real_for(object dtype, object v):
    """v ready to be written into an array of `dtype`: the real part for a real dtype."""
    if type(v) is _ndarray:
        vd = v.dtype
        if vd is dtype or vd is _F64 or vd is _F32:     # the common cases: nothing to do
            return v
        if vd.kind == "c" and dtype.kind != "c":
            return _real_ufunc(v)
        return v
    if dtype.kind != "c":
        vd = getattr(v, "dtype", None)
        if type(v) is complex or (vd is not None and vd.kind == "c"):
            return _real_ufunc(v)
    return v


cdef class _Scatter(AbstractThunk):
    """The cotangent of x[index]: v added at `index` of a zero array of
    x's shape and dtype (`unthunk`), or into an existing array (`add_into`)."""
    cdef object shape
    cdef object dtype
    cdef object index
    cdef object v
    cdef bint repeats

    cpdef object unthunk(self):
        dest = _zeros(self.shape, self.dtype)
        if self.repeats:
            _add_at(dest, self.index, self.v)
        else:
            dest[self.index] = self.v
        return dest

    def add_into(self, dest):
        if self.repeats:
            _add_at(dest, self.index, self.v)
        else:
            dest[self.index] += self.v
        return dest

    def __repr__(self):
        return f"<scatter into an array of shape {self.shape}>"


def _getitem_rrule(x, idx):
    """rrule of x[idx] for an ndarray x (basic, advanced and boolean indices)."""
    Ω = x[idx]
    cdef _GetitemPullback pb = _GetitemPullback.__new__(_GetitemPullback)
    pb.vc = cr_vc_ptr(VC_GETITEM_PULLBACK)
    pb.idx = idx
    pb.shape = x.shape
    cdef PyObject* dt
    if type(x) is _ndarray:             # read the header: no .dtype/.size objects
        dt = cr_descr(<PyObject*>x)
        pb.dtype = <object>dt
        pb.small = cr_size(<PyObject*>x) <= _SMALL_SCATTER
        pb.differentiable = (dt == <PyObject*>_F64 or dt == <PyObject*>_F32 or dt == <PyObject*>_C128
                             or dt == <PyObject*>_C64 or (<object>dt).kind in "fc")
    else:
        pb.dtype = x.dtype
        pb.small = x.size <= _SMALL_SCATTER
        pb.differentiable = pb.dtype.kind in "fc"
    return Ω, pb


cdef object _getitem_pullback_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 1:
        return (<_GetitemPullback>self)._pull(<object>args[0])
    raise TypeError(f"pullback of getitem: takes one cotangent (ΔΩ), "
                    f"got {nargs + (len(<object>kwnames) if kwnames != NULL else 0)} arguments")


# Below this many elements a getitem cotangent without repeated indices is
# returned dense; above, as an InplaceableThunk an AD can add in place.
cdef Py_ssize_t _SMALL_SCATTER = 1024


@cython.freelist(8)
cdef class _GetitemPullback:
    """x̄ = zeros like x with ȳ added at idx (an InplaceableThunk); NoTangent
    for an integer or boolean x and for the index."""
    cdef object idx
    cdef object shape
    cdef object dtype
    cdef bint differentiable
    cdef bint small             # x has at most _SMALL_SCATTER elements
    cdef void* vc               # vectorcall entry

    def __call__(self, *args):
        if PyTuple_GET_SIZE(args) != 1:
            raise TypeError(f"pullback of getitem: takes one cotangent (ΔΩ), got {len(args)} arguments")
        return self._pull(args[0])

    cdef object _pull(self, object ȳ):
        if not self.differentiable:
            return NO_TANGENT, NO_TANGENT, NO_TANGENT
        if isinstance(ȳ, AbstractZero):
            return NO_TANGENT, ZERO, NO_TANGENT
        v = _real_for(self.dtype, _unthunk(ȳ))
        repeats = _repeats_possible(self.idx)
        if self.small and not repeats:
            # Thunk only what is expensive: a small dense cotangent costs less
            # than the thunk that would save it.
            dest = _zeros(self.shape, self.dtype)
            dest[self.idx] = v
            return NO_TANGENT, dest, NO_TANGENT
        cdef _Scatter s = _Scatter.__new__(_Scatter)
        s.shape = self.shape
        s.dtype = self.dtype
        s.index = self.idx
        s.v = v
        s.repeats = repeats
        return NO_TANGENT, InplaceableThunk(s.add_into, s), NO_TANGENT

    @property
    def __name__(self):
        return "getitem_pullback"

    def __repr__(self):
        return "<pullback of getitem>"


cdef _enable_getitem_vectorcall():
    cdef _GetitemPullback pb = _GetitemPullback.__new__(_GetitemPullback)
    cr_vc_impls[VC_GETITEM_PULLBACK] = _getitem_pullback_vc
    cr_enable_vectorcall(_GetitemPullback, <Py_ssize_t>(<char*>&pb.vc - <char*><void*>pb))

_enable_getitem_vectorcall()
