"""What a program of chainrules.ad.compile depends on besides its inputs: its
*environment*, found by walking what f can read, and checked on every call by
`_core`'s `_compile_env_holds` (identity checks in C; numbers by their bits).

The contract (issue 21): everything the trace can read from the user's code is
guarded, as torch.compile guards what its trace read --

- the globals read by every Python function the walk reaches (f, the functions
  its globals, closure cells, defaults, objects, partials and `ad.wrap`s hold,
  transitively), whatever they are bound to except a library's module;
- the closure cells of those functions (f's own numbers and arrays are inputs,
  read afresh: not guarded here), their `__code__`, `__defaults__` and
  `__kwdefaults__` (the latter's items too);
- the attributes that the reached code names (`co_names`) on the objects,
  classes and user modules reached: instance `__dict__` entries, `__slots__`
  members, and the class attributes (methods, properties, class variables)
  along the MRO -- so a property's fget is reached and what it reads guarded,
  and monkeypatching a method or shadowing it on the instance records anew;

and what is *not* (constants of the trace, as everything is under `jax.jit`):
the items of lists, dicts and sets, the elements of arrays (kept by
reference), and the libraries (NumPy, SciPy, math, chainrules…: their
functions are not followed, their modules not watched).

The outside world -- `random`, `numpy.random`, `time`, `datetime`, `secrets`,
`os.urandom` -- is not a value a program can hold: a call into it while f is
recorded (`watch_the_world`) makes the call signature not compilable.
"""

import dis
import functools
import random
import sys
import types
import warnings
from typing import Any, Callable, Iterator

import numpy as np

from chainrules._core import Tracked, Wrapped, _compile_env_absent, _compile_type_dict

_ABSENT = _compile_env_absent()     # a name not bound (a builtin's, an unset slot)

# Functions, modules and types of these packages are not followed (their globals are the library's own)
LIBRARIES = frozenset({"numpy", "scipy", "chainrules", "jax", "jaxlib", "torch", "autograd", "dask",
                       "array_api_strict", "array_api_compat", "functools", "builtins", "math", "cmath",
                       "operator", "typing", "abc", "collections", "dataclasses", "enum",
                       "_operator", "_functools", "_abc", "_collections"})
_LEAVES = frozenset({int, float, complex, bool, str, bytes, type(None), np.ndarray, np.ufunc, np.dtype,
                     range, slice, types.BuiltinFunctionType, types.CodeType, type(Ellipsis), list, dict, set,
                     bytearray})
_NUMPY_RANDOM = (np.random.Generator, np.random.RandomState, np.random.BitGenerator)
_IMMUTABLE_TYPE = 1 << 8        # Py_TPFLAGS_IMMUTABLETYPE: a type whose attributes cannot be set


def _library(module: Any) -> bool:
    return (module if isinstance(module, str) else "").partition(".")[0] in LIBRARIES


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    """code and the code of the functions, lambdas and comprehensions it defines."""
    todo = [code]
    while todo:
        c = todo.pop()
        yield c
        todo.extend(k for k in c.co_consts if type(k) is types.CodeType)


def imported_names(code: types.CodeType) -> Iterator[str]:
    """The modules code (and the code it defines) imports."""
    for c in _codes(code):
        for ins in dis.get_instructions(c):
            if ins.opname == "IMPORT_NAME" and isinstance(ins.argval, str):
                yield ins.argval


def global_names(code: types.CodeType) -> tuple[str, ...]:
    """The global names code (and the code it defines) reads, once each."""
    names: dict[str, None] = {}
    for c in _codes(code):
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(ins.argval, str):
                names.setdefault(ins.argval)
    return tuple(names)


