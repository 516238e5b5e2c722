"""NumPy's products of arrays, each served by the ONE array-API rule body
(array_api/linalg.py, linalg_ext.py) registered here with NumPy's spelling:

- np.matmul, np.linalg.matmul, the @ operator on ndarrays and the ndarray
  methods __matmul__/__rmatmul__: matmul's body;
- np.tensordot, np.linalg.tensordot: tensordot's; np.dot and ndarray.dot:
  matmul's for 1- and 2-d arguments, tensordot's over (a's last axis, b's
  second to last) for others, axes=0 for a 0-d one; np.inner: tensordot's
  over both last axes;
- np.vecdot, np.linalg.vecdot: vecdot's; np.vdot: vecdot's of the flattened
  arguments;
- np.outer (flattening), np.linalg.outer: outer's; np.cross (axisa, axisb,
  axisc, axis: its arguments' vector axes moved last), np.linalg.cross:
  cross's;
- np.trace, ndarray.trace (offset, axis1, axis2, dtype), np.linalg.trace:
  trace's.

`out=` and the ufunc options (np.matmul's axes=, signature=, ...) are a
TypeError naming them.  Inside matmul's registration a NumPy fast path
serves two float ndarrays of at least 2 dimensions (the common call), and
inside np.dot's, np.inner's and np.tensordot's one serves two float
ndarrays of one dtype: what the body computes, without its generic layers
(checked bit for bit by tests/rulesets/numpy/test_linalg_one_body.py).  np.kron is NumPy's alone: its rule
is here.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules._core import Thunk, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules._xp import NamespaceError, is_numpy, namespace
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    methods,
    named_rule,
    project_to,
    register,
    reject_out,
    seed,
    zero_for as _zero_for,
)
from chainrules.rulesets.array_api import linalg as body, linalg_ext as body_ext
from chainrules.rulesets.array_api._common import unbroadcast
from chainrules.rulesets.numpy.linalg._common import _H
from chainrules.rulesets.numpy.linalg._on_numpy import (
    as_array,
    composed,
    register_body,
    register_fast,
    register_fast_rrule,
)
from chainrules.rulesets.numpy.linalg._products_fast import (
    bilinear_pullback_for,
    matmul_small_adjoints,
    tensordot_fast,
    vectors_pullback_for,
)

__all__ = ["matmul_frule", "matmul_rrule", "dot_frule", "dot_rrule"]


# ----- matmul, @ ------------------------------------------------------------------------------------

(_matmul_body_frule, _matmul_body_rrule) = body.matmul_rules(np.matmul, "matmul")


def _fast(a: Any, b: Any) -> bool:
    """The common call the fast path serves: two float ndarrays of one
    dtype, of at least 2 dimensions (no options: register_fast)."""
    return (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim >= 2 and b.ndim >= 2
            and a.dtype == b.dtype and a.dtype.kind in "fc")


def _decline(*args: Any) -> None:
    return None


def _matmul_fast_frule(tangents: Any, a: Any, b: Any) -> Any:
    Δa, Δb = tangents[1], tangents[2]
    if (_fast(a, b) and type(Δa) is np.ndarray and type(Δb) is np.ndarray
            and Δa.dtype == a.dtype and Δb.dtype == b.dtype):
        # the body's pushforward: matmul(Δa, b) + matmul(a, Δb)
        return a @ b, np.matmul(Δa, b) + np.matmul(a, Δb)
    return None


def _matmul_rrule_arrays(a: Any, b: Any, f: Any = None, checked: bool = False) -> Any:
    """matmul's rrule for two float ndarrays of one dtype and at least 2
    dimensions: the body's cotangents ȳ·bᴴ and aᴴ·ȳ summed over broadcast
    batch dimensions, for a seed of y's dtype and shape (any other seed: the
    body's pullback); None for another call (`checked`: the caller checked
    it is not).  The reference AD's compile step recognises this pullback by
    its name and fuses it."""
    if not (checked or _fast(a, b)):
        return None
    y = a @ b if f is None else f(a, b)
    dtype = y.dtype
    name = "matmul" if f is None else f.__name__        # np.dot's errors name dot

    def matmul_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, name)
        if type(ȳ) is not np.ndarray or ȳ.dtype != dtype or ȳ.shape != y.shape:
            return _matmul_body_rrule(a, b)[1](ȳ)  # type: ignore[no-any-return]
        def matmul_ā() -> Any:
            ā = np.matmul(ȳ, _H(b) if dtype.kind == "c" else b.mT)
            return ā if ā.shape == a.shape else unbroadcast(np, ā, a.shape)

        def matmul_b̄() -> Any:
            b̄ = np.matmul(_H(a) if dtype.kind == "c" else a.mT, ȳ)
            return b̄ if b̄.shape == b.shape else unbroadcast(np, b̄, b.shape)
        return NO, Thunk(matmul_ā), Thunk(matmul_b̄)     # as the body's: one product per cotangent used
    return y, matmul_pullback


_MATMULS = [np.matmul, np.linalg.matmul]
matmul_frule, matmul_rrule = register_body(_MATMULS, (_matmul_body_frule, _matmul_body_rrule), np.matmul, 2,
                                           "matmul")
register_fast(_MATMULS + [operator.matmul, np.ndarray.__matmul__], _matmul_fast_frule, _matmul_rrule_arrays,
              (matmul_frule, matmul_rrule), 2, "matmul")


def _operator_matmul_rrule(a: Any, b: Any) -> Any:
    return matmul_rrule(a, b)


def _numpy_operands(a: Any, b: Any) -> bool:
    """a @ b computes with NumPy: their namespace is NumPy's (a value traced
    by an AD holding NumPy arrays too); another library's @ is its own."""
    try:
        return is_numpy(namespace(a, b))
    except NamespaceError:
        return False


