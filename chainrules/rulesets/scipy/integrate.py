"""Rules for `scipy.integrate`: `trapezoid` (also NumPy's `np.trapezoid`) and
`cumulative_trapezoid` in y, x and dx; `simpson` in y; `quad` in the limits
and in the integrand's `args` (a rule that calls back into the AD).  The ODE
solvers `solve_ivp` and `odeint` are in `integrate_ode.py`.

The trapezoid rules (`chainrules/rulesets/numpy/calculus.py`, shared with
np.trapezoid) are sums (cumulative sums) of the terms
t = d·(y[1:] + y[:-1])/2 with d = diff(x) (or dx): ṫ = ḋ·m + d·ṁ, and the
pullback spreads t̄ back, ȳ = pad(t̄·conj(d)/2 at both ends), x̄ from
d̄ = t̄·conj(m) (x̄[i] = d̄[i-1] − d̄[i]), with m the mid-values.  Everything is
NumPy with rules (np.diff, np.pad, np.cumsum, np.flip, arithmetic), so the
rules differentiate again.

simpson is linear in y: ẏ ↦ simpson(ẏ, x); its pullback multiplies by the
weights w = ∂simpson/∂y, from SciPy's formulas (O(n), checked against simpson
of the unit vectors); its derivative in x is not implemented.

quad: I = ∫ₐᵇ f(t, *args) dt, ∂I/∂b = f(b), ∂I/∂a = −f(a) (Leibniz), and the
derivative in args is the integral of f's: quad of t ↦ the pushforward of f at
t (frule_via_ad), quad_vec of t ↦ f's pullback at t (rrule_via_ad).  Its
second output (the error estimate) gets no tangent.  On values traced by an
AD (a rule differentiated again) every integral is quad again, called through
its own rules (the args' derivative: quad of the pushforward, and per element
of the args quad of the pullback's component), so every order works.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.integrate as _integrate

from chainrules._core import (
    AbstractZero,
    Tangent,
    Thunk,
    Wrapped,
    frule_via_ad,
    is_traced,
    not_implemented,
    register_frule,
    register_rrule,
    rrule_via_ad,
    unthunk,
    untraced,
)
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    array_or_traced,
    output_parts,
    project_to,
    reject_out,
    seed,
    unbroadcast,
)
from chainrules.rulesets.numpy.convolution import on_any
from chainrules.rulesets._arrays import named_options
from chainrules.rulesets.scipy._ode_system import _args_tangent
from chainrules.rulesets.numpy.calculus import (
    _Trapezoid,
    _along,
    _check_x,
    _options,
    _pad_axis,
    trapezoid_rules,
)


trapezoid_rules(_integrate.trapezoid, "scipy.integrate.trapezoid")


# =============================================================================
# cumulative_trapezoid(y, x=None, dx=1.0, axis=-1, initial=None)
# =============================================================================

_cumulative = on_any(_integrate.cumulative_trapezoid)


def _initial(name: str, initial: Any) -> Any:
    if initial is not None and initial != 0:
        raise ValueError(f"{name}: initial must be None or 0, got {initial!r}")
    return initial is not None


def cumulative_trapezoid_frule(tangents: Any, y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    name = "scipy.integrate.cumulative_trapezoid"
    x, dx, axis, initial = _options(name, rest, kw, ("x", "dx", "axis", "initial"), (None, 1.0, -1, None))
    lead = _initial(name, initial)
    _check_x(name, y, x, axis)
    Ω = _cumulative(y, *rest, **kw)
    T = _Trapezoid(name, y, x, dx, axis)
    t = list(tangents[2:]) + [ZERO] * (2 - len(rest[:2]))
    ṫ = T.tangent(unthunk(tangents[1]), unthunk(t[0]), unthunk(t[1]))
    if ṫ is None:
        return Ω, ZERO
    c = np.cumsum(ṫ, axis=T.axis)
    return Ω, _pad_axis(c, T.axis, 1, 0) if lead else c


def cumulative_trapezoid_rrule(y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    name = "scipy.integrate.cumulative_trapezoid"
    x, dx, axis, initial = _options(name, rest, kw, ("x", "dx", "axis", "initial"), (None, 1.0, -1, None))
    lead = _initial(name, initial)
    _check_x(name, y, x, axis)
    Ω = _cumulative(y, *rest, **kw)
    T = _Trapezoid(name, y, x, dx, axis)
    py = project_to(y)
    px = project_to(x) if len(rest) >= 1 else None
    pdx = project_to(dx) if len(rest) >= 2 else None
    extra = (NO,) * max(len(rest) - 2, 0)

    def cumulative_trapezoid_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, name)
        if isinstance(Ω̄, AbstractZero):
            return (NO, py(ZERO)) + tuple(p(ZERO) for p in (px, pdx) if p is not None) + extra
        Ω̄ = array_or_traced(Ω̄)
        if lead:
            Ω̄ = Ω̄[T.hi]
        t̄ = np.flip(np.cumsum(np.flip(Ω̄, T.axis), axis=T.axis), T.axis)
        out = [NO, Thunk(lambda: py(T.ȳ(t̄))) if py.kind else NO]
        if px is not None:
            out.append(Thunk(lambda: px(T.x̄(t̄))) if x is not None and px.kind else NO)
        if pdx is not None:
            out.append(Thunk(lambda: pdx(np.sum(T.d̄(t̄)))) if x is None and pdx.kind else NO)
        return tuple(out) + extra
    return Ω, cumulative_trapezoid_pullback


register_frule(_integrate.cumulative_trapezoid)(cumulative_trapezoid_frule)
register_rrule(_integrate.cumulative_trapezoid)(cumulative_trapezoid_rrule)


# =============================================================================
# simpson(y, x=None, *, dx=1.0, axis=-1): in y
# =============================================================================

_simpson = on_any(_integrate.simpson)


def _ratio(num: Any, den: Any) -> Any:
    """num/den, 0 where den is 0 (SciPy's guards)."""
    return np.divide(num, den, out=np.zeros_like(np.asarray(den, dtype=float)), where=den != 0)


def _simpson_weights(n: int, x: Any, dx: Any) -> Any:
    """∂simpson/∂y along a length-n axis, SciPy's formulas (scipy/integrate/_quadrature.py):
    Simpson's 3-point weights on the pairs of intervals (0, 2, … up to N-2 for odd N, N-3 for
    even N, then Cartwright's correction on the last interval; N = 2: the trapezoid)."""
    x = None if x is None else np.asarray(untraced(x), dtype=float)
    if x is not None and x.ndim != 1:
        raise ValueError("scipy.integrate.simpson: the rule takes a 1-d x (or None), "
                         f"got shape {x.shape}")
    h = np.full(max(n - 1, 0), float(np.real(untraced(dx)))) if x is None else np.diff(x)
    w = np.zeros(n)
    if n < 2:
        return w
    if n == 2:
        return w + 0.5 * h[-1]
    starts = np.arange(0, n - 2 if n % 2 else n - 3, 2)
    if x is None:
        c0 = c2 = np.full(starts.shape, h[0] / 3.0)
        c1 = 4.0 * c0
    else:
        h0, h1 = h[starts], h[starts + 1]
        hsum, hprod = h0 + h1, h0 * h1
        q = _ratio(h0, h1)
        c0 = hsum / 6.0 * (2.0 - _ratio(1.0, q))
        c1 = hsum / 6.0 * hsum * _ratio(hsum, hprod)
        c2 = hsum / 6.0 * (2.0 - q)
    np.add.at(w, starts, c0)
    np.add.at(w, starts + 1, c1)
    np.add.at(w, starts + 2, c2)
    if n % 2 == 0:
        a, b = h[-2], h[-1]
        w[-1] += _ratio(2 * b ** 2 + 3 * a * b, 6 * (b + a))
        w[-2] += _ratio(b ** 2 + 3.0 * a * b, 6 * a)
        w[-3] -= _ratio(b ** 3, 6 * a * (a + b))
    return w


def simpson_frule(tangents: Any, y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    name = "scipy.integrate.simpson"
    x, dx, axis = _options(name, rest, kw, ("x", "dx", "axis"), (None, 1.0, -1))
    Ω = _simpson(y, *rest, **kw)
    ẏ = unthunk(tangents[1])
    if len(rest) >= 1 and not isinstance(unthunk(tangents[2]), AbstractZero):
        return Ω, not_implemented(f"{name}: the derivative in x")
    if isinstance(ẏ, AbstractZero):
        return Ω, ZERO
    return Ω, _simpson(ẏ, *rest, **kw)


def simpson_rrule(y: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    name = "scipy.integrate.simpson"
    x, dx, axis = _options(name, rest, kw, ("x", "dx", "axis"), (None, 1.0, -1))
    Ω = _simpson(y, *rest, **kw)
    py = project_to(y)
    nd = max(np.ndim(y), 1)
    ax = int(axis) % nd
    w = _along(_simpson_weights(np.shape(y)[ax] if np.ndim(y) else 1, x, dx), ax, nd)
    extra = (not_implemented(f"{name}: the derivative in x") if x is not None else NO,) if rest else ()

    def simpson_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, name)
        if isinstance(Ω̄, AbstractZero):
            return (NO, py(ZERO)) + extra
        t̄ = np.expand_dims(array_or_traced(Ω̄), ax)
        return (NO, Thunk(lambda: py(t̄ * w)) if py.kind else NO) + extra
    return Ω, simpson_pullback


register_frule(_integrate.simpson)(simpson_frule)
register_rrule(_integrate.simpson)(simpson_rrule)


# =============================================================================
# quad(func, a, b, args=(), ...) -> (value, abserr): Leibniz's rule in a and b, the
# integrand's derivative in args through the calling AD
# =============================================================================

_QUAD_OPTIONS = ("full_output", "epsabs", "epsrel", "limit", "points", "weight", "wvar", "wopts",
                 "maxp1", "limlst", "complex_func")


def _quad_options(rest: Any, kw: Any) -> Any:
    opts = named_options("scipy.integrate.quad", ("args",) + _QUAD_OPTIONS, rest, kw,
                         ("full_output", "weight", "complex_func"))
    args = opts.get("args", ())
    if not isinstance(args, tuple):
        args = (args,)
    quad_kw = {k: v for k, v in opts.items() if k != "args"}
    return args, quad_kw


def _float(v: Any) -> float:
    return float(np.real(untraced(v)))


# quad as the rules call it on traced values: through its own rules (every order)
_quad = Wrapped(_integrate.quad)


def _traced(*vs: Any) -> bool:
    return any(is_traced(v) for v in vs)


def _jvp_integrand(config: Any, func: Any, n: int) -> Any:
    """t, *args, *ṗ ↦ the pushforward of func(t, *args) along ṗ (a quad integrand whose
    own derivative in args and ṗ the calling AD takes again)."""
    def jvp_integrand(t: Any, *vals: Any) -> Any:
        _, ḟ = frule_via_ad(config, (NO, ZERO, *vals[n:]), func, t, *vals[:n])
        ḟ = unthunk(ḟ)
        return 0.0 if isinstance(ḟ, AbstractZero) else ḟ
    return jvp_integrand


@register_frule(_integrate.quad, config="forward")
def quad_frule(config: Any, tangents: Any, func: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    args, quad_kw = _quad_options(rest, kw)
    ȧ, ḃ = unthunk(tangents[2]), unthunk(tangents[3])
    ṗ = _args_tangent(tangents[4], len(args)) if rest else [ZERO] * len(args)
    traced = _traced(a, b, *args, *ṗ)
    Ω = (_quad if traced else _integrate.quad)(func, a, b, args, **quad_kw)
    İ: Any = 0.0
    if not isinstance(ḃ, AbstractZero):
        İ = İ + func(b, *args) * ḃ
    if not isinstance(ȧ, AbstractZero):
        İ = İ - func(a, *args) * ȧ
    if any(not isinstance(v, AbstractZero) for v in ṗ):
        if traced:
            dots = tuple(0.0 * p if isinstance(v, AbstractZero) else v for p, v in zip(args, ṗ))
            İ = İ + _quad(_jvp_integrand(config, func, len(args)), a, b, (*args, *dots), **quad_kw)[0]
        else:
            def jvp(t: float) -> float:
                _, ḟ = frule_via_ad(config, (NO, ZERO, *ṗ), func, t, *args)
                ḟ = unthunk(ḟ)
                return 0.0 if isinstance(ḟ, AbstractZero) else float(ḟ)
            İ = İ + _integrate.quad(jvp, _float(a), _float(b), **quad_kw)[0]
    if isinstance(İ, float) and İ == 0.0 and all(isinstance(v, AbstractZero) for v in (ȧ, ḃ, *ṗ)):
        return Ω, ZERO
    return Ω, Tangent[tuple](İ, ZERO)  # type: ignore[type-arg]


def _vjp_component(config: Any, func: Any, k: int, j: int) -> Any:
    """t, *args ↦ component j of ∂func(t, *args)/∂args[k] (a quad integrand): the
    pushforward along that unit vector, which the calling AD differentiates again."""
    def partial_integrand(t: Any, *args: Any) -> Any:
        dots: list[Any] = [ZERO] * len(args)
        shape = np.shape(args[k])
        e = np.zeros(int(np.prod(shape)))
        e[j] = 1.0
        dots[k] = e.reshape(shape) if shape else 1.0
        if getattr(config, "has_forward_mode", False):
            _, ḟ = frule_via_ad(config, (NO, ZERO, *dots), func, t, *args)
            ḟ = unthunk(ḟ)
            return 0.0 if isinstance(ḟ, AbstractZero) else np.real(ḟ)
        _, pb_f = rrule_via_ad(config, func, t, *args)
        cts = pb_f(1.0)
        v = unthunk(cts[2 + k])
        return 0.0 if isinstance(v, AbstractZero) else np.real(np.reshape(v, (-1,))[j])
    return partial_integrand


@register_rrule(_integrate.quad, config="reverse")
def quad_rrule(config: Any, func: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    args, quad_kw = _quad_options(rest, kw)
    traced = _traced(a, b, *args)
    Ω = (_quad if traced else _integrate.quad)(func, a, b, args, **quad_kw)
    pa, pb = project_to(a), project_to(b)
    pargs = [project_to(p) for p in args]
    extra = (NO,) * max(len(rest) - 1, 0)

    def quad_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ī, _ = output_parts(Ω̄, 2, "scipy.integrate.quad")
        if isinstance(Ī, AbstractZero):
            out = (NO, NO, pa(ZERO), pb(ZERO))
            return out + ((ZERO,) if rest else ()) + extra
        ā = pa(-np.conj(func(a, *args)) * Ī) if pa.kind else NO
        b̄ = pb(np.conj(func(b, *args)) * Ī) if pb.kind else NO
        if not rest:
            return NO, NO, ā, b̄
        shapes = [np.shape(p) for p in args]
        sizes = [int(np.prod(s)) for s in shapes]
        kinds = [p.kind for p in pargs]
        if traced or is_traced(Ī):
            # one quad per element of the args, each through quad's own rules
            p̄ = [p(np.reshape(np.stack([_quad(_vjp_component(config, func, k, j), a, b, args, **quad_kw)[0]
                                           for j in range(n)]), s) * Ī) if kind else NO
                  for k, (p, s, n, kind) in enumerate(zip(pargs, shapes, sizes, kinds))]
            return (NO, NO, ā, b̄, Tangent[tuple](*p̄) if p̄ else NO) + extra  # type: ignore[type-arg]
        lo, hi = _float(a), _float(b)

        def integrand(t: float) -> Any:
            _, pb_f = rrule_via_ad(config, func, t, *args)
            parts = pb_f(1.0)[2:]
            flat = [np.zeros(n) if isinstance(unthunk(v), AbstractZero) or not k
                    else np.ravel(np.real(unthunk(v))) for v, n, k in zip(parts, sizes, kinds)]
            return np.concatenate(flat) if flat else np.zeros(0)
        total = _integrate.quad_vec(integrand, lo, hi)[0] if sum(sizes) else np.zeros(0)
        pieces = np.split(total, np.cumsum(sizes)[:-1]) if sizes else []
        p̄ = [p(np.reshape(v, s) * Ī) if k else NO for p, v, s, k in zip(pargs, pieces, shapes, kinds)]
        return (NO, NO, ā, b̄, Tangent[tuple](*p̄) if p̄ else NO) + extra  # type: ignore[type-arg]
    return Ω, quad_pullback


# the ODE solvers' rules (solve_ivp, odeint): their own module
from chainrules.rulesets.scipy import integrate_ode  # noqa: E402,F401
