"""Rules for the array API standard's products, computed with the namespace
of their arguments: matmul (1-d operands and batch broadcasting included),
tensordot and vecdot.

Bilinear, so the pushforward is f(Δa, b) + f(a, Δb) and the pullback the
adjoints: for matmul ā = ȳ·conj(b)ᵀ, b̄ = conj(a)ᵀ·ȳ (ChainRules' complex
convention, conj(∂)·ȳ for a holomorphic map), summed over broadcast batch
dimensions.  vecdot conjugates its first argument (Σ conj(a)·b, as the
standard says): its cotangent is conj(ȳ)·b, the second's a·ȳ.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules._core import Thunk
from chainrules._protocols import Pullback
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    as_seed,
    cast,
    is_complex,
    is_zero,
    namespace,
    options,
    positional_names,
    register_table,
    unbroadcast,
)

__all__ = ["register", "TABLE"]


def _conj(xp: Any, v: Any) -> Any:
    return xp.conj(v) if is_complex(xp, v) else v




def _add(t: Any, u: Any) -> Any:
    if t is None:
        return u
    return t if u is None else t + u


def _bilinear(fname: str, f: Any, n_opts_fallback: Any, known: Any, defaults: Any, forward_f: Any, adjoints: Any) -> Any:
    """Rules for a bilinear f(a, b, *options): the pushforward calls
    `forward_f(a, b, opts)` with a tangent in place of one argument,
    `adjoints(xp, ȳ, a, b, opts)` gives (ā, b̄) before projection (a function
    each); the pullback returns them projected, as Thunks."""
    names = positional_names(f, 2, n_opts_fallback)

    def setup(a: Any, b: Any, args: Any, kwargs: Any) -> Any:
        opts = options(fname, names, args, kwargs, known, defaults)
        return namespace(a, b), opts

    def bilinear_frule(tangents: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        namespace(a, b)                     # two libraries: a NamespaceError naming both
        Ω = f(a, b, *args, **kwargs)
        xp, opts = setup(a, b, args, kwargs)
        Δa, Δb = tangents[1], tangents[2]
        ΔΩ = None
        if not is_zero(Δa) and Projector(xp, a).kind:
            ΔΩ = forward_f(xp, cast(xp, Δa, a), b, opts)
        if not is_zero(Δb) and Projector(xp, b).kind:
            ΔΩ = _add(ΔΩ, forward_f(xp, a, cast(xp, Δb, b), opts))
        return Ω, ZERO if ΔΩ is None else cast(xp, ΔΩ, Ω)

    def bilinear_rrule(a: Any, b: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        namespace(a, b)
        Ω = f(a, b, *args, **kwargs)
        xp, opts = setup(a, b, args, kwargs)
        pa, pb = Projector(xp, a), Projector(xp, b)
        rest = (NO,) * len(args)

        def bilinear_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ):
                return (NO, pa(ZERO), pb(ZERO)) + rest
            if tuple(ȳ.shape) != tuple(Ω.shape):
                ȳ = xp.broadcast_to(ȳ, tuple(Ω.shape))
            ā, b̄ = adjoints(xp, ȳ, a, b, opts)
            # each cotangent a Thunk: an AD that needs one (the other argument a
            # constant, as a data matrix is) computes no product for the other

            def bilinear_ā() -> Any:
                return pa(ā())

            def bilinear_b̄() -> Any:
                return pb(b̄())
            return (NO, Thunk(bilinear_ā) if pa.kind else NO, Thunk(bilinear_b̄) if pb.kind else NO) + rest
        return Ω, bilinear_pullback

    return bilinear_frule, bilinear_rrule


# ----- matmul -----------------------------------------------------------------------------------------
# 1-d operands are made matrices ((n,) → (1, n) on the left, (n, 1) on the
# right), as matmul does; the batch dimensions broadcast.

def _matmul_forward(xp: Any, a: Any, b: Any, opts: Any) -> Any:
    return xp.matmul(a, b)


def _matmul_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, opts: Any) -> Any:
    a2 = xp.reshape(a, (1,) + tuple(a.shape)) if a.ndim == 1 else a
    b2 = xp.reshape(b, tuple(b.shape) + (1,)) if b.ndim == 1 else b
    shape = tuple(ȳ.shape)
    if a.ndim == 1:
        shape = shape[:-1] + (1,) + shape[-1:]
    if b.ndim == 1:
        shape = shape + (1,)
    g = xp.reshape(ȳ, shape)

    def matmul_da() -> Any:
        ā = xp.matmul(g, xp.matrix_transpose(_conj(xp, b2)))
        return xp.reshape(unbroadcast(xp, ā, tuple(a2.shape)), tuple(a.shape))

    def matmul_db() -> Any:
        b̄ = xp.matmul(xp.matrix_transpose(_conj(xp, a2)), g)
        return xp.reshape(unbroadcast(xp, b̄, tuple(b2.shape)), tuple(b.shape))
    return matmul_da, matmul_db


def matmul_rules(f: Any, name: str = "matmul") -> Any:
    return _bilinear(name, f, (), (), {}, _matmul_forward, _matmul_adjoints)


# ----- tensordot --------------------------------------------------------------------------------------

def _tensordot_axes(a: Any, b: Any, axes: Any) -> Any:
    """(contracted axes of a, of b) as lists of non-negative ints, paired."""
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError(f"tensordot: axes must be a non-negative integer, got {axes}")
        return list(range(a.ndim - axes, a.ndim)), list(range(axes))
    ca, cb = axes
    ca = [ca] if isinstance(ca, int) else list(ca)
    cb = [cb] if isinstance(cb, int) else list(cb)
    return [int(i) % a.ndim for i in ca], [int(i) % b.ndim for i in cb]


def _tensordot_forward(xp: Any, a: Any, b: Any, opts: Any) -> Any:
    return xp.tensordot(a, b, axes=_axes_option(opts))


def _axes_option(opts: Any) -> Any:
    """tensordot's axes (PyTorch's `dims`, read as `axis` by the aliases)."""
    return opts["axis"] if opts.get("axis") is not None else opts["axes"]


def _inverse(order: Any) -> Any:
    return tuple(sorted(range(len(order)), key=order.__getitem__))


def _tensordot_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, opts: Any) -> Any:
    ca, cb = _tensordot_axes(a, b, _axes_option(opts))
    fa = [i for i in range(a.ndim) if i not in ca]
    fb = [i for i in range(b.ndim) if i not in cb]
    na = len(fa)

    def tensordot_da() -> Any:
        # ȳ's b-part contracted with conj(b)'s free axes leaves (fa…, b's
        # contracted axes in b's order), each paired with an axis of a
        t = xp.tensordot(ȳ, _conj(xp, b), axes=(list(range(na, ȳ.ndim)), fb))
        pair = dict(zip(cb, ca))
        order = fa + [pair[j] for j in sorted(cb)]
        return xp.permute_dims(t, _inverse(order))

    def tensordot_db() -> Any:
        t = xp.tensordot(_conj(xp, a), ȳ, axes=(fa, list(range(na))))
        pair = dict(zip(ca, cb))
        order = [pair[i] for i in sorted(ca)] + fb
        return xp.permute_dims(t, _inverse(order))
    return tensordot_da, tensordot_db


def tensordot_rules(f: Any, name: str = "tensordot") -> Any:
    return _bilinear(name, f, ("axes",), ("axes", "axis"), {"axes": 2}, _tensordot_forward, _tensordot_adjoints)


# ----- vecdot: Σ conj(a)·b along an axis ------------------------------------------------------------

def _vecdot_forward(xp: Any, a: Any, b: Any, opts: Any) -> Any:
    return xp.sum(xp.multiply(_conj(xp, a), b), axis=opts["axis"])


def _vecdot_adjoints(xp: Any, ȳ: Any, a: Any, b: Any, opts: Any) -> Any:
    axis = int(opts["axis"])
    g = xp.expand_dims(ȳ, axis=axis if axis < 0 else axis - max(a.ndim, b.ndim))

    def vecdot_da() -> Any:
        return unbroadcast(xp, xp.multiply(_conj(xp, g), b), tuple(a.shape))

    def vecdot_db() -> Any:
        return unbroadcast(xp, xp.multiply(g, a), tuple(b.shape))
    return vecdot_da, vecdot_db


def vecdot_rules(f: Any, name: str = "vecdot") -> Any:
    return _bilinear(name, f, ("axis",), ("axis",), {"axis": -1}, _vecdot_forward, _vecdot_adjoints)


# ----- the table --------------------------------------------------------------------------------------

TABLE = {
    "matmul": matmul_rules,
    "tensordot": tensordot_rules,
    "vecdot": vecdot_rules,
}


def register(functions: Any) -> Any:
    """Register the rules of this file on the functions of these names in
    `functions` (an array namespace, or a dict {standard name: function});
    returns the names registered."""
    return register_table(TABLE, functions)