def _operator_matmul_any_frule(tangents: Any, a: Any, b: Any) -> Any:
    return matmul_frule(tangents, a, b) if _numpy_operands(a, b) else None


def _operator_matmul_any_rrule(a: Any, b: Any) -> Any:
    return matmul_rrule(a, b) if _numpy_operands(a, b) else None


# the @ operator where an argument is an ndarray, on any other NumPy values (a traced
# value, at order 2), and ndarray.__matmul__ (x @ y)
for _types in ((np.ndarray, object), (object, np.ndarray)):
    register_frule(operator.matmul, *_types)(matmul_frule)
    register_rrule(operator.matmul, *_types)(named_rule(_operator_matmul_rrule, "matmul"))
register_frule(operator.matmul, object, object)(named_rule(_operator_matmul_any_frule, "matmul"))
register_rrule(operator.matmul, object, object)(named_rule(_operator_matmul_any_rrule, "matmul"))
register_frule(np.ndarray.__matmul__, object, object)(matmul_frule)
register_rrule(np.ndarray.__matmul__, object, object)(named_rule(_operator_matmul_rrule, "matmul"))


def rmatmul_frule(tangents: Any, x: Any, y: Any) -> Any:
    return matmul_frule((tangents[0], tangents[2], tangents[1]), y, x)


def rmatmul_rrule(x: Any, y: Any) -> tuple[Any, Pullback]:
    Ω, matmul_pullback = matmul_rrule(y, x)

    def rmatmul_pullback(ȳ: Any) -> tuple[Any, ...]:
        s, ȳ_y, x̄ = matmul_pullback(ȳ)
        return s, x̄, ȳ_y
    return Ω, rmatmul_pullback


register_frule(np.ndarray.__rmatmul__, object, object)(rmatmul_frule)
register_rrule(np.ndarray.__rmatmul__, object, object)(rmatmul_rrule)


# ----- tensordot, dot, inner --------------------------------------------------------------------------

tensordot_frule, tensordot_rrule = register_body(
    [np.tensordot, np.linalg.tensordot], body.tensordot_rules(np.tensordot), np.tensordot, 2, "tensordot")


def _dot(a: Any, b: Any, axes: Any) -> Any:
    return np.dot(a, b)


def _inner(a: Any, b: Any, axes: Any) -> Any:
    return np.inner(a, b)


_dot_matmul = body.matmul_rules(np.dot, "dot")
_dot_tensordot = body.tensordot_rules(_dot, "dot")
_inner_tensordot = body.tensordot_rules(_inner, "inner")


