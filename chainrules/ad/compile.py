"""chainrules.ad.compile: a trace-once compiled derivative.

`compile(f, mode="reverse", argnums=0)` returns a callable: `compile(f)(x)`
is `gradient(f, x)`, `compile(f, mode="forward")(x)` is `derivative(f, x)`.
The first call with an input signature (the types of the arguments, the
dtypes and shapes of arrays; Python scalars by type, other arguments by
value) runs f once on traced values and records its operations into a
program; later calls replay the program without running f:

- a program of real scalar operations with a row in the C scalar table (the
  `chainrules.ad.math` functions and the operators on Python floats) runs on
  C doubles, the row's kernels and a C sweep (`_core/ad_compile.pxi`);
- any other program calls each operation's rule on the new values (rrule or
  frule: the rules' own NumPy calls) and sweeps the pullbacks into the
  engine's adjoints, as the engine does.

Both compute what the ordinary engines compute, in the same order: the same
bits.

Python control flow that depends on values is guarded: whatever turns a
traced value into plain data (`bool`, comparisons, `int`, `round`,
`math.floor`, …) is recorded with its result and checked on replay; a
different result records a new program for the same signature (at most
`CACHE_SIZE` programs per compiled function, the oldest dropped first, as
`jax.jit`'s cache).

Closed-over values: the numbers and arrays in f's closure cells are inputs
of the program, read afresh on each call (their types, dtypes and shapes are
part of the signature; Python ints, bools and strings in cells by value), so
rebinding or mutating a captured array gives fresh results.  Arrays reached
otherwise (module globals, attributes) are used by reference: an in-place
change of such an array is seen, a value computed from it outside the
traced operations is not (it was recorded as a constant).

What cannot be recorded (an operation on containers of traced values, a
tuple output, values of an enclosing differentiation) makes that signature
run on the ordinary engine, with a one-time warning naming the operation.
"""

import types
import warnings
from typing import Any, Callable

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tracked,
    _CompiledCall,
    _Replay,
    _ScalarProgram,
    _ad_close,
    _ad_new_tag,
    _compile_guard_code,
    _compile_miss,
    _compile_project,
    _compile_rstep,
    _compile_scalar_eval,
    _compile_scalar_row,
    _compile_traced,
    _Traced,
    frule,
    rrule,
    unthunk,
)
from chainrules.ad import _tracing
from chainrules.ad._tracing import CALL, FLAT_TYPES, OP, EscapedTrackedValueError, fname
from chainrules.ad.config import FORWARD, REVERSE

__all__ = ["compile", "CACHE_SIZE"]

CACHE_SIZE = 64
_MISS = _compile_miss()
_RULE, _PLAIN, _GUARD = 0, 1, 2         # the step kinds of _core's _Replay


class CannotRecord(Exception):
    """What the recording cannot take; the message names the operation."""


def _is_leaf(v):
    """A value with a tangent space that a traced value can stand for."""
    t = type(v)
    if t is float or t is complex:
        return True
    if t is np.ndarray or isinstance(v, np.generic):
        return v.dtype.kind in "fc"
    return False


def _no_tangent_space(v):
    """Integer and boolean data (an int(), a floor, a mask): a guard."""
    t = type(v)
    if t is int or t is bool:
        return True
    if t is np.ndarray or isinstance(v, np.generic):
        return v.dtype.kind in "iub"
    return False


# ----- the recording ------------------------------------------------------------------

class _Recorder:
    """One run of f on traced values: the values (inputs first) and the steps."""

    def __init__(self, tag, mode):
        self.tag = tag
        self.mode = mode
        self.steps = []         # (kind, f, args, kwargs, out ref, Ω or the guard's value, row)
        self.primals = []       # the primal of each value
        self.active = []        # each value depends on a differentiated input
        self.tangents = []      # forward mode: the tangent of each value

    def new(self, primal, active, tangent=None):
        ref = len(self.primals)
        self.primals.append(primal)
        self.active.append(active)
        self.tangents.append(tangent)
        return _compile_traced(self, ref, primal, self.tag, active)

    def plain(self, args):
        """The primals of flat arguments; CannotRecord for anything else."""
        out = []
        for a in args:
            if type(a) is _Traced:
                if a.recorder is not self:
                    raise CannotRecord("a value traced by another call of a compiled function")
                out.append(a.primal)
            elif type(a) in FLAT_TYPES:
                out.append(a)
            elif isinstance(a, Tracked):
                raise CannotRecord("values of an enclosing differentiation")
            else:
                raise CannotRecord(f"an argument of type {type(a).__name__}")
        return out

    def guard(self, fn, args):
        if not _ad_is_open(self.tag):
            raise EscapedTrackedValueError(
                f"{fname(fn)}: met a value traced by chainrules.ad.compile after its recording "
                "finished (a traced value escaped)")
        value = fn(*self.plain(args))
        self.steps.append((_GUARD, fn, tuple(args), None, -1, value, None))
        return value


