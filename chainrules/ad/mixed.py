"""Operators built from both modes: `jacobian` (forward or reverse), and
`hvp` / `hessian` by forward-over-reverse: the forward engine differentiates
the reverse engine's gradient, so every second derivative comes from the
rules (evaluated on tracked values, they are differentiated themselves).
"""

from typing import Any, Callable, Literal

import numpy as np

from chainrules._xp import check_tangent
from chainrules.ad._inputs import reject_subclass
from chainrules.ad.forward import as_output, basis, jacobian_forward, jacobian_input, jvp, stack_jacobian
from chainrules.ad.reverse import gradient, jacobian_reverse

__all__ = ["jacobian", "hvp", "hessian"]


def jacobian(f: Callable[[Any], Any], x: Any, *, mode: Literal["forward", "reverse"] = "reverse") -> Any:
    """jacobian(f, x, mode="reverse") -> ∂f(x)/∂x, an array of shape
    `np.shape(f(x)) + np.shape(x)` (a number when both are scalars).

    x is a number or a float/complex array; f returns a number or an array.
    `mode="forward"` runs one jvp per element of x (cheaper for few inputs),
    `mode="reverse"` one pullback per element of f(x) (cheaper for few
    outputs).

    Example::

        >>> jacobian(lambda x: np.sin(x) * 2, np.zeros(2), mode="forward")
        array([[2., 0.],
               [0., 2.]])"""
    reject_subclass(x, "jacobian")
    if mode == "forward":
        return jacobian_forward(f, x)
    if mode == "reverse":
        return jacobian_reverse(f, x)
    raise ValueError(f"jacobian: mode must be 'forward' or 'reverse', got {mode!r}")


def hvp(f: Callable[[Any], Any], x: Any, v: Any) -> Any:
    """hvp(f, x, v) -> H·v, the Hessian of the real scalar f at x times v,
    by forward-over-reverse: the directional derivative of `gradient(f, ·)`
    at x along v.  x and v: numbers, arrays, or matching containers.

    Example::

        >>> hvp(lambda x: np.sum(x ** 3), np.array([1.0, 2.0]), np.array([1.0, 0.0]))
        array([6., 0.])"""
    if type(v) is not type(x):
        check_tangent("hvp", "the direction v", v, x)     # arrays of two libraries: TypeError
    reject_subclass(x, "hvp")
    return jvp(lambda z: gradient(f, z), (x,), (v,))[1]


def hessian(f: Callable[[Any], Any], x: Any) -> Any:
    """hessian(f, x) -> the Hessian of the real scalar f at x (a number or a
    float array), by forward-over-reverse, one `hvp` per element of x: shape
    `np.shape(x) + np.shape(x)`.

    Example::

        >>> from chainrules.ad import math
        >>> hessian(lambda x: math.sin(x), 0.5)   # -sin(0.5)
        -0.479425538604203"""
    python_number = type(x) in (float, complex, int)
    reject_subclass(x, "hessian")
    x, shape, dtype = jacobian_input(x, "hessian")
    cols = [as_output(x, hvp(f, x, e)) for e in basis(shape, dtype, x)]
    if python_number:
        # a Python number: its second derivative as derivative gives it (a
        # Python number for Python float code), not a 0-d stack
        h = cols[0]
        return h.item() if type(h) is np.ndarray else h
    h = stack_jacobian(cols, shape, shape, like=x)
    if isinstance(h, (np.ndarray, np.number)) and dtype != np.float64:
        h = h.astype(dtype, copy=False)     # x's precision (float32 in, float32 out)
    return h
