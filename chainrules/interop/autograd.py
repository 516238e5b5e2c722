"""`to_autograd(f)`: f as an autograd primitive whose derivatives come from chainrules.

The primitive (`autograd.extend.primitive`) computes f by its rule; its VJP
(`defvjp_argnums`) is the rrule's pullback and its JVP (`defjvp_argnums`)
the frule, for every array and float autograd differentiates, also inside
lists, tuples and dicts (`functools.reduce(f, [x, y])`).  Keywords are passed
through.

Order: first order in both modes.  autograd evaluates a primitive's VJP on
its own boxed values at second order, and chainrules' rules compute with
NumPy, which cannot take autograd's boxes: a second-order derivative raises
TypeError naming the function (never a wrong number); use `chainrules.ad`
(which differentiates the rules themselves) or JAX/PyTorch for higher order.

A function of `autograd.numpy` (`anp.sin`) means NumPy's (`np.sin`).
Complex numbers: autograd's VJP has JAX's convention, the conjugate of
ChainRules' pullback; the adapter converts.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from chainrules import NoTangent, RuleConfig, ZeroTangent
from chainrules._protocols import Pullback
from chainrules.interop._common import (
    Leaves,
    frule_or_raise,
    from_cr,
    name_of,
    rrule_or_raise,
    to_cr,
    wrap_name,
)

__all__ = ["to_autograd", "AutogradConfig"]

NO = NoTangent()
ZERO = ZeroTangent()


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

    def second_order(args: Any, ȳ: Any) -> None:
        if _boxed(args) or _boxed(ȳ):
            raise TypeError(f"{who}: second-order derivatives are not supported in autograd (its "
                            "boxed values cannot enter chainrules' NumPy rules); use chainrules.ad, "
                            "to_jax or to_torch for higher order")

    def out(c: Any, p: Any) -> Any:
        return _conj(from_cr(c, p, _zeros, _leaf_out, who))

    def vjp_maker(argnums: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        kw = dict(kwargs)
        leaves = kw.pop("_leaves")

        def vjp(ȳ: Any) -> Any:
            second_order(values, ȳ)
            _, pullback = rrule_or_raise("to_autograd", f, g, CONFIG, leaves.rebuild(values), kw)
            grads = pullback(to_cr(_conj(ȳ), _leaf_in))
            cts = leaves.cotangents(tuple(grads)[1:], out, values)
            return tuple(cts[i] for i in argnums)
        return vjp

    def jvp_maker(argnums: Any, ẋs: Any, ans: Any, values: Any, kwargs: Any) -> Any:
        second_order(values, ẋs)
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
        leaves = Leaves(args, _is_leaf)
        return prim(*leaves.values, _leaves=leaves, **kwargs)

    wrap_name(wrapper, "to_autograd", f)
    return wrapper