def _class_lookup(cls: type, name: str) -> tuple[list[type], Any]:
    """The user classes of cls's MRO looked at to find name (up to the one
    holding it), and the value found there (_ABSENT: none)."""
    looked: list[type] = []
    for c in cls.__mro__:
        if _library(c.__module__) or c.__flags__ & _IMMUTABLE_TYPE:
            d = c.__dict__
            if name in d:
                return looked, d[name]
            continue
        looked.append(c)
        d = c.__dict__
        if name in d:
            return looked, d[name]
    return looked, _ABSENT


class _Walk:
    """The values f can reach, and the guards on them."""

    def __init__(self) -> None:
        self.seen: dict[int, Any] = {}
        self.todo: list[Any] = []
        self.functions: list[types.FunctionType] = []
        self.objects: list[Any] = []            # user objects, classes and modules: their attributes are read
        self.names: set[str] = {"__call__"}     # the attribute names the reached code uses (calls too)
        self.partials: list[functools.partial[Any]] = []
        self.generators: list[Any] = []         # NumPy random generators reached (see watch_the_world)
        self.modules: list[types.ModuleType] = []   # library modules f's code reads
        self.world = False                      # f reaches randomness or a clock: watch its recording

    def add(self, v: Any) -> None:
        if type(v) is types.BuiltinFunctionType and _world_call(v):
            self.world = True
        if type(v) in _LEAVES or v is _ABSENT or id(v) in self.seen:
            return
        self.seen[id(v)] = v
        self.todo.append(v)

    def visit(self, v: Any) -> None:
        t = type(v)
        if isinstance(v, _NUMPY_RANDOM):
            self.generators.append(v)
            self.world = True
        elif isinstance(v, random.Random) or t is types.ModuleType and _world_module(v.__name__) or \
                t is types.MethodType and _world_call(v):
            self.world = True
        elif t is types.FunctionType:
            if _library(getattr(v, "__module__", None)):
                return
            self.functions.append(v)
            for c in _codes(v.__code__):
                self.names.update(c.co_names)
            g = v.__globals__
            for n in global_names(v.__code__):
                x = g.get(n, _ABSENT)
                if type(x) is types.ModuleType and _library(x.__name__):
                    self.modules.append(x)          # not watched; but `np.random` is the world
                else:
                    self.add(x)
            if any(_world_module(m) for m in imported_names(v.__code__)):
                self.world = True
            for cell in v.__closure__ or ():
                try:
                    self.add(cell.cell_contents)
                except ValueError:
                    pass
            for x in v.__defaults__ or ():
                self.add(x)
            for x in (v.__kwdefaults__ or {}).values():
                self.add(x)
        elif t is types.MethodType:
            self.add(v.__func__)
            self.add(v.__self__)
        elif t is functools.partial:
            self.partials.append(v)
            self.add(v.func)
            for x in v.args:
                self.add(x)
            for x in v.keywords.values():
                self.add(x)
        elif t is Wrapped:
            self.add(v.f)
        elif t in (property, staticmethod, classmethod):
            self.add(v.fget if t is property else v.__func__)
        elif t is tuple or t is frozenset:
            for x in v:
                self.add(x)
        elif t is types.ModuleType:
            if not _library(v.__name__):
                self.objects.append(v)
        elif isinstance(v, type):
            if not _library(v.__module__) and not v.__flags__ & _IMMUTABLE_TYPE:
                self.objects.append(v)
        elif not _library(t.__module__) and not isinstance(v, (np.generic, Tracked)):
            self.objects.append(v)

    def attributes(self, o: Any) -> Iterator[Any]:
        """The values of o's attributes the reached code names."""
        if type(o) is types.ModuleType:
            for n in self.names & o.__dict__.keys():
                yield o.__dict__[n]
            return
        cls = o if isinstance(o, type) else type(o)
        d = getattr(o, "__dict__", None) if not isinstance(o, type) else None
        for n in self.names:
            if type(d) is dict and n in d:
                yield d[n]
            _, v = _class_lookup(cls, n)
            if v is not _ABSENT:
                yield _slot_value(o, n) if type(v) is types.MemberDescriptorType and o is not cls else v

    def run(self, roots: list[Any]) -> None:
        for r in roots:
            self.add(r)
        done = 0            # the objects whose attributes were followed with the current names
        known = -1
        while self.todo or done < len(self.objects) or known != len(self.names):
            while self.todo:
                self.visit(self.todo.pop())
            if known != len(self.names):
                known, done = len(self.names), 0        # new names: every object again
            while done < len(self.objects):
                for x in self.attributes(self.objects[done]):
                    self.add(x)
                done += 1

    def guards(self, skip_cells: frozenset[int]) -> tuple[Any, ...] | None:
        """(groups, cells, values, functions, slots) for `_compile_env_holds`,
        or None when there is nothing to check."""
        groups: dict[int, tuple[Any, dict[str, Any]]] = {}

        def guard(d: Any, name: str) -> None:
            groups.setdefault(id(d), (d, {}))[1][name] = d.get(name, _ABSENT)
        cells: dict[int, Any] = {}
        funcs: list[Any] = []
        slots: list[Any] = []
        for fn in self.functions:
            funcs.extend((fn, fn.__code__, fn.__defaults__, fn.__kwdefaults__))
            for n in global_names(fn.__code__):
                x = fn.__globals__.get(n, _ABSENT)
                if type(x) is not types.ModuleType or not _library(x.__name__):
                    guard(fn.__globals__, n)
            for cell in fn.__closure__ or ():
                if id(cell) not in skip_cells and not _library_module(cell):
                    cells[id(cell)] = cell
            for n in fn.__kwdefaults__ or ():
                guard(fn.__kwdefaults__, n)
        for p in self.partials:                     # its keywords can be changed in place
            for n in p.keywords:
                guard(p.keywords, n)
        for o in self.objects:
            if type(o) is types.ModuleType:
                for n in self.names & o.__dict__.keys():
                    guard(o.__dict__, n)
                continue
            cls = o if isinstance(o, type) else type(o)
            d = getattr(o, "__dict__", None) if o is not cls else None
            for n in self.names:
                looked, v = _class_lookup(cls, n)
                in_dict = type(d) is dict and n in d
                if v is _ABSENT and not in_dict:
                    continue
                for c in looked:            # the classes up to the one holding it: none may gain it
                    guard(_compile_type_dict(c), n)
                if type(d) is dict:
                    guard(d, n)             # the instance may shadow a class attribute later
                if type(v) is types.MemberDescriptorType and o is not cls:
                    slots.extend((o, n, _slot_value(o, n)))
        values = []
        for cell in cells.values():
            try:
                values.append(cell.cell_contents)
            except ValueError:
                values.append(_ABSENT)
        group_t = tuple((d, tuple(ns), tuple(ns.values())) for d, ns in groups.values())
        if not group_t and not cells and not funcs and not slots:
            return None
        return (group_t, tuple(cells.values()), tuple(values), tuple(funcs), tuple(slots))


