"""Debug mode: the mutation contract of rules, checked.

The contract: a rule's pullback may read the values of its forward pass (the
arguments and the output Ω), so **they must not be mutated in place while
the pullback may still be called**; a rule must not mutate its arguments or
its tangents, and a pullback must not mutate its cotangent ΔΩ.  Nothing
checks this by default (a check costs a copy of every array argument).

`debug_mode(True)` turns the checks on (also as a context manager:
``with debug_mode(True): ...``), as ChainRulesCore's `debug_mode()` does;
`CHAINRULES_DEBUG=1` in the environment turns them on at import.  While they
are on, `frule`, `rrule` and `chainrules.ad` (which calls them) record the
contents of the mutable arguments (arrays, lists, dicts, objects' fields) of
each call, and a violation raises `MutationError` naming the function, the
argument and where it changed:

    rrule(numpy.sin, x), then x += 10, then the pullback
    -> MutationError: numpy.sin: argument 1 (x) was mutated in place after
       rrule returned and before its pullback was called (x[0] was 0.5, is 10.5) ...

Debug mode also checks `chainrules.ad.compile`'s contract: each call of a
compiled function runs the uncompiled engine too, and a replay that differs
beyond rounding raises `CompiledReplayError` (chainrules/ad/compile.py).
"""

import inspect
import os
import types
from typing import Any, Literal, overload

import numpy as np

from chainrules import _core

__all__ = ["debug_mode", "MutationError", "CompiledReplayError"]


class MutationError(RuntimeError):
    """A value a rule or its pullback relies on was mutated in place (debug
    mode): the result would have been silently wrong."""


class CompiledReplayError(RuntimeError):
    """A program of `chainrules.ad.compile`, replayed, gave another answer than
    the uncompiled engine (debug mode): something it depends on changed
    without being part of its key."""


# ----- snapshots of mutable values --------------------------------------------

_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic, range, frozenset,
              type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
              types.ModuleType, np.ufunc, np.dtype)
_DEPTH = 8          # containers nested deeper than this are not followed


def _snapshot(x: Any, depth: int = 0, seen: Any = None) -> Any:
    """What can change in place in x, recorded: None for values that cannot
    (numbers, strings, functions) or that are too deep or seen before."""
    if isinstance(x, _IMMUTABLE):
        return None
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.dtype, x.tobytes())
    if depth >= _DEPTH:
        return None
    seen = set() if seen is None else seen
    if id(x) in seen:
        return None
    seen.add(id(x))
    if isinstance(x, (list, tuple)):
        return ("seq", len(x), [(id(e), _snapshot(e, depth + 1, seen)) for e in x])
    if isinstance(x, dict):
        return ("dict", [(k, id(v), _snapshot(v, depth + 1, seen)) for k, v in x.items()])
    if isinstance(x, (set, bytearray)):
        return ("copy", x.copy())
    fields = getattr(x, "__dict__", None)
    if isinstance(fields, dict):
        return ("fields", _snapshot(fields, depth + 1, seen))
    if isinstance(x, _core.MutableTangent):
        return ("fields", _snapshot(dict(_core.backing(x)), depth + 1, seen))
    return None


def _element(a: Any, index: Any) -> Any:
    v = a[index]
    return v.item() if isinstance(v, np.generic) else v


