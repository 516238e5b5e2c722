# AD ENGINE: tags, the Tracked base class (registered as a traced type), forward mode's Dual.
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 1: tags, the tracked-value base
# class, and forward mode's dual number.
#
# Tags.  Every differentiation (derivative, gradient, rrule_via_ad, …) takes a
# fresh tag from one counter, so a differentiation started inside another has
# the larger tag.  An operation meeting tracked values of several tags is done
# for the largest one, the others being constants at that level (they become
# part of the primal): nested derivatives never mix their perturbations
# (Siskind & Pearlmutter's "perturbation confusion").  The tags of the
# differentiations under way are kept in a set, so that a tracked value that
# escaped a finished differentiation is reported, not silently used.
#
# The scalar fast path.  A Dual whose primal and tangent are Python floats
# keeps them as C doubles; Python operators and chainrules.ad.math calls on it
# run the C kernels of the scalar rule table (scalar_table.pxi) directly, with
# no Python call.  Everything else (arrays, complex numbers, NumPy scalars,
# nested tags, functions whose rules are written in Python) goes to the
# generic engine, chainrules/ad/_tracing.py, through one dispatch hook.
# ---------------------------------------------------------------------------

import operator as _ad_operator

cdef long _ad_last_tag = 0
cdef set _ad_active = set()
cdef bint _ad_last_live = False      # the newest tag is under way (the hot path's check)
cdef object _ad_dispatch = None      # chainrules.ad._tracing.dispatch


cdef long _ad_open() except -1:
    global _ad_last_tag
    global _ad_last_live
    _ad_last_tag += 1
    _ad_active.add(_ad_last_tag)
    _ad_last_live = True
    return _ad_last_tag


cdef inline void _ad_close_tag(long tag):
    """The differentiation of this tag is finished."""
    global _ad_last_live
    _ad_active.discard(tag)
    if tag == _ad_last_tag:
        _ad_last_live = False


cdef inline bint _ad_live(long tag) except -1:
    """The differentiation of this tag is under way: a tracked value of a
    finished one has escaped it, and the fast paths leave it to the generic
    engine, which reports it.  The newest tag, the common case, is one
    comparison; any other a lookup in the set."""
    if tag == _ad_last_tag:
        return _ad_last_live
    return tag in _ad_active


def _ad_new_tag():
    """A fresh tag, marked as under way (chainrules.ad internal)."""
    return _ad_open()


def _ad_close(long tag):
    """Mark a differentiation as finished (chainrules.ad internal)."""
    _ad_close_tag(tag)


def _ad_is_active(long tag):
    """True while the differentiation of this tag is under way."""
    return tag in _ad_active


def _ad_set_dispatch(fn):
    """Install the generic engine (chainrules.ad._tracing.dispatch)."""
    global _ad_dispatch
    _ad_dispatch = fn


# What reaches the generic engine: a call through chainrules.ad.wrap (its rule,
# or else trace inside), a Python operator, a ufunc, a NumPy function.
cdef enum:
    AK_CALL = 0
    AK_OP = 1
    AK_UFUNC = 2
    AK_ARRAY_FUNCTION = 3


cdef object _ad_generic(int kind, object f, tuple args, object kwargs):
    if _ad_dispatch is None:
        raise RuntimeError("tracked values need chainrules.ad: import chainrules.ad")
    if not kwargs:                      # flat arguments: compiled
        out = _ad_reverse_flat(kind, f, args)
        if out is not _AD_NOT_FLAT:
            return out
        out = _ad_forward_flat(kind, f, args)
        if out is not _AD_NOT_FLAT:
            return out
    return _ad_dispatch(kind, f, args, kwargs)


cdef str _AD_ADVICE = ("inside a function differentiated by chainrules.ad, call math/cmath "
                       "functions through chainrules.ad.math / chainrules.ad.cmath and any other "
                       "function with a rule through chainrules.ad.wrap(f); NumPy functions work "
                       "on tracked values directly")


cdef object _ad_strip(object x):
    """The plain value under every level of tracking."""
    while isinstance(x, Tracked):
        x = (<Tracked>x)._primal()
    return x


def _ad_strip_all(x):
    """The plain value under every level of tracking (chainrules.ad internal)."""
    return _ad_strip(x)


def _tracked_primal(x):
    """A tracked value's primal, one level down (register_traced_type's primal)."""
    return (<Tracked>x)._primal()


cdef object _tracked_primal_c(object x):
    """The same, for the rule core's C path (traced.pxi's _set_fast_traced)."""
    return (<Tracked>x)._primal()


