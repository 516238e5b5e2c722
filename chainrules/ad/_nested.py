"""Nested differentiation: what is left of a second registry, for the NumPy
rules that cannot take tracked values yet (issue 12: to be deleted once they
compute with the namespace of their arguments).

A rule gives first derivatives.  A derivative of a derivative (a Hessian, a
Hessian-vector product, `derivative(derivative(f))`) needs them to be
differentiable themselves: when an operation meets values tracked by an
enclosing differentiation, the rule would receive tracked values, which the
C kernels of the scalar table cannot take and many array rules convert with
`np.asarray`.  Most rules are differentiated as they are (their bodies
compute with NumPy functions and operators on their arguments, which reach
the engines), or have an array-API rule body registered on the tracked types
(`chainrules.rulesets.array_api.on_tracked`: indexing, sort, clip, take, max,
min, matmul, tensordot); so are the products (dot, einsum, outer, kron, …) and
cumprod, linalg.norm/solve/inv/det/slogdet.  The few left are handled here:

- linear functions (cumsum, trace, diagonal, diff, repeat, fft…): the tangent is
  the function of the tangents, and the pullback, built at plain primals,
  is applied to each component of a tracked cotangent;
- locally linear functions (median, quantiles, partition, ptp, …): the derivative at
  the plain values, their rule's, as a linear map with rules of its own
  (`LocalJvp`, and `LinearPullback` for the pullback);
- multilinear functions (none left: their rules are differentiated as they
  are): the same, expanding products of tracked components (`pullback_at`,
  below), and, in reverse over reverse, a pullback with a rule of its own
  (`MultilinearPullback`).

NumPy's element-wise ufuncs and Python's scalar functions (math, cmath,
operator, abs, pow, max, min) are not here: their generic rule bodies (the
element-wise table, `chainrules.rulesets.elementwise_rules`) are registered
for Dual and Var and differentiated by the enclosing engine; so are the rules
of other array libraries, whose arrays never reach this module.

Every other function falls back to its rule, which then receives the
enclosing differentiation's tracked values (rules written with operators and
NumPy functions on their arguments work; others raise a clear error).

`ProjectTo` lets tracked values through, so the reverse engine takes the
real part of a cotangent meant for a real input itself (`Record.real`).
"""

import operator

import numpy as np

from chainrules.rulesets import elementwise_interop as _elementwise_interop
from chainrules._core import (
    AbstractZero,
    Dual,
    NoTangent,
    StructuralTangent,
    Tangent,
    Wrapped,
    ZeroTangent,
    _ad_dual,
    _ad_strip_all,
    frule,
    register_frule,
    register_rrule,
    rrule,
    unthunk,
)

__all__ = ["kind", "primal", "tangent_of", "pullback", "LinearPullback"]

ZERO = ZeroTangent()

# ----- linear and multilinear functions -------------------------------------------
# Linear: jointly linear in their differentiable arguments (the others, such
# as axes and shapes, are kept).  Multilinear: linear in each differentiable
# argument separately (over the reals).


def _existing(*fs):
    return {f for f in fs if f is not None}


def _np(*path):
    obj = np
    for name in path:
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


# Only the functions whose NumPy rules cannot take tracked values (np.asarray,
# compiled code on the arrays) are here.  The others are differentiated through
# their own rules: as they are (sum, mean, reshape, transpose, ravel, concatenate,
# stack, where, flip, roll, prod, var, std, …), or by the array-API rule bodies
# registered for them on the tracked types (indexing, sort, clip, take, max, min,
# matmul, tensordot: chainrules.rulesets.array_api.on_tracked).
LINEAR = _existing()

# Locally linear: piecewise linear, so that near the point the derivative is
# the rule's, taken at the plain values (median, partition, ptp, …; second
# derivatives are zero almost everywhere).
LOCALLY_LINEAR = _existing(
    np.median, np.percentile, np.quantile, np.nanmax, np.nanmin, np.ptp)

MULTILINEAR = _existing()


def kind(f, primals):
    """How f is differentiated at nested tracked values: "rule", "linear",
    "locally linear", "multilinear", or None (by its rule)."""
    try:
        if f in _elementwise_interop.NUMPY_ON_TRACKED:
            return None         # the table's generic rule body (registered on Dual and Var)
        if f in LINEAR:
            return "linear"
        if f in LOCALLY_LINEAR:
            return "locally linear"
        if f in MULTILINEAR:
            return "multilinear"
    except TypeError:       # unhashable f
        pass
    return None


