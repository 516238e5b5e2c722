"""`to_torch(f)`: f as a PyTorch function whose derivatives come from chainrules.

Each call applies a `torch.autograd.Function` (setup_context style, so
`torch.func` transforms work too): `forward` computes the primal by the
rule, `backward` calls the rrule's pullback and `jvp` the frule.  The
backward pass re-runs the rrule on the saved inputs: with
`create_graph=True` those are tensors that autograd tracks, and as the rule
bodies compute with torch's own operations (through array_api_compat's
namespace), double backward differentiates the pullback itself; any order
works.  `torch.func.vmap` batches the rules' torch operations
(`generate_vmap_rule`).  PyTorch's complex convention is ChainRules': no conversion.

A NumPy function (`np.sin`, `np.sum`) means the function of that name of
`array_api_compat.torch` (which takes NumPy's `axis=` keywords; its rules
are registered when it is imported).  Tensors with a floating or complex
dtype are differentiated, also inside lists, tuples and dicts; everything
else and every keyword is passed through.  NumPy arrays are refused with a
TypeError (PyTorch's functions refuse them too): convert with
`torch.as_tensor`; so are Python numbers without a tensor (as `torch.sin(0.5)`).
scipy.special functions (their rules compute with SciPy), and NumPy
functions PyTorch has no function for, run on the host, first order only:
differentiating their cotangents again raises TypeError naming the function;
those with a row in the element-wise table (np.cbrt, np.fabs) take their
derivatives from it, computed with torch's operations, at any order.

As torch's own functions do, the inputs and outputs are saved for backward:
modifying either in place before the backward pass raises torch's
version-counter error; an input returned as it is (np.positive of a real
tensor) comes back as a view of it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from chainrules import NoTangent, RuleConfig
from chainrules._core import _rules_of
from chainrules._protocols import Pullback
from chainrules.rulesets.elementwise import row_for_numpy_name
from chainrules.rulesets.elementwise.rules import rules_for
from chainrules.interop._common import (
    NO,
    ZERO,
    Leaves,
    check_libraries,
    frule_or_raise,
    from_cr,
    is_host_only,
    name_of,
    resolve,
    row_rules,
    rrule_or_raise,
    same_rules,
    to_cr,
    wrap_name,
)

__all__ = ["to_torch", "TorchConfig"]



def _torch() -> Any:
    import torch
    return torch


def _namespaces() -> list[Any]:
    import array_api_compat.torch as xp
    return [xp, _torch()]


def _is_leaf(x: Any) -> bool:
    torch = _torch()
    return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())


def _leaf_in(t: Any) -> Any:
    return ZERO if t is None else t


def _leaf_out(t: Any, p: Any) -> Any:
    torch = _torch()
    t = torch.as_tensor(t, dtype=p.dtype) if not isinstance(t, torch.Tensor) else t
    if t.dtype != p.dtype:
        t = (t if p.is_complex() else t.real).to(p.dtype)
    if t.shape != p.shape:
        t = t.expand(p.shape)
    return t


def _zeros(p: Any) -> Any:
    torch = _torch()
    return torch.zeros_like(p) if isinstance(p, torch.Tensor) else None


class TorchConfig(RuleConfig):
    """TorchConfig(): the RuleConfig of `to_torch`: `rrule_via_ad` is
    `torch.func.vjp`, `frule_via_ad` is `torch.func.jvp` (the same
    convention as ChainRules for complex numbers).  Floating and complex
    tensors are differentiated (also in lists, tuples, dicts); ∂self is
    NoTangent()."""
    has_forward_mode = True
    has_reverse_mode = True

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        torch = _torch()
        leaves = Leaves(args, _is_leaf)
        who = f"TorchConfig.rrule_via_ad({name_of(f)})"
        y, vjp = torch.func.vjp(lambda *v: f(*leaves.rebuild(v), **kwargs), *leaves.values)

        def torch_pullback(ȳ: Any) -> tuple[Any, ...]:
            grads = vjp(from_cr(ȳ, y, _zeros, _leaf_out, who))
            return (NO,) + leaves.tangents([_leaf_in(g) for g in grads])
        return y, torch_pullback

    def frule_via_ad(self, tangents: tuple[Any, ...] | list[Any], f: Callable[..., Any], *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:
        torch = _torch()
        leaves = Leaves(args, _is_leaf)
        who = f"TorchConfig.frule_via_ad({name_of(f)})"
        ts = leaves.cotangents(tuple(tangents)[1:], lambda t, p: from_cr(t, p, _zeros, _leaf_out, who))
        y, ẏ = torch.func.jvp(lambda *v: f(*leaves.rebuild(v), **kwargs), tuple(leaves.values), tuple(ts))
        return y, to_cr(ẏ, _leaf_in)

    def __repr__(self) -> str:
        return "TorchConfig()"


CONFIG = TorchConfig()


def to_torch(f: Callable[..., Any]) -> Callable[..., Any]:
    """f as a function of torch tensors whose derivatives are chainrules'
    rules for f (see the module docstring).  A call with no rule for its
    arguments raises TypeError naming f and the argument types."""
    if not callable(f):
        raise TypeError(f"to_torch: expected a function, got {type(f).__name__}")

    looked_up: list[Any] = []        # (g, host) of _lookup(f) and g's _RowPlan, at the first call

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not looked_up:
            looked_up.append(_lookup(f))
            looked_up.append(None if looked_up[0][1] else _RowPlan.of(looked_up[0][0]))
        plan = looked_up[1]
        if plan is not None and plan.serves(args, kwargs):
            return _apply_row(plan, args[0])
        who = wrapper.__qualname__
        check_libraries(who, args, frozenset({"torch"}),
                        "pass torch tensors (torch.as_tensor(x)) to differentiate it with PyTorch")
        leaves = Leaves(args, _is_leaf)
        if not leaves.values:
            _no_tensor(who, args)
        g, host = looked_up[0]
        if g is not f and f in _DEFAULTS:
            kwargs = _numpy_defaults(f, args, kwargs)
        return _apply(_Plan(f, g, leaves, kwargs, who, host), *leaves.values)

    wrap_name(wrapper, "to_torch", f)
    return wrapper


def _lookup(f: Any) -> tuple[Any, bool]:
    """The function whose rule runs on torch tensors, and whether it runs on
    the host: scipy.special, and a NumPy function without a torch function
    that has a rule (np.cbrt, np.spacing, np.linalg.norm)."""
    g = f if is_host_only(f) else resolve(f, _namespaces())
    if g is not f and not any(_rules_of(g)) and _is_numpy(f):
        g = f
    return g, g is f and (is_host_only(f) or _is_numpy(f))


def _from_host(a: Any) -> Any:
    """A NumPy result as a tensor (torch refuses negative strides: np.flip's)."""
    a = np.asarray(a)
    return _torch().as_tensor(a.copy() if any(s < 0 for s in a.strides) else a)


def _no_tensor(who: str, args: tuple[Any, ...]) -> None:
    """TypeError when no argument is a torch tensor (torch.sin(0.5) raises too)."""
    torch = _torch()
    if not any(isinstance(e, torch.Tensor) for a in args
               for e in (a if type(a) in (list, tuple) else (a,))):
        kinds = ", ".join(type(a).__name__ for a in args) or "no arguments"
        raise TypeError(f"{who}: no argument is a torch tensor ({kinds}); pass torch tensors "
                        "(torch.as_tensor(x)) to differentiate it with PyTorch")


# NumPy's defaults for what array_api_compat's functions require: np.squeeze(x)
# drops every axis of length 1, np.transpose(x) reverses the axes
_DEFAULTS: dict[Any, Any] = {
    np.squeeze: ("axis", lambda x: tuple(i for i, n in enumerate(x.shape) if n == 1)),
    np.transpose: ("axes", lambda x: tuple(range(x.ndim))[::-1])}


def _numpy_defaults(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    key, default = _DEFAULTS[f]
    if len(args) == 1 and kwargs.get(key) is None:
        return {**kwargs, key: default(args[0])}
    return kwargs


def _is_numpy(f: Any) -> bool:
    """f is a function of numpy, numpy.linalg or numpy.fft (its rule computes with NumPy)."""
    name = getattr(f, "__name__", None)
    return isinstance(name, str) and any(getattr(m, name, None) is f for m in (np, np.linalg, np.fft))


_TWINS: dict[Any, Any] = {}


def _twin(f: Any, who: str) -> Any:
    """(frule, rrule) on torch tensors of a host NumPy function with an
    element-wise row (np.cbrt, np.fabs), or None: the row's partials computed
    with torch's operations, the primal on the host through RuleFunction
    again, so that the cotangents are differentiable at any order."""
    if f in _TWINS:
        return _TWINS[f]
    name = getattr(f, "__name__", "")
    row = row_for_numpy_name(name) if getattr(np, name, None) is f else None
    if row is None:
        _TWINS[f] = None
        return None

    def on_host(*args: Any) -> Any:
        leaves = Leaves(args, _is_leaf)
        return _apply(_Plan(f, f, leaves, {}, who, True), *leaves.values)

    on_host.__name__ = on_host.__qualname__ = name
    _TWINS[f] = rules_for(on_host, row, name=name)
    return _TWINS[f]


def _host_leaf(t: Any, p: Any) -> Any:
    return _from_host(t).to(p.dtype)


def _not_twice(who: str) -> Any:
    """An identity on a cotangent computed on the host whose derivative (with
    respect to the inputs it came from) raises TypeError naming the function."""
    torch = _torch()

    function: Any = torch.autograd.Function

    class NotTwice(function):  # type: ignore[misc]  # torch is untyped here
        @staticmethod
        def forward(c: Any, *values: Any) -> Any:
            return c.clone()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            pass

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            raise TypeError(f"{who}: second-order derivatives are not available for a function "
                            "whose rule runs on the host (scipy.special, NumPy without a torch function): "
                            "its rule computes with NumPy/SciPy")
    return NotTwice


def _not_an_input(y: Any, values: Any) -> Any:
    for v in values:
        if y is v:
            return y.view_as(y)
    return y


class _Plan:
    """What one call of a wrapped function needs in its forward and backward
    passes (the first, non-tensor, input of RuleFunction)."""
    __slots__ = ("f", "g", "leaves", "kwargs", "who", "host", "pullback", "n")

    def __init__(self, f: Any, g: Any, leaves: Leaves, kwargs: dict[str, Any], who: str,
                 host: bool) -> None:
        self.f, self.g, self.leaves, self.kwargs, self.who, self.host = f, g, leaves, kwargs, who, host
        self.pullback: Any = None     # the forward pass's, for a backward pass without a graph
        self.n = len(leaves.values)   # the saved tensors: the n inputs, then the outputs

    def twin(self) -> Any:
        """The torch rules of a host function (see _twin), or None."""
        return _twin(self.f, self.who) if self.host and not self.kwargs else None

    def args(self, values: Any) -> tuple[Any, ...]:
        """The arguments, with NumPy copies of the tensors for a host rule."""
        if self.host:
            return self.leaves.rebuild([v.detach().cpu().numpy() for v in values])
        return self.leaves.rebuild(values)

    def rrule(self, values: Any) -> tuple[Any, Any]:
        return rrule_or_raise("to_torch", self.f, self.g, CONFIG, self.args(values), self.kwargs)


# ----- the fast path of an element-wise function with a row: one real tensor ----------
# (issue 25) The generic path above costs several times torch's own function at 1000
# elements: the argument walk, the plan, the rule's dispatch and its generic body on every
# call.  A function whose only rules are the element-wise table's unary ones (torch.sin for
# np.sin) called on one real tensor takes a Function of its own instead, which computes
# what those rules compute (`RealUnary`: the primal, and ∂Ω/∂x·v in torch's operations, so
# that every order and torch.func work as on the generic path), looked up once per wrapped
# function and checked against the rule table on every call (a rule registered later for
# the function, or debug mode, sends the calls back to the generic path).

class _RowPlan:
    """The rules of g when they are the table's unary ones: `real` their
    `RealUnary`, valid while the rule table holds the same rules for g."""
    __slots__ = ("g", "rules", "real", "xp", "tensor")

    def __init__(self, g: Any, rules: Any, real: Any) -> None:
        self.g, self.rules, self.real = g, rules, real
        self.xp = _namespaces()[0]
        self.tensor = _torch().Tensor

    @staticmethod
    def of(g: Any) -> _RowPlan | None:
        rules = row_rules(g)
        return None if rules is None else _RowPlan(g, rules, rules[1][0].fn.real_rule)

    def serves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """One real tensor, no keyword, and g's rules those of the plan."""
        if len(args) != 1 or kwargs or type(args[0]) is not self.tensor or not args[0].is_floating_point():
            return False
        return same_rules(self.g, self.rules)


_ROW_APPLY: list[Any] = []


def _apply_row(plan: _RowPlan, x: Any) -> Any:
    """RowFunction.apply(plan, x), by the C entry point outside torch.func's
    transforms (as `_apply`)."""
    return _entry(_ROW_APPLY, _row_function)(plan, x)


def _row_function() -> Any:
    """The torch.autograd.Function of the fast path, made once."""
    torch = _torch()
    function: Any = torch.autograd.Function

    class RowFunction(function):  # type: ignore[misc]  # torch is untyped here
        generate_vmap_rule = True

        @staticmethod
        def forward(plan: _RowPlan, x: Any) -> Any:
            y = plan.real.primal(x)
            return y.view_as(y) if y is x else y        # as _not_an_input

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.plan = inputs[0]
            ctx.save_for_backward(inputs[1], output)
            ctx.save_for_forward(inputs[1], output)

        @staticmethod
        def backward(ctx: Any, ȳ: Any) -> Any:
            x, Ω = ctx.saved_tensors
            plan = ctx.plan
            if ȳ.dtype != Ω.dtype or ȳ.shape != Ω.shape:
                # a seed to broadcast or cast: the rule's own pullback does it
                _, pullback = rrule_or_raise("to_torch", plan.g, plan.g, CONFIG, (x,), {})
                return None, from_cr(pullback(ȳ)[1], x, _zeros, _leaf_out, plan.g.__name__)
            return None, plan.real.times(plan.xp, x, Ω, ȳ)

        @staticmethod
        def jvp(ctx: Any, _: Any, ẋ: Any) -> Any:
            x, Ω = ctx.saved_tensors
            plan = ctx.plan
            if ẋ.dtype != Ω.dtype or ẋ.shape != Ω.shape:
                _, ẏ = frule_or_raise("to_torch", plan.g, plan.g, CONFIG, (ẋ,), (x,), {})
                return from_cr(ẏ, Ω, _zeros, _leaf_out, plan.g.__name__)
            return plan.real.times(plan.xp, x, Ω, ẋ)

    return RowFunction


_CLASS: list[Any] = []
_APPLY: list[Any] = []


def _apply(plan: _Plan, *values: Any) -> Any:
    """RuleFunction.apply(plan, *values).  Outside torch.func's transforms
    the C entry point is called directly: `Function.apply` would first bind
    the arguments to `forward`'s signature with `inspect` (for defaults,
    which `forward` has none of) on every call, a third of the adapter's
    cost at 1000 elements; under vmap/grad/jvp it takes the full path."""
    return _entry(_APPLY, _rule_function)(plan, *values)


def _entry(cache: list[Any], make: Any) -> Any:
    """The callable applying the Function class `make()`: its C entry point
    when no torch.func transform is active (Function.apply binds the
    arguments with `inspect` on every call), else the full `apply`."""
    if not cache:
        cls = make()
        torch = _torch()
        active = getattr(torch._C, "_are_functorch_transforms_active", None)
        base = super(torch.autograd.Function, cls).apply if active is not None else None
        cache.append((cls.apply, base, active))
    full, base, active = cache[0]
    return full if base is None or active() else base


def _rule_function() -> Any:
    """The torch.autograd.Function of every wrapped function, made once."""
    if _CLASS:
        return _CLASS[0]
    torch = _torch()
    function: Any = torch.autograd.Function

    class RuleFunction(function):  # type: ignore[misc]  # torch is untyped here
        # torch.func.vmap: the rules compute with torch operations, which vmap batches
        generate_vmap_rule = True

        @staticmethod
        def forward(plan: _Plan, *values: Any) -> Any:
            y, plan.pullback = plan.rrule(values)
            if plan.host:
                return _from_host(y)
            # an input returned as it is (np.positive, np.real of a real tensor): a view
            # of it, as torch's own functions give, so that it can be saved and tracked
            if isinstance(y, tuple):
                return tuple(_not_an_input(e, values) for e in y)
            return _not_an_input(y, values)

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.plan = inputs[0]
            # the outputs too, which the pullback may read (exp's is Ω): torch's version
            # check then refuses a backward pass after either was modified in place
            if isinstance(output, torch.Tensor):
                ctx.save_for_backward(*inputs[1:], output)
            else:
                outs = output if isinstance(output, tuple) else ()
                ctx.save_for_backward(*inputs[1:], *[o for o in outs if isinstance(o, torch.Tensor)])
            ctx.save_for_forward(*inputs[1:])

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            plan = ctx.plan
            values = ctx.saved_tensors[:plan.n]      # reading them checks their versions
            needed = ctx.needs_input_grad[1:]
            graph = torch.is_grad_enabled()
            twin = plan.twin() if graph else None
            # without create_graph the forward pass's pullback serves; with it, the rule
            # runs again on the saved tensors, which autograd tracks, so that its pullback
            # is differentiated (double backward); a host function's with its torch twin
            if twin is not None:
                pullback = twin[1](*plan.leaves.rebuild(values))[1]
            elif graph and not plan.host or plan.pullback is None:
                pullback = plan.rrule(values)[1]
            else:
                pullback = plan.pullback
            on_host = plan.host and twin is None
            ȳ: Any = grads[0] if len(grads) == 1 else tuple(grads)
            if on_host and len(grads) == 1:
                ȳ = ȳ.detach().cpu().numpy()
            out = pullback(to_cr(ȳ, _leaf_in))
            leaf: Callable[[Any, Any], Any] = _host_leaf if on_host else _leaf_out
            if on_host and graph and any(v.requires_grad for v in values):
                # create_graph=True: the host's cotangents carry no graph; a second
                # derivative through them must fail, never leave out their terms (a zero
                # cotangent is exact: its derivative is zero)
                def host_once_leaf(t: Any, p: Any) -> Any:
                    return _not_twice(plan.who).apply(_host_leaf(t, p), *values)
                leaf = host_once_leaf
            cts = plan.leaves.cotangents(tuple(out)[1:], lambda c, p: from_cr(c, p, _zeros, leaf, plan.who),
                                         values, needed)
            return (None,) + tuple(c if need else None for c, need in zip(cts, needed))

        @staticmethod
        def jvp(ctx: Any, *tangents: Any) -> Any:
            plan, values = ctx.plan, ctx.saved_tensors
            twin = plan.twin()
            if plan.host and twin is None:
                raise TypeError(f"{plan.who}: forward mode is not available for a function whose "
                                "rule runs on the host (scipy.special, NumPy without a torch function)")
            ts = plan.leaves.tangents([_leaf_in(t) for t in tangents[1:]])
            args = plan.leaves.rebuild(values)
            if twin is not None:
                y, ẏ = twin[0]((NO,) + ts, *args)
            else:
                y, ẏ = frule_or_raise("to_torch", plan.f, plan.g, CONFIG, ts, args, plan.kwargs)
            return from_cr(ẏ, y, _zeros, _leaf_out, plan.who)

    _CLASS.append(RuleFunction)
    return RuleFunction
