"""Reverse mode: a tape whose every operation goes through `rrule`.

`gradient(f, *args)`, `value_and_gradient` and `vjp(f, *args)` run f on
`Var`s, values recorded on a `Tape`.  Each operation on them calls the
operation's `rrule` and records its pullback; the backward sweep calls the
pullbacks in reverse order.  Real scalars take the compiled fast path: the
partials come from the C kernels of the scalar rule table and the sweep over
them is a C loop (`_core/ad_reverse.pxi`).

Inputs may be numbers, float/complex arrays, and tuples, lists, dicts and
dataclasses of them; their gradients are structural tangents (`Tangent[P]`
for tuples, dicts and dataclasses, lists for lists, `NoTangent()` for parts
without a tangent space).

The reverse engine passes `ReverseConfig()` to the rules, so rules registered
with `config="reverse"` apply, and `rrule_via_ad` is this engine.
"""

from __future__ import annotations

import dataclasses
import types
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np

from chainrules._protocols import Pullback
from chainrules._core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    StructuralTangent,
    Tangent,
    Tape,
    Tracked,
    Var,
    ZeroTangent,
    _ad_gradient_scalar,
    _ad_is_active,
    _ad_scalar_entry,
    _ad_set_reverse_flat,
    _ad_strip_all,
    _ad_value_and_gradient_scalar,
    rrule,
    unthunk,
)
from chainrules._xp import check_tangent
from chainrules.ad import _foreign, _tracing
from chainrules.ad._inputs import check_input, has_leaf, no_tangent_space_hint
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
from chainrules.ad.config import REVERSE
from chainrules.ad.forward import zero_of
from chainrules.rulesets._arrays import unbroadcast

__all__ = ["gradient", "value_and_gradient", "vjp", "jacobian_reverse", "rrule_via_ad"]

_T = TypeVar("_T")

NO = NoTangent()
ZERO = ZeroTangent()


# ----- the engine: one operation on Vars -------------------------------------------

class Record:
    """One rule application on the tape: its pullback, the slots of its
    tracked inputs (with the argument index and the path inside the
    argument, -1 for the function itself) and the slots of its outputs.

    `real` (nested differentiation only): one flag per input, True for a
    real one.  A rule's pullback projects its cotangents with `ProjectTo`,
    which lets values tracked by an enclosing differentiation through, so
    the real part is taken here."""
    __slots__ = ("pullback", "inputs", "outputs", "nargs", "f", "nested", "real")

    def __init__(self, pullback: Any, inputs: Any, outputs: Any, nargs: Any, f: Any, nested: Any = False, real: Any = None) -> None:
        self.pullback = pullback
        self.inputs = inputs
        self.outputs = outputs
        self.nargs = nargs
        self.f = f
        self.nested = nested
        self.real = real

    def backprop(self, adj: Any) -> None:
        outputs = self.outputs
        ybar = adj.get(outputs) if type(outputs) is int else gather(outputs, adj)
        if isinstance(ybar, AbstractZero):
            return
        try:
            grads = self.pullback(ybar)
        except (TypeError, AttributeError) as e:
            if self.nested or _tracing.top_tracked(ybar) is not None:
                raise _tracing.nested_rule_error(self.f, e, "reverse") from e
            raise
        if type(grads) is not tuple or len(grads) != self.nargs + 1:
            raise TypeError(f"the pullback of {fname(self.f)} returned "
                            f"{len(grads) if isinstance(grads, tuple) else type(grads).__name__} "
                            f"cotangents; expected a tuple of {self.nargs + 1} (∂self and one per argument)")
        real = self.real
        try:
            for k, (argi, path, slot) in enumerate(self.inputs):
                g = grads[argi + 1]
                if path:
                    for key in path:
                        g = index_tangent(g, key)
                if real is not None and real[k]:
                    g = _tracing.project_real(g)
                adj.add(slot, g)        # unthunks: a thunked cotangent is computed here
        except (TypeError, AttributeError) as e:
            if self.nested or _tracing.top_tracked(ybar) is not None:
                raise _tracing.nested_rule_error(self.f, e, "reverse") from e
            raise

    def __repr__(self) -> str:
        return f"<record of {fname(self.f)}>"


