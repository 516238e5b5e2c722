"""Hand-written rules of the builtins: max and min over several numbers or an
iterable, sum, divmod, round, and the conversions float and complex.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tangent,
    register_frule,
    register_rrule,
    unthunk,
    untraced,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.python._common import (
    NO,
    ZERO,
    _REAL,
    _is_real,
    _is_number,
    _numbers,
    _is_sequence,
    _elements,
    _outputs,
    _scalar,
    _dot,
    _project_seq,
    _real_part,
)


# =============================================================================
# builtins
# =============================================================================

# ----- max / min over several numbers or an iterable --------------------------
# max(x, y) of two numbers is a row of the C table (ChainRules' scalar rule:
# a tie sends the derivative to y for max, to x for min).  Here, n-ary and
# over a sequence: the derivative goes to the element Python returns, the
# first maximal (minimal) one (ChainRules' maximum/findmax); `key=` selects,
# `default=` is returned (with no tangent from the arguments) for an empty
# sequence.

_MISSING = object()


def _select(args: Any, op: Any, key: Any, default: Any) -> Any:
    """(index of the element max/min returns, the elements, is_sequence), or
    None when the rule does not apply (not numbers, not a sequence)."""
    if len(args) == 1:
        xs = args[0]
        if not _is_sequence(xs):
            return None
        seq = True
        xs = list(xs)
    elif len(args) >= 2:
        if default is not _MISSING:
            return None               # TypeError from the primal
        xs, seq = list(args), False
    else:
        return None
    if not _numbers(xs, real=True):
        return None
    if not xs:
        return -1, xs, seq
    best, best_k = 0, (xs[0] if key is None else key(xs[0]))
    for i in range(1, len(xs)):
        k = xs[i] if key is None else key(xs[i])
        if op(k, best_k):             # strict: the first extreme element wins, as in Python
            best, best_k = i, k
    return best, xs, seq


def _extreme_rules(f: Any, op: Any, name: str) -> Any:
    def extreme_frule(tangents: Any, *args: Any, key: Any = None, default: Any = _MISSING) -> tuple[Any, Any] | None:
        sel = _select(args, op, key, default)
        if sel is None:
            return None
        i, xs, seq = sel
        kw = {} if key is None else {"key": key}
        if default is not _MISSING:
            kw["default"] = default
        Ω = f(*args, **kw)
        if i < 0:
            return Ω, ZERO                # the default: it does not depend on the arguments
        ts = _elements(tangents[1], len(xs)) if seq else tangents[1:]
        Δ = unthunk(ts[i])
        return Ω, (Δ if isinstance(Δ, AbstractZero) else ProjectTo(Ω)(Δ))

    def extreme_rrule(*args: Any, key: Any = None, default: Any = _MISSING) -> tuple[Any, Pullback] | None:
        sel = _select(args, op, key, default)
        if sel is None:
            return None
        i, xs, seq = sel
        kw = {} if key is None else {"key": key}
        if default is not _MISSING:
            kw["default"] = default
        Ω = f(*args, **kw)
        projectors = [ProjectTo(x) for x in xs]

        def extreme_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = _scalar(ȳ, name)
            if i < 0 or isinstance(ȳ, AbstractZero):
                z = ZERO if i < 0 else ȳ
                return (NO, z) if seq else (NO,) + (z,) * len(xs)
            cts = [p(ȳ) if j == i else p(0.0) for j, p in enumerate(projectors)]
            if seq:
                return NO, _project_seq(args[0], cts)
            return (NO,) + tuple(cts)
        extreme_pullback.__name__ = extreme_pullback.__qualname__ = f"{name}_pullback"
        return Ω, extreme_pullback

    extreme_frule.__name__ = extreme_frule.__qualname__ = f"{name}_frule"
    extreme_rrule.__name__ = extreme_rrule.__qualname__ = f"{name}_rrule"
    register_frule(f)(extreme_frule)
    register_rrule(f)(extreme_rrule)
    return extreme_frule, extreme_rrule


max_frule, max_rrule = _extreme_rules(builtins.max, operator.gt, "max")
min_frule, min_rrule = _extreme_rules(builtins.min, operator.lt, "min")


# ----- sum(iterable, start=0): every element's partial is 1 ------------------
# `start` given positionally gets a tangent, given as a keyword none.

def _sum_args(xs: Any, rest: Any, start: Any) -> Any:
    """(start, its position) or None when the rule does not apply."""
    if rest and start is not _MISSING or len(rest) > 1:
        return None                   # TypeError from the primal
    s = rest[0] if rest else (0 if start is _MISSING else start)
    if not (_is_sequence(xs) and _numbers(list(xs)) and _is_number(s)):
        return None
    return s


@register_frule(builtins.sum)
def sum_frule(tangents: Any, xs: Any, *rest: Any, start: Any = _MISSING) -> tuple[Any, Any] | None:
    s = _sum_args(xs, rest, start)
    if s is None:
        return None
    Ω = builtins.sum(xs, s)
    acc = _dot([1.0] * len(xs), _elements(tangents[1], len(xs)))
    if rest:
        acc = acc + unthunk(tangents[2])
    return Ω, (acc if isinstance(acc, AbstractZero) else ProjectTo(Ω)(acc))


@register_rrule(builtins.sum)
def sum_rrule(xs: Any, *rest: Any, start: Any = _MISSING) -> tuple[Any, Pullback] | None:
    s = _sum_args(xs, rest, start)
    if s is None:
        return None
    Ω = builtins.sum(xs, s)
    project_start = ProjectTo(s)

    def sum_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "sum")
        if isinstance(ȳ, AbstractZero):
            return (NO, ȳ) + (ȳ,) * len(rest)
        x̄s = _project_seq(xs, [ȳ] * len(xs))
        return (NO, x̄s, project_start(ȳ)) if rest else (NO, x̄s)
    return Ω, sum_pullback


# ----- divmod(x, y) -> (x // y, x % y) -------------------------------------------
# The quotient is piecewise constant (zeros); the remainder follows
# ChainRules' mod: (1, -floor(x/y)), NaN at integer quotients.

def _mod_partials(x: Any, y: Any) -> Any:
    u = float(x) / float(y)
    if math.isfinite(u) and u == math.floor(u):
        return math.nan, math.nan
    return 1.0, -math.floor(u)


@register_frule(builtins.divmod)
def divmod_frule(tangents: Any, x: Any, y: Any) -> tuple[Any, Any] | None:
    if not (_is_real(x) and _is_real(y)):
        return None
    q, r = Ω = divmod(x, y)           # y = 0: the primal's ZeroDivisionError
    Δx, Δy = unthunk(tangents[1]), unthunk(tangents[2])
    Δr = _dot(_mod_partials(x, y), (Δx, Δy))
    if isinstance(Δr, AbstractZero):
        return Ω, Tangent[tuple](Δr, Δr)  # type: ignore[type-arg]
    return Ω, Tangent[tuple](ProjectTo(q)(0.0), ProjectTo(r)(Δr))  # type: ignore[type-arg]


@register_rrule(builtins.divmod)
def divmod_rrule(x: Any, y: Any) -> tuple[Any, Pullback] | None:
    if not (_is_real(x) and _is_real(y)):
        return None
    Ω = divmod(x, y)
    dx, dy = _mod_partials(x, y)
    project_x, project_y = ProjectTo(x), ProjectTo(y)

    def divmod_pullback(ȳ: Any) -> tuple[Any, ...]:
        _, Δr = _outputs(ȳ, 2, "divmod")
        Δr = _real_part(Δr)
        if isinstance(Δr, AbstractZero):
            return NO, Δr, Δr
        return NO, project_x(dx * Δr), project_y(dy * Δr)
    return Ω, divmod_pullback


# ----- round(x[, ndigits]) -------------------------------------------------------
# Piecewise constant: a numeric zero for x (ChainRules: round, floor, ceil
# give zero(x)); ndigits is an integer with no tangent.  A real number tracked
# by an enclosing differentiation (the rule differentiated) is a real number
# too: its zero is a constant, whatever order.

def _round_ok(x: Any, rest: Any) -> Any:
    return _is_real(untraced(x)) and len(rest) <= 1 and \
        (not rest or rest[0] is None or isinstance(rest[0], int))


@register_frule(builtins.round)
def round_frule(tangents: Any, x: Any, *rest: Any) -> tuple[Any, Any] | None:
    if not _round_ok(x, rest):
        return None
    Ω = round(x, *rest)
    Δx = unthunk(tangents[1])
    return Ω, (Δx if isinstance(Δx, AbstractZero) else ProjectTo(Ω)(0.0))


@register_rrule(builtins.round)
def round_rrule(x: Any, *rest: Any) -> tuple[Any, Pullback] | None:
    if not _round_ok(x, rest):
        return None
    project_x = ProjectTo(x)

    def round_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "round")
        x̄ = ȳ if isinstance(ȳ, AbstractZero) else project_x(0.0)
        return (NO, x̄) + (NO,) * len(rest)
    return round(x, *rest), round_pullback


# ----- float(x), complex(x), complex(x, y) --------------------------------------
# Conversions of numbers: the identity on the value (float of a NumPy scalar
# keeps the cotangent in the argument's precision); strings are
# non-differentiable (nondiff.py).

@register_frule(float, _REAL)
def float_frule(tangents: Any, x: Any) -> tuple[Any, Any] | None:
    if not _is_real(x):
        return None
    Δx = unthunk(tangents[1])
    return float(x), ProjectTo(0.0)(Δx)      # zeros pass through the projector


@register_rrule(float, _REAL)
def float_rrule(x: Any) -> tuple[Any, Pullback] | None:
    if not _is_real(x):
        return None
    project_x = ProjectTo(x)

    def float_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "float")
        return NO, project_x(ȳ)             # zeros pass through the projector
    return float(x), float_pullback


@register_frule(complex, (int, float, complex, np.number))
def complex_frule(tangents: Any, x: Any) -> tuple[Any, Any] | None:
    if not _is_number(x):
        return None
    Δx = unthunk(tangents[1])
    return complex(x), (Δx if isinstance(Δx, AbstractZero) else complex(Δx))


@register_rrule(complex, (int, float, complex, np.number))
def complex_rrule(x: Any) -> tuple[Any, Pullback] | None:
    if not _is_number(x):
        return None
    project_x = ProjectTo(x)

    def complex_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "complex")
        return NO, project_x(ȳ)             # zeros pass through the projector
    return complex(x), complex_pullback


@register_frule(complex, _REAL, _REAL)
def complex2_frule(tangents: Any, x: Any, y: Any) -> tuple[Any, Any] | None:
    """complex(x, y) = x + iy for real x, y."""
    if not (_is_real(x) and _is_real(y)):
        return None
    Δ = _dot([1.0, 1j], [_real_part(unthunk(t)) for t in tangents[1:]])
    return complex(x, y), (Δ if isinstance(Δ, AbstractZero) else complex(Δ))


@register_rrule(complex, _REAL, _REAL)
def complex2_rrule(x: Any, y: Any) -> tuple[Any, Pullback] | None:
    if not (_is_real(x) and _is_real(y)):
        return None
    project_x, project_y = ProjectTo(x), ProjectTo(y)

    def complex_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "complex")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        ȳ = complex(ȳ)
        return NO, project_x(ȳ.real), project_y(ȳ.imag)
    return complex(x, y), complex_pullback
