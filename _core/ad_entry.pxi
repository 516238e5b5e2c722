# AD ENGINE: compiled entry points of ad.gradient/value_and_gradient/derivative for a real scalar.
# ---------------------------------------------------------------------------
# The entry points of chainrules.ad for a real scalar (issue 13): gradient(f,
# x), value_and_gradient(f, x) and derivative(f, x) of a Python float are
# compiled callables, so that the common inner-loop call runs no Python frame
# before the engine's C loop.  Every other call is the Python function itself
# (chainrules/ad/reverse.py, forward.py), which this one wraps: its
# docstring, name and signature (through __wrapped__) are the function's.
# ---------------------------------------------------------------------------

cdef enum:
    AE_GRADIENT = 0
    AE_VALUE_AND_GRADIENT = 1
    AE_DERIVATIVE = 2


@cython.final
cdef class _ScalarEntry:
    """An entry point of chainrules.ad: the wrapped Python function, with a
    compiled path for `(f, x)` where x is a Python float."""
    cdef void* vc
    cdef int mode
    cdef object general
    cdef object finish
    cdef object by_rule
    cdef dict __dict__

    def __call__(self, *args, **kwargs):
        return self.general(*args, **kwargs)

    cdef inline object _scalar(self, object f, object x):
        if self.mode == AE_GRADIENT:
            return _ad_gradient_scalar_c(f, PyFloat_AS_DOUBLE(x), self.finish, self.by_rule)
        if self.mode == AE_VALUE_AND_GRADIENT:
            return _ad_value_and_gradient_scalar_c(f, PyFloat_AS_DOUBLE(x), self.finish, self.by_rule)
        return _ad_derivative_scalar_c(f, PyFloat_AS_DOUBLE(x), self.finish, self.by_rule)

    def __repr__(self):
        return repr(self.general)

    def __reduce__(self):
        return self.general.__qualname__


cdef object _entry_vectorcall(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    cdef _ScalarEntry e = <_ScalarEntry>self
    if kwnames == NULL and nargs == 2 and type(<object>args[1]) is float:
        return e._scalar(<object>args[0], <object>args[1])
    return cr_vcall_kw(e.general, args, nargs, kwnames)


def _ad_scalar_entry(general, int mode, finish, by_rule):
    """The compiled entry point wrapping `general` (chainrules.ad internal):
    mode 0 gradient, 1 value_and_gradient, 2 derivative, with the engine's
    `finish` and `by_rule` callbacks (see _ad_gradient_scalar)."""
    cdef _ScalarEntry e = _ScalarEntry.__new__(_ScalarEntry)
    e.vc = cr_vc_ptr(VC_AD_ENTRY)
    e.mode = mode
    e.general = general
    e.finish = finish
    e.by_rule = by_rule
    object.__setattr__(e, "__wrapped__", general)
    for name in ("__name__", "__qualname__", "__doc__", "__module__"):
        object.__setattr__(e, name, getattr(general, name))
    return e


cdef extern from *:
    """
    static PyObject *cr_vcall_kw(PyObject *f, PyObject **args, Py_ssize_t n, PyObject *kwnames) {
        return PyObject_Vectorcall(f, (PyObject *const *)args, (size_t)n, kwnames);
    }
    """
    object cr_vcall_kw(object f, PyObject** args, Py_ssize_t n, PyObject* kwnames)


cdef _enable_entry_vectorcall():
    cdef _ScalarEntry probe = _ScalarEntry.__new__(_ScalarEntry)
    cr_enable_vectorcall(_ScalarEntry, <Py_ssize_t>(<char*>&probe.vc - <char*><void*>probe))

cr_vc_impls[VC_AD_ENTRY] = _entry_vectorcall
_enable_entry_vectorcall()