def _library_module(cell: Any) -> bool:
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return type(v) is types.ModuleType and _library(v.__name__)


def _slot_value(o: Any, name: str) -> Any:
    try:
        return getattr(o, name)
    except AttributeError:
        return _ABSENT


def environment(roots: list[Any], skip_cells: frozenset[int]) -> tuple[tuple[Any, ...] | None, "watch_the_world | None"]:
    """The environment of a program recorded now, from the values f is (its
    function, bound object, partial) and the constant arguments of the call:
    what `_compile_env_holds` checks (or None), and the watch on the outside
    world to record f in, when f's code reaches randomness or a clock (a
    module, a function, a generator of those, `np.random`; None otherwise:
    the watch costs a profile hook's call per call while recording).
    skip_cells: f's cells the signature reads (its numbers and arrays)."""
    walk = _Walk()
    walk.run(roots)
    with warnings.catch_warnings():         # a library module's deprecated names warn when read
        warnings.simplefilter("ignore")
        world = walk.world or any(_world_value(getattr(m, n, None)) for m in walk.modules for n in walk.names)
    if not world:
        return walk.guards(skip_cells), None
    codes = {c for fn in walk.functions for c in _codes(fn.__code__)}
    return walk.guards(skip_cells), watch_the_world(walk.generators, codes)


