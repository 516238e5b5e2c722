"""Finite difference methods with an adaptive step (FiniteDifferences.jl's scheme).

A method estimates the q-th derivative of a scalar-input function from p
evaluations on a grid of multiples of a step h:

    f⁽ᵠ⁾(x) ≈ Σᵢ cᵢ f(x + gᵢ h) / hᵠ

The coefficients c solve the Vandermonde system Σᵢ cᵢ gᵢʲ = q!·δⱼᵩ (j < p), solved
here in exact rational arithmetic.  The step minimises a bound on the total error

    ε(h) = C₁ h⁻ᵠ + C₂ hᵖ⁻ᵠ,   C₁ = ε_f Σ|cᵢ|,   C₂ = M Σ|cᵢ gᵢᵖ| / p!

where ε_f is the round-off error of one evaluation of f (the spacing of floats at
the magnitude of f near x) and M bounds |f⁽ᵖ⁾| near x.  The minimiser is
h = (q/(p−q) · C₁/C₂)^(1/p).  An adapted method (`adapt=1`, the default) estimates M
and the magnitude of f with a second method of p + 2 points for the p-th
derivative, whose own step uses the default bound `condition`; see
FiniteDifferences.jl (`estimate_step`) for the scheme this follows.
"""

from fractions import Fraction
from functools import lru_cache
from math import factorial, isfinite
from typing import Any, Callable, Iterable, Protocol

import numpy as np

__all__ = [
    "FiniteDifferenceMethod",
    "central_fdm",
    "forward_fdm",
    "backward_fdm",
    "estimate_step",
    "DEFAULT_CONDITION",
    "DEFAULT_FACTOR",
]

#: Assumed bound on |f⁽ᵖ⁾| relative to the scale of f when nothing better is known
#: (the default step, and the step of the bound estimator itself).
DEFAULT_CONDITION = 10.0

#: Multiplier on the estimated round-off error of one evaluation of f.
DEFAULT_FACTOR = 1.0


