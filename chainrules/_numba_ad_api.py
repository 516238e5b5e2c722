"""chainrules.numba's derivatives of numba-compilable functions: grad,
value_and_grad, derivative, jvp, hessian (issue 25).  Each transforms f's
source once (chainrules/_numba_ad.py, _numba_ad_gen.py) and returns an
``@numba.njit`` function, callable from Python and from other ``@njit``
code."""

from __future__ import annotations

import threading
from typing import Any, Callable

import numba

from chainrules import _numba_ad_helpers as _h
from chainrules._numba_ad import NotDifferentiableError, UnsupportedSyntaxError, lower
from chainrules._numba_ad_gen import forward_source, reverse_source

__all__ = ["grad", "value_and_grad", "derivative", "jvp", "hessian", "source",
           "NotDifferentiableError", "UnsupportedSyntaxError"]

_HELPERS: dict[str, Any] = {
    "cj": _h.cj, "pj": _h.pj, "pje": _h.pje, "zeros_adjoint": _h.zeros_adjoint,
    "as_like": _h.as_like, "one_like": _h.one_like, "abs_jvp": _h.abs_jvp, "abs_vjp": _h.abs_vjp,
}
for _name, (_n, _f, _fd) in _h.ROW_FUNCTIONS.items():
    _HELPERS["rowf_" + _name] = _f
    _HELPERS["rowfd_" + _name] = _fd
del _name, _n, _f, _fd

_cache: dict[tuple[Any, ...], tuple[str, Any]] = {}
_lock = threading.Lock()


def _argnums(f: Any, argnums: int | tuple[int, ...], nargs: int) -> tuple[tuple[int, ...], bool]:
    scalar = isinstance(argnums, int)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not isinstance(i, int) or not -nargs <= i < nargs:
            raise ValueError(f"chainrules.numba: argnums={argnums!r} for {getattr(f, '__name__', f)} "
                             f"of {nargs} arguments")
    return tuple(i % nargs for i in nums), scalar


def _build(kind: str, f: Any, argnums: Any = 0) -> tuple[str, Any]:
    """(source, njit function) of the derivative `kind` of f, cached."""
    key = (kind, f, argnums)
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    low, code = lower(f)
    fname = getattr(low.f, "__name__", "f")
    name = f"{kind}_{fname}"
    if kind == "jvp":
        src = forward_source(low, code, None, name)
    elif kind == "derivative":
        nums, _ = _argnums(f, argnums, len(low.args))
        src = forward_source(low, code, nums[0], name)
    else:
        nums, scalar = _argnums(f, argnums, len(low.args))
        src = reverse_source(low, code, nums, scalar, kind == "value_and_grad", name)
    ns = dict(low.namespace)
    ns.update(_HELPERS)
    for key_u, (uf, up, _) in low.users.items():
        ns[key_u] = uf
        ns[key_u + "_p"] = up
    exec(compile(src, f"<chainrules.numba.{kind}({fname})>", "exec"), ns)
    fn = numba.njit(error_model="numpy")(ns[name])
    with _lock:
        _cache[key] = (src, fn)
    return src, fn


def grad(f: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Any:
    """grad(f, argnums=0) -> the ``@njit`` gradient of the real scalar f with
    respect to the argument `argnums` (a tuple: a tuple of gradients), by
    reverse mode: one forward sweep, one backward sweep.  f is a plain Python
    function numba compiles, of floats, complex numbers, tuples and 1-D arrays
    read element-wise; a complex argument's gradient is ChainRules'
    (∂f/∂x + i ∂f/∂y).

    Example::

        >>> import math
        >>> import chainrules.numba as crn
        >>> def foo(x):
        ...     return math.asin(0.2 + math.sin(x))
        >>> crn.grad(foo)(3.0)
        -1.0531613736418153"""
    return _build("grad", f, argnums)[1]


def value_and_grad(f: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Any:
    """value_and_grad(f, argnums=0) -> the ``@njit`` function returning
    ``(f(*args), grad(f, argnums)(*args))`` from one forward and one backward sweep."""
    return _build("value_and_grad", f, argnums)[1]


def derivative(f: Callable[..., Any], argnum: int = 0) -> Any:
    """derivative(f, argnum=0) -> the ``@njit`` derivative of f with respect to
    its scalar argument `argnum` (real or complex: f′(z) for a holomorphic f),
    by forward mode; f may return a real or complex number."""
    return _build("derivative", f, argnum)[1]


def jvp(f: Callable[..., Any]) -> Any:
    """jvp(f) -> the ``@njit`` function ``(primals, tangents) -> (Ω, ΔΩ)``:
    f(*primals) and its Jacobian-vector product with `tangents` (one per
    argument: a number, or an array or tuple like the argument), by forward mode."""
    return _build("jvp", f)[1]


def hessian(f: Callable[..., Any], argnum: int = 0) -> Any:
    """hessian(f, argnum=0) -> the ``@njit`` Hessian of the real scalar f with
    respect to its argument `argnum`: a number for a scalar argument, an
    (n, n) array for an array or tuple of n elements."""
    return _build("hessian", f, argnum)[1]


def source(f: Callable[..., Any], kind: str = "grad", argnums: Any = 0) -> str:
    """The Python source that chainrules.numba generated for `kind`
    ("grad", "value_and_grad", "derivative", "jvp", "hessian") of f: to read
    what is compiled, or to debug."""
    if kind not in ("grad", "value_and_grad", "derivative", "jvp", "hessian"):
        raise ValueError(f"chainrules.numba.source: unknown kind {kind!r}")
    return _build(kind, f, argnums)[0]
