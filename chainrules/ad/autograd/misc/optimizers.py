"""Gradient-based stochastic optimizers, as autograd.misc.optimizers has them:
`sgd` (with momentum), `rmsprop`, `adam`.

Each takes `grad(x, i)` (the gradient at the parameters x at iteration i;
usually `chainrules.ad.autograd.grad(objective)` of an `objective(x, i)`),
the starting parameters x0 (an array, or a nesting of tuples, lists and
dicts holding arrays), an optional `callback(x, i, g)` called before each
step, and the method's settings, and returns the parameters after
`num_iters` steps, in x0's nesting.  The steps are NumPy arithmetic, so
the whole optimization may itself be differentiated (meta-optimization).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from chainrules.ad.autograd.misc.flatten import flatten

__all__ = ["unflatten_optimizer", "sgd", "rmsprop", "adam"]


def unflatten_optimizer(optimize: Callable[..., Any]) -> Callable[..., Any]:
    """An optimizer of flat 1-D parameters as one of nestings: x0, the
    gradients and the callback's arguments in x0's nesting."""
    @functools.wraps(optimize)
    def nested(grad: Callable[[Any, int], Any], x0: Any, callback: Callable[..., Any] | None = None,
               *args: Any, **kwargs: Any) -> Any:
        flat0, unflatten = flatten(x0)

        def flat_grad(x: Any, i: int) -> Any:
            return flatten(grad(unflatten(x), i))[0]

        flat_callback = None
        if callback is not None:
            def flat_callback(x: Any, i: int, g: Any) -> Any:
                return callback(unflatten(x), i, unflatten(g))
        return unflatten(optimize(flat_grad, flat0, flat_callback, *args, **kwargs))
    return nested


@unflatten_optimizer
def sgd(grad: Callable[[Any, int], Any], x: Any, callback: Callable[..., Any] | None = None,
        num_iters: int = 200, step_size: float = 0.1, mass: float = 0.9) -> Any:
    """Stochastic gradient descent with momentum `mass`: v ← mass·v − (1 − mass)·g,
    x ← x + step_size·v."""
    velocity = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@unflatten_optimizer
def rmsprop(grad: Callable[[Any, int], Any], x: Any, callback: Callable[..., Any] | None = None,
            num_iters: int = 100, step_size: float = 0.1, gamma: float = 0.9, eps: float = 1e-8) -> Any:
    """RMSProp: a running mean of the squared gradient (decay gamma, starting at 1)
    scales each step, x ← x − step_size·g/(√mean + eps)."""
    mean_square = np.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        mean_square = gamma * mean_square + (1 - gamma) * g ** 2
        x = x - step_size * g / (np.sqrt(mean_square) + eps)
    return x


@unflatten_optimizer
def adam(grad: Callable[[Any, int], Any], x: Any, callback: Callable[..., Any] | None = None,
         num_iters: int = 100, step_size: float = 0.001, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8) -> Any:
    """Adam (Kingma and Ba, 2015): running means of the gradient (decay b1) and of
    its square (b2), bias-corrected, x ← x − step_size·m̂/(√v̂ + eps)."""
    m = np.zeros(len(x))
    v = np.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback is not None:
            callback(x, i, g)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        m_hat = m / (1 - b1 ** (i + 1))
        v_hat = v / (1 - b2 ** (i + 1))
        x = x - step_size * m_hat / (np.sqrt(v_hat) + eps)
    return x
