# RULE CORE: structural tangents Tangent[P], MutableTangent[P] and taking primals apart.
# ---------------------------------------------------------------------------
# Structural tangents: Tangent[P] and MutableTangent[P], and the helpers that
# take primals apart and put them together (backing, construct, canonicalize).
#
# Backing: a tuple for tuples, lists and namedtuples (namedtuples padded to
# their fields; a list's tangent is Tangent[list], so that tangents of lists
# add element-wise instead of concatenating), a dict for dicts, dataclasses and plain objects.  Absent fields read
# as ZeroTangent().
# ---------------------------------------------------------------------------

cdef dict _structural_classes = {}
_structural_lock = _threading.Lock()

# A MutableTangent can hold itself (t.x = t), directly or through other
# tangents (issue 21): every walk of the fields either handles the cycle
# (repr shows it as "...", pickle and copy rebuild it) or stops with a
# RecursionError (conj, real, imag, ==, arithmetic) -- never a C stack overflow.
cdef extern from *:
    int _repr_enter "Py_ReprEnter" (object o) except -1
    void _repr_leave "Py_ReprLeave" (object o)


cdef inline bint _is_namedtuple_type(object P):
    return isinstance(P, type) and issubclass(P, tuple) and hasattr(P, "_fields")


cdef object _make_backing(object P, tuple elems, dict fields, str who):
    if elems and fields:
        raise TypeError(f"{who}: give either positional elements or keyword fields, not both")
    if isinstance(P, type) and issubclass(P, dict):
        if elems:
            if len(elems) != 1 or not isinstance(elems[0], dict):
                raise TypeError(f"{who}: expected one dict of tangents or keyword fields")
            return dict(elems[0])
        return dict(fields)
    if isinstance(P, type) and issubclass(P, (tuple, list)):
        if _is_namedtuple_type(P):
            names = P._fields
            if fields:
                unknown = [k for k in fields if k not in names]
                if unknown:
                    raise TypeError(f"{who}: {P.__name__} has no field(s) {unknown}; fields are {list(names)}")
                return tuple(fields.get(k, ZERO) for k in names)
            if len(elems) > len(names):
                raise TypeError(f"{who}: {P.__name__} has {len(names)} fields, got {len(elems)} elements")
            return tuple(elems) + (ZERO,) * (len(names) - len(elems))
        if fields:
            raise TypeError(f"{who}: a tuple or list tangent takes positional elements, not keyword fields")
        return tuple(elems)
    if elems:
        if _dataclasses.is_dataclass(P):
            names = [f.name for f in _dataclasses.fields(P)]
            if len(elems) > len(names):
                raise TypeError(f"{who}: {P.__name__} has {len(names)} fields, got {len(elems)} elements")
            return dict(zip(names, elems))
        raise TypeError(f"{who}: a tangent of {getattr(P, '__name__', P)!s} takes keyword fields")
    if _dataclasses.is_dataclass(P):
        names = {f.name for f in _dataclasses.fields(P)}
        unknown = [k for k in fields if k not in names]
        if unknown:
            raise TypeError(f"{who}: {P.__name__} has no field(s) {unknown}")
    return dict(fields)


cdef inline bint _iszero_value(object v):
    if isinstance(v, AbstractZero):
        return True
    if type(v) is float or type(v) is int or type(v) is complex:
        return v == 0
    if isinstance(v, _ndarray):
        return not v.any()
    if isinstance(v, _np_generic):
        return bool(v == 0)
    return False


cdef bint _values_equal(object a, object b):
    if a is b:
        return True
    if _iszero_value(a) and _iszero_value(b):
        return True
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        return False
    if isinstance(a, _ndarray) or isinstance(b, _ndarray):
        return bool(_np.array_equal(a, b))
    r = a == b
    if isinstance(r, _ndarray):
        return bool(r.all())
    return bool(r)