def _ad_is_open(tag):
    from chainrules._core import _ad_is_active
    return _ad_is_active(tag)


def record(top, kind, f, args, kwargs):
    """The engine of traced values (`_tracing.ENGINES[_Traced]`): record f's
    application as a step and return its traced output."""
    rec = top.recorder
    if not _ad_is_open(rec.tag):
        raise EscapedTrackedValueError(
            f"{fname(f)}: met a value traced by chainrules.ad.compile after its recording "
            "finished (a traced value escaped)")
    rule_f, call_f = _tracing.resolve(f)
    flat = all(type(a) is _Traced or type(a) in FLAT_TYPES for a in args) and \
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
        return _output(rec, _PLAIN, call_f, args, kwargs, omega, False)
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
    return _output(rec, _RULE, rule_f, args, kwargs, omega, True, second if rec.mode == "forward" else None)


def _output(rec, kind, f, args, kwargs, omega, active, tangent=None):
    if _is_leaf(omega):
        out = rec.new(omega, active, tangent)
        rec.steps.append((kind, f, tuple(args), kwargs, out.ref, omega, None))
        return out
    if _no_tangent_space(omega):
        # integer or boolean data: no derivative, a value that must recur
        rec.steps.append((_GUARD, f, tuple(args), kwargs, -1, omega, None))
        return omega
    raise CannotRecord(f"{fname(f)} returning a {type(omega).__name__}")


def _real_number(v):
    """v as a C double the engines' fast path would read, or None."""
    t = type(v)
    if t is float:
        return v
    if t is int:
        try:
            return float(v)
        except OverflowError:
            return None
    return None


def _scalar_step(rec, f, rule_f, args, primals):
    """A C-table row on real scalars, as the engines' fast path does it."""
    n = len(args)
    xs = []
    for a, p in zip(args, primals):
        if type(a) is _Traced and type(p) is not float:
            return None
        v = _real_number(p)
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
        tangent = res[1]
    out = rec.new(omega, True, tangent)
    rec.steps.append((_RULE, rule_f, tuple(args), None, out.ref, omega, row))
    return out


# ----- from a recording to a program ---------------------------------------------------

def _scalar_program(rec, nin, out):
    """The recording as a `_ScalarProgram` when every step is a C-table row
    or a comparison on real scalars and every input a float; else None."""
    if any(type(p) is not float for p in rec.primals[:nin]) or not all(rec.active[:nin]):
        return None
    consts, steps, const_of = [], [], {}
    nvals = len(rec.primals)

    def ref_of(a):
        nonlocal nvals
        if type(a) is _Traced:
            return a.ref, a.active
        v = _real_number(a)
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
            if kind == _RULE and row is not None:
                a, la = ref_of(args[0])
                b, lb = ref_of(args[1]) if len(args) == 2 else (-1, False)
                steps.append(("row", row, a, b, ref, la, lb))
            elif kind == _GUARD and type(value) is bool and _compile_guard_code(f) >= 0 and \
                    not kwargs and all(type(a) is _Traced or _real_number(a) is not None for a in args):
                a, _ = ref_of(args[0])
                b = ref_of(args[1])[0] if len(args) == 2 else -1
                steps.append(("guard", _compile_guard_code(f), a, b, value))
            else:
                return None
    except CannotRecord:
        return None
    return _ScalarProgram.build(nin, nvals, consts, steps, out)


