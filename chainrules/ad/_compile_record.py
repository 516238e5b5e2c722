"""The recording of chainrules.ad.compile: f run once on traced values
(`_core`'s `_Traced`), each operation appended as a step, and the steps
turned into a program (`_core/ad_compile.pxi`: a `_ScalarProgram` of C-table
rows on doubles, or a `_Replay` of rules).

A step is (kind, f, args, kwargs, output value, Ω or the guard's value, row):
args hold traced values and plain constants; a guard's value is what f saw
(a bool, an int, a mask) and must recur on replay.
"""

import types
from typing import Any, Callable, Sequence

import numpy as np

from chainrules._core import (
    Tracked,
    _Replay,
    _ScalarProgram,
    _ad_is_active,
    _compile_guard_code,
    _compile_rstep,
    _compile_scalar_eval,
    _compile_scalar_row,
    _compile_traced,
    _Traced,
    frule,
    rrule,
)
from chainrules.ad import _tracing
from chainrules.ad._tracing import CALL, FLAT_TYPES, OP, EscapedTrackedValueError, fname
from chainrules.ad.config import FORWARD, REVERSE

RULE, PLAIN, GUARD = 0, 1, 2            # the step kinds of _core's _Replay


class CannotRecord(Exception):
    """What the recording cannot take; the message names the operation."""


def _kind_of(v: Any) -> str | None:
    """"leaf": a value with a tangent space a traced value can stand for
    (floats, complex numbers, float and complex arrays); "data": integer or
    boolean data (an int(), a floor, a mask), recorded as a guard; None:
    neither."""
    t = type(v)
    if t is float or t is complex:
        return "leaf"
    if t is int or t is bool:
        return "data"
    if t is np.ndarray or isinstance(v, np.generic):
        k = v.dtype.kind
        return "leaf" if k in "fc" else "data" if k in "iub" else None
    return None


def is_leaf(v: Any) -> bool:
    return _kind_of(v) == "leaf"


# ----- the recording ------------------------------------------------------------------

class Recorder:
    """One run of f on traced values: the values (inputs first) and the steps."""

    def __init__(self, tag: int, mode: str) -> None:
        self.tag = tag
        self.mode = mode
        self.steps: list[tuple[Any, ...]] = []      # (kind, f, args, kwargs, out ref, Ω or the guard's value, row)
        self.primals: list[Any] = []                # the primal of each value
        self.active: list[bool] = []                # each value depends on a differentiated input
        self.tangents: list[Any] = []               # forward mode: the tangent of each value
        self.pullbacks: dict[int, Any] = {}         # reverse mode: the recorded pullback of each rule's output

    def new(self, primal: Any, active: bool, tangent: Any = None) -> _Traced:
        ref = len(self.primals)
        self.primals.append(primal)
        self.active.append(active)
        self.tangents.append(tangent)
        return _compile_traced(self, ref, primal, self.tag, active)

    def plain(self, args: Sequence[Any]) -> list[Any]:
        """The primals of flat arguments; CannotRecord for anything else."""
        out = []
        for a in args:
            if type(a) is _Traced:
                if a.recorder is not self:
                    raise CannotRecord("a value traced by another call of a compiled function")
                out.append(a.primal)
            elif type(a) in FLAT_TYPES or _constant_function(a, self.tag):
                out.append(a)
            elif isinstance(a, Tracked):
                raise CannotRecord("values of an enclosing differentiation")
            else:
                raise CannotRecord(f"an argument of type {type(a).__name__}")
        return out

    def guard(self, fn: Callable[..., Any], args: Sequence[Any]) -> Any:
        if not _ad_is_active(self.tag):
            raise EscapedTrackedValueError(
                f"{fname(fn)}: met a value traced by chainrules.ad.compile after its recording "
                "finished (a traced value escaped)")
        value = fn(*self.plain(args))
        self.steps.append((GUARD, fn, tuple(args), None, -1, value, None))
        return value


def _constant_function(a: Any, tag: int) -> bool:
    """A Python function that holds no traced value (checkpoint's segment, a
    higher-order rule's callee): a constant of the step, like a number (the
    compiled function's key follows the functions it reaches)."""
    return type(a) is types.FunctionType and not _tracing.holds_tag(a, tag)


