# The array namespace of a rule's arguments, the common case compiled: every
# argument an ndarray (exactly), a NumPy float64 or a Python number, or a value
# tracked by chainrules.ad whose primal is one -> NumPy.
# Anything else (another library's array, a tracked value, a list, a
# subclass) goes to chainrules._xp's Python lookup, given once at import.

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
    if t is Dual or t is Var:
        # a value tracked by chainrules.ad declares its primal's namespace
        # (chainrules.ad._namespace): NumPy for a NumPy value or a number
        return _numpy_or_number((<Tracked>x)._primal())
    return False


@cython.binding(False)
def _namespace(*xs):
    """namespace(*xs): NumPy when every argument is an ndarray, a NumPy
    float64 or a Python number (no call beyond the type checks), else the
    general lookup of chainrules._xp."""
    cdef Py_ssize_t i, n = len(xs)
    for i in range(n):
        if not _numpy_or_number(xs[i]):
            return _xp_slow_namespace(*xs)
    return _xp_numpy_module
