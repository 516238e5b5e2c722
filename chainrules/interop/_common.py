"""What the three adapters share: which function's rule to call on an
engine's arrays, the error for a function without a rule, splitting the
arguments into the engine's (differentiated) leaves and the rest, and the
conversions between chainrules' tangents and an engine's.

Conversions (DESIGN.md, "Interop"):

- into chainrules: an engine's "no gradient" (None, a JAX symbolic zero, a
  float0 array) becomes `ZeroTangent()` (`NoTangent()` for an integer
  primal); a tuple becomes `Tangent[tuple]`, a list a list, a dict a dict;
- out of chainrules: thunks are evaluated, zeros become the engine's zeros
  (or None where the engine takes None), structural tangents their backing
  (a tuple, list or dict of the engine's arrays); `NotImplementedTangent`
  raises `NotImplementedTangentError` naming the function.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from chainrules import _debug
from chainrules._core import _rules_of
from chainrules.rulesets.elementwise import row_for_numpy_name
from chainrules import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    StructuralTangent,
    Tangent,
    ZeroTangent,
    frule,
    rrule,
    unthunk,
)

__all__ = ["NO", "ZERO", "check_libraries", "name_of", "no_rule_error", "is_host_only", "resolve", "Leaves", "to_cr",
           "from_cr", "frule_or_raise", "rrule_or_raise", "wrap_name"]

NO = NoTangent()
ZERO = ZeroTangent()


def name_of(f: Any) -> str:
    """`module.name` of f for messages (`numpy.sin`, `scipy.special.gamma`)."""
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__
    module = getattr(f, "__module__", None)
    if module is None and isinstance(f, np.ufunc):
        module = "numpy"
        special = sys.modules.get("scipy.special")
        if special is not None and getattr(special, f.__name__, None) is f:
            module = "scipy.special"
    return f"{module}.{name}" if module and module != "builtins" else str(name)


def _type_names(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [type(a).__module__.split(".")[0] + "." + type(a).__qualname__
             if type(a).__module__ != "builtins" else type(a).__qualname__ for a in args]
    parts += [f"{k}={type(v).__qualname__}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def no_rule_error(engine: str, f: Any, g: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                  kind: str = "rule") -> TypeError:
    """The TypeError for a call with no rule: names f (and the function whose
    rule was looked up, when the adapter chose another) and the argument types."""
    via = "" if g is f else f" (looked up as {name_of(g)})"
    return TypeError(f"{engine}({name_of(f)}): no {kind} for {name_of(f)}{via} with argument "
                     f"types {_type_names(args, kwargs)}; register one with "
                     f"chainrules.register_frule/register_rrule")


# array libraries by the top-level module of their array types
_LIBRARIES = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX", "jaxlib": "JAX",
              "autograd": "autograd", "dask": "Dask", "cupy": "CuPy",
              "array_api_strict": "array-api-strict"}


def check_libraries(who: str, args: tuple[Any, ...], allowed: frozenset[str], hint: str) -> None:
    """TypeError naming the argument when an argument (or an element of a
    list or tuple argument) is an array of another library than `allowed`
    (top-level module names): never a silently lost derivative."""
    for i, a in enumerate(args):
        for e in (a if type(a) in (list, tuple) else (a,)):
            root = type(e).__module__.split(".")[0]
            if root in _LIBRARIES and root not in allowed and hasattr(e, "shape"):
                raise TypeError(f"{who}: argument {i} is a {_LIBRARIES[root]} array "
                                f"({type(e).__qualname__}); {hint}")


def wrap_name(wrapper: Any, engine: str, f: Any) -> None:
    """Name the wrapped function after f."""
    wrapper.__name__ = getattr(f, "__name__", "f")
    wrapper.__qualname__ = f"{engine}({name_of(f)})"
    wrapper.__doc__ = f"{name_of(f)} with its derivatives from chainrules' rules ({engine})."
    wrapper.__wrapped__ = f


def is_host_only(f: Any) -> bool:
    """True for the functions whose rules compute with NumPy/SciPy only
    (scipy.special, the methods of scipy.stats' distributions, frozen or
    not): their adapters run them on the host, first order."""
    special = sys.modules.get("scipy.special")
    name = getattr(f, "__name__", None)
    if special is not None and isinstance(name, str) and getattr(special, name, None) is f:
        return True
    owner = getattr(f, "__self__", None)
    return owner is not None and (type(owner).__module__ or "").startswith("scipy.stats.")


# NumPy's names whose rules the array API registers under the standard's name
_ALIASES = {"concatenate": "concat", "transpose": "permute_dims", "power": "pow",
            "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
            "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}


def resolve(f: Any, namespaces: list[Any]) -> Any:
    """The function whose rule runs on an engine's arrays: for a NumPy
    function (`np.sin`, `np.linalg.solve`), the function of the same name of
    the first namespace that has one (`jax.numpy.sin`); any other f itself."""
    name = getattr(f, "__name__", None)
    if not isinstance(name, str):
        return f
    linalg = getattr(np, "linalg")
    if getattr(np, name, None) is f:
        # NumPy's name first, then the names of its element-wise row (np.degrees is
        # torch's rad2deg, np.rint its round): the engine's function, any order
        row = row_for_numpy_name(name)
        for names in ((name, _ALIASES.get(name)), (row.name,) + tuple(row.numpy) if row else ()):
            for ns in namespaces:
                for n in names:
                    g = getattr(ns, n, None) if n else None
                    if callable(g) and any(_rules_of(g)):
                        return g
    elif getattr(linalg, name, None) is f:
        for ns in namespaces:
            g = getattr(getattr(ns, "linalg", None), name, None)
            if callable(g):
                return g
    return f


def _structured_to_cr(t: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(t, tuple) and not hasattr(t, "shape"):
        return Tangent[type(t)](*[_structured_to_cr(e, leaf) for e in t])  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time
    if isinstance(t, list):
        return [_structured_to_cr(e, leaf) for e in t]
    if isinstance(t, dict):
        return {k: _structured_to_cr(v, leaf) for k, v in t.items()}
    return leaf(t)


def to_cr(t: Any, leaf: Callable[[Any], Any]) -> Any:
    """An engine's tangent (a pytree of its arrays) as a chainrules tangent;
    `leaf(x)` converts one leaf (returning ZeroTangent() for the engine's
    zeros)."""
    return _structured_to_cr(t, leaf)


def from_cr(t: Any, primal: Any, zeros: Callable[[Any], Any], leaf: Callable[[Any, Any], Any],
            who: str) -> Any:
    """A chainrules tangent of `primal` as the engine's: thunks evaluated,
    zeros as `zeros(primal)`, structural tangents as their backing, each array
    through `leaf(t, primal)`."""
    t = unthunk(t)
    if isinstance(t, NotImplementedTangent):
        raise NotImplementedTangentError(f"{who}: the rule says this derivative is not implemented "
                                         f"({t.info})")
    if isinstance(t, AbstractZero):
        if isinstance(primal, (tuple, list)):
            return _same_sequence(primal, [from_cr(ZERO, p, zeros, leaf, who) for p in primal])
        return zeros(primal)
    if isinstance(t, StructuralTangent):
        t = t.backing
    if isinstance(primal, (tuple, list)) and isinstance(t, (tuple, list)):
        return _same_sequence(primal, [from_cr(e, p, zeros, leaf, who) for e, p in zip(t, primal)])
    if isinstance(primal, dict) and isinstance(t, dict):
        return {k: from_cr(t.get(k, ZERO), p, zeros, leaf, who) for k, p in primal.items()}
    return leaf(t, primal)


def _same_sequence(primal: Any, items: list[Any]) -> Any:
    """items as a sequence of primal's type (a namedtuple, such as
    `slogdet`'s result, takes its fields one by one)."""
    return type(primal)(*items) if hasattr(primal, "_fields") else type(primal)(items)