def _central_grid(p: int) -> tuple[int, ...]:
    if p % 2:
        return tuple(range(-(p // 2), p // 2 + 1))
    return tuple(range(-(p // 2), 0)) + tuple(range(1, p // 2 + 1))


def _forward_grid(p: int) -> tuple[int, ...]:
    return tuple(range(p))


def _backward_grid(p: int) -> tuple[int, ...]:
    return tuple(range(1 - p, 1))


def _exact_coefs(grid: tuple[int, ...], q: int) -> tuple[float, ...]:
    """Solve Σᵢ cᵢ gᵢʲ = q!·δⱼᵩ (j = 0..p−1) exactly; Gaussian elimination on Fractions."""
    p = len(grid)
    a = [[Fraction(g) ** j for g in grid] + [Fraction(factorial(q) if j == q else 0)] for j in range(p)]
    for col in range(p):
        pivot = next(r for r in range(col, p) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(p):
            if r != col and a[r][col] != 0:
                k = a[r][col] / a[col][col]
                a[r] = [u - k * v for u, v in zip(a[r], a[col])]
    return tuple(float(a[i][p] / a[i][i]) for i in range(p))


@lru_cache(maxsize=None)
def _coefs_mults(grid: tuple[int, ...], q: int) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...], float, float]:
    """(coefs, neighbourhood coefs, ∇f magnitude multiplier, f error multiplier)."""
    p = len(grid)
    coefs = _exact_coefs(grid, q)
    # Estimates of the derivative at three neighbouring points, all from the same
    # evaluations: the grid shifted by one step either way (kept on its side of x
    # for one-sided grids, so that f is never evaluated beyond them).
    if all(g >= 0 for g in grid):
        shifts = (-2, -1, 0)
    elif all(g <= 0 for g in grid):
        shifts = (0, 1, 2)
    else:
        shifts = (-1, 0, 1)
    neighbourhood = tuple(_exact_coefs(tuple(g + s for g in grid), q) for s in shifts)
    grad_mult = float(sum(abs(Fraction(c) * Fraction(g) ** p) for c, g in zip(coefs, grid)) / factorial(p))
    f_error_mult = sum(abs(c) for c in coefs)
    return coefs, neighbourhood, grad_mult, f_error_mult


def _float_eps(x: Any) -> float:
    """Machine epsilon of the floating type of x (float64 for Python numbers)."""
    dt = np.result_type(x)
    if dt.kind not in "fc":
        dt = np.dtype(np.float64)
    return float(np.finfo(dt).eps)


def _max_abs(values: Iterable[Any]) -> float:
    return max((float(np.max(np.abs(v))) if np.size(v) else 0.0) for v in values)


def _spacing_at(magnitude: float, values: list[Any]) -> float:
    """The round-off error of one evaluation: the float spacing at `magnitude`,
    in the precision of the values f returned."""
    dt = np.result_type(*[np.asarray(v) for v in values])
    if dt.kind == "c":
        dt = np.finfo(dt).dtype
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    return float(np.spacing(dt.type(magnitude)))


class FiniteDifferenceMethod:
    """FiniteDifferenceMethod(grid, q, *, adapt=1, condition=10, factor=1, max_range=inf)

    A finite difference method for the q-th derivative on an integer `grid` of
    step multiples.  Call it as `m(f, x)` (adaptive step) or `m(f, x, step)`;
    f maps a real number to a number or an array (estimated element-wise).

    Example::

        >>> import math
        >>> m = central_fdm(5, 1)
        >>> abs(m(math.sin, 1.0) - math.cos(1.0)) < 1e-12
        True

    See also: `central_fdm`, `forward_fdm`, `backward_fdm`, `estimate_step`."""

    __slots__ = ("grid", "q", "coefs", "coefs_neighbourhood", "condition", "factor", "max_range",
                 "grad_mult", "f_error_mult", "bound_estimator", "_grid_fn")

    def __init__(self, grid: Iterable[int], q: int, *, adapt: int = 1, condition: float = DEFAULT_CONDITION,
                 factor: float = DEFAULT_FACTOR, max_range: float = float("inf"),
                 _grid_fn: Callable[[int], tuple[int, ...]] | None = None) -> None:
        grid = tuple(int(g) for g in grid)
        p = len(grid)
        _check_p_q(p, q)
        if len(set(grid)) != p:
            raise ValueError(f"FiniteDifferenceMethod: the grid {grid} has repeated points")
        if adapt < 0:
            raise ValueError(f"FiniteDifferenceMethod: adapt must be >= 0, got {adapt}")
        self.grid = grid
        self.q = int(q)
        self.coefs, self.coefs_neighbourhood, self.grad_mult, self.f_error_mult = _coefs_mults(grid, self.q)
        self.condition = float(condition)
        self.factor = float(factor)
        self.max_range = float(max_range)
        self._grid_fn = _grid_fn
        self.bound_estimator = None
        if adapt >= 1:
            # The p-th derivative is needed at three points around x: p + 2 points.
            if _grid_fn is not None:
                bgrid = _grid_fn(p + 2)
            else:
                lo, hi = min(grid), max(grid)
                bgrid = tuple(range(lo - 1, hi + 2)) if lo < 0 < hi else (
                    tuple(range(lo, lo + p + 2)) if lo >= 0 else tuple(range(hi - p - 1, hi + 1)))
            self.bound_estimator = FiniteDifferenceMethod(
                bgrid, p, adapt=adapt - 1, condition=condition, factor=factor,
                max_range=max_range, _grid_fn=_grid_fn)

    @property
    def p(self) -> int:
        """The number of grid points."""
        return len(self.grid)

    def __call__(self, f: Callable[[Any], Any], x: float | np.floating[Any], step: float | None = None, *,
                 eps: float | None = None) -> Any:
        """m(f, x[, step], eps=None): the q-th derivative of f at the real number x.

        `eps`: the machine epsilon assumed for the inputs of f when no better
        estimate of the round-off is available (default: that of x's type)."""
        x = _as_real_point(x)
        if self.q == 0:
            return f(x)
        if step is None:
            step = estimate_step(self, f, x, eps=eps)[0]
        return self._estimate(self._evaluate(f, x, step), step, self.coefs)

    def _evaluate(self, f: Callable[[Any], Any], x: Any, step: float) -> list[Any]:
        t = type(x)
        return [f(t(x + g * step)) for g in self.grid]

    def _estimate(self, fs: list[Any], step: float, coefs: tuple[float, ...]) -> Any:
        acc = 0.0
        for c, v in zip(coefs, fs):
            if c != 0:
                acc = acc + c * _at_least_double(v)
        out = acc / step ** self.q
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out

    def __repr__(self) -> str:
        return (f"FiniteDifferenceMethod(grid={list(self.grid)}, q={self.q}, "
                f"coefs={[round(c, 12) for c in self.coefs]})")


def _at_least_double(v: Any) -> Any:
    """An evaluation of f in at least double precision: float32 values must not
    be summed in float32, where the differences cancel to noise."""
    if isinstance(v, (int, float, complex)):
        return v
    a = np.asarray(v)
    return a.astype(np.result_type(a.dtype, np.float64), copy=False)


def _check_p_q(p: int, q: int) -> None:
    if q < 0:
        raise ValueError(f"the order of the derivative (q) must be non-negative, got {q}")
    if q >= p:
        raise ValueError(f"the number of grid points (p = {p}) must exceed the order of the derivative "
                         f"(q = {q})")


def _as_real_point(x: Any) -> Any:
    if isinstance(x, np.floating):
        return x
    if isinstance(x, (bool, np.bool_)) or isinstance(x, (complex, np.complexfloating)):
        raise TypeError(f"finite differences: x must be a real number, got {type(x).__name__}")
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind == "f":
        return x[()]
    return float(x)


def _step_acc(m: FiniteDifferenceMethod, grad_magnitude: float, f_error: float) -> tuple[float, float]:
    p, q = m.p, m.q
    c1 = f_error * m.f_error_mult * m.factor
    c2 = grad_magnitude * m.grad_mult
    step = (q / (p - q) * (c1 / c2)) ** (1.0 / p)
    acc = c1 * step ** (-q) + c2 * step ** (p - q)
    return step, acc


def _default_step_acc(m: FiniteDifferenceMethod, eps: float) -> tuple[float, float]:
    return _step_acc(m, m.condition, eps)


def _limit_step(m: FiniteDifferenceMethod, eps: float, step: float, acc: float) -> tuple[float, float]:
    step_max = m.max_range / max(abs(g) for g in m.grid)
    if step > step_max:
        step, acc = step_max, float("nan")
    # Slowly varying f or high orders can ask for huge steps: cap them.
    cap = 1000 * _default_step_acc(m, eps)[0]
    if step > cap:
        step, acc = cap, float("nan")
    return step, acc


def _estimate_magnitudes(m: FiniteDifferenceMethod, f: Callable[[Any], Any], x: Any,
                         eps: float) -> tuple[float, float, list[Any]]:
    """(max |f⁽ᵖ⁾|, max |f|) near x, from the bound estimator m."""
    step = estimate_step(m, f, x, eps=eps)[0]
    fs = m._evaluate(f, x, step)
    derivs = [m._estimate(fs, step, c) for c in m.coefs_neighbourhood]
    return _max_abs(derivs), _max_abs(fs), fs


def estimate_step(m: FiniteDifferenceMethod, f: Callable[[Any], Any], x: float | np.floating[Any], *,
                  eps: float | None = None) -> tuple[float, float]:
    """estimate_step(m, f, x, *, eps=None) -> (step, accuracy)

    The step that minimises the bound on the error of `m` at x, and that bound
    (NaN when the step had to be limited).  Unadapted methods assume the
    `condition` bound and the machine epsilon `eps` (default: that of x's
    floating type)."""
    x = _as_real_point(x)
    if eps is None:
        eps = _float_eps(x)
    if m.bound_estimator is None:
        step, acc = _default_step_acc(m, eps)
    else:
        grad_mag, f_mag, fs = _estimate_magnitudes(m.bound_estimator, f, x, eps)
        if grad_mag == 0.0 or f_mag == 0.0 or not (isfinite(grad_mag) and isfinite(f_mag)):
            step, acc = _default_step_acc(m, eps)
        else:
            step, acc = _step_acc(m, grad_mag, _spacing_at(f_mag, fs))
    return _limit_step(m, eps, step, acc)


class FdmFactory(Protocol):
    """The signature of `central_fdm`, `forward_fdm` and `backward_fdm`."""

    def __call__(self, p: int, q: int, *, adapt: int = 1, condition: float = DEFAULT_CONDITION,
                 factor: float = DEFAULT_FACTOR, max_range: float = float("inf")) -> FiniteDifferenceMethod: ...


def _make(grid_fn: Callable[[int], tuple[int, ...]], direction: str) -> FdmFactory:
    def fdm(p: int, q: int, *, adapt: int = 1, condition: float = DEFAULT_CONDITION,
            factor: float = DEFAULT_FACTOR, max_range: float = float("inf")) -> FiniteDifferenceMethod:
        return FiniteDifferenceMethod(grid_fn(p), q, adapt=adapt, condition=condition, factor=factor,
                                      max_range=max_range, _grid_fn=grid_fn)
    fdm.__name__ = fdm.__qualname__ = f"{direction}_fdm"
    fdm.__doc__ = f"""{direction}_fdm(p, q, *, adapt=1, condition=10, factor=1, max_range=inf)

    A finite difference method for the q-th derivative on a {direction} grid of p
    points, with the step chosen adaptively (`adapt` rounds of estimating the
    p-th derivative; 0 assumes the bound `condition`).  `max_range` bounds how
    far from x the function is evaluated.

    Example::

        >>> import math
        >>> abs({direction}_fdm(5, 1)(math.sin, 1.0) - math.cos(1.0)) < 1e-10
        True
    """
    return fdm


central_fdm = _make(_central_grid, "central")
forward_fdm = _make(_forward_grid, "forward")
backward_fdm = _make(_backward_grid, "backward")
