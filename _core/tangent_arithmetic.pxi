# RULE CORE: tangent arithmetic (one precedence ladder of tangent types).
# ---------------------------------------------------------------------------
# Tangent arithmetic: one precedence ladder, highest rung first,
#
#     NotImplementedTangent > NoTangent > ZeroTangent > Thunk > Tangent > Any
#
# For `a op b` the operand on the higher rung decides, and each rung below is
# written once (as in ChainRulesCore's tangent_arithmetic.jl):
#   +  NotImplemented wins; NoTangent wins against ZeroTangent; a zero returns
#      the other operand; a thunk unthunks; Tangent + Tangent adds field-wise,
#      P + Tangent[P] rebuilds a P.
#   *  NotImplemented loses against the zeros and wins otherwise; ZeroTangent
#      wins against NoTangent; a zero returns itself; no Tangent * Tangent.
#   -  as + with the right operand negated; NotImplemented raises.
#   /  a zero or NoTangent over anything is itself; NotImplemented raises.
# ---------------------------------------------------------------------------

cdef enum:
    R_ANY = 0
    R_STRUCT = 1
    R_THUNK = 2
    R_ZERO = 3
    R_NO = 4
    R_NOTIMPL = 5


cdef inline int _rank(object x):
    cdef type t = type(x)
    if t is float or t is int or t is complex:
        return R_ANY
    if t is ZeroTangent:
        return R_ZERO
    if t is NoTangent:
        return R_NO
    if not isinstance(x, AbstractTangent):
        return R_ANY
    if isinstance(x, AbstractThunk):
        return R_THUNK
    if isinstance(x, StructuralTangent):
        return R_STRUCT
    if isinstance(x, NotImplementedTangent):
        return R_NOTIMPL
    return R_ANY


cdef object _raise_notimpl(object op, object a, object b):
    cdef NotImplementedTangent n = a if isinstance(a, NotImplementedTangent) else b
    raise NotImplementedTangentError(
        f"cannot compute {op!s} with a NotImplementedTangent: the derivative is not implemented ({n.info})")


cdef object tangent_add(object a, object b):
    cdef int ra = _rank(a), rb = _rank(b)
    if ra == R_ANY and rb == R_ANY:
        return a + b
    _enter_recursion(" in tangent addition")
    try:
        if ra >= rb:
            return _add_rung(ra, rb, a, b, False)
        return _add_rung(rb, ra, b, a, True)
    finally:
        _leave_recursion()


cdef object _add_rung(int r, int ro, object top, object other, bint swapped):
    # `top` sits on rung r, `other` on rung ro <= r; swapped: other was on the left.
    if r == R_NOTIMPL:
        return top
    if r == R_NO:
        return top if ro >= R_ZERO else other
    if r == R_ZERO:
        return other
    if r == R_THUNK:
        if swapped:
            return tangent_add(other, _unthunk(top))
        return tangent_add(_unthunk(top), other)
    # r == R_STRUCT
    if ro == R_STRUCT:
        return (<StructuralTangent>top)._add_struct(other) if not swapped else (<StructuralTangent>other)._add_struct(top)
    return (<StructuralTangent>top)._add_primal(other)


cdef object tangent_neg(object a):
    cdef int r = _rank(a)
    if r == R_ANY:
        return -a
    if r == R_NOTIMPL or r == R_NO or r == R_ZERO:
        return a
    if r == R_THUNK:
        return tangent_neg(_unthunk(a))
    _enter_recursion(" in tangent negation")
    try:
        return (<StructuralTangent>a)._map(tangent_neg)
    finally:
        _leave_recursion()


cdef object tangent_sub(object a, object b):
    cdef int ra = _rank(a), rb = _rank(b)
    if ra == R_ANY and rb == R_ANY:
        return a - b
    _enter_recursion(" in tangent subtraction")
    try:
        return _sub_rung(ra, rb, a, b)
    finally:
        _leave_recursion()


