"""Rules for `scipy.optimize` by the implicit function theorem: `root`,
`root_scalar`, `brentq`, `bisect`, `ridder`, `brenth`, `toms748`, `newton`,
`fixed_point`, `minimize`, `minimize_scalar`, `least_squares`.

Each solver returns x* with F(x*, p) = 0 for a function F of x and the
parameters p: the values passed in `args` (by position: keyword arguments
never get tangents; an AD's drop-in solvers pass them on by position)
and the variables captured by the user function's closure.  Then

    ẋ = −(∂ₓF)⁻¹ ∂ₚF·ṗ,       p̄ = −(∂ₚF)ᵀ w  with  (∂ₓF)ᵀ w = x̄,

one linear solve with ∂ₓF, whose columns (frule: pushforwards of the basis
vectors, `frule_via_ad`) or rows (rrule: pullbacks, `rrule_via_ad`) come from
the calling AD, then one more pushforward or pullback in the parameters.  Above
`MATRIX_FREE_ABOVE` (40) unknowns the solve is matrix-free: GMRES whose
products are those pushforwards or pullbacks (a dense Jacobian when GMRES does
not converge, or once a pullback has spent n products).

- root: F = fun (fun's first output with `jac=True`).
- root_scalar, brentq, bisect, ridder, brenth, toms748, newton: F = f
  (element-wise for newton on an array x0: ∂ₓF is diagonal).
- fixed_point: F(x) = func(x) − x.
- minimize, minimize_scalar: F = ∇ₓfun (the `jac` callable when given, fun's
  second output with `jac=True`, else the calling AD's gradient of fun), at an
  unconstrained optimum: ∂ₓF is the Hessian.  `constraints` are refused; with
  `bounds` the optimum must lie strictly inside them.
- least_squares: F = ∇ₓ ½‖r‖² = (∂ₓr)ᵀ r (the normal equations, with the
  second-order terms of the residuals: the full Hessian), loss='linear' only;
  an active bound is refused.

This module holds the implicit function theorem, root and fixed_point; the
scalar root finders are in `optimize_scalar.py`, the minimizers in
`optimize_minimize.py` (both imported with it).

The starting point (x0, x1, the bracket a, b, `bracket=`, `bounds=` of
minimize_scalar) gets a zero tangent: the solution does not depend on it, as in
JAX's `custom_root` and JAXopt.  A solver that reports no convergence
(`success` False, `converged` False) makes the rule raise a RuntimeError naming
the function: its x is no solution, and its derivative would be a wrong number.
The result's tangent: a `Tangent[OptimizeResult]` with the field `x` (`root` for
`RootResults`), the other fields without tangent; a float (array) for the
functions returning one.  Real x only.  Every order: inside an enclosing
differentiation (traced arguments, tangents or cotangents) the solve goes
through the solver's own rules (`Wrapped(solver)`: the solution is traced),
and the linear solve is np.linalg.solve on the dense Jacobian stacked from the
calling AD's products, which the enclosing AD differentiates.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.optimize as _optimize

from chainrules._core import (
    AbstractZero,
    NoTangent,
    Tangent,
    Wrapped,
    frule_via_ad,
    is_traced,
    register_frule,
    register_rrule,
    rrule_via_ad,
    unthunk,
)
from chainrules.rulesets._arrays import NO, ZERO
from chainrules.rulesets.scipy._ode_system import _vec


# =============================================================================
# the implicit function theorem, once
# =============================================================================

# Tangent parametrized by run-time types (a result class, tuple): mypy reads Tangent[...] as a type
_TANGENT: Any = Tangent

def _cell_values(f: Any) -> list[Any]:
    out = []
    for cell in getattr(f, "__closure__", None) or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:          # an empty cell
            pass
    return out


def _traced(*xs: Any, depth: int = 0) -> bool:
    """Does any of xs (or of the lists, tuples and tangents they hold, or the
    closure of a function among them) hold a traced value?"""
    if depth > 4:
        return False
    for x in xs:
        x = unthunk(x)
        if is_traced(x):
            return True
        if isinstance(x, (list, tuple)) and _traced(*x, depth=depth + 1):
            return True
        if hasattr(x, "items") and not isinstance(x, np.ndarray) and _traced(*(v for _, v in x.items()),
                                                                              depth=depth + 1):
            return True
        if callable(x) and _traced(*_cell_values(x), depth=depth + 1):
            return True
    return False


def _on_any(solver: Any, *xs: Any) -> Any:
    """The solver itself on plain values; inside an enclosing differentiation
    (any of xs traced) `Wrapped(solver)`: the enclosing AD applies the
    solver's rules, so the solution it returns is traced too (second order)."""
    return Wrapped(solver) if _traced(*xs) else solver


