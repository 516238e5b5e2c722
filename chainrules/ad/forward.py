"""Forward mode: dual numbers whose every operation goes through `frule`.

`derivative(f, x)` and `jvp(f, primals, tangents)` run f on `Dual`s, values
that carry a tangent next to their primal.  Each operation on them calls the
operation's `frule` (Python operators, ufuncs and NumPy functions through
their protocols, `chainrules.ad.math`, functions wrapped with
`chainrules.ad.wrap`); real scalars take the compiled fast path, which runs the
C kernels of the scalar rule table (`_core/ad_call.pxi`).

The forward engine passes `ForwardConfig()` to the rules, so rules registered
with `config="forward"` apply, and `frule_via_ad` is this engine.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np

from chainrules._core import (
    AbstractZero,
    Dual,
    NoTangent,
    StructuralTangent,
    Tangent,
    Tracked,
    ZeroTangent,
    _ad_close,
    _ad_derivative_scalar,
    _ad_dual,
    _ad_is_active,
    _ad_new_tag,
    _ad_scalar_entry,
    _ad_set_forward_flat,
    _ad_strip_all,
    frule,
    unthunk,
    zero_tangent,
)
from chainrules._xp import check_tangent
from chainrules.ad import _foreign, _tracing
from chainrules.ad._inputs import no_tangent_space_hint, reject_subclass
from chainrules.ad._tracing import (
    CALL,
    OP,
    EscapedTrackedValueError,
    dataclass_fields,
    fname,
    index_tangent,
    is_differentiable_leaf,
    rebuild,
)
from chainrules.ad.config import FORWARD

__all__ = ["derivative", "jvp", "jacobian_forward", "frule_via_ad"]

_T = TypeVar("_T")

NO = NoTangent()
ZERO = ZeroTangent()


# ----- the engine: one operation on Duals ---------------------------------------

def apply(top: Any, kind: Any, f: Any, args: Any, kwargs: Any) -> Any:
    """Apply f to arguments holding Duals of `top.tag`, by f's frule."""
    tag = top.tag
    rule_f, call_f = _tracing.resolve(f)
    if kwargs and _tracing.holds_tag(kwargs, tag):
        if kind == CALL:
            return call_f(*args, **kwargs)      # a keyword gets no tangent: trace inside
        _tracing.reject_tracked_kwargs(f, kwargs, tag)
    primals, tangents = [], [NO]
    if _tracing.holds_tag(rule_f, tag):
        # f captures tracked values: its rule gets a copy holding the primals,
        # and their tangents as Δself; without such a rule, f is traced
        collected = {}

        def self_leaf(d: Any, path: Any) -> Any:
            collected[path] = d.tangent
            return d.primal
        g = _tracing.split_callee(rule_f, tag, self_leaf)
        if g is None:
            return call_f(*args, **kwargs)
        tangents[0] = _tracing.structural_tangent(g, collected)
        rule_f = g
    for a in args:
        collected = {}

        def leaf(d: Any, path: Any, collected: Any = collected) -> Any:
            collected[path] = d.tangent
            return d.primal

        p, changed = _tracing.split(a, tag, leaf)
        primals.append(p)
        tangents.append(_tracing.structural_tangent(p, collected) if changed else _tracing.const_tangent(a))
    nested = _tracing.top_tracked(primals) is not None
    try:
        res = frule(FORWARD, tuple(tangents), rule_f, *primals, **kwargs)
    except (TypeError, AttributeError) as e:
        if nested:
            raise _tracing.nested_rule_error(rule_f, e, "forward") from e
        raise
    if res is None and kind == OP and (g := _foreign.operator_function(rule_f, primals)) is not None:
        rule_f = g
        res = frule(FORWARD, tuple(tangents), rule_f, *primals, **kwargs)
    elif res is None and rule_f in _tracing.UFUNC_OF and (nested or kind == OP and any(map(_tracing.is_array, primals))):
        res = frule(FORWARD, tuple(tangents), _tracing.UFUNC_OF[rule_f], *primals, **kwargs)
    if res is None:
        if kind == CALL and _tracing.traceable(call_f, f):
            return call_f(*args, **kwargs)      # no rule: trace inside
        raise _tracing.no_rule(rule_f, primals, "forward")
    if type(res) is not tuple or len(res) != 2:
        raise TypeError(f"the frule of {fname(rule_f)} returned {type(res).__name__}, not (Ω, ΔΩ)")
    omega, domega = res
    return wrap_output(tag, omega, domega, rule_f)


