"""Rules for NumPy's functions of sequences and grids: interp (in x and fp),
ediff1d, unwrap, linspace/logspace/geomspace (in their
endpoints), nancumsum, nancumprod (cumulative_sum and cumulative_prod are
the array-API bodies, in cumulative.py), matvec and vecmat (NumPy ≥ 2.2), i0 (its derivative is SciPy's i1), and
einsum's interleaved form (`np.einsum(a, [0, 1], b, [1, 2], [0, 2])`, the
rules of the subscripts form).

Linear functions push tangents forward with themselves; their adjoints are
written with functions that have rules (np.bincount, np.cumsum, np.pad,
arithmetic), so the rules differentiate again.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    Thunk,
    not_implemented,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    array_or_traced,
    named_options,
    project_to,
    reject_out,
    seed,
    unbroadcast,
)
from chainrules.rulesets.numpy.cumulative import cumprod_frule, cumprod_rrule, cumsum_frule, cumsum_rrule
from chainrules.rulesets.numpy.convolution import on_any
from chainrules.rulesets.numpy.gathers import _bincount
from chainrules.rulesets.numpy.linalg.einsum import einsum_frule, einsum_rrule


def _zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


def _opts(name: str, args: Any, kw: Any, names: Any) -> dict[str, Any]:
    return named_options(f"numpy.{name}", names, args, kw)


# =============================================================================
# interp(x, xp, fp, left=None, right=None, period=None)
# y = (1 − t)·fp[j] + t·fp[j+1] on [xp[j], xp[j+1]]: linear in fp (weights 1 − t, t), slope
# (fp[j+1] − fp[j])/(xp[j+1] − xp[j]) in x inside [xp[0], xp[-1]], 0 outside; xp: not implemented.
# =============================================================================

class _Interp:
    def __init__(self, x: Any, xp: Any, fp: Any, left: Any, right: Any) -> None:
        xv = x      # a value an AD tracks answers searchsorted and comparisons with plain values
        xpv = np.asarray(xp)
        n = xpv.shape[0]
        self.n = n
        j = np.clip(np.searchsorted(xpv, xv, side="right") - 1, 0, max(n - 2, 0))
        self.j = j
        self.inside = (xv >= xpv[0]) & (xv <= xpv[-1])
        self.below, self.above = xv < xpv[0], xv > xpv[-1]
        if n > 1:
            h = xpv[j + 1] - xpv[j]
            self.t = np.clip((x - xpv[j]) / h, 0.0, 1.0)
            self.h = h
        # weights on fp[j], fp[j+1]: keyword left/right are constants outside
        self.keep_below = left is None
        self.keep_above = right is None

    def weights(self) -> Any:
        if self.n == 1:
            w0 = np.ones(np.shape(self.j))
            return w0, np.zeros(np.shape(self.j))
        t = self.t
        w0, w1 = 1 - t, t
        if not self.keep_below:
            w0, w1 = np.where(self.below, 0.0, w0), np.where(self.below, 0.0, w1)
        if not self.keep_above:
            w0, w1 = np.where(self.above, 0.0, w0), np.where(self.above, 0.0, w1)
        return w0, w1

    def slope(self, fp: Any) -> Any:
        if self.n == 1:
            return np.zeros(np.shape(self.j))
        s = (fp[self.j + 1] - fp[self.j]) / self.h
        return np.where(self.inside, s, 0.0)


def _interp_args(args: Any, kw: Any) -> Any:
    o = _opts("interp", args, kw, ("left", "right", "period"))
    if o.get("period") is not None:
        raise TypeError("numpy.interp: the rule does not cover period=")
    return o.get("left"), o.get("right")


@register_frule(np.interp)
def interp_frule(tangents: Any, x: Any, xp: Any, fp: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    left, right = _interp_args(args, kw)
    Ω = np.interp(x, xp, fp, *args, **kw)
    ẋ, ẋp, ḟp = (unthunk(t) for t in tangents[1:4])
    if not _zero(ẋp):
        return Ω, not_implemented("numpy.interp: the derivative in xp")
    I = _Interp(x, xp, fp, left, right)
    out = None
    if not _zero(ḟp):
        w0, w1 = I.weights()
        out = w0 * ḟp[I.j] + w1 * ḟp[np.minimum(I.j + 1, I.n - 1)]
    if not _zero(ẋ):
        v = I.slope(fp) * ẋ
        out = v if out is None else out + v
    return Ω, ZERO if out is None else project_to(Ω)(out)


@register_rrule(np.interp)
def interp_rrule(x: Any, xp: Any, fp: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    left, right = _interp_args(args, kw)
    Ω = np.interp(x, xp, fp, *args, **kw)
    px, pfp = project_to(x), project_to(fp)
    I = _Interp(x, xp, fp, left, right)
    rest = (NO,) * len(args)

    def interp_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.interp")
        if _zero(Ω̄):
            return (NO, px(ZERO), not_implemented("numpy.interp: the derivative in xp"), pfp(ZERO)) + rest
        Ω̄ = np.broadcast_to(array_or_traced(Ω̄), np.shape(I.j))

        def f̄p() -> Any:
            w0, w1 = I.weights()
            j = np.ravel(I.j)
            k = np.minimum(j + 1, I.n - 1)
            labels = np.concatenate([j, k])
            weights = np.concatenate([np.ravel(Ω̄ * w0), np.ravel(Ω̄ * w1)])
            return pfp(_bincount(labels, weights, I.n))

        def x̄() -> Any:
            return px(Ω̄ * np.conj(I.slope(fp)))
        return (NO, Thunk(x̄) if px.kind else NO, not_implemented("numpy.interp: the derivative in xp"),
                Thunk(f̄p) if pfp.kind else NO) + rest
    return Ω, interp_pullback


# =============================================================================
# ediff1d(ary, to_end=None, to_begin=None) = [to_begin, diff(ravel(ary)), to_end]
# =============================================================================

@register_frule(np.ediff1d)
def ediff1d_frule(tangents: Any, ary: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    o = _opts("ediff1d", args, kw, ("to_end", "to_begin"))
    Ω = np.ediff1d(ary, *args, **kw)
    ȧ = unthunk(tangents[1])
    ends: list[Any] = [unthunk(tangents[2 + i]) if i < len(args) else ZERO for i in range(2)]
    if _zero(ȧ) and all(_zero(e) for e in ends):
        return Ω, ZERO
    core = np.zeros(max(np.size(ary) - 1, 0)) if _zero(ȧ) else np.diff(np.ravel(ȧ))
    parts: list[Any] = []
    if o.get("to_begin") is not None:
        parts.append(np.zeros(np.size(o["to_begin"])) if _zero(ends[1]) else np.ravel(ends[1]))
    parts.append(core)
    if o.get("to_end") is not None:
        parts.append(np.zeros(np.size(o["to_end"])) if _zero(ends[0]) else np.ravel(ends[0]))
    return Ω, project_to(Ω)(np.concatenate(parts))


@register_rrule(np.ediff1d)
def ediff1d_rrule(ary: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    o = _opts("ediff1d", args, kw, ("to_end", "to_begin"))
    Ω = np.ediff1d(ary, *args, **kw)
    pa = project_to(ary)
    nb = np.size(o["to_begin"]) if o.get("to_begin") is not None else 0
    ne = np.size(o["to_end"]) if o.get("to_end") is not None else 0
    m = np.size(Ω)
    pe = [project_to(args[i]) if i < len(args) else None for i in range(2)]

    def ediff1d_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.ediff1d")
        if _zero(Ω̄):
            return (NO, pa(ZERO)) + tuple(p(ZERO) for p in pe if p is not None)
        Ω̄ = array_or_traced(Ω̄)
        core = Ω̄[nb:m - ne]
        ā = np.pad(core, (1, 0)) - np.pad(core, (0, 1)) if np.size(ary) > 0 else np.zeros(0)
        out = [NO, pa(np.reshape(ā, np.shape(ary)))]
        if pe[0] is not None:
            out.append(pe[0](np.reshape(Ω̄[m - ne:], np.shape(args[0]))) if pe[0].kind and args[0] is not None else NO)
        if pe[1] is not None:
            out.append(pe[1](np.reshape(Ω̄[:nb], np.shape(args[1]))) if pe[1].kind and args[1] is not None else NO)
        return tuple(out)
    return Ω, ediff1d_pullback


# =============================================================================
# unwrap(p, ...) = p + a piecewise-constant multiple of the period: the identity's derivative
# =============================================================================

@register_frule(np.unwrap)
def unwrap_frule(tangents: Any, p: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    Ω = np.unwrap(p, *args, **kw)
    ṗ = unthunk(tangents[1])
    return Ω, ZERO if _zero(ṗ) else project_to(Ω)(np.broadcast_to(ṗ, np.shape(Ω)))


@register_rrule(np.unwrap)
def unwrap_rrule(p: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    Ω = np.unwrap(p, *args, **kw)
    pp = project_to(p)
    rest = (NO,) * len(args)

    def unwrap_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.unwrap")
        return (NO, pp(ZERO if _zero(Ω̄) else array_or_traced(Ω̄))) + rest
    return Ω, unwrap_pullback


# =============================================================================
# linspace, logspace, geomspace: y = start·(1 − t) + stop·t along `axis` (t the unit grid);
# logspace = base**linspace, geomspace = exp(linspace of the logs)
# =============================================================================

def _grid(kind: str, args: Any, kw: Any) -> Any:
    names = {"linspace": ("num", "endpoint", "retstep", "dtype", "axis"),
             "logspace": ("num", "endpoint", "base", "dtype", "axis"),
             "geomspace": ("num", "endpoint", "dtype", "axis")}[kind]
    o = _opts(kind, args, kw, names)
    if o.get("retstep"):
        raise TypeError("numpy.linspace: the rule does not cover retstep=True")
    if o.get("dtype") is not None and np.dtype(o["dtype"]).kind not in "fc":
        raise TypeError(f"numpy.{kind}: the rule covers floating dtypes only, got dtype={o['dtype']!r}")
    return int(o.get("num", 50)), bool(o.get("endpoint", True)), int(o.get("axis", 0)), o


def _weights(start: Any, stop: Any, num: int, endpoint: bool, axis: int) -> Any:
    """(1 − t, t) laid along `axis` of the output."""
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    nd = len(np.broadcast_shapes(np.shape(start), np.shape(stop))) + 1
    shape = [1] * nd
    shape[axis % nd] = num
    t = np.reshape(t, shape)
    return 1.0 - t, t, axis % nd


def _space_rules(f: Any, kind: str) -> None:
    def space_frule(tangents: Any, start: Any, stop: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        num, endpoint, axis, o = _grid(kind, args, kw)
        Ω = f(start, stop, *args, **kw)
        ṡ, ė = unthunk(tangents[1]), unthunk(tangents[2])
        base_i = 2 if kind == "logspace" else None
        ḃ = unthunk(tangents[3 + base_i]) if base_i is not None and len(args) > base_i else ZERO
        if _zero(ṡ) and _zero(ė) and _zero(ḃ):
            return Ω, ZERO
        w0, w1, ax = _weights(start, stop, num, endpoint, axis)
        bshape = np.broadcast_shapes(np.shape(start), np.shape(stop))

        def along(v: Any) -> Any:
            return np.expand_dims(np.broadcast_to(v, bshape), ax) if bshape else v
        lin = 0
        if kind == "geomspace":
            if not _zero(ṡ):
                lin = lin + w0 * along(ṡ / start)
            if not _zero(ė):
                lin = lin + w1 * along(ė / stop)
            return Ω, project_to(Ω)(Ω * lin)
        if not _zero(ṡ):
            lin = lin + w0 * along(ṡ)
        if not _zero(ė):
            lin = lin + w1 * along(ė)
        if kind == "linspace":
            return Ω, project_to(Ω)(np.broadcast_to(lin, np.shape(Ω)))
        base = o.get("base", 10.0)
        out = Ω * np.log(base) * lin
        if not _zero(ḃ):
            out = out + Ω * np.log(Ω) / np.log(base) / base * ḃ
        return Ω, project_to(Ω)(out)

    def space_rrule(start: Any, stop: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
        num, endpoint, axis, o = _grid(kind, args, kw)
        Ω = f(start, stop, *args, **kw)
        ps, pe = project_to(start), project_to(stop)
        w0, w1, ax = _weights(start, stop, num, endpoint, axis)
        base_i = 2 if kind == "logspace" else None
        pb: Any = project_to(args[base_i]) if base_i is not None and len(args) > base_i else None
        rest = tuple(NO if i != base_i else None for i in range(len(args)))

        def space_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, f"numpy.{kind}")
            if _zero(Ω̄):
                return (NO, ps(ZERO), pe(ZERO)) + tuple(pb(ZERO) if r is None else r for r in rest)
            g = array_or_traced(Ω̄)
            if kind == "logspace":
                base = o.get("base", 10.0)
                gb = None if pb is None else pb(np.sum(g * np.conj(Ω * np.log(Ω) / np.log(base) / base)))
                g = g * np.conj(Ω * np.log(base))
            elif kind == "geomspace":
                g = g * np.conj(Ω)

            def end(w: Any, v: Any, p: Any) -> Any:
                if not p.kind:
                    return NO
                s = np.sum(g * w, axis=ax)
                if kind == "geomspace":
                    s = s / np.conj(v)
                return p(unbroadcast(v, s) if np.ndim(v) or np.ndim(s) else s)
            out = (NO, end(w0, start, ps), end(w1, stop, pe))
            return out + tuple(gb if r is None else r for r in rest)
        return Ω, space_pullback

    register_frule(f)(space_frule)
    register_rrule(f)(space_rrule)


_space_rules(np.linspace, "linspace")
_space_rules(np.logspace, "logspace")
_space_rules(np.geomspace, "geomspace")


# =============================================================================
# nancumsum, nancumprod: cumsum/cumprod of a with its NaNs as 0 / 1 (whose tangent is 0)
# =============================================================================

def _nan_rules(f: Any, name: str, fill: float, frule: Any, rrule: Any) -> None:
    def nan_frule(tangents: Any, a: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        nan = np.isnan(a)
        ȧ = unthunk(tangents[1])
        ȧ = ȧ if _zero(ȧ) else np.where(nan, 0.0, ȧ)
        Ω, ΔΩ = frule((tangents[0], ȧ) + tuple(tangents[2:]), np.where(nan, fill, a), *args, **kw)
        return f(a, *args, **kw), ΔΩ

    def nan_rrule(a: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
        nan = np.isnan(a)
        _, pb = rrule(np.where(nan, fill, a), *args, **kw)
        pa = project_to(a)

        def nan_pullback(Ω̄: Any) -> tuple[Any, ...]:
            out = pb(Ω̄)
            ā = unthunk(out[1])
            return (NO, pa(ā if _zero(ā) else np.where(nan, 0.0, ā))) + tuple(out[2:])
        return f(a, *args, **kw), nan_pullback

    nan_frule.__name__ = nan_frule.__qualname__ = f"{name}_frule"
    nan_rrule.__name__ = nan_rrule.__qualname__ = f"{name}_rrule"
    register_frule(f)(nan_frule)
    register_rrule(f)(nan_rrule)


_nan_rules(np.nancumsum, "nancumsum", 0.0, cumsum_frule, cumsum_rrule)
_nan_rules(np.nancumprod, "nancumprod", 1.0, cumprod_frule, cumprod_rrule)


# =============================================================================
# matvec(A, v)ᵢ = Σⱼ Aᵢⱼvⱼ;  vecmat(u, B)ⱼ = Σᵢ conj(uᵢ)Bᵢⱼ (NumPy ≥ 2.2)
#   matvec: Ā = ȳ⊗conj(v), v̄ = conj(vecmat(ȳ, A));  vecmat: ū = matvec(B, conj(ȳ)), B̄ = u⊗ȳ
# =============================================================================

def _bilinear_rules(f: Any, name: str, pull: Any) -> None:
    def bilinear_frule(tangents: Any, x1: Any, x2: Any, **kw: Any) -> tuple[Any, Any]:
        reject_out(f"numpy.{name}", kw)
        if kw:
            raise TypeError(f"numpy.{name}: the rule takes no options, got {sorted(kw)}")
        Ω = f(x1, x2)
        ẋ1, ẋ2 = unthunk(tangents[1]), unthunk(tangents[2])
        out = None
        if not _zero(ẋ1):
            out = f(ẋ1, x2)
        if not _zero(ẋ2):
            v = f(x1, ẋ2)
            out = v if out is None else out + v
        return Ω, ZERO if out is None else out

    def bilinear_rrule(x1: Any, x2: Any, **kw: Any) -> tuple[Any, Pullback]:
        reject_out(f"numpy.{name}", kw)
        if kw:
            raise TypeError(f"numpy.{name}: the rule takes no options, got {sorted(kw)}")
        Ω = f(x1, x2)
        p1, p2 = project_to(x1), project_to(x2)

        def bilinear_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, f"numpy.{name}")
            if _zero(Ω̄):
                return NO, p1(ZERO), p2(ZERO)
            g1, g2 = pull(array_or_traced(Ω̄), x1, x2)
            return (NO, Thunk(lambda: p1(unbroadcast(x1, g1()))) if p1.kind else NO,
                    Thunk(lambda: p2(unbroadcast(x2, g2()))) if p2.kind else NO)
        return Ω, bilinear_pullback

    register_frule(f)(bilinear_frule)
    register_rrule(f)(bilinear_rrule)


def _matvec_pull(ȳ: Any, A: Any, v: Any) -> Any:
    return (lambda: np.expand_dims(ȳ, -1) * np.expand_dims(np.conj(v), -2),
            lambda: np.conj(np.vecmat(ȳ, A)))


def _vecmat_pull(ȳ: Any, u: Any, B: Any) -> Any:
    return (lambda: np.matvec(B, np.conj(ȳ)),
            lambda: np.expand_dims(u, -1) * np.expand_dims(ȳ, -2))


if hasattr(np, "matvec"):
    _bilinear_rules(np.matvec, "matvec", _matvec_pull)
    _bilinear_rules(np.vecmat, "vecmat", _vecmat_pull)


# =============================================================================
# i0: i0′ = i1, and i1′ = i0 − i1/x (½ at 0): i1 is SciPy's, called through `bessel_i1`, which
# has these rules too, so every order works; without SciPy the rules decline
# =============================================================================

def bessel_i1(x: Any) -> Any:
    """The modified Bessel function I₁ (scipy.special.i1), with rules."""
    from scipy.special import i1
    return i1(x)


_i1 = on_any(bessel_i1)


def _i1_slope(x: Any) -> Any:
    small = np.abs(x) < 1e-8
    safe = np.where(small, 1.0, x)
    return np.where(small, 0.5, np.i0(x) - _i1(x) / safe)


def _bessel_rules(f: Any, name: str, slope: Any) -> None:
    g = on_any(f)

    def bessel_frule(tangents: Any, x: Any) -> tuple[Any, Any] | None:
        try:
            d = slope(x)
        except ImportError:
            return None
        ẋ = unthunk(tangents[1])
        Ω = g(x)
        return Ω, ZERO if _zero(ẋ) else project_to(Ω)(d * ẋ)

    def bessel_rrule(x: Any) -> tuple[Any, Pullback] | None:
        try:
            d = slope(x)
        except ImportError:
            return None
        Ω = g(x)
        px = project_to(x)

        def bessel_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, name)
            return NO, px(ZERO) if _zero(Ω̄) else px(array_or_traced(Ω̄) * d)
        return Ω, bessel_pullback

    bessel_frule.__name__ = bessel_frule.__qualname__ = f"{name.rsplit('.', 1)[-1]}_frule"
    bessel_rrule.__name__ = bessel_rrule.__qualname__ = f"{name.rsplit('.', 1)[-1]}_rrule"
    register_frule(f)(bessel_frule)
    register_rrule(f)(bessel_rrule)


_bessel_rules(np.i0, "numpy.i0", _i1)
_bessel_rules(bessel_i1, "bessel_i1", _i1_slope)


# =============================================================================
# einsum(op0, sublist0, op1, sublist1, ..., [sublistout]): the subscripts form's rules
# =============================================================================

def _letters(sub: Any) -> str:
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        else:
            s = int(s)
            if not 0 <= s < 52:
                raise ValueError(f"numpy.einsum: subscript {s} out of range [0, 52)")
            out.append(chr(ord("a") + s) if s < 26 else chr(ord("A") + s - 26))
    return "".join(out)


def _interleaved(args: Any) -> Any:
    """(subscripts, operands, positions of the operands in args)."""
    n = len(args) // 2
    operands = [args[2 * i] for i in range(n)]
    subs = [_letters(args[2 * i + 1]) for i in range(n)]
    spec = ",".join(subs)
    if len(args) % 2:
        spec += "->" + _letters(args[-1])
    return spec, operands, [2 * i for i in range(n)]


@register_frule(np.einsum, object, ...)
def einsum_interleaved_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
    if not args or isinstance(args[0], str):
        return None
    spec, operands, where = _interleaved(args)
    Ω, ΔΩ = einsum_frule((tangents[0], NO) + tuple(tangents[1 + i] for i in where), spec, *operands, **kw)
    return np.einsum(*args, **kw), ΔΩ


@register_rrule(np.einsum, object, ...)
def einsum_interleaved_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    if not args or isinstance(args[0], str):
        return None
    spec, operands, where = _interleaved(args)
    _, pb = einsum_rrule(spec, *operands, **kw)
    Ω = np.einsum(*args, **kw)

    def einsum_interleaved_pullback(Ω̄: Any) -> tuple[Any, ...]:
        got = pb(Ω̄)[2:]
        out = [NO] * (len(args) + 1)
        for g, i in zip(got, where):
            out[1 + i] = g
        return tuple(out)
    return Ω, einsum_interleaved_pullback