def record(top: _Traced, kind: int, f: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """The engine of traced values (`_tracing.ENGINES[_Traced]`): record f's
    application as a step and return its traced output."""
    rec = top.recorder
    if not _ad_is_active(rec.tag):
        raise EscapedTrackedValueError(
            f"{fname(f)}: met a value traced by chainrules.ad.compile after its recording "
            "finished (a traced value escaped)")
    rule_f, call_f = _tracing.resolve(f)
    flat = all(type(a) is _Traced or type(a) in FLAT_TYPES or _constant_function(a, rec.tag) for a in args) and \
        all(type(v) in FLAT_TYPES for v in kwargs.values())
    if not flat or _tracing.holds_tag(rule_f, rec.tag):
        if kind == CALL and not _tracing.has_rules(rule_f) and _tracing.traceable(call_f, f):
            return call_f(*args, **kwargs)          # no rule: its body is recorded
        raise CannotRecord(f"{fname(f)} on arguments that hold traced values inside "
                           f"({_tracing.describe(args)})")
    primals = rec.plain(args)
    active = any(type(a) is _Traced and a.active for a in args)
    if not active:
        # constants only (closed-over values): the function itself, as plain code runs it
        if kind == CALL and not _tracing.has_rules(rule_f) and _tracing.traceable(call_f, f):
            return call_f(*args, **kwargs)
        omega = call_f(*primals, **kwargs)
        return _output(rec, PLAIN, call_f, args, kwargs, omega, False)
    if not kwargs and kind in (CALL, OP) and 1 <= len(args) <= 2:
        out = _scalar_step(rec, f, rule_f, args, primals)
        if out is not None:
            return out
    if rec.mode == "reverse":
        res = rrule(REVERSE, rule_f, *primals, **kwargs)
        if res is None and kind == OP and rule_f in _tracing.UFUNC_OF and any(map(_tracing.is_array, primals)):
            rule_f = _tracing.UFUNC_OF[rule_f]
            res = rrule(REVERSE, rule_f, *primals, **kwargs)
    else:
        tangents = [_tracing.NO] + [rec.tangents[a.ref] if type(a) is _Traced and a.active
                                    else _tracing.const_tangent(a) for a in args]
        res = frule(FORWARD, tuple(tangents), rule_f, *primals, **kwargs)
        if res is None and kind == OP and rule_f in _tracing.UFUNC_OF and any(map(_tracing.is_array, primals)):
            rule_f = _tracing.UFUNC_OF[rule_f]
            res = frule(FORWARD, tuple(tangents), rule_f, *primals, **kwargs)
    if res is None:
        if kind == CALL and _tracing.traceable(call_f, f):
            return call_f(*args, **kwargs)          # no rule: its body is recorded
        raise _tracing.no_rule(rule_f, primals, rec.mode)
    if type(res) is not tuple or len(res) != 2:
        raise TypeError(f"the {'rrule' if rec.mode == 'reverse' else 'frule'} of {fname(rule_f)} "
                        f"returned {type(res).__name__}, not a pair")
    omega, second = res
    if rec.mode == "forward":
        return _output(rec, RULE, rule_f, args, kwargs, omega, True, second)
    out = _output(rec, RULE, rule_f, args, kwargs, omega, True)
    if type(out) is _Traced:
        rec.pullbacks[out.ref] = second         # what the lowering pass reads
    return out


def _output(rec: Recorder, kind: int, f: Any, args: Sequence[Any], kwargs: Any, omega: Any, active: bool,
            tangent: Any = None) -> Any:
    kind_of = _kind_of(omega)
    if kind_of == "leaf":
        out = rec.new(omega, active, tangent)
        rec.steps.append((kind, f, tuple(args), kwargs, out.ref, omega, None))
        return out
    if kind_of == "data":
        # integer or boolean data: no derivative, a value that must recur
        rec.steps.append((GUARD, f, tuple(args), kwargs, -1, omega, None))
        return omega
    raise CannotRecord(f"{fname(f)} returning a {type(omega).__name__}")


def real_number(v: Any) -> float | None:
    """v as a C double the engines' fast path would read, or None."""
    t = type(v)
    if t is float:
        return float(v)
    if t is int:
        try:
            return float(v)
        except OverflowError:
            return None
    return None


def _scalar_step(rec: Recorder, f: Any, rule_f: Any, args: Sequence[Any], primals: list[Any]) -> _Traced | None:
    """A C-table row on real scalars, as the engines' fast path does it."""
    n = len(args)
    xs = []
    for a, p in zip(args, primals):
        if type(a) is _Traced and type(p) is not float:
            return None
        v = real_number(p)
        if v is None:
            return None
        xs.append(v)
    row = _compile_scalar_row(f, n, n == 2 and type(args[1]) is _Traced and args[1].active)
    if row is None:
        return None
    omega = _compile_scalar_eval(row, xs[0], xs[1] if n == 2 else 0.0, n)
    if omega is None:
        return None
    tangent = None
    if rec.mode == "forward":
        res = frule(FORWARD, (_tracing.NO,) + tuple(
            rec.tangents[a.ref] if type(a) is _Traced and a.active else _tracing.const_tangent(a)
            for a in args), rule_f, *primals)
        if res is None:
            return None                 # no frule here: the generic step
        tangent = res[1]
    out = rec.new(omega, True, tangent)
    rec.steps.append((RULE, rule_f, tuple(args), None, out.ref, omega, row))
    return out


# ----- from a recording to a program ---------------------------------------------------

def scalar_program(rec: Recorder, nin: int, out: int) -> Any:
    """The recording as a `_ScalarProgram` when every step is a C-table row
    or a comparison on real scalars and every input a float; else None."""
    if any(type(p) is not float for p in rec.primals[:nin]) or not all(rec.active[:nin]):
        return None
    consts: list[tuple[int, float]] = []
    steps: list[tuple[Any, ...]] = []
    const_of: dict[tuple[Any, ...], int] = {}
    nvals = len(rec.primals)

    def ref_of(a: Any) -> tuple[int, bool]:
        nonlocal nvals
        if type(a) is _Traced:
            return a.ref, a.active
        v = real_number(a)
        if v is None:
            raise CannotRecord("a constant")
        key = (type(a), v, str(v))          # -0.0 and 0.0 apart
        if key not in const_of:
            const_of[key] = nvals
            consts.append((nvals, v))
            nvals += 1
        return const_of[key], False

    try:
        for kind, f, args, kwargs, ref, value, row in rec.steps:
            if kind == RULE and row is not None:
                a, la = ref_of(args[0])
                b, lb = ref_of(args[1]) if len(args) == 2 else (-1, False)
                steps.append(("row", row, a, b, ref, la, lb))
            elif kind == GUARD and type(value) is bool and _compile_guard_code(f) >= 0 and \
                    not kwargs and all(type(a) is _Traced or real_number(a) is not None for a in args):
                a, _ = ref_of(args[0])
                b = ref_of(args[1])[0] if len(args) == 2 else -1
                steps.append(("guard", _compile_guard_code(f), a, b, value))
            else:
                return None
    except CannotRecord:
        return None
    return _ScalarProgram.build(nin, nvals, consts, steps, out)


def replay(rec: Recorder, nin: int, out: int, grad_refs: Sequence[int], mode: str) -> Any:
    steps = []
    for kind, f, args, kwargs, ref, value, row in rec.steps:
        template: list[Any] = []
        pos: list[int] = []
        refs: list[int] = []
        live: list[tuple[int, int]] = []
        for i, a in enumerate(args):
            if type(a) is _Traced:
                template.append(None)
                pos.append(i)
                refs.append(a.ref)
                if a.active:
                    live.append((i, a.ref))
            else:
                template.append(a)
        # a step with a row is the engines' scalar node (its zero cotangent is skipped)
        steps.append(_compile_rstep(kind, f, template, tuple(pos), tuple(refs), tuple(live),
                                    kwargs, ref, value, row is not None))
    config = REVERSE if mode == "reverse" else FORWARD
    return _Replay(steps, len(rec.primals), nin, out, tuple(grad_refs), config, mode == "reverse")


_tracing.ENGINES[_Traced] = record
