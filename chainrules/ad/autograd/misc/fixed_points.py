"""fixed_point(f, a, x0, distance, tol): the fixed point x* = f(a)(x*) reached by
iterating f(a) from x0 until `distance(x, x_prev) <= tol`, differentiable in a
(autograd.misc.fixed_points' function, with its signature).

The derivative comes from the implicit function theorem, not from the
iterations: with g(a, x) = f(a)(x) and x* = g(a, x*),

    ẋ = (I − ∂ₓg)⁻¹ ∂ₐg·ȧ,     ā = (∂ₐg)ᵀ w,  w = (I − ∂ₓg)⁻ᵀ x̄,

each solved by the same kind of iteration (ẋ ← ∂ₓg·ẋ + ∂ₐg·ȧ, w ← x̄ + (∂ₓg)ᵀw,
from zero, until `distance` of two iterates is at most `tol`), with the
products of g's Jacobians from the calling engine (`frule_via_ad`,
`rrule_via_ad`): the rules serve chainrules.ad's forward and reverse modes,
and nest.  The fixed point is an array or a number; x0, distance and tol get
no tangent (the fixed point does not depend on where the iteration started).
The iteration must converge (f(a) a contraction near x*), as for the primal.
"""

from __future__ import annotations

from typing import Any, Callable

from chainrules._core import (AbstractZero, NoTangent, Wrapped, ZeroTangent, _ad_strip_all, frule_via_ad,
                              register_frule, register_rrule, rrule_via_ad, unthunk)

__all__ = ["fixed_point"]

_NO = NoTangent()
_MAX_ITERATIONS = 100_000


def _iterate(step: Callable[[Any], Any], x0: Any, distance: Callable[[Any, Any], Any], tol: Any,
             who: str) -> Any:
    x_prev, x = x0, step(x0)
    for _ in range(_MAX_ITERATIONS):
        # on the primal values: when to stop is no function to differentiate (under
        # nested differentiation the iterates are tracked by the enclosing one)
        if distance(_ad_strip_all(x), _ad_strip_all(x_prev)) <= tol:
            return x
        x_prev, x = x, step(x)
    raise RuntimeError(f"chainrules.ad.autograd.misc.fixed_points.fixed_point: the {who} iteration did not "
                       f"reach distance <= {tol!r} in {_MAX_ITERATIONS} steps")


def _fixed_point(f: Callable[[Any], Callable[[Any], Any]], a: Any, x0: Any,
                 distance: Callable[[Any, Any], Any], tol: Any) -> Any:
    return _iterate(f(a), x0, distance, tol, "fixed-point")


def _dense(t: Any, like: Any) -> Any:
    t = unthunk(t)
    return like * 0 if isinstance(t, AbstractZero) else t


@register_rrule(_fixed_point, config="reverse")
def _fixed_point_rrule(config: Any, f: Any, a: Any, x0: Any, distance: Any, tol: Any) -> tuple[Any, Any]:
    x_star = _fixed_point(f, a, x0, distance, tol)

    def fixed_point_pullback(x̄: Any) -> tuple[Any, ...]:
        x̄ = unthunk(x̄)
        if isinstance(x̄, AbstractZero):
            return _NO, _NO, ZeroTangent(), _NO, _NO, _NO
        _, pullback_x = rrule_via_ad(config, lambda x: f(a)(x), x_star)
        w = _iterate(lambda w: x̄ + _dense(pullback_x(w)[1], x̄), x̄ * 0, distance, tol, "adjoint")
        _, pullback_a = rrule_via_ad(config, lambda a_: f(a_)(x_star), a)
        return _NO, _NO, pullback_a(w)[1], _NO, _NO, _NO
    return x_star, fixed_point_pullback


@register_frule(_fixed_point, config="forward")
def _fixed_point_frule(config: Any, tangents: Any, f: Any, a: Any, x0: Any, distance: Any,
                       tol: Any) -> tuple[Any, Any]:
    x_star = _fixed_point(f, a, x0, distance, tol)
    ȧ = unthunk(tuple(tangents)[2])
    if isinstance(ȧ, AbstractZero):
        return x_star, ZeroTangent()
    b = _dense(frule_via_ad(config, (_NO, ȧ), lambda a_: f(a_)(x_star), a)[1], x_star)

    def step(ẋ: Any) -> Any:
        return _dense(frule_via_ad(config, (_NO, ẋ), lambda x: f(a)(x), x_star)[1], x_star) + b
    return x_star, _iterate(step, b * 0, distance, tol, "tangent")


_CALL = Wrapped(_fixed_point)


def fixed_point(f: Callable[[Any], Callable[[Any], Any]], a: Any, x0: Any,
                distance: Callable[[Any, Any], Any], tol: Any) -> Any:
    """x* = f(a)(x*), iterated from x0 until distance(x, x_prev) <= tol;
    differentiable in a (see the module docstring)."""
    return _CALL(f, a, x0, distance, tol)
