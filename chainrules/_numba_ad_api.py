"""chainrules.numba's derivatives of numba-compilable functions: grad,
value_and_grad, derivative, jvp, hessian (issue 25).  Each transforms f's
source once (chainrules/_numba_ad.py, _numba_ad_gen.py) and returns an
``@numba.njit`` function, callable from Python and from other ``@njit``
code.

What is a constant: as numba freezes a jitted function's globals when it
compiles, the transform reads f's source, the functions f calls and the
scalar rules they have when ``grad(f)`` (etc.) is first asked for; the result
is cached on (f, which derivative, argnums).  Redefine f (a new function
object) to see a change."""

from __future__ import annotations

import linecache
import threading
from typing import Any, Callable

import numba
import numpy as np

from chainrules import _numba_ad_helpers as _h
from chainrules import _numba_kernels as _kernels
from chainrules._numba_ad import NotDifferentiableError, UnsupportedSyntaxError, lower
from chainrules._numba_ad_gen import forward_source
from chainrules._numba_ad_reverse import reverse_source
from chainrules._numba_ad_second import second_source

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


_building: set[Any] = set()


def _build(kind: str, f: Any, argnums: Any = 0) -> tuple[str, Any]:
    """(source, njit function) of the derivative `kind` of f, cached."""
    key = (kind, f, argnums)
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    if key in _building:
        raise NotDifferentiableError(f"chainrules.numba cannot differentiate the recursive "
                                     f"function {getattr(f, '__qualname__', f)}")
    _building.add(key)
    try:
        return _build_new(kind, f, argnums, key)
    finally:
        _building.discard(key)


def _build_new(kind: str, f: Any, argnums: Any, key: Any) -> tuple[str, Any]:
    low, code = lower(f)
    fname = getattr(low.f, "__name__", "f")
    name = f"{kind}_{fname}"
    if kind == "jvp":
        src = forward_source(low, code, None, name)
    elif kind == "derivative":
        nums, _ = _argnums(f, argnums, len(low.args))
        src = forward_source(low, code, nums[0], name)
    elif kind == "hessian":
        nums, _ = _argnums(f, argnums, len(low.args))
        src, rows = second_source(low, code, nums[0], name)
    else:
        nums, scalar = _argnums(f, argnums, len(low.args))
        src = reverse_source(low, code, nums, scalar, kind == "value_and_grad", name)
    ns = dict(low.namespace)
    ns.update(_HELPERS)
    ns["np"] = np
    if kind == "hessian":
        for row in rows:
            ns["hd_" + row] = _second_order_row(row)
    for key_u, (uf, up, _) in low.users.items():
        ns[key_u] = uf
        ns[key_u + "_p"] = up
    for key_c, (py, line) in low.calls.items():
        ns[key_c + "_f"] = numba.njit(py)
        if kind in ("grad", "value_and_grad"):
            n = py.__code__.co_argcount
            ns[key_c + "_vg"] = _build("value_and_grad", py, tuple(range(n)))[1]
        else:
            ns[key_c] = _build("jvp", py)[1]
    filename = f"<chainrules.numba.{kind}({fname}) {len(_cache)}>"
    # numba's errors (and inspect.getsource) then show the generated lines
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    if kind == "hessian":
        ns[name + "_dd"] = numba.njit(error_model="numpy")(ns[name + "_dd"])
    fn = numba.njit(error_model="numpy")(ns[name])
    with _lock:
        _cache[key] = (src, fn)
    return src, fn


def _second_order_row(name: str) -> Any:
    """hd_NAME: (f, f′, f″) of a real row of one argument, (f, fx, fy, fxx,
    fxy, fyy) of two: forward mode over the row's own fused kernel."""
    with _lock:
        hit = _cache.get(("hd", name))
    if hit is not None:
        return hit[1]
    j = _build("jvp", getattr(_kernels, name + "_fd"))[1]
    if _h.ROW_FUNCTIONS[name][0] == 1:
        def hd1(x):  # type: ignore[no-untyped-def]
            (f, fx), (_, fxx) = j((x,), (1.0,))
            return f, fx, fxx
        fn = numba.njit(hd1)
    else:
        def hd2(x, y):  # type: ignore[no-untyped-def]
            (f, fx, fy), (_, fxx, fxy) = j((x, y), (1.0, 0.0))
            _, (_, _, fyy) = j((x, y), (0.0, 1.0))
            return f, fx, fy, fxx, fxy, fyy
        fn = numba.njit(hd2)
    with _lock:
        _cache[("hd", name)] = ("", fn)
    return fn


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
    ``f(*primals)`` and its Jacobian-vector product with `tangents` (one per
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