def _number(v: Any) -> Any:
    return v[0] if is_traced(v) else float(v[0])


def _seed_like(y: Any, v: Any) -> Any:
    """The vector v shaped as F's output y (a number for a number)."""
    if np.ndim(y) == 0 and not isinstance(y, np.ndarray):
        return _number(v)
    return np.reshape(v, np.shape(y))


def _shaped(v: Any, x: Any) -> Any:
    return _number(v) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else np.reshape(v, np.shape(x))


def _check_real(name: str, x: Any) -> None:
    if np.iscomplexobj(x):
        raise ValueError(f"{name}: the rule takes a real x, got {np.asarray(x).dtype}")


def _any_nonzero(ts: Any) -> bool:
    return any(not isinstance(unthunk(t), AbstractZero) for t in ts)


def implicit_pushforward(config: Any, F: Any, vals: Any, k: int, tangents: Any, diagonal: bool = False) -> Any:
    """ẋ at the zero x* = vals[k] of F(*vals), given the tangents of F and of
    every value (Δself first; the one at k is ignored): −(∂ₓF)⁻¹ ∂F·ṫ."""
    x = vals[k]
    n = int(np.size(x))
    ts = list(tangents)
    ts[k + 1] = ZERO
    if not _any_nonzero(ts):
        return ZERO
    rhs = _vec(frule_via_ad(config, tuple(ts), F, *vals)[1], n)
    base = [NO if isinstance(unthunk(t), NoTangent) else ZERO for t in ts]
    if diagonal:
        e = list(base)
        e[k + 1] = _shaped(np.ones(n), x)
        d = _vec(frule_via_ad(config, tuple(e), F, *vals)[1], n)
        return _shaped(-rhs / d, x)
    def jvp(u: Any) -> Any:
        e = list(base)
        e[k + 1] = _shaped(u, x)
        return _vec(frule_via_ad(config, tuple(e), F, *vals)[1], n)
    if _traced(vals, ts):
        # inside an enclosing differentiation: the dense Jacobian and np.linalg.solve, which
        # the enclosing AD differentiates (no writes into arrays, no iteration on plain floats)
        ẋ = np.linalg.solve(np.stack([jvp(u) for u in np.eye(n)], axis=1), rhs)
        return _shaped(-ẋ, x)
    ẋ = matrix_free_solve(jvp, rhs, n)
    if ẋ is None:
        J = np.empty((n, n))
        for j in range(n):
            u = np.zeros(n)
            u[j] = 1.0
            J[:, j] = jvp(u)
        ẋ = np.linalg.solve(J, rhs)
    return _shaped(-ẋ, x)


# Above this many unknowns the linear solve with ∂ₓF is matrix-free: GMRES on the calling AD's
# pushforwards (or pullbacks) of F, a few dozen for a well-conditioned ∂ₓF where the dense
# Jacobian takes n (bench/benchmarks/scientific_linalg.py ImplicitRoot, 100 unknowns: GMRES
# 16 pullbacks instead of 100).  A solve GMRES does not finish falls back on the dense Jacobian.
# Measured on the tanh system (‖W‖ = 1/2), gradient by the reference AD: dense faster at 10, 20 and
# 30 unknowns (0.63 vs 1.01 ms, 0.97 vs 1.59, 1.27 vs 1.41), matrix-free from 50 (1.74 vs 2.17 ms).
MATRIX_FREE_ABOVE = 40


