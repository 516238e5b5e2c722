# RULE CORE: compiled fast paths of the hottest array rules (unary/binary ufunc rrules, getitem).
# ---------------------------------------------------------------------------
# Compiled fast paths of the hottest array rules (issue 5: at 10 elements the
# rule's overhead over hand-written NumPy below 2x).  At that size a NumPy
# call costs ~200 ns, so every Python-level step of a rule body (closure
# cells, attribute lookups, a lambda call) shows in the ratio.
#
# _UnaryRrule serves the common call of a unary ufunc rule -- one float or
# complex ndarray, no keyword arguments -- and hands every other call (kwargs,
# scalars, array-likes, integer arrays) to the Python rule it was built from
# (`_unary` in `chainrules/rulesets/numpy/ufuncs.py`), so the behaviour is
# that rule's.  The derivative is given as in that file's table: a function
# of (x, Ω), a one-argument function of x (a ufunc: sin -> cos), or the
# output itself (exp -> Ω); the last two skip a Python-level call.
# ---------------------------------------------------------------------------

# ----- the seed of a pullback ----------------------------------------------
# Every pullback computes with its seed through `_seed` (the Python rules
# through `pullback_seed`): unthunked, an ndarray subclass as a plain ndarray
# (np.matrix's * is a matrix product; rule bodies are element-wise), and a
# seed that is not a tangent a TypeError naming the function (issue 11: None
# gave NaN arrays).  Exact ndarrays and floats never reach the checks.

import numbers as _numbers
cdef object _Number = _numbers.Number


cdef bint _is_tangent(object v):
    """Can v be a tangent?  Numbers, NumPy arrays and scalars, the tangent
    types, containers (tuple, list, dict) and other libraries' arrays."""
    if isinstance(v, (_ndarray, _np_generic, AbstractTangent, tuple, list, dict)):
        return True
    if v is None or isinstance(v, (str, bytes, bytearray)):
        return False
    if isinstance(v, _Number):
        return True
    t = type(v)
    return hasattr(t, "__array__") or hasattr(t, "__array_namespace__")


cdef object _seed_error(object name, object v):
    got = "None" if v is None else f"a {type(v).__name__}"
    return TypeError(f"pullback of {name}: seed must be a tangent (number, array, ZeroTangent, "
                     f"Thunk, ...), got {got}")


cdef object _seed(object ȳ, object name):
    """The rare path of `pullback_seed` (ȳ is not an exact ndarray)."""
    if isinstance(ȳ, AbstractThunk):
        ȳ = _unthunk(ȳ)
    cdef type t = type(ȳ)
    if t is _ndarray or t is float or t is complex:
        return ȳ
    if isinstance(ȳ, _ndarray):
        return _np.asarray(ȳ)
    if not _is_tangent(ȳ):
        raise _seed_error(name, ȳ)
    return ȳ


def pullback_seed(ȳ, name):
    """pullback_seed(ȳ, name): the seed ȳ of the pullback of `name` as its
    body computes with it: unthunked, an ndarray subclass (np.matrix) viewed
    as a plain ndarray.  A seed that is not a tangent (None, a str, an
    object()) is a TypeError naming the function; zeros pass through."""
    if type(ȳ) is _ndarray:
        return ȳ
    return _seed(ȳ, name)


cdef enum:
    D_CALL = 0        # f'(x) = deriv(x, Ω)
    D_OF_X = 1        # f'(x) = deriv(x)
    D_OMEGA = 2       # f'(x) = Ω

cdef object _conj_ufunc = _np.conj