def _changed(x: Any, snap: Any, path: Any) -> Any:
    """Where x differs from its snapshot (a phrase), or None."""
    if snap is None:
        return None
    kind = snap[0]
    if kind == "array":
        _, shape, dtype, data = snap
        if not isinstance(x, np.ndarray) or x.shape != shape or x.dtype != dtype:
            return f"{path} was replaced"
        if x.tobytes() == data:
            return None
        if dtype.hasobject:
            return f"{path} changed"
        old = np.frombuffer(data, dtype=dtype).reshape(shape)
        differs = old.view(np.uint8).reshape(shape + (-1,)) != \
            np.ascontiguousarray(x).view(np.uint8).reshape(shape + (-1,))
        where = tuple(int(i) for i in np.argwhere(differs.any(axis=-1))[0])
        return f"{path}[{', '.join(map(str, where))}] was {_element(old, where)!r}, is {_element(x, where)!r}"
    if kind == "seq":
        _, n, items = snap
        if len(x) != n:
            return f"the length of {path} was {n}, is {len(x)}"
        for i, (e, (ident, sub)) in enumerate(zip(x, items)):
            if id(e) != ident:
                return f"{path}[{i}] was replaced"
            where = _changed(e, sub, f"{path}[{i}]")
            if where:
                return where
        return None
    if kind == "dict":
        _, items = snap
        if len(x) != len(items):
            return f"{path} gained or lost keys"
        for k, ident, sub in items:
            if k not in x or id(x[k]) != ident:
                return f"{path}[{k!r}] was replaced"
            where = _changed(x[k], sub, f"{path}[{k!r}]")
            if where:
                return where
        return None
    if kind == "copy":
        return None if x == snap[1] else f"{path} changed"
    if kind == "fields":
        fields = x.__dict__ if hasattr(x, "__dict__") else dict(_core.backing(x))
        return _changed(fields, snap[1], f"the fields of {path}")
    return None


# ----- naming the arguments -----------------------------------------------------

def _names(f: Any, n: int) -> Any:
    """The names of f's first n positional parameters, as far as known."""
    nin = getattr(f, "nin", None)
    if isinstance(f, np.ufunc) and nin:
        return ["x"] if nin == 1 else [f"x{i + 1}" for i in range(nin)]
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return []
    names = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            names.extend(f"{p.name}[{i}]" for i in range(n - len(names)))
            break
    return names[:n]


def _fname(f: Any) -> Any:
    """numpy.sin, math.exp, mymodule.f: the name errors give f."""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if not isinstance(name, str):
        return type(f).__name__ + " object"
    mod = getattr(f, "__module__", None)
    if mod is None and isinstance(f, np.ufunc):
        mod = "numpy"
    if isinstance(mod, str) and mod not in ("builtins", "__main__"):
        return f"{mod.lstrip('_')}.{name}"
    return name


class _Watch:
    """The snapshots of one call's arguments (and keyword arguments)."""

    __slots__ = ("fname", "items")

    def __init__(self, f: Any, xs: Any, kwargs: Any, what: str = "argument") -> None:
        self.fname = _fname(f)
        names = _names(f, len(xs))
        self.items = []
        for i, x in enumerate(xs):
            snap = _snapshot(x)
            if snap is not None:
                name = names[i] if i < len(names) else None
                label = f"{what} {i + 1} ({name})" if name else f"{what} {i + 1}"
                self.items.append((label, name or f"{what} {i + 1}", x, snap))
        for k, x in kwargs.items():
            snap = _snapshot(x)
            if snap is not None:
                self.items.append((f"keyword argument {k}", k, x, snap))

    def add(self, label: str, name: str, x: Any) -> None:
        snap = _snapshot(x)
        if snap is not None:
            self.items.append((label, name, x, snap))

    def check(self, when: Any, advice: Any) -> None:
        for label, name, x, snap in self.items:
            where = _changed(x, snap, name)
            if where:
                raise MutationError(f"{self.fname}: {label} was mutated in place {when} "
                                    f"({where}). {advice} [chainrules debug mode]")


_AFTER_RRULE = "after rrule returned and before its pullback was called"
_ADVICE_USER = ("A pullback reads the values of its forward pass, so its cotangents would "
                "be wrong: do not mutate a rule's arguments or its output Ω while the "
                "pullback may still be called (copy them first).")


# ----- the checked entry points ---------------------------------------------------

class _CheckedPullback:
    """A pullback that checks, before each call, that the arguments and the
    output of its rrule are as they were, and after it, that it left the
    cotangent alone."""

    __slots__ = ("pullback", "watch", "fname")

    def __init__(self, pullback: Any, watch: Any, fname: str) -> None:
        self.pullback = pullback
        self.watch = watch
        self.fname = fname

    def __call__(self, *cotangents: Any) -> Any:
        self.watch.check(_AFTER_RRULE, _ADVICE_USER)
        seeds = _Watch(self.pullback, cotangents, {}, what="cotangent")
        seeds.fname = self.fname
        res = self.pullback(*cotangents)
        seeds.check("by the pullback", "A pullback must not write into its cotangent ΔΩ "
                    "(the engine may use it again); an in-place accumulation belongs in an "
                    "InplaceableThunk.")
        return res

    def __getattr__(self, name: str) -> Any:           # __name__, __doc__, …: the pullback's
        return getattr(self.pullback, name)

    def __repr__(self) -> str:
        return f"<pullback of {self.fname}, checked by debug mode: {self.pullback!r}>"