def wrap_output(tag: Any, omega: Any, domega: Any, f: Any) -> Any:
    """The result of an frule as tracked values: Duals where the output has a
    tangent space and a non-zero tangent."""
    if isinstance(domega, AbstractZero):
        _check_untracked(omega, tag, f)
        return omega
    domega = unthunk(domega)
    if isinstance(omega, Tracked):
        if omega.tag >= tag:
            raise _hidden(f, tag)
        return _ad_dual(omega, domega, tag)
    t = type(omega)
    if t is list or isinstance(omega, tuple):
        return rebuild(omega, [wrap_output(tag, o, index_tangent(domega, i), f)
                               for i, o in enumerate(omega)])
    if t is dict:
        return {k: wrap_output(tag, v, index_tangent(domega, k), f) for k, v in omega.items()}
    if isinstance(omega, dict):         # a dict subclass (scipy.optimize.OptimizeResult): a copy of its type
        return _tracing.copy_dict(omega, {k: wrap_output(tag, v, index_tangent(domega, k), f)
                                          for k, v in omega.items()})
    if isinstance(omega, StructuralTangent):
        return _tracing.map_structural(omega, lambda k, v: wrap_output(tag, v, index_tangent(domega, k), f))
    if _tracing.no_tangent_space(omega):
        # ints, bools, integer arrays, strings: locally constant, no tangent
        return omega
    return _ad_dual(omega, domega, tag)


def _check_untracked(omega: Any, tag: Any, f: Any) -> None:
    top = _tracing.top_tracked(omega)
    if top is not None and top.tag >= tag:
        raise _hidden(f, tag)


def _hidden(f: Any, tag: Any) -> Any:
    return EscapedTrackedValueError(
        f"the rule of {fname(f)} returned a value tracked by the differentiation it was called "
        f"for (tag {tag}): a function or object passed to it captures a tracked value where "
        "chainrules.ad cannot see it (closures and functools.partial are seen; object "
        "attributes are not); pass the value as an argument instead")


# ----- seeding inputs and reading outputs ---------------------------------------

def seed(x: Any, dx: Any, tag: Any) -> Any:
    """x with tangent dx for the differentiation `tag`: Duals at the leaves
    (numbers, arrays), containers, dataclasses and closures rebuilt."""
    dx = unthunk(dx)
    if isinstance(dx, AbstractZero):
        return x
    if isinstance(x, Tracked) or is_differentiable_leaf(x):
        if type(x) is int:
            x = float(x)
        if type(x) is float and type(dx) is int:
            dx = float(dx)
        if isinstance(x, np.ndarray) and isinstance(dx, np.ndarray) and dx.shape != x.shape:
            raise ValueError(f"the tangent's shape {dx.shape} does not match the primal's {x.shape}")
        return _ad_dual(x, dx, tag)
    t = type(x)
    if t is list or isinstance(x, tuple):
        return rebuild(x, [seed(v, index_tangent(dx, i), tag) for i, v in enumerate(x)])
    if t is dict:
        return {k: seed(v, index_tangent(dx, k), tag) for k, v in x.items()}
    fields = dataclass_fields(x)
    if fields is not None:
        return dataclasses.replace(x, **{k: seed(v, index_tangent(dx, k), tag) for k, v in fields.items()
                                        if not isinstance(index_tangent(dx, k), AbstractZero)})
    if t is types.FunctionType and x.__closure__:
        values = {name: seed(v, index_tangent(dx, name), tag) for name, v in _tracing._cells(x)}
        return _tracing.with_cells(x, values)
    raise TypeError(f"cannot give a tangent to a {t.__name__}: differentiable inputs are numbers, "
                    "float/complex arrays, and tuples, lists, dicts and dataclasses of them")


