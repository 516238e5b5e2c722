"""Routing of the reference AD (chainrules.ad): the rules that its tracked
values need, registered when chainrules.ad is imported.

A rule evaluated inside a nested differentiation (a Hessian, a derivative of
a derivative) receives values tracked by the enclosing differentiation.  The
rules written with operators and NumPy functions on their arguments take them
as they are; those whose NumPy rule converts with `np.asarray` or runs
compiled kernels cannot.  For those the generic bodies (the element-wise
table's rows, the array-API bodies, which compute with `xp = namespace(x)`:
NumPy itself for a tracked NumPy value, whose functions reach the engines
through `__array_function__`) are registered on the function where an
argument is tracked: more specific than the NumPy rule, they are the ones
found; plain ndarrays and numbers keep the NumPy rules and their compiled
fast paths.  The rule sets themselves name no AD type.

- `register_numpy_on_tracked`: NumPy's own ufuncs (np.sin, np.multiply, …),
  by the table's generic bodies;
- `register_scalars_on_tracked`: Python's scalar functions with a row of the
  C scalar table (math.sin, cmath.acosh, operator.mul, abs, max, …);
- `register_getitem_on_tracked`: operator.getitem, by the array-API rule.
(NumPy's reductions, shape functions, sort, clip, take, matmul, the @
operator and tensordot need none: their one rule is the array-API body,
registered on NumPy's function for any argument, rulesets/numpy/.)
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import cmath
import math
import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    NoTangent,
    ZeroTangent,
    _scalar_rows,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules._xp import through_engines
from chainrules.rulesets._arrays import named_rule
from chainrules.rulesets.array_api import shapes
from chainrules.rulesets.elementwise import TABLE
from chainrules.rulesets.elementwise.interop import NUMPY_OWN, scalar_row
from chainrules.rulesets.elementwise.rules import register_row, rules_for

__all__ = ["register_numpy_on_tracked", "NUMPY_ON_TRACKED", "register_scalars_on_tracked",
           "SCALARS_ON_TRACKED", "register_getitem_on_tracked"]

# ----- NumPy's own ufuncs: the element-wise table's generic bodies ---------------------

NUMPY_ON_TRACKED: set[Any] = set()


def register_numpy_on_tracked(*tracked_types: type) -> None:
    """Register the table's rules for NumPy's own ufuncs (np.sin, np.arccosh,
    np.multiply…) where an argument is one of `tracked_types` (chainrules.ad's
    Dual and Var): a rule evaluated inside a nested differentiation runs the
    table's generic body, which the enclosing differentiation differentiates
    (second and higher derivatives through the rules).  Plain ndarrays and
    numbers keep the NumPy rules and their compiled fast paths."""
    for row in TABLE.values():
        for n in dict.fromkeys((row.name,) + row.numpy):
            f = getattr(np, n, None)
            if not isinstance(f, np.ufunc) or f.nin != row.arity:
                continue
            for t in tracked_types:
                if row.arity == 1:
                    register_row(f, row, t, name=f"numpy.{n}")
                else:
                    register_row(f, row, t, object, name=f"numpy.{n}")
                    register_row(f, row, object, t, name=f"numpy.{n}")
            NUMPY_ON_TRACKED.add(f)


# ----- Python's scalar functions: the table's generic bodies ---------------------------

SCALARS_ON_TRACKED: set[Any] = set()


def _by_arity(rules: Any) -> Any:
    """One frule and one rrule for a scalar function called with 1 or 2
    arguments (math.log(x) and math.log(x, base), math.hypot(x, y) but not
    math.hypot(x, y, z)): the rules of that arity, None (declined) for another."""
    frules = {n: fr for n, (fr, rr) in rules.items()}
    rrules = {n: rr for n, (fr, rr) in rules.items()}

    def scalar_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        fr = frules.get(len(args))
        return None if fr is None else fr(tangents, *args, **kwargs)

    def scalar_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        rr = rrules.get(len(args))
        return None if rr is None else rr(*args, **kwargs)
    return scalar_frule, scalar_rrule


def _log_base_rules(f: Any) -> Any:
    """log(x, base) = log(x)/log(base), on tracked values (no table row: not
    an element-wise function of the standard)."""
    log = through_engines(f)

    def log_base_frule(tangents: Any, x: Any, b: Any) -> tuple[Any, Any]:
        Ω = log(x, b)
        Δx, Δb = unthunk(tangents[1]), unthunk(tangents[2])
        lb = log(b)
        ΔΩ = ZeroTangent()
        if not isinstance(Δx, AbstractZero):
            ΔΩ = Δx / (x * lb)
        if not isinstance(Δb, AbstractZero):
            t = -Δb * Ω / (b * lb)
            ΔΩ = t if isinstance(ΔΩ, AbstractZero) else ΔΩ + t
        return Ω, ΔΩ

    def log_base_rrule(x: Any, b: Any) -> tuple[Any, Pullback]:
        Ω = log(x, b)

        def log_base_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ZeroTangent(), ZeroTangent()
            lb = log(b)
            dx, db = 1 / (x * lb), -Ω / (b * lb)
            if f is cmath.log:
                dx, db = dx.conjugate(), db.conjugate()
            return NoTangent(), ȳ * dx, ȳ * db
        return Ω, log_base_pullback
    return log_base_frule, log_base_rrule


def register_scalars_on_tracked(*tracked_types: type) -> None:
    """Register the table's rules for Python's scalar functions that have a
    row of the C scalar table (math.sin, cmath.acosh, operator.mul, abs, max…)
    where an argument is one of `tracked_types` (chainrules.ad's Dual and
    Var): inside a nested differentiation the C kernels cannot take the
    tracked values, and the table's generic body, which the enclosing
    differentiation differentiates, runs instead (as for NumPy's ufuncs)."""
    for f, c_row in _scalar_rows().items():
        if isinstance(f, np.ufunc) or f in NUMPY_OWN:
            continue
        rules = {}
        for n in c_row.arities:
            row = scalar_row(f, n)
            if row is not None:
                rules[n] = rules_for(f, row, name=f"{getattr(f, '__module__', '') or ''}.{f.__name__}".lstrip("._"),
                                     python_scalars=True)
            elif n == 2 and f in (math.log, cmath.log):
                rules[n] = _log_base_rules(f)
        if not rules:
            continue
        fr, rr = _by_arity(rules)
        for t in tracked_types:
            signatures = ([(t,)] if 1 in rules else []) + ([(t, object), (object, t)] if 2 in rules else [])
            for types in signatures:
                register_frule(f, *types)(fr)
                register_rrule(f, *types)(rr)
        SCALARS_ON_TRACKED.add(f)


# ----- indexing: the array-API rule -------------------------------------------------------

def register_getitem_on_tracked(*tracked_types: type) -> None:
    """Register the indexing rules on `operator.getitem` where the array is
    one of `tracked_types` (chainrules.ad's Dual and Var): indexing inside a
    nested differentiation, differentiated by the enclosing one (NumPy's own
    getitem rule is registered for ndarrays)."""
    frule, rrule = shapes.getitem_rules(operator.getitem)
    frule, rrule = named_rule(frule, "getitem"), named_rule(rrule, "getitem")
    for t in tracked_types:
        register_frule(operator.getitem, t, object)(frule)
        register_rrule(operator.getitem, t, object)(rrule)
