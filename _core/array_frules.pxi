# RULE CORE: compiled frules of the hottest array rules (forward twins of array_rules.pxi).
# ---------------------------------------------------------------------------
# Compiled frules of the hottest array rules, the forward twins of
# array_rules.pxi's _UnaryRrule and _BinaryRrule (their modes, ops and
# helpers): forward mode and nested differentiation call them on every
# operation on tracked arrays.
# ---------------------------------------------------------------------------

# ----- the frules of the same ufuncs ------------------------------------------
# Forward mode's common call -- frule((Δself, Δx), f, x) with x a float or
# complex ndarray and Δx an ndarray of x's dtype and shape -- compiled the same
# way: ΔΩ = f'(x)·Δx (holomorphic: no conjugate).  Every other call goes to the
# Python frule it was built from.  A nested derivative makes these calls: the
# rules an enclosing differentiation traces compute on Duals of ndarrays, and
# each operation on those is an frule on the plain arrays underneath.

cdef inline bint _tangent_of(object Δ, object x):
    """Δ is an ndarray with x's dtype and shape (x an exact ndarray)."""
    return type(Δ) is _ndarray and cr_same_layout(<PyObject*>Δ, <PyObject*>x)


cdef class _UnaryFrule:
    """_UnaryFrule(f, deriv, mode, name, fallback): the frule of a unary
    holomorphic (or real) ufunc; `mode` and `deriv` as in `_UnaryRrule`.
    `fallback(tangents, x, **kw)` is the Python frule, for every call that is
    not f(float or complex ndarray) with a tangent of x's layout."""
    cdef readonly object f
    cdef readonly object deriv
    cdef readonly int mode
    cdef readonly str name
    cdef readonly object fallback
    cdef void* vc                # vectorcall entry

    def __cinit__(self, f, deriv, int mode, str name, fallback):
        if mode < D_CALL or mode > D_OMEGA:
            raise ValueError(f"_UnaryFrule({name}): mode must be 0, 1 or 2, got {mode}")
        self.f = f
        self.deriv = deriv
        self.mode = mode
        self.name = name
        self.fallback = fallback
        self.vc = cr_vc_ptr(VC_UNARY_FRULE)

    def __call__(self, *args, **kwargs):
        if kwargs or PyTuple_GET_SIZE(args) != 2:
            return self.fallback(*args, **kwargs)
        return self._frule1(args[0], args[1])

    cdef object _frule1(self, object tangents, object x):
        if (type(tangents) is not tuple or PyTuple_GET_SIZE(tangents) != 2 or type(x) is not _ndarray
                or not _inexact_descr(cr_descr(<PyObject*>x))):
            return self.fallback(tangents, x)
        Δx = (<tuple>tangents)[1]
        if not _tangent_of(Δx, x):
            return self.fallback(tangents, x)
        Ω = self.f(x)
        if self.mode == D_OMEGA:
            d = Ω
        elif self.mode == D_OF_X:
            d = self.deriv(x)
        else:
            d = self.deriv(x, Ω)
        return Ω, d * Δx

    @property
    def __name__(self):
        return f"{self.name}_frule"

    def __repr__(self):
        return f"<compiled frule of {self.name}>"


cdef object _unary_frule_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 2:
        return (<_UnaryFrule>self)._frule1(<object>args[0], <object>args[1])
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    return (<_UnaryFrule>self).fallback(*pos, **kwargs)


