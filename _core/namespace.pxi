# RULE CORE: the array namespace of a rule's arguments, the common case compiled.
# The array namespace of a rule's arguments, the common case compiled: every
# argument an ndarray (exactly), a NumPy float64 or a Python number, or a value
# tracked by chainrules.ad whose primal is one -> NumPy.
# Anything else (another library's array, a tracked value, a list, a
# subclass) goes to chainrules._xp's Python lookup, given once at import.
#
# `_namespace` is a METH_FASTCALL builtin written in C (issue 12's "≤ 30 ns
# per rule" bench row): CPython calls it without building an argument tuple
# (Cython's `def f(*xs)` is METH_VARARGS, a tuple per call), and its loop
# answers the exact types by pointer comparison before any other work.

cdef object _xp_numpy_module = _np
cdef type _np_float64 = _np.float64
cdef object _xp_slow_namespace = None


def _set_namespace_fallback(slow):
    """Install `slow(*xs)`, the general lookup (chainrules._xp)."""
    global _xp_slow_namespace
    _xp_slow_namespace = slow


cdef bint _numpy_or_number(object x):
    cdef object t = type(x)
    if t is _ndarray or t is float or t is _np_float64 or t is int or t is complex:
        return True
    if _is_traced(x):
        # a traced value declares its primal's namespace (the reference AD's:
        # chainrules.ad._namespace): NumPy for a NumPy value or a number
        return _numpy_or_number(_untraced(x))
    return False


cdef object _namespace_rest(PyObject** xs, Py_ssize_t n):
    """The lookup past the C loop's exact types: tracked values of NumPy
    values, else the general lookup."""
    cdef Py_ssize_t i
    for i in range(n):
        if not _numpy_or_number(<object>xs[i]):
            return _xp_slow_namespace(*_pack(xs, 0, n))
    return _xp_numpy_module


cdef extern from *:
    """
    typedef PyObject *(*cr_ns_rest_impl)(PyObject **, Py_ssize_t);
    static cr_ns_rest_impl cr_ns_rest = NULL;
    static PyObject *cr_ns_numpy = NULL;          /* borrowed: the module keeps numpy alive */
    static PyTypeObject *cr_ns_fast[2] = {NULL, NULL};   /* ndarray, numpy.float64 */
    static PyObject *cr_namespace_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            PyTypeObject *t = Py_TYPE(args[i]);
            if (t != cr_ns_fast[0] && t != &PyFloat_Type && t != cr_ns_fast[1]
                    && t != &PyLong_Type && t != &PyComplex_Type)
                return cr_ns_rest((PyObject **)args, nargs);
        }
        Py_INCREF(cr_ns_numpy);
        return cr_ns_numpy;
    }
    static PyMethodDef cr_namespace_def = {
        "_namespace", (PyCFunction)(void (*)(void))cr_namespace_fast, METH_FASTCALL, NULL};
    static PyObject *cr_make_namespace(PyObject *numpy, PyObject *ndarray, PyObject *float64,
                                       cr_ns_rest_impl rest, PyObject *doc, PyObject *modname) {
        cr_ns_numpy = numpy;
        cr_ns_fast[0] = (PyTypeObject *)ndarray;
        cr_ns_fast[1] = (PyTypeObject *)float64;
        cr_ns_rest = rest;
        cr_namespace_def.ml_doc = PyUnicode_AsUTF8(doc);   /* doc is kept alive by the module */
        return PyCFunction_NewEx(&cr_namespace_def, NULL, modname);
    }
    """
    ctypedef object (*cr_ns_rest_impl)(PyObject**, Py_ssize_t)
    object cr_make_namespace(object numpy, object ndarray, object float64, cr_ns_rest_impl rest,
                             object doc, object modname)


_NAMESPACE_DOC = """namespace(*xs): NumPy when every argument is an ndarray, a NumPy
float64 or a Python number (no call beyond the type checks), else the
general lookup of chainrules._xp."""
_namespace = cr_make_namespace(_xp_numpy_module, _ndarray, _np_float64, _namespace_rest,
                               _NAMESPACE_DOC, __name__)
