# AD ENGINE: forward mode's flat fast path (operators, ufuncs, NumPy functions on Duals of one tag).
# ---------------------------------------------------------------------------
# The flat fast path of forward mode (issue 13), the twin of reverse mode's
# (ad_reverse.pxi): an operator, ufunc or NumPy function on Duals of one tag
# holding plain values and on plain flat values, with no keyword arguments.
# It does what the generic engine's `apply` (chainrules/ad/forward.py) does
# for that case, without the Python layers: the constants' tangents
# (ZeroTangent() where the value has a tangent space, else NoTangent()), the
# frule called with the forward config, a real or complex output (a float,
# an np.float64, a float/complex array) with a tangent wrapped in a Dual.
# Every other output goes to the generic engine's `wrap_output`; a missing
# rule, nesting and every other case to the generic engine itself.
# ---------------------------------------------------------------------------

cdef object _ad_fwd_config = None       # set by chainrules.ad.forward (_ad_set_forward_flat)
cdef object _ad_wrap_output = None


def _ad_set_forward_flat(config, wrap_output):
    """Install the forward flat path (chainrules.ad.forward internal): the
    forward config rules are called with, and the generic engine's
    `wrap_output(tag, Ω, ΔΩ, f)` for the outputs it does not wrap itself."""
    global _ad_fwd_config, _ad_wrap_output
    _ad_fwd_config = config
    _ad_wrap_output = wrap_output


cdef inline object _ad_const_tangent(object a):
    """The tangent of a flat constant, as `_tracing.const_tangent` gives it."""
    cdef type t = type(a)
    if t is float or t is int or t is complex:
        return ZERO
    if t is _ndarray:
        return ZERO if _inexact_descr(cr_descr(<PyObject*>a)) else NO_TANGENT
    if isinstance(a, _np.generic):
        return ZERO if (<object>a).dtype.kind in "fc" else NO_TANGENT
    return NO_TANGENT


cdef object _ad_forward_flat(int kind, object f, tuple args):
    """The flat fast path (see above); _AD_NOT_FLAT when it does not apply."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(args), i
    cdef PyObject* argv[6]
    cdef Dual d
    cdef long tag = 0
    cdef bint have = False
    if n == 0 or n > 3 or _ad_fwd_config is None:
        return _AD_NOT_FLAT
    if kind == AK_UFUNC:
        if (<tuple>f)[1] != "__call__":
            return _AD_NOT_FLAT
        f = (<tuple>f)[0]
    elif kind == AK_ARRAY_FUNCTION:
        if f in _ad_structural:
            return _AD_NOT_FLAT
    elif kind != AK_OP:
        return _AD_NOT_FLAT
    primals = [None, None, None]        # keep the primals and tangents alive for argv
    tangents = [NO_TANGENT, None, None, None]
    for i in range(n):
        a = args[i]
        if type(a) is Dual:
            d = <Dual>a
            if have and d.tag != tag:
                return _AD_NOT_FLAT
            tag = d.tag
            have = True
            if d.fast:
                p = d._primal()
                t = d.tangent
            else:
                p = d.p
                if isinstance(p, Tracked):
                    return _AD_NOT_FLAT
                t = d.t
        elif type(a) in _ad_flat_types:
            p = a
            t = _ad_const_tangent(a)
        else:
            return _AD_NOT_FLAT
        primals[i] = p
        tangents[i + 1] = t
        argv[i + 3] = <PyObject*>p
    if not have or not _ad_live(tag):
        return _AD_NOT_FLAT              # the generic engine reports an escaped value
    tt = tuple(tangents[:n + 1])
    argv[0] = <PyObject*>_ad_fwd_config
    argv[1] = <PyObject*>tt
    argv[2] = <PyObject*>f
    res = cr_fast_impls[0](argv, n + 3, NULL)     # _frule_impl, or its debug-mode check
    if type(res) is not tuple or PyTuple_GET_SIZE(res) != 2:
        return _AD_NOT_FLAT              # no rule here (the generic engine looks further)
    Ω = (<tuple>res)[0]
    ΔΩ = (<tuple>res)[1]
    t = type(Ω)
    if (isinstance(ΔΩ, (AbstractZero, AbstractThunk)) or
            not ((t is _ndarray and _inexact_descr(cr_descr(<PyObject*>Ω))) or t is float
                 or t is _np_float64_type)):
        return _ad_wrap_output(tag, Ω, ΔΩ, f)
    return _ad_dual(Ω, ΔΩ, tag)