_FLAT_TYPES = _tracing.FLAT_TYPES
_SLOW = object()


def _apply_flat(tape: Any, kind: Any, f: Any, args: Any, kwargs: Any) -> Any:
    """`apply` for the common case, without the walks over containers: an
    operator, ufunc or NumPy function (no closure to look into) on Vars of
    this tape holding plain values and on plain flat values (no nesting).
    Returns _SLOW when the case is not that one or the rule is missing (the
    general path then decides, and reports)."""
    tag = tape.tag
    primals = list(args)
    inputs = []
    for i, a in enumerate(args):
        t = type(a)
        if t is Var:
            if a.tag != tag:
                return _SLOW
            p = a.primal
            if isinstance(p, Tracked):
                return _SLOW
            primals[i] = p
            inputs.append((i, (), a.slot))
        elif t not in _FLAT_TYPES:
            return _SLOW
    if kwargs:
        for v in kwargs.values():
            if type(v) not in _FLAT_TYPES:
                return _SLOW
    res = rrule(REVERSE, f, *primals, **kwargs)
    if res is None and kind == OP:
        g = _tracing.UFUNC_OF.get(f)
        if g is not None and any(map(_tracing.is_array, primals)):
            f = g
            res = rrule(REVERSE, f, *primals, **kwargs)
    if type(res) is not tuple or len(res) != 2:
        return _SLOW
    omega, pullback = res
    t = type(omega)
    if (t is np.ndarray and omega.dtype.kind in "fc") or t is float or t is np.float64:
        slot = tape.new_slot()
        tape.push_record(Record(pullback, inputs, slot, len(primals), f))
        return tape.var(omega, slot)
    return _attach_flat(tape, f, pullback, omega, inputs, len(primals))


def _attach_flat(tape: Any, f: Any, pullback: Any, omega: Any, inputs: Any, nargs: Any) -> Any:
    """The end of the flat path (this one and the compiled one) for an output
    that is not one real value (complex, a tuple, an integer array…)."""
    out, outputs = attach(tape, omega, f)
    if outputs is not None:
        tape.push_record(Record(pullback, inputs, outputs, nargs, f))
    return out


_ad_set_reverse_flat(REVERSE, _FLAT_TYPES, _tracing._STRUCTURAL, Record, _attach_flat)


def apply(top: Any, kind: Any, f: Any, args: Any, kwargs: Any) -> Any:
    """Apply f to arguments holding Vars of `top.tape`, by f's rrule."""
    tape = top.tape
    if not tape.active:
        raise EscapedTrackedValueError(
            f"{fname(f)}: met a Var of a tape that is closed (a tracked value escaped)")
    if kind != CALL:
        out = _apply_flat(tape, kind, f, args, kwargs)
        if out is not _SLOW:
            return out
    rule_f, call_f = _tracing.resolve(f)
    tag = tape.tag
    if kwargs and _tracing.holds_tag(kwargs, tag):
        if kind == CALL:
            return call_f(*args, **kwargs)
        _tracing.reject_tracked_kwargs(f, kwargs, tag)
    inputs, primals, leaves = [], [], []
    if _tracing.holds_tag(rule_f, tag):
        # f captures tracked values: its rule gets a copy holding the primals
        # and returns their cotangents as ∂self; without such a rule, f is traced
        def self_leaf(v: Any, path: Any) -> Any:
            inputs.append((-1, path, v.slot))
            leaves.append(v.primal)
            return v.primal
        g = _tracing.split_callee(rule_f, tag, self_leaf)
        if g is None:
            inputs.clear()
            return call_f(*args, **kwargs)
        rule_f = g
    for i, a in enumerate(args):
        def leaf(v: Any, path: Any, i: Any = i) -> Any:
            inputs.append((i, path, v.slot))
            leaves.append(v.primal)
            return v.primal
        primals.append(_tracing.split(a, tag, leaf)[0])
    nested = _tracing.top_tracked(primals) is not None
    real = tuple(map(_tracing.is_real, leaves)) if nested else None
    try:
        res = rrule(REVERSE, rule_f, *primals, **kwargs)
    except (TypeError, AttributeError) as e:
        if nested:
            raise _tracing.nested_rule_error(rule_f, e, "reverse") from e
        raise
    if res is None and kind == OP and (g := _foreign.operator_function(rule_f, primals)) is not None:
        rule_f = g
        res = rrule(REVERSE, rule_f, *primals, **kwargs)
    elif res is None and rule_f in _tracing.UFUNC_OF and (nested or kind == OP and any(map(_tracing.is_array, primals))):
        rule_f = _tracing.UFUNC_OF[rule_f]
        res = rrule(REVERSE, rule_f, *primals, **kwargs)
    if res is None:
        if kind == CALL and _tracing.traceable(call_f, f):
            return call_f(*args, **kwargs)      # no rule: trace inside
        raise _tracing.no_rule(rule_f, primals, "reverse")
    if type(res) is not tuple or len(res) != 2:
        raise TypeError(f"the rrule of {fname(rule_f)} returned {type(res).__name__}, not (Ω, pullback)")
    omega, pullback = res
    out, outputs = attach(tape, omega, rule_f)
    if outputs is not None:
        tape.push_record(Record(pullback, inputs, outputs, len(primals), rule_f, nested, real))
    return out


