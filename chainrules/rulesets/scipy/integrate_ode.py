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

Real systems, y0 one-dimensional; first order (the solvers run on plain
values: no second derivatives).  The values passed in `args` and the real
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
    frule_via_ad,
    not_implemented,
    register_frule,
    register_rrule,
    rrule_via_ad,
    unthunk,
)
from chainrules.rulesets._arrays import NO, ZERO, named_options, project_to, seed
from chainrules.rulesets.scipy.optimize import _field

# Tangent parametrized by run-time types (a result class, tuple): mypy reads Tangent[...] as a type
_TANGENT: Any = Tangent


def _args_tangent(t: Any, n: int) -> Any:
    """The tangents of an args tuple, one per element."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [ZERO] * n
    return [unthunk(v) for v in t]


def _zero(t: Any) -> bool:
    return isinstance(unthunk(t), AbstractZero)


def _vec(t: Any, n: int) -> Any:
    t = unthunk(t)
    return np.zeros(n) if isinstance(t, AbstractZero) else np.ravel(np.asarray(t, dtype=float))


def _number(t: Any) -> float:
    t = unthunk(t)
    return 0.0 if isinstance(t, AbstractZero) else float(np.ravel(np.asarray(t, dtype=float))[0])


def _closure_values(fun: Any) -> dict[str, Any]:
    """The real numbers and arrays in the closure cells of a Python function
    (the values its pullback gives a cotangent for), by name."""
    code, cells = getattr(fun, "__code__", None), getattr(fun, "__closure__", None)
    if code is None or not cells:
        return {}
    out = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            v = cell.cell_contents
        except ValueError:          # an empty cell
            continue
        if isinstance(v, (float, np.floating)) or isinstance(v, np.ndarray) and v.dtype.kind == "f":
            out[name] = v
    return out


def _seed_like(y: Any, v: Any) -> Any:
    """The vector v shaped as fun's output y (a list for a list)."""
    if isinstance(y, list):
        return [float(e) for e in v]
    if isinstance(y, tuple):
        return _TANGENT[tuple](*[float(e) for e in v])
    return np.reshape(v, np.shape(y))


# =============================================================================
# the system y′ = f(s, y): fun with its args, its pushforward and its pullback
# =============================================================================

class System:
    """fun with its args as f(s, y) in the (time, state) order, whatever
    fun's order (`tfirst`), with J·(δ, ṗ) and (J_yᵀλ, J_pᵀλ) from the
    calling AD.  The parameters' cotangents are flat (`flat`, `unflat`):
    the values of args with a tangent space, then the real numbers and
    arrays of fun's closure (`cells`), in order."""

    def __init__(self, name: str, fun: Any, args: tuple[Any, ...], tfirst: bool, n: int) -> None:
        self.name, self.fun, self.args, self.tfirst, self.n = name, fun, args, tfirst, n
        # the parameters: args, then the real numbers and arrays fun's closure holds
        self.cells = _closure_values(fun)
        values = [*args, *self.cells.values()]
        self.projections = [project_to(p) for p in values]
        self.shapes = [np.shape(p) for p in values]
        self.sizes = [int(np.prod(s)) if p.kind else 0 for s, p in zip(self.shapes, self.projections)]
        self.P = sum(self.sizes)
        self.closure_seen = False

    def _call_args(self, s: float, y: Any) -> tuple[Any, ...]:
        return (s, y, *self.args) if self.tfirst else (y, s, *self.args)

    def __call__(self, s: float, y: Any) -> Any:
        return np.asarray(self.fun(*self._call_args(s, y)), dtype=float).reshape(self.n)

    def jvp(self, config: Any, s: float, y: Any, δ: Any, ṗ: Any, ḟ: Any) -> tuple[Any, Any]:
        """(f(s, y), J_y·δ + J_p·ṗ + ∂f/∂closure·ḟ)."""
        ts = (ḟ, ZERO, δ) if self.tfirst else (ḟ, δ, ZERO)
        fy, d = frule_via_ad(config, ts + tuple(ṗ), self.fun, *self._call_args(s, y))
        return np.asarray(fy, dtype=float).reshape(self.n), _vec(d, self.n)

    def vjp(self, config: Any, s: float, y: Any, λ: Any) -> tuple[Any, Any, Any]:
        """(f(s, y), J_yᵀλ, J_pᵀλ flat)."""
        fy, pb = rrule_via_ad(config, self.fun, *self._call_args(s, y))
        g = pb(_seed_like(fy, λ))
        f̄ = unthunk(g[0])
        cells = [ZERO] * len(self.cells)
        if not isinstance(f̄, AbstractZero):
            fields = dict(f̄.items()) if hasattr(f̄, "items") else {}
            self.closure_seen |= not fields or any(k not in self.cells for k in fields)
            cells = [fields.get(k, ZERO) for k in self.cells]
        return (np.asarray(fy, dtype=float).reshape(self.n), _vec(g[2 if self.tfirst else 1], self.n),
                self.flat([*g[3:], *cells]))

    def flat(self, parts: Any) -> Any:
        if not self.P:
            return np.zeros(0)
        return np.concatenate([np.zeros(m) if not m else np.real(_vec(v, m)) for v, m in zip(parts, self.sizes)])

    def unflat(self, v: Any) -> list[Any]:
        pieces = np.split(v, np.cumsum(self.sizes)[:-1]) if self.sizes else []
        return [p(np.reshape(u, s)[()]) if m else NO
                for p, u, s, m in zip(self.projections, pieces, self.shapes, self.sizes)]

    def args_cotangent(self, μ: Any) -> list[Any]:
        return self.unflat(μ)[:len(self.args)]

    def fun_cotangent(self, μ: Any) -> Any:
        """fun's cotangent: a Tangent of its closure's numbers and arrays (what
        the pullbacks of f gave), NotImplementedTangent for any other value."""
        if self.closure_seen:
            return not_implemented(f"{self.name}: the adjoint in a value fun's closure holds that is no "
                                   "real number or array (pass it in args=)")
        parts = dict(zip(self.cells, self.unflat(μ)[len(self.args):]))
        parts = {k: v for k, v in parts.items() if not _zero(v) and np.any(v != 0)}
        return _TANGENT[type(self.fun)](**parts) if parts else NO


