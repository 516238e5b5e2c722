"""The rule of `__getitem__` of every array type, computed with the
namespace of its argument (array_api/shapes.py re-exports it).

Indexing is linear in the array: the frule indexes the tangent, the pullback
puts ȳ back at the selected places.  The standard has no scatter, so:
- basic indexing (ints, slices, None, Ellipsis): ȳ padded with zeros along
  each axis (`concat`; a step k interleaves k - 1 zeros), no copy of x's size
  beyond the result;
- any other index (integer arrays, booleans): the flat positions the index
  selects from `arange`, then a scatter-add, so repeated indices add up.
The index gets NoTangent.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

from chainrules._protocols import Pullback
from chainrules._xp import scatter_add, through_engines
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    along,
    as_seed,
    cast,
    device_kw,
    is_zero,
    mark_registered,
    namespace,
    size_of,
    zeros,
)

__all__ = ["getitem_rules", "register_getitem"]


# ----- __getitem__ ------------------------------------------------------------------------------------

def _basic_plan(idx: Any, shape: Any) -> Any:
    """For a basic index (ints, slices, None, Ellipsis): a list with one
    entry per entry of the expanded index, ("none",), ("int", i) or
    ("slice", start, step, m), or None for any other index."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    entries: list[Any] = []
    for e in idx:
        if e is None or e is Ellipsis or isinstance(e, slice):
            entries.append(e)
        elif isinstance(e, bool):
            return None
        else:
            try:
                entries.append(operator.index(e))
            except TypeError:
                return None
    consumed = sum(1 for e in entries if e is not None and e is not Ellipsis)
    if sum(1 for e in entries if e is Ellipsis) > 1 or consumed > len(shape):
        return None                         # the primal has raised already
    if Ellipsis in entries:
        k = entries.index(Ellipsis)
        entries[k:k + 1] = [slice(None)] * (len(shape) - consumed)
    else:
        entries += [slice(None)] * (len(shape) - consumed)
    plan: list[tuple[Any, ...]]
    plan, axis = [], 0
    for e in entries:
        if e is None:
            plan.append(("none",))
            continue
        n = shape[axis]
        if isinstance(e, slice):
            start, stop, step = e.indices(n)
            plan.append(("slice", start, step, len(range(start, stop, step)), n))
        else:
            plan.append(("int", e % n if n else e, 1, 1, n))
        axis += 1
    return plan


def _pad(xp: Any, g: Any, axis: Any, start: Any, step: Any, m: Any, n: int) -> Any:
    """The adjoint of taking elements start, start + step, … (m of them) of
    an axis of length n: g put at those places, zeros elsewhere."""
    if m == 0:
        shape = list(g.shape)
        shape[axis] = n
        return zeros(xp, shape, g)
    if step < 0:
        g = xp.flip(g, axis=axis)
        start, step = start + (m - 1) * step, -step
    if step > 1:
        z = xp.zeros_like(g)
        g = xp.stack([g] + [z] * (step - 1), axis=axis + 1)
        shape = list(g.shape)
        shape[axis:axis + 2] = [m * step]
        g = xp.reshape(g, tuple(shape))[along(axis, slice(0, (m - 1) * step + 1))]
    length = (m - 1) * step + 1
    parts = []
    for k in (start, n - start - length):
        shape = list(g.shape)
        shape[axis] = k
        parts.append(zeros(xp, shape, g) if k else None)
    pieces = [p for p in (parts[0], g, parts[1]) if p is not None]
    return pieces[0] if len(pieces) == 1 else xp.concat(pieces, axis=axis)


def _basic_adjoint(xp: Any, ȳ: Any, plan: Any) -> Any:
    kept = [1 if e[0] == "int" else e[3] for e in plan if e[0] != "none"]
    g = xp.reshape(ȳ, tuple(kept))
    for axis, e in enumerate(e for e in plan if e[0] != "none"):
        _, start, step, m, n = e
        if not (start == 0 and step == 1 and m == n):
            g = _pad(xp, g, axis, start, step, m, n)
    return g


def _advanced_adjoint(xp: Any, ȳ: Any, x: Any, idx: Any) -> Any:
    """The adjoint of any other index the library takes: the flat positions
    of the selected elements (the same index applied to arange), then a
    scatter-add: repeated positions add up."""
    size = size_of(x.shape)
    ids = xp.reshape(xp.arange(size, **device_kw(xp, x)), tuple(x.shape))[idx]
    return xp.reshape(scatter_add(xp, xp.reshape(ids, (-1,)), xp.reshape(ȳ, (-1,)), size), tuple(x.shape))


def getitem_rules(get: Any) -> Any:
    def getitem_frule(tangents: Any, x: Any, idx: Any) -> tuple[Any, Any]:
        Ω = get(x, idx)
        Δx = tangents[1]
        xp = namespace(x)
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        return Ω, cast(xp, xp.broadcast_to(Δx, tuple(x.shape)), x)[idx]

    def getitem_rrule(x: Any, idx: Any) -> tuple[Any, Pullback]:
        Ω = get(x, idx)
        xp = namespace(x)
        project = Projector(xp, x)
        plan = _basic_plan(idx, tuple(x.shape))

        def getitem_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, "__getitem__", Ω)
            if is_zero(ȳ) or not project.kind:
                return NO, project(ZERO), NO
            g = cast(xp, xp.broadcast_to(ȳ, tuple(Ω.shape)), x)
            x̄ = _basic_adjoint(xp, g, plan) if plan is not None else _advanced_adjoint(xp, g, x, idx)
            return NO, project(x̄), NO
        return Ω, getitem_pullback

    return getitem_frule, getitem_rrule


def register_getitem(array_type: Any) -> None:
    """Register the indexing rules on `array_type.__getitem__` and on
    `operator.getitem` for arrays of that type."""
    from chainrules._core import register_frule, register_rrule
    from chainrules.rulesets._arrays import named_rule
    frule, rrule = getitem_rules(operator.getitem)
    register_frule(operator.getitem, array_type, object)(named_rule(frule, "getitem"))
    register_rrule(operator.getitem, array_type, object)(named_rule(rrule, "getitem"))
    method = array_type.__getitem__
    mark_registered(method)
    frule, rrule = getitem_rules(through_engines(method))
    register_frule(method)(named_rule(frule, "getitem"))
    register_rrule(method)(named_rule(rrule, "getitem"))
