# The compiled core of chainrules: tangent types, their arithmetic, projection,
# rule dispatch and the scalar rule table.  One extension module, split into
# .pxi files that are pulled in here in dependency order (a same-named .pxd
# would be ignored for the cdef attributes, so they live in the class bodies).

from cpython.object cimport PyObject, PyTypeObject
from cpython.float cimport PyFloat_FromDouble, PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsDouble
from cpython.tuple cimport PyTuple_GET_SIZE
from libc.math cimport isnan, isinf, isfinite, INFINITY, NAN
cimport cython

import dataclasses as _dataclasses
import threading as _threading
import numpy as _np

cdef extern from *:
    """
    /* Guards of the recursive helpers: RecursionError instead of a C stack
       overflow (a self-containing tangent, a deeply nested structure).  The
       helpers count their own depth, bounded by the interpreter's recursion
       limit (and by 2000 levels, a few hundred kB of C stack): CPython's
       _enter_recursion did not stop them before the stack ran out. */
    static int cr_depth = 0;
    static int cr_enter_recursive(const char *where) {
        int limit = Py_GetRecursionLimit();
        if (limit > 2000) limit = 2000;
        if (cr_depth >= limit) {
            PyErr_Format(PyExc_RecursionError, "maximum recursion depth exceeded%s", where);
            return -1;
        }
        cr_depth++;
        return 0;
    }
    static void cr_leave_recursive(void) { cr_depth--; }
    """
    int _enter_recursion "cr_enter_recursive" (const char* where) except -1
    void _leave_recursion "cr_leave_recursive" ()

cdef type _ndarray = _np.ndarray
_np_generic = _np.generic