cdef class StructuralTangent(AbstractTangent):
    """Base of `Tangent[P]` and `MutableTangent[P]`: the tangent of a value of
    type P with fields (tuple, namedtuple, dict, dataclass, object)."""
    cdef readonly object primal_type
    cdef object _backing

    def __init__(self, *elems, **fields):
        P = getattr(type(self), "_primal_type", None)
        if P is None:
            raise TypeError(f"{type(self).__name__} needs its primal type: write "
                            f"{type(self).__name__}[P](...), e.g. Tangent[tuple](1.0, 2.0)")
        self.primal_type = P
        self._backing = _make_backing(P, elems, fields, type(self).__name__)

    def __class_getitem__(cls, P):
        key = (cls, P)
        sub = _structural_classes.get(key)
        if sub is None:
            # Tangent[tuple[float, float]]: a parameterised generic (the spelling a type
            # checker asks for, chainrules/_core.pyi) is the tangent of its origin class.
            origin = _typing.get_origin(P)
            if isinstance(origin, type):
                return cls[origin]
            with _structural_lock:
                sub = _structural_classes.get(key)
                if sub is None:
                    name = f"{cls.__name__}[{getattr(P, '__qualname__', repr(P))}]"
                    sub = type(cls)(name, (cls,), {"__slots__": (), "_primal_type": P,
                                                   "__module__": cls.__module__,
                                                   "__qualname__": name})
                    _structural_classes[key] = sub
        return sub

    cdef StructuralTangent _new(self, object backing):
        cdef StructuralTangent t = type(self).__new__(type(self))
        t.primal_type = self.primal_type
        t._backing = backing
        return t

    @property
    def backing(self):
        """The fields: a tuple (tuples, namedtuples) or a dict (everything else)."""
        return self._backing if isinstance(self._backing, tuple) else dict(self._backing)

    cdef object _get(self, object key):
        b = self._backing
        if isinstance(b, tuple):
            if isinstance(key, str) and _is_namedtuple_type(self.primal_type):
                try:
                    return b[self.primal_type._fields.index(key)]
                except ValueError:
                    raise KeyError(f"{self.primal_type.__name__} has no field {key!r}") from None
            return b[key]
        return (<dict>b).get(key, ZERO)

    def __getitem__(self, key):
        return self._get(key)

    def __getattr__(self, str name):
        if name.startswith("_"):
            raise AttributeError(name)
        P = self.primal_type
        if isinstance(self._backing, tuple):
            if _is_namedtuple_type(P) and name in P._fields:
                return self._get(name)
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        if _dataclasses.is_dataclass(P) and name not in {f.name for f in _dataclasses.fields(P)}:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        return (<dict>self._backing).get(name, ZERO)

    def __iter__(self):
        b = self._backing
        return iter(b if isinstance(b, tuple) else (<dict>b).values())

    def __len__(self):
        return len(self._backing)

    def keys(self):
        b = self._backing
        if isinstance(b, tuple):
            if _is_namedtuple_type(self.primal_type):
                return list(self.primal_type._fields)
            return list(range(len(b)))
        return list((<dict>b).keys())

    def items(self):
        return list(zip(self.keys(), self))

    cdef object _walk(self, fn, const char* where):
        """_map(fn) with a guard against a tangent that holds itself."""
        _enter_recursion(where)
        try:
            return self._map(fn)
        finally:
            _leave_recursion()

    cdef object _map(self, fn):
        b = self._backing
        if isinstance(b, tuple):
            return self._new(tuple([fn(v) for v in <tuple>b]))
        return self._new({k: fn(v) for k, v in (<dict>b).items()})

    cdef object _add_struct(self, other):
        cdef StructuralTangent o = <StructuralTangent>other
        if o.primal_type is not self.primal_type:
            raise TypeError(f"cannot add {type(self).__name__} and {type(other).__name__}: "
                            "tangents of different primal types")
        a, b = self._backing, o._backing
        if isinstance(a, tuple):
            if len(a) != len(b):
                raise ValueError(f"cannot add {type(self).__name__} of {len(a)} elements and one of {len(b)}")
            return self._new(tuple([tangent_add(x, y) for x, y in zip(a, b)]))
        out = dict(a)
        for k, v in (<dict>b).items():
            out[k] = tangent_add(out[k], v) if k in out else v
        return self._new(out)

    cdef object _add_primal(self, primal):
        P = self.primal_type
        if not isinstance(primal, P):
            raise TypeError(f"cannot add {type(self).__name__} to a {type(primal).__name__}: "
                            f"expected a {getattr(P, '__name__', P)}")
        pb = backing(primal)
        tb = self._backing
        if isinstance(pb, tuple):
            if len(tb) != len(pb):
                raise ValueError(f"cannot add {type(self).__name__} of {len(tb)} elements to a "
                                 f"{type(primal).__name__} of {len(pb)}")
            return construct(P, tuple([tangent_add(x, dx) for x, dx in zip(pb, tb)]))
        unknown = [k for k in tb if k not in pb]
        if unknown:
            raise TypeError(f"{type(self).__name__} has field(s) {unknown} that the primal lacks")
        return construct(P, {k: tangent_add(v, (<dict>tb).get(k, ZERO)) for k, v in pb.items()})

    def conj(self):
        return self._walk(_conj, " in Tangent.conj")

    def conjugate(self):
        return self._walk(_conj, " in Tangent.conj")

    @property
    def real(self):
        return self._walk(_real, " in Tangent.real")

    @property
    def imag(self):
        return self._walk(_imag, " in Tangent.imag")

    def __eq__(self, other):
        if not isinstance(other, StructuralTangent):
            return NotImplemented
        cdef StructuralTangent o = <StructuralTangent>other
        if o.primal_type is not self.primal_type:
            return False
        ka, kb = self.keys(), o.keys()
        _enter_recursion(" in Tangent ==")
        try:
            for k in set(ka) | set(kb):
                if not _values_equal(self._get(k) if k in ka else ZERO, o._get(k) if k in kb else ZERO):
                    return False
        finally:
            _leave_recursion()
        return True

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        items = tuple(sorted(((repr(k), v) for k, v in self.items() if not _iszero_value(v)),
                             key=lambda kv: kv[0]))
        return hash((self.primal_type, items))

    def __reduce__(self):
        # the fields as the state, set after the tangent exists: pickle and
        # copy.deepcopy then rebuild a tangent that holds itself as one object
        return (_rebuild_structural, (type(self).__mro__[1] if hasattr(type(self), "_primal_type") else type(self),
                                      self.primal_type, None), self._backing)

    def __setstate__(self, b):
        if self._backing is not None:
            raise TypeError(f"{type(self).__name__}: the fields of a tangent are set when it is built")
        if not isinstance(b, (tuple, dict)):
            raise TypeError(f"{type(self).__name__}: fields must be a tuple or a dict, got {type(b).__name__}")
        self._backing = dict(b) if isinstance(b, dict) else b      # copy.copy: not the original's dict

    def __repr__(self):
        if _repr_enter(self):
            return f"{type(self).__name__}(...)"
        try:
            b = self._backing
            if isinstance(b, tuple):
                inner = ", ".join(repr(v) for v in b)
            else:
                inner = ", ".join(f"{k}={v!r}" for k, v in (<dict>b).items())
        finally:
            _repr_leave(self)
        return f"{type(self).__name__}({inner})"