cdef inline object _project_like(object v, object x):
    """ProjectTo(x)(v) for an exact ndarray x, with no projector built when v
    already has x's dtype and shape (the common case)."""
    if type(v) is _ndarray and cr_same_layout(<PyObject*>v, <PyObject*>x):
        return v
    return ProjectTo.__new__(ProjectTo, x).project(v)


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
        if type(x) is not _ndarray:
            return self.fallback(x)
        cdef int kind = _descr_kind(cr_descr(<PyObject*>x))
        if kind == DK_OTHER:                # integer or boolean input: NoTangent
            return self.fallback(x)
        Ω = self.f(x)
        cdef _UnaryPullback pb = _UnaryPullback.__new__(_UnaryPullback)
        pb.vc = cr_vc_ptr(VC_UNARY_PULLBACK)
        pb.rule = self
        pb.x = x
        pb.Ω = Ω
        # x is kept: its dtype and shape are what ProjectTo(x) keeps; the
        # projector itself is built only when the cotangent does not fit.
        pb.conj = kind == DK_COMPLEX
        return Ω, pb

    @property
    def __name__(self):
        return f"{self.name}_rrule"

    def __repr__(self):
        return f"<compiled rrule of {self.name}>"


@cython.freelist(8)
cdef class _UnaryPullback(_CompiledPullback):
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
            ȳ = _seed(ȳ, self.rule.name)
        if mode == D_OMEGA:
            d = self.Ω
        elif mode == D_OF_X:
            d = self.rule.deriv(self.x)
        else:
            d = self.rule.deriv(self.x, self.Ω)
        try:
            return NO_TANGENT, _project_like((_conj_ufunc(d) if self.conj else d) * ȳ, self.x)
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


# ----- the one unbroadcast --------------------------------------------------

cdef object _add_reduce = _np.add.reduce
cdef object _np_sum = _np.sum
cdef object _broadcast_to = _np.broadcast_to


def broadcast_view(v, shape):
    """`np.broadcast_to(v, shape)`: a read-only view, nothing copied; for an
    ndarray v made directly through NumPy's C API (np.broadcast_to's Python
    layer costs more than a whole small-array rule)."""
    if type(v) is _ndarray and type(shape) is tuple:
        view = cr_broadcast_view(<PyObject*>v, <PyObject*>shape)
        if view is not None:
            return view
    return _broadcast_to(v, shape)


def unbroadcast(x, dx):
    """Sum the cotangent `dx` of a broadcast result back to the shape of the
    input `x` (an array, a scalar, or a shape tuple).

    Leading axes that broadcasting added are summed away, axes where `x` has
    length 1 are summed with keepdims.  Zeros pass through.  The dtype is left
    to the caller's `ProjectTo`."""
    if isinstance(dx, AbstractZero):
        return dx
    if type(dx) is not _ndarray:
        dx = _unthunk(dx)
    cdef bint xa = type(x) is _ndarray
    cdef bint da = type(dx) is _ndarray
    if xa and da and cr_same_dims(<PyObject*>x, <PyObject*>dx):
        return dx                                   # the common case: nothing to sum
    shape = x.shape if xa else x if isinstance(x, tuple) else _np.shape(x)
    dshape = dx.shape if da else _np.shape(dx)
    if dshape == shape:
        return dx
    # np.sum of an ndarray is np.add.reduce without the Python-level wrapper
    reduce = _add_reduce if da else _np_sum
    cdef Py_ssize_t extra = len(dshape) - len(shape)
    if extra < 0:
        return broadcast_view(dx, shape)
    if extra:
        dx = reduce(dx, axis=tuple(range(extra)))
        dshape = dshape[extra:]
    axes = tuple([i for i, n in enumerate(shape) if n == 1 and dshape[i] != 1])
    if axes:
        dx = reduce(dx, axis=axes, keepdims=True)
    return dx


# ----- binary arithmetic: add, subtract, multiply, divide ---------------------
# _BinaryRrule serves f(x, y) for two float or complex ndarrays without
# keyword arguments; every other call goes to the Python rule it was built
# from (`_binary`/`_addsub` in numpy/ufuncs_binary.py).  Its pullback handles a seed
# that is an ndarray of the output's shape (or a thunk of one, or a zero);
# any other seed goes to the Python rule's pullback, `slow(x, y, Ω)`, so the
# behaviour (and the errors) are that rule's.

cdef enum:
    B_ADD = 0
    B_SUB = 1
    B_MUL = 2
    B_DIV = 3