def _replay(rec, nin, out, grad_refs, mode):
    steps = []
    for kind, f, args, kwargs, ref, value, _ in rec.steps:
        template, pos, refs, live = [], [], [], []
        for i, a in enumerate(args):
            if type(a) is _Traced:
                template.append(None)
                pos.append(i)
                refs.append(a.ref)
                if a.active:
                    live.append((i, a.ref))
            else:
                template.append(a)
        steps.append(_compile_rstep(kind, f, template, tuple(pos), tuple(refs), tuple(live),
                                    kwargs, ref, value))
    config = REVERSE if mode == "reverse" else FORWARD
    return _Replay(steps, len(rec.primals), nin, out, tuple(grad_refs), config, mode == "reverse")


class _Program:
    """A recorded program: its C form when it has one, else its replay."""
    __slots__ = ("scalar", "replay", "omega_const")

    def __init__(self, scalar, replay, omega_const):
        self.scalar = scalar
        self.replay = replay
        self.omega_const = omega_const      # the output when it does not depend on an input


# ----- the compiled function ------------------------------------------------------------

_SCALARS = (float, complex, np.floating, np.complexfloating)


def _layout(v):
    t = type(v)
    if t is np.ndarray:
        return (t, v.dtype, v.shape)
    return t


def _sign_constant(v, inputs, key):
    """A non-differentiated value: numbers and arrays are inputs (by type,
    dtype and shape); other values are part of the signature by value."""
    t = type(v)
    if t is float or t is complex or t is np.ndarray or isinstance(v, (np.floating, np.complexfloating)):
        inputs.append(v)
        key.append(_layout(v))
        return True
    try:
        hash(v)
    except TypeError:
        return False
    key.append((t, v))
    return True