def matrix_free_solve(apply: Any, v: Any, n: int, rtol: float = 1e-12) -> Any:
    """The solution w of M·w = v, M given by `apply(u) = M·u`, by GMRES
    (Arnoldi with classical Gram–Schmidt done twice, no restart, at most n/2
    products: past that the dense M is as cheap); None for n ≤
    MATRIX_FREE_ABOVE or when GMRES does not reach ‖M·w − v‖ ≤ rtol·‖v‖
    (the caller then builds M).  Written here, not scipy.sparse.linalg.gmres:
    its per-iteration Python costs more than the products at this size."""
    if n <= MATRIX_FREE_ABOVE:
        return None
    beta = float(np.linalg.norm(v))
    if beta == 0.0:
        return np.zeros(n)
    steps = n // 2
    Q = np.zeros((steps + 1, n))
    R = np.zeros((steps, steps))            # the Hessenberg matrix, made triangular by rotations
    cs, sn = np.zeros(steps), np.zeros(steps)
    g = np.zeros(steps + 1)                 # the rotated β·e₁: |g[j+1]| is the residual's norm
    g[0] = beta
    Q[0] = v / beta
    for j in range(steps):
        w = np.asarray(apply(Q[j]), dtype=float)
        h = Q[:j + 1] @ w
        w = w - h @ Q[:j + 1]
        h2 = Q[:j + 1] @ w                   # the second pass keeps Q orthogonal
        w -= h2 @ Q[:j + 1]
        col = (h + h2).tolist()
        below = math.sqrt(float(w @ w))
        for i in range(j):                   # the earlier rotations, on the new column
            col[i], col[i + 1] = cs[i] * col[i] + sn[i] * col[i + 1], -sn[i] * col[i] + cs[i] * col[i + 1]
        r = math.hypot(col[j], below)
        cs[j], sn[j] = (col[j] / r, below / r) if r else (1.0, 0.0)
        col[j] = r
        R[:j + 1, j] = col
        g[j + 1], g[j] = -sn[j] * g[j], cs[j] * g[j]
        if abs(g[j + 1]) <= rtol * beta or below <= 1e-14 * beta:
            y = np.linalg.solve(R[:j + 1, :j + 1], g[:j + 1]) if j else g[:1] / R[0, 0]
            x = y @ Q[:j + 1]
            return x if np.all(np.isfinite(x)) else None
        Q[j + 1] = w / below
    return None


def _counted(f: Any, state: Any) -> Any:
    def counted(u: Any) -> Any:
        state["spent"] = state.get("spent", 0) + 1
        return f(u)
    return counted


def implicit_pullback(config: Any, F: Any, vals: Any, k: int, diagonal: bool = False) -> Any:
    """The function x̄ ↦ the cotangents (∂F, ∂vals…) of F's arguments for the
    zero x* = vals[k] of F(*vals): F's pullback at −w, (∂ₓF)ᵀ w = x̄; the entry
    for x* itself is set to ZeroTangent() (the solution does not depend on the
    starting point)."""
    x = vals[k]
    n = int(np.size(x))
    y, pb = rrule_via_ad(config, F, *vals)
    state: dict[str, Any] = {"traced": _traced(vals)}

    def jacobian_t() -> Any:
        if "JT" not in state:
            if diagonal:
                state["JT"] = _vec(pb(_seed_like(y, np.ones(n)))[k + 1], n)
            elif state["traced"]:       # no writes: the enclosing AD differentiates it
                state["JT"] = np.stack([vjp(u) for u in np.eye(n)], axis=1)
            else:
                JT = np.empty((n, n))
                for i in range(n):
                    u = np.zeros(n)
                    u[i] = 1.0
                    JT[:, i] = vjp(u)
                state["JT"] = JT
        return state["JT"]

    def vjp(u: Any) -> Any:
        return _vec(pb(_seed_like(y, u))[k + 1], n)

    def back(x̄: Any) -> Any:
        x̄ = unthunk(x̄)
        if isinstance(x̄, AbstractZero):
            return None
        v = _vec(x̄, n)
        # matrix-free until the pullbacks spent reach the dense Jacobian's n (then it is built, kept)
        w = None if diagonal or "JT" in state or state.get("spent", 0) >= n or state["traced"] \
            or is_traced(v) else matrix_free_solve(
            _counted(vjp, state), v, n)
        if w is None:
            JT = jacobian_t()
            w = v / JT if diagonal else np.linalg.solve(JT, v)
        g = list(pb(_seed_like(y, -w)))
        g[k + 1] = ZERO
        return g
    return back