# Below this many output elements the cotangents are computed in the
# pullback; above, the ones that cost arithmetic are thunked.
cdef Py_ssize_t _SMALL_BINARY = 1024


cdef class _BinaryRrule:
    """_BinaryRrule(f, op, name, fallback, slow): the rrule of x + y, x - y,
    x * y or x / y (op 0..3) on float or complex ndarrays; `fallback(x, y,
    **kw)` is the Python rrule, `slow(x, y, Ω)` its pullback."""
    cdef readonly object f
    cdef readonly int op
    cdef readonly str name
    cdef readonly object fallback
    cdef readonly object slow
    cdef void* vc                # vectorcall entry

    def __cinit__(self, f, int op, str name, fallback, slow):
        if op < B_ADD or op > B_DIV:
            raise ValueError(f"_BinaryRrule({name}): op must be 0, 1, 2 or 3, got {op}")
        self.f = f
        self.op = op
        self.name = name
        self.fallback = fallback
        self.slow = slow
        self.vc = cr_vc_ptr(VC_BINARY_RRULE)

    def __call__(self, *args, **kwargs):
        if kwargs or PyTuple_GET_SIZE(args) != 2:
            return self.fallback(*args, **kwargs)
        return self._rrule2(args[0], args[1])

    cdef object _rrule2(self, object x, object y):
        if (type(x) is not _ndarray or type(y) is not _ndarray
                or not _inexact_descr(cr_descr(<PyObject*>x)) or not _inexact_descr(cr_descr(<PyObject*>y))):
            return self.fallback(x, y)
        Ω = self.f(x, y)
        if type(Ω) is not _ndarray:         # 0-d inputs give a NumPy scalar
            return Ω, self.slow(x, y, Ω)
        cdef _BinaryPullback pb = _BinaryPullback.__new__(_BinaryPullback)
        pb.vc = cr_vc_ptr(VC_BINARY_PULLBACK)
        pb.rule = self
        pb.x = x                # x and y are kept: their dtype and shape are
        pb.y = y                # what ProjectTo keeps (see _UnaryRrule)
        pb.Ω = Ω
        pb.cplx = _descr_kind(cr_descr(<PyObject*>Ω)) == DK_COMPLEX
        return Ω, pb

    @property
    def __name__(self):
        return f"{self.name}_rrule"

    def __repr__(self):
        return f"<compiled rrule of {self.name}>"


cdef object _fit_to(object v, object x):
    """The cotangent v of a broadcast output, made x's: summed back to x's
    shape and projected to its dtype (no work when it already fits)."""
    if type(v) is _ndarray and cr_same_layout(<PyObject*>v, <PyObject*>x):
        return v
    return _project_like(unbroadcast(x, v), x)


