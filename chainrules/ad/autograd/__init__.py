"""chainrules.ad.autograd: autograd's differential operators on chainrules.ad's engines.

An autograd program runs by changing its imports::

    import autograd.numpy as np                 import chainrules.ad.numpy as np
    from autograd import grad, jacobian   ->    from chainrules.ad.autograd import grad, jacobian

The operators have autograd's signatures (`grad(fun, argnum=0)` returns a
function of fun's arguments; `argnum` an int, or a tuple for the operators
built on `unary_to_nary`) and return what autograd returns: gradients of the
argument's type (tuples, lists and dicts for tuples, lists and dicts, zeros
for arguments f does not use), `make_vjp` gives `(vjp, ans)`, `make_jvp` a
function of the tangent giving `(ans, jvp)`, `jacobian` an array of shape
`out_shape + in_shape`.  Every derivative comes from chainrules' rules: the
operators call the reverse engine (`chainrules.ad.vjp`) and the forward engine
(`chainrules.ad.jvp`), and nest to any order.

Complex numbers follow autograd's convention, which is the complex conjugate of
chainrules': autograd's vjp of a holomorphic f is `g ↦ g·f′(z)` and its grad of
a real-valued f of z is `∂f/∂x − i·∂f/∂y`; chainrules' pullbacks give
`g·conj(f′(z))` and `∂f/∂x + i·∂f/∂y`.  The reverse-mode operators conjugate
the cotangent going in and the gradient coming out, so their results are
autograd's.

Differences from autograd: `make_hvp` computes H·v by
forward-over-reverse (`chainrules.ad.hvp`) rather than reverse-over-reverse
(the same numbers for a symmetric Hessian, which every Hessian is).

Arguments: a Python int is differentiated as a float (autograd refuses it);
the selected argument must have a tangent space, so a NumPy integer array or
scalar (a constant, as in `chainrules.ad.gradient`; autograd refuses it too)
is a TypeError naming the operator, the function and the argument, never a
zero gradient.  ndarray subclasses (`np.matrix`, `np.ma` arrays; memmap
excepted) are refused as by every entry point of `chainrules.ad`.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections import OrderedDict
from typing import Any, Callable

import numpy as np

from chainrules._core import AbstractZero, StructuralTangent, ZeroTangent, _ad_strip_all
from chainrules.ad._inputs import has_leaf, no_tangent_space_hint, reject_subclass
from chainrules.ad._tracing import dataclass_fields, fname, index_tangent
from chainrules.ad.checkpointing import checkpoint as _checkpoint
from chainrules.ad.forward import jvp as _jvp
from chainrules.ad.reverse import vjp as _vjp

__all__ = [
    "grad", "elementwise_grad", "value_and_grad", "grad_and_aux", "deriv",
    "jacobian", "hessian", "holomorphic_grad", "grad_named", "multigrad_dict",
    "make_vjp", "make_jvp", "make_hvp", "make_ggnvp",
    "hessian_tensor_product", "hessian_vector_product",
    "tensor_jacobian_product", "vector_jacobian_product", "checkpoint",
]


# ----- structures: chainrules' tangents as autograd's values ------------------------

def _as_like(x: Any, g: Any) -> Any:
    """The gradient g of x in autograd's form: x's container type, zeros for
    a zero, and conjugated (autograd's complex convention)."""
    if isinstance(g, AbstractZero):
        return _zeros(x)
    t = type(x)
    if t is tuple or t is list:
        return t(_as_like(xi, index_tangent(g, i)) for i, xi in enumerate(x))
    if t is dict or t is OrderedDict:
        return t((k, _as_like(v, index_tangent(g, k))) for k, v in x.items())
    if isinstance(g, StructuralTangent) or dataclass_fields(x) is not None:
        return g
    return _conj(g)


def _zeros(x: Any) -> Any:
    t = type(x)
    if t is tuple or t is list:
        return t(_zeros(v) for v in x)
    if t is dict or t is OrderedDict:
        return t((k, _zeros(v)) for k, v in x.items())
    p = _ad_strip_all(x)
    if isinstance(p, np.ndarray):
        return np.zeros_like(p, dtype=np.result_type(p, float))
    return type(p)(0) if isinstance(p, (float, complex, np.inexact)) else 0.0


def _ones(y: Any) -> Any:
    """autograd's `vspace(y).ones()` for a value y (tracked or not)."""
    t = type(y)
    if t is tuple or t is list:
        return t(_ones(v) for v in y)
    p = _ad_strip_all(y)
    if isinstance(p, np.ndarray):
        return np.ones_like(p)
    if isinstance(p, (float, complex, np.inexact)):
        return type(p)(1)
    return 1.0


def _is_complex(v: Any) -> bool:
    return bool(np.iscomplexobj(_ad_strip_all(v)))


def _conj(v: Any) -> Any:
    """The conjugate of a number or array (tracked or not); others unchanged."""
    if type(v) in (tuple, list):
        return type(v)(_conj(e) for e in v)
    if type(v) is dict:
        return {k: _conj(e) for k, e in v.items()}
    if type(v) is complex:          # a Python number stays one
        return v.conjugate()
    return np.conj(v) if _is_complex(v) else v


def _size(y: Any) -> int:
    """autograd's `vspace(y).size`: real numbers count 1, complex ones 2."""
    p = _ad_strip_all(y)
    if isinstance(p, (tuple, list)):
        return sum(_size(v) for v in p)
    if isinstance(p, dict):
        return sum(_size(v) for v in p.values())
    n = int(np.size(p))
    return 2 * n if np.iscomplexobj(p) else n


def _pullback(f: Callable[[Any], Any], x: Any) -> tuple[Callable[[Any], Any], Any]:
    """autograd's `_make_vjp(f, x)`: (vjp, ans) with autograd's conventions."""
    ans, pb = _vjp(f, x)

    def vjp(g: Any) -> Any:
        return _as_like(x, pb(_conj(g))[0])
    return vjp, ans


# ----- unary_to_nary: autograd's argnum handling -----------------------------------

def _check_argnum(who: str, argnum: Any, tuples: bool = True) -> None:
    ok = type(argnum) is int or (tuples and type(argnum) in (tuple, list) and bool(argnum)
                                 and all(type(a) is int for a in argnum))
    if not ok:
        allowed = "an int or a non-empty tuple of ints" if tuples else "an int"
        raise TypeError(f"{who}: argnum must be {allowed}, got {argnum!r}")


def _select(who: str, fun: Any, args: tuple[Any, ...], argnum: Any) -> Any:
    nums = (argnum,) if type(argnum) is int else tuple(argnum)
    for i in nums:
        if not -len(args) <= i < len(args):
            raise IndexError(f"{who}: argnum {i} is out of range: {fname(fun)} was called with "
                             f"{len(args)} positional argument{'s' if len(args) != 1 else ''}")
    return args[argnum] if type(argnum) is int else tuple(args[i] for i in argnum)


def _check_argument(op: str, fun: Any, argnum: Any, x: Any) -> None:
    """The rules of `chainrules.ad._inputs` for the selected argument(s): an
    ndarray subclass or an argument without a tangent space (a NumPy integer
    array: autograd refuses it too) is a TypeError, never a zero gradient."""
    if type(x) is float or (type(x) is np.ndarray and x.dtype.kind in "fc"):
        return
    for i, xi in ((argnum, x),) if type(argnum) is int else zip(argnum, x):
        what = f"argument {i} of {fname(fun)}"
        reject_subclass(xi, f"{op} ({what})")
        if not has_leaf(xi):
            raise TypeError(f"{op}: {what} is {_describe(xi)}, which has no tangent space: "
                            f"{no_tangent_space_hint((xi,))}")


def _describe(x: Any) -> str:
    p = _ad_strip_all(x)
    return f"an array of dtype {p.dtype}" if isinstance(p, np.ndarray) else f"a {type(p).__name__}"


def _substitute(args: tuple[Any, ...], argnum: Any, x: Any) -> list[Any]:
    new = list(args)
    if type(argnum) is int:
        new[argnum] = x
    else:
        for i, v in zip(argnum, x):
            new[i] = v
    return new


def _unary_to_nary(unary: Callable[..., Any]) -> Callable[..., Callable[..., Any]]:
    """autograd's `unary_to_nary`: `op(fun, argnum=0, *op_args)` is the function
    of fun's arguments applying the unary operator to fun of argument `argnum`."""
    op = unary.__name__.lstrip("_")

    @functools.wraps(unary)
    def nary_operator(fun: Callable[..., Any], argnum: Any = 0, *op_args: Any, **op_kwargs: Any) -> Callable[..., Any]:
        if not callable(fun):
            raise TypeError(f"{op}: fun must be callable, got {type(fun).__name__}")
        _check_argnum(op, argnum)

        def nary_f(*args: Any, **kwargs: Any) -> Any:
            x = _select(op, fun, args, argnum)
            _check_argument(op, fun, argnum, x)

            def unary_f(x: Any) -> Any:
                return fun(*_substitute(args, argnum, x), **kwargs)
            unary_f.__name__ = unary_f.__qualname__ = fname(fun)
            return unary(unary_f, x, *op_args, **op_kwargs)
        nary_f.__name__ = f"{op}_of_{getattr(fun, '__name__', '[unknown name]')}_wrt_argnum_{argnum}"
        nary_f.__qualname__ = nary_f.__name__
        nary_f.__doc__ = (f"{op} of function {fname(fun)} with respect to argument number {argnum}. "
                          f"Takes the same arguments as {fname(fun)} but returns the {op}.")
        return nary_f
    return nary_operator


def _scalar_output(who: str, fun: Any, ans: Any) -> None:
    if _size(ans) != 1:
        p = _ad_strip_all(ans)
        what = ("a complex number" if np.iscomplexobj(p) and np.ndim(p) == 0 else
                f"an array of shape {np.shape(p)}" if isinstance(p, np.ndarray) else
                f"a {type(p).__name__}")
        raise TypeError(f"{who}: {fname(fun)} returned {what}; {who} only applies to real "
                        "scalar-output functions. Try jacobian, elementwise_grad or holomorphic_grad.")


# ----- the operators ---------------------------------------------------------------

@_unary_to_nary
def grad(fun: Callable[[Any], Any], x: Any) -> Any:
    """grad(fun, argnum=0): the function returning the gradient of the real
    scalar `fun(*args)` with respect to argument `argnum` (an int or a tuple of
    ints), of that argument's type."""
    vjp, ans = _pullback(fun, x)
    _scalar_output("grad", fun, ans)
    return vjp(_ones(ans))


@_unary_to_nary
def elementwise_grad(fun: Callable[[Any], Any], x: Any) -> Any:
    """elementwise_grad(fun, argnum=0): the sum of each column of the Jacobian
    of fun (its diagonal when the Jacobian is diagonal), in one reverse pass."""
    vjp, ans = _pullback(fun, x)
    if _is_complex(ans):
        raise TypeError(f"elementwise_grad: {fname(fun)} returned a complex value; "
                        "elementwise_grad only applies to real-output functions.")
    return vjp(_ones(ans))


@_unary_to_nary
def value_and_grad(fun: Callable[[Any], Any], x: Any) -> Any:
    """value_and_grad(fun, argnum=0): the function returning `(fun(*args), grad)`
    (suitable for scipy.optimize with `jac=True`)."""
    vjp, ans = _pullback(fun, x)
    _scalar_output("value_and_grad", fun, ans)
    return ans, vjp(_ones(ans))


@_unary_to_nary
def grad_and_aux(fun: Callable[[Any], Any], x: Any) -> Any:
    """grad_and_aux(fun, argnum=0): for fun returning `(value, aux)`, the
    function returning `(gradient of value, aux)`."""
    def pair(z: Any) -> Any:
        out = fun(z)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"grad_and_aux: {fname(fun)} must return a pair (value, aux), "
                            f"got {type(out).__name__}")
        return tuple(out)
    (ans, aux), pb = _vjp(pair, x)
    _scalar_output("grad_and_aux", fun, ans)
    return _as_like(x, pb((_ones(ans), ZeroTangent()))[0]), aux


