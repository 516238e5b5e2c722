"""`to_autograd(f)`: f as an autograd primitive whose derivatives come from chainrules.

The primitive (`autograd.extend.primitive`) computes f by its rule; its VJP
(`defvjp_argnums`) is the rrule's pullback and its JVP (`defjvp_argnums`)
the frule, for every array and float autograd differentiates, also inside
lists, tuples and dicts (`functools.reduce(f, [x, y])`).  Keywords are passed
through.

Order: first order in both modes, and any order in reverse mode (`grad` of
`grad`, `hessian`): at second order autograd evaluates the VJP on its own
boxed values, which chainrules' NumPy rules cannot take, so the VJP is then
itself a primitive whose derivatives `chainrules.ad` takes of the pullback
(which differentiates the rules themselves), recursively.  Not supported,
with a TypeError naming the function: forward mode over another derivative
(`make_jvp` of a `grad`), and second derivatives of complex functions.

A function of `autograd.numpy` (`anp.sin`) means NumPy's (`np.sin`).
Complex numbers: autograd's VJP has JAX's convention, the conjugate of
ChainRules' pullback; the adapter converts.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from chainrules import AbstractZero, NoTangent, RuleConfig, StructuralTangent, unthunk
from chainrules._protocols import Pullback
from chainrules.interop._common import (
    NO,
    ZERO,
    Leaves,
    check_libraries,
    frule_or_raise,
    from_cr,
    name_of,
    rrule_or_raise,
    to_cr,
    wrap_name,
)

__all__ = ["to_autograd", "AutogradConfig"]



def _conj(t: Any) -> Any:
    return np.conj(t) if isinstance(t, (np.ndarray, np.generic, complex)) else t


def _leaf_in(t: Any) -> Any:
    return ZERO if t is None else t


def _leaf_out(t: Any, p: Any) -> Any:
    t = np.asarray(t)
    if np.iscomplexobj(t) and not np.iscomplexobj(p):
        t = t.real
    if isinstance(p, (np.ndarray, np.generic)):
        t = np.broadcast_to(t, np.shape(p)).astype(np.asarray(p).dtype, copy=False)
        return t
    return t.item() if t.ndim == 0 else t


def _zeros(p: Any) -> Any:
    return np.zeros_like(p) if isinstance(p, (np.ndarray, np.generic)) else 0.0 * p


class AutogradConfig(RuleConfig):
    """AutogradConfig(): the RuleConfig of `to_autograd`: `rrule_via_ad` is
    `autograd.make_vjp` (conjugated to ChainRules' convention) on the
    positional arguments, `frule_via_ad` the VJP's forward counterpart
    `autograd.differential_operators.make_jvp`.  ∂self is NoTangent()."""
    has_forward_mode = True
    has_reverse_mode = True

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        from autograd import make_vjp
        who = f"AutogradConfig.rrule_via_ad({name_of(f)})"
        vjp, y = make_vjp(lambda xs: f(*xs, **kwargs))(list(args))

        def autograd_pullback(ȳ: Any) -> tuple[Any, ...]:
            grads = vjp(_conj(from_cr(ȳ, y, _zeros, _leaf_out, who)))
            return (NO,) + tuple(_leaf_in(_conj(g)) for g in grads)
        return y, autograd_pullback

    def frule_via_ad(self, tangents: tuple[Any, ...] | list[Any], f: Callable[..., Any], *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:
        from autograd.differential_operators import make_jvp
        who = f"AutogradConfig.frule_via_ad({name_of(f)})"
        ts = [from_cr(t, a, _zeros, _leaf_out, who) for t, a in zip(tuple(tangents)[1:], args)]
        y, ẏ = make_jvp(lambda xs: f(*xs, **kwargs))(list(args))(ts)
        return y, to_cr(ẏ, _leaf_in)

    def __repr__(self) -> str:
        return "AutogradConfig()"


CONFIG = AutogradConfig()


def _numpy_function(f: Any) -> Any:
    """NumPy's function for a function of autograd.numpy (a primitive wrapping it)."""
    inner = getattr(f, "fun", None)
    name = getattr(inner, "__name__", None)
    for ns in (np, np.linalg):
        if isinstance(name, str) and getattr(ns, name, None) is inner:
            return inner
    return f


def _boxed(x: Any) -> bool:
    from autograd.tracer import Box
    if isinstance(x, Box):
        return True
    if isinstance(x, (list, tuple)):
        return any(_boxed(e) for e in x)
    return False


def _is_leaf(x: Any) -> bool:
    from autograd.tracer import Box
    return isinstance(x, Box) or (isinstance(x, np.ndarray) and x.dtype.kind in "fc") or \
        (isinstance(x, (float, complex, np.floating, np.complexfloating)) and not isinstance(x, bool))


def _plain(c: Any, p: Any) -> Any:
    """A chainrules cotangent of p as a plain value (zeros as 0·p, structures
    as their backing), for values chainrules.ad may be tracking."""
    c = unthunk(c)
    if isinstance(c, AbstractZero):
        return type(p)(_plain(c, e) for e in p) if isinstance(p, (tuple, list)) else 0.0 * p
    if isinstance(c, StructuralTangent):
        c = c.backing
    if isinstance(p, (tuple, list)):
        return type(p)(_plain(e, q) for e, q in zip(c, p))
    return c


class _Opaque:
    """A function chainrules.ad calls without tracking what it closes over
    (its ∂self is NoTangent()): argument positions, axes, keywords."""
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


def _by_chainrules_ad(h: Callable[..., Any], who: str) -> Callable[..., Any]:
    """h (a function of arrays returning a tuple of arrays) as an autograd
    primitive whose VJP is chainrules.ad's reverse mode of h, itself such a
    primitive (autograd can differentiate it to any order in reverse mode),
    and whose JVP is chainrules.ad's forward mode of h (once)."""
    from autograd.extend import defjvp_argnums, defvjp_argnums, primitive
    from chainrules import frule_via_ad, rrule_via_ad
    from chainrules.ad.config import FORWARD, REVERSE

    def jvp_maker(argnums: Any, ẋs: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        if _boxed(values) or _boxed(ẋs):
            raise TypeError(f"{who}: forward mode over a second derivative is not supported in "
                            "autograd; use to_jax or to_torch")
        ts: list[Any] = [ZERO] * len(values)
        for i, t in zip(argnums, ẋs):
            ts[i] = t
        _, ẏ = frule_via_ad(FORWARD, (NO, *ts), _Opaque(h), *values)
        return _plain(ẏ, ans)

    def vjp_maker(argnums: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        wanted = tuple(i in argnums for i in range(len(values)))

        def pullback_of(*vg: Any) -> tuple[Any, ...]:
            vs, ḡ = vg[:-1], vg[-1]
            _, pullback = rrule_via_ad(REVERSE, _Opaque(h), *vs)
            grads = tuple(pullback(ḡ))[1:]
            return tuple(_plain(c, v) for c, v, w in zip(grads, vs, wanted) if w)
        inner = _by_chainrules_ad(pullback_of, who)
        return lambda ḡ: inner(*values, ḡ)

    prim: Callable[..., Any] = primitive(h)
    defvjp_argnums(prim, vjp_maker)
    defjvp_argnums(prim, jvp_maker)
    return prim


def to_autograd(f: Callable[..., Any]) -> Callable[..., Any]:
    """f as an autograd primitive whose derivatives are chainrules' rules
    for f (see the module docstring).  A call with no rule for its arguments
    raises TypeError naming f and the argument types."""
    if not callable(f):
        raise TypeError(f"to_autograd: expected a function, got {type(f).__name__}")
    from autograd.extend import defjvp_argnums, defvjp_argnums, primitive
    g = _numpy_function(f)
    who = f"to_autograd({name_of(f)})"

    # the primitive takes the leaves (arrays and floats, also those inside lists,
    # tuples and dicts) as its positional arguments: autograd unboxes only those
    def call(*values: Any, _leaves: Leaves, **kwargs: Any) -> Any:
        return rrule_or_raise("to_autograd", f, g, CONFIG, _leaves.rebuild(values), kwargs)[0]

    def out(c: Any, p: Any) -> Any:
        return _conj(from_cr(c, p, _zeros, _leaf_out, who))

    def vjp_maker(argnums: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        kw = dict(kwargs)
        leaves = kw.pop("_leaves")

        def vjp(ȳ: Any) -> Any:
            if _boxed(values) or _boxed(ȳ):
                return higher_order(argnums, values, ȳ, leaves, kw)
            _, pullback = rrule_or_raise("to_autograd", f, g, CONFIG, leaves.rebuild(values), kw)
            grads = pullback(to_cr(_conj(ȳ), _leaf_in))
            cts = leaves.cotangents(tuple(grads)[1:], out, values,
                                    [i in argnums for i in range(len(values))])
            return tuple(cts[i] for i in argnums)
        return vjp

    def higher_order(argnums: Any, values: Any, ȳ: Any, leaves: Leaves, kw: Any) -> Any:
        """The VJP where autograd differentiates it again: an autograd
        primitive of (values, ȳ) whose own derivatives chainrules.ad takes
        of the pullback (real values only)."""
        from autograd.tracer import getval
        if any(np.iscomplexobj(getval(v)) for v in values) or np.iscomplexobj(getval(ȳ)):
            raise TypeError(f"{who}: second-order derivatives of complex functions are not "
                            "supported in autograd; use to_jax or to_torch")

        wanted = tuple(i in argnums for i in range(len(values)))

        def pullback_of(*vy: Any) -> tuple[Any, ...]:
            vs, yb = vy[:-1], vy[-1]
            _, pullback = rrule_or_raise("to_autograd", f, g, CONFIG, leaves.rebuild(vs), kw)
            cts = leaves.cotangents(tuple(pullback(yb))[1:], _plain, vs, wanted)
            return tuple(c for c, w in zip(cts, wanted) if w)
        return _by_chainrules_ad(pullback_of, who)(*values, ȳ)

    def jvp_maker(argnums: Any, ẋs: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        if _boxed(values) or _boxed(ẋs):
            raise TypeError(f"{who}: forward mode over forward mode is not supported in autograd; "
                            "use to_jax or to_torch")
        kw = dict(kwargs)
        leaves = kw.pop("_leaves")
        ts: list[Any] = [ZERO] * len(values)
        for i, t in zip(argnums, ẋs):
            ts[i] = to_cr(t, _leaf_in)
        y, ẏ = frule_or_raise("to_autograd", f, g, CONFIG, leaves.tangents(ts),
                              leaves.rebuild(values), kw)
        return from_cr(ẏ, y, _zeros, _leaf_out, who)

    prim = primitive(call)
    defvjp_argnums(prim, vjp_maker)
    defjvp_argnums(prim, jvp_maker)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        check_libraries(who, args, frozenset({"numpy", "autograd"}),
                        "autograd differentiates NumPy arrays (np.asarray(x))")
        leaves = Leaves(args, _is_leaf)
        return prim(*leaves.values, _leaves=leaves, **kwargs)

    wrap_name(wrapper, "to_autograd", f)
    return wrapper