def _is_value(x):
    """A value with a tangent space (not an axis, a shape or an index)."""
    p = _ad_strip_all(x)
    if isinstance(p, (bool, np.bool_)) or type(p) is int:
        return False
    if isinstance(p, (np.ndarray, np.generic)):
        return p.dtype.kind in "fc"
    return isinstance(p, (float, complex))


def _zeros_like(x):
    p = _ad_strip_all(x)
    return np.zeros_like(p) if isinstance(p, (np.ndarray, np.generic)) else type(p)(0)


def _tangent_arg(p, t):
    """The argument to put in place of p when applying a linear f to the
    tangents: t, or zeros for a value without a tangent, or p itself for the
    other arguments (axes, shapes, indices)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        if _is_value(p):
            return _zeros_like(p)
        if type(p) is list or type(p) is tuple:
            return type(p)([_tangent_arg(v, ZERO) for v in p])
        return p
    if type(p) is list or isinstance(p, tuple):
        parts = [_tangent_arg(v, t[i]) for i, v in enumerate(p)]
        return parts if type(p) is list else tuple(parts)
    return t


def tangent_of(f, k, primals, tangents, kwargs):
    """ΔΩ of a linear or multilinear f at nested tracked primals, computed by
    the enclosing differentiation."""
    g = primal(f)
    if k == "linear":
        return g(*[_tangent_arg(p, t) for p, t in zip(primals, tangents)], **kwargs)
    if k == "locally linear":
        return _local_map(f, primals, tangents, kwargs)
    acc = ZERO
    for j, t in enumerate(tangents):
        if isinstance(unthunk(t), AbstractZero):
            continue
        args = list(primals)
        args[j] = unthunk(t)
        acc = _add(acc, g(*args, **kwargs))
    return acc


def _local_map(f, primals, tangents, kwargs):
    """The derivative of a locally linear f at the plain values of the
    primals, applied to the tangents (by its frule; through `LocalJvp` when
    the tangents are tracked by an enclosing differentiation)."""
    from chainrules.ad import _tracing
    return LocalJvp(f, tuple(_tracing.strip(list(primals))), kwargs)(*tangents)


class LocalJvp:
    """(Δ₁, …, Δₙ) ↦ the derivative of the locally linear f at `args` (plain
    values) applied to the tangents: f's frule there.

    A linear map with rules: its frule applies it to the tangents' tangents,
    its rrule's pullback is f's pullback at `args` (the transposed map).
    Called on tracked tangents it goes through those rules, so that rules
    whose frule needs plain tangents (np.asarray on them) still give third
    derivatives."""
    __slots__ = ("f", "args", "kwargs")

    def __init__(self, f, args, kwargs):
        self.f, self.args, self.kwargs = f, args, kwargs

    def __call__(self, *tangents):
        from chainrules.ad import _tracing
        from chainrules.ad.config import FORWARD
        if _tracing.top_tracked(tangents) is not None:
            return primal(self)(*tangents)
        res = frule(FORWARD, (NoTangent(),) + tuple(tangents), self.f, *self.args, **self.kwargs)
        if res is None:
            raise _tracing.no_rule(self.f, self.args, "forward")
        return unthunk(res[1])

    def __repr__(self):
        return f"<derivative of {getattr(self.f, '__name__', self.f)} (locally linear)>"


@register_frule(LocalJvp, instances=True)
def local_jvp_frule(tangents, lj, *ts):
    omega = lj(*ts)
    dts = [unthunk(t) for t in tangents[1:]]
    if all(isinstance(t, AbstractZero) for t in dts):
        return omega, ZERO
    return omega, lj(*dts)


@register_rrule(LocalJvp, instances=True)
def local_jvp_rrule(lj, *ts):
    from chainrules.ad import _tracing
    from chainrules.ad.config import REVERSE
    omega = lj(*ts)
    res = rrule(REVERSE, lj.f, *lj.args, **lj.kwargs)
    if res is None:
        raise _tracing.no_rule(lj.f, lj.args, "reverse")
    pb = res[1]

    def local_jvp_pullback(obar):
        obar = unthunk(obar)
        if isinstance(obar, AbstractZero):
            return (NoTangent(),) + (ZERO,) * len(ts)
        return (NoTangent(),) + tuple(unthunk(g) for g in pb(obar)[1:])
    return omega, local_jvp_pullback


def _add(a, b):
    if isinstance(a, AbstractZero):
        return b
    if isinstance(b, AbstractZero):
        return a
    if type(a) is list or type(a) is tuple:
        return type(a)(_add(x, y) for x, y in zip(a, b))
    return a + b


def _component(x, tag, which):
    """x with the Duals of `tag` replaced by their primal or tangent part (and,
    for the tangent part, the other values by zeros)."""
    from chainrules.ad import _tracing
    if which == "primal":
        return _tracing.split(x, tag, lambda d, path: d.primal)[0]
    if isinstance(x, Dual):
        return x.tangent if x.tag == tag else _zeros_like(x)
    if type(x) is list or isinstance(x, tuple):
        parts = [_component(v, tag, which) for v in x]
        return parts if type(x) is list else type(x)(*parts) if isinstance(x, StructuralTangent) else tuple(parts)
    if isinstance(x, StructuralTangent):
        return type(x)(*[_component(v, tag, which) for v in x]) if isinstance(x.backing, tuple) else \
            type(x)(**{k: _component(v, tag, which) for k, v in x.items()})
    return _zeros_like(x) if _is_value(x) else x


def _dualize(b, t, tag):
    b, t = unthunk(b), unthunk(t)
    if isinstance(t, AbstractZero) or isinstance(b, NoTangent):
        return b
    if type(b) is list or type(b) is tuple:
        return type(b)(_dualize(x, t[i], tag) for i, x in enumerate(b))
    if isinstance(b, StructuralTangent):
        return type(b)(*[_dualize(x, t[i], tag) for i, x in enumerate(b)])
    if isinstance(b, ZeroTangent):
        b = _zeros_like(t)
    return _ad_dual(b, t, tag)


def pullback(f, k, primals, kwargs):
    """The pullback of a linear or multilinear f at nested tracked primals.

    Linear f: the rule's pullback at plain values is a linear map of the
    cotangent alone, `LinearPullback`, which has rules of its own, so that a
    cotangent tracked by an enclosing differentiation (forward or reverse)
    goes through it.  Multilinear f: the rule's pullback at plain values,
    applied to each component of the tracked cotangent and of the other
    factors (forward-mode differentiation of a multilinear map, by hand)."""
    from chainrules.ad._tracing import strip
    if k == "linear" or k == "locally linear":
        return LinearPullback(f, tuple(strip(list(primals))), kwargs, local=(k == "locally linear"))
    primals = tuple(primals)

    def nested_pullback(ybar):
        return _pullback_at(f, k, primals, kwargs, ybar)
    nested_pullback.__qualname__ = f"nested_pullback({getattr(f, '__name__', f)})"
    return nested_pullback


class LinearPullback:
    """ȳ ↦ the pullback of the linear f at `args` (plain values), applied to ȳ.

    A linear map of ȳ, with rules: its frule applies it to the tangent, its
    rrule's pullback is the transposed map, which is f itself applied to the
    cotangents in place of f's differentiable arguments.  Called on a tracked
    ȳ it goes through those rules.  For a locally linear f (`local`), the
    transposed map is f's frule at `args` instead of f."""
    __slots__ = ("f", "args", "kwargs", "pb", "local")

    def __init__(self, f, args, kwargs, local=False):
        from chainrules.ad import _tracing
        from chainrules.ad.config import REVERSE
        self.f, self.args, self.kwargs, self.local = f, args, kwargs, local
        res = rrule(REVERSE, f, *args, **kwargs)
        if res is None:
            raise _tracing.no_rule(f, args, "reverse")
        self.pb = res[1]

    def __call__(self, ybar):
        from chainrules.ad import _tracing
        if _tracing.top_tracked(ybar) is not None:
            return primal(self)(ybar)
        return tuple(unthunk(g) for g in self.pb(ybar))

    def transpose(self, cotangents):
        """f applied to the cotangents of its differentiable arguments (its
        derivative at `args`, for a locally linear f)."""
        if self.local:
            return _local_map(self.f, self.args, cotangents[1:], self.kwargs)
        args = [_tangent_arg(a, cotangents[i + 1]) for i, a in enumerate(self.args)]
        return primal(self.f)(*args, **self.kwargs)

    def __repr__(self):
        return f"<pullback of {getattr(self.f, '__name__', self.f)} (linear)>"