# =============================================================================
# forward sensitivities and the adjoint, once for both solvers
# =============================================================================

def sensitivities(config: Any, system: System, solve_grid: Any, ts: Any, ys: Any, t0: float, y0: Any,
                  ẏ0: Any, ṫ0: float, ṫs: Any, ṗ: Any, ḟ: Any) -> Any:
    """The tangents (m, n) of the states ys (m, n) at the times ts: [y, δ]
    integrated by `solve_grid(rhs, z0)` → the states (m, 2n) at ts."""
    n = system.n

    def sensitivity_rhs(s: float, z: Any) -> Any:
        return np.concatenate(system.jvp(config, s, z[:n], z[n:], ṗ, ḟ))
    δ0 = _vec(ẏ0, n) - system(t0, y0) * ṫ0
    Δ = solve_grid(sensitivity_rhs, np.concatenate([y0, δ0]))[:, n:]
    if ṫs is not None:
        Δ = Δ + np.stack([system(s, y) for s, y in zip(ts, ys)]) * np.reshape(ṫs, (-1, 1))
    return Δ


def adjoint(config: Any, system: System, solve: Any, ts: Any, ys: Any, ȳs: Any, t0: float, y0: Any,
            dense: Any = None) -> tuple[Any, Any, Any, float]:
    """(ȳ0, p̄ flat, t̄s, t̄₀) for the states ys (m, n) at the times ts, with
    the cotangents ȳs (m, n): λ jumps by ȳᵢ at tᵢ, [y, λ, μ] is integrated back
    to the previous point by `solve(rhs, z0, t_from, t_to)` → the state at
    t_to, y restarting at each checkpoint yᵢ.  With `dense` (a callable s ↦
    y(s), the forward solution kept whole) [λ, μ] only, y read from it."""
    n, P = system.n, system.P
    λ, μ = np.zeros(n), np.zeros(P)
    t̄s = np.zeros(len(ts))

    def adjoint_rhs(s: float, z: Any) -> Any:
        fy, a, b = system.vjp(config, s, z[:n], z[n:2 * n])
        return np.concatenate([fy, -a, -b])

    def dense_rhs(s: float, z: Any) -> Any:
        _, a, b = system.vjp(config, s, dense(s), z[:n])
        return np.concatenate([-a, -b])

    for i in range(len(ts) - 1, -1, -1):
        ȳ = ȳs[i]
        if ȳ.any():
            λ = λ + ȳ
            t̄s[i] = system(ts[i], ys[i]) @ ȳ
        lo = ts[i - 1] if i else t0
        if lo == ts[i] or not λ.any():      # nothing to carry back (λ = 0 stays 0)
            continue
        if dense is None:
            z = solve(adjoint_rhs, np.concatenate([ys[i], λ, μ]), ts[i], lo)
            λ, μ = z[n:2 * n], z[2 * n:]
        else:
            z = solve(dense_rhs, np.concatenate([λ, μ]), ts[i], lo)
            λ, μ = z[:n], z[n:]
    return λ, μ, t̄s, -float(system(t0, y0) @ λ)


