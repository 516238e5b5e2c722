# RULE CORE: traced values — the registry of the types AD engines trace (register_traced_type, is_traced, untraced, when_traced); rules use only these names, never an engine's type.
# ---------------------------------------------------------------------------
# A rule evaluated inside a differentiation (a rule differentiated by an
# enclosing one: second and higher derivatives) receives the values that
# engine traces instead of plain arrays and numbers.  Rules ask `is_traced(x)`
# and compute with `untraced(x)` (the plain value under every level of
# tracing); they name no engine.  An engine registers its type(s) once, with
# the function that gives a traced value's value one level down; the reference
# AD registers `Tracked` when the core is loaded (ad_forward.pxi).
# ---------------------------------------------------------------------------

from cpython.object cimport PyObject_TypeCheck

ctypedef object (*_primal_fn)(object)

cdef tuple _traced_types = ()          # the registered types, in registration order
cdef tuple _traced_primals = ()        # their primal functions, in the same order
cdef list _traced_hooks = []           # when_traced callbacks, called for every type
# An engine compiled into this module may also give one type's primal as a C
# function (no Python call: nested differentiation asks on every rule call);
# `_other_types` are the registered types that are not it (or its subclasses).
cdef type _fast_type = None
cdef _primal_fn _fast_primal = NULL
cdef tuple _other_types = ()


cdef void _set_fast_traced(type cls, _primal_fn fn):
    """Values of cls (registered with register_traced_type) give their primal
    by fn, without a Python call."""
    global _fast_type, _fast_primal
    _fast_type = cls
    _fast_primal = fn
    _update_other_types()


cdef void _update_other_types():
    global _other_types
    _other_types = tuple(t for t in _traced_types
                         if _fast_type is None or not issubclass(t, _fast_type))


def register_traced_type(cls, primal):
    """register_traced_type(cls, primal): values of type `cls` (and its
    subclasses) are traced by an AD engine, and `primal(x)` gives the value
    such an x traces (which may be traced by an enclosing differentiation).

    Rules then see them through `is_traced`/`untraced`, and the registrations
    made with `when_traced` are made for `cls` too.  Registering a type again
    replaces its primal function."""
    global _traced_types, _traced_primals
    if not isinstance(cls, type):
        raise TypeError(f"register_traced_type: cls must be a type, got {cls!r}")
    if not callable(primal):
        raise TypeError(f"register_traced_type: primal must be callable, got {primal!r}")
    if cls in _traced_types:
        i = _traced_types.index(cls)
        _traced_primals = _traced_primals[:i] + (primal,) + _traced_primals[i + 1:]
        return
    _traced_types = _traced_types + (cls,)
    _traced_primals = _traced_primals + (primal,)
    _update_other_types()
    for hook in list(_traced_hooks):
        hook(cls)


def when_traced(hook):
    """when_traced(hook): call `hook(cls)` for every traced type, those
    registered already and those registered later (rules registered with a
    traced type in their signature: the engines differentiate the rule)."""
    if not callable(hook):
        raise TypeError(f"when_traced: hook must be callable, got {hook!r}")
    _traced_hooks.append(hook)
    for cls in _traced_types:
        hook(cls)


cdef inline bint _is_traced(object x) except -1:
    """Is x a value traced by an AD engine?  Plain floats and exact ndarrays
    without a lookup."""
    cdef type t = type(x)
    if t is float or t is _ndarray or t is int or t is complex:
        return False
    if _fast_type is not None and PyObject_TypeCheck(x, <PyTypeObject*>_fast_type):
        return True
    return len(_other_types) != 0 and isinstance(x, _other_types)


def is_traced(x):
    """is_traced(x): is x a value traced by an AD engine (a rule evaluated
    inside a differentiation)?  False for plain numbers and arrays."""
    return _is_traced(x)


def traced_types():
    """traced_types(): the types registered with register_traced_type so far,
    as a tuple (for isinstance and rule signatures; `when_traced` also sees
    the types registered later)."""
    return _traced_types


cdef object _untraced(object x):
    """The plain value under every level of tracing."""
    cdef Py_ssize_t i
    while _is_traced(x):
        if _fast_type is not None and PyObject_TypeCheck(x, <PyTypeObject*>_fast_type):
            x = _fast_primal(x)
            continue
        for i in range(len(_traced_types)):
            if isinstance(x, <type>_traced_types[i]):
                x = _traced_primals[i](x)
                break
    return x


def untraced(x):
    """untraced(x): the plain value under every level of tracing; x itself
    when it is not traced."""
    return _untraced(x)
