"""The frozen spelling of the scipy.stats rules: `scipy.stats.norm(loc,
scale).logpdf(x)`.  A frozen distribution is made per call (with a new
instance of the distribution's class in `.dist`), so its bound methods are
found through an instance rule on bound methods (`types.MethodType`) that
declines (None) for every method but those of `rv_frozen` objects whose
distribution has rules, and dispatches to the generic rule with the frozen
parameters (`.args`, `.kwds`) passed positionally.

The parameters are the fields of the frozen object, so their derivatives
live in ∂self: the pullback returns
`Tangent[method](__self__=Tangent[rv_*_frozen](args=Tangent[tuple](…),
kwds=Tangent[dict](…)))` (the structural tangent of the bound method, whose
`__self__` holds `args` and `kwds`, as `rand_tangent` of the frozen object
has them), and the frule reads the parameters' tangents from a Δself of
that form (any other Δself, a zero or NoTangent, holds them fixed).  The
data argument gets its cotangent as usual.  (Multivariate frozen objects
keep processed copies of their parameters: no rule; use the unfrozen
spelling, or an AD's own drop-in frozen objects.)
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import types
from typing import Any

from scipy.stats._distn_infrastructure import rv_frozen

from chainrules._core import Tangent, ZeroTangent, frule, register_frule, register_rrule, rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, is_zero
from chainrules.rulesets.scipy.stats._build import METHODS

# other libraries' distribution objects add their rules for bound methods here (torch.distributions:
# torch_distributions.py): (frule, rrule), each returning None for a method not theirs
BOUND_METHODS: list[tuple[Any, Any]] = []

# (class of the distribution, method name) -> the Method of its module-level instance
_BY_CLASS = {(type(m.f.__self__), m.f.__name__): m for m in METHODS}


def _find(method: Any) -> Any:
    frozen = getattr(method, "__self__", None)
    if not isinstance(frozen, rv_frozen):
        return None
    return _BY_CLASS.get((type(frozen.dist), method.__name__))


def _layout(m: Any, frozen: Any, ndata: int) -> Any:
    """The generic call's parameters after the data: the frozen `args`, then the
    `kwds` and defaults in the method's order; and where each came from
    (("args", i) or ("kwds", name) or None for a default)."""
    names = m.params[ndata:]
    args, kwds = tuple(frozen.args), dict(frozen.kwds)
    if len(args) > len(names) or set(kwds) - set(names[len(args):]):
        return None
    vals: list[Any] = list(args)
    where: list[Any] = [("args", i) for i in range(len(args))]
    for name in names[len(args):]:
        if name in kwds:
            vals.append(kwds[name])
            where.append(("kwds", name))
        elif name in m.defaults:
            vals.append(m.defaults[name])
            where.append(None)
        else:
            return None
    return vals, where


def _field(t: Any, name: str) -> Any:
    try:
        return t[name]
    except (KeyError, TypeError, IndexError):
        return ZeroTangent()


def _frozen_call(method: Any, n: int, kw: Any) -> Any:
    """(the method's rule entry, the frozen object, the frozen values, where each came
    from) for a frozen distribution's method called with n data arguments; None for
    any other bound method (the rule declines)."""
    m = _find(method)
    if m is None or kw:
        return None
    frozen = method.__self__
    lay = _layout(m, frozen, n)
    if lay is None:
        return None
    return (m, frozen) + tuple(lay)


def _other_library(which: int, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
    """The rule (0: frule, 1: rrule) of another library's bound method, or None."""
    for rules in BOUND_METHODS:
        got: tuple[Any, Any] | None = rules[which](*args, **kw)
        if got is not None:
            return got
    return None


@register_frule(types.MethodType, object, ..., instances=True)
def frozen_frule(tangents: Any, method: Any, *data: Any, **kw: Any) -> tuple[Any, Any] | None:
    call = _frozen_call(method, len(data), kw)
    if call is None:
        return _other_library(0, tangents, method, *data, **kw)
    m, _, vals, where = call
    Δself = unthunk(tangents[0])
    Δobj = ZeroTangent() if is_zero(Δself) else unthunk(_field(Δself, "__self__"))
    Δargs = ZeroTangent() if is_zero(Δobj) else unthunk(_field(Δobj, "args"))
    Δkwds = ZeroTangent() if is_zero(Δobj) else unthunk(_field(Δobj, "kwds"))
    dots = []
    for w in where:
        if w is None:
            dots.append(ZeroTangent())
        elif w[0] == "args":
            dots.append(ZeroTangent() if is_zero(Δargs) else _field(Δargs, w[1]))
        else:
            dots.append(ZeroTangent() if is_zero(Δkwds) else _field(Δkwds, w[1]))
    return frule((NO, *tangents[1:], *dots), m.f, *data, *vals)


@register_rrule(types.MethodType, object, ..., instances=True)
def frozen_rrule(method: Any, *data: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    call = _frozen_call(method, len(data), kw)
    if call is None:
        return _other_library(1, method, *data, **kw)
    m, frozen, vals, where = call
    got = rrule(m.f, *data, *vals)
    if got is None:
        return None
    Ω, pullback = got
    n = len(data)

    def frozen_pullback(ȳ: Any) -> tuple[Any, ...]:
        g = pullback(ȳ)
        params = g[1 + n:]
        args = [ZeroTangent()] * len(frozen.args)
        kwds = {}
        for w, ḡ in zip(where, params):
            if w is None:
                continue
            if w[0] == "args":
                args[w[1]] = ḡ
            else:
                kwds[w[1]] = ḡ
        if not frozen.args and not frozen.kwds:
            self_bar: Any = NO          # nothing frozen: no fields to differentiate
        else:
            tangent: Any = Tangent          # parametrized by runtime types (mypy reads them as types)
            obj = tangent[type(frozen)](args=tangent[tuple](*args), kwds=tangent[dict](**kwds))
            self_bar = tangent[types.MethodType](__self__=obj)
        return (self_bar, *g[1:1 + n])

    return Ω, frozen_pullback