class _Compiled:
    """The state behind one compiled function (`_CompiledCall.slow`)."""

    def __init__(self, f, mode, argnums):
        self.f = f
        self.mode = mode
        self.argnums = argnums
        self.single = type(argnums) is int
        self.nums = (argnums,) if self.single else argnums
        self.cache = {}             # signature -> [programs], most recent first
        self.order = []             # (signature, program), oldest first, for eviction
        self.ordinary_keys = set()  # signatures left to the ordinary engine
        self.warned = set()
        self.cells = [(name, cell) for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ())] \
            if type(f) is types.FunctionType else []
        self.call = None

    # -- signing a call --------------------------------------------------------

    def sign(self, args, kwargs):
        """(inputs, signature, positions) of a call, or None when the call is
        not one to compile (the ordinary engine takes it)."""
        n = len(args)
        nums = tuple(i + n if i < 0 else i for i in self.nums)
        if any(i < 0 or i >= n for i in nums):
            raise TypeError(f"chainrules.ad.compile({fname(self.f)}): argnums={self.argnums!r} but "
                            f"the call has {n} positional argument{'s' if n != 1 else ''}")
        inputs, key = [], [nums]
        for i in nums:
            x = args[i]
            t = type(x)
            if t is int:
                x = float(x)
                t = float
            if isinstance(x, Tracked):
                return None             # inside another differentiation: the ordinary engines nest
            if self.mode == "forward" and not (t in (float, complex) or isinstance(x, _SCALARS)):
                return None             # derivative's own error
            if not (t in (float, complex) or (isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "fc")):
                return None
            inputs.append(x)
            key.append(_layout(x))
        for i, a in enumerate(args):
            if i not in nums and not _sign_constant(a, inputs, key):
                return None
        for k, v in kwargs.items():
            key.append(k)
            if not _sign_constant(v, inputs, key):
                return None
        for name, cell in self.cells:
            try:
                v = cell.cell_contents
            except ValueError:
                key.append((name, None))
                continue
            if isinstance(v, Tracked):
                return None
            if type(v) in (float, complex, np.ndarray) or isinstance(v, (np.floating, np.complexfloating)):
                inputs.append(v)
                key.append((name, _layout(v)))
            elif type(v) in (int, bool, str, type(None)):
                key.append((name, type(v), v))
        return inputs, tuple(key), nums

    # -- a call -----------------------------------------------------------------

    def __call__(self, args, kwargs):
        signed = self.sign(args, kwargs)
        if signed is None:
            return self.ordinary(args, kwargs)
        inputs, key, nums = signed
        if key in self.ordinary_keys:
            return self.ordinary(args, kwargs)
        for prog in self.cache.get(key, ()):
            out = self.run(prog, inputs, args, nums)
            if out is not _MISS:
                return out
        try:
            prog = self.trace(args, kwargs, nums, len(inputs))
        except CannotRecord as e:
            self.ordinary_keys.add(key)
            self.warn(str(e))
            return self.ordinary(args, kwargs)
        self.add(key, prog)
        out = self.run(prog, inputs, args, nums)
        return self.ordinary(args, kwargs) if out is _MISS else out

    def add(self, key, prog):
        self.cache.setdefault(key, []).insert(0, prog)
        self.order.append((key, prog))
        if len(self.order) > CACHE_SIZE:
            old_key, old = self.order.pop(0)
            progs = self.cache[old_key]
            progs.remove(old)
            if not progs:
                del self.cache[old_key]

    def run(self, prog, inputs, args, nums):
        xs = [inputs[k] for k in range(len(nums))]
        call = self.call
        if prog.scalar is not None:
            if self.mode == "reverse":
                g = prog.scalar.gradient(tuple(xs))
                if g is _MISS:
                    return _MISS
                if call.simple:
                    call.last_scalar = prog.scalar
                return g if self.single else (g if len(nums) > 1 else (g,))
            res = prog.scalar.derivative(xs[0])
            if res is _MISS:
                return _MISS
            if call.simple:
                call.last_scalar = prog.scalar
            return res[1]
        res = prog.replay.run(tuple(inputs), (self.one(xs[0]),) + (None,) * (len(inputs) - 1)
                              if self.mode == "forward" else None)
        if res is _MISS:
            return _MISS
        omega, second = res
        if self.mode == "forward":
            from chainrules.ad.forward import _owned, zero_of
            if omega is None:
                omega = prog.omega_const
            second = unthunk(second) if second is not None else None
            return zero_of(omega) if second is None or isinstance(second, AbstractZero) else _owned(second)
        grads = tuple(self.project(args[i], g) for i, g in zip(nums, second))
        if call.simple and type(args[0]) is np.ndarray and self.mode == "reverse":
            x = args[0]
            g = grads[0]
            if type(g) is np.ndarray and g.dtype == x.dtype and g.shape == x.shape:
                call.last_replay = (prog.replay, x.dtype, x.shape)
        return grads[0] if self.single else grads

    @staticmethod
    def one(x):
        return complex(1.0) if isinstance(x, (complex, np.complexfloating)) else 1.0

    @staticmethod
    def project(x, g):
        """The gradient of the input x, as `collect` in reverse.py makes it."""
        if type(g) is np.ndarray:
            p = _compile_project(x, g)
            if p is not None:
                return p
        g = unthunk(g)
        if isinstance(g, AbstractZero):
            from chainrules.ad.forward import zero_of
            return zero_of(x)
        return ProjectTo(float(x) if type(x) is int else x)(g)

    # -- recording ---------------------------------------------------------------

    def trace(self, args, kwargs, nums, ninputs):
        tag = _ad_new_tag()
        rec = _Recorder(tag, self.mode)
        try:
            targs = list(args)
            for i in nums:
                x = float(args[i]) if type(args[i]) is int else args[i]
                targs[i] = rec.new(x, True, self.one(x) if self.mode == "forward" else None)
            for i, a in enumerate(args):
                if i not in nums and _is_input(a):
                    targs[i] = rec.new(a, False)
            tkwargs = {k: rec.new(v, False) if _is_input(v) else v for k, v in kwargs.items()}
            f = self.f
            cells = {}
            for name, cell in self.cells:
                try:
                    v = cell.cell_contents
                except ValueError:
                    continue
                if _is_input(v):
                    cells[name] = rec.new(v, False)
            if cells:
                f = _tracing.with_cells(f, cells)
            y = f(*targs, **tkwargs)
        finally:
            _ad_close(tag)
        nin = ninputs
        assert len(rec.primals) >= nin
        grad_refs = list(range(len(nums)))
        omega_const = None
        if type(y) is _Traced and y.recorder is rec:
            omega = y.primal
            out = y.ref if y.active else -1
            if not y.active:
                omega_const = omega
        elif isinstance(y, Tracked):
            raise CannotRecord(f"an output of type {type(y).__name__}")
        else:
            omega, out, omega_const = y, -1, y
        if self.mode == "reverse":
            from chainrules.ad.reverse import _real_scalar
            _real_scalar(omega, "gradient")
        elif not _is_leaf(omega) and not isinstance(omega, (int, np.integer)):
            raise CannotRecord(f"an output of type {type(omega).__name__}")
        scalar = _scalar_program(rec, len(nums), out) if nin == len(nums) and out >= 0 else None
        return _Program(scalar, _replay(rec, nin, out, grad_refs, self.mode), omega_const)

    def warn(self, what):
        if what not in self.warned:
            self.warned.add(what)
            warnings.warn(f"chainrules.ad.compile({fname(self.f)}): cannot record {what}; calls "
                          f"with these argument types run on the ordinary engine "
                          f"(ad.{'gradient' if self.mode == 'reverse' else 'derivative'})",
                          RuntimeWarning, stacklevel=4)

    # -- the ordinary engine ----------------------------------------------------

    def ordinary(self, args, kwargs):
        from chainrules.ad.forward import derivative
        from chainrules.ad.reverse import gradient
        n = len(args)
        nums = tuple(i + n if i < 0 else i for i in self.nums)
        f = self.f

        def partial(*xs):
            full = list(args)
            for i, x in zip(nums, xs):
                full[i] = x
            return f(*full, **kwargs)
        if self.mode == "forward":
            return derivative(partial, args[nums[0]])
        g = gradient(partial, *[args[i] for i in nums])
        return g if self.single or len(nums) > 1 else (g,)