@_unary_to_nary
def deriv(fun: Callable[[Any], Any], x: Any) -> Any:
    """deriv(fun, argnum=0): the derivative of fun along ones (forward mode):
    for a scalar argument, df/dx."""
    return _jvp(fun, (x,), (_ones(x),))[1]


@_unary_to_nary
def jacobian(fun: Callable[[Any], Any], x: Any) -> Any:
    """jacobian(fun, argnum=0): the Jacobian of fun with respect to a scalar or
    array argument, an array of shape `np.shape(out) + np.shape(x)`, one
    reverse pass per output element."""
    vjp, ans = _pullback(fun, x)
    p = _ad_strip_all(ans)
    if not isinstance(p, (int, float, complex, np.number, np.ndarray)) or isinstance(p, bool):
        raise TypeError(f"jacobian: {fname(fun)} returned a {type(p).__name__}; jacobian needs a "
                        "number or an array output")
    out_shape, in_shape = np.shape(p), np.shape(_ad_strip_all(x))
    dtype = np.result_type(p, float)
    rows = []
    for k in range(int(np.prod(out_shape, dtype=int))):
        e = np.zeros(int(np.prod(out_shape, dtype=int)), dtype=dtype)
        e[k] = 1
        e = e.reshape(out_shape)
        rows.append(vjp(e if isinstance(p, np.ndarray) else e[()]))
    return np.reshape(np.stack(rows), out_shape + in_shape)


