"""test_adapter: check a function wrapped for JAX, PyTorch or autograd
(`chainrules.interop`) against its rule and against finite differences."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from chainrules import AbstractZero, NoTangent, frule, rrule, unthunk
from chainrules.finite_differences import FiniteDifferenceMethod, jvp as fd_jvp, vjp as fd_vjp
from chainrules.interop import ENGINES
from chainrules.interop._common import Leaves, is_host_only, name_of
from chainrules.testing.backends import to_backend, to_numpy
from chainrules.testing.check_result import test_approx
from chainrules.testing.finite_difference_calls import DEFAULT_FDM
from chainrules.testing.primal_and_tangent import PrimalAndTangent
from chainrules.testing.rand_tangent import rand_tangent

__all__ = ["test_adapter"]


def _is_leaf(x: Any) -> bool:
    return (isinstance(x, np.ndarray) and x.dtype.kind in "fc") or \
        (isinstance(x, (float, complex, np.floating, np.complexfloating)) and not isinstance(x, bool))


class _Held:
    """An argument held fixed (`PrimalAndTangent(x, NoTangent())`): no leaf."""
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _split(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], Leaves, dict[int, Any]]:
    """The primals, the leaves (held-fixed arguments are not leaves) and the
    tangents given with `PrimalAndTangent(x, ẋ)`, by leaf index."""
    primals = tuple(a.primal if isinstance(a, PrimalAndTangent) else a for a in args)
    marked = tuple(_Held(a.primal) if isinstance(a, PrimalAndTangent) and isinstance(a.tangent, NoTangent)
                   else p for a, p in zip(args, primals))
    leaves = Leaves(marked, _is_leaf)
    given, k = {}, 0
    for a, m in zip(args, marked):
        n = len(Leaves((m,), _is_leaf).values)
        if isinstance(a, PrimalAndTangent) and n == 1:
            given[k] = a.tangent
        k += n
    return primals, leaves, given


class _Engine:
    """How test_adapter runs one engine: conversions, VJP and JVP in
    ChainRules' convention, the gradient of a real scalar."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "jax":
            import jax
            self.jax = jax
        elif name == "torch":
            import torch
            self.torch = torch

    def host_limits(self, f: Any) -> tuple[bool, bool]:
        """(forward mode, second order): whether the engine's function for f
        has them.  A rule that runs on the host (scipy.special; a NumPy
        function the engine has no counterpart with a rule for) is reverse
        mode only in JAX (a custom_vjp: every reverse order), first-order
        reverse mode in PyTorch unless its element-wise row gives torch
        derivatives, and first-order reverse mode in autograd."""
        if self.name == "jax":
            from chainrules.interop.jax import runs_on_host
            return not runs_on_host(f), True
        if self.name == "torch":
            from chainrules.interop.torch import _lookup, _twin
            host = _lookup(f)[1]
            full = not host or _twin(f, name_of(f)) is not None
            return full, full
        return not is_host_only(f), not is_host_only(f)

    def array(self, x: Any) -> Any:
        if self.name == "autograd":
            return x
        return to_backend(np.asarray(x), self.name)

    def vjp(self, fun: Callable[..., Any], xs: list[Any], ȳ: Any) -> list[Any]:
        if self.name == "jax":
            _, pb = self.jax.vjp(fun, *xs)
            return [np.conj(to_numpy(g)) for g in pb(np.conj(ȳ))]
        if self.name == "torch":
            torch = self.torch
            ts = [x.detach().requires_grad_(True) for x in xs]
            y = fun(*ts)
            gs = torch.autograd.grad(y, ts, grad_outputs=self.array(ȳ), allow_unused=True)
            return [np.zeros_like(to_numpy(x.detach())) if g is None else to_numpy(g.detach()) for g, x in zip(gs, xs)]
        from autograd import make_vjp
        pb, _ = make_vjp(lambda ls: fun(*ls))(list(xs))
        return [np.conj(np.asarray(g)) for g in pb(np.conj(ȳ))]

    def jvp(self, fun: Callable[..., Any], xs: list[Any], ẋs: list[Any]) -> Any:
        if self.name == "jax":
            return to_numpy(self.jax.jvp(fun, tuple(xs), tuple(self.array(t) for t in ẋs))[1])
        if self.name == "torch":
            return to_numpy(self.torch.func.jvp(fun, tuple(xs), tuple(self.array(t) for t in ẋs))[1])
        from autograd.differential_operators import make_jvp
        return np.asarray(make_jvp(lambda ls: fun(*ls))(list(xs))(list(ẋs))[1])

    def grad_of_scalar(self, s: Callable[..., Any], xs: list[Any]) -> list[Any]:
        """The gradient of a real scalar function of xs, differentiable again."""
        if self.name == "jax":
            return list(self.jax.grad(s, argnums=tuple(range(len(xs))))(*xs))
        if self.name == "autograd":
            from autograd import grad
            return list(grad(lambda ls: s(*ls))(list(xs)))
        torch = self.torch
        gs = torch.autograd.grad(s(*xs), xs, create_graph=True, allow_unused=True)
        return [torch.zeros_like(x) if g is None else g for g, x in zip(gs, xs)]