def _is_input(v):
    return type(v) in (float, complex, np.ndarray) or isinstance(v, (np.floating, np.complexfloating))


def compile(f: Callable[..., Any], mode: str = "reverse", argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """compile(f, mode="reverse", argnums=0) -> a compiled derivative of f.

    mode="reverse": `compile(f)(*args)` is `gradient` of f with respect to
    the arguments `argnums` (an int: that gradient; a tuple: a tuple of
    them).  mode="forward": `derivative(f, x)` at the scalar argument
    `argnums` (an int).  Each input signature (types; dtypes and shapes of
    arrays) is recorded once and replayed afterwards, guarded by the results
    of the comparisons and conversions f made (see the module docstring).

    Example::

        >>> from chainrules import ad
        >>> from chainrules.ad import math
        >>> df = ad.compile(lambda x: math.asin(0.2 + math.sin(x)))
        >>> df(3.0)
        -1.0531613736418153

    See also: `gradient`, `derivative`."""
    if not callable(f):
        raise TypeError(f"compile(f): f must be callable, got a {type(f).__name__}")
    if mode not in ("reverse", "forward"):
        raise ValueError(f"compile(f, mode): mode must be 'reverse' or 'forward', got {mode!r}")
    if type(argnums) is tuple:
        if not argnums or not all(type(i) is int for i in argnums):
            raise TypeError(f"compile(f, argnums): argnums must be an int or a non-empty tuple of "
                            f"ints, got {argnums!r}")
        if mode == "forward":
            raise TypeError("compile(f, mode='forward', argnums): forward mode differentiates "
                            f"with respect to one scalar argument (an int), got {argnums!r}")
        if len(set(argnums)) != len(argnums):
            raise ValueError(f"compile(f, argnums): repeated argument numbers in {argnums!r}")
    elif type(argnums) is not int:
        raise TypeError(f"compile(f, argnums): argnums must be an int or a non-empty tuple of ints, "
                        f"got {type(argnums).__name__}")
    state = _Compiled(f, mode, argnums)
    # the fast entry signs nothing: only for functions without closed-over values to sign
    simple = argnums == 0 and all(_by_reference(c) for _, c in state.cells)
    call = _CompiledCall(f, mode, argnums, state, simple)
    state.call = call
    return call


def _by_reference(cell):
    """A closure cell the signature does not read (a function, a module…)."""
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return not (_is_input(v) or type(v) in (int, bool, str, type(None)) or isinstance(v, Tracked))


_tracing.ENGINES[_Traced] = record