def attach(tape: Any, omega: Any, f: Any) -> Any:
    """The output of a rule as tracked values: a new slot (and Var) for each
    part with a tangent space.  Returns (tracked output, its slot structure
    or None when nothing in it is differentiable)."""
    if isinstance(omega, Tracked):
        if omega.tag >= tape.tag:
            raise EscapedTrackedValueError(
                f"the rule of {fname(f)} returned a value tracked by the differentiation it was "
                f"called for (tag {tape.tag}): a function or object passed to it captures a "
                "tracked value where chainrules.ad cannot see it (closures and functools.partial "
                "are seen; object attributes are not); pass the value as an argument instead")
        slot = tape.new_slot()
        return tape.var(omega, slot), slot
    t = type(omega)
    if t is list or isinstance(omega, tuple):
        parts: Any = [attach(tape, o, f) for o in omega]
        if all(p[1] is None for p in parts):
            return omega, None
        return rebuild(omega, [p[0] for p in parts]), ("seq", t, [p[1] for p in parts])
    if t is dict:
        parts = {k: attach(tape, v, f) for k, v in omega.items()}
        if all(p[1] is None for p in parts.values()):
            return omega, None
        return {k: p[0] for k, p in parts.items()}, ("dict", t, {k: p[1] for k, p in parts.items()})
    if isinstance(omega, dict):         # a dict subclass (scipy.optimize.OptimizeResult): a copy of its type
        parts = {k: attach(tape, v, f) for k, v in omega.items()}
        if all(p[1] is None for p in parts.values()):
            return omega, None
        return (_tracing.copy_dict(omega, {k: p[0] for k, p in parts.items()}),
                ("dict", t, {k: p[1] for k, p in parts.items()}))
    if isinstance(omega, StructuralTangent):
        parts = {}
        out = _tracing.map_structural(omega, lambda k, v: parts.setdefault(k, attach(tape, v, f))[0])
        if all(p[1] is None for p in parts.values()):
            return omega, None
        return out, ("tangent", omega, {k: p[1] for k, p in parts.items()})
    if _tracing.no_tangent_space(omega):
        return omega, None
    slot = tape.new_slot()
    return tape.var(omega, slot), slot


def gather(outputs: Any, adj: Any) -> Any:
    """The cotangent of an output from the adjoints of its slots
    (ZeroTangent() when nothing reached them)."""
    if type(outputs) is int:
        return adj.get(outputs)
    if outputs is None:
        return ZERO
    kind, t, parts = outputs
    if kind == "tangent":
        vals: Any = {k: gather(p, adj) for k, p in parts.items()}
        if all(isinstance(v, AbstractZero) for v in vals.values()):
            return ZERO
        return _tracing.map_structural(t, lambda k, v: vals[k])
    if kind == "seq":
        vals = [gather(p, adj) for p in parts]
        if all(isinstance(v, AbstractZero) for v in vals):
            return ZERO
        return vals if t is list else Tangent[t](*vals)  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    vals = {k: gather(p, adj) for k, p in parts.items()}
    if all(isinstance(v, AbstractZero) for v in vals.values()):
        return ZERO
    return Tangent[t](vals)  # type: ignore[valid-type]  # Tangent[P] of a type known at run time


