# RULE CORE: tangent types (the zeros, thunks, "not implemented").
# ---------------------------------------------------------------------------
# Tangent types: the zeros, thunks and "not implemented".
# Structural tangents (Tangent[P], MutableTangent[P]) are in structural.pxi.
# ---------------------------------------------------------------------------

cdef extern from *:
    """
    /* ZeroTangent() and NoTangent() must return their one instance, also when
       pickle calls the class.  Cython has no __new__ for cdef classes, so the
       type's tp_new is swapped for this one once the instance exists. */
    static PyObject *cr_singleton_obj[2] = {NULL, NULL};
    static PyTypeObject *cr_singleton_type[2] = {NULL, NULL};

    static PyObject *cr_singleton_new(PyTypeObject *t, PyObject *args, PyObject *kw) {
        int i;
        if ((args && PyTuple_GET_SIZE(args)) || (kw && PyDict_GET_SIZE(kw))) {
            PyErr_Format(PyExc_TypeError, "%s() takes no arguments", t->tp_name);
            return NULL;
        }
        for (i = 0; i < 2; i++) {
            if (cr_singleton_type[i] == t) {
                Py_INCREF(cr_singleton_obj[i]);
                return cr_singleton_obj[i];
            }
        }
        PyErr_Format(PyExc_TypeError, "%s cannot be subclassed", t->tp_name);
        return NULL;
    }

    static int cr_make_singleton(int slot, PyObject *type, PyObject *inst) {
        PyTypeObject *t = (PyTypeObject *)type;
        Py_INCREF(inst);
        cr_singleton_obj[slot] = inst;
        cr_singleton_type[slot] = t;
        t->tp_new = cr_singleton_new;
        t->tp_vectorcall = NULL;  /* Cython may install a vectorcall that skips tp_new */
        PyType_Modified(t);
        return 0;
    }
    """
    int cr_make_singleton(int slot, object type, object inst) except -1


cdef extern from *:
    """
    /* The classes that only rules create (pullbacks, rule objects, rows):
       Python may not create them (`type(pb).__new__(type(pb))` would give an
       object whose C fields are empty).  Cython's own `T.__new__(T)` calls
       the class's tp_new function directly, not through the slot, so the
       slot can refuse. */
    static PyObject *cr_internal_new(PyTypeObject *t, PyObject *args, PyObject *kw) {
        PyErr_Format(PyExc_TypeError,
                     "cannot create '%s' objects: they are made by chainrules' rules "
                     "(call rrule/frule instead)", t->tp_name);
        return NULL;
    }
    static int cr_forbid_new(PyObject *type) {
        PyTypeObject *t = (PyTypeObject *)type;
        t->tp_new = cr_internal_new;
        PyType_Modified(t);
        return 0;
    }
    """
    int cr_forbid_new(object type) except -1


cdef class AbstractTangent:
    """Base class of every tangent type of chainrules.

    Plain numbers and NumPy arrays are tangents too; this class marks the
    special ones (zeros, thunks, structural tangents)."""
    # NumPy must hand binary operators back to us (np.ones(3) + ZeroTangent()
    # is the array, not an object array).
    __array_ufunc__ = None
    __array_priority__ = 1000

    # Every operator goes through the precedence ladder (tangent_arithmetic.pxi).
    # A subclass outside the ladder (none of zero, thunk, structural, not
    # implemented) that defines no operator of its own has no arithmetic.
    def __add__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_add(self, other)

    def __radd__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_add(other, self)

    def __sub__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_sub(self, other)

    def __rsub__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_sub(other, self)

    def __mul__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_mul(self, other)

    def __rmul__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_mul(other, self)

    def __truediv__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_div(self, other)

    def __rtruediv__(self, other):
        return NotImplemented if _rank(self) == R_ANY else tangent_div(other, self)

    def __neg__(self):
        if _rank(self) == R_ANY:
            raise TypeError(f"bad operand type for unary -: '{type(self).__name__}'")
        return tangent_neg(self)

    def __pos__(self):
        return self