# ----- results ------------------------------------------------------------------

def _result_tangent(res: Any, field: str, value: Any) -> Any:
    if isinstance(unthunk(value), AbstractZero):
        return ZERO
    if isinstance(res, dict):
        return _TANGENT[type(res)]({field: value})      # P known at run time
    return _TANGENT[type(res)](**{field: value})


def _field(t: Any, field: str) -> Any:
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return t
    if isinstance(t, dict):
        return t.get(field, ZERO)
    try:
        return t[field]
    except (KeyError, TypeError, IndexError):
        return getattr(t, field, ZERO)


def _not_converged(name: str, detail: Any) -> RuntimeError:
    return RuntimeError(f"{name}: the solver did not converge ({detail}); its x is no solution, and the "
                        "rule does not differentiate it")


def _call(name: str, solver: Any, *args: Any, **kw: Any) -> Any:
    """solver(*args, **kw), its failures to converge named as the function's."""
    try:
        return solver(*args, **kw)
    except RuntimeError as e:
        raise _not_converged(name, e) from e


def _options(name: str, names: Any, defaults: Any, rest: Any, kw: Any) -> dict[str, Any]:
    """The optional arguments after the fixed ones, by name."""
    if len(rest) > len(names):
        raise TypeError(f"{name}: too many positional arguments")
    opts = dict(zip(names, defaults))
    given = dict(zip(names, rest))
    for key, v in kw.items():
        if key not in names:
            raise TypeError(f"{name}: unexpected argument {key}=")
        if key in given:
            raise TypeError(f"{name}: got multiple values for argument {key}")
        given[key] = v
    opts.update(given)
    return opts


def _add(a: Any, b: Any) -> Any:
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, AbstractZero):
        return b
    return a if isinstance(b, AbstractZero) else a + b


def _fn(t: Any) -> Any:
    """The cotangent of a user function: its closure's (NoTangent() when zero)."""
    t = unthunk(t)
    return NO if isinstance(t, AbstractZero) else t


def _args_of(a: Any) -> tuple[Any, ...]:
    return a if isinstance(a, tuple) else (a,)


def _args_tangents(tangents: Any, pos: int, rest_len: int, nargs: int) -> list[Any]:
    """The tangents of the values of `args` (given by position at `pos` of the
    optional arguments, else all zero)."""
    if rest_len <= pos:
        return [ZERO] * nargs
    t = unthunk(tangents)
    if isinstance(t, AbstractZero):
        return [ZERO] * nargs
    if nargs == 1 and not isinstance(t, Tangent):
        return [t]
    return [unthunk(v) for v in t]


def _args_cotangent(parts: Any, args_given: Any, single: bool) -> Any:
    if single:
        return parts[0]
    if not parts:
        return NO
    return _TANGENT[tuple](*parts)


# =============================================================================
# root(fun, x0, args=(), method='hybr', jac=None, ...)
# =============================================================================

_ROOT = ("args", "method", "jac", "tol", "callback", "options")


def _first(fun: Any, x: Any, *a: Any) -> Any:
    return fun(x, *a)[0]


def _root_F(fun: Any, jac: Any) -> Any:
    if jac is True:
        return lambda x, *a: fun(x, *a)[0]
    return fun


