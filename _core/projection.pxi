# RULE CORE: ProjectTo (a tangent onto a primal's tangent space) and add_inplace.
# ---------------------------------------------------------------------------
# ProjectTo: built from a primal in the forward pass, maps a tangent onto that
# primal's tangent space (dtype, real/complex, shape, no-tangent types).
# add_inplace: ChainRules' add!!.
#
# Decisions: Python ints are real numbers (the seed differentiates sin at x=3),
# their tangents are floats; bools, NumPy integer scalars and arrays, strings
# and None have NoTangent().
# ---------------------------------------------------------------------------

cdef enum:
    K_NONE = 0        # NoTangent()
    K_FLOAT = 1       # Python float / int
    K_COMPLEX = 2     # Python complex
    K_NPSCALAR = 3    # NumPy floating or complex scalar
    K_ARRAY = 4       # float or complex ndarray
    K_TUPLE = 5       # tuple / namedtuple / list: element-wise, a Tangent
    K_ANY = 6         # unknown: passed through


cdef class ProjectTo:
    """ProjectTo(x)

    A projector onto the tangent space of x.  Build it in the forward pass
    (it keeps only what it needs of x: type, dtype, shape), call it on a
    tangent in the pullback::

        project_x = ProjectTo(x)
        def pullback(ȳ):
            return NoTangent(), project_x(ȳ * 2)

    - float / int: a float; complex input to a real primal keeps the real part.
    - complex: a complex.   NumPy scalars: the same NumPy scalar type.
    - arrays: same dtype (float32 stays float32, real part for real arrays),
      same shape (trivial dimensions added or removed; anything else raises
      ValueError naming both shapes), always a plain ndarray: the tangent of
      an ndarray subclass (np.matrix, whose * is a matrix product) is a
      plain ndarray of its dtype and shape.
    - bools, integer NumPy values, strings, None: NoTangent().
    - tuples and namedtuples: element-wise, giving a Tangent.

    Zeros pass through; thunks are unthunked."""
    cdef readonly int kind
    cdef readonly object dtype
    cdef readonly object shape
    cdef readonly object primal_type
    cdef tuple elements

    def __cinit__(self, x=None):
        cdef type t = type(x)
        self.primal_type = t
        if t is _ndarray:                  # the common case of array rules first
            if _inexact_descr(cr_descr(<PyObject*>x)):
                self.kind = K_ARRAY
                self.dtype = <object>cr_descr(<PyObject*>x)
                self.shape = x.shape
            else:
                self.kind = K_NONE
        elif t is float or t is int:
            self.kind = K_FLOAT
        elif t is complex:
            self.kind = K_COMPLEX
        elif t is bool or x is None or isinstance(x, (str, bytes)):
            self.kind = K_NONE
        elif isinstance(x, _ndarray):
            if x.dtype.kind in "fc":
                self.kind = K_ARRAY
                self.dtype = x.dtype
                self.shape = x.shape
            else:
                self.kind = K_NONE
        elif isinstance(x, _np_generic):
            if x.dtype.kind in "fc":
                self.kind = K_NPSCALAR
                self.dtype = x.dtype
            else:
                self.kind = K_NONE
        elif isinstance(x, float):
            self.kind = K_FLOAT
        elif isinstance(x, complex):
            self.kind = K_COMPLEX
        elif isinstance(x, int):
            self.kind = K_NONE if isinstance(x, bool) else K_FLOAT
        elif isinstance(x, (tuple, list)):
            self.kind = K_TUPLE
            self.elements = _element_projectors(self, x)
        else:
            self.kind = K_ANY

    def __call__(self, dx):
        return self.project(dx)

    cpdef object project(self, object dx):
        cdef type t
        if self.kind == K_NONE:
            return NO_TANGENT
        t = type(dx)
        if self.kind == K_FLOAT:
            if t is float:
                return dx
            if t is int:
                return float(<object>dx)
            if t is complex:
                return (<complex>dx).real
        if isinstance(dx, AbstractZero) or isinstance(dx, NotImplementedTangent):
            return dx
        if isinstance(dx, AbstractThunk):
            return self.project(_unthunk(dx))
        if _is_traced(dx) and self.kind != K_TUPLE and self.kind != K_ANY:
            return self._tracked(dx)
        if self.kind == K_FLOAT:
            return self._scalar(dx, False, float)
        if self.kind == K_COMPLEX:
            return self._scalar(dx, True, complex)
        if self.kind == K_NPSCALAR:
            return self._scalar(dx, self.dtype.kind == "c", self.dtype.type)
        if self.kind == K_ARRAY:
            return self._array(dx)
        if self.kind == K_TUPLE:
            _enter_recursion(" in ProjectTo")
            try:
                return self._tuple(dx)
            finally:
                _leave_recursion()
        return dx

    cdef object _scalar(self, object dx, bint is_complex, object totype):
        if isinstance(dx, _ndarray):
            if dx.size != 1:
                raise ValueError(f"ProjectTo: a tangent of shape {dx.shape} does not fit the scalar "
                                 f"{self.primal_type.__name__}")
            dx = dx.reshape(()).item() if dx.ndim else dx[()]
        if not is_complex and isinstance(dx, (complex, _np.complexfloating)):
            dx = dx.real
        try:
            return totype(dx)
        except (TypeError, ValueError):
            raise TypeError(f"ProjectTo: cannot project a {type(dx).__name__} onto the tangent space "
                            f"of a {self.primal_type.__name__}") from None

    cdef object _tracked(self, object dx):
        # A cotangent tracked by an enclosing differentiation, for a primal the enclosing
        # one does not track (a rule's pullback run inside a nested differentiation, e.g.
        # a mixed partial or a constant array stacked with tracked ones): projected with
        # operations the enclosing engine records, never converted to an array.
        cdef tuple shape = self.shape if self.kind == K_ARRAY else ()
        if (self.kind == K_FLOAT or (self.kind != K_COMPLEX and self.dtype.kind != "c")) \
                and _np.iscomplexobj(dx):
            dx = _np.real(dx)
        dshape = _np.shape(dx)
        if dshape != shape:
            if _np.size(dx) == _prod(shape) and \
                    tuple([d for d in dshape if d != 1]) == tuple([d for d in shape if d != 1]):
                dx = _np.reshape(dx, shape)
            else:
                raise ValueError(f"ProjectTo: a tangent of shape {dshape} does not fit "
                                 f"{'an array of shape ' + str(shape) if shape else 'a scalar'}")
        return dx

    cdef object _array(self, object dx):
        if (type(dx) is _ndarray and cr_descr(<PyObject*>dx) == <PyObject*>self.dtype
                and cr_dims_are(<PyObject*>dx, <PyObject*>self.shape)):
            return dx                       # already in the tangent space: no work
        if not isinstance(dx, _ndarray):
            if isinstance(dx, StructuralTangent):
                raise TypeError(f"ProjectTo: cannot project a {type(dx).__name__} onto an array of "
                                f"shape {self.shape}")
            dx = _np.asarray(dx)
        elif type(dx) is not _ndarray:
            dx = _np.asarray(dx)            # a subclass (np.matrix): tangents are plain ndarrays
        if self.dtype.kind != "c" and dx.dtype.kind == "c":
            dx = dx.real
        if dx.dtype != self.dtype:
            dx = dx.astype(self.dtype)
        if dx.shape != self.shape:
            if dx.size == _prod(self.shape) and \
                    tuple([d for d in dx.shape if d != 1]) == tuple([d for d in self.shape if d != 1]):
                dx = dx.reshape(self.shape)
            else:
                raise ValueError(f"ProjectTo: a tangent of shape {dx.shape} does not fit an array "
                                 f"of shape {self.shape}")
        return dx

    cdef object _tuple(self, object dx):
        # An ndarray onto a tuple or list: the primal was an array-like (np.sum([a, b])),
        # the array's rows are the elements' tangents.
        if isinstance(dx, StructuralTangent) or isinstance(dx, (tuple, list)) or \
                (isinstance(dx, _ndarray) and dx.ndim >= 1):
            vals = list(dx)
            if len(vals) != len(self.elements):
                raise ValueError(f"ProjectTo: a tangent of {len(vals)} elements does not fit a "
                                 f"{self.primal_type.__name__} of {len(self.elements)}")
            return Tangent[self.primal_type](*[(<ProjectTo>p).project(v) for p, v in zip(self.elements, vals)])
        raise TypeError(f"ProjectTo: cannot project a {type(dx).__name__} onto a {self.primal_type.__name__}")

    def __reduce__(self):
        return (_rebuild_projector, (self.kind, self.dtype, self.shape, self.primal_type,
                                     self.elements))

    def __repr__(self):
        names = {K_NONE: "NoTangent", K_FLOAT: "float", K_COMPLEX: "complex", K_NPSCALAR: "numpy scalar",
                 K_ARRAY: "array", K_TUPLE: "tuple", K_ANY: "any"}
        extra = ""
        if self.kind == K_ARRAY:
            extra = f", dtype={self.dtype}, shape={self.shape}"
        elif self.kind == K_NPSCALAR:
            extra = f", dtype={self.dtype}"
        return f"ProjectTo({names[self.kind]}{extra})"


