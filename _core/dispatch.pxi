# RULE CORE: rule dispatch (frule/rrule), the registry, and the ways to define rules.
# ---------------------------------------------------------------------------
# Rule dispatch: frule / rrule, the registry, and the ways to define rules.
#
# The registry maps a function object to a _RuleTable holding its C scalar
# row (scalar_table.pxi), if any, and its Python rules, most specific first.
# Lookups by the exact types of the arguments are cached per table.  Callable
# objects find their rules through their class (registered with
# instances=True).  Registration copies and swaps, so dispatch needs no lock.
# ---------------------------------------------------------------------------

import inspect as _inspect
import linecache as _linecache
import re as _re
import types as _types
import sys as _sys
import warnings as _warnings
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF, Py_XDECREF

cdef enum:
    RK_PY = 0        # a Python rule function
    RK_NONDIFF = 1   # non_differentiable
    RK_OPTOUT = 2    # opt_out: "no rule" for this signature

cdef dict _RULE_KINDS = {RK_PY: "rule", RK_NONDIFF: "non_differentiable", RK_OPTOUT: "opt_out"}
cdef object _MISSING = object()
cdef dict _functions = {}         # f -> _RuleTable
cdef dict _instance_tables = {}   # class -> _RuleTable (rules for its instances)
cdef dict _instance_cache = {}    # type(obj) -> _RuleTable or None
cdef long _order = 0
_registry_lock = _threading.RLock()


cdef str _fname(object f):
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:
        return type(f).__name__ + " object"
    mod = getattr(f, "__module__", None)
    if mod is None and isinstance(f, _np.ufunc):
        mod = "numpy"       # NumPy < 2.1: ufuncs have no __module__
    if isinstance(mod, str) and mod not in ("builtins", "__main__"):
        return f"{mod.lstrip('_')}.{name}"
    return str(name)


cdef class _Rule:
    cdef readonly object fn
    cdef readonly tuple types
    cdef readonly bint varargs
    cdef readonly int kind
    cdef readonly object config     # None: used without config; else a frozenset of capabilities
    cdef readonly double score
    cdef readonly long order
    cdef readonly bint builtin      # registered by chainrules' own rule sets

    cdef bint matches(self, tuple args):
        cdef Py_ssize_t i, n = len(self.types)
        if self.varargs:
            if len(args) < n:
                return False
        elif len(args) != n:
            return False
        for i in range(n):
            t = self.types[i]
            if t is not None and not isinstance(args[i], t):
                return False
        return True

    cdef bint matches_vec(self, PyObject** args, Py_ssize_t n):
        cdef Py_ssize_t i, k = PyTuple_GET_SIZE(self.types)
        if n < k or (n != k and not self.varargs):
            return False
        for i in range(k):
            t = self.types[i]
            if t is not None and not isinstance(<object>args[i], t):
                return False
        return True

    cdef bint config_ok(self, object config):
        for cap in self.config:
            if not getattr(config, f"has_{cap}_mode", False):
                return False
        return True

    def __repr__(self):
        return f"<{_RULE_KINDS[self.kind]} {_signature_text(self)}>"


cdef class _RuleTable:
    cdef readonly object key
    cdef readonly str name
    cdef readonly tuple frules
    cdef readonly tuple rrules
    cdef dict fcache
    cdef dict rcache
    cdef _ScalarRow row
    cdef readonly object scalar_spec
    cdef readonly bint instances

    def __cinit__(self, key, bint instances):
        self.key = key
        self.name = _fname(key)
        self.frules = ()
        self.rrules = ()
        self.fcache = {}
        self.rcache = {}
        self.instances = instances


cdef _RuleTable _lookup_table(object f):
    cdef object tab
    try:
        tab = _functions.get(f)
    except TypeError:           # unhashable callable object: its class decides
        tab = None
    if tab is not None:
        return <_RuleTable>tab
    if not _instance_tables:
        return None
    t = type(f)
    tab = _instance_cache.get(t, _MISSING)
    if tab is _MISSING:
        tab = None
        for base in t.__mro__:
            tab = _instance_tables.get(base)
            if tab is not None:
                break
        _cache_put(_instance_cache, t, tab)
    return <_RuleTable>tab


cdef _Rule _scan(tuple rules, tuple args, object config):
    cdef _Rule r
    if config is not None:
        for r in rules:
            if r.config is not None and r.config_ok(config) and r.matches(args):
                return r
    for r in rules:
        if r.config is None and r.matches(args):
            return r
    return None


cdef inline _Rule _select_vec(tuple rules, dict cache, PyObject** args, Py_ssize_t n,
                              object config=None):
    """_select on a vectorcall's argument array."""
    cdef _Rule r
    cdef Py_ssize_t i
    if PyTuple_GET_SIZE(rules) == 1:
        r = <_Rule>rules[0]
        if r.config is None:
            if r.varargs and PyTuple_GET_SIZE(r.types) == 0:
                # the common case: one rule for any arguments, no lookup needed
                return r
            if PyTuple_GET_SIZE(r.types) <= 3:
                # one typed rule: a few isinstance checks cost less than the cache key
                return r if r.matches_vec(args, n) else None
        elif config is None:
            return None
    cdef tuple key = PyTuple_New(n + 1)
    t = type(config)
    Py_INCREF(t)
    PyTuple_SET_ITEM(key, 0, t)
    for i in range(n):
        t = type(<object>args[i])
        Py_INCREF(t)
        PyTuple_SET_ITEM(key, i + 1, t)
    found = cache.get(key, _MISSING)
    if found is _MISSING:
        found = _scan(rules, _pack(args, 0, n), config)
        _cache_put(cache, key, found)
    return <_Rule>found