class Leaves:
    """The arguments of a call split into leaves the engine differentiates
    (`is_leaf(x)`) and the rest, kept as they are: `values` are the leaves,
    `rebuild(values)` the arguments again.  Lists, tuples and dicts are
    searched (`np.stack([x, y])`, `functools.reduce(f, [x, y, z])`)."""

    def __init__(self, args: tuple[Any, ...], is_leaf: Callable[[Any], bool]) -> None:
        self.values: list[Any] = []
        self.args = args
        self._is_leaf = is_leaf
        self._spec = self._flatten(args)

    def _flatten(self, x: Any) -> Any:
        if self._is_leaf(x):
            self.values.append(x)
            return ("leaf", len(self.values) - 1)
        if type(x) in (tuple, list):
            return (type(x), [self._flatten(e) for e in x])
        if type(x) is dict:
            return (dict, {k: self._flatten(v) for k, v in x.items()})
        return ("const", x)

    def _build(self, spec: Any, values: Any) -> Any:
        kind, body = spec
        if kind == "leaf":
            return values[body]
        if kind == "const":
            return body
        if kind is dict:
            return {k: self._build(v, values) for k, v in body.items()}
        return kind(self._build(e, values) for e in body)

    def skeleton(self) -> "Leaves":
        """The same structure without the values (to be kept for later calls
        with the same structure: rebuild, tangents and cotangents need only it)."""
        other = object.__new__(Leaves)
        other.values, other.args, other._is_leaf, other._spec = [], (), self._is_leaf, self._spec
        return other

    def rebuild(self, values: Any) -> tuple[Any, ...]:
        """The arguments with the leaves replaced by `values`."""
        return tuple(self._build(self._spec, values))

    def tangents(self, leaf_tangents: Any) -> tuple[Any, ...]:
        """One chainrules tangent per argument from one per leaf: NoTangent()
        for what is not a leaf, the structure (Tangent[tuple], list, dict)
        around the leaves."""
        def build(spec: Any) -> Any:
            kind, body = spec
            if kind == "leaf":
                return leaf_tangents[body]
            if kind == "const":
                return NO
            if kind is dict:
                return {k: build(v) for k, v in body.items()}
            parts = [build(e) for e in body]
            if kind is list:
                return parts
            return Tangent[tuple](*parts)  # type: ignore[type-arg]  # the tangent of any tuple
        return tuple(build(s) for s in self._spec[1])

    def cotangents(self, grads: tuple[Any, ...], leaf: Callable[[Any, Any], Any],
                   values: Any = None, needed: Any = None) -> list[Any]:
        """One engine cotangent per leaf from chainrules' per-argument
        cotangents (∂self dropped): `leaf(cotangent, primal)` converts each;
        the primals are `values` (default: the leaves split off).  Leaves
        not `needed` (a bool per leaf) get None, unconverted: a cotangent the
        engine does not ask for may be a NotImplementedTangent."""
        primals = self.values if values is None else list(values)
        out: list[Any] = [None] * len(primals)
        skip = [False] * len(primals) if needed is None else [not n for n in needed]

        def walk(spec: Any, g: Any) -> None:
            kind, body = spec
            g = unthunk(g)
            if kind == "leaf":
                if not skip[body]:
                    out[body] = leaf(g, primals[body])
            elif kind != "const":
                if isinstance(g, StructuralTangent):
                    g = g.backing
                items = body.items() if kind is dict else enumerate(body)
                for k, s in items:
                    walk(s, ZERO if isinstance(g, AbstractZero) else g[k])
        for s, g in zip(self._spec[1], grads):
            walk(s, g)
        return out