# ----- the outside world ------------------------------------------------------------------

_WORLD = ("random", "numpy.random", "time", "datetime", "secrets")


def _world_module(module: Any) -> bool:
    return isinstance(module, str) and any(module == m or module.startswith(m + ".") for m in _WORLD)


def _c_function_module(fn: Any) -> Any:
    """The module a builtin function or method belongs to (its object's, for a method)."""
    owner = getattr(fn, "__self__", None)
    if owner is None or type(owner) is types.ModuleType:
        return getattr(owner, "__name__", None) or getattr(fn, "__module__", None)
    return (owner if isinstance(owner, type) else type(owner)).__module__


def _world_value(v: Any) -> bool:
    """v, an attribute of a library module f reads (`np.random`), is randomness or a clock."""
    t = type(v)
    return t is types.ModuleType and _world_module(v.__name__) or \
        t in (types.BuiltinFunctionType, types.MethodType) and _world_call(v) or isinstance(v, _NUMPY_RANDOM)


def _world_call(fn: Any) -> bool:
    if _world_module(_c_function_module(fn)):
        return True
    return getattr(fn, "__name__", None) == "urandom" and _c_function_module(fn) in ("posix", "nt", "os")


def _frozen(state: Any) -> Any:
    """A generator's state (dicts, arrays, numbers), comparable by ==."""
    if type(state) is dict:
        return tuple((k, _frozen(v)) for k, v in state.items())
    if type(state) in (tuple, list):
        return tuple(map(_frozen, state))
    if isinstance(state, np.ndarray):
        return (state.dtype.str, state.shape, state.tobytes())
    return state


def _bit_generator(g: Any) -> Any:
    if isinstance(g, np.random.BitGenerator):
        return g
    return g.bit_generator if isinstance(g, np.random.Generator) else g._bit_generator


class watch_the_world:
    """While f is recorded: the first call into randomness or a clock
    (`seen`: its name) from f's own code (`codes`, the reached functions'),
    found by a profile hook (`sys.setprofile`; a profiler already installed
    keeps receiving its events) for Python's modules, and by the states of NumPy's generators (its legacy global one
    and those f reaches), whose methods, compiled by Cython, no hook sees."""

    def __init__(self, generators: list[Any], codes: set[types.CodeType]) -> None:
        self.seen: str | None = None
        self.codes = codes
        self.previous: Callable[..., Any] | None = None
        self.generators = [_bit_generator(g) for g in generators + [np.random.mtrand._rand]]
        self.states: list[Any] = []

    def hook(self, frame: Any, event: str, arg: Any) -> None:
        # only calls from f's own code count (not a library's, a lazy import's or a gc callback's)
        if self.seen is None:
            if event == "c_call":
                if _world_call(arg) and frame.f_code in self.codes:
                    self.seen = f"{_c_function_module(arg)}.{getattr(arg, '__name__', arg)}"
            elif event == "call" and _world_module(frame.f_globals.get("__name__")) and \
                    frame.f_back is not None and frame.f_back.f_code in self.codes:
                self.seen = f"{frame.f_globals['__name__']}.{frame.f_code.co_name}"
        if self.previous is not None:
            self.previous(frame, event, arg)

    def __enter__(self) -> "watch_the_world":
        self.states = [_frozen(g.state) for g in self.generators]
        self.previous = sys.getprofile()
        sys.setprofile(self.hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self.previous)
        if self.seen is None:
            for g, state in zip(self.generators, self.states):
                if _frozen(g.state) != state:
                    self.seen = f"numpy.random ({type(g).__name__} generator; its state changed)"
                    break