def extract(y: Any, tag: Any, materialize: bool = True) -> tuple[Any, Any]:
    """(Ω, ΔΩ) from the result of a function run on Duals of `tag`.  With
    `materialize`, outputs that do not depend on the input get concrete
    zeros (0.0, zero arrays) instead of ZeroTangent()."""
    if isinstance(y, Tracked):
        if y.tag == tag:
            if type(y) is not Dual:
                raise EscapedTrackedValueError(f"forward mode met a {type(y).__name__} of its own tag")
            return y.primal, y.tangent
        if y.tag > tag or not _ad_is_active(y.tag):
            raise EscapedTrackedValueError(
                f"f returned a tracked {type(y).__name__} of a differentiation that is not under way "
                "(a tracked value escaped)")
        return y, _zero(y, materialize)
    t = type(y)
    if t is list or isinstance(y, tuple):
        parts: Any = [extract(v, tag, materialize) for v in y]
        omega = rebuild(y, [p[0] for p in parts])
        if t is list:
            return omega, [p[1] for p in parts]
        return omega, Tangent[t](*[p[1] for p in parts])  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    if t is dict:
        parts = {k: extract(v, tag, materialize) for k, v in y.items()}
        return {k: p[0] for k, p in parts.items()}, Tangent[dict]({k: p[1] for k, p in parts.items()})  # type: ignore[type-arg]
    if isinstance(y, StructuralTangent):
        parts = {}
        omega = _tracing.map_structural(y, lambda k, v: parts.setdefault(k, extract(v, tag, materialize))[0])
        return omega, _tracing.map_structural(y, lambda k, v: parts[k][1])
    fields = dataclass_fields(y)
    if fields is not None:
        parts = {k: extract(v, tag, materialize) for k, v in fields.items()}
        return dataclasses.replace(y, **{k: p[0] for k, p in parts.items()}), \
            Tangent[t](**{k: p[1] for k, p in parts.items()})  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    return y, _zero(y, materialize)


def _zero(y: Any, materialize: Any) -> Any:
    if not materialize:
        return ZERO if is_differentiable_leaf(_ad_strip_all(y)) else NO
    return zero_of(y)


def zero_of(y: Any) -> Any:
    """The concrete zero tangent of a value (0.0 for Python ints)."""
    p = _ad_strip_all(y)
    if type(p) is int:
        return 0.0
    if is_differentiable_leaf(p):
        xp = _foreign.xp_of(p)
        return zero_tangent(p) if xp is None else xp.zeros_like(p)
    return NO


# ----- the API -----------------------------------------------------------------

def _owned(d: Any) -> Any:
    """A derivative the caller may write into: a rule's read-only broadcast
    view (the ones of x + np.ones(4)) is copied."""
    if isinstance(d, np.ndarray) and not d.flags.writeable:
        return d.copy()
    return d


def _finish_derivative(tag: Any, y: Any) -> Any:
    omega, domega = extract(y, tag)
    return _owned(domega)


def _derivative_by_rule(f: Any, x: Any) -> Any:
    return _owned(jvp(f, (x,), (1.0,))[1])


def derivative(f: Callable[[Any], Any], x: float | complex | np.number[Any]) -> Any:
    """derivative(f, x) -> df/dx at the scalar x (real or complex), by forward mode.

    f may return a number, an array, or a tuple/list/dict of them; the
    derivative has the same structure (a `Tangent` for tuples and dicts, as
    `jvp` gives).  Outputs that do not depend on x give zeros.

    Example::

        >>> from chainrules.ad import math
        >>> derivative(lambda x: math.asin(0.2 + math.sin(x)), 3.0)
        -1.0531613736418153

    See also: `jvp`, `gradient`, `jacobian`."""
    if type(x) is float:
        return _ad_derivative_scalar(f, x, _finish_derivative, _derivative_by_rule)
    p = _ad_strip_all(x)
    xp = _foreign.xp_of(p)
    if xp is not None:
        # a 0-d array of another library: its tangent is a one of that library
        if tuple(p.shape) != () or not _foreign.is_inexact(xp, p):
            raise TypeError(f"derivative(f, x): x must be a real or complex scalar, got {_describe(x)}; "
                            "use jvp or jacobian for arrays and containers")
        return _owned(jvp(f, (x,), (xp.ones_like(p),))[1])
    if type(p) is int:
        x = float(x) if p is x else x  # type: ignore[arg-type]  # (x is the int p here)
    elif not isinstance(p, (float, complex, np.floating, np.complexfloating)) or isinstance(p, bool):
        raise TypeError(f"derivative(f, x): x must be a real or complex scalar, got {_describe(x)}; "
                        "use jvp or jacobian for arrays and containers")
    if type(x) is float:
        return _ad_derivative_scalar(f, x, _finish_derivative, _derivative_by_rule)
    one = 1.0 if isinstance(p, (float, np.floating)) else complex(1.0)
    return _owned(jvp(f, (x,), (one,))[1])


