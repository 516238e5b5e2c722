"""Helpers shared by every array rule: the one unbroadcast and the argument
checks.  No rule fixes shapes by itself (house style, principle 6)."""

import numpy as np

from chainrules._core import AbstractZero, unthunk

__all__ = ["unbroadcast", "reject_out"]


def unbroadcast(x, dx):
    """Sum the cotangent `dx` of a broadcast result back to the shape of the
    input `x` (an array, a scalar, or a shape tuple).

    Leading axes that broadcasting added are summed away, axes where `x` has
    length 1 are summed with keepdims.  Zeros pass through.  The dtype is left
    to the caller's `ProjectTo`."""
    if isinstance(dx, AbstractZero):
        return dx
    dx = unthunk(dx)
    shape = x if isinstance(x, tuple) else np.shape(x)
    dshape = np.shape(dx)
    if dshape == shape:
        return dx
    extra = len(dshape) - len(shape)
    if extra < 0:
        return np.broadcast_to(dx, shape)
    if extra:
        dx = np.sum(dx, axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(dx)[i] != 1)
    if axes:
        dx = np.sum(dx, axis=axes, keepdims=True)
    return dx


def reject_out(fname, kwargs, *names):
    """Raise a clear error for arguments a rule cannot honour (`out=` and the
    like).  `names` lists them; `None`-valued ones are allowed."""
    for name in ("out",) + names:
        if kwargs.get(name) is not None:
            raise TypeError(f"{fname}: the rule cannot honour the argument {name}=; "
                            "call the primal without it")
