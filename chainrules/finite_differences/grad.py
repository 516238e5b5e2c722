"""Jacobian-vector products, vector-Jacobian products, gradients and Jacobians
by finite differences, over anything `to_vec` flattens.

Complex numbers are pairs of reals (ℂ as ℝ²), so `jvp` applies the real
Jacobian J and `vjp` applies Jᵀ: exactly ChainRules' convention for frule and
pullback.  Results are tangents: numbers and arrays of the primal's type,
`Tangent[P]` for tuples, dicts and dataclasses, `NoTangent()` for arguments
without a tangent space.
"""

from typing import Any, Callable

import numpy as np

from chainrules.finite_differences.methods import FiniteDifferenceMethod
from chainrules.finite_differences.to_vec import (
    _Complex,
    _ComplexArray,
    _Composite,
    _Real,
    _RealArray,
    layout_of,
)

__all__ = ["jvp", "vjp", "j_vp", "grad", "jacobian"]


def _check_fdm(fdm: object, who: str) -> None:
    if not isinstance(fdm, FiniteDifferenceMethod):
        raise TypeError(f"{who}(fdm, f, ...): fdm must be a finite difference method such as "
                        f"central_fdm(5, 1), got {type(fdm).__name__}")
    if fdm.q != 1:
        raise ValueError(f"{who}: fdm must estimate first derivatives (q = 1), got q = {fdm.q}")


def _eps_of(layout: Any) -> float:
    """The largest machine epsilon among the floating leaves: the precision
    the inputs are perturbed in."""
    eps = float(np.finfo(np.float64).eps)
    stack = [layout]
    while stack:
        lay = stack.pop()
        if isinstance(lay, _Composite):
            stack.extend(lay.children)
        elif isinstance(lay, (_RealArray, _ComplexArray)):
            eps = max(eps, float(np.finfo(lay.dtype).eps))
        elif isinstance(lay, (_Real, _Complex)) and issubclass(lay.type, np.generic):
            eps = max(eps, float(np.finfo(np.dtype(lay.type)).eps))
    return eps


class _Flat:
    """f as a map from the real vector of its arguments to the real vector of its output."""

    def __init__(self, f: Callable[..., Any], xs: tuple[Any, ...]) -> None:
        self.f = f
        self.lx = layout_of(tuple(xs))
        self.x0 = self.lx.flatten(tuple(xs))
        self.y0 = f(*xs)
        self.ly = layout_of(self.y0)
        self.eps = _eps_of(self.lx)

    def __call__(self, v: Any) -> Any:
        y = self.f(*self.lx.unflatten(v))
        out = self.ly.flatten(y)
        if out.shape[0] != self.ly.size:
            raise ValueError(f"finite differences: the output of {_name(self.f)} changed structure "
                             f"when its input was perturbed")
        return out

    def arg_tangents(self, v: Any) -> tuple[Any, ...]:
        """Split a vector in the argument layout into one tangent per argument."""
        return tuple(c.tangent(part) for c, part in zip(self.lx.children, self.lx._split(v)))


def _name(f: object) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def jvp(fdm: FiniteDifferenceMethod, f: Callable[..., Any], *pairs: tuple[Any, Any]) -> Any:
    """jvp(fdm, f, (x1, ẋ1), (x2, ẋ2), ...) -> ΔΩ

    The Jacobian-vector product J·ẋ of `Ω = f(x1, x2, ...)` by finite
    differences: the derivative of ε ↦ f(x + εẋ) at 0, as a tangent of Ω.
    Tangents may be numbers, arrays, `Tangent` values, primal-like values or zeros.

    Example::

        >>> import math
        >>> from chainrules.finite_differences import central_fdm
        >>> ẏ = jvp(central_fdm(5, 1), math.sin, (1.0, 2.0))
        >>> abs(ẏ - 2 * math.cos(1.0)) < 1e-10
        True

    See also: `vjp`, `jacobian`."""
    _check_fdm(fdm, "jvp")
    for p in pairs:
        if not (isinstance(p, tuple) and len(p) == 2):
            raise TypeError(f"jvp(fdm, f, (x, ẋ), ...): each argument must be a pair (x, ẋ), got {p!r}")
    xs = tuple(p[0] for p in pairs)
    flat = _Flat(f, xs)
    dv = flat.lx.tangent_vec(tuple(p[1] for p in pairs))
    if not np.any(dv):
        return flat.ly.tangent(np.zeros(flat.ly.size))
    x0 = flat.x0

    def along(eps: float) -> Any:
        return flat(x0 + eps * dv)

    return flat.ly.tangent(np.atleast_1d(np.asarray(fdm(along, 0.0, eps=flat.eps), dtype=np.float64)))


