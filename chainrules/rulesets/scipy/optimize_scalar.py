"""Rules for the scalar root finders of `scipy.optimize` by the implicit
function theorem (chainrules.rulesets.scipy.optimize, which imports this
module, has the theorem and the conventions): `brentq`, `bisect`, `ridder`,
`brenth`, `toms748` (f, a, b, args=(), ...), `newton` (func, x0, fprime=None,
args=(), ...; element-wise on an array x0) and `root_scalar` (f, args=(), ...).
F = f; the bracket and the starting points get a zero tangent.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.optimize as _optimize

from chainrules._core import AbstractZero, register_frule, register_rrule, unthunk
from chainrules.rulesets._arrays import NO, ZERO
from chainrules.rulesets.scipy.optimize import (
    _TANGENT,
    _add,
    _args_cotangent,
    _args_of,
    _args_tangents,
    _call,
    _check_real,
    _field,
    _fn,
    _not_converged,
    _on_any,
    _options,
    _result_tangent,
    implicit_pullback,
    implicit_pushforward,
)

# =============================================================================
# scalar roots: brentq, bisect, ridder, brenth, toms748 (f, a, b, args=(), ...),
# newton (func, x0, fprime=None, args=(), ...), root_scalar (f, args=(), ...)
# =============================================================================

_BRACKET = ("args", "xtol", "rtol", "maxiter", "full_output", "disp")
_TOMS = ("args", "k", "xtol", "rtol", "maxiter", "full_output", "disp")


def _bracket_rules(solver: Any, names: Any) -> None:
    name = f"scipy.optimize.{solver.__name__}"
    defaults = ((),) + (None,) * (len(names) - 1)

    def solve(f: Any, a: Any, b: Any, rest: Any, kw: Any) -> Any:
        opts = _options(name, names, defaults, rest, kw)
        call = dict(zip(names, rest))
        call.update(kw)
        call["full_output"] = True
        call["disp"] = False
        args = call.pop("args", ())          # by position: where an enclosing AD's rules take tangents
        x, r = _call(name, _on_any(solver, a, b, args), f, a, b, args, **call)
        if not r.converged:
            raise _not_converged(name, r.flag)
        Ω = (x, r) if opts["full_output"] else x
        return Ω, x, _args_of(opts["args"]), bool(opts["full_output"])

    def out_tangent(full: bool, Ω: Any, ẋ: Any) -> Any:
        if not full or isinstance(ẋ, AbstractZero):
            return ẋ
        return _TANGENT[tuple](ẋ, _result_tangent(Ω[1], "root", ẋ))

    def frule(config: Any, tangents: Any, f: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        Ω, x, args, full = solve(f, a, b, rest, kw)
        ṗ = _args_tangents(tangents[4] if rest else ZERO, 0, len(rest), len(args))
        ẋ = implicit_pushforward(config, f, (x, *args), 0, (tangents[1], ZERO, *ṗ))
        return Ω, out_tangent(full, Ω, ẋ)

    def rrule(config: Any, f: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        Ω, x, args, full = solve(f, a, b, rest, kw)
        back = implicit_pullback(config, f, (x, *args), 0)
        single = bool(rest) and not isinstance(rest[0], tuple)
        extra = (NO,) * max(len(rest) - 1, 0)

        def pullback(Ω̄: Any) -> tuple[Any, ...]:
            x̄ = unthunk(Ω̄)
            if full and not isinstance(x̄, AbstractZero):
                x̄ = _add(unthunk(x̄[0]), _field(x̄[1], "root"))
            g = back(x̄)
            if g is None:
                return (NO, NO, ZERO, ZERO) + ((ZERO,) if rest else ()) + extra
            return (NO, _fn(g[0]), ZERO, ZERO) + ((_args_cotangent(g[2:], args, single),) if rest else ()) + extra
        return Ω, pullback
    frule.__name__ = f"{solver.__name__}_frule"
    rrule.__name__ = f"{solver.__name__}_rrule"
    register_frule(solver, config="forward")(frule)
    register_rrule(solver, config="reverse")(rrule)


for _solver in (_optimize.brentq, _optimize.bisect, _optimize.ridder, _optimize.brenth):
    _bracket_rules(_solver, _BRACKET)
_bracket_rules(_optimize.toms748, _TOMS)


_NEWTON = ("fprime", "args", "tol", "maxiter", "fprime2", "x1", "rtol", "full_output", "disp")


def _newton_solve(func: Any, x0: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.newton"
    opts = _options(name, _NEWTON, (None, (), 1.48e-8, 50, None, None, 0.0, False, True), rest, kw)
    call = dict(zip(_NEWTON, rest))
    call.update(kw)
    call["full_output"] = True
    call["disp"] = False
    fprime, args = call.pop("fprime", None), call.pop("args", ())     # by position (args' tangents)
    out = _call(name, _on_any(_optimize.newton, x0, args), func, x0, fprime, args, **call)
    if np.ndim(x0) == 0 and not isinstance(x0, np.ndarray) or np.size(x0) == 1 and len(out) == 2:
        x, r = out
        if not r.converged:
            raise _not_converged(name, r.flag)
    else:
        x, converged = out[0], out[1]
        if not np.all(converged):
            raise _not_converged(name, f"{int(np.sum(~np.asarray(converged)))} of {np.size(x)} elements")
    _check_real(name, x)
    Ω = out if opts["full_output"] else x
    return Ω, x, _args_of(opts["args"]), bool(opts["full_output"]), out


def _newton_tangent(full: bool, out: Any, ẋ: Any) -> Any:
    if not full or isinstance(ẋ, AbstractZero):
        return ẋ
    return _TANGENT[tuple](ẋ, *([NO] * (len(out) - 1)))


@register_frule(_optimize.newton, config="forward")
def newton_frule(config: Any, tangents: Any, func: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    Ω, x, args, full, out = _newton_solve(func, x0, rest, kw)
    ṗ = _args_tangents(tangents[4] if len(rest) > 1 else ZERO, 1, len(rest), len(args))
    ẋ = implicit_pushforward(config, func, (x, *args), 0, (tangents[1], ZERO, *ṗ), diagonal=True)
    return Ω, _newton_tangent(full, out, ẋ)


@register_rrule(_optimize.newton, config="reverse")
def newton_rrule(config: Any, func: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    Ω, x, args, full, out = _newton_solve(func, x0, rest, kw)
    back = implicit_pullback(config, func, (x, *args), 0, diagonal=True)
    single = len(rest) > 1 and not isinstance(rest[1], tuple)
    n_rest = len(rest)

    def tail(p̄: Any) -> tuple[Any, ...]:
        out_ = [NO] * n_rest
        if n_rest > 1:
            out_[1] = p̄
        return tuple(out_)

    def newton_pullback(Ω̄: Any) -> tuple[Any, ...]:
        x̄ = unthunk(Ω̄)
        if full and not isinstance(x̄, AbstractZero):
            x̄ = unthunk(x̄[0])
        g = back(x̄)
        if g is None:
            return (NO, NO, ZERO) + tail(ZERO)
        return (NO, _fn(g[0]), ZERO) + tail(_args_cotangent(g[2:], args, single))
    return Ω, newton_pullback


_ROOT_SCALAR = ("args", "method", "bracket", "fprime", "fprime2", "x0", "x1", "xtol", "rtol", "maxiter", "options")


def _root_scalar_solve(f: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.root_scalar"
    opts = _options(name, _ROOT_SCALAR, ((),) + (None,) * 10, rest, kw)
    res = _call(name, _on_any(_optimize.root_scalar, rest), f, *rest, **kw)
    if not res.converged:
        raise _not_converged(name, res.flag)
    return res, _args_of(opts["args"])


@register_frule(_optimize.root_scalar, config="forward")
def root_scalar_frule(config: Any, tangents: Any, f: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args = _root_scalar_solve(f, rest, kw)
    ṗ = _args_tangents(tangents[2] if rest else ZERO, 0, len(rest), len(args))
    ẋ = implicit_pushforward(config, f, (res.root, *args), 0, (tangents[1], ZERO, *ṗ))
    return res, _result_tangent(res, "root", ẋ)


@register_rrule(_optimize.root_scalar, config="reverse")
def root_scalar_rrule(config: Any, f: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args = _root_scalar_solve(f, rest, kw)
    back = implicit_pullback(config, f, (res.root, *args), 0)
    single = bool(rest) and not isinstance(rest[0], tuple)
    extra = (NO,) * max(len(rest) - 1, 0)

    def root_scalar_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(_field(Ω̄, "root"))
        if g is None:
            return (NO, NO) + ((ZERO,) if rest else ()) + extra
        return (NO, _fn(g[0])) + ((_args_cotangent(g[2:], args, single),) if rest else ()) + extra
    return res, root_scalar_pullback