cdef _Rule _select(tuple rules, dict cache, tuple args, object config):
    if not rules:
        return None
    cdef Py_ssize_t i, n = len(args)
    key = [None] * (n + 1)
    key[0] = type(config)
    for i in range(n):
        key[i + 1] = type(args[i])
    k = tuple(key)
    r = cache.get(k, _MISSING)
    if r is _MISSING:
        r = _scan(rules, args, config)
        _cache_put(cache, k, r)
    return <_Rule>r


cdef object _parse_call(str which, tuple args):
    """Split the arguments of frule/rrule into (config, tangents, f, xs)."""
    cdef Py_ssize_t n = len(args), i = 0
    config = None
    if n and isinstance(args[0], RuleConfig):
        config = args[0]
        i = 1
    if which == "frule":
        if n - i < 2:
            raise TypeError("frule(tangents, f, *args): expected the tangents and the function")
        return config, args[i], args[i + 1], args[i + 2:]
    if n - i < 1:
        raise TypeError("rrule(f, *args): expected the function")
    return config, None, args[i], args[i + 1:]


cdef inline object _check_tangents(object tangents, object f, tuple xs):
    if type(tangents) is not tuple:
        if isinstance(tangents, (tuple, list)):
            tangents = tuple(tangents)
        else:
            raise TypeError(f"frule({_fname(f)}): tangents must be a tuple (Δself, Δx1, …, Δxn), "
                            f"got {type(tangents).__name__}")
    if PyTuple_GET_SIZE(tangents) != PyTuple_GET_SIZE(xs) + 1:
        raise ValueError(f"frule({_fname(f)}): expected {len(xs) + 1} tangents (Δself and one per "
                         f"argument), got {len(tangents)}")
    return tangents


# frule and rrule are METH_FASTCALL builtins: a scalar rule costs about as
# much as the bare math call, so the entry point must not build an argument
# tuple and a kwargs dict per call (Cython's `def f(*args, **kwargs)` does).

cdef extern from *:
    """
    typedef PyObject *(*cr_fast_impl)(PyObject **, Py_ssize_t, PyObject *);
    static cr_fast_impl cr_fast_impls[2] = {NULL, NULL};
    static PyObject *cr_frule_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
        return cr_fast_impls[0]((PyObject **)args, PyVectorcall_NARGS(nargs), kwnames);
    }
    static PyObject *cr_rrule_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
        return cr_fast_impls[1]((PyObject **)args, PyVectorcall_NARGS(nargs), kwnames);
    }
    static PyObject *cr_vcall(PyObject *f, PyObject **args, Py_ssize_t n) {
        return PyObject_Vectorcall(f, (PyObject *const *)args, (size_t)n, NULL);
    }
    static PyMethodDef cr_fast_defs[2] = {
        {"frule", (PyCFunction)(void (*)(void))cr_frule_fast, METH_FASTCALL | METH_KEYWORDS, NULL},
        {"rrule", (PyCFunction)(void (*)(void))cr_rrule_fast, METH_FASTCALL | METH_KEYWORDS, NULL},
    };
    static PyObject *cr_make_fast(int which, PyObject *impl_unused, PyObject *doc, PyObject *modname) {
        cr_fast_defs[which].ml_doc = PyUnicode_AsUTF8(doc);   /* doc is kept alive by the module */
        return PyCFunction_NewEx(&cr_fast_defs[which], NULL, modname);
    }
    """
    ctypedef object (*cr_fast_impl)(PyObject**, Py_ssize_t, PyObject*)
    object cr_vcall(object f, PyObject** args, Py_ssize_t n)
    cr_fast_impl cr_fast_impls[2]
    object cr_make_fast(int which, object impl_unused, object doc, object modname)


cdef inline tuple _pack(PyObject** args, Py_ssize_t start, Py_ssize_t stop):
    cdef Py_ssize_t i
    cdef tuple t = PyTuple_New(stop - start)
    for i in range(start, stop):
        o = <object>args[i]
        Py_INCREF(o)
        PyTuple_SET_ITEM(t, i - start, o)
    return t


cdef inline bint _any_array(PyObject** args, Py_ssize_t n):
    """An ndarray among the arguments: the scalar table's rows decline those,
    so skip asking them (np.exp(x) on an array goes straight to its rule)."""
    cdef Py_ssize_t i
    for i in range(n):
        if type(<object>args[i]) is _ndarray:
            return True
    return False


cdef inline bint _any_array_or_tracked(PyObject** args, Py_ssize_t n):
    """An ndarray, or a traced value holding one (a rule
    differentiated), among the arguments: the scalar table's rows decline those."""
    cdef Py_ssize_t i
    for i in range(n):
        o = <object>args[i]
        if type(o) is _ndarray or (_is_traced(o) and type(_untraced(o)) is _ndarray):
            return True
    return False