# ----- tracking inputs, reading outputs ------------------------------------------

def track(x: Any, tape: Any) -> Any:
    """x with Vars of `tape` at its differentiable leaves (numbers, arrays,
    and those inside tuples, lists, dicts, dataclasses and closures)."""
    if isinstance(x, Tracked) or is_differentiable_leaf(x):
        if type(x) is int:
            x = float(x)
        return tape.var(x)
    t = type(x)
    if t is list or isinstance(x, tuple):
        return rebuild(x, [track(v, tape) for v in x])
    if t is dict:
        return {k: track(v, tape) for k, v in x.items()}
    fields = dataclass_fields(x)
    if fields is not None:
        return dataclasses.replace(x, **{k: track(v, tape) for k, v in fields.items()})
    if t is types.FunctionType and x.__closure__:
        values = {name: track(v, tape) for name, v in _tracing._cells(x) if _trackable(v)}
        return _tracing.with_cells(x, values) if values else x
    return x


def _trackable(v: Any) -> bool:
    """Closure variables worth tracking: real or complex numbers, arrays and containers of
    them (not integers: an index or a count captured by a closure stays an int, as
    ChainRules gives integers no tangent)."""
    if isinstance(v, Tracked):
        return True
    if is_differentiable_leaf(v):
        return not isinstance(v, (bool, int, np.integer))
    if type(v) in (list, tuple, dict) or isinstance(v, tuple):
        vals = v.values() if type(v) is dict else v
        return any(_trackable(u) for u in vals)
    return False


def collect(x: Any, tx: Any, adj: Any, tape: Any) -> Any:
    """The cotangent of the input x (tracked as tx) from the adjoints."""
    if isinstance(tx, Var) and tx.tape is tape:
        g = adj.get(tx.slot)
        if isinstance(g, AbstractZero):
            return zero_of(x)
        if isinstance(x, Tracked):
            return _tracing.project_real(g) if _tracing.is_real(x) else g
        xp = _foreign.xp_of(x)
        if xp is not None:
            return _foreign.project(xp, x, unthunk(g))
        return ProjectTo(float(x) if type(x) is int else x)(g)
    t = type(x)
    if t is list:
        return [collect(v, tv, adj, tape) for v, tv in zip(x, tx)]
    if isinstance(x, tuple):
        return Tangent[t](*[collect(v, tv, adj, tape) for v, tv in zip(x, tx)])  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    if t is dict:
        return Tangent[dict]({k: collect(v, tx[k], adj, tape) for k, v in x.items()})  # type: ignore[type-arg]
    fields = dataclass_fields(x)
    if fields is not None:
        return Tangent[t](**{k: collect(v, getattr(tx, k), adj, tape) for k, v in fields.items()})  # type: ignore[valid-type]  # Tangent[P] of a type known at run time
    if t is types.FunctionType and tx is not x:
        cells = dict(_tracing._cells(tx))
        return Tangent[types.FunctionType](**{name: collect(v, cells[name], adj, tape)
                                               for name, v in _tracing._cells(x) if name in cells
                                               and cells[name] is not v})
    return NO