cdef object _sub_rung(int ra, int rb, object a, object b):
    if ra == R_NOTIMPL or rb == R_NOTIMPL:
        _raise_notimpl("a - b", a, b)
    if ra >= rb:
        if ra == R_NO or ra == R_ZERO:
            return a if rb >= R_ZERO else tangent_neg(b)
        if ra == R_THUNK:
            return tangent_sub(_unthunk(a), b)
        if rb == R_STRUCT:
            return (<StructuralTangent>a)._add_struct(tangent_neg(b))
        raise TypeError(f"cannot subtract {type(b).__name__} from {type(a).__name__}")
    # b is on the higher rung
    if rb == R_NO or rb == R_ZERO:
        return b if ra >= R_ZERO else a
    if rb == R_THUNK:
        return tangent_sub(a, _unthunk(b))
    raise TypeError(f"cannot subtract {type(b).__name__} from {type(a).__name__}")


cdef inline bint _is_scalar_number(object s):
    return isinstance(s, (int, float, complex, _np_generic)) and not isinstance(s, bool)


cdef object tangent_mul(object a, object b):
    cdef int ra = _rank(a), rb = _rank(b)
    if ra == R_ANY and rb == R_ANY:
        return a * b
    _enter_recursion(" in tangent multiplication")
    try:
        if ra >= rb:
            return _mul_rung(ra, rb, a, b, False)
        return _mul_rung(rb, ra, b, a, True)
    finally:
        _leave_recursion()


cdef object _mul_rung(int r, int ro, object top, object other, bint swapped):
    if r == R_NOTIMPL:
        return other if (ro == R_NO or ro == R_ZERO) else top
    if r == R_NO:
        return other if ro == R_ZERO else top
    if r == R_ZERO:
        return top
    if r == R_THUNK:
        if swapped:
            return tangent_mul(_unthunk(other), _unthunk(top))
        return tangent_mul(_unthunk(top), _unthunk(other))
    # r == R_STRUCT: only scaling by a number
    if ro == R_STRUCT or not _is_scalar_number(other):
        raise TypeError(f"cannot multiply {type(top).__name__} by {type(other).__name__}: "
                        "a structural tangent can only be scaled by a number")
    if swapped:
        return (<StructuralTangent>top)._map(lambda v: tangent_mul(other, v))
    return (<StructuralTangent>top)._map(lambda v: tangent_mul(v, other))


cdef object tangent_div(object a, object b):
    cdef int ra = _rank(a), rb = _rank(b)
    if ra == R_ANY and rb == R_ANY:
        return a / b
    _enter_recursion(" in tangent division")
    try:
        return _div_rung(ra, rb, a, b)
    finally:
        _leave_recursion()


cdef object _div_rung(int ra, int rb, object a, object b):
    if ra == R_NOTIMPL or rb == R_NOTIMPL:
        _raise_notimpl("a / b", a, b)
    if ra >= rb:
        if ra == R_NO or ra == R_ZERO:
            return a
        if ra == R_THUNK:
            return tangent_div(_unthunk(a), _unthunk(b))
        if rb == R_STRUCT or not _is_scalar_number(b):
            raise TypeError(f"cannot divide {type(a).__name__} by {type(b).__name__}")
        return (<StructuralTangent>a)._map(lambda v: tangent_div(v, b))
    if rb == R_THUNK:
        return tangent_div(a, _unthunk(b))
    raise TypeError(f"cannot divide {type(a).__name__} by {type(b).__name__}")


cdef object _conj(object x):
    cdef type t = type(x)
    if t is float or t is int:
        return x
    if t is complex:
        return x.conjugate()
    if isinstance(x, _ndarray):
        return x.conj() if x.dtype.kind == 'c' else x
    return x.conjugate() if hasattr(x, "conjugate") else x.conj()


cdef object _real(object x):
    if type(x) is float:
        return x
    return x.real


cdef object _imag(object x):
    if isinstance(x, AbstractTangent):
        return x.imag
    if isinstance(x, _ndarray):
        return x.imag
    return x.imag


