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

# Binds libm's exp, exp2, log, log2, pow and hypot to their oldest glibc
# symbol versions (the wheel's manylinux tag); see the header.
cdef extern from "glibc_compat.h":
    pass

import math as _math
import dataclasses as _dataclasses
import threading as _threading
import typing as _typing
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
    /* NumPy's own headers (meson.build passes numpy.get_include() and
       NPY_TARGET_VERSION=2.0): the array fields through NumPy's accessors,
       its C API through the table that import_array checks (ABI and API
       versions) when the module is loaded. */
    #include <numpy/arrayobject.h>
    /* a and b are exact ndarrays: same dtype object and same shape. */
    static inline int cr_same_layout(PyObject *a, PyObject *b) {
        PyArrayObject *p = (PyArrayObject *)a, *q = (PyArrayObject *)b;
        if ((PyObject *)PyArray_DESCR(p) != (PyObject *)PyArray_DESCR(q)) return 0;
        return PyArray_NDIM(p) == PyArray_NDIM(q)
            && PyArray_CompareLists(PyArray_DIMS(p), PyArray_DIMS(q), PyArray_NDIM(p));
    }
    /* a is an exact ndarray: its dtype, borrowed. */
    static inline PyObject *cr_descr(PyObject *a) {
        return (PyObject *)PyArray_DESCR((PyArrayObject *)a);
    }
    /* a and b are exact ndarrays of the same shape (any dtypes). */
    static inline int cr_same_dims(PyObject *a, PyObject *b) {
        PyArrayObject *p = (PyArrayObject *)a, *q = (PyArrayObject *)b;
        return PyArray_NDIM(p) == PyArray_NDIM(q)
            && PyArray_CompareLists(PyArray_DIMS(p), PyArray_DIMS(q), PyArray_NDIM(p));
    }
    /* a is an exact ndarray, shape a tuple of ints: is a's shape `shape`? */
    static inline int cr_dims_are(PyObject *a, PyObject *shape) {
        PyArrayObject *p = (PyArrayObject *)a;
        int nd = PyArray_NDIM(p);
        npy_intp *dims = PyArray_DIMS(p);
        if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != nd) return 0;
        for (int i = 0; i < nd; i++) {
            PyObject *n = PyTuple_GET_ITEM(shape, i);
            if (!PyLong_CheckExact(n) || PyLong_AsSsize_t(n) != dims[i]) {
                PyErr_Clear();
                return 0;
            }
        }
        return 1;
    }
    /* NumPy's C API table; -1 with NumPy's ImportError set when the NumPy
       that is loaded cannot run this build. */
    static int cr_import_numpy(void) {
        return _import_array();
    }
    /* a is an exact ndarray, shape a tuple: a read-only view of a broadcast
       to shape (NumPy's rules), a new reference; None when this cannot be
       done here (shape not ints, too many dimensions, a does not broadcast:
       the caller asks NumPy, which says why); NULL with an error set on
       failure. */
    static PyObject *cr_broadcast_view(PyObject *a, PyObject *shape) {
        PyArrayObject *p = (PyArrayObject *)a;
        int pnd = PyArray_NDIM(p);
        npy_intp *pdims = PyArray_DIMS(p), *pstrides = PyArray_STRIDES(p);
        npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
        Py_ssize_t nd = PyTuple_GET_SIZE(shape);
        if (nd > NPY_MAXDIMS || nd < pnd) Py_RETURN_NONE;
        for (Py_ssize_t i = 0; i < nd; i++) {
            PyObject *item = PyTuple_GET_ITEM(shape, i);
            Py_ssize_t n = PyLong_CheckExact(item) ? PyLong_AsSsize_t(item) : -1;
            if (n < 0) { PyErr_Clear(); Py_RETURN_NONE; }
            Py_ssize_t j = i - (nd - pnd);
            dims[i] = n;
            if (j < 0) strides[i] = 0;
            else if (pdims[j] == n) strides[i] = pstrides[j];
            else if (pdims[j] == 1) strides[i] = 0;
            else Py_RETURN_NONE;
        }
        PyArray_Descr *descr = PyArray_DESCR(p);
        Py_INCREF(descr);                                   /* stolen */
        PyObject *v = PyArray_NewFromDescr(Py_TYPE(a), descr, (int)nd, dims, strides,
                                           PyArray_DATA(p), 0, NULL);
        if (v == NULL) return NULL;
        Py_INCREF(a);                                       /* stolen, even on failure */
        if (PyArray_SetBaseObject((PyArrayObject *)v, a) < 0) { Py_DECREF(v); return NULL; }
        return v;
    }
    /* a is an exact ndarray: a new zero array of its shape and dtype. */
    static PyObject *cr_zeros_like(PyObject *a) {
        PyArrayObject *p = (PyArrayObject *)a;
        PyArray_Descr *descr = PyArray_DESCR(p);
        Py_INCREF(descr);                                   /* PyArray_Zeros steals it */
        return PyArray_Zeros(PyArray_NDIM(p), PyArray_DIMS(p), descr, 0);
    }
    /* a is an exact ndarray: its number of elements. */
    static inline Py_ssize_t cr_size(PyObject *a) {
        return PyArray_SIZE((PyArrayObject *)a);
    }
    static const unsigned int cr_numpy_build_api = NPY_API_VERSION;
    static const unsigned int cr_numpy_target_api = NPY_FEATURE_VERSION;
    """
    bint cr_same_layout(PyObject* a, PyObject* b)
    bint cr_same_dims(PyObject* a, PyObject* b)
    bint cr_dims_are(PyObject* a, PyObject* shape)
    Py_ssize_t cr_size(PyObject* a)
    PyObject* cr_descr(PyObject* a)
    int cr_import_numpy() except -1
    object cr_zeros_like(PyObject* a)
    object cr_broadcast_view(PyObject* a, PyObject* shape)
    const unsigned int cr_numpy_build_api
    const unsigned int cr_numpy_target_api

# The NumPy C API versions this build was compiled with and needs at least.
NUMPY_BUILD_API = cr_numpy_build_api
NUMPY_TARGET_API = cr_numpy_target_api

try:
    cr_import_numpy()
except (ImportError, RuntimeError, AttributeError) as e:
    raise ImportError(
        f"chainrules' compiled core cannot run with the NumPy that is installed "
        f"({_np.__version__}): it was built against NumPy's C API {cr_numpy_build_api:#x} "
        f"and needs at least {cr_numpy_target_api:#x} (NumPy 2.0).  Install NumPy >= 2.0, "
        f"or rebuild chainrules against this NumPy (pip install --no-binary chainrules "
        f"--force-reinstall chainrules).  NumPy said: {e}") from e

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
include "traced.pxi"
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
include "ad_numpy_scalar.pxi"
include "ad_forward_flat.pxi"
include "ad_call.pxi"
include "ad_entry.pxi"
include "array_rules.pxi"
include "array_frules.pxi"
include "ad_compile_env.pxi"
include "ad_compile.pxi"
include "ad_replay.pxi"
include "native.pxi"
include "namespace.pxi"


# Python may not create the objects that only rules make (see cr_forbid_new).
for _cls in (_UnaryPullback, _BinaryPullback, _GetitemPullback, _ScalarSpec, _ScalarFrule,
             _ScalarRrule, _ScalarRulePullback, _ScalarRow, _ScalarPullback, _GenericPullback,
             _FlatRecord, _Rule):
    cr_forbid_new(_cls)
del _cls