cdef object _ad_namespace_of = None       # chainrules.ad._namespace.tracked_namespace


cdef class Tracked:
    """Tracked: base class of the values the reference AD engines trace,
    `Dual` (forward mode) and `Var` (reverse mode).

    A tracked value behaves like its primal under Python operators, the
    functions of `chainrules.ad.math`/`chainrules.ad.cmath`, functions wrapped
    with `chainrules.ad.wrap`, and NumPy functions and ufuncs (through
    `__array_ufunc__`/`__array_function__`).  Comparisons, `bool`, `int`,
    `round`, `math.floor`/`ceil`/`trunc` and formatting see the primal (their
    results have no derivative).  Conversions that would silently drop the
    derivative (`float`, `complex`, `np.asarray`, a plain `math` function)
    raise TypeError instead."""
    cdef readonly long tag
    __array_priority__ = 1000000

    cdef object _primal(self):
        raise NotImplementedError

    @property
    def primal(self):
        """The value being differentiated at this level (it may itself be
        tracked by an enclosing differentiation)."""
        return self._primal()

    # -- conversions that would lose the derivative -------------------------

    def __float__(self):
        raise TypeError(f"float() of a tracked {type(self).__name__} would lose its derivative "
                        f"(a plain math function does this too): {_AD_ADVICE}")

    def __complex__(self):
        raise TypeError(f"complex() of a tracked {type(self).__name__} would lose its derivative "
                        f"(a plain cmath function does this too): {_AD_ADVICE}")

    def __index__(self):
        raise TypeError(f"a tracked {type(self).__name__} cannot be used as an index or a size; "
                        "use int(x) for the (non-differentiable) integer value")

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and _np.dtype(dtype).kind in "biu":
            # integers (or booleans): the non-differentiable values, as int(x) gives
            return _np.asarray(_ad_strip(self), dtype=dtype)
        raise TypeError(f"converting a tracked {type(self).__name__} to a NumPy array would lose its "
                        f"derivative: {_AD_ADVICE}; a NumPy function without a rule cannot be "
                        "differentiated")

    def item(self, *args):
        raise TypeError(f".item() of a tracked {type(self).__name__} would lose its derivative; "
                        "index it instead (x[()] or x[i])")

    def __reduce__(self):
        raise TypeError(f"a tracked {type(self).__name__} cannot be pickled")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # -- what has no derivative: the primal answers -------------------------

    def __int__(self):
        return int(_ad_strip(self))

    def __bool__(self):
        return bool(_ad_strip(self))

    def __round__(self, ndigits=None):
        return round(_ad_strip(self), ndigits)

    def __floor__(self):
        return _ad_floor(_ad_strip(self))

    def __ceil__(self):
        return _ad_ceil(_ad_strip(self))

    def __trunc__(self):
        return _ad_trunc(_ad_strip(self))

    def __format__(self, spec):
        return format(_ad_strip(self), spec)

    def __eq__(self, other):
        return _ad_strip(self) == _ad_strip(other)

    def __ne__(self, other):
        return _ad_strip(self) != _ad_strip(other)

    def __lt__(self, other):
        return _ad_strip(self) < _ad_strip(other)

    def __le__(self, other):
        return _ad_strip(self) <= _ad_strip(other)

    def __gt__(self, other):
        return _ad_strip(self) > _ad_strip(other)

    def __ge__(self, other):
        return _ad_strip(self) >= _ad_strip(other)

    __hash__ = None

    # the primal's own attributes where it has them (a torch tensor's dtype is
    # torch's), NumPy's answer for Python numbers
    @property
    def shape(self):
        p = _ad_strip(self)
        return p.shape if hasattr(p, "shape") else _np.shape(p)

    @property
    def ndim(self):
        p = _ad_strip(self)
        return p.ndim if hasattr(p, "ndim") else _np.ndim(p)

    @property
    def size(self):
        p = _ad_strip(self)
        n = getattr(p, "size", None)
        if n is None:
            return _np.size(p)
        return _math.prod(p.shape) if callable(n) else n       # torch: size() is a method

    @property
    def dtype(self):
        p = _ad_strip(self)
        return p.dtype if hasattr(p, "dtype") else _np.result_type(p)

    @property
    def device(self):
        return getattr(_ad_strip(self), "device", "cpu")

    def __array_namespace__(self, *, api_version=None):
        """The namespace of the primal's library, seen through the engines:
        NumPy for NumPy values (its functions reach the engines through
        __array_ufunc__/__array_function__), for other libraries a namespace
        whose functions use their rules on tracked values
        (`chainrules.ad._namespace`)."""
        global _ad_namespace_of
        if _ad_namespace_of is None:
            from chainrules.ad._namespace import tracked_namespace
            _ad_namespace_of = tracked_namespace
        return _ad_namespace_of(_ad_strip(self))

    def __len__(self):
        return len(_ad_strip(self))

    # -- differentiable operations ------------------------------------------

    def __add__(self, other):
        return _ad_binary(OP_ADD, self, other)

    def __radd__(self, other):
        return _ad_binary(OP_ADD, other, self)

    def __sub__(self, other):
        return _ad_binary(OP_SUB, self, other)

    def __rsub__(self, other):
        return _ad_binary(OP_SUB, other, self)

    def __mul__(self, other):
        return _ad_binary(OP_MUL, self, other)

    def __rmul__(self, other):
        return _ad_binary(OP_MUL, other, self)

    def __truediv__(self, other):
        return _ad_binary(OP_TRUEDIV, self, other)

    def __rtruediv__(self, other):
        return _ad_binary(OP_TRUEDIV, other, self)

    def __floordiv__(self, other):
        return _ad_binary(OP_FLOORDIV, self, other)

    def __rfloordiv__(self, other):
        return _ad_binary(OP_FLOORDIV, other, self)

    def __mod__(self, other):
        return _ad_binary(OP_MOD, self, other)

    def __rmod__(self, other):
        return _ad_binary(OP_MOD, other, self)

    def __pow__(self, other, mod=None):
        if mod is not None:
            raise TypeError("pow(x, y, mod) is not differentiable")
        return _ad_binary(OP_POW, self, other)

    def __rpow__(self, other, mod=None):
        if mod is not None:
            raise TypeError("pow(x, y, mod) is not differentiable")
        return _ad_binary(OP_POW, other, self)

    def __matmul__(self, other):
        return _ad_generic(AK_OP, _ad_operator.matmul, (self, other), None)

    def __rmatmul__(self, other):
        return _ad_generic(AK_OP, _ad_operator.matmul, (other, self), None)

    def __divmod__(self, other):
        return _ad_generic(AK_OP, divmod, (self, other), None)

    def __rdivmod__(self, other):
        return _ad_generic(AK_OP, divmod, (other, self), None)

    def __neg__(self):
        return _ad_unary(OP_NEG, self)

    def __pos__(self):
        return _ad_unary(OP_POS, self)

    def __abs__(self):
        return _ad_unary(OP_ABS, self)

    def __getitem__(self, key):
        return _ad_generic(AK_OP, _ad_operator.getitem, (self, key), None)

    def __setitem__(self, key, value):
        raise TypeError(f"a tracked {type(self).__name__} is immutable: build a new array "
                        "(np.where, np.concatenate, …) instead of assigning into one")

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if not kwargs and method == "__call__":
            out = _ad_ufunc_fast(ufunc, inputs)     # real scalars: compiled (ad_numpy_scalar.pxi)
            if out is not None:
                return out
        return _ad_generic(AK_UFUNC, (ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _ad_generic(AK_ARRAY_FUNCTION, func, tuple(args), kwargs)

    # -- the ndarray methods people use, through the NumPy functions ---------

    @property
    def T(self):
        return _np.transpose(self)

    @property
    def mT(self):
        return _np.swapaxes(self, -1, -2)

    @property
    def real(self):
        return _np.real(self)

    @property
    def imag(self):
        return _np.imag(self)

    def conj(self):
        return _np.conjugate(self)

    def conjugate(self):
        return _np.conjugate(self)

    def sum(self, *args, **kwargs):
        return _np.sum(self, *args, **kwargs)

    def prod(self, *args, **kwargs):
        return _np.prod(self, *args, **kwargs)

    def mean(self, *args, **kwargs):
        return _np.mean(self, *args, **kwargs)

    def var(self, *args, **kwargs):
        return _np.var(self, *args, **kwargs)

    def std(self, *args, **kwargs):
        return _np.std(self, *args, **kwargs)

    def max(self, *args, **kwargs):
        return _np.max(self, *args, **kwargs)

    def min(self, *args, **kwargs):
        return _np.min(self, *args, **kwargs)

    def cumsum(self, *args, **kwargs):
        return _np.cumsum(self, *args, **kwargs)

    def cumprod(self, *args, **kwargs):
        return _np.cumprod(self, *args, **kwargs)

    def dot(self, other):
        return _np.dot(self, other)

    def reshape(self, *shape, **kwargs):
        return _np.reshape(self, shape[0] if len(shape) == 1 else shape, **kwargs)

    def transpose(self, *axes):
        return _np.transpose(self, (axes[0] if len(axes) == 1 else axes) if axes else None)

    def ravel(self, *args, **kwargs):
        return _np.ravel(self, *args, **kwargs)

    def flatten(self):
        return _np.ravel(self)

    def squeeze(self, *args, **kwargs):
        return _np.squeeze(self, *args, **kwargs)

    def swapaxes(self, a, b):
        return _np.swapaxes(self, a, b)

    def astype(self, dtype, copy=True):
        return _np.astype(self, dtype, copy=copy)

    def __getattr__(self, str name):
        raise AttributeError(f"{type(self).__name__} (tracking a {type(_ad_strip(self)).__name__}) "
                             f"has no attribute {name!r}")


import math as _ad_math
_ad_floor = _ad_math.floor
_ad_ceil = _ad_math.ceil
_ad_trunc = _ad_math.trunc


# ---------------------------------------------------------------------------
# Forward mode: the dual number primal + ε·tangent, tagged.
# ---------------------------------------------------------------------------

@cython.final
cdef class Dual(Tracked):
    """Dual(primal, tangent, tag): forward mode's tracked value, `primal + ε·tangent`
    for the differentiation `tag` (see `chainrules.ad.derivative`, `jvp`).

    The primal may be a number, an array, or a value tracked by an enclosing
    differentiation (nested derivatives); the tangent lives in the primal's
    tangent space.  Real scalars are kept as C doubles."""
    cdef double v          # the fast case: primal and tangent are Python floats
    cdef double d
    cdef object p          # the general case
    cdef object t
    cdef bint fast
    cdef bint np64         # fast, and primal and tangent are np.float64s (NumPy's semantics)

    def __init__(self, primal, tangent, long tag):
        self.tag = tag
        if type(primal) is float and (type(tangent) is float or type(tangent) is int):
            self.v = primal
            self.d = tangent
            self.fast = True
        else:
            self.p = primal
            self.t = tangent
            self.fast = False

    cdef object _primal(self):
        if self.fast:
            return cr_np_double(self.v) if self.np64 else PyFloat_FromDouble(self.v)
        return self.p

    @property
    def tangent(self):
        """The tangent (directional derivative) carried for this tag."""
        if self.fast:
            return cr_np_double(self.d) if self.np64 else PyFloat_FromDouble(self.d)
        return self.t

    def __repr__(self):
        return f"Dual({self._primal()!r}, {self.tangent!r}, tag={self.tag})"


cdef inline Dual _fast_dual(long tag, double v, double d):
    cdef Dual x = Dual.__new__(Dual)
    x.tag = tag
    x.v = v
    x.d = d
    x.fast = True
    x.np64 = False
    return x


def _ad_dual(primal, tangent, long tag):
    """A Dual for the generic engine (chainrules.ad internal)."""
    cdef Dual x
    if type(primal) is float and type(tangent) is float:
        return _fast_dual(tag, PyFloat_AS_DOUBLE(primal), PyFloat_AS_DOUBLE(tangent))
    x = Dual.__new__(Dual)
    x.tag = tag
    x.p = primal
    x.t = tangent
    x.fast = False
    return x


def _ad_derivative_scalar(f, double x, finish, by_rule):
    """The derivative of f at the real x, on the fast path when f's result is
    a fast Dual of this differentiation; `finish(tag, y)` takes every other
    result, `by_rule(f, x)` a function with rules (chainrules.ad.forward)."""
    return _ad_derivative_scalar_c(f, x, finish, by_rule)


cdef object _ad_derivative_scalar_c(object f, double x, object finish, object by_rule):
    if _lookup_table(f) is not None:
        return by_rule(f, PyFloat_FromDouble(x))
    cdef long tag = _ad_open()
    cdef Dual d = _fast_dual(tag, x, 1.0)
    try:
        y = f(d)
    finally:
        _ad_close_tag(tag)
    if type(y) is Dual and (<Dual>y).fast and (<Dual>y).tag == tag:
        return (<Dual>y).tangent
    return finish(tag, y)


# The reference AD's values are traced values to the rules (traced.pxi): every
# subclass of Tracked (Dual, Var, ad.compile's traced values).
register_traced_type(Tracked, _tracked_primal)
_set_fast_traced(Tracked, _tracked_primal_c)
