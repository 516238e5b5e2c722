"""Rules for `scipy.optimize`'s minimizers by the implicit function theorem
(`optimize.py` holds it, the root finders and the conventions): `minimize`,
`minimize_scalar`, `least_squares`, with F = ∇ₓ objective, at an
unconstrained optimum (∂ₓF is the Hessian).  Imported by `optimize.py`."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.optimize as _optimize

from chainrules._core import frule_via_ad, is_traced, register_frule, register_rrule, rrule_via_ad, untraced
from chainrules.rulesets._arrays import NO, ZERO
from chainrules.rulesets.scipy.optimize import (
    _args_cotangent,
    _args_of,
    _args_tangents,
    _check_real,
    _field,
    _fn,
    _not_converged,
    _on_any,
    _options,
    _result_tangent,
    _shaped,
    implicit_pullback,
    implicit_pushforward,
)


def _gradient(config: Any, fun: Any, x: Any, *a: Any) -> Any:
    """∇ₓ fun(x, *a) from the calling AD (reverse: one pullback; forward: one
    pushforward per entry of x)."""
    if getattr(config, "has_reverse_mode", False):
        _, pb = rrule_via_ad(config, fun, x, *a)
        return pb(1.0)[1]
    n = int(np.size(x))
    zeros = (ZERO,) * len(a)
    parts = []
    for j in range(n):
        u = np.zeros(n)
        u[j] = 1.0
        parts.append(frule_via_ad(config, (ZERO, _shaped(u, x), *zeros), fun, x, *a)[1])
    if np.ndim(x) == 0 and not isinstance(x, np.ndarray):
        return parts[0]
    return np.reshape(np.stack([p * 1.0 for p in parts]), np.shape(x))


def _scalar(x: Any) -> Any:
    return x if is_traced(x) else float(x)


def _second(fun: Any, x: Any, *a: Any) -> Any:
    return fun(x, *a)[1]


def _half_squares(x: Any, fun: Any, *a: Any) -> Any:
    r = fun(x, *a)
    return 0.5 * np.sum(r * r)


def _stationary(config: Any, fun: Any, jac: Any, fun_t: Any, jac_t: Any) -> Any:
    """(F, leading values, their tangents) with F(*leading, x, *args) = ∇ₓfun."""
    if callable(jac):
        return (lambda j, x, *a: j(x, *a)), (jac,), (jac_t,)
    if jac is True:
        return _second, (fun,), (fun_t,)
    return _gradient, (config, fun), (NO, fun_t)


_MINIMIZE = ("args", "method", "jac", "hess", "hessp", "bounds", "constraints", "tol", "callback", "options")


def _minimize_solve(fun: Any, x0: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.minimize"
    opts = _options(name, _MINIMIZE, ((), None, None, None, None, None, (), None, None, None), rest, kw)
    if opts["constraints"] not in (None, (), []):
        raise TypeError(f"{name}: the rule covers unconstrained optima only, not constraints=")
    res = _on_any(_optimize.minimize, x0, rest)(fun, x0, *rest, **kw)
    if not res.success:
        raise _not_converged(name, res.message)
    _check_real(name, res.x)
    if opts["bounds"] is not None:
        b = _optimize.Bounds(*zip(*opts["bounds"])) if not isinstance(opts["bounds"], _optimize.Bounds) \
            else opts["bounds"]
        lo, hi = np.broadcast_to(b.lb, np.shape(res.x)), np.broadcast_to(b.ub, np.shape(res.x))
        x = untraced(res.x)
        if np.any(x <= lo + 1e-10 * (1 + abs(lo))) or np.any(x >= hi - 1e-10 * (1 + abs(hi))):
            raise ValueError(f"{name}: the optimum lies on a bound (bounds=): the rule covers interior "
                             "(unconstrained) optima only")
    return res, _args_of(opts["args"]), opts


@register_frule(_optimize.minimize, config="forward")
def minimize_frule(config: Any, tangents: Any, fun: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args, opts = _minimize_solve(fun, x0, rest, kw)
    ṗ = _args_tangents(tangents[3] if rest else ZERO, 0, len(rest), len(args))
    jac_t = tangents[5] if len(rest) > 2 else ZERO
    F, lead, lead_t = _stationary(config, fun, opts["jac"], tangents[1], jac_t)
    k = len(lead)
    ẋ = implicit_pushforward(config, F, (*lead, res.x, *args), k, (NO, *lead_t, ZERO, *ṗ))
    return res, _result_tangent(res, "x", ẋ)


@register_rrule(_optimize.minimize, config="reverse")
def minimize_rrule(config: Any, fun: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args, opts = _minimize_solve(fun, x0, rest, kw)
    F, lead, _ = _stationary(config, fun, opts["jac"], ZERO, ZERO)
    k = len(lead)
    back = implicit_pullback(config, F, (*lead, res.x, *args), k)
    single = bool(rest) and not isinstance(rest[0], tuple)
    n_rest = len(rest)

    def minimize_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(_field(Ω̄, "x"))
        out: list[Any] = [NO] * n_rest
        if g is None:
            if n_rest:
                out[0] = ZERO
            return (NO, NO, ZERO, *out)
        f̄ = NO if callable(opts["jac"]) else _fn(g[k])
        if n_rest:
            out[0] = _args_cotangent(g[k + 2:], args, single)
        if n_rest > 2 and callable(opts["jac"]):
            out[2] = _fn(g[1])
        return (NO, f̄, ZERO, *out)
    return res, minimize_pullback


_MINIMIZE_SCALAR = ("bracket", "bounds", "args", "method", "tol", "options")


def _minimize_scalar_solve(fun: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.minimize_scalar"
    opts = _options(name, _MINIMIZE_SCALAR, (None, None, (), None, None, None), rest, kw)
    res = _on_any(_optimize.minimize_scalar, rest)(fun, *rest, **kw)
    if not res.success:
        raise _not_converged(name, res.message)
    return res, _args_of(opts["args"])


@register_frule(_optimize.minimize_scalar, config="forward")
def minimize_scalar_frule(config: Any, tangents: Any, fun: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args = _minimize_scalar_solve(fun, rest, kw)
    ṗ = _args_tangents(tangents[4] if len(rest) > 2 else ZERO, 2, len(rest), len(args))
    ẋ = implicit_pushforward(config, _gradient, (config, fun, _scalar(res.x), *args), 2,
                             (NO, NO, tangents[1], ZERO, *ṗ))
    return res, _result_tangent(res, "x", ẋ)


@register_rrule(_optimize.minimize_scalar, config="reverse")
def minimize_scalar_rrule(config: Any, fun: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args = _minimize_scalar_solve(fun, rest, kw)
    back = implicit_pullback(config, _gradient, (config, fun, _scalar(res.x), *args), 2)
    single = len(rest) > 2 and not isinstance(rest[2], tuple)
    n_rest = len(rest)

    def minimize_scalar_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(_field(Ω̄, "x"))
        out: list[Any] = [NO] * n_rest
        if n_rest > 2:
            out[2] = ZERO if g is None else _args_cotangent(g[4:], args, single)
        return (NO, NO if g is None else _fn(g[2]), *out)
    return res, minimize_scalar_pullback


def _least_squares_solve(fun: Any, x0: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.least_squares"
    if rest:
        raise TypeError(f"{name}: the rule takes the options by keyword (args= by keyword: the "
                        "parameters of fun are its args or its closure's variables)")
    if kw.get("loss", "linear") != "linear":
        raise TypeError(f"{name}: the rule covers loss='linear' only, not loss={kw['loss']!r}")
    res = _on_any(_optimize.least_squares, fun, x0)(fun, x0, **kw)
    if not res.success:
        raise _not_converged(name, res.message)
    _check_real(name, res.x)
    if np.any(untraced(res.active_mask) != 0):
        raise ValueError(f"{name}: a bound is active at the solution (bounds=): the rule covers "
                         "interior optima only")
    args = _args_of(kw.get("args", ()))
    extra = kw.get("kwargs") or {}
    return res, (lambda x, *a: fun(x, *a, **extra)) if extra else fun, args


@register_frule(_optimize.least_squares, config="forward")
def least_squares_frule(config: Any, tangents: Any, fun: Any, x0: Any, **kw: Any) -> tuple[Any, Any]:
    res, f, args = _least_squares_solve(fun, x0, (), kw)
    f_t = tangents[1] if f is fun else ZERO
    ẋ = implicit_pushforward(config, _gradient, (config, _half_squares, res.x, f, *args), 2,
                             (NO, NO, NO, ZERO, f_t, *[ZERO] * len(args)))
    return res, _result_tangent(res, "x", ẋ)


@register_rrule(_optimize.least_squares, config="reverse")
def least_squares_rrule(config: Any, fun: Any, x0: Any, **kw: Any) -> tuple[Any, Any]:
    res, f, args = _least_squares_solve(fun, x0, (), kw)
    back = implicit_pullback(config, _gradient, (config, _half_squares, res.x, f, *args), 2)

    def least_squares_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(_field(Ω̄, "x"))
        return (NO, NO if g is None or f is not fun else _fn(g[4]), ZERO)
    return res, least_squares_pullback
