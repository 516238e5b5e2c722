"""Rules for NumPy's gradient and trapezoid (and the helpers of SciPy's trapezoid and
cumulative_trapezoid, `chainrules/rulesets/scipy/integrate.py`), in y, x and dx.

The sum of the terms t = d·(y[1:] + y[:-1])/2 with d = diff(x) (or dx):
ṫ = ḋ·m + d·ṁ, and the pullback spreads t̄ back, ȳ = pad(t̄·conj(d)/2 at both
ends), x̄ from d̄ = t̄·conj(m) (x̄[i] = d̄[i-1] − d̄[i]), with m the mid-values.
Everything is NumPy with rules (np.diff, np.pad, arithmetic), so the rules
differentiate again.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import AbstractZero, Tangent, Thunk, not_implemented, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, named_options, project_to, seed, unbroadcast
from chainrules.rulesets.numpy.convolution import array_arg, on_any
from chainrules.rulesets.numpy.gathers import _bincount

__all__ = ["trapezoid_rules"]


def _zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)


def _options(name: str, rest: Any, kw: Any, names: Any, defaults: Any) -> Any:
    opts = named_options(name, names, rest, kw)
    return [opts.get(k, d) for k, d in zip(names, defaults)]


def _along(v: Any, axis: int, nd: int) -> Any:
    """A 1-d v laid along `axis` of an nd-dimensional array."""
    shape = [1] * nd
    shape[axis] = -1
    return np.reshape(v, shape)


def _slices(nd: int, axis: int) -> Any:
    hi = [slice(None)] * nd
    lo = [slice(None)] * nd
    hi[axis] = slice(1, None)
    lo[axis] = slice(None, -1)
    return tuple(hi), tuple(lo)


def _pad_axis(v: Any, axis: int, before: int, after: int) -> Any:
    widths = [(0, 0)] * np.ndim(v)
    widths[axis] = (before, after)
    return np.pad(v, widths)


def _check_x(name: str, y: Any, x: Any, axis: Any) -> None:
    if x is None:
        return
    ny = max(np.ndim(y), 1)
    ax = int(axis) % ny
    if np.ndim(x) == 1:
        ok = np.shape(x)[0] == np.shape(y)[ax]
    else:
        ok = np.ndim(x) == np.ndim(y) and np.shape(x)[ax] == np.shape(y)[ax] and \
            all(m in (1, n) for m, n in zip(np.shape(x), np.shape(y)))
    if not ok:
        raise ValueError(f"{name}: x of shape {np.shape(x)} does not fit y of shape {np.shape(y)} "
                         f"along axis {axis}")


class _Trapezoid:
    """The terms t = d·m of a trapezoid sum along `axis`, and their derivatives."""

    def __init__(self, name: str, y: Any, x: Any, dx: Any, axis: Any) -> None:
        if x is not None and np.ndim(x) not in (1, np.ndim(y)):
            raise ValueError(f"{name}: the rule takes an x that is 1-d or of y's shape, got shape {np.shape(x)}")
        y = array_arg(y)
        x = array_arg(x)
        self.nd = max(np.ndim(y), 1)
        self.axis = int(axis) % self.nd
        self.hi, self.lo = _slices(self.nd, self.axis)
        self.y, self.x, self.dx = y, x, dx
        self.m = self.mid(y)
        self.d = self.diff(x) if x is not None else dx

    def mid(self, y: Any) -> Any:
        return (y[self.hi] + y[self.lo]) / 2

    def diff(self, x: Any) -> Any:
        d = np.diff(x, axis=-1 if np.ndim(x) == 1 else self.axis)
        return _along(d, self.axis, self.nd) if np.ndim(x) == 1 and self.nd > 1 else d

    def terms(self) -> Any:
        return self.d * self.m

    def tangent(self, ẏ: Any, ẋ: Any, ḋx: Any) -> Any:
        """ṫ, or None when every tangent is zero."""
        ẏ, ẋ = array_arg(ẏ), array_arg(ẋ)
        out = None
        if not isinstance(ẏ, AbstractZero):
            out = self.d * self.mid(ẏ)
        if self.x is not None and not isinstance(ẋ, AbstractZero):
            v = self.diff(ẋ) * self.m
            out = v if out is None else out + v
        if self.x is None and not isinstance(ḋx, AbstractZero):
            v = ḋx * self.m
            out = v if out is None else out + v
        return out

    def ȳ(self, t̄: Any) -> Any:
        h = np.broadcast_to(t̄ * np.conj(self.d) / 2, np.shape(self.m))
        return _pad_axis(h, self.axis, 1, 0) + _pad_axis(h, self.axis, 0, 1)

    def d̄(self, t̄: Any) -> Any:
        return t̄ * np.conj(self.m)

    def x̄(self, t̄: Any) -> Any:
        d̄ = self.d̄(t̄)
        g = _pad_axis(d̄, self.axis, 1, 0) - _pad_axis(d̄, self.axis, 0, 1)
        if np.ndim(self.x) == 1 and self.nd > 1:
            return np.reshape(unbroadcast(_along(self.x, self.axis, self.nd), g), np.shape(self.x))
        return unbroadcast(self.x, g) if np.shape(self.x) != np.shape(g) else g


# =============================================================================
# trapezoid(y, x=None, dx=1.0, axis=-1) (scipy.integrate and NumPy)
# =============================================================================

def trapezoid_rules(f: Any, name: str) -> None:
    g = on_any(f)
    names, defaults = ("x", "dx", "axis"), (None, 1.0, -1)

    def trapezoid_frule(tangents: Any, y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        x, dx, axis = _options(name, rest, kw, names, defaults)
        _check_x(name, y, x, axis)
        Ω = g(y, *rest, **kw)
        T = _Trapezoid(name, y, x, dx, axis)
        t = list(tangents[2:]) + [ZERO] * (2 - len(rest[:2]))
        ṫ = T.tangent(unthunk(tangents[1]), unthunk(t[0]), unthunk(t[1]))
        return Ω, ZERO if ṫ is None else np.sum(ṫ, axis=T.axis)

    def trapezoid_rrule(y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        x, dx, axis = _options(name, rest, kw, names, defaults)
        _check_x(name, y, x, axis)
        Ω = g(y, *rest, **kw)
        T = _Trapezoid(name, y, x, dx, axis)
        py = project_to(y)
        px = project_to(x) if len(rest) >= 1 else None
        pdx = project_to(dx) if len(rest) >= 2 else None
        extra = (NO,) * max(len(rest) - 2, 0)

        def trapezoid_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, name)
            out: list[Any] = [NO]
            if isinstance(Ω̄, AbstractZero):
                return (NO, py(ZERO)) + tuple(p(ZERO) for p in (px, pdx) if p is not None) + extra
            t̄ = np.expand_dims(array_or_traced(Ω̄), T.axis)
            out.append(Thunk(lambda: py(T.ȳ(t̄))) if py.kind else NO)
            if px is not None:
                out.append(Thunk(lambda: px(T.x̄(t̄))) if x is not None and px.kind else NO)
            if pdx is not None:
                out.append(Thunk(lambda: pdx(np.sum(T.d̄(t̄)))) if x is None and pdx.kind else NO)
            return tuple(out) + extra
        return Ω, trapezoid_pullback

    register_frule(f)(trapezoid_frule)
    register_rrule(f)(trapezoid_rrule)


if hasattr(np, "trapezoid"):
    trapezoid_rules(np.trapezoid, "numpy.trapezoid")


# =============================================================================
# gradient(f, *varargs, axis=None, edge_order=1): linear in f, a 3-point stencil D along each
# axis.  Dᵀ is gathered from gradient of the three combs (1 at every third point): output i of
# comb k is D[i, jₖ(i)], jₖ(i) the point ≡ k (mod 3) of i's stencil, so x̄[jₖ(i)] += ȳ[i]·D[i, jₖ(i)]
# (np.bincount).  A scalar spacing h: ∂/∂h = −gradient/h; coordinate arrays: not implemented.
# =============================================================================

def _gradient_setup(f: Any, varargs: Any, kw: Any) -> Any:
    o = dict(zip(("axis", "edge_order"), _options("numpy.gradient", (), kw, ("axis", "edge_order"), (None, 1))))
    nd = np.ndim(f)
    axes = o.get("axis")
    axes = list(range(nd)) if axes is None else ([axes] if np.ndim(axes) == 0 else list(axes))
    axes = [int(a) % nd for a in axes]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("numpy.gradient: invalid number of spacing arguments")
    return axes, spacing, int(o.get("edge_order", 1))


def _gradient_adjoint(ȳ: Any, shape: Any, axis: int, h: Any, edge_order: int) -> Any:
    n = shape[axis]
    g = np.moveaxis(ȳ, axis, -1)
    rows = int(np.prod(np.shape(g)[:-1], dtype=int))
    g = np.reshape(g, (rows, n))
    s = np.clip(np.arange(n) - 1, 0, max(n - 3, 0))
    offsets = (np.arange(rows) * n)[:, None]
    labels, weights = [], []
    h = array_or_traced(h)
    for k in range(3):
        comb = (np.arange(n) % 3 == k).astype(float)
        coeff = np.gradient(comb, h, edge_order=edge_order) if np.any(comb) else np.zeros(n)  # type: ignore[call-overload]
        j = np.minimum(s + (k - s) % 3, n - 1)
        labels.append(np.ravel(offsets + j))
        weights.append(np.ravel(g * coeff))
    acc = _bincount(np.concatenate(labels), np.concatenate(weights), rows * n)
    moved = list(shape[:axis]) + list(shape[axis + 1:]) + [n]
    return np.moveaxis(np.reshape(acc, moved), -1, axis)


@register_frule(np.gradient)
def gradient_frule(tangents: Any, f: Any, *varargs: Any, **kw: Any) -> tuple[Any, Any]:
    axes, spacing, edge_order = _gradient_setup(f, varargs, kw)
    Ω = np.gradient(f, *varargs, **kw)
    ḟ = unthunk(tangents[1])
    ḣ = [unthunk(t) for t in tangents[2:]]
    if len(ḣ) == 1 and len(axes) > 1:
        ḣ = ḣ * len(axes)
    if any(not _zero(t) and np.ndim(h) != 0 for t, h in zip(ḣ, spacing)):
        return Ω, not_implemented("numpy.gradient: the derivative in coordinate arrays")
    if _zero(ḟ) and all(_zero(t) for t in ḣ):
        return Ω, ZERO
    parts = list(Ω) if len(axes) > 1 else [Ω]
    if _zero(ḟ):
        dparts = [np.zeros(np.shape(p), dtype=np.result_type(p)) for p in parts]
    else:
        d = np.gradient(ḟ, *varargs, **kw)
        dparts = list(d) if len(axes) > 1 else [d]
    for i, t in enumerate(ḣ):
        if not _zero(t):
            dparts[i] = dparts[i] - parts[i] * (t / spacing[i])
    if len(axes) == 1:
        return Ω, dparts[0]
    return Ω, Tangent[type(Ω)](*dparts)  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time


@register_rrule(np.gradient)
def gradient_rrule(f: Any, *varargs: Any, **kw: Any) -> tuple[Any, Pullback]:
    axes, spacing, edge_order = _gradient_setup(f, varargs, kw)
    Ω = np.gradient(f, *varargs, **kw)
    pf = project_to(f)
    ph = [project_to(h) if np.ndim(h) == 0 else None for h in varargs]
    shape = np.shape(f)
    parts = list(Ω) if len(axes) > 1 else [Ω]

    def gradient_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.gradient")
        if len(axes) > 1:
            Ω̄s = [ZERO] * len(axes) if _zero(Ω̄) else [unthunk(v) for v in unthunk(Ω̄)]
        else:
            Ω̄s = [seed(Ω̄, "numpy.gradient")]
        f̄ = None
        for Ω̄i, ax, h in zip(Ω̄s, axes, spacing):
            if not _zero(Ω̄i):
                v = _gradient_adjoint(array_or_traced(Ω̄i), shape, ax, h, edge_order)
                f̄ = v if f̄ is None else f̄ + v
        out = [NO, pf(ZERO) if f̄ is None else pf(f̄)]
        for i, (h, p) in enumerate(zip(varargs, ph)):
            if p is None:
                out.append(not_implemented("numpy.gradient: the derivative in coordinate arrays"))
                continue
            which = range(len(axes)) if len(varargs) == 1 else [i]
            total = 0
            for k in which:
                if not _zero(Ω̄s[k]):
                    total = total - np.sum(array_or_traced(Ω̄s[k]) * np.conj(parts[k] / h))
            out.append(p(total) if p.kind else NO)
        return tuple(out)
    return Ω, gradient_pullback