@register_frule(LinearPullback, instances=True)
def linear_pullback_frule(tangents, lp, ybar):
    dy = unthunk(tangents[1])
    omega = lp(ybar)
    if isinstance(dy, AbstractZero):
        return omega, ZERO
    return omega, Tangent[tuple](*lp(dy))


@register_rrule(LinearPullback, instances=True)
def linear_pullback_rrule(lp, ybar):
    omega = lp(ybar)

    def linear_pullback_pullback(obar):
        obar = unthunk(obar)
        if isinstance(obar, AbstractZero):
            return NoTangent(), ZERO
        return NoTangent(), lp.transpose([_index(obar, i) for i in range(len(omega))])
    return omega, linear_pullback_pullback


def _index(t, i):
    t = unthunk(t)
    return t if isinstance(t, AbstractZero) else unthunk(t[i])


class MultilinearPullback:
    """(ȳ, *args) ↦ the pullback of the multilinear f at args applied to ȳ:
    `(NoTangent(), ā₁, …, āₙ)`.

    Each āⱼ is multilinear in ȳ and the other arguments, so the map has an
    rrule made of f and of itself (reverse over reverse): for the cotangent
    ā̄ⱼ of āⱼ, ⟨ā̄ⱼ, āⱼ⟩ = ⟨f(…, ā̄ⱼ at j, …), ȳ⟩ (real inner product), so
    ȳ̄ += f(args with argument j replaced by ā̄ⱼ) and, for every other
    argument k, ā̄ₖ += (the pullback at those arguments)(ȳ)ₖ.  Called on
    tracked values, it goes through that rule."""
    __slots__ = ("f", "kwargs")

    def __init__(self, f, kwargs):
        self.f, self.kwargs = f, kwargs

    def __call__(self, ybar, *args):
        from chainrules.ad import _tracing
        from chainrules.ad.config import REVERSE
        if _tracing.top_tracked(ybar, args) is not None:
            return primal(self)(ybar, *args)
        res = rrule(REVERSE, self.f, *args, **self.kwargs)
        if res is None:
            raise _tracing.no_rule(self.f, args, "reverse")
        return tuple(unthunk(g) for g in res[1](ybar))

    def __repr__(self):
        return f"<pullback of {getattr(self.f, '__name__', self.f)} (multilinear)>"


