"""Rules for the ODE solvers of `scipy.integrate`: `solve_ivp` and `odeint`,
in the initial state y0, the values passed in `args`, the time points and
(solve_ivp) the end points of `t_span`.

With y′ = f(t, y, p) (fun's own argument order whatever it is), y(t₀) = y0:

- frule, forward sensitivities: the tangent δ = ∂y·(ẏ0, ṗ) solves
  δ′ = J_y·δ + J_p·ṗ, δ(t₀) = ẏ0 − f(t₀, y0)·ṫ₀, integrated together with y
  (the augmented system [y, δ], the same solver and tolerances), f's
  pushforward J_y·δ + J_p·ṗ from the calling AD (`frule_via_ad`, which also
  pushes forward the values fun's closure holds); the output's tangent at tᵢ
  is δ(tᵢ) + f(tᵢ, yᵢ)·ṫᵢ.
- rrule, the adjoint method (Pontryagin; Chen et al. 2018, "Neural ordinary
  differential equations", with checkpoints): the states yᵢ at the output
  points are the checkpoints; from the last point backwards, λ jumps by ȳᵢ at
  each tᵢ and [y, λ, μ] is integrated back to the previous point,
  y′ = f, λ′ = −J_yᵀλ, μ′ = −J_pᵀλ, y restarting from the checkpoint yᵢ (so
  that integrating y backwards cannot drift far), the vector-Jacobian products
  from f's pullback (`rrule_via_ad`).  Then ȳ0 = λ(t₀), p̄ = μ(t₀),
  t̄ᵢ = f(tᵢ, yᵢ)·ȳᵢ and t̄₀ = −f(t₀, y0)·λ(t₀).  Memory: the m output states
  and one interval's solver state, not the forward solution's every step
  (`adjoint(..., dense=sol)` runs the same backward pass on a dense forward
  solution instead: the bench compares the two).  Cost: one backward solve of
  2n + P equations, one pullback of f per evaluation, whatever the number of
  parameters P (forward sensitivities cost one pushforward per evaluation per
  tangent direction).

`solve_ivp` returns SciPy's `OdeResult`: its tangent is a
`Tangent[OdeResult]` with the field `y` (and `t`, the tangent of t_eval, or
of t_span's ends when t_eval is None), the pullback reads the cotangents of
`.y` and `.t`; the other fields have none.  With t_eval=None the output
times are the solver's steps: the inner ones are constants (a step size is no
differentiable function of the parameters), the first and last are t_span's.
The rules refuse (TypeError) `events`, `vectorized=True`, `dense_output=True`
and a `jac` given as a matrix, and raise a RuntimeError naming
scipy.integrate.solve_ivp when a solve fails (status < 0).  The augmented
solves leave fun's `jac`, `jac_sparsity`, `lband`, `uband` to the solver's
finite differences (they describe the n×n system only).

odeint(func, y0, t, args=(), ..., tfirst=False): the same two functions
(`sensitivities`, `adjoint`), integrated by odeint itself; `Dfun` and
`full_output` are refused.

Real systems, y0 one-dimensional.  Every order: the sensitivity and adjoint
solves are ODE solves by the same solver, their parameters passed to it
explicitly, and inside an enclosing differentiation they go through the
solver's own rules (chainrules.rulesets.scipy._ode_system), so forward and
reverse over either rule give second derivatives.  The values passed in `args` and the real
numbers and arrays fun's closure holds are parameters of both rules (a
closure's cotangent is a `Tangent` of its cells; any other value of the
closure that the pullback of f gives a cotangent for makes it a
NotImplementedTangent saying so: pass it in `args=`).
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
    is_traced,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, named_options, project_to, seed
from chainrules.rulesets.scipy._ode_system import (  # noqa: F401  (System, sensitivities, adjoint: used by the tests)
    System,
    _args_tangent,
    _number,
    _vec,
    _zero,
    adjoint,
    augmented,
    check_y0,
    on_any,
    sensitivities,
    stack,
)
from chainrules.rulesets.scipy.optimize import _field

# Tangent parametrized by run-time types (a result class, tuple): mypy reads Tangent[...] as a type
_TANGENT: Any = Tangent


# =============================================================================
# solve_ivp(fun, t_span, y0, method='RK45', t_eval=None, dense_output=False, events=None,
#           vectorized=False, args=None, **options) -> OdeResult
# =============================================================================

_IVP = "scipy.integrate.solve_ivp"
_IVP_POSITIONAL = ("method", "t_eval", "dense_output", "events", "vectorized", "args")
# options that describe fun's n×n Jacobian: not passed to the augmented solves
_IVP_JACOBIAN = ("jac", "jac_sparsity", "lband", "uband")


def _ivp_options(rest: Any, kw: Any) -> dict[str, Any]:
    if len(rest) > len(_IVP_POSITIONAL):
        raise TypeError(f"{_IVP}: too many positional arguments")
    opts = {"method": "RK45", "t_eval": None, "dense_output": False, "events": None, "vectorized": False,
            "args": None}
    opts.update(zip(_IVP_POSITIONAL, rest))
    for k, v in kw.items():
        if k in _IVP_POSITIONAL[:len(rest)]:
            raise TypeError(f"{_IVP}: got multiple values for argument {k}")
        opts[k] = v
    for k in ("dense_output", "events", "vectorized"):
        if opts[k] is not None and opts[k] is not False:
            raise TypeError(f"{_IVP}: the rule does not cover {k}={opts[k]!r}")
    jac = opts.get("jac")
    if jac is not None and not callable(jac):
        raise TypeError(f"{_IVP}: the rule does not cover jac given as a matrix (pass a function, or None)")
    return opts


class _Ivp:
    """One solve_ivp call: its result and what both rules need from it."""

    def __init__(self, fun: Any, t_span: Any, y0: Any, rest: Any, kw: Any) -> None:
        self.opts = opts = _ivp_options(rest, kw)
        self.y0 = check_y0(_IVP, y0)
        # inside an enclosing differentiation the primal goes through solve_ivp's rules too
        self.res = on_any(_integrate.solve_ivp, t_span, y0, rest)(fun, t_span, y0, *rest, **kw)
        self.check(self.res)
        args = opts["args"]
        self.args = () if args is None else tuple(args)
        self.n = n = self.y0.shape[0]
        self.system = System(_IVP, fun, self.args, True, n)
        self.t0, self.tf = (t if is_traced(t) else float(np.real(t)) for t in t_span)
        self.ts = self.res.t if is_traced(self.res.t) else np.asarray(self.res.t, dtype=float)
        self.ys = np.transpose(self.res.y) if is_traced(self.res.y) else np.asarray(self.res.y, dtype=float).T
        self.solver_kw = {k: v for k, v in opts.items()
                          if k not in _IVP_POSITIONAL and k not in _IVP_JACOBIAN}
        self.method = opts["method"]

    @staticmethod
    def check(res: Any) -> None:
        if res.status < 0:
            raise RuntimeError(f"{_IVP}: the solve failed (status {res.status}: {res.message}); the rule does "
                               "not differentiate it")

    def kw_for(self, total: int) -> dict[str, Any]:
        return augmented(self.solver_kw, self.n, total)

    def _solve(self, rhs: Any, span: Any, z0: Any, t_eval: Any, q: Any, kw: Any) -> Any:
        # by position up to args: where an enclosing differentiation's rules take tangents
        r = on_any(_integrate.solve_ivp, span, z0, t_eval, q)(rhs, span, z0, self.method, t_eval, False, None,
                                                             False, q, **kw)
        self.check(r)
        return r.y

    def solve_grid(self, rhs: Any, z0: Any, q: Any) -> Any:
        return np.transpose(self._solve(rhs, (self.t0, self.tf), z0, self.ts, q, self.kw_for(np.shape(z0)[0])))

    def solve(self, rhs: Any, z0: Any, a: Any, b: Any, q: Any) -> Any:
        kw = self.kw_for(np.shape(z0)[0])
        kw.pop("first_step", None)
        return self._solve(rhs, (a, b), z0, None, q, kw)[:, -1]

    def output_times_tangent(self, ṫ0: Any, ṫf: Any) -> Any:
        """t_eval=None: the output times' tangent, t_span's at the ends, 0 inside."""
        parts: list[Any] = [0.0] * np.shape(self.ts)[0]
        parts[0] = parts[0] + ṫ0
        parts[-1] = parts[-1] + ṫf
        return stack(parts)


def _span_tangent(t: Any) -> tuple[Any, Any]:
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return 0.0, 0.0
    a, b = list(t)
    return _number(a), _number(b)


def _nonzero(x: Any) -> bool:
    return is_traced(x) or bool(np.any(x != 0))


def _ivp_result_tangent(res: Any, fields: dict[str, Any]) -> Any:
    fields = {k: v for k, v in fields.items() if v is not None}
    return _TANGENT[type(res)](fields) if fields else ZERO


@register_frule(_integrate.solve_ivp, config="forward")
def solve_ivp_frule(config: Any, tangents: Any, fun: Any, t_span: Any, y0: Any, *rest: Any,
                    **kw: Any) -> tuple[Any, Any]:
    ivp = _Ivp(fun, t_span, y0, rest, kw)
    ḟ, ẏ0 = unthunk(tangents[1]), unthunk(tangents[3])
    ṫ0, ṫf = _span_tangent(tangents[2])
    ṫ_eval = unthunk(tangents[5]) if len(rest) >= 2 and ivp.opts["t_eval"] is not None else ZERO
    ṗ = _args_tangent(tangents[9], len(ivp.args)) if len(rest) >= 6 and ivp.args else [ZERO] * len(ivp.args)
    if (isinstance(ḟ, AbstractZero) and _zero(ẏ0) and not _nonzero(ṫ0) and not _nonzero(ṫf) and _zero(ṫ_eval)
            and all(map(_zero, ṗ))):
        return ivp.res, ZERO
    if ivp.opts["t_eval"] is None:
        ṫs = ivp.output_times_tangent(ṫ0, ṫf)
        ṫ_out = ṫs if _nonzero(ṫs) else None
    else:
        ṫs = None if _zero(ṫ_eval) else _vec(ṫ_eval, np.shape(ivp.ts)[0])
        ṫ_out = ṫs
    Δ = sensitivities(config, ivp.system, ivp.solve_grid, ivp.ts, ivp.ys, ivp.t0, ivp.y0, ẏ0, ṫ0, ṫs, ṗ, ḟ)
    return ivp.res, _ivp_result_tangent(ivp.res, {"y": np.transpose(Δ), "t": ṫ_out})


@register_rrule(_integrate.solve_ivp, config="reverse")
def solve_ivp_rrule(config: Any, fun: Any, t_span: Any, y0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ivp = _Ivp(fun, t_span, y0, rest, kw)
    pspan, py0 = project_to(t_span), project_to(y0)
    t_eval_given = ivp.opts["t_eval"] is not None
    pt_eval = project_to(ivp.opts["t_eval"]) if len(rest) >= 2 and t_eval_given else None
    m, n = np.shape(ivp.ts)[0], ivp.n

    def solve_ivp_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, _IVP)
        ȳ, t̄_out = unthunk(_field(Ω̄, "y")), unthunk(_field(Ω̄, "t"))
        ȳs = np.zeros((m, n)) if isinstance(ȳ, AbstractZero) else np.transpose(np.reshape(array_or_traced(ȳ), (n, m)))
        t̄_out = np.zeros(m) if isinstance(t̄_out, AbstractZero) else _vec(t̄_out, m)
        ȳ0, μ, t̄s, t̄0 = adjoint(config, ivp.system, ivp.solve, ivp.ts, ivp.ys, ȳs, ivp.t0, ivp.y0)
        t̄s = t̄s + t̄_out
        t̄f: Any = 0.0
        if not t_eval_given:
            t̄0, t̄f = t̄0 + t̄s[0], t̄s[-1]
        if isinstance(t_span, (tuple, list)):
            span̄ = pspan(type(t_span)((t̄0, t̄f)))
        else:
            span̄ = pspan(stack([t̄0, t̄f]))
        out = [NO, ivp.system.fun_cotangent(μ), span̄, py0(np.reshape(ȳ0, np.shape(y0)))]
        for k in range(len(rest)):
            if k == 1:
                out.append(pt_eval(t̄s) if pt_eval is not None else NO)
            elif k == 5 and ivp.args:
                p̄ = ivp.system.args_cotangent(μ)
                out.append(p̄ if isinstance(rest[5], list) else _TANGENT[tuple](*p̄))
            else:
                out.append(NO)
        return tuple(out)
    return ivp.res, solve_ivp_pullback


# =============================================================================
# odeint(func, y0, t, args=(), Dfun=None, ..., tfirst=False) -> the states (m, n)
# =============================================================================

_ODEINT = "scipy.integrate.odeint"
_ODEINT_OPTIONS = ("args", "Dfun", "col_deriv", "full_output", "ml", "mu", "rtol", "atol", "tcrit", "h0",
                   "hmax", "hmin", "ixpr", "mxstep", "mxhnil", "mxordn", "mxords", "printmessg", "tfirst")


class _Odeint:
    def __init__(self, func: Any, y0: Any, t: Any, rest: Any, kw: Any) -> None:
        opts = named_options(_ODEINT, _ODEINT_OPTIONS, rest, kw, ("Dfun", "full_output"))
        args = opts.pop("args", ())
        self.args = args if isinstance(args, tuple) else (args,)
        tfirst = bool(opts.pop("tfirst", False))
        self.opts = opts
        self.y0 = check_y0(_ODEINT, y0)
        # inside an enclosing differentiation the primal goes through odeint's rules too
        self.Ω = on_any(_integrate.odeint, y0, t, rest)(func, y0, t, *rest, **kw)
        self.n = self.y0.shape[0]
        self.ts = t if is_traced(t) else np.asarray(t, dtype=float)
        self.ys = np.reshape(self.Ω, (np.shape(t)[0], self.n))
        self.system = System(_ODEINT, func, self.args, tfirst, self.n)

    def kw_for(self, total: int) -> dict[str, Any]:
        return augmented(self.opts, self.n, total)

    def solve_grid(self, rhs: Any, z0: Any, q: Any) -> Any:
        return on_any(_integrate.odeint, z0, self.ts, q)(rhs, z0, self.ts, q, tfirst=True,
                                                          **self.kw_for(np.shape(z0)[0]))

    def solve(self, rhs: Any, z0: Any, a: Any, b: Any, q: Any) -> Any:
        kw = self.kw_for(np.shape(z0)[0])
        kw.pop("tcrit", None)
        return on_any(_integrate.odeint, z0, a, b, q)(rhs, z0, stack([a, b]), q, tfirst=True, **kw)[-1]


@register_frule(_integrate.odeint, config="forward")
def odeint_frule(config: Any, tangents: Any, func: Any, y0: Any, t: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ode = _Odeint(func, y0, t, rest, kw)
    ḟ, ẏ0, ṫ = unthunk(tangents[1]), unthunk(tangents[2]), unthunk(tangents[3])
    ṗ = _args_tangent(tangents[4], len(ode.args)) if rest else [ZERO] * len(ode.args)
    if all(map(_zero, (ḟ, ẏ0, ṫ, *ṗ))):
        return ode.Ω, ZERO
    m = np.shape(ode.ts)[0]
    ṫs = None if isinstance(ṫ, AbstractZero) else _vec(ṫ, m)
    Δ = sensitivities(config, ode.system, ode.solve_grid, ode.ts, ode.ys, ode.ts[0], ode.y0, ẏ0,
                      0.0 if ṫs is None else ṫs[0], ṫs, ṗ, ḟ)
    return ode.Ω, np.reshape(Δ, np.shape(ode.Ω))


@register_rrule(_integrate.odeint, config="reverse")
def odeint_rrule(config: Any, func: Any, y0: Any, t: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ode = _Odeint(func, y0, t, rest, kw)
    py0, pt = project_to(y0), project_to(t)
    extra = (NO,) * max(len(rest) - 1, 0)

    def odeint_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, _ODEINT)
        if isinstance(Ω̄, AbstractZero):
            return (NO, NO, py0(ZERO), pt(ZERO)) + ((ZERO,) if rest else ()) + extra
        m = np.shape(ode.ts)[0]
        ȳs = np.reshape(Ω̄, (m, ode.n)) if is_traced(Ω̄) else np.reshape(np.asarray(Ω̄, dtype=float), (m, ode.n))
        ȳ0, μ, t̄s, t̄0 = adjoint(config, ode.system, ode.solve, ode.ts, ode.ys, ȳs, ode.ts[0], ode.y0)
        t̄s = t̄s + np.concatenate([np.reshape(t̄0, (1,)), np.zeros(m - 1)])
        out = (NO, ode.system.fun_cotangent(μ), py0(np.reshape(ȳ0, np.shape(y0))) if py0.kind else NO,
               pt(np.reshape(t̄s, np.shape(t))) if pt.kind else NO)
        if not rest:
            return out
        p̄ = ode.system.args_cotangent(μ)
        return out + (_TANGENT[tuple](*p̄) if p̄ else NO,) + extra
    return ode.Ω, odeint_pullback