def _rebuild_projector(int kind, dtype, shape, primal_type, elements):
    """ProjectTo from its parts (copy and pickle)."""
    cdef ProjectTo p = ProjectTo.__new__(ProjectTo)
    if kind not in (K_NONE, K_FLOAT, K_COMPLEX, K_NPSCALAR, K_ARRAY, K_TUPLE, K_ANY):
        raise ValueError(f"ProjectTo: no projector of kind {kind}")
    if kind == K_ARRAY and (not isinstance(dtype, _np.dtype) or not isinstance(shape, tuple)):
        raise TypeError("ProjectTo: an array projector needs a dtype and a shape")
    if kind == K_TUPLE and not isinstance(elements, tuple):
        raise TypeError("ProjectTo: a tuple projector needs its element projectors")
    p.kind = kind
    p.dtype = dtype
    p.shape = shape
    p.primal_type = primal_type
    p.elements = elements
    return p


# The containers whose projectors are being built (id -> projector): a list
# that contains itself projects its elements with its own projector.
cdef dict _projecting = {}


cdef tuple _element_projectors(ProjectTo self, object x):
    cdef object key = id(x)
    _projecting[key] = self
    _enter_recursion(" in ProjectTo")
    try:
        return tuple([_projecting.get(id(v)) or ProjectTo(v) for v in x])
    finally:
        _leave_recursion()
        del _projecting[key]