def _check_y0(name: str, y0: Any) -> Any:
    if np.iscomplexobj(y0) or np.ndim(y0) > 1:
        raise ValueError(f"{name}: the rule takes a real y0 of at most one dimension, got "
                         f"{np.asarray(y0).dtype} of shape {np.shape(y0)}")
    return np.atleast_1d(np.asarray(y0, dtype=float))


def _augmented(kw: dict[str, Any], n: int, total: int) -> dict[str, Any]:
    """The solver's options for an augmented system of `total` equations whose
    first n are y's: a vector atol extended (its smallest entry for the rest)."""
    kw = dict(kw)
    atol = kw.get("atol")
    if atol is not None and np.ndim(atol) != 0:
        a = np.asarray(atol, dtype=float)
        kw["atol"] = np.concatenate([a, np.full(total - n, float(np.min(a)))])
    return kw


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
        self.y0 = _check_y0(_IVP, y0)
        self.res = _integrate.solve_ivp(fun, t_span, y0, *rest, **kw)
        self.check(self.res)
        args = opts["args"]
        self.args = () if args is None else tuple(args)
        self.n = n = self.y0.shape[0]
        self.system = System(_IVP, fun, self.args, True, n)
        self.t0, self.tf = (float(np.real(t)) for t in t_span)
        self.ts = np.asarray(self.res.t, dtype=float)
        self.ys = np.asarray(self.res.y, dtype=float).T
        self.solver_kw = {k: v for k, v in opts.items()
                          if k not in _IVP_POSITIONAL and k not in _IVP_JACOBIAN}
        self.solver_kw["method"] = opts["method"]

    @staticmethod
    def check(res: Any) -> None:
        if res.status < 0:
            raise RuntimeError(f"{_IVP}: the solve failed (status {res.status}: {res.message}); the rule does "
                               "not differentiate it")

    def kw_for(self, total: int) -> dict[str, Any]:
        return _augmented(self.solver_kw, self.n, total)

    def solve_grid(self, rhs: Any, z0: Any) -> Any:
        r = _integrate.solve_ivp(rhs, (self.t0, self.tf), z0, t_eval=self.ts, **self.kw_for(len(z0)))
        self.check(r)
        return r.y.T

    def solve(self, rhs: Any, z0: Any, a: float, b: float) -> Any:
        kw = self.kw_for(len(z0))
        kw.pop("first_step", None)
        r = _integrate.solve_ivp(rhs, (a, b), z0, **kw)
        self.check(r)
        return r.y[:, -1]

    def output_times_tangent(self, ṫ0: float, ṫf: float) -> Any:
        """t_eval=None: the output times' tangent, t_span's at the ends, 0 inside."""
        ṫs = np.zeros(len(self.ts))
        ṫs[0] += ṫ0
        ṫs[-1] += ṫf
        return ṫs


def _span_tangent(t: Any) -> tuple[float, float]:
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return 0.0, 0.0
    a, b = list(t)
    return _number(a), _number(b)


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
    if isinstance(ḟ, AbstractZero) and _zero(ẏ0) and ṫ0 == ṫf == 0.0 and _zero(ṫ_eval) and all(map(_zero, ṗ)):
        return ivp.res, ZERO
    if ivp.opts["t_eval"] is None:
        ṫs = ivp.output_times_tangent(ṫ0, ṫf)
        ṫ_out = ṫs if ṫs.any() else None
    else:
        ṫs = None if _zero(ṫ_eval) else _vec(ṫ_eval, len(ivp.ts))
        ṫ_out = ṫs
    Δ = sensitivities(config, ivp.system, ivp.solve_grid, ivp.ts, ivp.ys, ivp.t0, ivp.y0, ẏ0, ṫ0, ṫs, ṗ, ḟ)
    return ivp.res, _ivp_result_tangent(ivp.res, {"y": Δ.T, "t": ṫ_out})