if not TYPE_CHECKING:
    # a compiled entry point (issue 13): derivative(f, x) of a Python float runs no Python
    # frame before the engine's C loop; other calls are the function above
    derivative = _ad_scalar_entry(derivative, 2, _finish_derivative, _derivative_by_rule)


def jvp(f: Callable[..., _T], primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[_T, Any]:
    """jvp(f, primals, tangents) -> (Ω, ΔΩ): f(*primals) and its
    Jacobian-vector product with `tangents` (one per primal: numbers, arrays,
    or structural tangents of tuples, lists, dicts and dataclasses).

    When f itself has an frule, the rule is used.

    Example::

        >>> jvp(lambda x, y: x * y, (2.0, 3.0), (1.0, 0.0))
        (6.0, 3.0)"""
    primals, tangents = _as_tuples(primals, tangents)
    for i, (p, t) in enumerate(zip(primals, tangents)):
        if type(t) is not type(p):
            check_tangent("jvp", f"the tangent of argument {i + 1}", t, p)     # two libraries: TypeError
    if not _foreign.plain_numpy(primals):
        for p in primals:
            _check_input(p, "jvp")
        _foreign.check_libraries(primals, "jvp")
    if _tracing.has_rules(f):
        if _tracing.top_tracked(primals) is not None:
            # nested: the engine applies f's rule (a rule may not take tracked values)
            f = _tracing.wrap(f)
        else:
            res = frule(FORWARD, (NO,) + tangents, f, *primals)
            if res is not None:
                return res
    tag = _ad_new_tag()
    try:
        args = [seed(p, t, tag) for p, t in zip(primals, tangents)]
        y = f(*args)
    finally:
        _ad_close(tag)
    return extract(y, tag)


def frule_via_ad(tangents: Any, f: Callable[..., Any], args: Any, kwargs: Any) -> tuple[Any, Any]:
    """The forward rule of f computed by this engine (`ForwardConfig.frule_via_ad`):
    f's own frule if it has one, else f run on Duals.  `tangents[0]` is the
    tangent of f itself (a `Tangent` of its closure variables, or a zero)."""
    tangents = tuple(tangents)
    if len(tangents) != len(args) + 1:
        raise ValueError(f"frule_via_ad({fname(f)}): expected {len(args) + 1} tangents (Δself and one "
                         f"per argument), got {len(tangents)}")
    rule_f, call_f = _tracing.resolve(f)
    res = frule(FORWARD, tangents, rule_f, *args, **kwargs)
    if res is not None:
        return res
    tag = _ad_new_tag()
    try:
        g = seed(call_f, tangents[0], tag) if type(call_f) is types.FunctionType else call_f
        xs = [seed(a, t, tag) for a, t in zip(args, tangents[1:])]
        y = g(*xs, **kwargs)
    finally:
        _ad_close(tag)
    return extract(y, tag, materialize=False)


def jacobian_forward(f: Any, x: Any) -> Any:
    """The Jacobian of f at x by forward mode, one jvp per input element:
    shape `np.shape(f(x)) + np.shape(x)`."""
    x, shape, dtype = jacobian_input(x)
    cols = []
    omega = None
    for e in basis(shape, dtype, x):
        omega, col = jvp(f, (x,), (e,))
        cols.append(as_output(omega, col))
    out_shape = tuple(_ad_strip_all(omega).shape) if omega is not None and _foreign.xp_of(
        _ad_strip_all(omega)) is not None else np.shape(_ad_strip_all(omega))
    return stack_jacobian(cols, out_shape, shape, like=x)


def jacobian_input(x: Any, who: str = "jacobian") -> Any:
    """(x, its shape, the dtype of its tangents), x checked: a number or a
    float/complex array, possibly tracked by an enclosing differentiation
    (which then differentiates the Jacobian too)."""
    p = _ad_strip_all(x)
    xp = _foreign.xp_of(p)
    if xp is not None:
        if not _foreign.is_inexact(xp, p):
            raise TypeError(f"jacobian(f, x): x must be a float or complex array, got {_describe(x)}")
        return x, tuple(p.shape), p.dtype
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, complex, np.number, np.ndarray)):
        raise TypeError(f"jacobian(f, x): x must be a number or a float/complex array, got {_describe(x)}")
    if isinstance(p, (np.ndarray, np.integer)) and p.dtype.kind in "iu":
        # as gradient says: NumPy integers are constants, Python ints are floats
        raise TypeError(f"{who}(f, x): x has no tangent space (got {_describe(x)}): "
                        f"{no_tangent_space_hint((p,))}")
    dtype = np.result_type(p, 0.0)        # float32 stays float32; Python ints become float64
    if dtype.kind not in "fc":
        raise TypeError(f"jacobian(f, x): x must be a float or complex array, got dtype {np.result_type(p)}")
    if isinstance(x, Tracked):
        return x, np.shape(p), dtype
    if isinstance(p, np.ndarray):
        return p.astype(dtype, copy=False), p.shape, dtype
    return (complex(p) if dtype.kind == "c" else float(p)), (), dtype  # type: ignore[arg-type]  # real here