def row_rules(g: Any) -> Any:
    """g's rules (`_rules_of(g)`) when they are one frule and one rrule, for
    every config, made from a unary row of the element-wise table (they
    carry its `RealUnary` as `real_rule`): the adapters' fast paths, checked
    on each call by `same_rules`; else None."""
    rules = _rules_of(g)
    fr, rr = rules
    if len(fr) != 1 or len(rr) != 1 or fr[0].config is not None or rr[0].config is not None:
        return None
    real = getattr(rr[0].fn, "real_rule", None)
    if real is None or getattr(fr[0].fn, "real_rule", None) is not real:
        return None
    return rules


def same_rules(g: Any, rules: Any) -> bool:
    """The rule table still holds `rules` (row_rules(g)) for g, and debug mode
    (which checks the rules' contracts on the generic path) is off."""
    now = _rules_of(g)
    return now[0] is rules[0] and now[1] is rules[1] and not _debug._on


def frule_or_raise(engine: str, f: Any, g: Any, config: Any, tangents: tuple[Any, ...],
                   args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """`frule(config, (NoTangent(), *tangents), g, *args, **kwargs)`, or the
    TypeError naming f and the argument types."""
    res = frule(config, (NO,) + tuple(tangents), g, *args, **kwargs)
    if res is None:
        raise no_rule_error(engine, f, g, args, kwargs, "frule")
    return res


def rrule_or_raise(engine: str, f: Any, g: Any, config: Any, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """`rrule(config, g, *args, **kwargs)`, or the TypeError naming f."""
    res = rrule(config, g, *args, **kwargs)
    if res is None:
        raise no_rule_error(engine, f, g, args, kwargs, "rrule")
    return res