def vjp(fdm: FiniteDifferenceMethod, f: Callable[..., Any], ybar: Any, *xs: Any) -> tuple[Any, ...]:
    """vjp(fdm, f, ȳ, x1, x2, ...) -> (x̄1, x̄2, ...)

    The vector-Jacobian product Jᵀ·ȳ of `Ω = f(x1, ...)` by finite differences
    (FiniteDifferences.jl's `j′vp`; `j_vp` is the same function): one
    cotangent per argument, `NoTangent()` for arguments without a tangent
    space.  Entry j is the derivative of ε ↦ ⟨ȳ, f(x + εeⱼ)⟩ at 0; with ℂ as
    ℝ², this is ChainRules' pullback convention.

    Example::

        >>> import operator
        >>> from chainrules.finite_differences import central_fdm
        >>> ā, b̄ = vjp(central_fdm(5, 1), operator.mul, 1.0, 2.0, 3.0)    # ȳ = 1 at a = 2, b = 3
        >>> round(ā, 10), round(b̄, 10)
        (3.0, 2.0)

    See also: `jvp`, `grad`, `jacobian`."""
    _check_fdm(fdm, "vjp")
    flat = _Flat(f, xs)
    yv = flat.ly.tangent_vec(ybar)
    n = flat.lx.size
    out = np.zeros(n)
    if np.any(yv):
        x0 = flat.x0
        for j in range(n):
            def along(eps: float, j: int = j) -> float:
                v = x0.copy()
                v[j] += eps
                return float(np.dot(yv, flat(v)))
            out[j] = fdm(along, 0.0, eps=flat.eps)
    return flat.arg_tangents(out)


j_vp = vjp


def jacobian(fdm: FiniteDifferenceMethod, f: Callable[..., Any], *xs: Any) -> tuple[Any, ...]:
    """jacobian(fdm, f, x1, x2, ...) -> (J1, J2, ...)

    The Jacobians of `f` with respect to each argument by finite differences,
    in `to_vec` coordinates: Jᵢ has shape (len(to_vec(Ω)), len(to_vec(xᵢ))).

    See also: `to_vec`, `jvp`, `vjp`."""
    _check_fdm(fdm, "jacobian")
    flat = _Flat(f, xs)
    m, n = flat.ly.size, flat.lx.size
    J = np.zeros((m, n))
    x0 = flat.x0
    for j in range(n):
        def along(eps: float, j: int = j) -> Any:
            v = x0.copy()
            v[j] += eps
            return flat(v)
        J[:, j] = np.atleast_1d(fdm(along, 0.0, eps=flat.eps)) if m else 0.0
    out, i = [], 0
    for c in flat.lx.children:
        out.append(J[:, i:i + c.size])
        i += c.size
    return tuple(out)


def grad(fdm: FiniteDifferenceMethod, f: Callable[..., Any], *xs: Any) -> tuple[Any, ...]:
    """grad(fdm, f, x1, x2, ...) -> (∇1, ∇2, ...)

    The gradient of a real-valued f with respect to each argument, by finite
    differences (`vjp` with ȳ = 1); for a complex argument z = a + ib the
    entry is ∂f/∂a + i ∂f/∂b.

    Example::

        >>> from chainrules.finite_differences import central_fdm
        >>> (g,) = grad(central_fdm(5, 1), lambda x: float(np.sum(x ** 2)), np.array([1.0, 2.0]))
        >>> np.round(g, 10)
        array([2., 4.])"""
    _check_fdm(fdm, "grad")
    y = f(*xs)
    ly = layout_of(y)
    if not isinstance(ly, (_Real, _RealArray)) or ly.size != 1:
        raise TypeError(f"grad: {_name(f)} must return a real scalar, got {type(y).__name__}; "
                        "use vjp or jacobian for other outputs")
    return vjp(fdm, f, 1.0, *xs)
