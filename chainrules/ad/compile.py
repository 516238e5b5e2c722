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

The contract (issue 21): a replay gives what `gradient` gives now, for
everything f reads from the user's code; the contents of containers, the
libraries and the outside world are constants of the trace.  The numbers and
arrays in f's closure cells are inputs of the program, read afresh on each
call (their types, dtypes and shapes are in the signature; ints, bools,
strings and None in cells by value).  Everything else f can reach is its
*environment* (`_compile_env.py`), checked on every call, the fast entry's
included: the globals, closure cells, `__code__`, `__defaults__` and
`__kwdefaults__` of every Python function reached from f and from its
constant arguments (through globals, cells, partials, `ad.wrap`, methods,
properties), and the attributes that code names on the user's objects,
classes and modules (instance attributes, slots, class attributes along the
MRO) -- numbers by their bits, anything else by identity; a change records a
new program.  Not seen: the items of lists, dicts and sets, array elements
outside the traced operations, and the libraries' own attributes (NumPy,
math, chainrules…).  A call into randomness or a clock (`random`,
`numpy.random`, `time`, …) while f is recorded makes its signature run on the
ordinary engine, with a one-time warning.  In debug mode (`cr.debug_mode`)
each call also runs the ordinary engine and raises `CompiledReplayError` when
the answers differ beyond rounding.