@_unary_to_nary
def holomorphic_grad(fun: Callable[[Any], Any], x: Any) -> Any:
    """holomorphic_grad(fun, argnum=0): the complex derivative f′(z) of a
    holomorphic fun (the gradient of its real part, in autograd's convention)."""
    if not _is_complex(x):
        warnings.warn("Input to holomorphic_grad is not complex", stacklevel=3)
    return grad(lambda z: np.real(fun(z)))(x)


@_unary_to_nary
def hessian(fun: Callable[[Any], Any], x: Any) -> Any:
    """hessian(fun, argnum=0): the exact Hessian, `jacobian(jacobian(fun))`:
    shape `np.shape(out) + np.shape(x) + np.shape(x)`."""
    return jacobian(jacobian(fun))(x)


@_unary_to_nary
def make_vjp(fun: Callable[[Any], Any], x: Any) -> Any:
    """make_vjp(fun, argnum=0): the function of fun's arguments returning
    `(vjp, ans)`, `vjp(g)` the vector-Jacobian product with g."""
    return _pullback(fun, x)


@_unary_to_nary
def make_jvp(fun: Callable[[Any], Any], x: Any) -> Any:
    """make_jvp(fun, argnum=0): the function of fun's arguments returning
    `jvp(v) -> (ans, J·v)` (forward mode, one run of fun per call of jvp)."""
    def jvp(v: Any) -> Any:
        ans, t = _jvp(fun, (x,), (v,))
        return ans, _containers_like(ans, t)
    return jvp