@register_rrule(MultilinearPullback, instances=True)
def multilinear_pullback_rrule(mp, ybar, *args):
    omega = mp(ybar, *args)

    def multilinear_pullback_pullback(obar):
        obar = unthunk(obar)
        n = len(args)
        grads = [ZERO] * n
        dy = ZERO
        if isinstance(obar, AbstractZero):
            return (NoTangent(), dy) + tuple(grads)
        f = primal(mp.f)
        for j in range(n):
            aj = _index(obar, j + 1)
            if isinstance(aj, AbstractZero) or not _is_value(args[j]):
                continue
            moved = list(args)
            moved[j] = aj
            dy = _add(dy, f(*moved, **mp.kwargs))
            others = mp(ybar, *moved)
            for k in range(n):
                if k != j and _is_value(args[k]):
                    grads[k] = _add(grads[k], unthunk(others[k + 1]))
        grads = [g if _is_value(a) else NoTangent() for a, g in zip(args, grads)]
        return (NoTangent(), dy) + tuple(grads)
    return omega, multilinear_pullback_pullback


def _pullback_at(f, k, args, kwargs, ybar):
    from chainrules.ad import _tracing
    from chainrules.ad.config import REVERSE
    top = _tracing.top_tracked(ybar, args) if k == "multilinear" else _tracing.top_tracked(ybar)
    if top is None:
        res = rrule(REVERSE, f, *args, **kwargs)
        if res is None:
            raise _tracing.no_rule(f, args, "reverse")
        return res[1](ybar)
    if type(top) is not Dual:
        # reverse over reverse: the pullback as an operation of the enclosing
        # tape, with a rule of its own (MultilinearPullback)
        return primal(MultilinearPullback(f, kwargs))(ybar, *args)
    tag = top.tag
    args_p = [_component(a, tag, "primal") for a in args] if k == "multilinear" else list(args)
    ybar_p = _component(ybar, tag, "primal")
    base = _pullback_at(f, k, args_p, kwargs, ybar_p)
    tang = [ZERO] * len(base)
    if _tracing.holds_tag(ybar, tag):
        r = _pullback_at(f, k, args_p, kwargs, _component(ybar, tag, "tangent"))
        tang = [_add(t, unthunk(ri)) for t, ri in zip(tang, r)]
    if k == "multilinear":
        for j, a in enumerate(args):
            if _tracing.holds_tag(a, tag):
                aj = list(args_p)
                aj[j] = _component(a, tag, "tangent")
                r = _pullback_at(f, k, aj, kwargs, ybar_p)
                tang = [t if i == j + 1 else _add(t, unthunk(ri)) for i, (t, ri) in enumerate(zip(tang, r))]
    return tuple(_dualize(b, t, tag) for b, t in zip(base, tang))


_PRIMALS = {}


def primal(f):
    """f, callable on tracked values (the enclosing differentiation computes
    Ω through f's rule)."""
    w = _PRIMALS.get(f)
    if w is None:
        w = _PRIMALS[f] = Wrapped(f)
    return w