@register_rrule(_integrate.solve_ivp, config="reverse")
def solve_ivp_rrule(config: Any, fun: Any, t_span: Any, y0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ivp = _Ivp(fun, t_span, y0, rest, kw)
    pspan, py0 = project_to(t_span), project_to(y0)
    t_eval_given = ivp.opts["t_eval"] is not None
    pt_eval = project_to(ivp.opts["t_eval"]) if len(rest) >= 2 and t_eval_given else None
    m, n = len(ivp.ts), ivp.n

    def solve_ivp_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, _IVP)
        ȳ, t̄_out = unthunk(_field(Ω̄, "y")), unthunk(_field(Ω̄, "t"))
        ȳs = np.zeros((m, n)) if isinstance(ȳ, AbstractZero) else np.reshape(np.asarray(ȳ, dtype=float), (n, m)).T
        t̄_out = np.zeros(m) if isinstance(t̄_out, AbstractZero) else _vec(t̄_out, m)
        ȳ0, μ, t̄s, t̄0 = adjoint(config, ivp.system, ivp.solve, ivp.ts, ivp.ys, ȳs, ivp.t0, ivp.y0)
        t̄s = t̄s + t̄_out
        t̄f = 0.0
        if not t_eval_given:
            t̄0, t̄f = t̄0 + t̄s[0], t̄s[-1]
        span̄ = pspan(type(t_span)((t̄0, t̄f)) if isinstance(t_span, (tuple, list)) else np.array([t̄0, t̄f]))
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
        self.y0 = _check_y0(_ODEINT, y0)
        self.Ω = _integrate.odeint(func, y0, t, *rest, **kw)
        self.n = self.y0.shape[0]
        self.ts = np.asarray(t, dtype=float)
        self.ys = np.reshape(self.Ω, (len(self.ts), self.n))
        self.system = System(_ODEINT, func, self.args, tfirst, self.n)

    def kw_for(self, total: int) -> dict[str, Any]:
        return _augmented(self.opts, self.n, total)

    def solve_grid(self, rhs: Any, z0: Any) -> Any:
        return _integrate.odeint(rhs, z0, self.ts, tfirst=True, **self.kw_for(len(z0)))

    def solve(self, rhs: Any, z0: Any, a: float, b: float) -> Any:
        kw = self.kw_for(len(z0))
        kw.pop("tcrit", None)
        return _integrate.odeint(rhs, z0, np.array([a, b]), tfirst=True, **kw)[-1]


@register_frule(_integrate.odeint, config="forward")
def odeint_frule(config: Any, tangents: Any, func: Any, y0: Any, t: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    ode = _Odeint(func, y0, t, rest, kw)
    ḟ, ẏ0, ṫ = unthunk(tangents[1]), unthunk(tangents[2]), unthunk(tangents[3])
    ṗ = _args_tangent(tangents[4], len(ode.args)) if rest else [ZERO] * len(ode.args)
    if all(map(_zero, (ḟ, ẏ0, ṫ, *ṗ))):
        return ode.Ω, ZERO
    ṫs = None if isinstance(ṫ, AbstractZero) else _vec(ṫ, len(ode.ts))
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
        ȳs = np.reshape(np.asarray(Ω̄, dtype=float), (len(ode.ts), ode.n))
        ȳ0, μ, t̄s, t̄0 = adjoint(config, ode.system, ode.solve, ode.ts, ode.ys, ȳs, ode.ts[0], ode.y0)
        t̄s[0] += t̄0
        out = (NO, ode.system.fun_cotangent(μ), py0(np.reshape(ȳ0, np.shape(y0))) if py0.kind else NO,
               pt(np.reshape(t̄s, np.shape(t))) if pt.kind else NO)
        if not rest:
            return out
        p̄ = ode.system.args_cotangent(μ)
        return out + (_TANGENT[tuple](*p̄) if p̄ else NO,) + extra
    return ode.Ω, odeint_pullback