@cython.freelist(8)
cdef class _BinaryPullback(_CompiledPullback):
    """The pullback of `_BinaryRrule`: x̄ = unbroadcast(conj(∂Ω/∂x) · ȳ) and
    the same for y, each projected."""
    cdef _BinaryRrule rule
    cdef object x
    cdef object y
    cdef object Ω
    cdef bint cplx               # Ω is complex: the partials are conjugated
    cdef void* vc                # vectorcall entry

    def __call__(self, *args):
        if PyTuple_GET_SIZE(args) != 1:
            raise TypeError(f"pullback of {self.rule.name}: takes one cotangent (ΔΩ), "
                            f"got {len(args)} arguments")
        return self._pull(args[0])

    cdef object _pull(self, object ȳ):
        if type(ȳ) is not _ndarray:
            if isinstance(ȳ, AbstractZero):
                return NO_TANGENT, ZERO, ZERO
            ȳ = _seed(ȳ, self.rule.name)
            if type(ȳ) is not _ndarray:
                return self.rule.slow(self.x, self.y, self.Ω)(ȳ)
        if not cr_same_dims(<PyObject*>ȳ, <PyObject*>self.Ω):
            return self.rule.slow(self.x, self.y, self.Ω)(ȳ)
        # Thunk only what is expensive: below _SMALL_BINARY output elements
        # every cotangent is computed here; above, the ones that cost arithmetic
        # (a product, a negation, a sum over broadcast axes) are thunked.
        cdef bint now = cr_size(<PyObject*>self.Ω) <= _SMALL_BINARY
        return NO_TANGENT, self.part(0, ȳ, now), self.part(1, ȳ, now)

    cdef object part(self, int i, object ȳ, bint now):
        """The cotangent of input i: computed if `now` or if it is ȳ itself
        in the input's layout (add, subtract), else a Thunk."""
        cdef int op = self.rule.op
        x = self.x if i == 0 else self.y
        if op == B_ADD or (op == B_SUB and i == 0):
            if now or cr_same_layout(<PyObject*>ȳ, <PyObject*>x):
                return _fit_to(ȳ, x)
        elif now:
            return _fit_to(-ȳ if op == B_SUB else self.times(i, ȳ), x)
        return Thunk(_BinaryPart(self, i, ȳ))

    cdef object times(self, int i, object ȳ):
        """conj(∂Ω/∂input_i) · ȳ for multiply and divide."""
        cdef bint cplx = self.cplx
        if self.rule.op == B_MUL:                       # ∂(xy)/∂x = y, ∂(xy)/∂y = x
            d = self.y if i == 0 else self.x
            return (_conj_ufunc(d) if cplx else d) * ȳ
        if i == 0:                                      # ∂(x/y)/∂x = 1/y
            return ȳ / (_conj_ufunc(self.y) if cplx else self.y)
        d = self.Ω / self.y                             # ∂(x/y)/∂y = -Ω/y
        return -((_conj_ufunc(d) if cplx else d) * ȳ)

    @property
    def __name__(self):
        return f"{self.rule.name}_pullback"

    def __repr__(self):
        return f"<pullback of {self.rule.name}>"


@cython.final
cdef class _BinaryPart:
    """One input's cotangent of a `_BinaryPullback`, computed when called
    (the function of its Thunk)."""
    cdef _BinaryPullback pb
    cdef int i
    cdef object ȳ

    def __cinit__(self, _BinaryPullback pb not None, int i, ȳ):
        self.pb = pb
        self.i = i
        self.ȳ = ȳ

    def __call__(self):
        return self.pb.part(self.i, self.ȳ, True)

    def __repr__(self):
        return f"<cotangent {self.i} of {self.pb.rule.name}>"


cdef object _binary_rrule_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 2:
        return (<_BinaryRrule>self)._rrule2(<object>args[0], <object>args[1])
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    return (<_BinaryRrule>self).fallback(*pos, **kwargs)


cdef object _binary_pullback_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 1:
        return (<_BinaryPullback>self)._pull(<object>args[0])
    raise TypeError(f"pullback of {(<_BinaryPullback>self).rule.name}: takes one cotangent (ΔΩ), "
                    f"got {nargs + (len(<object>kwnames) if kwnames != NULL else 0)} arguments")


cdef _enable_binary_vectorcall():
    cdef _BinaryRrule rr = _BinaryRrule.__new__(_BinaryRrule, None, 0, "probe", None, None)
    cdef _BinaryPullback pb = _BinaryPullback.__new__(_BinaryPullback)
    cr_vc_impls[VC_BINARY_RRULE] = _binary_rrule_vc
    cr_vc_impls[VC_BINARY_PULLBACK] = _binary_pullback_vc
    cr_enable_vectorcall(_BinaryRrule, <Py_ssize_t>(<char*>&rr.vc - <char*><void*>rr))
    cr_enable_vectorcall(_BinaryPullback, <Py_ssize_t>(<char*>&pb.vc - <char*><void*>pb))

_enable_binary_vectorcall()