cdef class AbstractZero(AbstractTangent):
    """A tangent that is known to be zero: `ZeroTangent` or `NoTangent`.

    Zeros short-circuit arithmetic (see tangent_arithmetic.pxi) and index to
    themselves: `z[i] is z`."""

    def __bool__(self):
        return False

    def __getitem__(self, key):
        return self

    def __iter__(self):
        raise TypeError(f"{type(self).__name__}() is not iterable; index it instead (z[i] is z)")

    def __len__(self):
        return 0

    def conj(self):
        return self

    def conjugate(self):
        return self

    @property
    def real(self):
        return self

    @property
    def imag(self):
        return self

    def __reduce__(self):
        return (type(self), ())

    def __hash__(self):
        return hash(type(self).__name__)

    def __repr__(self):
        return f"{type(self).__name__}()"


cdef class ZeroTangent(AbstractZero):
    """ZeroTangent()

    The hard zero tangent: the derivative is known to be zero.  A singleton:
    `ZeroTangent() is ZeroTangent()`.  Adding it returns the other operand,
    multiplying by it returns it (`ZeroTangent() * x is ZeroTangent()`).

    See also: `NoTangent`, `zero_tangent`."""

    def __float__(self):
        return 0.0

    def __complex__(self):
        return 0j

    def __int__(self):
        return 0


cdef class NoTangent(AbstractZero):
    """NoTangent()

    "There is no tangent space": for integers used as indices, booleans,
    strings, and functions without fields (`∂self` of `math.sin`).  A singleton;
    `NO_FIELDS` is the same object.  It acts as a zero in arithmetic, and wins
    addition against `ZeroTangent` (`NoTangent() + ZeroTangent() is NoTangent()`)
    while `ZeroTangent` wins multiplication.

    See also: `ZeroTangent`, `non_differentiable`."""


cdef ZeroTangent ZERO = ZeroTangent()
cdef NoTangent NO_TANGENT = NoTangent()
cr_make_singleton(0, ZeroTangent, ZERO)
cr_make_singleton(1, NoTangent, NO_TANGENT)
NO_FIELDS = NO_TANGENT


cdef class AbstractThunk(AbstractTangent):
    """Base class of deferred tangents; `unthunk` evaluates them."""

    cpdef object unthunk(self):
        raise NotImplementedError

    def __call__(self):
        return self.unthunk()

    def conj(self):
        return _conj(self.unthunk())

    def conjugate(self):
        return _conj(self.unthunk())

    @property
    def real(self):
        return _real(self.unthunk())

    @property
    def imag(self):
        return _imag(self.unthunk())


cdef class Thunk(AbstractThunk):
    """Thunk(fn)

    A deferred tangent: `fn()` computes it.  `unthunk(t)` (or `t()`) calls `fn`
    every time; arithmetic on a thunk unthunks it first.

    Thunk an input's cotangent when it is expensive and may not be needed (the
    AD may drop it).  Do not thunk scalars or anything cheap: creating the thunk
    costs more than the arithmetic it saves, and never thunk something that
    reads a value the caller may mutate before the thunk runs.

    Example::

        def matmul_pullback(ȳ):
            return NoTangent(), Thunk(lambda: ȳ @ B.T), Thunk(lambda: A.T @ ȳ)

    See also: `InplaceableThunk`, `unthunk`."""
    cdef readonly object fn

    def __cinit__(self, fn):
        if not callable(fn):
            raise TypeError(f"Thunk(fn): fn must be a callable taking no arguments, got {type(fn).__name__}")
        self.fn = fn

    cpdef object unthunk(self):
        return _unthunk(self)

    def __repr__(self):
        return f"Thunk({self.fn!r})"


    def __reduce__(self):
        return (Thunk, (self.fn,))


def thunk(fn):
    """thunk(fn) -> Thunk(fn); usable as a decorator on a function of no arguments."""
    return Thunk(fn)