cdef extern from *:
    """
    /* The leading fields of NumPy's PyArrayObject (public and part of
       NumPy's ABI): enough to compare two arrays' dtype and shape
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
    /* a and b are exact ndarrays of the same shape (any dtypes). */
    static inline int cr_same_dims(PyObject *a, PyObject *b) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        const cr_ndarray_head *q = (const cr_ndarray_head *)b;
        if (p->nd != q->nd) return 0;
        for (int i = 0; i < p->nd; i++)
            if (p->dimensions[i] != q->dimensions[i]) return 0;
        return 1;
    }
    /* a is an exact ndarray, shape a tuple of ints: is a's shape `shape`? */
    static inline int cr_dims_are(PyObject *a, PyObject *shape) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != p->nd) return 0;
        for (int i = 0; i < p->nd; i++) {
            PyObject *n = PyTuple_GET_ITEM(shape, i);
            if (!PyLong_CheckExact(n) || PyLong_AsSsize_t(n) != p->dimensions[i]) {
                PyErr_Clear();
                return 0;
            }
        }
        return 1;
    }
    /* NumPy's C API, reached as NumPy's own import_array does: through the
       table in numpy's `_ARRAY_API` capsule (the indices are part of NumPy's
       ABI).  Only what the hot paths need. */
    typedef PyObject *(*cr_zeros_t)(int, const Py_ssize_t *, PyObject *, int);
    static cr_zeros_t cr_np_zeros = NULL;                   /* 183: PyArray_Zeros */
    typedef PyObject *(*cr_newfromdescr_t)(PyTypeObject *, PyObject *, int, const Py_ssize_t *,
                                           const Py_ssize_t *, void *, int, PyObject *);
    typedef int (*cr_setbase_t)(PyObject *, PyObject *);
    static cr_newfromdescr_t cr_np_newfromdescr = NULL;     /* 94: PyArray_NewFromDescr */
    static cr_setbase_t cr_np_setbase = NULL;               /* 282: PyArray_SetBaseObject */
    static int cr_init_numpy_api(PyObject *capsule) {
        void **api = (void **)PyCapsule_GetPointer(capsule, NULL);
        if (api == NULL) return -1;
        cr_np_zeros = (cr_zeros_t)api[183];
        cr_np_newfromdescr = (cr_newfromdescr_t)api[94];
        cr_np_setbase = (cr_setbase_t)api[282];
        return 0;
    }
    /* a is an exact ndarray, shape a tuple: a read-only view of a broadcast
       to shape (NumPy's rules), a new reference; None when this cannot be
       done here (shape not ints, a does not broadcast: the caller asks
       NumPy, which says why); NULL with an error set on failure. */
    static PyObject *cr_broadcast_view(PyObject *a, PyObject *shape) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        Py_ssize_t dims[64], strides[64];
        Py_ssize_t nd = PyTuple_GET_SIZE(shape);
        if (nd > 64 || nd < p->nd) Py_RETURN_NONE;
        for (Py_ssize_t i = 0; i < nd; i++) {
            PyObject *item = PyTuple_GET_ITEM(shape, i);
            Py_ssize_t n = PyLong_CheckExact(item) ? PyLong_AsSsize_t(item) : -1;
            if (n < 0) { PyErr_Clear(); Py_RETURN_NONE; }
            Py_ssize_t j = i - (nd - p->nd);
            dims[i] = n;
            if (j < 0) strides[i] = 0;
            else if (p->dimensions[j] == n) strides[i] = p->strides[j];
            else if (p->dimensions[j] == 1) strides[i] = 0;
            else Py_RETURN_NONE;
        }
        Py_INCREF(p->descr);                                /* stolen */
        PyObject *v = cr_np_newfromdescr(Py_TYPE(a), p->descr, (int)nd, dims, strides, p->data, 0, NULL);
        if (v == NULL) return NULL;
        Py_INCREF(a);                                       /* stolen, even on failure */
        if (cr_np_setbase(v, a) < 0) { Py_DECREF(v); return NULL; }
        return v;
    }
    /* a is an exact ndarray: a new zero array of its shape and dtype. */
    static PyObject *cr_zeros_like(PyObject *a) {
        const cr_ndarray_head *p = (const cr_ndarray_head *)a;
        Py_INCREF(p->descr);                    /* PyArray_Zeros steals it */
        return cr_np_zeros(p->nd, p->dimensions, p->descr, 0);
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
    bint cr_same_dims(PyObject* a, PyObject* b)
    bint cr_dims_are(PyObject* a, PyObject* shape)
    Py_ssize_t cr_size(PyObject* a)
    PyObject* cr_descr(PyObject* a)
    int cr_init_numpy_api(object capsule) except -1
    object cr_zeros_like(PyObject* a)
    object cr_broadcast_view(PyObject* a, PyObject* shape)

cr_init_numpy_api(_np._core._multiarray_umath._ARRAY_API)     # NumPy >= 2 (pyproject.toml)

# NumPy's built-in dtypes are singletons: identity checks are the fast test.
cdef object _F64 = _np.dtype(_np.float64)
cdef object _F32 = _np.dtype(_np.float32)
cdef object _C128 = _np.dtype(_np.complex128)
cdef object _C64 = _np.dtype(_np.complex64)


cdef enum:
    DK_OTHER = 0      # integer, boolean, object…: no tangent space
    DK_REAL = 1       # a float dtype
    DK_COMPLEX = 2    # a complex dtype


cdef inline int _descr_kind(PyObject* dt) except -1:
    """What this dtype (a borrowed pointer) is to the rules: DK_REAL,
    DK_COMPLEX or DK_OTHER; the built-in singletons without a lookup."""
    if dt == <PyObject*>_F64 or dt == <PyObject*>_F32:
        return DK_REAL
    if dt == <PyObject*>_C128 or dt == <PyObject*>_C64:
        return DK_COMPLEX
    k = (<object>dt).kind
    return DK_REAL if k == "f" else DK_COMPLEX if k == "c" else DK_OTHER


cdef inline bint _inexact_descr(PyObject* dt) except -1:
    """Is this dtype (a borrowed pointer) a float or complex one?"""
    return _descr_kind(dt) != DK_OTHER


include "tangent_types.pxi"
include "tangent_arithmetic.pxi"
include "structural.pxi"
include "projection.pxi"
include "config.pxi"
include "dispatch.pxi"
include "scalar_table.pxi"
include "scalar_math.pxi"
include "scalar_cmath.pxi"
include "scalar_operator.pxi"
include "scalar_numpy.pxi"
include "ad_forward.pxi"
include "ad_reverse.pxi"
include "ad_call.pxi"
include "array_rules.pxi"


# Python may not create the objects that only rules make (see cr_forbid_new).
for _cls in (_UnaryPullback, _BinaryPullback, _GetitemPullback, _ScalarSpec, _ScalarFrule,
             _ScalarRrule, _ScalarRulePullback, _ScalarRow, _ScalarPullback, _GenericPullback,
             _FlatRecord, _Rule):
    cr_forbid_new(_cls)
del _cls
