"""The derivative computations of the ODE rules (chainrules.rulesets.scipy.integrate_ode):
the system y′ = f(s, y, p) with its pushforward and pullback from the calling AD, the
forward sensitivities and the checkpointed adjoint, once for solve_ivp and odeint.

Second and higher derivatives, by construction (issue 24): the sensitivity and adjoint
systems are ODEs solved by the same solver, their right-hand sides take the parameters p
(and the parameters' tangents) as explicit arguments, `rhs(s, z, *q)`, passed to the
solver through its `args`.  When the rule is evaluated inside an enclosing
differentiation (its arguments, tangents or cotangents traced: `is_traced`), the solve
goes through `Wrapped(solver)`, so the enclosing AD applies the solver's own rules to it
and differentiates the sensitivity or adjoint solve as it would any ODE solve; everything
else here is computed with NumPy functions and operators on those values (no np.asarray,
no writes into arrays), which every AD traces.  What is not differentiated a second time:
the tangent of the values fun's closure holds (ḟ) and an adjoint read from a dense
forward solution.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    Tangent,
    Wrapped,
    frule_via_ad,
    is_traced,
    not_implemented,
    rrule_via_ad,
    untraced,
    unthunk,
)
from chainrules.rulesets._arrays import NO, ZERO, project_to

# Tangent parametrized by run-time types (a result class, tuple): mypy reads Tangent[...] as a type
_TANGENT: Any = Tangent


def any_traced(*xs: Any) -> bool:
    """Does any of xs (or of the lists, tuples and tangents they hold) hold a traced value?"""
    for x in xs:
        x = unthunk(x)
        if is_traced(x):
            return True
        if isinstance(x, (list, tuple)) and any_traced(*x):
            return True
        if hasattr(x, "items") and not isinstance(x, np.ndarray) and any_traced(*(v for _, v in x.items())):
            return True
    return False


def on_any(f: Any, *xs: Any) -> Any:
    """f itself on plain values, `Wrapped(f)` (f's rules, applied by the enclosing AD)
    when any of xs is traced."""
    return Wrapped(f) if any_traced(*xs) else f


def stack(xs: Any) -> Any:
    """The numbers or 0-d values xs as a vector (np.stack when any is traced)."""
    if any(map(is_traced, xs)):
        return np.stack([x if is_traced(x) else np.asarray(x, dtype=float) for x in xs])
    return np.array([float(np.real(x)) for x in xs], dtype=float)


def plain_float(x: Any) -> float:
    """The number under every level of tracing (for comparisons, not arithmetic)."""
    return float(np.real(np.ravel(np.asarray(untraced(x)))[0]))


def _args_tangent(t: Any, n: int) -> Any:
    """The tangents of an args tuple, one per element."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [ZERO] * n
    return [unthunk(v) for v in t]


def _zero(t: Any) -> bool:
    return isinstance(unthunk(t), AbstractZero)


def _vec(t: Any, n: int) -> Any:
    """A tangent of a length-n vector as a flat float vector: a zero as
    zeros, a traced one reshaped, a list holding traced values stacked
    (also optimize.py's)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return np.zeros(n)
    if is_traced(t):
        return np.reshape(t, (n,))
    if isinstance(t, (list, tuple)) and any_traced(*t):
        return np.reshape(np.stack(list(t)), (n,))
    return np.ravel(np.asarray(t, dtype=float))


def _number(t: Any) -> Any:
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return 0.0
    if is_traced(t):
        return np.reshape(t, (-1,))[0]
    return float(np.ravel(np.asarray(t, dtype=float))[0])


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
    traced = is_traced(v)
    if isinstance(y, (list, tuple)):
        parts = [v[i] if traced else float(v[i]) for i in range(len(y))]
        return parts if isinstance(y, list) else _TANGENT[tuple](*parts)
    return np.reshape(v, np.shape(y))


# =============================================================================
# the system y′ = f(s, y): fun with its args, its pushforward and its pullback
# =============================================================================

class System:
    """fun with its args as f(s, y) in the (time, state) order, whatever
    fun's order (`tfirst`), with J·(δ, ṗ) and (J_yᵀλ, J_pᵀλ) from the
    calling AD.  The parameters' cotangents are flat (`flat`, `unflat`):
    the values of args with a tangent space, then the real numbers and
    arrays of fun's closure (`cells`), in order.  Every method takes the
    args explicitly (`p`, default the call's own): the augmented systems pass
    them through the solver, so that an enclosing AD sees them."""

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

    def _call_args(self, s: Any, y: Any, p: Any) -> tuple[Any, ...]:
        p = self.args if p is None else p
        return (s, y, *p) if self.tfirst else (y, s, *p)

    def __call__(self, s: Any, y: Any, p: Any = None) -> Any:
        return _vec(self.fun(*self._call_args(s, y, p)), self.n)

    def jvp(self, config: Any, s: Any, y: Any, δ: Any, ṗ: Any, ḟ: Any, p: Any = None) -> tuple[Any, Any]:
        """(f(s, y), J_y·δ + J_p·ṗ + ∂f/∂closure·ḟ)."""
        ts = (ḟ, ZERO, δ) if self.tfirst else (ḟ, δ, ZERO)
        fy, d = frule_via_ad(config, ts + tuple(ṗ), self.fun, *self._call_args(s, y, p))
        return _vec(fy, self.n), _vec(d, self.n)

    def vjp(self, config: Any, s: Any, y: Any, λ: Any, p: Any = None) -> tuple[Any, Any, Any]:
        """(f(s, y), J_yᵀλ, J_pᵀλ flat)."""
        fy, pb = rrule_via_ad(config, self.fun, *self._call_args(s, y, p))
        g = pb(_seed_like(fy, λ))
        f̄ = unthunk(g[0])
        cells = [ZERO] * len(self.cells)
        if not isinstance(f̄, AbstractZero):
            fields = dict(f̄.items()) if hasattr(f̄, "items") else {}
            self.closure_seen |= not fields or any(k not in self.cells for k in fields)
            cells = [fields.get(k, ZERO) for k in self.cells]
        return _vec(fy, self.n), _vec(g[2 if self.tfirst else 1], self.n), self.flat([*g[3:], *cells])

    def flat(self, parts: Any) -> Any:
        if not self.P:
            return np.zeros(0)
        return np.concatenate([np.zeros(m) if not m else np.real(_vec(v, m)) for v, m in zip(parts, self.sizes)])

    def unflat(self, v: Any) -> list[Any]:
        pieces = np.split(v, np.cumsum(self.sizes)[:-1]) if self.sizes else []
        return [p(np.reshape(u, s)[()] if not s else np.reshape(u, s)) if m else NO
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
        parts = {k: v for k, v in parts.items() if not _zero(v) and (is_traced(v) or np.any(v != 0))}
        return _TANGENT[type(self.fun)](**parts) if parts else NO


# =============================================================================
# forward sensitivities and the adjoint, once for both solvers
# =============================================================================

# The right-hand sides of the augmented systems are objects, not closures: an AD tracing
# one (rrule_via_ad on a Python function) would track the numbers its closure holds, the
# sizes and indices included.

class _SensitivityRhs:
    """[y, δ]′ = [f(s, y, p), J_y·δ + J_p·ṗ], called as rhs(s, z, *q) with
    q = (*p, the nonzero ones of ṗ: those at `moving`)."""

    def __init__(self, config: Any, system: System, moving: list[int], ḟ: Any) -> None:
        self.config, self.system, self.moving, self.ḟ = config, system, moving, ḟ

    def __call__(self, s: Any, z: Any, *q: Any) -> Any:
        n, k = self.system.n, len(self.system.args)
        ṗ = [ZERO] * k
        for j, i in enumerate(self.moving):
            ṗ[i] = q[k + j]
        return np.concatenate(self.system.jvp(self.config, s, z[:n], z[n:], ṗ, self.ḟ, q[:k]))


class _AdjointRhs:
    """[y, λ, μ]′ = [f, −J_yᵀλ, −J_pᵀλ] (or [λ, μ]′ with y read from `dense`),
    called as rhs(s, z, *p)."""

    def __init__(self, config: Any, system: System, dense: Any = None) -> None:
        self.config, self.system, self.dense = config, system, dense

    def __call__(self, s: Any, z: Any, *q: Any) -> Any:
        n = self.system.n
        if self.dense is not None:
            _, a, b = self.system.vjp(self.config, s, self.dense(s), z[:n], q)
            return np.concatenate([-a, -b])
        fy, a, b = self.system.vjp(self.config, s, z[:n], z[n:2 * n], q)
        return np.concatenate([fy, -a, -b])


def sensitivities(config: Any, system: System, solve_grid: Any, ts: Any, ys: Any, t0: Any, y0: Any,
                  ẏ0: Any, ṫ0: Any, ṫs: Any, ṗ: Any, ḟ: Any) -> Any:
    """The tangents (m, n) of the states ys (m, n) at the times ts: [y, δ]
    integrated by `solve_grid(rhs, z0, q)` → the states (m, 2n) at ts, with
    rhs(s, z, *q), q = the args and the nonzero ones of their tangents."""
    n = system.n
    moving = [i for i, v in enumerate(ṗ) if not _zero(v)]
    sensitivity_rhs = _SensitivityRhs(config, system, moving, ḟ)
    δ0 = _vec(ẏ0, n) - system(t0, y0) * ṫ0
    q = (*system.args, *[ṗ[i] for i in moving])
    Δ = solve_grid(sensitivity_rhs, np.concatenate([y0, δ0]), q)[:, n:]
    if ṫs is not None:
        m = np.shape(ts)[0]
        Δ = Δ + np.stack([system(ts[i], ys[i]) for i in range(m)]) * np.reshape(ṫs, (-1, 1))
    return Δ


def adjoint(config: Any, system: System, solve: Any, ts: Any, ys: Any, ȳs: Any, t0: Any, y0: Any,
            dense: Any = None) -> tuple[Any, Any, Any, Any]:
    """(ȳ0, p̄ flat, t̄s, t̄₀) for the states ys (m, n) at the times ts, with
    the cotangents ȳs (m, n): λ jumps by ȳᵢ at tᵢ, [y, λ, μ] is integrated back
    to the previous point by `solve(rhs, z0, t_from, t_to, q)` → the state at
    t_to (rhs(s, z, *q), q the args), y restarting at each checkpoint yᵢ.
    With `dense` (a callable s ↦ y(s), the forward solution kept whole, plain
    values only) [λ, μ] only, y read from it."""
    n, P = system.n, system.P
    λ, μ = np.zeros(n), np.zeros(P)
    m = np.shape(ts)[0]
    t̄s: list[Any] = [0.0] * m
    q = tuple(system.args)
    adjoint_rhs, dense_rhs = _AdjointRhs(config, system), _AdjointRhs(config, system, dense)

    carrying = False
    for i in range(m - 1, -1, -1):
        ȳ = ȳs[i]
        if np.any(untraced(ȳ)) or is_traced(ȳ):
            λ = λ + ȳ
            t̄s[i] = system(ts[i], ys[i]) @ ȳ
            carrying = True
        lo = ts[i - 1] if i else t0
        if plain_float(lo) == plain_float(ts[i]) or not carrying:      # nothing to carry back (λ = 0 stays 0)
            continue
        if dense is None:
            z = solve(adjoint_rhs, np.concatenate([ys[i], λ, μ]), ts[i], lo, q)
            λ, μ = z[n:2 * n], z[2 * n:]
        else:
            z = solve(dense_rhs, np.concatenate([λ, μ]), ts[i], lo, q)
            λ, μ = z[:n], z[n:]
    t̄0 = -(system(t0, y0) @ λ)
    return λ, μ, stack(t̄s), t̄0 if is_traced(t̄0) else float(t̄0)


def check_y0(name: str, y0: Any) -> Any:
    plain = untraced(y0)
    if np.iscomplexobj(plain) or np.ndim(plain) > 1:
        raise ValueError(f"{name}: the rule takes a real y0 of at most one dimension, got "
                         f"{np.asarray(plain).dtype} of shape {np.shape(plain)}")
    if is_traced(y0):
        return np.reshape(y0, (-1,))
    return np.atleast_1d(np.asarray(y0, dtype=float))


def augmented(kw: dict[str, Any], n: int, total: int) -> dict[str, Any]:
    """The solver's options for an augmented system of `total` equations whose
    first n are y's: a vector atol extended (its smallest entry for the rest)."""
    kw = dict(kw)
    atol = kw.get("atol")
    if atol is not None and np.ndim(atol) != 0:
        a = np.asarray(atol, dtype=float)
        kw["atol"] = np.concatenate([a, np.full(total - n, float(np.min(a)))])
    return kw