def _root_solve(fun: Any, x0: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.root"
    opts = _options(name, _ROOT, ((), "hybr", None, None, None, None), rest, kw)
    args = _args_of(opts["args"])
    res = _on_any(_optimize.root, x0, rest)(fun, x0, *rest, **kw)
    if not res.success:
        raise _not_converged(name, res.message)
    _check_real(name, res.x)
    return res, args, opts


@register_frule(_optimize.root, config="forward")
def root_frule(config: Any, tangents: Any, fun: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args, opts = _root_solve(fun, x0, rest, kw)
    ṗ = _args_tangents(tangents[3] if rest else ZERO, 0, len(rest), len(args))
    F = _root_F(fun, opts["jac"])
    ẋ = implicit_pushforward(config, F, (res.x, *args), 0, (tangents[1] if opts["jac"] is not True else ZERO,
                                                               ZERO, *ṗ))
    return res, _result_tangent(res, "x", ẋ)


@register_rrule(_optimize.root, config="reverse")
def root_rrule(config: Any, fun: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    res, args, opts = _root_solve(fun, x0, rest, kw)
    F = _root_F(fun, opts["jac"])
    back = implicit_pullback(config, F, (res.x, *args), 0)
    single = bool(rest) and not isinstance(rest[0], tuple)
    extra = (NO,) * max(len(rest) - 1, 0)

    def root_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(_field(Ω̄, "x"))
        if g is None:
            return (NO, NO, ZERO) + ((ZERO,) if rest else ()) + extra
        f̄ = _fn(g[0]) if opts["jac"] is not True else NO
        return (NO, f̄, ZERO) + ((_args_cotangent(g[2:], args, single),) if rest else ()) + extra
    return res, root_pullback


# the scalar root finders (brentq & co., newton, root_scalar): their own module
# (imported at the end)


# =============================================================================
# fixed_point(func, x0, args=(), xtol=1e-08, maxiter=500, method='del2'): F = func(x) − x
# =============================================================================

_FIXED = ("args", "xtol", "maxiter", "method")


def _residual(func: Any, x: Any, *a: Any) -> Any:
    return func(x, *a) - x


def _fixed_solve(func: Any, x0: Any, rest: Any, kw: Any) -> Any:
    name = "scipy.optimize.fixed_point"
    opts = _options(name, _FIXED, ((), 1e-8, 500, "del2"), rest, kw)
    x = _call(name, _on_any(_optimize.fixed_point, x0, rest), func, x0, *rest, **kw)
    _check_real(name, x)
    return x, _args_of(opts["args"])


@register_frule(_optimize.fixed_point, config="forward")
def fixed_point_frule(config: Any, tangents: Any, func: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    x, args = _fixed_solve(func, x0, rest, kw)
    ṗ = _args_tangents(tangents[3] if rest else ZERO, 0, len(rest), len(args))
    return x, implicit_pushforward(config, _residual, (func, x, *args), 1, (NO, tangents[1], ZERO, *ṗ))


@register_rrule(_optimize.fixed_point, config="reverse")
def fixed_point_rrule(config: Any, func: Any, x0: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    x, args = _fixed_solve(func, x0, rest, kw)
    back = implicit_pullback(config, _residual, (func, x, *args), 1)
    single = bool(rest) and not isinstance(rest[0], tuple)
    extra = (NO,) * max(len(rest) - 1, 0)

    def fixed_point_pullback(Ω̄: Any) -> tuple[Any, ...]:
        g = back(Ω̄)
        if g is None:
            return (NO, NO, ZERO) + ((ZERO,) if rest else ()) + extra
        return (NO, _fn(g[1]), ZERO) + ((_args_cotangent(g[3:], args, single),) if rest else ()) + extra
    return x, fixed_point_pullback


# the scalar root finders, and minimize, minimize_scalar, least_squares (F = ∇ₓ objective):
# their own modules
from chainrules.rulesets.scipy import optimize_minimize, optimize_scalar  # noqa: E402,F401
