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

_ndarray = _np.ndarray
_np_generic = _np.generic

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
