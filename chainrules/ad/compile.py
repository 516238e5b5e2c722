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

Closed-over values and globals: the numbers and arrays in f's closure cells
are inputs of the program, read afresh on each call (their types, dtypes and
shapes are part of the signature; Python ints, bools, strings and None in
cells by value), so rebinding or mutating a captured array gives fresh
results.  The other cells and the globals f reads (and the functions and
lambdas defined in f read) are the program's *environment*, checked on every
call, the fast entry's included: numbers by value, anything else (functions,
classes, configs) by identity, a name not bound (a builtin's) as unbound;
a change records a new program.  Modules are not checked, nor attributes of
modules or objects, nor what the functions f calls read: those are constants
of the program, as in `jax.jit` (arrays by reference: an in-place change is
seen where an operation uses the array).

What cannot be recorded (an operation on containers of traced values, a
tuple output, values of an enclosing differentiation) makes that signature
run on the ordinary engine, with a one-time warning naming the operation.
"""

import dis
import functools
import types
import warnings
from typing import Any, Callable, TypeGuard

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tracked,
    _CompiledCall,
    _Traced,
    _ad_close,
    _ad_new_tag,
    _compile_env_absent,
    _compile_env_holds,
    _compile_miss,
    _compile_project,
    unthunk,
)
from chainrules.ad import _tracing
from chainrules.ad._compile_fuse import lower
from chainrules.ad._compile_record import CannotRecord, Recorder, is_leaf, replay, scalar_program
from chainrules.ad._inputs import reject_subclass
from chainrules.ad._tracing import fname
from chainrules.ad.forward import _owned, derivative, zero_of
from chainrules.ad.reverse import _real_scalar, gradient

__all__ = ["compile", "CACHE_SIZE"]

CACHE_SIZE = 64
_MISS = _compile_miss()
_ABSENT = _compile_env_absent()     # an environment's name not in the globals (a builtin)


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
        self.ordinary_keys: set[tuple[Any, ...]] = set()           # signatures left to the ordinary engine
        self.warned: set[str] = set()
        func, owner, keywords = _function_of(f)
        self.cells = [(name, cell) for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ())] \
            if func is not None else []
        self.globals: dict[str, Any] = func.__globals__ if func is not None else {}
        # the functions f reaches (its callees, its owner's methods): their globals, their
        # closure cells and the owner's attributes are part of the environment too
        reached = _reached(func, owner) if func is not None else []
        names: dict[str, None] = {}
        groups: dict[int, tuple[dict[str, Any], dict[str, None]]] = {}
        self.callee_cells: list[Any] = []
        for g in reached:
            if g.__globals__ is self.globals:
                names.update(dict.fromkeys(_global_names(g.__code__)))
            else:
                groups.setdefault(id(g.__globals__), (g.__globals__, {}))[1].update(
                    dict.fromkeys(_global_names(g.__code__)))
            if g is not func:
                self.callee_cells.extend(g.__closure__ or ())
        self.global_names = tuple(names)
        attrs = getattr(owner, "__dict__", None)
        if type(attrs) is dict:     # the attributes of the method's object its code may read
            groups[id(attrs)] = (attrs, dict.fromkeys(n for g in reached for n in _attribute_names(g.__code__)))
        if type(keywords) is dict and keywords:
            groups[id(keywords)] = (keywords, dict.fromkeys(keywords))
        self.groups = [(d, tuple(ns)) for d, ns in groups.values() if ns]
        self.call: Any = None       # the _CompiledCall

    # -- the environment ---------------------------------------------------------

    def environment(self) -> tuple[Any, ...] | None:
        """What a program recorded now depends on besides its inputs: the
        globals f (and the functions and lambdas it defines) reads and the
        closure cells the signature does not read (functions, objects), except
        modules -- (globals, names, their values or _ABSENT, cells, their
        values), compared on each call by `_compile_env_holds` (numbers by
        value, anything else by identity); None when there is none."""
        names, values, cells, cvalues = [], [], [], []
        for name in self.global_names:
            v = self.globals.get(name, _ABSENT)
            if type(v) is not types.ModuleType:
                names.append(name)
                values.append(v)
        for _, cell in self.cells:
            if _by_reference(cell) and type(cell.cell_contents) is not types.ModuleType:
                cells.append(cell)
                cvalues.append(cell.cell_contents)
        for cell in self.callee_cells:          # a callee's cells: numbers by value too
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if type(v) is not types.ModuleType:
                cells.append(cell)
                cvalues.append(v)
        groups = tuple((d, ns, tuple(d.get(n, _ABSENT) for n in ns)) for d, ns in self.groups)
        if not names and not cells and not groups:
            return None
        return (self.globals, tuple(names), tuple(values), tuple(cells), tuple(cvalues), groups)

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
                return out
        try:
            prog = self.trace(args, kwargs, nums, len(inputs))
        except CannotRecord as e:
            self.ordinary_keys.add(key)
            self.warn(str(e))
            return self.ordinary(args, kwargs)
        self.add(key, prog)
        out = self.run(prog, inputs, args, nums)
        if out is _MISS:
            return self.ordinary(args, kwargs)
        self.remember(prog, args, kwargs, nums)
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
        env = self.environment()        # before f runs: what it reads
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
            y = f(*targs, **tkwargs)
        finally:
            _ad_close(tag)
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
    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        value = getattr(f, name, None)
        if value is not None:
            setattr(call, name, value)
    setattr(call, "__wrapped__", f)         # as functools.wraps
    return call


def _global_names(code: types.CodeType) -> tuple[str, ...]:
    """The global names code reads, and the code of the functions, lambdas
    and comprehensions it defines (in the order met, once each)."""
    names: dict[str, None] = {}
    todo = [code]
    while todo:
        c = todo.pop()
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(ins.argval, str):
                names.setdefault(ins.argval)
        todo.extend(k for k in c.co_consts if type(k) is types.CodeType)
    return tuple(names)


# Functions of these packages are not followed into (their globals are the library's own)
_LIBRARIES = frozenset({"numpy", "scipy", "chainrules", "jax", "jaxlib", "torch", "autograd", "dask",
                        "array_api_strict", "array_api_compat", "functools", "builtins"})


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


def _followed(g: Any) -> TypeGuard[types.FunctionType]:
    return type(g) is types.FunctionType and \
        (getattr(g, "__module__", None) or "").partition(".")[0] not in _LIBRARIES


def _reached(func: types.FunctionType, owner: Any) -> list[types.FunctionType]:
    """func and the Python functions it reaches, once each: the functions its
    globals and closure cells hold, and the methods of `owner`'s class it
    names, transitively (library functions are not followed)."""
    seen: dict[int, types.FunctionType] = {}
    todo = [func]
    cls = type(owner) if owner is not None else None
    while todo:
        g = todo.pop()
        if id(g) in seen:
            continue
        seen[id(g)] = g
        for n in _global_names(g.__code__):
            v = g.__globals__.get(n)
            if _followed(v):
                todo.append(v)
        for cell in g.__closure__ or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if _followed(v):
                todo.append(v)
        if cls is not None:
            for n in _attribute_names(g.__code__):
                m = getattr(cls, n, None)
                if _followed(m):
                    todo.append(m)
    return list(seen.values())


def _attribute_names(code: types.CodeType) -> tuple[str, ...]:
    """The names code (and the code it defines) uses as attributes, methods and
    globals (`co_names`): what it may read of an object's attributes."""
    names: dict[str, None] = {}
    todo = [code]
    while todo:
        c = todo.pop()
        names.update(dict.fromkeys(c.co_names))
        todo.extend(k for k in c.co_consts if type(k) is types.CodeType)
    return tuple(names)


def _by_reference(cell: Any) -> bool:
    """A closure cell the signature does not read (a function, a module…)."""
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return not (_is_input(v) or type(v) in (int, bool, str, type(None)) or isinstance(v, Tracked))