def detach(y: Any, tape: Any) -> Any:
    """(Ω, slot structure) of f's result: the primals of this tape's Vars
    (values of enclosing differentiations stay tracked)."""
    if isinstance(y, Tracked):
        if y.tag == tape.tag:
            if type(y) is not Var:
                raise EscapedTrackedValueError(f"reverse mode met a {type(y).__name__} of its own tag")
            return y.primal, y.slot
        if y.tag > tape.tag or not _ad_is_active(y.tag):
            raise EscapedTrackedValueError(
                f"f returned a tracked {type(y).__name__} of a differentiation that is not under way "
                "(a tracked value escaped)")
        return y, None
    t = type(y)
    if t is list or isinstance(y, tuple):
        parts: Any = [detach(v, tape) for v in y]
        return rebuild(y, [p[0] for p in parts]), ("seq", t, [p[1] for p in parts])
    if t is dict:
        parts = {k: detach(v, tape) for k, v in y.items()}
        return {k: p[0] for k, p in parts.items()}, ("dict", t, {k: p[1] for k, p in parts.items()})
    if isinstance(y, StructuralTangent):
        parts = {}
        omega = _tracing.map_structural(y, lambda k, v: parts.setdefault(k, detach(v, tape))[0])
        return omega, ("dict", t, {k: p[1] for k, p in parts.items()})
    fields = dataclass_fields(y)
    if fields is not None:
        parts = {k: detach(v, tape) for k, v in fields.items()}
        return dataclasses.replace(y, **{k: p[0] for k, p in parts.items()}), \
            ("dict", t, {k: p[1] for k, p in parts.items()})
    return y, None


def _seeds(structure: Any, ybar: Any, seeds: Any) -> None:
    ybar = unthunk(ybar)
    if structure is None or isinstance(ybar, AbstractZero):
        return
    if type(structure) is int:
        old = seeds.get(structure)
        seeds[structure] = ybar if old is None else old + ybar
        return
    kind, t, parts = structure
    if kind == "seq":
        n = len(parts)
        if not isinstance(ybar, (tuple, list, Tangent)) or len(ybar) != n:
            raise TypeError(f"the cotangent of a {t.__name__} of {n} elements must be a Tangent, "
                            f"tuple or list of {n}, got {type(ybar).__name__}")
        for i, p in enumerate(parts):
            _seeds(p, index_tangent(ybar, i), seeds)
    else:
        for k, p in parts.items():
            _seeds(p, index_tangent(ybar, k), seeds)


def _run(f: Any, args: Any) -> Any:
    tape = Tape()
    try:
        targs = [track(a, tape) for a in args]
        y = f(*targs)
    finally:
        tape.close()
    return tape, targs, y


# ----- the API ---------------------------------------------------------------------

def _real_scalar(omega: Any, who: str) -> None:
    p = _ad_strip_all(omega)
    if isinstance(p, np.ndarray) and p.size == 1 and p.dtype.kind in "fiu":
        return
    if isinstance(p, (float, int, np.floating, np.integer)) and not isinstance(p, (bool, np.bool_)):
        return
    if isinstance(p, (complex, np.complexfloating)):
        raise TypeError(f"{who}: f returned a complex number; a gradient needs a real scalar "
                        "output (differentiate its real part, or use vjp)")
    if isinstance(p, np.ndarray):
        raise TypeError(f"{who}: f returned an array of shape {p.shape}; a gradient needs a real "
                        "scalar output (use vjp or jacobian)")
    xp = _foreign.xp_of(p)
    if xp is not None:
        if _foreign.is_real_scalar(xp, p):
            return
        what = _foreign.describe(p)
        what = "a complex " + what if _foreign.is_inexact(xp, p) and not _foreign.is_real_floating(xp, p) \
            else _foreign.a_(what)
        raise TypeError(f"{who}: f returned {what}; a gradient needs a real "
                        "scalar output (differentiate its real part, or use vjp or jacobian)")
    raise TypeError(f"{who}: f returned a {type(p).__name__}, not a number; a gradient needs a "
                    "real scalar output (use vjp for other outputs)")


def _finish(tape: Any, leaf: Any, y: Any) -> Any:
    """The gradient of a scalar-input run that left the fast path."""
    omega, structure = detach(y, tape)
    _real_scalar(omega, "gradient")
    if structure is None:
        return omega, 0.0
    adj = tape.backward({structure: 1.0})
    g = adj.get(leaf.slot)
    if isinstance(g, AbstractZero):
        return omega, 0.0
    return omega, (_tracing.project_real(g) if isinstance(g, Tracked) else ProjectTo(1.0)(g))