cdef object _split_kwargs(PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    """(positional tuple, kwargs dict) from a vectorcall."""
    cdef Py_ssize_t i, nk = 0
    kwargs = {}
    if kwnames != NULL:
        names = <object>kwnames
        nk = len(names)
        for i in range(nk):
            kwargs[names[i]] = <object>args[nargs + i]
    return _pack(args, 0, nargs), kwargs


cdef extern from "Python.h":
    PyObject* PyDict_GetItemWithError(object d, object key)
    Py_ssize_t PyDict_GET_SIZE(object d)
    void PyErr_Clear()


# A direct-mapped cache of the registered functions' tables, keyed by
# identity: the dict lookup (hashing a builtin function) costs as much as a
# math call.  Only a function that *is* a registry key is cached (not one
# that merely compares equal to a key, as a fresh bound method does: its
# address is reused by the next object allocated there).  A slot owns
# references to its function and table, so an address in it is never stale.
cdef struct _TabSlot:
    PyObject* f
    PyObject* tab

cdef _TabSlot _tab_cache[64]


cdef inline PyObject* _table_cached(PyObject* f):
    """The rule table of f (borrowed), or NULL (no table, or unhashable f: the
    caller falls back to _lookup_table, which also knows instance rules)."""
    cdef size_t i = (<size_t>f >> 4) & 63
    if _tab_cache[i].f == f:
        return _tab_cache[i].tab
    cdef PyObject* tab = PyDict_GetItemWithError(_functions, <object>f)
    if tab == NULL:
        PyErr_Clear()
        return NULL
    if (<_RuleTable>tab).key is <object>f:
        Py_XDECREF(_tab_cache[i].f)
        Py_XDECREF(_tab_cache[i].tab)
        Py_INCREF(<object>f)
        Py_INCREF(<object>tab)
        _tab_cache[i].f = f
        _tab_cache[i].tab = tab
    return tab


# The caches of rule selection (per table, by the exact argument types) and of
# instance tables (by class) are bounded: a program that makes a new class per
# call must not grow them forever.  Past the bound a cache starts afresh.
cdef enum:
    _CACHE_BOUND = 256

cdef inline void _cache_put(dict cache, object key, object value):
    if PyDict_GET_SIZE(cache) >= _CACHE_BOUND:
        cache.clear()
    cache[key] = value


cdef object _frule_impl(PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    cdef _RuleTable tab
    cdef PyObject* tabp
    cdef _Rule rule
    cdef object tangents, f
    cdef PyObject* stack[8]
    cdef Py_ssize_t i
    if kwnames == NULL and nargs >= 2:
        tangents = <object>args[0]
        if type(tangents) is tuple and PyTuple_GET_SIZE(tangents) == nargs - 1:
            f = <object>args[1]
            tabp = _table_cached(args[1])
            if tabp != NULL:
                tab = <_RuleTable>tabp
                if (tab.row is not None and not tab.row.overridden
                        and not _any_array(args + 2, nargs - 2)):
                    res = tab.row.frule_vec(tangents, args + 2, nargs - 2)
                    if res is not None:
                        return res
            else:
                tab = _lookup_table(f)
            if tab is None:
                if not callable(f):
                    raise TypeError(f"frule: f must be callable, got {type(f).__name__}")
                return None
            if tab.row is not None and tab.row.overridden:
                return _frule_general(None, tangents, f, _pack(args, 2, nargs), {})
            if tab.instances:
                rule = _select_vec(tab.frules, tab.fcache, args + 1, nargs - 1)
            else:
                rule = _select_vec(tab.frules, tab.fcache, args + 2, nargs - 2)
            if rule is None or rule.kind == RK_OPTOUT:
                return None
            if rule.kind == RK_PY and nargs <= 8:
                # rule(tangents, *xs) -- or rule(tangents, obj, *xs) for instances
                if tab.instances:
                    return cr_vcall(rule.fn, args, nargs)
                stack[0] = args[0]
                for i in range(2, nargs):
                    stack[i - 1] = args[i]
                return cr_vcall(rule.fn, stack, nargs - 1)
        elif nargs >= 3 and nargs <= 9 and isinstance(tangents, RuleConfig):
            # frule(config, tangents, f, *xs) on arrays, as an AD calls it (the forward
            # engines on tracked arrays): the rule found and called without the general
            # path's argument tuple; scalars (the table's rows) and instance rules take it
            res = _config_vec(args, nargs, True)
            if res is not _MISSING:
                return res
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    config, tangents, f, xs = _parse_call("frule", pos)
    return _frule_general(config, tangents, f, xs, kwargs)


cdef object _config_vec(PyObject** args, Py_ssize_t nargs, bint forward):
    """frule(config, tangents, f, *xs) (`forward`; 3 <= nargs <= 9) or
    rrule(config, f, *xs) (2 <= nargs <= 9) with an array, tracked or not,
    among xs, as the AD engines call them: the rule found and called by
    vectorcall; _MISSING for the general path (a tangents tuple of another
    length, no array, instance rules, an overridden scalar row, a
    non_differentiable rule)."""
    cdef _RuleTable tab
    cdef PyObject* tabp
    cdef _Rule rule
    cdef PyObject* stack[9]
    cdef Py_ssize_t i, first = 3 if forward else 2, n = 0     # args[first:] are the xs
    if forward and (type(<object>args[1]) is not tuple or PyTuple_GET_SIZE(<object>args[1]) != nargs - 2):
        return _MISSING
    tabp = _table_cached(args[first - 1])
    if tabp == NULL or not _any_array_or_tracked(args + first, nargs - first):
        return _MISSING
    tab = <_RuleTable>tabp
    if tab.instances or (tab.row is not None and tab.row.overridden):
        return _MISSING
    if forward:
        rule = _select_vec(tab.frules, tab.fcache, args + first, nargs - first, <object>args[0])
    else:
        rule = _select_vec(tab.rrules, tab.rcache, args + first, nargs - first, <object>args[0])
    if rule is None or rule.kind == RK_OPTOUT:
        return None
    if rule.kind != RK_PY:
        return _MISSING
    if rule.config is not None:                 # rule(config, [tangents,] *xs)
        stack[n] = args[0]
        n += 1
    if forward:
        stack[n] = args[1]
        n += 1
    for i in range(first, nargs):
        stack[n] = args[i]
        n += 1
    return cr_vcall(rule.fn, stack, n)


cdef object _rrule_impl(PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    cdef _RuleTable tab
    cdef PyObject* tabp
    cdef _Rule rule
    if kwnames == NULL and nargs >= 1 and not isinstance(<object>args[0], RuleConfig):
        tabp = _table_cached(args[0])
        if tabp != NULL:
            tab = <_RuleTable>tabp
            if (tab.row is not None and not tab.row.overridden
                    and not _any_array(args + 1, nargs - 1)):
                res = tab.row.rrule_vec(args + 1, nargs - 1)
                if res is not None:
                    return res
        else:
            tab = _lookup_table(<object>args[0])
        if tab is None:
            if not callable(<object>args[0]):
                raise TypeError(f"rrule: f must be callable, got {type(<object>args[0]).__name__}")
            return None
        if tab.row is not None and tab.row.overridden:
            return _rrule_general(None, <object>args[0], _pack(args, 1, nargs), {})
        if tab.instances:
            rule = _select_vec(tab.rrules, tab.rcache, args, nargs)
        else:
            rule = _select_vec(tab.rrules, tab.rcache, args + 1, nargs - 1)
        if rule is None or rule.kind == RK_OPTOUT:
            return None
        if rule.kind == RK_PY:
            # rule(*xs) -- or rule(obj, *xs) for instances
            if tab.instances:
                return cr_vcall(rule.fn, args, nargs)
            return cr_vcall(rule.fn, args + 1, nargs - 1)
    elif kwnames == NULL and nargs >= 2 and nargs <= 9:
        # rrule(config, f, *xs) on arrays, as an AD calls it
        res = _config_vec(args, nargs, False)
        if res is not _MISSING:
            return res
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    config, _, f, xs = _parse_call("rrule", pos)
    return _rrule_general(config, f, xs, kwargs)


cdef object _frule_general(object config, object tangents, object f, tuple xs, dict kwargs):
    cdef _RuleTable tab
    cdef _Rule rule
    tab = _lookup_table(f)
    if tab is None:
        if not callable(f):
            raise TypeError(f"frule: f must be callable, got {type(f).__name__}")
        _check_tangents(tangents, f, xs)
        return None
    tangents = _check_tangents(tangents, f, xs)
    if tab.row is not None and not kwargs:
        if tab.row.overridden:
            rule = _select(tab.frules, tab.fcache, xs, config)
            if rule is None or rule.builtin:
                res = tab.row.frule(tangents, xs)
                if res is not None:
                    return res
        else:
            res = tab.row.frule(tangents, xs)
            if res is not None:
                return res
            rule = _select(tab.frules, tab.fcache, xs, config)
    else:
        if tab.instances:
            xs = (f,) + xs
        rule = _select(tab.frules, tab.fcache, xs, config)
    if rule is None or rule.kind == RK_OPTOUT:
        return None
    if rule.kind == RK_NONDIFF:
        return (f(*xs[1:], **kwargs) if tab.instances else f(*xs, **kwargs)), NO_TANGENT
    if rule.config is not None:
        return rule.fn(config, tangents, *xs, **kwargs)
    return rule.fn(tangents, *xs, **kwargs)


cdef object _rrule_general(object config, object f, tuple xs, dict kwargs):
    cdef _RuleTable tab
    cdef _Rule rule
    tab = _lookup_table(f)
    if tab is None:
        if not callable(f):
            raise TypeError(f"rrule: f must be callable, got {type(f).__name__}")
        return None
    if tab.row is not None and not kwargs:
        if tab.row.overridden:
            rule = _select(tab.rrules, tab.rcache, xs, config)
            if rule is None or rule.builtin:
                res = tab.row.rrule(xs)
                if res is not None:
                    return res
        else:
            res = tab.row.rrule(xs)
            if res is not None:
                return res
            rule = _select(tab.rrules, tab.rcache, xs, config)
    else:
        if tab.instances:
            xs = (f,) + xs
        rule = _select(tab.rrules, tab.rcache, xs, config)
    if rule is None or rule.kind == RK_OPTOUT:
        return None
    if rule.kind == RK_NONDIFF:
        y = f(*xs[1:], **kwargs) if tab.instances else f(*xs, **kwargs)
        return y, _NoTangentPullback(tab.name, len(xs) if tab.instances else len(xs) + 1)
    if rule.config is not None:
        return rule.fn(config, *xs, **kwargs)
    return rule.fn(*xs, **kwargs)


_FRULE_DOC = """frule(*args, **kwargs)
--

frule([config,] tangents, f, *args, **kwargs) -> (Ω, ΔΩ) or None

    The forward rule (pushforward, Jacobian-vector product) of `f` at `args`:
    `Ω = f(*args, **kwargs)` and `ΔΩ = J·(Δx1, …, Δxn)`.  `tangents` holds one
    tangent per argument plus one for `f` itself first: `(Δself, Δx1, …)`;
    keyword arguments get none.  Returns None when no rule exists.

    Example::

        >>> import math
        >>> frule((NoTangent(), 1.0), math.sin, 3.0)
        (0.1411200080598672, -0.9899924966004454)

    See also: `rrule`, `register_frule`, `scalar_rule`."""

_RRULE_DOC = """rrule(*args, **kwargs)
--

rrule([config,] f, *args, **kwargs) -> (Ω, pullback) or None

    The reverse rule of `f` at `args`: `Ω = f(*args, **kwargs)` and
    `pullback(ΔΩ) -> (∂self, ∂x1, …, ∂xn)`, the vector-Jacobian product
    `Jᵀ·ΔΩ` with one cotangent per argument plus `∂self` for `f` (NoTangent()
    for functions without fields).  Returns None when no rule exists.

    Example::

        >>> import math
        >>> y, pb = rrule(math.sin, 3.0)
        >>> pb(1.0)
        (NoTangent(), -0.9899924966004454)

    See also: `frule`, `register_rrule`, `scalar_rule`."""

cr_fast_impls[0] = _frule_impl
cr_fast_impls[1] = _rrule_impl


# ----- debug mode -----------------------------------------------------------
# While it is on, frule and rrule (and chainrules.ad, which calls them through
# the same pointers) go through chainrules._debug, which checks the mutation
# contract.  Off, the pointers are the plain implementations: no cost at all.

cdef object _debug_hooks = None


cdef object _frule_debug_impl(PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    config, tangents, f, xs = _parse_call("frule", pos)
    return _debug_hooks.checked_frule(_frule_plain, config, tangents, f, xs, kwargs)


cdef object _rrule_debug_impl(PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    pos, kwargs = _split_kwargs(args, nargs, kwnames)
    config, _, f, xs = _parse_call("rrule", pos)
    return _debug_hooks.checked_rrule(_rrule_plain, config, f, xs, kwargs)


def _frule_plain(config, tangents, f, xs, kwargs):
    """frule without the debug checks (for chainrules._debug)."""
    return _frule_general(config, tangents, f, xs, kwargs)


def _rrule_plain(config, f, xs, kwargs):
    """rrule without the debug checks (for chainrules._debug)."""
    return _rrule_general(config, f, xs, kwargs)


def _set_debug_hooks(hooks):
    """Debug mode on (hooks: an object with checked_frule and checked_rrule)
    or off (None)."""
    global _debug_hooks
    _debug_hooks = hooks
    if hooks is None:
        cr_fast_impls[0] = _frule_impl
        cr_fast_impls[1] = _rrule_impl
    else:
        cr_fast_impls[0] = _frule_debug_impl
        cr_fast_impls[1] = _rrule_debug_impl

frule = cr_make_fast(0, None, _FRULE_DOC, "chainrules._core")
rrule = cr_make_fast(1, None, _RRULE_DOC, "chainrules._core")


cdef class _NoTangentPullback(_CompiledPullback):
    """The pullback of a non-differentiable function: NoTangent() for all."""
    cdef str name
    cdef Py_ssize_t n

    def __cinit__(self, str name, Py_ssize_t n):
        self.name = name
        self.n = n

    def __call__(self, *args):
        if len(args) != 1:
            raise TypeError(f"pullback of {self.name}: takes one cotangent (ΔΩ), got {len(args)} arguments")
        if not _is_tangent(args[0]):
            raise _seed_error(self.name, args[0])
        return (NO_TANGENT,) * self.n

    def __repr__(self):
        return f"<pullback of {self.name} (non-differentiable)>"


# ----- registration ---------------------------------------------------------

cdef double _type_score(object t) except? -1:
    if t is None or t is object:
        return 0
    if isinstance(t, type):
        return len(t.__mro__)
    if isinstance(t, tuple):
        return min([_type_score(u) for u in t]) if t else 0
    raise TypeError(f"expected a type or a tuple of types, got {t!r}")


cdef object _parse_types(tuple types):
    """(types, varargs, score) from a registration's type restrictions.
    No types: any arguments.  A trailing `...`: any further arguments."""
    if not types:
        return (), True, -0.5
    # wraparound=False for the whole build: no negative indices here
    varargs = types[len(types) - 1] is Ellipsis
    if varargs:
        types = types[:len(types) - 1]
    for t in types:
        if t is Ellipsis:
            raise TypeError("`...` may only stand last in a rule's argument types")
        _type_score(t)
    score = sum([_type_score(t) for t in types]) - (0.5 if varargs else 0.0)
    return tuple([None if t is object else t for t in types]), varargs, score


cdef object _parse_config(object config):
    if config is None or config is False:
        return None
    if config is True:
        return frozenset()
    caps = (config,) if isinstance(config, str) else tuple(config)
    for c in caps:
        if c not in ("reverse", "forward"):
            raise ValueError(f"config requirement must be 'reverse', 'forward', True or None, got {c!r}")
    return frozenset(caps)


cdef _RuleTable _table_for(object f, bint instances, bint create):
    if instances:
        if not isinstance(f, type):
            raise TypeError(f"instances=True registers rules for the instances of a class; got {f!r}")
        tab = _instance_tables.get(f)
    else:
        if not callable(f):
            raise TypeError(f"cannot register a rule for {f!r}: it is not callable")
        try:
            hash(f)
        except TypeError:
            raise TypeError(f"cannot register a rule for the unhashable {type(f).__name__} object: "
                            f"register it on its class with instances=True") from None
        tab = _functions.get(f)
    if tab is None and create:
        tab = _RuleTable(f, instances)
        if instances:
            _instance_tables[f] = tab
            _instance_cache.clear()
        else:
            _functions[f] = tab
    return <_RuleTable>tab


cdef object _caller_frame():
    """The innermost Python frame outside this module (None if unknown)."""
    try:
        frame = _sys._getframe(0)
    except ValueError:
        return None
    while frame is not None and frame.f_globals.get("__name__") == "chainrules._core":
        frame = frame.f_back
    return frame


cdef _check_bare_decorator(str api, object f):
    """`@register_rrule` written without `(f)` hands the rule itself over as
    the function, registers nothing and rebinds the rule's name to a
    decorator: refuse it (the caller's source line shows the bare decorator)."""
    if not isinstance(f, _types.FunctionType):
        return
    frame = _caller_frame()
    if frame is None:
        return
    line = _linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    if _re.fullmatch(r"@[\w.]*\b" + api + r"\s*(#.*)?", line):
        raise TypeError(f"@{api} needs the function the rule is for: write "
                        f"@{api}(f, *types) above {f.__qualname__}, not a bare @{api}")


cdef bint _called_from_chainrules():
    """Whether the Python code registering a rule is chainrules' own (a rule
    set): its rules are the built-in ones, which a C row goes before."""
    frame = _caller_frame()
    if frame is None:
        return False
    name = frame.f_globals.get("__name__", "")
    return (isinstance(name, str) and name.startswith("chainrules.")
            and not name.startswith("chainrules.testing"))


class RuleOverwriteWarning(UserWarning):
    """A rule was registered for a signature that already had one; the new
    rule replaces the old."""


cdef str _signature_text(_Rule r):
    parts = ["object" if t is None else getattr(t, "__name__", repr(t)) for t in r.types]
    if r.varargs:
        parts.append("...")
    cfg = "" if r.config is None else f", config={sorted(r.config)}"
    return f"({', '.join(parts)}{cfg})"


# The argument types a C row handles: Python's and NumPy's numbers.
cdef tuple _ROW_TYPES = (bool, int, float, complex, _np.bool_, _np.float16, _np.float32,
                         _np.float64, _np.longdouble, _np.complex64, _np.complex128,
                         _np.clongdouble, _np.int8, _np.int16, _np.int32, _np.int64,
                         _np.uint8, _np.uint16, _np.uint32, _np.uint64)


cdef bint _may_take_scalars(_Rule r):
    """Could the rule match a call that a C row would take (numbers only)?
    Only such a registration makes the row yield."""
    for t in r.types:
        if t is not None and not any([issubclass(s, t) for s in _ROW_TYPES]):
            return False
    return True


cdef _add_rule(object f, str which, int kind, object fn, tuple types, object config, bint instances):
    global _order
    cdef _Rule r = _Rule.__new__(_Rule)
    cdef _Rule q
    cdef _RuleTable tab
    r.types, r.varargs, r.score = _parse_types(types)
    r.kind = kind
    r.fn = fn
    r.config = _parse_config(config)
    r.builtin = _called_from_chainrules()
    with _registry_lock:
        _order += 1
        r.order = _order
        tab = _table_for(f, instances, True)
        old = tab.frules if which == "f" else tab.rrules
        kept = []
        for q in old:
            if q.types == r.types and q.varargs == r.varargs and q.config == r.config:
                if not (q.builtin and r.builtin):
                    _warnings.warn(
                        f"{'frule' if which == 'f' else 'rrule'} of {tab.name}: a rule for the "
                        f"signature {_signature_text(r)} was already registered; the new "
                        f"{_RULE_KINDS[kind]} replaces it", RuleOverwriteWarning, stacklevel=3)
                continue
            kept.append(q)
        new = tuple(sorted(kept + [r], key=lambda q: (-(<_Rule>q).score, -(<_Rule>q).order)))
        if which == "f":
            tab.frules = new
            tab.fcache = {}
        else:
            tab.rrules = new
            tab.rcache = {}
        if tab.row is not None and not r.builtin and _may_take_scalars(r):
            tab.row.overridden = True


def register_frule(f, *types, config=None, instances=False):
    """`@register_frule(f, *types, config=None, instances=False)`

    Register the decorated function as the forward rule of `f`.  It is called
    as `rule(tangents, *args, **kwargs)` and returns `(Ω, ΔΩ)` (or None to
    decline).  `types` restrict the positional argument types (a type, a tuple
    of types, `object`; a trailing `...` admits further arguments); the most
    specific matching rule wins, the later one on a tie.  `config`: 'forward',
    'reverse', True or a tuple; such a rule is called only with a RuleConfig
    that has those capabilities, as `rule(config, tangents, *args)`.
    `instances=True`: `f` is a class and the rule applies when its instances
    are called; the instance comes first among the args (`rule(tangents, obj, *args)`).
    Registering a second rule for the same types and config replaces the first,
    with a `RuleOverwriteWarning`."""
    _check_bare_decorator("register_frule", f)
    def decorator(rule):
        if not callable(rule):
            raise TypeError(f"register_frule({_fname(f)}): the rule must be callable")
        _add_rule(f, "f", RK_PY, rule, types, config, instances)
        return rule
    return decorator


def register_rrule(f, *types, config=None, instances=False):
    """`@register_rrule(f, *types, config=None, instances=False)`

    Register the decorated function as the reverse rule of `f`: called as
    `rule(*args, **kwargs)`, it returns `(Ω, pullback)` with
    `pullback(ΔΩ) -> (∂self, ∂x1, …)`.  Name the pullback (`def f_pullback(ȳ)`)
    so that tracebacks are readable.  Options as in `register_frule`; a config
    rule is called as `rule(config, *args)`, an instance rule as `rule(obj, *args)`."""
    _check_bare_decorator("register_rrule", f)
    def decorator(rule):
        if not callable(rule):
            raise TypeError(f"register_rrule({_fname(f)}): the rule must be callable")
        _add_rule(f, "r", RK_PY, rule, types, config, instances)
        return rule
    return decorator


def non_differentiable(f, *types, instances=False):
    """`non_differentiable(f, *types)`: `f` has no derivative: its frule gives
    NoTangent() and its pullback NoTangent() for every input."""
    _add_rule(f, "f", RK_NONDIFF, None, types, None, instances)
    _add_rule(f, "r", RK_NONDIFF, None, types, None, instances)
    return f


def opt_out(f, *types, config=None, instances=False, frule=True, rrule=True):
    """`opt_out(f, *types)`: make `frule`/`rrule` return None for this signature
    although a broader rule would catch it (the AD then differentiates through
    the primal)."""
    if frule:
        _add_rule(f, "f", RK_OPTOUT, None, types, config, instances)
    if rrule:
        _add_rule(f, "r", RK_OPTOUT, None, types, config, instances)
    return f


def _registered_functions():
    """Debugging aid: every function object that has rules or a C row."""
    return list(_functions)


def _save_registry():
    """Testing aid: a snapshot of every table's rules, for _restore_registry."""
    cdef _RuleTable tab
    with _registry_lock:
        return {id(tab): (tab, tab.frules, tab.rrules,
                          tab.row is not None and tab.row.overridden)
                for tab in list(_functions.values()) + list(_instance_tables.values())}


def _restore_registry(saved):
    """Testing aid: put the rules back as _save_registry found them (tables
    made since keep no rules)."""
    cdef _RuleTable tab
    with _registry_lock:
        for tab in list(_functions.values()) + list(_instance_tables.values()):
            entry = saved.get(id(tab))
            if entry is not None and entry[0] is tab:
                tab.frules, tab.rrules = entry[1], entry[2]
                if tab.row is not None:
                    tab.row.overridden = entry[3]
            else:
                tab.frules = tab.rrules = ()
            tab.fcache = {}
            tab.rcache = {}
        _instance_cache.clear()


def _rules_of(f):
    """Debugging aid: the frules and rrules registered for f, most specific first."""
    tab = _lookup_table(f)
    if tab is None:
        return (), ()
    return tab.frules, tab.rrules


# ----- scalar_rule: one partials function gives frule, rrule and
#       derivatives_given_output --------------------------------------------

cdef class _ScalarSpec:
    cdef readonly object f
    cdef readonly object partials
    cdef readonly bint wants_omega
    cdef readonly str name

    cdef tuple partials_at(self, tuple xs, object omega):
        """The partials as a tuple of rows, one row (one partial per input)
        per output."""
        p = self.partials(*xs, Ω=omega) if self.wants_omega else self.partials(*xs)
        if type(p) is not tuple:
            p = (p,)
        if len(p) and type(p[0]) is tuple:
            rows = p
        else:
            rows = (p,)
        for row in rows:
            if len(<tuple>row) != len(xs):
                raise TypeError(f"scalar_rule({self.name}): the partials function returned "
                                f"{len(<tuple>row)} partials for {len(xs)} inputs")
        return rows


cdef object _pushforward(tuple row, tuple tangents):
    """Σᵢ ∂ᵢ·Δxᵢ, zeros short-circuiting (tangents[0] is Δself)."""
    acc = ZERO
    for i in range(len(row)):
        acc = tangent_add(acc, tangent_mul(row[i], tangents[i + 1]))
    return acc


cdef class _ScalarFrule:
    cdef readonly _ScalarSpec spec

    def __call__(self, tangents, *xs):
        omega = self.spec.f(*xs)
        rows = self.spec.partials_at(xs, omega)
        if len(rows) == 1 and not isinstance(omega, tuple):
            return omega, _pushforward(rows[0], tangents)
        return omega, Tangent[type(omega)](*[_pushforward(r, tangents) for r in rows])


cdef class _ScalarRrule:
    cdef _ScalarSpec spec

    def __call__(self, *xs):
        omega = self.spec.f(*xs)
        rows = self.spec.partials_at(xs, omega)
        cdef _ScalarRulePullback pb = _ScalarRulePullback.__new__(_ScalarRulePullback)
        pb.name = self.spec.name
        pb.rows = rows
        pb.multi = len(rows) > 1 or isinstance(omega, tuple)
        pb.scalar_out = not pb.multi and not isinstance(omega, _ndarray)
        pb.projectors = tuple([ProjectTo(x) for x in xs])
        return omega, pb


cdef class _ScalarRulePullback(_CompiledPullback):
    cdef str name
    cdef tuple rows
    cdef tuple projectors
    cdef bint multi
    cdef bint scalar_out

    def __call__(self, *args):
        if len(args) != 1:
            raise TypeError(f"pullback of {self.name}: takes one cotangent (ΔΩ), got {len(args)} arguments")
        dy = args[0]
        if type(dy) is not float:
            dy = _seed(dy, self.name)
        if self.scalar_out and isinstance(dy, _ndarray) and dy.size != 1:
            raise ValueError(f"pullback of {self.name}: expected a scalar cotangent, got an array "
                             f"of shape {dy.shape}")
        n = len(self.projectors)
        out = [NO_TANGENT]
        for i in range(n):
            acc = ZERO
            for j in range(len(self.rows)):
                dyj = dy[j] if self.multi else dy
                acc = tangent_add(acc, tangent_mul(_conj(self.rows[j][i]), dyj))
            out.append((<ProjectTo>self.projectors[i]).project(acc))
        return tuple(out)

    def __repr__(self):
        return f"<pullback of {self.name}>"


cdef bint _takes_omega(object p):
    try:
        return "Ω" in _inspect.signature(p).parameters
    except (TypeError, ValueError):
        return False


cdef _check_not_swapped(object f, object partials):
    """scalar_rule(partials, f) by mistake: the first argument is a partials
    function (it takes Ω, or is a lambda while the second is a named function),
    or not a function at all (a tuple of partials, as Julia's @scalar_rule)."""
    if not callable(f):
        raise TypeError(f"scalar_rule(f, partials): f must be the function the rule is for, got "
                        f"{type(f).__name__} {f!r:.80} (are the arguments swapped? partials is one "
                        f"function returning a tuple of partials)")
    swapped = _takes_omega(f) or (
        isinstance(f, _types.FunctionType) and f.__name__ == "<lambda>"
        and isinstance(partials, _types.FunctionType) and partials.__name__ != "<lambda>")
    if swapped:
        raise TypeError(f"scalar_rule(f, partials): the function comes first, its partials "
                        f"second; {_fname(f)} looks like the partials (are the arguments swapped?)")


def scalar_rule(f, partials=None):
    """scalar_rule(f, partials) / @scalar_rule(f)

    Define the frule and rrule of a scalar function from its partial
    derivatives.  `partials(*args)` returns one partial per input (a tuple, or
    a bare value for one input); for a function with several outputs, one
    tuple per output.  If the partials function has a parameter named `Ω`, it
    receives the primal output there (cheaper for exp, tanh, sqrt…).

    Complex numbers follow ChainRules: the pushforward is `Σ ∂ᵢ·Δxᵢ`, the
    pullback `conj(∂ᵢ)·ΔΩ`; a real input's cotangent is projected to real.

    Example::

        @scalar_rule(my_exp)
        def _(x, Ω):
            return Ω

    Also gives `derivatives_given_output(Ω, f, *args)`."""
    if partials is None:
        _check_bare_decorator("scalar_rule", f)
    else:
        _check_not_swapped(f, partials)
    def decorator(p):
        cdef _ScalarSpec spec
        cdef _ScalarFrule fr
        cdef _ScalarRrule rr
        if not callable(p):
            raise TypeError(f"scalar_rule({_fname(f)}): partials must be callable")
        spec = _ScalarSpec.__new__(_ScalarSpec)
        spec.f = f
        spec.partials = p
        spec.name = _fname(f)
        spec.wants_omega = _takes_omega(p)
        fr = _ScalarFrule.__new__(_ScalarFrule)
        fr.spec = spec
        rr = _ScalarRrule.__new__(_ScalarRrule)
        rr.spec = spec
        _add_rule(f, "f", RK_PY, fr, (), None, False)
        _add_rule(f, "r", RK_PY, rr, (), None, False)
        with _registry_lock:
            _table_for(f, False, True).scalar_spec = spec
        return p
    if partials is not None:
        decorator(partials)
        return f
    return decorator


def derivatives_given_output(omega, f, *args):
    """`derivatives_given_output(Ω, f, *args)`: the partials of a scalar rule at
    `args` given the output Ω, as one tuple per output, e.g. ((cos(x),),) for
    sin.  None when f has no scalar rule."""
    cdef _RuleTable tab = _lookup_table(f)
    if tab is None:
        return None
    if tab.row is not None:
        res = tab.row.partials(args, omega)
        if res is not None:
            return res
    if tab.scalar_spec is not None:
        return (<_ScalarSpec>tab.scalar_spec).partials_at(args, omega)
    return None


# ----- small non-differentiable helpers of ChainRulesCore -----------------

def ignore_derivatives(x):
    """ignore_derivatives(x): x, with no derivative flowing through it.  Given
    a function of no arguments, calls it (so a whole block can be ignored)."""
    if callable(x) and not isinstance(x, type) and hasattr(x, "__code__"):
        return x()
    return x

non_differentiable(ignore_derivatives)