def checked_rrule(rrule_plain: Any, config: Any, f: Any, xs: Any, kwargs: Any) -> Any:
    watch = _Watch(f, xs, kwargs)
    res = rrule_plain(config, f, xs, kwargs)
    watch.check("by its own rrule", "A rule must not mutate its arguments.")
    if type(res) is not tuple or len(res) != 2 or not callable(res[1]):
        return res
    Ω, pullback = res
    watch.add("its output Ω", "Ω", Ω)
    return Ω, _CheckedPullback(pullback, watch, watch.fname)


def checked_frule(frule_plain: Any, config: Any, tangents: Any, f: Any, xs: Any, kwargs: Any) -> Any:
    watch = _Watch(f, xs, kwargs)
    if isinstance(tangents, (tuple, list)):
        for i, t in enumerate(tangents):
            watch.add("the tangent of f" if i == 0 else f"the tangent of argument {i}",
                      "Δself" if i == 0 else f"Δx{i}", t)
    res = frule_plain(config, tangents, f, xs, kwargs)
    watch.check("by its own frule", "A rule must not mutate its arguments or its tangents.")
    return res


# ----- the switch ---------------------------------------------------------------

class _Checks:
    checked_frule = staticmethod(checked_frule)
    checked_rrule = staticmethod(checked_rrule)


_on = False


class _DebugModeSwitch:
    """Returned by debug_mode(enabled): the switch has happened; used as a
    context manager, the previous state comes back on exit."""

    __slots__ = ("previous",)

    def __init__(self, previous: bool) -> None:
        self.previous = previous

    def __enter__(self) -> "_DebugModeSwitch":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _set(self.previous)
        return False

    def __bool__(self) -> bool:
        return _on

    def __repr__(self) -> str:
        return f"<chainrules debug mode {'on' if _on else 'off'}>"


def _set(on: Any) -> None:
    global _on
    _on = bool(on)
    _core._set_debug_hooks(_Checks if _on else None)


@overload
def debug_mode(enabled: None = None) -> bool: ...
@overload
def debug_mode(enabled: bool) -> _DebugModeSwitch: ...
def debug_mode(enabled: bool | None = None) -> bool | _DebugModeSwitch:
    """Whether debug mode is on (no argument), or turn it on or off.

    In debug mode `frule`, `rrule` and `chainrules.ad` check the mutation
    contract: the arguments and output of a rule must not be mutated in
    place while its pullback may still be called, a rule must not mutate its
    arguments or tangents, and a pullback must not mutate its cotangent.  A
    violation raises `MutationError` naming the function and the argument.
    Each call of an `ad.compile`d function is checked against the uncompiled
    engine (`CompiledReplayError`).
    The checks copy every array argument: for finding bugs, not for
    production.  `debug_mode(True)` switches at once; as a context manager
    (``with chainrules.debug_mode(True): ...``) it restores the previous
    state on exit.  The environment variable ``CHAINRULES_DEBUG=1`` turns it
    on at import.

    Example::

        >>> import numpy as np, chainrules as cr
        >>> x = np.array([0.5, 1.0])
        >>> with cr.debug_mode(True):
        ...     y, pb = cr.rrule(np.sin, x)
        ...     x += 10
        ...     pb(np.ones(2))
        Traceback (most recent call last):
        ...
        chainrules._debug.MutationError: numpy.sin: argument 1 (x) was mutated in place ...
    """
    if enabled is None:
        return _on
    previous = _on
    _set(enabled)
    return _DebugModeSwitch(previous)


if os.environ.get("CHAINRULES_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
    _set(True)