def _finish_gradient(tape: Any, leaf: Any, y: Any) -> Any:
    return _finish(tape, leaf, y)[1]


def _gradient_by_rule(f: Any, x: Any) -> Any:
    return _value_and_gradient(f, (x,))[1][0]


def _value_and_gradient_by_rule(f: Any, x: Any) -> Any:
    omega, grads = _value_and_gradient(f, (x,))
    return omega, grads[0]


def gradient(f: Callable[..., Any], *args: Any) -> Any:
    """gradient(f, *args): the gradient of the real scalar f(*args) with
    respect to each argument, by reverse mode.

    One argument: its gradient.  Several: a tuple, one per argument.
    Arguments may be numbers, float/complex arrays, and tuples, lists, dicts
    and dataclasses of them (gradients: `Tangent[P]`, lists, `NoTangent()`
    for parts without a tangent space such as ints inside containers, bools,
    strings).  When f itself has an rrule, the rule is used.

    Example::

        >>> from chainrules.ad import math
        >>> gradient(lambda x: math.asin(0.2 + math.sin(x)), 3.0)
        -1.0531613736418153
        >>> gradient(lambda p: p["w"] * p["b"], {"w": 2.0, "b": 3.0})
        Tangent[dict](w=3.0, b=2.0)

    See also: `value_and_gradient`, `vjp`, `derivative`, `hessian`."""
    if len(args) == 1 and type(args[0]) is float:
        return _ad_gradient_scalar(f, args[0], _finish_gradient, _gradient_by_rule)
    grads = _value_and_gradient(f, args)[1]
    return grads[0] if len(args) == 1 else grads


def value_and_gradient(f: Callable[..., _T], *args: Any) -> tuple[_T, Any]:
    """value_and_gradient(f, *args) -> (f(*args), gradient): as `gradient`,
    with the value."""
    if len(args) == 1 and type(args[0]) is float:
        return _ad_value_and_gradient_scalar(f, args[0], _finish, _value_and_gradient_by_rule)
    omega, grads = _value_and_gradient(f, args, "value_and_gradient")
    return omega, (grads[0] if len(args) == 1 else grads)


if not TYPE_CHECKING:
    # Compiled entry points (issue 13): gradient(f, x) and value_and_gradient(f, x) of a
    # Python float run no Python frame before the engine's C loop; other calls are the
    # functions above.
    gradient = _ad_scalar_entry(gradient, 0, _finish_gradient, _gradient_by_rule)
    value_and_gradient = _ad_scalar_entry(value_and_gradient, 1, _finish, _value_and_gradient_by_rule)


def _value_and_gradient(f: Any, args: Any, who: str = "gradient") -> Any:
    if not args:
        raise TypeError(f"{who}(f, *args): give at least one argument to differentiate")
    if not _foreign.plain_numpy(args):
        _check_inputs(args, who)
    omega, pullback = _vjp(f, args)
    _real_scalar(omega, "gradient")
    return omega, pullback(1.0)


def _check_inputs(args: Any, who: str) -> None:
    for a in args:
        check_input(a, who)
    _foreign.check_libraries(args, who)
    if not any(has_leaf(a) for a in args):
        raise TypeError(f"{who}: no argument has a tangent space (got {_tracing.describe(args)}): "
                        f"{no_tangent_space_hint(args)}")


def vjp(f: Callable[..., _T], *args: Any) -> tuple[_T, Pullback]:
    """vjp(f, *args) -> (Ω, pullback): Ω = f(*args) and the function
    `pullback(ȳ)` giving the vector-Jacobian products, a tuple with one
    cotangent per argument.  ȳ has the structure of Ω (a `Tangent`, tuple or
    list for tuple outputs).  The pullback may be called many times.

    When f itself has an rrule, the rule is used.

    Example::

        >>> y, pb = vjp(lambda x: x * x, 3.0)
        >>> pb(1.0)
        (6.0,)"""
    if not _foreign.plain_numpy(args):
        for a in args:
            check_input(a, "vjp")
        _foreign.check_libraries(args, "vjp")
    return _vjp(f, args)