def _dot_plan(a: Any, b: Any, args: Any, kwargs: Any) -> Any:
    """(the body's rules, its options) for np.dot(a, b): matmul's for 1-
    and 2-d arguments, else tensordot's over a's last axis and b's second to
    last (its only one for a vector), axes=0 for a 0-d argument."""
    reject_out("dot", dict(zip(("out",), args)) | kwargs)
    if 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2:
        return _dot_matmul, {}
    if a.ndim == 0 or b.ndim == 0:
        return _dot_tensordot, {"axes": 0}
    return _dot_tensordot, {"axes": ([a.ndim - 1], [max(b.ndim - 2, 0)])}


def _dot_frule(tangents: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    (frule, _), opts = _dot_plan(a, b, args, kwargs)
    return frule(tangents[:3], a, b, **opts)


def _dot_rrule(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    (_, rrule), opts = _dot_plan(a, b, args, kwargs)
    Ω, pullback = rrule(a, b, **opts)
    rest = (NO,) * len(args)

    def dot_pullback(ȳ: Any) -> tuple[Any, ...]:
        return pullback(ȳ) + rest  # type: ignore[no-any-return]
    return Ω, dot_pullback


dot_frule, dot_rrule = register_body([np.dot], (_dot_frule, _dot_rrule), np.dot, 2, "dot")


def _dot_fast_rrule(a: Any, b: Any, **kwargs: Any) -> Any:
    """np.dot of two float ndarrays of one dtype: of matrices, matmul's fast
    path (its body's, Ω np.dot's); of vectors or a matrix and a vector,
    matmul's adjoints (`matmul_small_adjoints`); of more dimensions,
    tensordot's over a's last axis and b's second to last
    (`tensordot_fast`); any other call (a 0-d argument, an option): the
    body's."""
    if kwargs or not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
                      and a.dtype.kind in "fc" and a.ndim and b.ndim):
        return dot_rrule(a, b, **kwargs)
    if a.ndim == 2 and b.ndim == 2:
        return _matmul_rrule_arrays(a, b, np.dot, True)
    if a.ndim == 1 and b.ndim == 1 and a.dtype.kind == "f":
        Ω = np.dot(a, b)
        return Ω, vectors_pullback_for(a, b, Ω.dtype, "dot", _dot_body_rrule)
    if a.ndim <= 2 and b.ndim <= 2:
        Ω = np.dot(a, b)
        return Ω, bilinear_pullback_for(a, b, Ω, matmul_small_adjoints, None, "dot", _dot_body_rrule)
    return tensordot_fast(a, b, np.dot(a, b), [a.ndim - 1], [max(b.ndim - 2, 0)], "dot", _dot_body_rrule)


def _dot_body_rrule(a: Any, b: Any) -> Any:
    return dot_rrule(a, b)


register_fast_rrule([np.dot], _dot_fast_rrule, (dot_frule, dot_rrule), 2, "dot")
register(methods("dot"), dot_frule, dot_rrule)


def _inner_axes(a: Any, b: Any) -> Any:
    return 0 if a.ndim == 0 or b.ndim == 0 else ([a.ndim - 1], [b.ndim - 1])


def _inner_frule(tangents: Any, a: Any, b: Any) -> Any:
    return _inner_tensordot[0](tangents, a, b, axes=_inner_axes(a, b))


def _inner_rrule(a: Any, b: Any) -> Any:
    return _inner_tensordot[1](a, b, axes=_inner_axes(a, b))


_inner_rules = register_body([np.inner], (_inner_frule, _inner_rrule), np.inner, 2, "inner")


def _inner_fast_rrule(a: Any, b: Any, **kwargs: Any) -> Any:
    """np.inner of two float ndarrays of one dtype, neither 0-d: tensordot's
    fast path over both last axes; any other call: the body's."""
    if kwargs or not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
                      and a.dtype.kind in "fc" and a.ndim and b.ndim):
        return _inner_rules[1](a, b, **kwargs)
    if a.ndim == 1 and b.ndim == 1 and a.dtype.kind == "f":
        Ω = np.inner(a, b)
        return Ω, vectors_pullback_for(a, b, Ω.dtype, "inner", _inner_rules[1])
    return tensordot_fast(a, b, np.inner(a, b), [a.ndim - 1], [b.ndim - 1], "inner", _inner_rules[1])


register_fast_rrule([np.inner], _inner_fast_rrule, _inner_rules, 2, "inner")