def _rebuild_structural(base, P, b):
    """A structural tangent from its parts (pickle, copy); b None: the fields
    come next, through __setstate__ (pickles written before issue 21 pass them here)."""
    cdef StructuralTangent t = base[P].__new__(base[P])
    t.primal_type = P
    t._backing = b
    return t


cdef class Tangent(StructuralTangent):
    """Tangent[P](*elems) / Tangent[P](**fields)

    The tangent of a value of type P that has fields: a tuple or namedtuple
    (positional elements), a dict, a dataclass or a plain object (keyword
    fields).  Fields that are not given read as `ZeroTangent()`.

    `Tangent + Tangent` adds field-wise, `s * Tangent` scales, `P + Tangent[P]`
    rebuilds a P with every field moved.  There is no `Tangent * Tangent`.

    Example::

        >>> from collections import namedtuple
        >>> Point = namedtuple("Point", "x y")
        >>> t = Tangent[Point](x=1.0)
        >>> t.y
        ZeroTangent()
        >>> Point(1.0, 2.0) + 2 * t
        Point(x=3.0, y=2.0)

    See also: `MutableTangent`, `backing`, `construct`, `canonicalize`."""


cdef class MutableTangent(StructuralTangent):
    """`MutableTangent[P](**fields)`: the tangent of a mutable object; fields can
    be set (`t.x = 1.0`, `t["x"] = 1.0`) as the AD accumulates into it."""

    def __setattr__(self, str name, value):
        if isinstance(self._backing, tuple):
            raise TypeError(f"{type(self).__name__}: a tuple-backed tangent has no settable fields")
        self._backing[name] = value

    def __setitem__(self, key, value):
        if isinstance(self._backing, tuple):
            raise TypeError(f"{type(self).__name__}: a tuple-backed tangent has no settable fields")
        self._backing[key] = value

    __hash__ = None