def test_adapter(f: Callable[..., Any], *args: Any, engine: str = "jax", order: int = 2,
                 fdm: FiniteDifferenceMethod | None = None, rtol: float | None = None,
                 atol: float | None = None, rng: np.random.Generator | None = None,
                 **kwargs: Any) -> None:
    """test_adapter(f, *args, engine="jax", order=2, fdm=None, rtol=None, atol=None, rng=None, **kwargs)

    Check `chainrules.interop`'s adapter of f for `engine` ("jax", "torch"
    or "autograd") at `args` (NumPy arrays and floats, converted to the
    engine's arrays; float64 kept, so JAX needs `jax_enable_x64`; other
    arguments and `kwargs` passed as they are).  `PrimalAndTangent(x, ẋ)`
    gives the tangent of the forward-mode check; `PrimalAndTangent(x,
    NoTangent())` holds x fixed: passed as it is (an array as the engine's),
    neither differentiated by the engine nor moved by finite differences:

    - the primal equals the rule's (`rrule(f, *args)` on NumPy) and f's own
      (`f(*args)`);
    - reverse mode: the engine's VJP with a random cotangent, in ChainRules'
      convention, equals the rule's pullback and finite differences;
    - forward mode: the engine's JVP with random tangents equals the frule
      (when f has one) and finite differences (not for scipy.special
      functions, which the adapters run on the host, reverse mode only);
    - `order=2` (real arguments): the engine's derivative of its own VJP
      (reverse over reverse) equals finite differences of that VJP (tolerances 1e-6
      unless given).

    f must return one array.  Raises AssertionError naming the check, f and
    the engine.

    >>> import numpy as np
    >>> test_adapter(np.sin, np.array([0.5, 1.0]), engine="autograd")
    """
    if engine not in ENGINES:
        raise ValueError(f"test_adapter: unknown engine {engine!r}; expected one of {sorted(ENGINES)}")
    rng = np.random.default_rng(0) if rng is None else rng
    fdm = DEFAULT_FDM if fdm is None else fdm
    eng = _Engine(engine)
    wrapped = ENGINES[engine](f)
    who = f"test_adapter({name_of(f)}, engine={engine!r})"
    args, leaves, given = _split(args)
    xs = [np.asarray(x) for x in leaves.values]
    exs = [eng.array(x) for x in xs]

    def engine_arg(a: Any) -> Any:
        a = a.value if isinstance(a, _Held) else a
        return eng.array(a) if isinstance(a, np.ndarray) else a

    def on_engine(*v: Any) -> Any:
        # the other arrays (a condition, indices, one held fixed) go in as the engine's too
        return wrapped(*[engine_arg(a) for a in leaves.rebuild(v)], **kwargs)

    def on_numpy(*v: Any) -> Any:
        return to_numpy(on_engine(*[eng.array(np.asarray(x)) for x in v]))

    res = rrule(f, *args, **kwargs)
    if res is None:
        raise AssertionError(f"{who}: f has no rrule for these arguments")
    y_rule, pullback = res
    y = on_engine(*exs)
    y = to_numpy(y.detach() if engine == "torch" else y)
    if isinstance(y, (tuple, list)):
        raise AssertionError(f"{who}: f returns a {type(y).__name__}; test_adapter checks functions "
                             "returning one array")
    test_approx(y, to_numpy(y_rule), f"{who}: primal differs from the rule's", rtol, atol)
    test_approx(y, to_numpy(f(*args, **kwargs)), f"{who}: primal differs from f's own value", rtol, atol)

    # reverse mode
    ȳ = rand_tangent(np.asarray(y), rng)
    got = eng.vjp(on_engine, exs, ȳ)
    rule_grads = leaves.cotangents(tuple(pullback(ȳ))[1:], lambda c, p: c)
    fd_grads = fd_vjp(fdm, on_numpy, ȳ, *xs)
    for i, (g, r, d) in enumerate(zip(got, rule_grads, fd_grads)):
        r = unthunk(r)
        r = np.zeros_like(xs[i]) if isinstance(r, AbstractZero) else to_numpy(r)
        test_approx(g, r, f"{who}: the engine's VJP for leaf {i} differs from the rule's pullback",
                    rtol, atol)
        test_approx(g, d, f"{who}: the engine's VJP for leaf {i} differs from finite differences",
                    rtol, atol)

    forward_mode, second_order = eng.host_limits(f)
    # forward mode
    if forward_mode:
        ẋs = [np.asarray(given[i]) if i in given else rand_tangent(x, rng) for i, x in enumerate(xs)]
        got_jvp = eng.jvp(on_engine, exs, ẋs)
        test_approx(got_jvp, fd_jvp(fdm, on_numpy, *zip(xs, ẋs)),
                    f"{who}: the engine's JVP differs from finite differences", rtol, atol)
        fres = frule((NoTangent(),) + leaves.tangents(ẋs), f, *args, **kwargs)
        if fres is not None:
            test_approx(got_jvp, to_numpy(unthunk(fres[1])),
                        f"{who}: the engine's JVP differs from the frule's", rtol, atol)

    # second order: the engine differentiates its own VJP
    real = all(x.dtype.kind == "f" for x in xs) and np.asarray(y).dtype.kind == "f"
    if order >= 2 and real and second_order:
        ybar = eng.array(np.asarray(ȳ))
        w = [rand_tangent(x, rng) for x in xs]

        def first(*v: Any) -> list[Any]:
            return eng.grad_of_scalar(lambda *u: (on_engine(*u) * ybar).sum(), list(v))

        def inner(*v: Any) -> Any:
            return sum((g * eng.array(wi)).sum() for g, wi in zip(first(*v), w))

        def first_numpy(*v: Any) -> Any:
            vs = [eng.array(np.asarray(x)) for x in v]
            if engine == "torch":
                vs = [x.requires_grad_(True) for x in vs]
            return tuple(to_numpy(g.detach() if engine == "torch" else g) for g in first(*vs))

        if engine == "torch":
            ts = [x.detach().requires_grad_(True) for x in exs]
            out = inner(*ts)
            # a linear f: its VJP does not depend on x, and torch tracks no graph for it
            gs = eng.torch.autograd.grad(out, ts, allow_unused=True) if out.requires_grad \
                else [None] * len(ts)
            got2 = [np.zeros_like(x) if g is None else to_numpy(g.detach()) for g, x in zip(gs, xs)]
        else:
            got2 = [to_numpy(g) for g in eng.grad_of_scalar(inner, exs)]
        fd2 = fd_vjp(fdm, first_numpy, tuple(w), *xs)
        # finite differences of a derivative: looser tolerances by default
        rtol2, atol2 = (1e-6 if rtol is None else rtol), (1e-6 if atol is None else atol)
        for i, (g, d) in enumerate(zip(got2, fd2)):
            test_approx(g, d, f"{who}: the engine's second derivative (its VJP differentiated) for "
                        f"leaf {i} differs from finite differences", rtol2, atol2)


setattr(test_adapter, "__test__", False)  # pytest: a helper, not a test, when imported into a test module