def _containers_like(y: Any, t: Any) -> Any:
    """The tangent t of a value y in autograd's form: y's container type
    (a tuple output's tangent a tuple, not a `Tangent[tuple]`), zeros for a
    zero; no conjugation (a tangent, not a gradient)."""
    ty = type(y)
    if ty is tuple or ty is list:
        return ty(_containers_like(yi, index_tangent(t, i)) for i, yi in enumerate(y))
    if ty is dict or ty is OrderedDict:
        return ty((k, _containers_like(v, index_tangent(t, k))) for k, v in y.items())
    if isinstance(t, AbstractZero):
        return _zeros(y)
    return t


@_unary_to_nary
def make_hvp(fun: Callable[[Any], Any], x: Any) -> Any:
    """make_hvp(fun, argnum=0): the function of fun's arguments returning
    `(hvp, gradient)`, `hvp(v)` the Hessian-vector product H·v at that point
    (forward over reverse)."""
    gradient = grad(fun)

    def hvp(v: Any) -> Any:
        return _jvp(gradient, (x,), (v,))[1]
    return hvp, gradient(x)


def hessian_tensor_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """hessian_tensor_product(fun, argnum=0): the function of `(*args, tensor)`
    returning the Hessian of fun with respect to argument `argnum` contracted
    with tensor (`hessian_vector_product` for a vector)."""
    _check_argnum("hessian_tensor_product", argnum, tuples=False)
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return np.tensordot(fun_grad(*args, **kwargs), vector, np.ndim(vector))
    return grad(vector_dot_grad, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """tensor_jacobian_product(fun, argnum=0): the function of `(*args, tensor)`
    returning tensor times the Jacobian of fun (`vector_jacobian_product` for
    a vector)."""
    _check_argnum("tensor_jacobian_product", argnum, tuples=False)

    def vector_dot_fun(*args: Any, **kwargs: Any) -> Any:
        args, vector = args[:-1], args[-1]
        return np.tensordot(vector, fun(*args, **kwargs), axes=np.ndim(vector))
    return jacobian(vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


def _half_sum_squares(x: Any) -> Any:
    return 1.0 / 2 * np.sum(x ** 2, axis=-1)


def make_ggnvp(f: Callable[..., Any], g: Callable[[Any], Any] = _half_sum_squares,
               f_argnum: int = 0) -> Callable[..., Any]:
    """make_ggnvp(f, g=½·sum(x², axis=-1), f_argnum=0): the function of f's
    arguments returning `ggnvp(v) = Jᵀ·H_g·J·v`, the generalized Gauss-Newton
    product of the loss `g(f(x))` (J the Jacobian of f at x, H_g the Hessian
    of g at f(x))."""
    _check_argnum("make_ggnvp", f_argnum, tuples=False)

    def _make_ggnvp(fun: Callable[[Any], Any], x: Any) -> Any:
        f_vjp, f_x = _pullback(fun, x)
        g_hvp = make_hvp(g)(f_x)[0]

        def ggnvp(v: Any) -> Any:
            return f_vjp(g_hvp(_jvp(fun, (x,), (v,))[1]))
        return ggnvp
    _make_ggnvp.__name__ = "make_ggnvp"
    return _unary_to_nary(_make_ggnvp)(f, f_argnum)


def grad_named(fun: Callable[..., Any], argname: str) -> Callable[..., Any]:
    """grad_named(fun, argname): the gradient with respect to the argument named
    argname (a positional parameter of fun, not `*args` or `**kwargs`)."""
    names = inspect.getfullargspec(fun).args
    if argname not in names:
        raise ValueError(f"grad_named: {fname(fun)} has no positional parameter {argname!r} "
                         f"(its parameters: {', '.join(names) or 'none'})")
    return grad(fun, names.index(argname))


def multigrad_dict(fun: Callable[..., Any]) -> Callable[..., Any]:
    """multigrad_dict(fun): the function of fun's arguments returning an
    OrderedDict mapping every parameter name to the gradient with respect to
    it (defaults included; `*args` as a tuple and `**kwargs` as a dict)."""
    sig = inspect.signature(fun)
    kinds = {name: p.kind for name, p in sig.parameters.items()}

    def call(arguments: dict[str, Any]) -> Any:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for name, kind in kinds.items():
            if kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(arguments[name])
            elif kind is inspect.Parameter.VAR_KEYWORD:
                kwargs.update(arguments[name])
            elif kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = arguments[name]
            else:
                args.append(arguments[name])
        return fun(*args, **kwargs)
    call.__name__ = fname(fun)

    def gradfun(*args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = {name: (tuple(v) if kinds[name] is inspect.Parameter.VAR_POSITIONAL else v)
                     for name, v in bound.arguments.items()}
        grads = grad(call)(arguments)
        return OrderedDict((name, grads[name]) for name in arguments)
    return gradfun


def checkpoint(fun: Callable[..., Any]) -> Callable[..., Any]:
    """checkpoint(fun): fun, whose intermediate values the reverse pass does
    not keep but recomputes when the backward pass reaches the call (autograd's
    `checkpoint`; `chainrules.ad.checkpoint`)."""
    if not callable(fun):
        raise TypeError(f"checkpoint: fun must be callable, got {type(fun).__name__}")
    return _checkpoint(fun)