def _tensordot_fast_rrule(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    """np.tensordot of two float ndarrays of one dtype, `axes` an int or a
    pair of ints or of int lists (positional or by keyword): the body's
    adjoints on NumPy (`tensordot_fast`); any other call: the body's."""
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype and a.dtype.kind in "fc"
            and len(args) + len(kwargs) <= 1 and (not kwargs or "axes" in kwargs)):
        return tensordot_rrule(a, b, *args, **kwargs)
    axes = args[0] if args else kwargs.get("axes", 2)
    if type(axes) is not int and not (type(axes) in (tuple, list) and len(axes) == 2 and all(
            type(c) is int or (type(c) in (tuple, list) and all(type(i) is int for i in c)) for c in axes)):
        return tensordot_rrule(a, b, *args, **kwargs)
    Ω = np.tensordot(a, b, axes)
    ca, cb = body._tensordot_axes(a, b, axes)

    def tensordot_rrule_body(a: Any, b: Any) -> Any:
        return tensordot_rrule(a, b, axes=axes)
    res = tensordot_fast(a, b, Ω, ca, cb, "tensordot", tensordot_rrule_body)
    if res is None:
        return tensordot_rrule(a, b, *args, **kwargs)
    pullback = res[1]
    if not args:
        return res

    def tensordot_fast_pullback(ȳ: Any) -> tuple[Any, ...]:
        return pullback(ȳ) + (NO,)  # type: ignore[no-any-return]  # a positional axes's cotangent, as the body's
    return Ω, tensordot_fast_pullback


register_fast_rrule([np.tensordot, np.linalg.tensordot], _tensordot_fast_rrule, (tensordot_frule, tensordot_rrule), 2,
                    "tensordot", more=True)


# ----- vecdot, vdot -----------------------------------------------------------------------------------

for _f in (getattr(np, "vecdot", None), np.linalg.vecdot):
    if _f is not None:
        register_body([_f], body.vecdot_rules(_f), _f, 2, "vecdot")


def _flat(x: Any) -> Any:
    return np.reshape(x, (-1,))


def _shaped(shape: Any) -> Any:
    def reshape_back(t: Any) -> Any:
        return np.reshape(t, shape)
    return reshape_back


def _identity(t: Any) -> Any:
    return t


def _flattened(a: Any, b: Any) -> Any:
    """The plan of a body of two vectors called with NumPy's flattened
    arguments (np.vdot, np.outer)."""
    a, b = as_array(a), as_array(b)
    return (_flat(a), _flat(b)), {}, (_flat, _flat), (_shaped(a.shape), _shaped(b.shape)), _identity, _identity


def _vdot_plan(args: Any, kwargs: Any) -> Any:
    return _flattened(*args)


register([np.vdot], *composed(body.vecdot_rules(np.vdot, "vdot"), _vdot_plan, "vdot"))


# ----- outer, cross -------------------------------------------------------------------------------------

def _outer_plan(args: Any, kwargs: Any) -> Any:
    reject_out("outer", dict(zip(("out",), args[2:])) | kwargs)
    return _flattened(*args[:2])


register([np.outer], *composed(body_ext.outer_rules(np.outer), _outer_plan, "outer"))
register_body([np.linalg.outer], body_ext.outer_rules(np.linalg.outer), np.linalg.outer, 2, "outer")

_CROSS_NAMES = ("axisa", "axisb", "axisc", "axis")


def _moved(src: Any, dst: Any) -> Any:
    def move(t: Any) -> Any:
        return np.moveaxis(t, src, dst)
    return move


def _cross_plan(args: Any, kwargs: Any) -> Any:
    """np.cross(a, b, axisa, axisb, axisc, axis): the body's cross of a's
    and b's vector axes moved last, its result's last axis moved to axisc;
    no rule for 2-vectors (deprecated by NumPy 2)."""
    a, b = as_array(args[0]), as_array(args[1])
    opts: dict[str, Any] = {"axisa": -1, "axisb": -1, "axisc": -1, "axis": None}
    opts.update(zip(_CROSS_NAMES, args[2:]))
    for k, v in kwargs.items():
        if k not in opts:
            raise TypeError(f"cross: the rule cannot honour the argument {k}=; call the primal without it")
        opts[k] = v
    axisa, axisb, axisc = (opts["axisa"], opts["axisb"], opts["axisc"]) if opts["axis"] is None else (opts["axis"],) * 3
    try:
        if a.shape[axisa] != 3 or b.shape[axisb] != 3:
            return None
    except IndexError:          # no such axis (a 0-d argument): no rule; the primal raises
        return None
    return ((np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)), {"axis": -1},
            (_moved(axisa, -1), _moved(axisb, -1)), (_moved(-1, axisa), _moved(-1, axisb)),
            _moved(-1, axisc), _moved(axisc, -1))