cdef Py_ssize_t _prod(tuple shape):
    cdef Py_ssize_t n = 1
    for d in shape:
        n *= d
    return n


def is_inplaceable_destination(x):
    """is_inplaceable_destination(x): True when x is a writable float or
    complex NumPy array that `add_inplace` may accumulate into."""
    return isinstance(x, _ndarray) and x.flags.writeable and x.dtype.kind in "fc"


def add_inplace(x, dx):
    """add_inplace(x, dx) -> x + dx, mutating x where it can (ChainRules' add!!).

    Always use the return value: x is mutated only when it is an inplaceable
    destination and the sum fits in it; an `InplaceableThunk` is accumulated
    with its `add_fn`, avoiding the temporary."""
    if isinstance(dx, AbstractZero):
        return x
    if isinstance(dx, InplaceableThunk):
        if is_inplaceable_destination(x):
            return (<InplaceableThunk>dx).add_fn(x)
        return tangent_add(x, _unthunk(dx))
    if isinstance(x, AbstractZero):
        return _unthunk(dx)
    if is_inplaceable_destination(x):
        d = _unthunk(dx)
        if isinstance(d, (_ndarray, int, float, complex, _np_generic)):
            if _np.result_type(x, d) == x.dtype and _np.broadcast_shapes(x.shape, _np.shape(d)) == x.shape:
                _np.add(x, d, out=x)
                return x
        return tangent_add(x, d)
    return tangent_add(x, dx)