def _vjp(f: Callable[..., Any], args: Any) -> tuple[Any, Pullback]:
    rules = _tracing.has_rules(f)
    if rules and _tracing.top_tracked(args) is not None:
        f = _tracing.wrap(f)        # nested: the engine applies f's rule
    elif rules:
        res = rrule(REVERSE, f, *args)
        if res is not None:
            omega, rule_pullback = res

            def rule_vjp_pullback(ybar: Any) -> tuple[Any, ...]:
                if type(ybar) is not type(omega):
                    check_tangent("vjp's pullback", "the cotangent", ybar, omega)
                grads = rule_pullback(ybar)
                return tuple(_materialize(a, g) for a, g in zip(args, grads[1:]))
            return omega, rule_vjp_pullback
    tape, targs, y = _run(f, args)
    omega, structure = detach(y, tape)

    def vjp_pullback(ybar: Any) -> tuple[Any, ...]:
        if type(ybar) is not type(omega):
            check_tangent("vjp's pullback", "the cotangent", ybar, omega)
        seeds: dict[Any, Any] = {}
        _seeds(structure, ybar, seeds)
        adj = tape.backward(seeds)
        return tuple(collect(a, ta, adj, tape) for a, ta in zip(args, targs))
    return omega, vjp_pullback


def _materialize(x: Any, g: Any) -> Any:
    g = unthunk(g)
    return zero_of(x) if isinstance(g, AbstractZero) and not isinstance(g, NoTangent) else g


def rrule_via_ad(f: Callable[..., Any], args: Any, kwargs: Any) -> tuple[Any, Pullback]:
    """The reverse rule of f computed by this engine (`ReverseConfig.rrule_via_ad`):
    f's own rrule if it has one, else f run on a tape.  The pullback returns
    `(∂self, ∂x1, …)`; ∂self is a `Tangent` of f's closure variables when f
    is a closure over numbers or arrays, else `NoTangent()`."""
    rule_f, call_f = _tracing.resolve(f)
    res = rrule(REVERSE, rule_f, *args, **kwargs)
    if res is not None:
        return res
    tape = Tape()
    try:
        g = track(call_f, tape) if type(call_f) is types.FunctionType else call_f
        targs = [track(a, tape) for a in args]
        y = g(*targs, **kwargs)
    finally:
        tape.close()
    omega, structure = detach(y, tape)

    def rrule_via_ad_pullback(ybar: Any) -> tuple[Any, ...]:
        seeds: dict[Any, Any] = {}
        _seeds(structure, ybar, seeds)
        adj = tape.backward(seeds)
        dself = collect(call_f, g, adj, tape) if g is not call_f else NO
        if isinstance(dself, Tangent) and not len(dself):
            dself = NO
        return (dself,) + tuple(collect(a, ta, adj, tape) for a, ta in zip(args, targs))
    return omega, rrule_via_ad_pullback


def jacobian_reverse(f: Any, x: Any) -> Any:
    """The Jacobian of f at x by reverse mode, one vjp per output element:
    shape `np.shape(f(x)) + np.shape(x)`."""
    from chainrules.ad.forward import as_output, basis, jacobian_input, stack_jacobian
    x, shape, _ = jacobian_input(x)
    omega, pullback = vjp(f, x)
    p = _ad_strip_all(omega)
    xp = _foreign.xp_of(p)
    if xp is not None:
        rows = [as_output(x, pullback(e)[0]) for e in basis(tuple(p.shape), p.dtype, omega)]
        return stack_jacobian(rows, tuple(p.shape), shape, axis=0, like=x)
    if isinstance(p, (tuple, list, dict)) or not isinstance(p, (int, float, complex, np.number, np.ndarray)):
        raise TypeError("jacobian: f must return a number or an array, got a "
                        f"{type(p).__name__}; differentiate its parts separately")
    out_shape = np.shape(p)
    rows = [as_output(x, pullback(e)[0]) for e in basis(out_shape, np.result_type(p, float))]
    return stack_jacobian(rows, out_shape, shape, axis=0, like=x)


_tracing.ENGINES[Var] = apply