def backing(x):
    """backing(x): the fields of a primal or of a structural tangent, as a tuple
    (tuples, namedtuples) or a dict (dicts, dataclasses, objects)."""
    if isinstance(x, StructuralTangent):
        return x.backing
    if isinstance(x, (tuple, list)):
        return tuple(x)
    if isinstance(x, dict):
        return dict(x)
    if _dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: getattr(x, f.name) for f in _dataclasses.fields(x)}
    if hasattr(x, "__dict__"):
        return dict(vars(x))
    slots = getattr(type(x), "__slots__", None)
    if slots is not None:
        return {s: getattr(x, s) for s in ((slots,) if isinstance(slots, str) else slots) if hasattr(x, s)}
    raise TypeError(f"backing: {type(x).__name__} has no fields")


def construct(P, b):
    """construct(P, backing): build a P from its fields (the inverse of `backing`)."""
    if isinstance(P, type) and issubclass(P, (tuple, list)):
        return P(*b) if _is_namedtuple_type(P) else P(b)
    if isinstance(P, type) and issubclass(P, dict):
        return P(b)
    if _dataclasses.is_dataclass(P) and all(f.init for f in _dataclasses.fields(P)):
        return P(**b)
    obj = object.__new__(P)
    for k, v in b.items():
        object.__setattr__(obj, k, v)
    return obj


def canonicalize(t):
    """canonicalize(t): a Tangent with every field of its primal type present,
    in declaration order (absent ones as ZeroTangent()); unknown fields raise."""
    if not isinstance(t, StructuralTangent):
        return t
    P = t.primal_type
    b = t.backing
    if _dataclasses.is_dataclass(P):
        names = [f.name for f in _dataclasses.fields(P)]
        unknown = [k for k in b if k not in names]
        if unknown:
            raise TypeError(f"canonicalize: {P.__name__} has no field(s) {unknown}")
        return type(t)(**{k: b.get(k, ZERO) for k in names})
    return t


cdef object _zero_of_number(object x):
    if isinstance(x, bool) or isinstance(x, _np.bool_):
        return NO_TANGENT
    if isinstance(x, int):
        return 0.0
    if isinstance(x, (float, complex)):
        return type(x)(0) if type(x) in (float, complex) else x * 0
    if isinstance(x, _np.integer):
        return NO_TANGENT
    if isinstance(x, _np_generic):
        return x * 0 if x.dtype.kind in "fc" else NO_TANGENT
    return None


def zero_tangent(x):
    """zero_tangent(x): the structural zero tangent of x: 0.0 for numbers, a
    zero array, Tangent/MutableTangent of zeros for tuples, dicts, dataclasses
    and objects, NoTangent() for bools, strings, None and functions.  An object
    met again inside itself (a parent link, a cycle) gets ZeroTangent() there."""
    return _zero_tangent(x, None)


cdef object _zero_tangent(object x, dict seen):
    z = _zero_of_number(x)
    if z is not None:
        return z
    if isinstance(x, _ndarray):
        return _np.zeros_like(x) if x.dtype.kind in "fc" else NO_TANGENT
    if x is None or isinstance(x, (str, bytes, type)) or callable(x):
        return NO_TANGENT
    # a container: remember it while its parts are visited
    if seen is None:
        seen = {}
    elif id(x) in seen:
        return ZERO
    seen[id(x)] = x
    _enter_recursion(" in zero_tangent")
    try:
        if isinstance(x, StructuralTangent):
            # a tangent itself (Tangent[tuple], MutableTangent[...]): the same
            # type, its parts zeroed
            b = (<StructuralTangent>x)._backing
            if isinstance(b, tuple):
                return (<StructuralTangent>x)._new(tuple([_zero_tangent(v, seen) for v in <tuple>b]))
            return (<StructuralTangent>x)._new({k: _zero_tangent(v, seen) for k, v in (<dict>b).items()})
        if isinstance(x, (tuple, list)):
            return Tangent[type(x)](*[_zero_tangent(v, seen) for v in x])
        if isinstance(x, dict):
            return Tangent[type(x)]({k: _zero_tangent(v, seen) for k, v in x.items()})
        if _dataclasses.is_dataclass(x):
            fields = {k: _zero_tangent(v, seen) for k, v in backing(x).items()}
            frozen = type(x).__dataclass_params__.frozen
            return (Tangent if frozen else MutableTangent)[type(x)](**fields)
        try:
            fields = backing(x)
        except TypeError:
            return NO_TANGENT
        return MutableTangent[type(x)](**{k: _zero_tangent(v, seen) for k, v in fields.items()})
    finally:
        _leave_recursion()
        del seen[id(x)]