def basis(shape: Any, dtype: Any, like: Any = None) -> Iterator[Any]:
    """The unit tangents of a value of this shape (numbers for a scalar; for
    an array of another library, arrays of that library)."""
    p = _ad_strip_all(like)
    xp = _foreign.xp_of(p)
    if xp is not None:
        yield from _foreign.unit_basis(xp, p, dtype)
        return
    n = int(np.prod(shape))
    for j in range(n):
        e = np.zeros(n, dtype=dtype)
        e[j] = 1
        yield e.reshape(shape) if shape else e[0].item()


def as_output(omega: Any, d: Any) -> Any:
    """A tangent of f's output as an array (or tracked array) for stacking."""
    if isinstance(_ad_strip_all(omega), (tuple, list, dict)) or isinstance(omega, (tuple, list, dict)):
        raise TypeError("jacobian: f must return a number or an array, got a "
                        f"{type(omega).__name__}; differentiate its parts separately")
    d = unthunk(d)
    if isinstance(d, AbstractZero):
        p = _ad_strip_all(omega)
        xp = _foreign.xp_of(p)
        return np.zeros(np.shape(p)) if xp is None else xp.zeros_like(p)
    return d


def stack_jacobian(parts: Any, out_shape: Any, in_shape: Any, axis: Any = -1, like: Any = None) -> Any:
    """The Jacobian of shape out_shape + in_shape from one part per input
    element (axis=-1) or per output element (axis=0); in the library of
    `like` (the input) when that is not NumPy."""
    p = _ad_strip_all(like)
    xp = _foreign.xp_of(p)
    if xp is not None:
        if isinstance(like, Tracked):
            xp = like.__array_namespace__()
        return _foreign.stack(xp, [_as_array(xp, q, p) for q in parts], tuple(out_shape), tuple(in_shape), axis)
    if not parts:
        return np.zeros(out_shape + in_shape)
    jac = np.stack([np.reshape(q, out_shape if axis == -1 else in_shape) for q in parts], axis=axis)
    jac = np.reshape(jac, out_shape + in_shape)
    return jac[()] if not out_shape + in_shape else jac


def _as_array(xp: Any, q: Any, like: Any) -> Any:
    """A part of a Jacobian as an array of like's library (a Python number
    from a scalar output becomes one)."""
    if isinstance(q, (int, float, complex)):
        return xp.asarray(q, dtype=like.dtype)
    return q


def _as_tuples(primals: Any, tangents: Any) -> Any:
    if not isinstance(primals, tuple):
        raise TypeError(f"jvp(f, primals, tangents): primals must be a tuple of arguments, got "
                        f"{type(primals).__name__}")
    if not isinstance(tangents, tuple):
        raise TypeError(f"jvp(f, primals, tangents): tangents must be a tuple, got {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    return primals, tangents


def _check_input(x: Any, who: str) -> None:
    p = _ad_strip_all(x)
    if isinstance(p, (str, bytes)) or p is None:
        raise TypeError(f"{who}: cannot differentiate with respect to a {type(p).__name__}")
    reject_subclass(p, who)


def _describe(x: Any) -> Any:
    p = _ad_strip_all(x)
    if isinstance(p, np.ndarray):
        return f"an array of shape {p.shape} and dtype {p.dtype}"
    if _foreign.xp_of(p) is not None:
        return _foreign.a_(_foreign.describe(p))
    return f"a {type(p).__name__}"


_tracing.ENGINES[Dual] = apply
_ad_set_forward_flat(FORWARD, wrap_output)      # the compiled flat path (_core/ad_forward_flat.pxi)