What cannot be recorded (an operation on containers of traced values, a
tuple output, values of an enclosing differentiation) makes that signature
run on the ordinary engine, with a one-time warning naming the operation.
"""

import functools
import types
import warnings
from typing import Any, Callable

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tracked,
    _CompiledCall,
    _Traced,
    _ad_close,
    _ad_new_tag,
    _compile_env_holds,
    _compile_miss,
    _compile_project,
    unthunk,
)
from chainrules import _debug
from chainrules.ad import _tracing
from chainrules.ad._compile_env import environment
from chainrules.ad._compile_fuse import lower
from chainrules.ad._compile_record import CannotRecord, Recorder, is_leaf, replay, scalar_program
from chainrules.ad._inputs import reject_subclass
from chainrules.ad._tracing import fname
from chainrules.ad.forward import _owned, derivative, zero_of
from chainrules.ad.reverse import _real_scalar, gradient

__all__ = ["compile", "CACHE_SIZE"]

CACHE_SIZE = 64
_MISS = _compile_miss()


class _Program:
    """A recorded program: its C form when it has one, else its replay (and
    its lowered function when the lowering pass took it)."""
    __slots__ = ("scalar", "replay", "omega_const", "fused", "run", "fast", "env")

    def __init__(self, scalar: Any, replay: Any, omega_const: Any, fused: Callable[..., Any] | None = None,
                 env: tuple[Any, ...] | None = None) -> None:
        self.env = env      # the cells and globals it was recorded with (`_Compiled.environment`)
        self.scalar = scalar
        self.replay = replay
        self.omega_const = omega_const      # the output when it does not depend on an input
        self.fused = fused
        self.run = replay.run if fused is None else self._fused_or_replay
        self.fast = replay.run if fused is None else fused      # what the fast entry calls (a miss: slow)

    def _fused_or_replay(self, inputs: tuple[Any, ...], tangents: Any) -> Any:
        assert self.fused is not None
        res = self.fused(inputs)
        return self.replay.run(inputs, tangents) if res is _MISS else res


# ----- the compiled function ------------------------------------------------------------

_SCALARS = (float, complex, np.floating, np.complexfloating)


def _layout(v: Any) -> Any:
    t = type(v)
    if t is np.ndarray:
        return (t, v.dtype, v.shape)
    return t


def _sign_constant(v: Any, inputs: list[Any], key: list[Any]) -> bool:
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

    def __init__(self, f: Callable[..., Any], mode: str, argnums: int | tuple[int, ...]) -> None:
        self.f = f
        self.mode = mode
        self.argnums = argnums
        self.single = type(argnums) is int
        self.nums: tuple[int, ...] = (argnums,) if isinstance(argnums, int) else argnums
        self.cache: dict[tuple[Any, ...], list[_Program]] = {}     # signature -> programs, most recent first
        self.order: list[tuple[tuple[Any, ...], _Program]] = []   # oldest first, for eviction
        # signatures left to the ordinary engine (a dict as an ordered set: bounded like the cache)
        self.ordinary_keys: dict[tuple[Any, ...], None] = {}
        self.warned: set[str] = set()
        func, _, _ = _function_of(f)
        self.cells = [(name, cell) for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ())] \
            if func is not None else []
        self.call: Any = None       # the _CompiledCall

    # -- the environment ---------------------------------------------------------

    def environment(self, args: tuple[Any, ...], kwargs: dict[str, Any], nums: tuple[int, ...]) -> tuple[Any, Any]:
        """What a program recorded now for this call depends on besides its
        inputs (`_compile_env.environment`): what f, its constant arguments
        and everything they reach can read, but the closure cells the
        signature reads; and the watch on randomness to record f in."""
        roots = [self.f] + [a for i, a in enumerate(args) if i not in nums and not _is_input(a)] + \
            [v for v in kwargs.values() if not _is_input(v)]
        return environment(roots, frozenset(id(c) for _, c in self.cells if not _by_reference(c)))

    def fast_env(self, prog: _Program) -> None:
        """The fast entry's programs (`last_*`) are checked against one
        environment: keep them when prog's is the same now, else drop them."""
        call = self.call
        if call.env is not prog.env and not _compile_env_holds(call.env):
            call.last_scalar = call.last_replay = call.last_multi = None
        call.env = prog.env

    # -- signing a call --------------------------------------------------------

    def sign(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], tuple[Any, ...], tuple[int, ...]] | None:
        """(inputs, signature, positions) of a call, or None when the call is
        not one to compile (the ordinary engine takes it)."""
        n = len(args)
        nums = tuple(i + n if i < 0 else i for i in self.nums)
        if any(i < 0 or i >= n for i in nums):
            raise TypeError(f"chainrules.ad.compile({fname(self.f)}): argnums={self.argnums!r} but "
                            f"the call has {n} positional argument{'s' if n != 1 else ''}")
        inputs: list[Any] = []
        key: list[Any] = [nums]
        for i in nums:
            x = args[i]
            t = type(x)
            if t is int:
                x = float(x)
                t = float
            if isinstance(x, Tracked):
                return None             # inside another differentiation: the ordinary engines nest
            if t is not np.ndarray and isinstance(x, np.ndarray):
                reject_subclass(x, "compile")
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

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        signed = self.sign(args, kwargs)
        if signed is None:
            return self.ordinary(args, kwargs)
        inputs, key, nums = signed
        if key in self.ordinary_keys:
            return self.ordinary(args, kwargs)
        for prog in self.cache.get(key, ()):
            if not _compile_env_holds(prog.env):
                continue
            out = self.run(prog, inputs, args, nums)
            if out is not _MISS:
                self.remember(prog, args, kwargs, nums)
                return self.checked(out, args, kwargs) if _debug._on else out
        try:
            prog = self.trace(args, kwargs, nums, len(inputs))
        except CannotRecord as e:
            self.ordinary_keys[key] = None
            if len(self.ordinary_keys) > CACHE_SIZE:        # issue 21 item 12: bounded, oldest out
                del self.ordinary_keys[next(iter(self.ordinary_keys))]
            self.warn(str(e))
            return self.ordinary(args, kwargs)
        self.add(key, prog)
        out = self.run(prog, inputs, args, nums)
        if out is _MISS:
            return self.ordinary(args, kwargs)
        self.remember(prog, args, kwargs, nums)
        return self.checked(out, args, kwargs) if _debug._on else out

    def checked(self, out: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Debug mode: out, the replay's answer, is what the uncompiled engine
        gives now (up to rounding), or a CompiledReplayError."""
        expected = self.ordinary(args, kwargs)
        where = _difference(out, expected)
        if where is not None:
            engine = "ad.gradient" if self.mode == "reverse" else "ad.derivative"
            raise _debug.CompiledReplayError(
                f"chainrules.ad.compile({fname(self.f)}): the replayed program and the uncompiled "
                f"engine ({engine}) differ: {where}. Something the program depends on changed "
                f"without being part of its key (an item of a list or dict, an element of an array "
                f"read outside the traced operations, a library's attribute: constants of the trace, "
                f"see ad.compile's docstring); pass such values as arguments. [chainrules debug mode]")
        return out

    def remember(self, prog: _Program, args: tuple[Any, ...], kwargs: dict[str, Any], nums: tuple[int, ...]) -> None:
        """Let the fast entry (`_CompiledCall._multi`) replay prog for calls
        with this signature, when every argument is an array or a float and
        every closure cell an array, a float or a value the signature does
        not read (checked there by its type)."""
        if kwargs or self.mode != "reverse" or prog.scalar is not None or \
                not all(type(a) is np.ndarray or type(a) is float for a in args):
            return
        cells, descrs, shapes = [], [], []
        for _, cell in self.cells:
            try:
                v = cell.cell_contents
            except ValueError:
                return
            if type(v) is np.ndarray or type(v) is float:
                descrs.append(v.dtype if type(v) is np.ndarray else None)
                shapes.append(v.shape if type(v) is np.ndarray else None)
            elif _by_reference(cell) and type(type(v)) is type:
                descrs.append(type(v))
                shapes.append(None)
            else:
                return
            cells.append(cell)
        order = nums + tuple(i for i in range(len(args)) if i not in nums)
        self.fast_env(prog)
        self.call.last_multi = (prog.fast, nums, order,
                                tuple(a.dtype if type(a) is np.ndarray else None for a in args),
                                tuple(a.shape if type(a) is np.ndarray else None for a in args),
                                tuple(cells), tuple(descrs), tuple(shapes), self.single)

    def add(self, key: tuple[Any, ...], prog: _Program) -> None:
        self.cache.setdefault(key, []).insert(0, prog)
        self.order.append((key, prog))
        if len(self.order) > CACHE_SIZE:
            old_key, old = self.order.pop(0)
            progs = self.cache[old_key]
            progs.remove(old)
            if not progs:
                del self.cache[old_key]

    def run(self, prog: _Program, inputs: list[Any], args: tuple[Any, ...], nums: tuple[int, ...]) -> Any:
        xs = [inputs[k] for k in range(len(nums))]
        call = self.call
        if prog.scalar is not None:
            if self.mode == "reverse":
                g = prog.scalar.gradient(tuple(xs))
                if g is _MISS:
                    return _MISS
                if call.simple:
                    self.fast_env(prog)
                    call.last_scalar = prog.scalar
                return g if self.single else (g if len(nums) > 1 else (g,))
            res = prog.scalar.derivative(xs[0])
            if res is _MISS:
                return _MISS
            if call.simple:
                self.fast_env(prog)
                call.last_scalar = prog.scalar
            return res[1]
        res = prog.run(tuple(inputs), (self.one(xs[0]),) + (None,) * (len(inputs) - 1)
                       if self.mode == "forward" else None)
        if res is _MISS:
            return _MISS
        omega, second = res
        if self.mode == "forward":
            if omega is None:
                omega = prog.omega_const
            second = unthunk(second) if second is not None else None
            return zero_of(omega) if second is None or isinstance(second, AbstractZero) else _owned(second)
        grads = tuple(self.project(args[i], g) for i, g in zip(nums, second))
        if call.simple and type(args[0]) is np.ndarray and self.mode == "reverse":
            x = args[0]
            g = grads[0]
            if type(g) is np.ndarray and g.dtype == x.dtype and g.shape == x.shape:
                self.fast_env(prog)
                call.last_replay = (prog.fast, x.dtype, x.shape)
        return grads[0] if self.single else grads

    @staticmethod
    def one(x: Any) -> float | complex:
        return complex(1.0) if isinstance(x, (complex, np.complexfloating)) else 1.0

    @staticmethod
    def project(x: Any, g: Any) -> Any:
        """The gradient of the input x, as `collect` in reverse.py makes it."""
        if type(g) is np.ndarray:
            p = _compile_project(x, g)
            if p is not None:
                return p
        g = unthunk(g)
        if isinstance(g, AbstractZero):
            return zero_of(x)
        return ProjectTo(float(x) if type(x) is int else x)(g)

    # -- recording ---------------------------------------------------------------

    def trace(self, args: tuple[Any, ...], kwargs: dict[str, Any], nums: tuple[int, ...], ninputs: int) -> _Program:
        env, world = self.environment(args, kwargs, nums)       # before f runs: what it reads
        tag = _ad_new_tag()
        rec = Recorder(tag, self.mode)
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
            if world is None:
                y = f(*targs, **tkwargs)
            else:
                with world:
                    y = f(*targs, **tkwargs)
        finally:
            _ad_close(tag)
        if world is not None and world.seen is not None:
            raise CannotRecord(f"a call to {world.seen} (randomness and clocks are not constants "
                               f"a program can hold)")
        nin = ninputs
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
            _real_scalar(omega, "gradient")
        elif not is_leaf(omega) and not isinstance(omega, (int, np.integer)):
            raise CannotRecord(f"an output of type {type(omega).__name__}")
        scalar = scalar_program(rec, len(nums), out) if nin == len(nums) and out >= 0 else None
        generic = replay(rec, nin, out, grad_refs, self.mode)
        fused = lower(rec, nin, out, grad_refs, generic) if scalar is None else None
        return _Program(scalar, generic, omega_const, fused, env)

    def warn(self, what: str) -> None:
        if what not in self.warned:
            self.warned.add(what)
            warnings.warn(f"chainrules.ad.compile({fname(self.f)}): cannot record {what}; calls "
                          f"with these argument types run on the ordinary engine "
                          f"(ad.{'gradient' if self.mode == 'reverse' else 'derivative'})",
                          RuntimeWarning, stacklevel=3)      # the caller of the compiled function

    # -- the ordinary engine ----------------------------------------------------

    def ordinary(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        n = len(args)
        nums = tuple(i + n if i < 0 else i for i in self.nums)
        f = self.f

        def partial(*xs: Any) -> Any:
            full = list(args)
            for i, x in zip(nums, xs):
                full[i] = x
            return f(*full, **kwargs)
        if self.mode == "forward":
            return derivative(partial, args[nums[0]])
        g = gradient(partial, *[args[i] for i in nums])
        return g if self.single or len(nums) > 1 else (g,)


def _is_input(v: Any) -> bool:
    return type(v) in (float, complex, np.ndarray) or isinstance(v, (np.floating, np.complexfloating))


def compile(f: Callable[..., Any], mode: str = "reverse", argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """compile(f, mode="reverse", argnums=0) -> a compiled derivative of f.

    mode="reverse": `compile(f)(*args)` is `gradient` of f with respect to
    the arguments `argnums` (an int: that gradient; a tuple: a tuple of
    them).  mode="forward": `derivative(f, x)` at the scalar argument
    `argnums` (an int).  Each input signature (types; dtypes and shapes of
    arrays) is recorded once and replayed afterwards, guarded by the results
    of the comparisons and conversions f made.

    The contract: a replay gives what `gradient` gives now for everything f
    reads from your code -- the globals, closure cells, code and defaults of
    the functions it reaches, the attributes (slots, properties, methods on
    the class) of your objects and modules -- numbers compared by their bits,
    anything else by identity, a change recording a new program.  Constants
    of the trace, not seen after the first call: the items of lists, dicts
    and sets, and the libraries (monkeypatching `np.tanh` is not supported);
    pass such values as arguments.  Randomness and clocks (`random`,
    `numpy.random`, `time`) make f run on the ordinary engine, with a
    warning.  `chainrules.debug_mode(True)` checks every call against the
    ordinary engine (`CompiledReplayError`).  See the module docstring.

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
    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        value = getattr(f, name, None)
        if value is not None:
            setattr(call, name, value)
    setattr(call, "__wrapped__", f)         # as functools.wraps
    return call


def _function_of(f: Any) -> tuple[types.FunctionType | None, Any, Any]:
    """(the Python function f runs, the object it is bound to or None, a
    partial's keywords or None): a function is itself; a bound method its
    function and object; `functools.partial` its function and keywords; a
    callable object its class's `__call__` and itself."""
    if type(f) is types.FunctionType:
        return f, None, None
    if type(f) is types.MethodType and type(f.__func__) is types.FunctionType:
        return f.__func__, f.__self__, None
    if type(f) is functools.partial:
        inner, owner, _ = _function_of(f.func)
        return inner, owner, f.keywords
    call = getattr(type(f), "__call__", None)
    if type(call) is types.FunctionType:
        return call, f, None
    return None, None, None


def _difference(a: Any, b: Any) -> str | None:
    """Where a replay's answer a and the engine's b differ beyond rounding (a
    relative 1e-9 of the largest entry: a lowered replay may round apart from
    the engine in its last bits), or None."""
    if type(a) is tuple or type(b) is tuple:
        if type(a) is not tuple or type(b) is not tuple or len(a) != len(b):
            return f"{a!r} against {b!r}"
        for i, (u, v) in enumerate(zip(a, b)):
            where = _difference(u, v)
            if where is not None:
                return f"the gradient of argument {i}: {where}"
        return None
    u, v = np.asarray(a), np.asarray(b)
    if u.shape != v.shape or u.dtype.kind != v.dtype.kind:
        return f"{a!r} against {b!r}"
    scale = float(np.max(np.abs(v[np.isfinite(v)]), initial=0.0))
    close = np.isclose(u, v, rtol=1e-9, atol=1e-9 * scale, equal_nan=True)
    if bool(np.all(close)):
        return None
    if u.ndim == 0:
        return f"{a!r} against {b!r}"
    at = tuple(int(k) for k in np.argwhere(~close)[0])
    return f"at index {at}, {u[at]!r} against {v[at]!r}"


def _by_reference(cell: Any) -> bool:
    """A closure cell the signature does not read (a function, a module…)."""
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return not (_is_input(v) or type(v) in (int, bool, str, type(None)) or isinstance(v, Tracked))