cdef class _BinaryFrule:
    """_BinaryFrule(f, op, name, fallback): the frule of x + y, x - y, x * y or
    x / y (op as in `_BinaryRrule`) on float or complex ndarrays whose tangents
    are ndarrays of their layout or zeros, when the result's tangent has the
    output's layout (no broadcasting); `fallback(tangents, x, y, **kw)`, the
    Python frule, takes every other call.  The arithmetic is that rule's,
    term by term."""
    cdef readonly object f
    cdef readonly int op
    cdef readonly str name
    cdef readonly object fallback
    cdef void* vc                # vectorcall entry

    def __cinit__(self, f, int op, str name, fallback):
        if op < B_ADD or op > B_DIV:
            raise ValueError(f"_BinaryFrule({name}): op must be 0, 1, 2 or 3, got {op}")
        self.f = f
        self.op = op
        self.name = name
        self.fallback = fallback
        self.vc = cr_vc_ptr(VC_BINARY_FRULE)

    def __call__(self, *args, **kwargs):
        if kwargs or PyTuple_GET_SIZE(args) != 3:
            return self.fallback(*args, **kwargs)
        return self._frule2(args[0], args[1], args[2])

    cdef object _frule2(self, object tangents, object x, object y):
        if (type(tangents) is not tuple or PyTuple_GET_SIZE(tangents) != 3
                or type(x) is not _ndarray or type(y) is not _ndarray
                or not _inexact_descr(cr_descr(<PyObject*>x)) or not _inexact_descr(cr_descr(<PyObject*>y))):
            return self.fallback(tangents, x, y)
        Δx = (<tuple>tangents)[1]
        Δy = (<tuple>tangents)[2]
        cdef bint zx = isinstance(Δx, AbstractZero), zy = isinstance(Δy, AbstractZero)
        if (zx and zy) or not (zx or _tangent_of(Δx, x)) or not (zy or _tangent_of(Δy, y)):
            return self.fallback(tangents, x, y)
        Ω = self.f(x, y)
        if type(Ω) is not _ndarray:                 # 0-d inputs give a NumPy scalar
            return self.fallback(tangents, x, y)
        cdef int op = self.op
        if op == B_ADD or op == B_SUB:
            if zy:
                ΔΩ = Δx
            elif zx:
                ΔΩ = Δy if op == B_ADD else -Δy
            else:
                ΔΩ = self.f(Δx, Δy)
        elif op == B_MUL:                           # y·Δx + x·Δy
            if zy:
                ΔΩ = y * Δx
            elif zx:
                ΔΩ = x * Δy
            else:
                ΔΩ = y * Δx + x * Δy
        else:                                       # (1/y)·Δx + (-Ω/y)·Δy
            if zy:
                ΔΩ = (1 / y) * Δx
            elif zx:
                ΔΩ = (-Ω / y) * Δy
            else:
                ΔΩ = (1 / y) * Δx + (-Ω / y) * Δy
        if type(ΔΩ) is not _ndarray or not cr_same_layout(<PyObject*>ΔΩ, <PyObject*>Ω):
            return self.fallback(tangents, x, y)    # broadcast or another dtype: the rule fits it
        return Ω, ΔΩ

    @property
    def __name__(self):
        return f"{self.name}_frule"

    def __repr__(self):
        return f"<compiled frule of {self.name}>"


cdef object _binary_frule_vc(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    if kwnames == NULL and nargs == 3:
        return (<_BinaryFrule>self)._frule2(<object>args[0], <object>args[1], <object>args[2])
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    return (<_BinaryFrule>self).fallback(*pos, **kwargs)


cdef _enable_frule_vectorcall():
    cdef _UnaryFrule uf = _UnaryFrule.__new__(_UnaryFrule, None, None, 0, "probe", None)
    cdef _BinaryFrule bf = _BinaryFrule.__new__(_BinaryFrule, None, 0, "probe", None)
    cr_vc_impls[VC_UNARY_FRULE] = _unary_frule_vc
    cr_vc_impls[VC_BINARY_FRULE] = _binary_frule_vc
    cr_enable_vectorcall(_UnaryFrule, <Py_ssize_t>(<char*>&uf.vc - <char*><void*>uf))
    cr_enable_vectorcall(_BinaryFrule, <Py_ssize_t>(<char*>&bf.vc - <char*><void*>bf))

_enable_frule_vectorcall()
