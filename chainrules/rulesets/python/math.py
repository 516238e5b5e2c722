"""Hand-written rules of `math`: the functions that are not a row of the C
scalar table because they take any number of arguments or a sequence (hypot,
dist, fsum, prod, sumprod) or return several outputs (modf, frexp).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tangent,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.python._common import (
    NO,
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
    _conj,
)


# =============================================================================
# math
# =============================================================================

# ----- math.hypot (n-ary) ----------------------------------------------------
# hypot(x, y) and hypot(x) are rows of the C table; this rule serves the other
# arities.  ∂Ω/∂xᵢ = xᵢ/Ω, zeros at the origin (ChainRules' hypot convention).

def _hypot_partials(xs: Any, Ω: Any) -> Any:
    n = Ω if Ω != 0 else 1.0
    return [float(x) / n for x in xs]


@register_frule(math.hypot)
def hypot_frule(tangents: Any, *xs: Any) -> tuple[Any, Any] | None:
    if not _numbers(xs, real=True):
        return None
    Ω = math.hypot(*xs)
    return Ω, ProjectTo(Ω)(_dot(_hypot_partials(xs, Ω), tangents[1:]))


@register_rrule(math.hypot)
def hypot_rrule(*xs: Any) -> tuple[Any, Pullback] | None:
    if not _numbers(xs, real=True):
        return None
    Ω = math.hypot(*xs)
    partials = _hypot_partials(xs, Ω)
    projectors = [ProjectTo(x) for x in xs]

    def hypot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _real_part(_scalar(ȳ, "math.hypot"))
        return (NO,) + tuple(p(d * ȳ) for p, d in zip(projectors, partials))
    return Ω, hypot_pullback


# ----- math.dist(p, q) = hypot(p - q) ---------------------------------------

def _dist_partials(p: Any, q: Any, Ω: Any) -> Any:
    n = Ω if Ω != 0 else 1.0
    return [(float(a) - float(b)) / n for a, b in zip(p, q)]


def _dist_ok(p: Any, q: Any) -> Any:
    # lengths are the primal's to check (ValueError)
    return _is_sequence(p) and _is_sequence(q) and \
        _numbers(list(p), real=True) and _numbers(list(q), real=True)


@register_frule(math.dist)
def dist_frule(tangents: Any, p: Any, q: Any) -> tuple[Any, Any] | None:
    if not _dist_ok(p, q):
        return None
    Ω = math.dist(p, q)
    d = _dist_partials(p, q, Ω)
    return Ω, ProjectTo(Ω)(_dot(d, _elements(tangents[1], len(p))) -
                           _dot(d, _elements(tangents[2], len(q))))


@register_rrule(math.dist)
def dist_rrule(p: Any, q: Any) -> tuple[Any, Pullback] | None:
    if not _dist_ok(p, q):
        return None
    Ω = math.dist(p, q)
    d = _dist_partials(p, q, Ω)

    def dist_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "math.dist")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        ȳ = _real_part(ȳ)
        return NO, _project_seq(p, [di * ȳ for di in d]), _project_seq(q, [-di * ȳ for di in d])
    return Ω, dist_pullback


# ----- math.fsum(iterable): every element's partial is 1 ---------------------

@register_frule(math.fsum)
def fsum_frule(tangents: Any, xs: Any) -> tuple[Any, Any] | None:
    if not (_is_sequence(xs) and _numbers(list(xs), real=True)):
        return None
    Ω = math.fsum(xs)
    ts = _elements(tangents[1], len(xs))
    if all(isinstance(unthunk(t), AbstractZero) for t in ts):
        return Ω, _dot([], [])
    return Ω, math.fsum(0.0 if isinstance(t, AbstractZero) else float(unthunk(t)) for t in ts)


@register_rrule(math.fsum)
def fsum_rrule(xs: Any) -> tuple[Any, Pullback] | None:
    if not (_is_sequence(xs) and _numbers(list(xs), real=True)):
        return None
    Ω = math.fsum(xs)

    def fsum_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "math.fsum")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, _project_seq(xs, [_real_part(ȳ)] * len(xs))
    return Ω, fsum_pullback


# ----- math.prod(iterable, *, start=1) ---------------------------------------
# ∂Ω/∂xᵢ = start·Π_{j≠i} xⱼ, from prefix and suffix products: exact with one
# or several zeros (no division by xᵢ).

def _prod_partials(xs: Any, start: Any) -> Any:
    n = len(xs)
    prefix = [start] * (n + 1)
    for i, x in enumerate(xs):
        prefix[i + 1] = prefix[i] * x
    partials = [None] * n
    suffix = 1
    for i in range(n - 1, -1, -1):
        partials[i] = prefix[i] * suffix
        suffix = suffix * xs[i]
    return partials


def _prod_ok(xs: Any, start: Any) -> Any:
    return _is_sequence(xs) and _numbers(list(xs)) and _is_number(start)


@register_frule(math.prod)
def prod_frule(tangents: Any, xs: Any, *, start: Any = 1) -> tuple[Any, Any] | None:
    if not _prod_ok(xs, start):
        return None
    xs_ = list(xs)
    Ω = math.prod(xs, start=start)
    partials = _prod_partials(xs_, start)
    return Ω, ProjectTo(Ω)(_dot(partials, _elements(tangents[1], len(xs_))))


@register_rrule(math.prod)
def prod_rrule(xs: Any, *, start: Any = 1) -> tuple[Any, Pullback] | None:
    if not _prod_ok(xs, start):
        return None
    xs_ = list(xs)
    Ω = math.prod(xs, start=start)
    partials = _prod_partials(xs_, start)

    def prod_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "math.prod")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, _project_seq(xs, [_conj(d) * ȳ for d in partials])
    return Ω, prod_pullback


# ----- math.sumprod(p, q) (Python 3.12+): Σ pᵢqᵢ ------------------------------

if hasattr(math, "sumprod"):
    def _sumprod_ok(p: Any, q: Any) -> Any:
        return _is_sequence(p) and _is_sequence(q) and len(p) == len(q) and \
            _numbers(list(p)) and _numbers(list(q))

    @register_frule(math.sumprod)
    def sumprod_frule(tangents: Any, p: Any, q: Any) -> tuple[Any, Any] | None:
        if not _sumprod_ok(p, q):
            return None
        Ω = math.sumprod(p, q)  # type: ignore[attr-defined]  # Python 3.12+ (checked as 3.11)
        return Ω, ProjectTo(Ω)(_dot(list(q), _elements(tangents[1], len(p))) +
                               _dot(list(p), _elements(tangents[2], len(q))))

    @register_rrule(math.sumprod)
    def sumprod_rrule(p: Any, q: Any) -> tuple[Any, Pullback] | None:
        if not _sumprod_ok(p, q):
            return None
        Ω = math.sumprod(p, q)  # type: ignore[attr-defined]  # Python 3.12+ (checked as 3.11)

        def sumprod_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = _scalar(ȳ, "math.sumprod")
            if isinstance(ȳ, AbstractZero):
                return NO, ȳ, ȳ
            return (NO, _project_seq(p, [_conj(b) * ȳ for b in q]),
                    _project_seq(q, [_conj(a) * ȳ for a in p]))
        return Ω, sumprod_pullback


# ----- math.modf(x) -> (fractional part, integer part) -----------------------
# The fractional part moves with x (partial 1), the integer part is piecewise
# constant (a numeric zero, as for the rounding functions).

@register_frule(math.modf)
def modf_frule(tangents: Any, x: Any) -> tuple[Any, Any] | None:
    if not _is_real(x):
        return None
    Ω = math.modf(x)
    Δx = unthunk(tangents[1])
    if isinstance(Δx, AbstractZero):
        return Ω, Tangent[tuple](Δx, Δx)  # type: ignore[type-arg]
    return Ω, Tangent[tuple](float(_real_part(Δx)), 0.0)  # type: ignore[type-arg]


@register_rrule(math.modf)
def modf_rrule(x: Any) -> tuple[Any, Pullback] | None:
    if not _is_real(x):
        return None
    project_x = ProjectTo(x)

    def modf_pullback(ȳ: Any) -> tuple[Any, ...]:
        Δfrac, _ = _outputs(ȳ, 2, "math.modf")
        return NO, project_x(Δfrac)
    return math.modf(x), modf_pullback


# ----- math.frexp(x) -> (m, e) with x = m·2**e -------------------------------
# m = x·2**-e moves with x (partial 2**-e); the int e has no tangent.

@register_frule(math.frexp)
def frexp_frule(tangents: Any, x: Any) -> tuple[Any, Any] | None:
    if not _is_real(x):
        return None
    m, e = Ω = math.frexp(x)
    Δx = unthunk(tangents[1])
    if isinstance(Δx, AbstractZero):
        return Ω, Tangent[tuple](Δx, NO)  # type: ignore[type-arg]
    return Ω, Tangent[tuple](math.ldexp(float(_real_part(Δx)), -e), NO)  # type: ignore[type-arg]


@register_rrule(math.frexp)
def frexp_rrule(x: Any) -> tuple[Any, Pullback] | None:
    if not _is_real(x):
        return None
    m, e = Ω = math.frexp(x)
    project_x = ProjectTo(x)

    def frexp_pullback(ȳ: Any) -> tuple[Any, ...]:
        Δm, _ = _outputs(ȳ, 2, "math.frexp")
        if isinstance(Δm, AbstractZero):
            return NO, Δm
        return NO, project_x(math.ldexp(1.0, -e) * _real_part(Δm))
    return Ω, frexp_pullback
