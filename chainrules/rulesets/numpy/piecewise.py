"""Rules for np.piecewise(x, condlist, funclist, *args, **kw) in x, and for
np.apply_over_axes(func, a, axes) in a: rules that call back into the AD (`frule_via_ad` / `rrule_via_ad`, as the rules of
`chainrules/rulesets/higher_order.py`) for each callable piece on the
elements where it applies (the last condition that holds wins, as in NumPy),
and in funclist's constant pieces (a number in place of a function).  The pieces are taken to act element by
element, as np.piecewise requires; args and keywords get no tangent.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import AbstractZero, Tangent, frule_via_ad, register_frule, register_rrule, rrule_via_ad, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, project_to, seed


def _regions(x: Any, condlist: Any, funclist: Any) -> Any:
    """(mask, piece) for each piece: where it decides the output."""
    shape = np.shape(x)
    if isinstance(condlist, np.ndarray) and condlist.dtype == bool and condlist.shape == shape:
        condlist = [condlist]
    conds = [np.broadcast_to(np.asarray(c, dtype=bool), shape) for c in condlist]
    if len(funclist) == len(conds) + 1:
        conds.append(~np.any(conds, axis=0) if conds else np.ones(shape, dtype=bool))
    elif len(funclist) != len(conds):
        raise ValueError(f"numpy.piecewise: {len(conds)} conditions and {len(funclist)} functions "
                         "(expected as many, or one more for the otherwise case)")
    taken = np.zeros(shape, dtype=bool)
    out = []
    for k, (cond, piece) in reversed(list(enumerate(zip(conds, funclist)))):
        mask = cond & ~taken
        taken = taken | cond
        out.append((k, mask, piece))
    return out[::-1]


def _piece_tangents(t: Any, n: int) -> Any:
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [ZERO] * n
    return [unthunk(v) for v in t]


@register_frule(np.piecewise, config="forward")
def piecewise_frule(config: Any, tangents: Any, x: Any, condlist: Any, funclist: Any, *args: Any,
                    **kw: Any) -> tuple[Any, Any]:
    Ω = np.piecewise(x, condlist, funclist, *args, **kw)
    ẋ = unthunk(tangents[1])
    ċ = _piece_tangents(tangents[3], len(funclist))
    if isinstance(ẋ, AbstractZero) and all(isinstance(v, AbstractZero) for v in ċ):
        return Ω, ZERO
    ẏ = np.zeros(np.shape(Ω), dtype=np.result_type(Ω, float))
    for k, mask, piece in _regions(x, condlist, funclist):
        if not callable(piece):
            if not isinstance(ċ[k], AbstractZero):
                ẏ[mask] = ċ[k]
        elif np.any(mask) and not isinstance(ẋ, AbstractZero):
            _, d = frule_via_ad(config, (NO, np.asarray(ẋ)[mask]) + (NO,) * len(args), piece,
                                np.asarray(x)[mask], *args, **kw)
            d = unthunk(d)
            if not isinstance(d, AbstractZero):
                ẏ[mask] = d
    return Ω, project_to(Ω)(ẏ)


@register_rrule(np.piecewise, config="reverse")
def piecewise_rrule(config: Any, x: Any, condlist: Any, funclist: Any, *args: Any,
                    **kw: Any) -> tuple[Any, Pullback]:
    Ω = np.piecewise(x, condlist, funclist, *args, **kw)
    px = project_to(x)
    regions = _regions(x, condlist, funclist)
    pullbacks = {k: rrule_via_ad(config, piece, np.asarray(x)[mask], *args, **kw)[1]
                 for k, mask, piece in regions if callable(piece) and np.any(mask)}
    constants = [project_to(piece) if not callable(piece) else None for piece in funclist]
    rest = (NO,) * len(args)

    def piecewise_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.piecewise")
        if isinstance(Ω̄, AbstractZero):
            return (NO, px(ZERO), NO, ZERO) + rest
        Ω̄ = np.broadcast_to(np.asarray(Ω̄), np.shape(Ω))
        x̄ = np.zeros(np.shape(x), dtype=np.result_type(Ω̄, float))
        c̄: list[Any] = [NO] * len(funclist)
        for k, mask, piece in regions:
            if k in pullbacks:
                g = unthunk(pullbacks[k](Ω̄[mask])[1])
                if not isinstance(g, AbstractZero):
                    x̄[mask] = g
            elif constants[k] is not None:
                c̄[k] = constants[k](np.sum(Ω̄[mask]))
        f̄ = Tangent[type(funclist)](*c̄) if any(not isinstance(v, AbstractZero) for v in c̄) else NO  # type: ignore[misc, operator]
        return (NO, px(x̄) if px.kind else NO, NO, f̄) + rest
    return Ω, piecewise_pullback


# ----- apply_over_axes(func, a, axes): NumPy's loop, differentiated by the calling AD ------------

def _over_axes(a: Any, *, func: Any, axes: Any) -> Any:
    """np.apply_over_axes' own loop (numpy/lib/_shape_base_impl.py), on values an AD tracks."""
    n = np.ndim(a)
    val = a
    for axis in ((axes,) if np.ndim(axes) == 0 else axes):
        axis = int(axis) % n if n else int(axis)
        res = func(val, axis)
        if np.ndim(res) != np.ndim(val):
            res = np.expand_dims(res, axis)
            if np.ndim(res) != np.ndim(val):
                raise ValueError("numpy.apply_over_axes: function is not returning an array of the correct shape")
        val = res
    return val


@register_frule(np.apply_over_axes, config="forward")
def apply_over_axes_frule(config: Any, tangents: Any, func: Any, a: Any, axes: Any) -> tuple[Any, Any]:
    Ω = np.apply_over_axes(func, a, axes)
    ȧ = unthunk(tangents[2])
    if isinstance(ȧ, AbstractZero):
        return Ω, ZERO
    _, ΔΩ = frule_via_ad(config, (NO, ȧ), _over_axes, a, func=func, axes=axes)
    return Ω, ΔΩ


@register_rrule(np.apply_over_axes, config="reverse")
def apply_over_axes_rrule(config: Any, func: Any, a: Any, axes: Any) -> tuple[Any, Pullback]:
    Ω = np.apply_over_axes(func, a, axes)
    _, pb = rrule_via_ad(config, _over_axes, a, func=func, axes=axes)

    def apply_over_axes_pullback(Ω̄: Any) -> tuple[Any, ...]:
        return NO, NO, pb(Ω̄)[1], NO
    return Ω, apply_over_axes_pullback