register([np.cross], *composed(body_ext.cross_rules(np.linalg.cross), _cross_plan, "cross"))
register_body([np.linalg.cross], body_ext.cross_rules(np.linalg.cross), np.linalg.cross, 2, "cross")


# ----- trace ---------------------------------------------------------------------------------------

_TRACE_NAMES = ("offset", "axis1", "axis2", "dtype", "out")


def _trace_plan(args: Any, kwargs: Any) -> Any:
    """np.trace(a, offset, axis1, axis2, dtype): the body's trace of the
    last two axes, axis1 and axis2 moved there; its result in `dtype`."""
    a = as_array(args[0])
    opts = {"offset": 0, "axis1": 0, "axis2": 1, "dtype": None}
    opts.update(zip(_TRACE_NAMES, args[1:]))
    opts.update(kwargs)
    reject_out("trace", opts)
    unknown = set(opts) - set(_TRACE_NAMES)
    if unknown:
        raise TypeError(f"trace: the rule cannot honour the argument {sorted(unknown)[0]}=; "
                        "call the primal without it")
    nd = a.ndim
    src = (opts["axis1"] % nd, opts["axis2"] % nd) if nd else (0, 1)
    dtype = opts["dtype"]

    def as_dtype(t: Any) -> Any:
        return t if dtype is None else t.astype(dtype)
    return ((np.moveaxis(a, src, (-2, -1)),), {"offset": opts["offset"]},
            (_moved(src, (-2, -1)),), (_moved((-2, -1), src),), as_dtype, _identity)


_trace_rules = body_ext.trace_rules(np.linalg.trace)
register([np.trace] + methods("trace"), *composed(_trace_rules, _trace_plan, "trace"))
register_body([np.linalg.trace], _trace_rules, np.linalg.trace, 1, "trace")


# ----- kron (NumPy's alone) ------------------------------------------------------------------------------

def _kron_shapes(a: Any, b: Any) -> Any:
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    return nd, sa, sb


def kron_frule(tangents: Any, a: Any, b: Any) -> tuple[Any, Any]:
    Δa, Δb = unthunk(tangents[1]), unthunk(tangents[2])
    a, b = as_array(a), as_array(b)
    ΔΩ: Any = ZERO
    if not _zero(Δa):
        ΔΩ = np.kron(as_array(Δa), b)
    if not _zero(Δb):
        t = np.kron(a, as_array(Δb))
        ΔΩ = t if _zero(ΔΩ) else ΔΩ + t
    return np.kron(a, b), ΔΩ


def kron_rrule(a: Any, b: Any) -> tuple[Any, Pullback]:
    pa, pb = project_to(a), project_to(b)
    a, b = as_array(a), as_array(b)
    y = np.kron(a, b)
    nd, sa, sb = _kron_shapes(a, b)

    def kron_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'kron')
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        # y[i0*p0+k0, …] = a[i0, …]·b[k0, …]: view ȳ as (a0, b0, a1, b1, …)
        ȳ4 = np.reshape(ȳ, [d for pair in zip(sa, sb) for d in pair])
        ev, od = list(range(0, 2 * nd, 2)), list(range(1, 2 * nd, 2))

        def kron_ā() -> Any:
            return pa(np.reshape(np.tensordot(ȳ4, np.conj(np.reshape(b, sb)), axes=(od, list(range(nd)))), a.shape))

        def kron_b̄() -> Any:
            return pb(np.reshape(np.tensordot(np.conj(np.reshape(a, sa)), ȳ4, axes=(list(range(nd)), ev)), b.shape))

        return NO, (Thunk(kron_ā) if pa.kind else NO), (Thunk(kron_b̄) if pb.kind else NO)

    return y, kron_pullback


register([np.kron], kron_frule, kron_rrule)