cdef class InplaceableThunk(AbstractThunk):
    """InplaceableThunk(add_fn, val)

    A thunk that can also accumulate itself into an existing array:
    `add_fn(dest)` must do `dest += unthunk(val)` and return `dest` (in place
    where possible).  `val` is usually a `Thunk`; `add_inplace(dest, t)` uses
    `add_fn`, every other operation uses `val`.

    Example (indexing: repeated indices accumulate)::

        InplaceableThunk(lambda dx: np.add.at(dx, idx, ȳ) or dx,
                         Thunk(lambda: scatter(ȳ, idx, shape)))"""
    cdef readonly object add_fn
    cdef readonly object val

    def __cinit__(self, add_fn, val):
        if not callable(add_fn):
            raise TypeError(f"InplaceableThunk(add_fn, val): add_fn must be callable, got {type(add_fn).__name__}")
        self.add_fn = add_fn
        self.val = val

    cpdef object unthunk(self):
        return _unthunk(self)

    def __repr__(self):
        return f"InplaceableThunk({self.add_fn!r}, {self.val!r})"

    def __reduce__(self):
        return (InplaceableThunk, (self.add_fn, self.val))


cdef inline object _unthunk(object x):
    if isinstance(x, AbstractThunk):
        return _unthunk_loop(x)
    return x


cdef object _unthunk_loop(object x):
    """Evaluate thunks until a value comes out, in a loop (a thunk may return
    a thunk: a chain of any length takes no C stack).  A thunk that gives
    back a thunk seen before is a cycle: an error, not an endless loop."""
    cdef object saved = None      # Brent's cycle check: x at the last power of two
    cdef Py_ssize_t steps = 0, power = 64
    cdef type t
    while isinstance(x, AbstractThunk):
        t = type(x)
        if x is saved:
            raise ValueError(f"unthunk: a cycle of thunks ({x!r} comes back after a chain of thunks)")
        steps += 1
        if steps == power:
            saved = x
            power *= 2
        if t is Thunk:
            y = (<Thunk>x).fn()
        elif t is InplaceableThunk:
            y = (<InplaceableThunk>x).val
        else:
            y = (<AbstractThunk>x).unthunk()
        if y is x:
            raise ValueError(f"unthunk: {x!r} evaluates to itself")
        x = y
    return x


def unthunk(x):
    """unthunk(x): evaluate a thunk; the identity on everything else."""
    if isinstance(x, AbstractThunk):
        return _unthunk(x)
    return x


cdef class _CompiledPullback:
    """Base of the compiled pullbacks.  A pullback holds its forward pass's
    values and is never changed by calling it: a copy is the pullback itself.
    It cannot be pickled (what it holds may be arrays of any size, views, or
    the row of a C table)."""

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError(f"{self!r} cannot be pickled: a pullback holds the values of its "
                        "forward pass; pickle the inputs instead and call rrule on them again")


class NotImplementedTangentError(NotImplementedError):
    """Raised when arithmetic needs the value of a `NotImplementedTangent`."""


cdef class NotImplementedTangent(AbstractTangent):
    """NotImplementedTangent(info)

    "This derivative is not implemented".  It wins addition and multiplication
    (so it propagates to the result and marks it), loses multiplication against
    the zeros (a partial that is multiplied by zero is not needed), and raises
    `NotImplementedTangentError` wherever its value is needed (subtraction,
    division, conversion).  Create with `not_implemented(info)`."""
    cdef readonly object info

    def __cinit__(self, info=None):
        self.info = info

    def __repr__(self):
        return f"NotImplementedTangent({self.info!r})"

    def __reduce__(self):
        return (NotImplementedTangent, (self.info,))

    def _fail(self):
        raise NotImplementedTangentError(f"the derivative is not implemented: {self.info}")

    def __float__(self):
        self._fail()

    def __complex__(self):
        self._fail()

    def __bool__(self):
        self._fail()

    def conj(self):
        return self

    def conjugate(self):
        return self


def not_implemented(info=None):
    """not_implemented(info) -> NotImplementedTangent: mark a partial as not implemented."""
    return NotImplementedTangent(info)
