# AD ENGINE: ad.compile's environment checks (what a compiled program depends on besides its inputs).
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 4b: the environment of a program
# of chainrules.ad.compile -- what it depends on besides its inputs, found by
# chainrules/ad/_compile_env.py and checked here on every call (the fast
# entry's included, ad_compile.pxi): identity checks, numbers by their bits.
# ---------------------------------------------------------------------------

cdef extern from "Python.h":
    PyObject* PyCell_GET(PyObject* cell)
    PyObject* _env_get "PyDict_GetItemWithError" (PyObject* d, PyObject* key)   # str keys: no error
    PyObject* _env_item "PyTuple_GET_ITEM" (object t, Py_ssize_t i)
    PyObject* PyFunction_GET_CODE(PyObject* f)
    PyObject* PyFunction_GET_DEFAULTS(PyObject* f)
    PyObject* PyFunction_GET_KW_DEFAULTS(PyObject* f)
    ctypedef struct _EnvType "PyTypeObject":
        PyObject* tp_dict

cdef object _ENV_ABSENT = object()      # a name not bound (a builtin's name, an unset slot)


def _compile_env_absent():
    """The value an environment records for a name not bound."""
    return _ENV_ABSENT


def _compile_type_dict(type cls):
    """The dict behind cls.__dict__ (a mappingproxy): where a class's
    attributes live, checked by the environment like a module's globals."""
    cdef PyObject* d = (<_EnvType*>cls).tp_dict
    if d == NULL:
        raise TypeError(f"_compile_type_dict: {cls.__qualname__} has no attribute dict")
    return <object>d


cdef inline bint _env_same(PyObject* now, PyObject* expected):
    """now (NULL: not bound) is the value recorded: the same object, or a
    number of the same type and the same bits (`_same_double`: 0.0 is not
    -0.0, as `atan2(z, -1)` tells; a NaN is a NaN)."""
    if now == expected:
        return True
    return _env_same_value(now, <object>expected)


cdef bint _env_same_value(PyObject* now, object expected):
    if now == NULL:
        return expected is _ENV_ABSENT
    t = type(expected)
    if type(<object>now) is not t:
        return False
    if t is float:
        return _same_double(PyFloat_AS_DOUBLE(<object>now), PyFloat_AS_DOUBLE(expected))
    if t is complex:
        return _same_double(PyComplex_RealAsDouble(<object>now), PyComplex_RealAsDouble(expected)) and \
            _same_double(PyComplex_ImagAsDouble(<object>now), PyComplex_ImagAsDouble(expected))
    if t is int or t is bool:
        return bool(<object>now == expected)
    if issubclass(t, _np.number):
        return (<object>now).tobytes() == expected.tobytes()
    return False


cdef inline PyObject* _or_none(PyObject* p) noexcept:
    return p if p != NULL else <PyObject*>None


cdef bint _env_holds(object env):
    """The environment env (chainrules/ad/_compile_env.py: None, or (groups,
    cells, their values, functions, slots): groups a tuple of (dict, names,
    values), functions flat (function, __code__, __defaults__,
    __kwdefaults__) quadruples, slots flat (object, name, value) triples)
    holds the values recorded.  Borrowed references throughout: env keeps
    them alive."""
    if env is None:
        return True
    cdef tuple groups = <tuple>_env_item(env, 0)
    cdef tuple cells = <tuple>_env_item(env, 1)
    cdef tuple cvalues = <tuple>_env_item(env, 2)
    cdef tuple funcs = <tuple>_env_item(env, 3)
    cdef tuple slots = <tuple>_env_item(env, 4)
    cdef Py_ssize_t i, j
    cdef PyObject* d
    cdef PyObject* fn
    cdef tuple names, values
    for i in range(0, PyTuple_GET_SIZE(funcs), 4):
        fn = _env_item(funcs, i)
        if PyFunction_GET_CODE(fn) != _env_item(funcs, i + 1) or \
                _or_none(PyFunction_GET_DEFAULTS(fn)) != _env_item(funcs, i + 2) or \
                _or_none(PyFunction_GET_KW_DEFAULTS(fn)) != _env_item(funcs, i + 3):
            return False
    for i in range(PyTuple_GET_SIZE(groups)):
        group = <tuple>_env_item(groups, i)
        d = _env_item(group, 0)
        names = <tuple>_env_item(group, 1)
        values = <tuple>_env_item(group, 2)
        for j in range(PyTuple_GET_SIZE(names)):
            if not _env_same(_env_get(d, _env_item(names, j)), _env_item(values, j)):
                return False
    for i in range(PyTuple_GET_SIZE(cells)):
        if not _env_same(PyCell_GET(_env_item(cells, i)), _env_item(cvalues, i)):
            return False
    for i in range(0, PyTuple_GET_SIZE(slots), 3):
        try:
            v = getattr(<object>_env_item(slots, i), <object>_env_item(slots, i + 1))
        except AttributeError:
            v = _ENV_ABSENT
        if not _env_same(<PyObject*>v, _env_item(slots, i + 2)):
            return False
    return True


def _compile_env_holds(env):
    """The environment env still holds (chainrules.ad.compile)."""
    return _env_holds(env)