# ----- getitem on an ndarray: x[idx], the cotangent scattered back -----------
# The Python module (`numpy/indexing.py`) registers `_getitem_rrule` for
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
    cdef PyObject* vdt
    if type(v) is _ndarray:
        vdt = cr_descr(<PyObject*>v)
        if vdt == <PyObject*>dtype or vdt == <PyObject*>_F64 or vdt == <PyObject*>_F32:
            return v                    # the common cases: nothing to do
        vd = <object>vdt
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
    cdef PyObject* dt
    if type(x) is _ndarray:
        # read the header: x is kept (its shape and dtype are what the
        # cotangent takes), no .shape/.dtype/.size objects are made
        dt = cr_descr(<PyObject*>x)
        pb.x = x
        pb.small = cr_size(<PyObject*>x) <= _SMALL_SCATTER
        pb.differentiable = _inexact_descr(dt)
    else:                               # a subclass: its own attributes
        pb.shape = x.shape
        pb.dtype = x.dtype
        pb.small = x.size <= _SMALL_SCATTER
        pb.differentiable = pb.dtype.kind in "fc"
    return Ω, pb


cdef object _getitem_pullback_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 1:
        return (<_GetitemPullback>self)._pull(<object>args[0])
    raise TypeError(f"pullback of getitem: takes one cotangent (ΔΩ), "
                    f"got {nargs + (len(<object>kwnames) if kwnames != NULL else 0)} arguments")


cdef object _getitem_tracked_pullback = None     # set by chainrules.rulesets.numpy.indexing


def _set_getitem_tracked_pullback(fn):
    """Install the pullback of x[idx] for a cotangent tracked by chainrules.ad
    (`fn(x, idx, ȳ)` -> (NoTangent(), x̄, NoTangent()); chainrules internal)."""
    global _getitem_tracked_pullback
    _getitem_tracked_pullback = fn


# Below this many elements a getitem cotangent without repeated indices is
# returned dense; above, as an InplaceableThunk an AD can add in place.
cdef Py_ssize_t _SMALL_SCATTER = 1024


@cython.freelist(8)
cdef class _GetitemPullback(_CompiledPullback):
    """x̄ = zeros like x with ȳ added at idx (an InplaceableThunk); NoTangent
    for an integer or boolean x and for the index."""
    cdef object idx
    cdef object x               # an exact ndarray x; else None and:
    cdef object shape           # x's shape
    cdef object dtype           # and dtype
    cdef bint differentiable
    cdef bint small             # x has at most _SMALL_SCATTER elements
    cdef void* vc               # vectorcall entry

    def __call__(self, *args):
        if PyTuple_GET_SIZE(args) != 1:
            raise TypeError(f"pullback of getitem: takes one cotangent (ΔΩ), got {len(args)} arguments")
        return self._pull(args[0])

    cdef object _pull(self, object ȳ):
        if not self.differentiable:
            if type(ȳ) is not _ndarray and not isinstance(ȳ, AbstractZero):
                _seed(ȳ, "getitem")
            return NO_TANGENT, NO_TANGENT, NO_TANGENT
        if type(ȳ) is not _ndarray:
            if isinstance(ȳ, AbstractZero):
                return NO_TANGENT, ZERO, NO_TANGENT
            ȳ = _seed(ȳ, "getitem")
            if _is_traced(ȳ) and _getitem_tracked_pullback is not None:
                # a cotangent an enclosing differentiation tracks (a mixed partial: the
                # indexed array is plain here): scattered back by the array-API rule,
                # whose body that differentiation records (no writes into arrays)
                x = self.x if self.x is not None else _zeros(self.shape, self.dtype)
                return _getitem_tracked_pullback(x, self.idx, ȳ)
        x = self.x
        dtype = self.dtype if x is None else <object>cr_descr(<PyObject*>x)
        v = _real_for(dtype, ȳ)
        repeats = _repeats_possible(self.idx)
        if self.small and not repeats:
            # Thunk only what is expensive: a small dense cotangent costs less
            # than the thunk that would save it.
            dest = _zeros(self.shape, dtype) if x is None else cr_zeros_like(<PyObject*>x)
            dest[self.idx] = v
            return NO_TANGENT, dest, NO_TANGENT
        cdef _Scatter s = _Scatter.__new__(_Scatter)
        s.shape = self.shape if x is None else x.shape
        s.dtype = dtype
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
